/* summary-output.c -- writing summaries as CSV, a table, or plots. */
#include "system.h"
#include "summary-output.h"
#include "csv-writer.h"
#include "die.h"

#include <math.h>

const char *const summary_format_names[SUMMARY_FORMAT_COUNT + 1] = {
  "csv", "table", NULL
};

/* One output field, formatted late so CSV and table share the layout.  */
enum field_kind { FIELD_TEXT, FIELD_COUNT, FIELD_NUMBER };

struct field
{
  enum field_kind kind;
  const char *text;
  size_t count;
  double number;
};

static const char *const fixed_header[] = {
  "column", "n", "missing", "mean", "sd", "se", "min", "median", "max",
  "ci_low", "ci_high"
};
static const char *const compare_header[] = {
  "vs", "ratio", "ratio_ci_low", "ratio_ci_high", "p_welch"
};

static size_t
header_fields (const struct summary_data *d, const struct summary_config *config,
               char **labels, struct field *f)
{
  size_t k = 0;
  for (size_t i = 0; i < d->ngroup_names; i++)
    f[k++] = (struct field) { FIELD_TEXT, d->group_names[i], 0, 0 };
  for (size_t i = 0; i < ARRAY_SIZE (fixed_header); i++)
    f[k++] = (struct field) { FIELD_TEXT, fixed_header[i], 0, 0 };
  for (size_t i = 0; i < config->npercentiles; i++)
    f[k++] = (struct field) { FIELD_TEXT, labels[i], 0, 0 };
  if (d->compare_level)
    for (size_t i = 0; i < ARRAY_SIZE (compare_header); i++)
      f[k++] = (struct field) { FIELD_TEXT, compare_header[i], 0, 0 };
  return k;
}

static struct field
number (double x)
{
  return (struct field) { FIELD_NUMBER, NULL, 0, x };
}

static size_t
row_fields (const struct summary_data *d, const struct summary_config *config,
            const struct summary_row *row, struct field *f)
{
  size_t k = 0;
  const struct summary_group *g = &d->groups[row->group];
  for (size_t i = 0; i < d->ngroup_names; i++)
    f[k++] = (struct field) { FIELD_TEXT, g->key[i], 0, 0 };
  f[k++] = (struct field) { FIELD_TEXT, d->values[row->value].name, 0, 0 };
  f[k++] = (struct field) { FIELD_COUNT, NULL, row->n, 0 };
  f[k++] = (struct field) { FIELD_COUNT, NULL, row->missing, 0 };
  const double fixed[] = { row->mean, row->sd, row->se, row->min, row->median,
                           row->max, row->ci_low, row->ci_high };
  for (size_t i = 0; i < ARRAY_SIZE (fixed); i++)
    f[k++] = number (fixed[i]);
  for (size_t i = 0; i < config->npercentiles; i++)
    f[k++] = number (row->percentiles[i]);
  if (d->compare_level)
    {
      f[k++] = (struct field) { FIELD_TEXT, row->compared ? d->compare_level : "", 0, 0 };
      f[k++] = number (row->ratio);
      f[k++] = number (row->ratio_low);
      f[k++] = number (row->ratio_high);
      f[k++] = number (row->p_welch);
    }
  return k;
}

static void
put_csv (FILE *out, struct csv_line *line, const struct field *f, size_t n)
{
  for (size_t i = 0; i < n; i++)
    switch (f[i].kind)
      {
      case FIELD_TEXT:
        csv_line_str (line, f[i].text);
        break;
      case FIELD_COUNT:
        csv_line_u64 (line, f[i].count);
        break;
      case FIELD_NUMBER:
        csv_line_double (line, f[i].number);
        break;
      }
  csv_line_put (line, out);
}

static char *
table_text (const struct field *f)
{
  char text[64];
  switch (f->kind)
    {
    case FIELD_TEXT:
      return xstrdup (f->text);
    case FIELD_COUNT:
      snprintf (text, sizeof text, "%zu", f->count);
      return xstrdup (text);
    case FIELD_NUMBER:
      if (!isfinite (f->number))
        return xstrdup ("-");
      snprintf (text, sizeof text, "%.6g", f->number);
      return xstrdup (text);
    }
  return xstrdup ("");
}

void
summary_output (FILE *out, enum summary_format format,
                const struct summary_data *d,
                const struct summary_row *rows, size_t nrows,
                const struct summary_config *config, char **labels)
{
  size_t width = d->ngroup_names + ARRAY_SIZE (fixed_header) + config->npercentiles
    + ARRAY_SIZE (compare_header);
  struct field *f = xcalloc (width, sizeof *f);

  if (format == SUMMARY_CSV)
    {
      struct csv_line line = { 0 };
      put_csv (out, &line, f, header_fields (d, config, labels, f));
      for (size_t r = 0; r < nrows; r++)
        put_csv (out, &line, f, row_fields (d, config, &rows[r], f));
      csv_line_free (&line);
      free (f);
      return;
    }

  /* Table: format every cell, then pad each column to its widest.  */
  size_t ncols = header_fields (d, config, labels, f);
  char **cells = xcalloc ((nrows + 1) * ncols, sizeof *cells);
  bool *right = xcalloc (ncols, sizeof *right);
  size_t *widths = xcalloc (ncols, sizeof *widths);
  for (size_t c = 0; c < ncols; c++)
    cells[c] = table_text (&f[c]);
  for (size_t r = 0; r < nrows; r++)
    {
      row_fields (d, config, &rows[r], f);
      for (size_t c = 0; c < ncols; c++)
        {
          cells[(r + 1) * ncols + c] = table_text (&f[c]);
          right[c] = f[c].kind != FIELD_TEXT;
        }
    }
  for (size_t i = 0; i < (nrows + 1) * ncols; i++)
    {
      size_t len = strlen (cells[i]);
      if (len > widths[i % ncols])
        widths[i % ncols] = len;
    }
  for (size_t r = 0; r <= nrows; r++)
    {
      for (size_t c = 0; c < ncols; c++)
        {
          const char *cell = cells[r * ncols + c];
          int pad = (int) widths[c];
          bool last = c + 1 == ncols;
          if (right[c])
            fprintf (out, "%*s", pad, cell);
          else
            fprintf (out, "%-*s", last ? 0 : pad, cell);
          fputs (last ? "\n" : "  ", out);
        }
    }
  for (size_t i = 0; i < (nrows + 1) * ncols; i++)
    free (cells[i]);
  free (cells);
  free (right);
  free (widths);
  free (f);
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
