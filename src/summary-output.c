/* summary-output.c -- writing summaries as CSV, JSON, a table, Markdown,
   verdicts in words, or plots. */
#include "system.h"
#include "summary-output.h"
#include "csv-writer.h"
#include "die.h"
#include "stats.h"
#include "summary-stats.h"

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

/* Half the shorter side of an interval about X, or NaN.  */
static double
shorter_half (double x, double low, double high)
{
  double half = fmin (x - low, high - x);
  return half > 0 && isfinite (half) ? half : NAN;
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
        return shorter_half (*(const double *) (base + intervals[i].point),
                           *(const double *) (base + intervals[i].low),
                           *(const double *) (base + intervals[i].high));
      }
  *dir = offset == offsetof (struct summary_row, ci_low) ? -1
    : offset == offsetof (struct summary_row, ci_high);
  size_t point = estimate[row->ci_stat];
  if (point && (offset == point || offset == offsetof (struct summary_row, ci_low)
                || offset == offsetof (struct summary_row, ci_high)))
    return shorter_half (*(const double *) (base + point), row->ci_low, row->ci_high);
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
          break;
        case STAT_VS:
          x = text (row->compared ? d->compare_level : "");
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

/* The shortest %g text that reads back as X: of the digits that do,
   the one that prints fewest characters ("50", not "5e+01"; "1e-323",
   not "9.88131e-324").  */
static void
shortest (double x, char *buf, size_t size)
{
  char try[48];
  buf[0] = '\0';
  for (int p = 1; p <= 17; p++)
    {
      snprintf (try, sizeof try, "%.*g", p, x);
      if (strtod (try, NULL) == x && (!buf[0] || strlen (try) < strlen (buf)))
        snprintf (buf, size, "%s", try);
    }
}

/* %g with P digits, the exponent without padding ("2e-7", not "2e-07"). */
static void
digits (double x, int p, char *buf, size_t size)
{
  snprintf (buf, size, "%.*g", p, x);
  char *e = strchr (buf, 'e');
  if (!e)
    return;
  char *from = e + 1;
  if (*from == '+')
    memmove (from, from + 1, strlen (from));
  if (*from == '-')
    from++;
  char *to = from;
  while (to[0] == '0' && to[1])
    to++;
  memmove (from, to, strlen (to) + 1);
}

/* X rounded to a multiple of 10^PLACE: to nearest (DIR 0), down (DIR
   < 0) or up (DIR > 0).  Fixed decimals between 1e-4 and 1e17 (where %.17g turns too), else the
   exponent form with the same digits, so neither a 300-digit number nor
   a row of zeros stands for 1.2e300 or 2e-70.  */
static void
place_text (double x, int place, int dir, char *buf, size_t size)
{
  for (int pass = 0; pass < 2; pass++)
    {
      int lead = x != 0 ? (int) floor (log10 (fabs (x))) : place;
      if (x != 0 && (lead >= 17 || lead < -4))
        {
          int sig = lead - place + 1;
          if (sig < 1)
            sig = 1;
          snprintf (buf, size, "%.*e", sig - 1, x);
          /* "1.25e300", "2.5e-70": no "+" and no padding.  */
          char *e = strchr (buf, 'e'), *from = e + 1;
          if (*from == '+')
            memmove (from, from + 1, strlen (from));
          if (*from == '-')
            from++;
          char *to = from;
          while (to[0] == '0' && to[1])
            to++;
          memmove (from, to, strlen (to) + 1);
        }
      else
        {
          int decimals = place < 0 ? -place : 0;
          /* %.*f rounds to the decimals; above the units, round first.  */
          double unit = place > 0 ? pow (10, place) : 0;
          snprintf (buf, size, "%.*f", decimals, unit ? round (x / unit) * unit : x);
        }
      /* Outward: a nearest text on the wrong side moves one unit.  */
      double back = strtod (buf, NULL);
      if (pass == 0 && ((dir < 0 && back > x) || (dir > 0 && back < x)))
        {
          x = back + (dir < 0 ? -1 : 1) * pow (10, place);
          continue;
        }
      break;
    }
  /* No "-0.00": a value that rounds to zero is zero.  */
  if (buf[0] == '-' && strspn (buf + 1, "0.") == strlen (buf + 1))
    memmove (buf, buf + 1, strlen (buf));
}

