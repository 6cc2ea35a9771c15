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

int
gate_check (const struct gate *gates, size_t ngates, const struct summary_data *d,
            const struct summary_row *rows, size_t nrows, double confidence)
{
  bool regressed = false, unjudged = false;
  for (size_t i = 0; i < ngates; i++)
    {
      const struct gate *g = &gates[i];
      for (size_t r = 0; r < nrows; r++)
        {
          const struct summary_row *row = &rows[r];
          if (!STREQ (d->values[row->value].name, g->column)
              || STREQ (d->groups[row->group].key[d->compare_index], SUMMARY_BASELINE_LEVEL))
            continue;
          char where[512] = "";
          size_t used = 0;
          for (size_t k = 0; k < d->ngroup_names && used < sizeof where; k++)
            if (k != d->compare_index)
              used += (size_t) snprintf (where + used, sizeof where - used, "%s=%s, ",
                                         quotef (d->group_names[k]),
                                         quotef (d->groups[row->group].key[k]));
          const struct welch *w = &row->welch;
          if (!row->compared || w->ratio_why)
            {
              warn (0, "%s%s: cannot judge against the baseline: %s", where, quotef (g->column),
                    !row->compared ? "no baseline rows for this group" : w->ratio_why);
              unjudged = true;
              continue;
            }
          bool worse = g->higher_is_better ? w->ratio_high < 1 - g->tolerance
            : w->ratio_low > 1 + g->tolerance;
          if (worse)
            {
              warn (0, "%s%s: regression: %.4gx [%.4g, %.4g] the baseline, worse by more than "
                    "%g%% at %g%% (%s is better)", where, quotef (g->column), w->ratio,
                    w->ratio_low, w->ratio_high, 100 * g->tolerance, 100 * confidence,
                    g->higher_is_better ? "higher" : "lower");
              regressed = true;
            }
        }
    }
  return regressed ? EXIT_REGRESSION : unjudged ? EXIT_DATAERR : EXIT_OK;
}
