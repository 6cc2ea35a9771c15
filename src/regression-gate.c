/* regression-gate.c -- failing a CI job on a regression. */
#include "system.h"
#include "regression-gate.h"
#include "die.h"

#include <math.h>

struct gate
gate_parse (const char *option, const char *text)
{
  struct gate g = { 0 };
  const char *last = strrchr (text, ':');
  const char *first = NULL;
  for (const char *c = text; last && c < last; c++)
    if (*c == ':')
      first = c;
  if (!first || first == text)
    die (EXIT_USAGE, 0, "%s: expected COLUMN:TOLERANCE%%:higher|lower, got %s", option,
         quote (text));
  if (STREQ (last + 1, "higher"))
    g.higher_is_better = true;
  else if (!STREQ (last + 1, "lower"))
    die (EXIT_USAGE, 0, "%s: %s: say which is better, 'higher' or 'lower'", option, quote (text));
  char *tol = xstrdup (first + 1);
  tol[last - first - 1] = '\0';
  size_t len = strlen (tol);
  if (len && tol[len - 1] == '%')
    tol[len - 1] = '\0';
  char *end;
  errno = 0;
  double t = strtod (tol, &end);
  if (!*tol || *end || errno || !(t >= 0 && t < 100))
    die (EXIT_USAGE, 0, "%s: %s: the tolerance is a percentage in [0, 100)", option, quote (text));
  free (tol);
  g.tolerance = t / 100;
  g.column = xstrdup (text);
  g.column[first - text] = '\0';
  return g;
}

void
gate_require (const struct gate *gates, size_t ngates, const struct summary_data *d)
{
  for (size_t i = 0; i < ngates; i++)
    {
      bool found = false;
      for (size_t v = 0; v < d->nvalues; v++)
        found |= d->values[v].numeric && STREQ (d->values[v].name, gates[i].column);
      if (!found)
        die (EXIT_USAGE, 0, "--fail-if-worse: column %s is not summarized",
                 quote (gates[i].column));
    }
}

const char *const gate_family_names[GATE_FAMILY_COUNT + 1] = { "none", "holm", NULL };

/* "KEY=VALUE, " for each group column but the compared one.  */
static void
gate_where (const struct summary_data *d, size_t group, char *where, size_t size)
{
  size_t used = 0;
  where[0] = '\0';
  for (size_t k = 0; k < d->ngroup_names && used < size; k++)
    if (k != d->compare_index)
      used += (size_t) snprintf (where + used, size - used, "%s=%s, ",
                                 quotef (d->group_names[k]), quotef (d->groups[group].key[k]));
}

/* Whether groups A and B differ only in the compared column.  */
static bool
same_benchmark (const struct summary_data *d, size_t a, size_t b)
{
  for (size_t k = 0; k < d->ngroup_names; k++)
    if (k != d->compare_index && !STREQ (d->groups[a].key[k], d->groups[b].key[k]))
      return false;
  return true;
}

static bool
is_baseline (const struct summary_data *d, const struct summary_row *row)
{
  return STREQ (d->groups[row->group].key[d->compare_index], SUMMARY_BASELINE_LEVEL);
}

/* One candidate row under one gate: the one-sided p of "worse by more
   than the tolerance".  */
struct verdict
{
  const struct gate *gate;
  const struct summary_row *row;
  double p;
  bool exact;                   /* every value equal on both sides */
};

static int
verdict_order (const void *a, const void *b)
{
  double x = ((const struct verdict *) a)->p, y = ((const struct verdict *) b)->p;
  return (x > y) - (x < y);
}

/* A baseline benchmark with no candidate rows: said, and counted.  */
static bool
missing_candidates (const struct gate *gates, size_t ngates, const struct summary_data *d,
                    const struct summary_row *rows, size_t nrows)
{
  bool missing = false;
  for (size_t i = 0; i < ngates; i++)
    for (size_t r = 0; r < nrows; r++)
      {
        if (!STREQ (d->values[rows[r].value].name, gates[i].column) || !is_baseline (d, &rows[r]))
          continue;
        bool found = false;
        for (size_t s = 0; s < nrows && !found; s++)
          found = rows[s].value == rows[r].value && !is_baseline (d, &rows[s])
            && rows[s].n > 0 && same_benchmark (d, rows[r].group, rows[s].group);
        if (found)
          continue;
        char where[512];
        gate_where (d, rows[r].group, where, sizeof where);
        warn (0, "%s%s: in the baseline but not in the candidate", where,
              quotef (gates[i].column));
        missing = true;
      }
  return missing;
}

