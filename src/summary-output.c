/* summary-output.c -- writing summaries as CSV, JSON, a table or
   Markdown (numbers from summary-number.c, text widths from
   summary-text.c; verdicts and plots in summary-verdicts.c and
   summary-plot.c). */
#include "system.h"
#include "summary-output.h"
#include "csv-writer.h"
#include "die.h"
#include "stats.h"
#include "summary-number.h"
#include "summary-stats.h"
#include "summary-text.h"

#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stddef.h>

const char *const summary_format_names[SUMMARY_FORMAT_COUNT + 1] = {
  "csv", "table", "json", "markdown", NULL
};

/* How ci_method reads when the interval was found on the log scale.  */
static const char *const summary_log_method_names[CI_METHOD_COUNT] = {
  [CI_T] = "log-t", [CI_BOOT_T] = "log-boot-t",
};

/* One output field, formatted late so every format shares the layout.  */
struct field
{
  enum stat_kind kind;          /* TEXT, COUNT, NUMBER or P */
  enum stat_family family;
  const char *text;
  uint64_t count;
  double number;
  double half;                  /* the half width of the interval whose
                                   precision it has in tables, or NaN */
  int dir;                      /* an interval's low end -1, high end 1:
                                   rounded outward in tables */
};

struct layout
{
  const struct summary_data *d;
  const struct summary_config *config;
  char **labels;
  bool gmean, compare, rank, paired;
  size_t width;                 /* fields per row */
  char seed[24];                /* text: 64 bits are more than JSON numbers hold */
  size_t *pick, npick;          /* --columns: the fields shown, in order; 0: all */
};

static bool
part_shown (const struct layout *l, enum stat_part part)
{
  return part == STAT_PART_ALWAYS || (part == STAT_PART_GMEAN && l->gmean)
    || (part == STAT_PART_COMPARE && l->compare) || (part == STAT_PART_RANK && l->rank)
    || (part == STAT_PART_PAIRED && l->paired);
}

static struct layout
layout_new (const struct summary_data *d, const struct summary_config *config, char **labels)
{
  struct layout l = { d, config, labels, false, d->compare_level != NULL,
                      d->compare_level != NULL && config->rank,
                      d->compare_level != NULL && d->paired, 0, "", NULL, 0 };
  snprintf (l.seed, sizeof l.seed, "%" PRIu64, config->seed);
  for (size_t v = 0; v < d->nvalues; v++)
    l.gmean |= d->values[v].numeric && d->values[v].ratio;
  l.gmean |= config->stat == CI_STAT_GMEAN;
  l.width = d->ngroup_names;
  for (size_t i = 0; i < summary_nstatistics; i++)
    if (part_shown (&l, summary_statistics[i].part))
      l.width += summary_statistics[i].kind == STAT_PERCENTILES ? config->npercentiles : 1;
  return l;
}

static size_t header_fields (const struct layout *l, struct field *f);

/* --columns: each name's field among the header's, or exit 64.  */
static void
layout_pick (struct layout *l)
{
  const struct summary_config *config = l->config;
  if (!config->ncolumns)
    return;
  struct field *h = xcalloc (l->width + 1, sizeof *h);
  size_t n = header_fields (l, h);
  l->pick = xcalloc (config->ncolumns, sizeof *l->pick);
  for (size_t i = 0; i < config->ncolumns; i++)
    {
      size_t k = 0;
      while (k < n && !STREQ (h[k].text, config->columns[i]))
        k++;
      if (k == n)
        die (EXIT_USAGE, 0, "--columns: no column %s in this output (its header names "
             "them)", quote (config->columns[i]));
      l->pick[l->npick++] = k;
    }
  free (h);
}

/* The fields of F[0..N) that --columns shows, in its order, moved to
   the front; their count.  */
static size_t
pick_fields (const struct layout *l, struct field *f, size_t n)
{
  if (!l->npick)
    return n;
  struct field *all = xmalloc (n * sizeof *all);
  memcpy (all, f, n * sizeof *all);
  for (size_t i = 0; i < l->npick; i++)
    f[i] = all[l->pick[i]];
  free (all);
  return l->npick;
}