/* The side of NUL that X is on: -1, 0 or 1.  */
static int
side (double x, double nul)
{
  return (x > nul) - (x < nul);
}

/* The place of the second significant digit of HALF, EXTRA places
   finer, or false where HALF is no width or X would need more than 17
   digits there.  */
static bool
half_place (double x, double half, int extra, int *place)
{
  if (!(half > 0) || !isfinite (half) || !isfinite (x))
    return false;
  *place = (int) floor (log10 (half)) - 1 - extra;
  int lead = x != 0 ? (int) floor (log10 (fabs (x))) : *place;
  return lead - *place < 17;
}

/* X at the precision of an interval of half width HALF: rounded at the
   second significant digit of HALF, outward for an interval's end (DIR
   -1 its low end, 1 its high end).  False where HALF is no width or
   that would ask for more than 17 digits.  */
static bool
rounded_text (double x, double half, int dir, char *buf, size_t size)
{
  int place;
  if (!half_place (x, half, 0, &place))
    return false;
  place_text (x, place, dir, buf, size);
  /* A number that is not 0 does not print as 0, nor change sign (a
     positive ratio's low end, 0.0025, is not "0.00").  */
  for (int extra = 1; extra < 17 && side (strtod (buf, NULL), 0) != side (x, 0)
         && half_place (x, half, extra, &place); extra++)
    place_text (x, place, dir, buf, size);
  return true;
}

/* The significant digits rounded_text gives X, or 0.  */
static int
rounded_digits (double x, double half)
{
  int place;
  if (!half_place (x, half, 0, &place))
    return 0;
  int lead = x != 0 ? (int) floor (log10 (fabs (x))) : place;
  return lead - place + 1;
}

static int
double_order (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

/* The fewest digits, at least LEAST, that print the different values
   among X[0..N) differently.  Values within 1e-12 relative of each other
   (rounding in the last bits, as 4.6 against 4.600000000000001) count
   as equal; 1e9 against 1e9 + 1 do not.  Sorts X.  */
static int
distinct_digits (double *x, size_t n, int least)
{
  qsort (x, n, sizeof *x, double_order);
  int p = least;
  char a[48], b[48];
  for (size_t i = 1; i < n; i++)
    while (p < 17 && fabs (x[i] - x[i - 1]) > 1e-12 * fmax (fabs (x[i]), fabs (x[i - 1])))
      {
        digits (x[i - 1], p, a, sizeof a);
        digits (x[i], p, b, sizeof b);
        if (!STREQ (a, b))
          break;
        p++;
      }
  return p;
}

/* A p-value in two digits; below what a double holds, say so.  */
static void
p_text (double p, char *buf, size_t size)
{
  if (p == 0)
    snprintf (buf, size, "< 1e-300");
  else
    digits (p, 2, buf, size);
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
            shortest (f[i].number, buf, sizeof buf);
          csv_line_str (line, buf);
        }
        break;
      default:
        csv_line_str (line, f[i].text);
        break;
      }
  csv_line_put (line, out);
}

/* The length of the valid UTF-8 sequence at S (1 to 4) with its code
   point in *CP, or 0 where S holds no valid sequence (a stray
   continuation byte, a truncated or overlong sequence, a surrogate,
   beyond U+10FFFF).  */