int
gate_check (const struct gate *gates, size_t ngates, const struct summary_data *d,
            const struct summary_row *rows, size_t nrows, double confidence,
            enum gate_family family)
{
  bool regressed = false, unjudged = false;
  bool missing = missing_candidates (gates, ngates, d, rows, nrows);
  struct verdict *verdicts = xcalloc (ngates * nrows + 1, sizeof *verdicts);
  size_t nverdicts = 0;
  for (size_t i = 0; i < ngates; i++)
    {
      const struct gate *g = &gates[i];
      double limit = g->higher_is_better ? 1 - g->tolerance : 1 + g->tolerance;
      for (size_t r = 0; r < nrows; r++)
        {
          const struct summary_row *row = &rows[r];
          if (!STREQ (d->values[row->value].name, g->column) || is_baseline (d, row))
            continue;
          const struct welch *w = &row->welch;
          /* Deterministic values on both sides: the ratio is known exactly. */
          bool exact = row->compared && w->diff_why && w->v1 == 0 && w->v2 == 0
            && isfinite (w->ratio);
          if (!exact && (!row->compared || w->ratio_why))
            {
              char where[512];
              gate_where (d, row->group, where, sizeof where);
              warn (0, "%s%s: cannot judge against the baseline: %s", where, quotef (g->column),
                    !row->compared ? "no baseline rows for this group" : w->ratio_why);
              unjudged = true;
              continue;
            }
          double p;
          if (exact)
            p = (g->higher_is_better ? w->ratio < limit : w->ratio > limit) ? 0 : 1;
          else
            p = interval_fieller_p (w, limit, !g->higher_is_better);
          verdicts[nverdicts++] = (struct verdict) { g, row, p, exact };
        }
    }

  /* Each test at one side's share of 1 - C, as the two-sided interval's
     end; Holm's step-down keeps the chance of any false failure in the
     family at that share.  */
  double alpha = (1 - confidence) / 2;
  if (family == GATE_FAMILY_HOLM)
    qsort (verdicts, nverdicts, sizeof *verdicts, verdict_order);
  for (size_t k = 0; k < nverdicts; k++)
    {
      const struct verdict *v = &verdicts[k];
      double level = family == GATE_FAMILY_HOLM ? alpha / (double) (nverdicts - k) : alpha;
      bool worse = v->exact ? v->p == 0 : v->p < level;
      if (!worse)
        {
          if (family == GATE_FAMILY_HOLM)
            break;
          continue;
        }
      const struct gate *g = v->gate;
      const struct welch *w = &v->row->welch;
      char where[512];
      gate_where (d, v->row->group, where, sizeof where);
      if (v->exact)
        warn (0, "%s%s: regression: %.4gx the baseline, every value equal on both sides, "
              "worse by more than %g%% (%s is better)", where, quotef (g->column), w->ratio,
              100 * g->tolerance, g->higher_is_better ? "higher" : "lower");
      else if (family == GATE_FAMILY_HOLM)
        warn (0, "%s%s: regression: %.4gx [%.4g, %.4g] the baseline, worse by more than "
              "%g%% at %g%% (%s is better; Holm over %zu, p = %.2g)", where, quotef (g->column),
              w->ratio, w->ratio_low, w->ratio_high, 100 * g->tolerance, 100 * confidence,
              g->higher_is_better ? "higher" : "lower", nverdicts, v->p);
      else
        warn (0, "%s%s: regression: %.4gx [%.4g, %.4g] the baseline, worse by more than "
              "%g%% at %g%% (%s is better)", where, quotef (g->column), w->ratio,
              w->ratio_low, w->ratio_high, 100 * g->tolerance, 100 * confidence,
              g->higher_is_better ? "higher" : "lower");
      regressed = true;
    }
  free (verdicts);
  return regressed ? EXIT_REGRESSION : missing ? EXIT_NOINPUT : unjudged ? EXIT_DATAERR
    : EXIT_OK;
}