static struct field
text (const char *t)
{
  return (struct field) { STAT_TEXT, STAT_FAM_NONE, t, 0, 0, NAN, 0 };
}

static size_t
header_fields (const struct layout *l, struct field *f)
{
  size_t k = 0;
  for (size_t i = 0; i < l->d->ngroup_names; i++)
    f[k++] = text (l->d->group_names[i]);
  for (size_t i = 0; i < summary_nstatistics; i++)
    {
      const struct summary_statistic *s = &summary_statistics[i];
      if (!part_shown (l, s->part))
        continue;
      if (s->kind == STAT_PERCENTILES)
        for (size_t p = 0; p < l->config->npercentiles; p++)
          f[k++] = text (l->labels[p]);
      else
        f[k++] = text (s->header);
    }
  return k;
}

/* The interval whose precision the number at OFFSET of ROW has: a
   statistic and its interval's ends have the interval's; the
   comparison's ratio, difference and percentage have theirs.  */
static double
field_half (const struct summary_row *row, size_t offset, int *dir)
{
  static const size_t estimate[CI_STAT_COUNT] = {
    [CI_STAT_MEAN] = offsetof (struct summary_row, mean),
    [CI_STAT_MEDIAN] = offsetof (struct summary_row, median),
    [CI_STAT_GMEAN] = offsetof (struct summary_row, gmean),
  };
  static const struct
  {
    size_t point, low, high;
  } intervals[] = {
#define WITH_CI(p, l, h) { offsetof (struct summary_row, p), \
    offsetof (struct summary_row, l), offsetof (struct summary_row, h) }
    WITH_CI (welch.ratio, welch.ratio_low, welch.ratio_high),
    WITH_CI (welch.diff, welch.diff_low, welch.diff_high),
    WITH_CI (welch.pct, welch.pct_low, welch.pct_high),
    WITH_CI (rank.shift, rank.shift_low, rank.shift_high),
    WITH_CI (paired.diff, paired.diff_low, paired.diff_high),
    WITH_CI (paired.ratio, paired.ratio_low, paired.ratio_high),
#undef WITH_CI
  };
  const char *base = (const char *) row;
  *dir = 0;
  for (size_t i = 0; i < ARRAY_SIZE (intervals); i++)
    if (offset == intervals[i].point || offset == intervals[i].low
        || offset == intervals[i].high)
      {
        *dir = offset == intervals[i].low ? -1 : offset == intervals[i].high;
        return summary_number_half (*(const double *) (base + intervals[i].point),
                           *(const double *) (base + intervals[i].low),
                           *(const double *) (base + intervals[i].high));
      }
  *dir = offset == offsetof (struct summary_row, ci_low) ? -1
    : offset == offsetof (struct summary_row, ci_high);
  size_t point = estimate[row->ci_stat];
  if (point && (offset == point || offset == offsetof (struct summary_row, ci_low)
                || offset == offsetof (struct summary_row, ci_high)))
    return summary_number_half (*(const double *) (base + point), row->ci_low, row->ci_high);
  return NAN;
}

static size_t
row_fields (const struct layout *l, const struct summary_row *row, struct field *f)
{
  const struct summary_data *d = l->d;
  size_t k = 0;
  const struct summary_group *g = &d->groups[row->group];
  for (size_t i = 0; i < d->ngroup_names; i++)
    f[k++] = text (g->key[i]);
  const char *base = (const char *) row;
  for (size_t i = 0; i < summary_nstatistics; i++)
    {
      const struct summary_statistic *s = &summary_statistics[i];
      if (!part_shown (l, s->part))
        continue;
      struct field x = { s->kind, s->family, NULL, 0, NAN, NAN, 0 };
      switch (s->kind)
        {
        case STAT_TEXT:
          x.text = d->values[row->value].name;
          break;
        case STAT_COUNT:
          x.count = *(const size_t *) (base + s->offset);
          break;
        case STAT_NUMBER:
        case STAT_P:
          x.number = *(const double *) (base + s->offset);
          if (s->part >= STAT_PART_COMPARE && !row->compared)
            x.number = NAN;
          x.half = field_half (row, s->offset, &x.dir);
          break;
        case STAT_CI_STAT:
          x = text (ci_stat_names[row->ci_stat]);
          break;
        case STAT_CI_METHOD:
          x = text (row->ci_log ? summary_log_method_names[row->ci_method]
                    : ci_method_names[row->ci_method]);
          break;
        case STAT_CI_LEVEL:
          x.kind = STAT_NUMBER;
          x.number = l->config->confidence;
          break;
        case STAT_SEED:
          x = text (row->seeded ? l->seed : "");
          x.kind = STAT_SEED;
          break;
        case STAT_VS:
          x = text (row->compared ? d->compare_level : "");
          x.kind = STAT_VS;
          break;
        case STAT_PERCENTILES:
          for (size_t p = 0; p < l->config->npercentiles; p++)
            f[k++] = (struct field) { STAT_NUMBER, s->family, NULL, 0, row->percentiles[p], NAN, 0 };
          continue;
        }
      f[k++] = x;
    }
  return k;
}