static size_t
utf8_decode (const unsigned char *s, unsigned long *cp)
{
  static const unsigned long least[] = { 0, 0, 0x80, 0x800, 0x10000 };
  size_t len = s[0] < 0x80 ? 1 : (s[0] & 0xe0) == 0xc0 ? 2 : (s[0] & 0xf0) == 0xe0 ? 3
    : (s[0] & 0xf8) == 0xf0 ? 4 : 0;
  if (len == 0)
    return 0;
  unsigned long c = len == 1 ? s[0] : s[0] & (0x7f >> len);
  for (size_t i = 1; i < len; i++)
    {
      if ((s[i] & 0xc0) != 0x80)
        return 0;
      c = c << 6 | (s[i] & 0x3f);
    }
  if (c < least[len] || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
    return 0;
  *cp = c;
  return len;
}

/* Columns a code point takes on a terminal: 2 for the East Asian wide
   and fullwidth ranges and emoji, 0 for combining marks, else 1.  */
static int
code_point_width (unsigned long c)
{
  static const unsigned long wide[][2] = {
    { 0x1100, 0x115f }, { 0x2e80, 0x303e }, { 0x3041, 0x33ff }, { 0x3400, 0x4dbf },
    { 0x4e00, 0x9fff }, { 0xa000, 0xa4cf }, { 0xac00, 0xd7a3 }, { 0xf900, 0xfaff },
    { 0xfe30, 0xfe4f }, { 0xff00, 0xff60 }, { 0xffe0, 0xffe6 }, { 0x1f300, 0x1f64f },
    { 0x1f900, 0x1f9ff }, { 0x20000, 0x3fffd },
  };
  if ((c >= 0x300 && c <= 0x36f) || (c >= 0x200b && c <= 0x200f))
    return 0;
  for (size_t i = 0; i < ARRAY_SIZE (wide); i++)
    if (c >= wide[i][0] && c <= wide[i][1])
      return 2;
  return 1;
}

/* The terminal columns of S: invalid bytes count one each, as the
   replacement character a terminal shows.  */
static size_t
display_width (const char *s)
{
  size_t width = 0;
  const unsigned char *p = (const unsigned char *) s;
  while (*p)
    {
      unsigned long c;
      size_t len = utf8_decode (p, &c);
      width += len ? (size_t) code_point_width (c) : 1;
      p += len ? len : 1;
    }
  return width;
}

/* A JSON string: valid UTF-8 as it is, control characters escaped, and
   each byte of invalid UTF-8 as U+FFFD, so the output is valid JSON
   whatever the input held.  */
static void
json_string (FILE *out, const char *s)
{
  putc ('"', out);
  const unsigned char *p = (const unsigned char *) s;
  while (*p)
    {
      unsigned long c;
      size_t len = utf8_decode (p, &c);
      if (len == 0)
        fputs ("\\ufffd", out);
      else if (c == '"' || c == '\\')
        fprintf (out, "\\%c", (int) c);
      else if (c == '\n')
        fputs ("\\n", out);
      else if (c < 0x20)
        fprintf (out, "\\u%04lx", c);
      else
        fwrite (p, 1, len, out);
      p += len ? len : 1;
    }
  putc ('"', out);
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
          json_string (out, h[i].text);
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
                  shortest (f[i].number, buf, sizeof buf);
                  fputs (buf, out);
                }
              else
                fputs ("null", out);
              break;
            default:
              if (f[i].text && *f[i].text)
                json_string (out, f[i].text);
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
table_text (const struct field *f, const int *precision)
{
  char buf[64];
  switch (f->kind)
    {
    case STAT_COUNT:
      snprintf (buf, sizeof buf, "%" PRIu64, f->count);
      return xstrdup (buf);
    case STAT_NUMBER:
      if (!isfinite (f->number))
        return xstrdup ("-");
      if (!rounded_text (f->number, f->half, f->dir, buf, sizeof buf))
        digits (f->number, precision[f->family], buf, sizeof buf);
      return xstrdup (buf);
    case STAT_P:
      if (!isfinite (f->number))
        return xstrdup ("-");
      p_text (f->number, buf, sizeof buf);
      return xstrdup (buf);
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
                int dg = rounded_digits (f[i].number, f[i].half);
                least = dg > least ? dg : least;
              }
        }
      precision[fam] = distinct_digits (values, n, least > 17 ? 17 : least);
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
          digits (f[c].number, p, buf, sizeof buf);
          free (cells[c]);
          cells[c] = xstrdup (buf);
        }
    }
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
    cells[c] = table_text (&f[c], precision);
  for (size_t r = 0; r < nrows; r++)
    {
      row_fields (l, &rows[r], f);
      for (size_t c = 0; c < ncols; c++)
        {
          char *t = table_text (&f[c], precision);
          if (markdown && (!*t || strpbrk (t, "|\n")))
            {
              /* A pipe would end the cell, a newline the row.  */
              char *esc = xmalloc (2 * strlen (t) + 2), *o = esc;
              for (const char *s = t; *s; s++)
                if (*s == '|')
                  *o++ = '\\', *o++ = '|';
                else
                  *o++ = *s == '\n' ? ' ' : *s;
              *o = '\0';
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
      size_t len = display_width (cells[i]);
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
          size_t pad = widths[c] - display_width (cell);
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

/* Who a compared row is: "KEY=VALUE, ..., COL=LEVEL vs COL=BASE".  */
static void
row_label (const struct summary_data *d, const struct summary_row *row, char *buf, size_t size)
{
  size_t used = 0;
  buf[0] = '\0';
  char **key = d->groups[row->group].key;
  for (size_t i = 0; i < d->ngroup_names && used < size; i++)
    if (i != d->compare_index)
      used += (size_t) snprintf (buf + used, size - used, "%s=%s, ", d->group_names[i], key[i]);
  const char *col = d->group_names[d->compare_index];
  if (used < size)
    snprintf (buf + used, size - used, "%s=%s vs %s=%s", col, key[d->compare_index], col,
              d->compare_level);
}

/* The word for a shown change of VALUE upward (UP) or downward: by its
   unit faster or slower, by --higher/lower-is-better better or worse,
   else higher or lower.  */
static const char *
change_word (const struct summary_value *value, bool up)
{
  switch (value->better)
    {
    case 1:
      return up ? "faster" : "slower";
    case -1:
      return up ? "slower" : "faster";
    case 2:
      return up ? "better" : "worse";
    case -2:
      return up ? "worse" : "better";
    default:
      return up ? "higher" : "lower";
    }
}

/* X, LOW and HIGH at the interval's precision (two significant digits of
   its shorter half), the ends rounded outward, with digits added until
   each printed number lies on the same side of NUL (1 for a ratio, 0 for
   a difference) as the number itself: the printed interval excludes NUL
   exactly when the interval does.  Without a usable width, the fewest
   digits (at least 3) that tell the three apart.  */
static void
ci_texts (double x, double low, double high, double nul, char *tx, char *tl, char *th,
          size_t size)
{
  double half = shorter_half (x, low, high);
  if (isnan (half))
    half = (high - low) / 2;
  int place;
  for (int extra = 0; extra < 17 && half_place (x, half, extra, &place)
         && half_place (low, half, extra, &place) && half_place (high, half, extra, &place);
       extra++)
    {
      place_text (x, place, 0, tx, size);
      place_text (low, place, -1, tl, size);
      place_text (high, place, 1, th, size);
      if (side (strtod (tx, NULL), nul) == side (x, nul)
          && side (strtod (tl, NULL), nul) == side (low, nul)
          && side (strtod (th, NULL), nul) == side (high, nul)
          && side (strtod (tl, NULL), 0) == side (low, 0)
          && side (strtod (th, NULL), 0) == side (high, 0))
        return;
    }
  double v[3] = { x, low, high };
  int k = distinct_digits (v, 3, 3);
  digits (x, k, tx, size);
  digits (low, k, tl, size);
  digits (high, k, th, size);
}

/* P in two digits, more where two would put it on the other side of
   ALPHA (0.0499 is not "0.05" beside "shown at 95%").  */
static void
p_text_against (double p, double alpha, char *buf, size_t size)
{
  p_text (p, buf, size);
  for (int k = 3; k <= 17 && p != 0 && (strtod (buf, NULL) < alpha) != (p < alpha); k++)
    digits (p, k, buf, size);
}

/* The numbers a verdict reads: the estimate with its interval, the p of
   the same test, and the test's name.  */
struct verdict_numbers
{
  double x, low, high, p, nul;
  bool ratio;
  const char *test;
  const char *why;              /* no test: why */
  const char *no_ratio;         /* a difference shown for want of a ratio: why */
};

/* The test the design calls for: paired with --paired, rank-sum with
   --rank, Welch's otherwise.  */
static struct verdict_numbers
verdict_numbers (const struct summary_data *d, const struct summary_row *row,
                 const struct summary_config *config)
{
  struct verdict_numbers v = { NAN, NAN, NAN, NAN, 0, false, NULL, NULL, NULL };
  if (d->paired)
    {
      const struct paired *p = &row->paired;
      v.test = "paired t";
      if (!p->ratio_why)
        v = (struct verdict_numbers) { p->ratio, p->ratio_low, p->ratio_high, p->ratio_p, 1,
                                       true, "paired t of log ratios", NULL, NULL };
      else if (!p->diff_why)
        v = (struct verdict_numbers) { p->diff, p->diff_low, p->diff_high, p->p, 0, false,
                                       "paired t", NULL, p->ratio_why };
      else
        v.why = p->diff_why;
      return v;
    }
  if (config->rank)
    {
      const struct rank_test *r = &row->rank;
      v = (struct verdict_numbers) { r->shift, r->shift_low, r->shift_high, r->p, 0, false,
                                     r->tied ? "rank-sum, exact given ties"
                                     : r->exact ? "rank-sum, exact"
                                     : "rank-sum, normal approximation", r->why, NULL };
      return v;
    }
  const struct welch *w = &row->welch;
  if (w->diff_why)
    v.why = w->diff_why;
  else if (!w->ratio_why)
    v = (struct verdict_numbers) { w->ratio, w->ratio_low, w->ratio_high, w->ratio_p, 1,
                                   true, config->log_scale ? "Welch on the log scale"
                                   : "Welch", NULL, NULL };
  else
    v = (struct verdict_numbers) { w->diff, w->diff_low, w->diff_high, w->p, 0, false,
                                   "Welch", NULL, w->ratio_why };
  return v;
}

void
summary_output_verdicts (FILE *out, const struct summary_data *d,
                         const struct summary_row *rows, size_t nrows,
                         const struct summary_config *config, const char *prefix)
{
  double level = 100 * config->confidence, alpha = stats_alpha (config->confidence);
  for (size_t r = 0; r < nrows; r++)
    {
      const struct summary_row *row = &rows[r];
      if (!row->compared)
        continue;
      const struct summary_value *value = &d->values[row->value];
      const char *column = value->name;
      char who[512], p[32], x[64], lo[64], hi[64];
      row_label (d, row, who, sizeof who);
      fputs (prefix, out);
      struct verdict_numbers v = verdict_numbers (d, row, config);
      if (!v.why && isfinite (v.p) && !isfinite (v.x))
        {
          /* A test without an estimate (the rank test past 10^7 pairs).  */
          p_text_against (v.p, alpha, p, sizeof p);
          fprintf (out, "%s: %s %s at %g%% (p = %s, %s)\n", who, column,
                   v.p < alpha ? "a difference shown" : "no difference shown", level, p,
                   v.test);
          continue;
        }
      if (v.why || !isfinite (v.p) || !isfinite (v.x))
        {
          fprintf (out, "%s: %s not compared: %s\n", who, column,
                   v.why ? v.why : "no test of these values");
          continue;
        }
      p_text_against (v.p, alpha, p, sizeof p);
      bool bounded = isfinite (v.low) && isfinite (v.high);
      /* The word follows the p; an interval on the other side of the
         null (approximations that part at the edge) is said.  */
      bool shown = v.p < alpha;
      bool excludes = bounded && (v.low > v.nul || v.high < v.nul);
      const char *times = v.ratio ? "x" : "";
      if (bounded)
        ci_texts (v.x, v.low, v.high, v.nul, x, lo, hi, sizeof x);
      else
        digits (v.x, 3, x, sizeof x);
      char interval[160] = "";
      if (bounded)
        snprintf (interval, sizeof interval, " [%s, %s]", lo, hi);
      if (!shown || (bounded && !excludes))
        fprintf (out, "%s: %s no difference shown at %g%% (%s%s%s, p = %s, %s%s)\n",
                 who, column, level, x, times, interval, p, v.test,
                 shown ? "; its interval holds the null" : "");
      else if (v.ratio)
        fprintf (out, "%s: %s %s%s%s %s (p = %s, %s)\n", who, column, x, times, interval,
                 change_word (value, v.x > v.nul), p, v.test);
      else if (v.no_ratio)
        fprintf (out, "%s: %s %s by %s%s (p = %s, %s; no ratio: %s)\n", who, column,
                 change_word (value, v.x > v.nul), x, interval, p, v.test, v.no_ratio);
      else
        fprintf (out, "%s: %s %s by %s%s (p = %s, %s)\n", who, column,
                 change_word (value, v.x > v.nul), x, interval, p, v.test);
    }
}

void
summary_output (FILE *out, enum summary_format format,
                const struct summary_data *d,
                const struct summary_row *rows, size_t nrows,
                const struct summary_config *config, char **labels)
{
  struct layout l = layout_new (d, config, labels);
  layout_pick (&l);
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
      if (d->compare_level)
        {
          fputc ('\n', out);
          summary_output_verdicts (out, d, rows, nrows, config,
                                   format == SUMMARY_MARKDOWN ? "- " : "");
        }
      break;
    default:
      break;
    }
  free (l.pick);
}

enum { PLOT_WIDTH = 74, PLOT_HEIGHT = 20 };
static const char plot_symbols[] = "x+*%#@O";

static int
plot_column (double v, double lo, double hi)
{
  if (!(hi > lo))
    return PLOT_WIDTH / 2;
  int c = (int) lround ((v - lo) / (hi - lo) * (PLOT_WIDTH - 1));
  return c < 0 ? 0 : c >= PLOT_WIDTH ? PLOT_WIDTH - 1 : c;
}

static void
plot_rule (FILE *out)
{
  fputc ('+', out);
  for (int i = 0; i < PLOT_WIDTH; i++)
    fputc ('-', out);
  fputs ("+\n", out);
}

static void
plot_value (FILE *out, const struct summary_data *d, const struct summary_row *rows,
            size_t nrows, size_t value)
{
  /* The rows of this column that have data, each one plotted set.  */
  size_t nsets = 0;
  const struct summary_row **sets = xcalloc (nrows + 1, sizeof *sets);
  double lo = INFINITY, hi = -INFINITY;
  for (size_t r = 0; r < nrows; r++)
    if (rows[r].value == value && rows[r].n > 0)
      {
        sets[nsets++] = &rows[r];
        lo = fmin (lo, rows[r].min);
        hi = fmax (hi, rows[r].max);
      }
  fprintf (out, "%s\n", d->values[value].name);
  if (nsets == 0)
    {
      fputs ("  (no values)\n", out);
      free (sets);
      return;
    }
  for (size_t s = 0; s < nsets; s++)
    {
      fprintf (out, "    %c ", plot_symbols[s % (sizeof plot_symbols - 1)]);
      const struct summary_group *g = &d->groups[sets[s]->group];
      if (d->ngroup_names == 0)
        fputs ("(all rows)", out);
      for (size_t i = 0; i < d->ngroup_names; i++)
        fprintf (out, "%s%s=%s", i ? ", " : "", d->group_names[i], g->key[i]);
      fprintf (out, " (n=%zu)\n", sets[s]->n);
    }

  /* Count each set's values per character column, then stack them.  */
  size_t *counts = xcalloc (nsets * PLOT_WIDTH, sizeof *counts);
  for (size_t s = 0; s < nsets; s++)
    {
      const struct summary_cell *cell = &d->groups[sets[s]->group].cells[value];
      for (size_t i = 0; i < cell->n; i++)
        counts[s * PLOT_WIDTH + plot_column (cell->values[i], lo, hi)]++;
    }
  size_t tallest = 0;
  for (int c = 0; c < PLOT_WIDTH; c++)
    {
      size_t total = 0;
      for (size_t s = 0; s < nsets; s++)
        total += counts[s * PLOT_WIDTH + c];
      if (total > tallest)
        tallest = total;
    }
  /* Each symbol stands for up to SCALE values, so no plot is taller
     than about PLOT_HEIGHT rows plus one per set.  */
  size_t scale = (tallest + PLOT_HEIGHT - 1) / PLOT_HEIGHT;
  if (scale == 0)
    scale = 1;
  size_t height = 0;
  size_t *stack = xcalloc (PLOT_WIDTH, sizeof *stack);
  for (int c = 0; c < PLOT_WIDTH; c++)
    {
      for (size_t s = 0; s < nsets; s++)
        stack[c] += (counts[s * PLOT_WIDTH + c] + scale - 1) / scale;
      if (stack[c] > height)
        height = stack[c];
    }
  char *grid = xmalloc (height * PLOT_WIDTH + 1);
  memset (grid, ' ', height * PLOT_WIDTH);
  for (int c = 0; c < PLOT_WIDTH; c++)
    {
      size_t level = 0;         /* from the bottom */
      for (size_t s = 0; s < nsets; s++)
        for (size_t k = (counts[s * PLOT_WIDTH + c] + scale - 1) / scale; k > 0; k--)
          grid[(height - 1 - level++) * PLOT_WIDTH + c]
            = plot_symbols[s % (sizeof plot_symbols - 1)];
    }

  plot_rule (out);
  for (size_t h = 0; h < height; h++)
    fprintf (out, "|%.*s|\n", PLOT_WIDTH, grid + h * PLOT_WIDTH);
  for (size_t s = 0; s < nsets; s++)
    {
      const struct summary_row *row = sets[s];
      char line[PLOT_WIDTH + 1];
      memset (line, ' ', PLOT_WIDTH);
      line[PLOT_WIDTH] = '\0';
      if (isfinite (row->sd) && row->sd > 0)
        {
          int left = plot_column (row->mean - row->sd, lo, hi);
          int right = plot_column (row->mean + row->sd, lo, hi);
          for (int c = left; c <= right; c++)
            line[c] = '_';
          if (row->mean - row->sd >= lo)
            line[left] = '|';
          if (row->mean + row->sd <= hi)
            line[right] = '|';
        }
      line[plot_column (row->median, lo, hi)] = 'M';
      line[plot_column (row->mean, lo, hi)] = 'A';
      fprintf (out, "|%s|\n", line);
    }
  plot_rule (out);
  char low[32], high[32];
  snprintf (low, sizeof low, "%.6g", lo);
  snprintf (high, sizeof high, "%.6g", hi);
  fprintf (out, " %-*s%s\n", (int) (PLOT_WIDTH - strlen (high) + 1), low, high);
  if (scale > 1)
    fprintf (out, " each symbol stands for up to %zu values\n", scale);
  free (grid);
  free (stack);
  free (counts);
  free (sets);
}

void
summary_output_plot (FILE *out, const struct summary_data *d,
                     const struct summary_row *rows, size_t nrows)
{
  for (size_t v = 0; v < d->nvalues; v++)
    if (d->values[v].numeric)
      {
        fputc ('\n', out);
        plot_value (out, d, rows, nrows, v);
      }
}
