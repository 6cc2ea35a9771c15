/* summary-plot.c -- ministat-style plots of each value column. */
#include "system.h"
#include "summary-output.h"
#include "die.h"

#include <math.h>

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