/* An interval's end past the largest double: printed as inf, not as an
   unknown, and said (warn_infinite_ends).  */
static bool
infinite_end (const struct field *f)
{
  return f->kind == STAT_NUMBER && f->dir && isinf (f->number);
}

/* The rows with an interval end past the largest double, on stderr once:
   printed as inf, they would read as a bound the data gave.  */
static void
warn_infinite_ends (const struct layout *l, const struct summary_row *rows, size_t nrows)
{
  struct field *h = xcalloc (l->width + 1, sizeof *h);
  struct field *f = xcalloc (l->width + 1, sizeof *f);
  size_t n = pick_fields (l, h, header_fields (l, h)), count = 0, first = 0, end = 0;
  for (size_t r = 0; r < nrows; r++)
    {
      pick_fields (l, f, row_fields (l, &rows[r], f));
      for (size_t i = 0; i < n; i++)
        if (infinite_end (&f[i]))
          {
            if (!count++)
              first = r, end = i;
            break;
          }
    }
  if (count)
    {
      char where[512];
      summary_where (l->d, rows[first].group, SIZE_MAX, where, sizeof where);
      /* WHERE ends in ", ": the group's words, or nothing.  */
      size_t len = strlen (where);
      if (len >= 2)
        where[len - 2] = '\0';
      warn (0, "column %s: %s passes the largest double (1.8e308), printed as inf, in %zu "
            "row%s%s%s%s", quote (l->d->values[rows[first].value].name), h[end].text,
            count, count == 1 ? "" : "s", len >= 2 ? " (first: " : "", where,
            len >= 2 ? ")" : "");
    }
  free (h);
  free (f);
}

static void
put_csv (FILE *out, struct csv_line *line, const struct field *f, size_t n)
{
  for (size_t i = 0; i < n; i++)
    switch (f[i].kind)
      {
      case STAT_COUNT:
        csv_line_u64 (line, f[i].count);
        break;
      case STAT_NUMBER:
      case STAT_P:
        {
          /* The shortest text that reads back, as in JSON (1e-323, not
             csv_line_double's 9.88131e-324).  */
          char buf[48] = "";
          if (isfinite (f[i].number))
            summary_number_shortest (f[i].number, buf, sizeof buf);
          else if (infinite_end (&f[i]))
            strcpy (buf, f[i].number > 0 ? "inf" : "-inf");
          csv_line_str (line, buf);
        }
        break;
      default:
        csv_line_str (line, f[i].text);
        break;
      }
  csv_line_put (line, out);
}

/* An array of objects, one per row; numbers as JSON numbers, unknown
   values as null.  */
static void
put_json (FILE *out, const struct layout *l, const struct summary_row *rows, size_t nrows)
{
  struct field *h = xcalloc (l->width + 1, sizeof *h);
  struct field *f = xcalloc (l->width + 1, sizeof *f);
  size_t n = pick_fields (l, h, header_fields (l, h));
  fputs ("[", out);
  for (size_t r = 0; r < nrows; r++)
    {
      pick_fields (l, f, row_fields (l, &rows[r], f));
      fputs (r ? ",\n {" : "\n {", out);
      for (size_t i = 0; i < n; i++)
        {
          if (i)
            fputs (", ", out);
          summary_text_json (out, h[i].text);
          fputs (": ", out);
          char buf[48];
          switch (f[i].kind)
            {
            case STAT_COUNT:
              fprintf (out, "%" PRIu64, f[i].count);
              break;
            case STAT_NUMBER:
            case STAT_P:
              if (isfinite (f[i].number))
                {
                  summary_number_shortest (f[i].number, buf, sizeof buf);
                  fputs (buf, out);
                }
              else if (infinite_end (&f[i]))
                /* JSON has no inf; a number past every double reads as
                   one (Python, JavaScript) and is valid JSON.  */
                fputs (f[i].number > 0 ? "1e999" : "-1e999", out);
              else
                fputs ("null", out);
              break;
            default:
              if (f[i].text && *f[i].text)
                summary_text_json (out, f[i].text);
              else
                fputs ("null", out);
              break;
            }
        }
      fputs ("}", out);
    }
  fputs (nrows ? "\n]\n" : "]\n", out);
  free (h);
  free (f);
}

/* Table cells: numbers with their family's digits, unknowns as "-".  */
static char *
table_text (const struct layout *l, const struct field *f, const int *precision)
{
  char buf[64];
  switch (f->kind)
    {
    case STAT_COUNT:
      snprintf (buf, sizeof buf, "%" PRIu64, f->count);
      return xstrdup (buf);
    case STAT_NUMBER:
      if (infinite_end (f))
        return xstrdup (f->number > 0 ? "inf" : "-inf");
      if (!isfinite (f->number))
        return xstrdup ("-");
      if (!summary_number_rounded (f->number, f->half, f->dir, buf, sizeof buf))
        summary_number_digits (f->number, precision[f->family], buf, sizeof buf);
      return xstrdup (buf);
    case STAT_P:
      if (!isfinite (f->number))
        return xstrdup ("-");
      /* As the verdicts print it: on its side of the level.  */
      summary_number_p_against (f->number, stats_alpha (l->config->confidence), buf,
                                sizeof buf);
      return xstrdup (buf);
    case STAT_SEED:
    case STAT_VS:
      /* No seed (nothing drawn) or no base: a dash, as for a number,
         so a whitespace split keeps every later column in place.  */
      return xstrdup (f->text && f->text[0] ? f->text : "-");
    default:
      return xstrdup (f->text ? f->text : "");
    }
}

/* Each family's digits: at least 6, more where needed.  */
static void
family_digits (const struct layout *l, const struct summary_row *rows, size_t nrows,
               int *precision)
{
  struct field *f = xcalloc (l->width + 1, sizeof *f);
  double *values = xcalloc (nrows * l->width + 1, sizeof *values);
  for (int fam = 0; fam < STAT_FAM_COUNT; fam++)
    {
      size_t n = 0;
      for (size_t r = 0; r < nrows; r++)
        {
          size_t k = row_fields (l, &rows[r], f);
          for (size_t i = 0; i < k; i++)
            if (f[i].kind == STAT_NUMBER && (int) f[i].family == fam && isfinite (f[i].number))
              values[n++] = f[i].number;
        }
      /* At least the digits an interval gives its numbers, so min and
         max are not shown coarser than the mean between them.  */
      int least = 6;
      for (size_t r = 0; r < nrows; r++)
        {
          size_t k = row_fields (l, &rows[r], f);
          for (size_t i = 0; i < k; i++)
            if (f[i].kind == STAT_NUMBER && (int) f[i].family == fam)
              {
                int dg = summary_number_rounded_digits (f[i].number, f[i].half);
                least = dg > least ? dg : least;
              }
        }
      precision[fam] = summary_number_distinct (values, n, least > 17 ? 17 : least);
    }
  free (values);
  free (f);
}

/* The field of the statistic named NAME among F[0..N), or SIZE_MAX.  */
static size_t
stat_field (const struct layout *l, const char *name, size_t n)
{
  size_t k = l->d->ngroup_names;
  for (size_t i = 0; i < summary_nstatistics && k < n; i++)
    {
      const struct summary_statistic *s = &summary_statistics[i];
      if (!part_shown (l, s->part))
        continue;
      if (s->kind == STAT_PERCENTILES)
        {
          k += l->config->npercentiles;
          continue;
        }
      if (s->header && STREQ (s->header, name))
        return k;
      k++;
    }
  return SIZE_MAX;
}

/* The mean and geometric mean are printed at their interval's
   precision, min and max at their family's digits: where that rounding
   would show a mean outside [min, max], the mean gets digits until it
   lies within as printed.  */
static void
keep_between (const struct layout *l, const struct field *f, char **cells, size_t n,
              const int *precision)
{
  size_t lo = stat_field (l, "min", n), hi = stat_field (l, "max", n);
  const char *const centres[] = { "mean", "gmean" };
  if (lo == SIZE_MAX || hi == SIZE_MAX || !isfinite (f[lo].number) || !isfinite (f[hi].number))
    return;
  double low = strtod (cells[lo], NULL), high = strtod (cells[hi], NULL);
  for (size_t i = 0; i < ARRAY_SIZE (centres); i++)
    {
      size_t c = stat_field (l, centres[i], n);
      if (c == SIZE_MAX || !isfinite (f[c].number))
        continue;
      char buf[64];
      for (int p = precision[f[c].family];
           p <= 17 && (strtod (cells[c], NULL) < low || strtod (cells[c], NULL) > high); p++)
        {
          summary_number_digits (f[c].number, p, buf, sizeof buf);
          free (cells[c]);
          cells[c] = xstrdup (buf);
        }
    }
}

/* T as literal Markdown text (malloc'd): every character that could
   end a cell (|), a row (newline) or start emphasis, code, strikeout, a
   link, HTML or an entity is escaped, so a key prints as it is.  An
   underscore between two letters or digits stays ("h2d_ms": GFM makes
   no emphasis inside a word), as do "< " and "[x] " (no tag, no link).  */
static char *
markdown_escape (const char *t)
{
  char *esc = xmalloc (2 * strlen (t) + 1), *o = esc;
  for (const char *s = t; *s; s++)
    {
      unsigned char c = (unsigned char) *s, next = (unsigned char) s[1];
      bool prev_word = s > t && (isalnum ((unsigned char) s[-1]) || (unsigned char) s[-1] >= 0x80);
      bool next_word = isalnum (next) || next >= 0x80;
      if (c == '\n')
        {
          *o++ = ' ';
          continue;
        }
      if (strchr ("|\\`*~", c)
          || (c == '_' && !(prev_word && next_word))
          || (c == '<' && (isalpha (next) || strchr ("/!?", next)) && next)
          || (c == '&' && (isalnum (next) || next == '#'))
          || (c == ']' && next && strchr ("([", next)))
        *o++ = '\\';
      *o++ = (char) c;
    }
  *o = '\0';
  return esc;
}

/* Table or Markdown: format every cell, then pad each column.  */
static void
put_table (FILE *out, const struct layout *l, const struct summary_row *rows,
           size_t nrows, bool markdown)
{
  int precision[STAT_FAM_COUNT];
  family_digits (l, rows, nrows, precision);
  struct field *f = xcalloc (l->width + 1, sizeof *f);
  size_t ncols = header_fields (l, f);
  char **cells = xcalloc ((nrows + 1) * ncols, sizeof *cells);
  bool *right = xcalloc (ncols, sizeof *right);
  size_t *widths = xcalloc (ncols, sizeof *widths);
  for (size_t c = 0; c < ncols; c++)
    {
      cells[c] = table_text (l, &f[c], precision);
      if (markdown)
        {
          char *esc = markdown_escape (cells[c]);
          free (cells[c]);
          cells[c] = esc;
        }
    }
  for (size_t r = 0; r < nrows; r++)
    {
      row_fields (l, &rows[r], f);
      for (size_t c = 0; c < ncols; c++)
        {
          char *t = table_text (l, &f[c], precision);
          if (markdown)
            {
              char *esc = markdown_escape (t);
              free (t);
              t = esc;
            }
          cells[(r + 1) * ncols + c] = t;
          right[c] = f[c].kind == STAT_COUNT || f[c].kind == STAT_NUMBER || f[c].kind == STAT_P;
        }
      keep_between (l, f, cells + (r + 1) * ncols, ncols, precision);
    }
  if (l->npick)
    {
      /* --columns: the chosen cells, in its order.  */
      char **chosen = xcalloc ((nrows + 1) * l->npick, sizeof *chosen);
      bool *chosen_right = xcalloc (l->npick, sizeof *chosen_right);
      for (size_t r = 0; r <= nrows; r++)
        for (size_t c = 0; c < l->npick; c++)
          chosen[r * l->npick + c] = xstrdup (cells[r * ncols + l->pick[c]]);
      for (size_t c = 0; c < l->npick; c++)
        chosen_right[c] = right[l->pick[c]];
      for (size_t i = 0; i < (nrows + 1) * ncols; i++)
        free (cells[i]);
      free (cells);
      free (right);
      cells = chosen;
      right = chosen_right;
      ncols = l->npick;
    }
  for (size_t i = 0; i < (nrows + 1) * ncols; i++)
    {
      size_t len = summary_text_width (cells[i]);
      if (len > widths[i % ncols])
        widths[i % ncols] = len;
    }
  for (size_t c = 0; markdown && c < ncols; c++)
    if (widths[c] < 3)
      widths[c] = 3;
  for (size_t r = 0; r <= nrows; r++)
    {
      if (markdown)
        fputs ("| ", out);
      for (size_t c = 0; c < ncols; c++)
        {
          const char *cell = cells[r * ncols + c];
          /* Padded by terminal columns, not bytes.  */
          size_t pad = widths[c] - summary_text_width (cell);
          bool last = c + 1 == ncols;
          if (right[c])
            fprintf (out, "%*s", (int) pad, "");
          fputs (cell, out);
          if (!right[c] && !(last && !markdown))
            fprintf (out, "%*s", (int) pad, "");
          fputs (markdown ? (last ? " |\n" : " | ") : last ? "\n" : "  ", out);
        }
      if (markdown && r == 0)
        {
          fputs ("|", out);
          for (size_t c = 0; c < ncols; c++)
            {
              putc (right[c] ? ' ' : ':', out);
              for (size_t i = 0; i < widths[c]; i++)
                putc ('-', out);
              fputs (right[c] ? ":|" : " |", out);
            }
          putc ('\n', out);
        }
    }
  for (size_t i = 0; i < (nrows + 1) * ncols; i++)
    free (cells[i]);
  free (cells);
  free (right);
  free (widths);
  free (f);
}

void
summary_output (FILE *out, enum summary_format format,
                const struct summary_data *d,
                const struct summary_row *rows, size_t nrows,
                const struct summary_config *config, char **labels)
{
  struct layout l = layout_new (d, config, labels);
  layout_pick (&l);
  warn_infinite_ends (&l, rows, nrows);
  switch (format)
    {
    case SUMMARY_CSV:
      {
        struct field *f = xcalloc (l.width + 1, sizeof *f);
        struct csv_line line = { 0 };
        put_csv (out, &line, f, pick_fields (&l, f, header_fields (&l, f)));
        for (size_t r = 0; r < nrows; r++)
          put_csv (out, &line, f, pick_fields (&l, f, row_fields (&l, &rows[r], f)));
        csv_line_free (&line);
        free (f);
        break;
      }
    case SUMMARY_JSON:
      put_json (out, &l, rows, nrows);
      break;
    case SUMMARY_TABLE:
    case SUMMARY_MARKDOWN:
      put_table (out, &l, rows, nrows, format == SUMMARY_MARKDOWN);
      if (d->compare_level && format == SUMMARY_TABLE)
        {
          fputc ('\n', out);
          summary_output_verdicts (out, d, rows, nrows, config, "");
        }
      else if (d->compare_level)
        {
          /* A list, its keys escaped as the table's.  */
          char *text = NULL;
          size_t size = 0;
          FILE *list = open_memstream (&text, &size);
          if (!list)
            die (EXIT_OSERR, errno, "cannot make the list of verdicts");
          summary_output_verdicts (list, d, rows, nrows, config, "");
          if (fclose (list) != 0)
            die (EXIT_OSERR, errno, "cannot make the list of verdicts");
          fputc ('\n', out);
          for (char *line = strtok (text, "\n"); line; line = strtok (NULL, "\n"))
            {
              char *esc = markdown_escape (line);
              fprintf (out, "- %s\n", esc);
              free (esc);
            }
          free (text);
        }
      break;
    default:
      break;
    }
  free (l.pick);
}
