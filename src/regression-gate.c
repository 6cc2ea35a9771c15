/* regression-gate.c -- failing a CI job on a regression. */
#include "system.h"
#include "regression-gate.h"
#include "die.h"
#include "key-table.h"
#include "rng.h"
#include "stats.h"
#include "summary-number.h"

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
  summary_where (d, group, d->compare_index, where, size);
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
  bool sampled;                 /* p from random splits, not all of them */
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

/* The baseline group of candidate group G, or SIZE_MAX.  */
static size_t
baseline_of (const struct summary_data *d, size_t g)
{
  for (size_t b = 0; b < d->ngroups; b++)
    if (b != g && STREQ (d->groups[b].key[d->compare_index], SUMMARY_BASELINE_LEVEL)
        && same_benchmark (d, g, b))
      return b;
  return SIZE_MAX;
}

/* Subsets of size K of Z[0..N) whose sum is at least AT (MORE) or at
   most AT (!MORE), counted by depth-first enumeration from index I.  */
static double
count_sums (const double *z, size_t n, size_t i, size_t k, double sum, double at, bool more,
            double slack)
{
  if (k == 0)
    return more ? sum >= at - slack : sum <= at + slack;
  if (n - i < k)
    return 0;
  return count_sums (z, n, i + 1, k - 1, sum + z[i], at, more, slack)
    + count_sums (z, n, i + 1, k, sum, at, more, slack);
}

/* C(N, K) as a double.  */
static double
choose (size_t n, size_t k)
{
  double c = 1;
  for (size_t i = 1; i <= k; i++)
    c = c * (double) (n - k + i) / (double) i;
  return c;
}

/* The one-sided exact permutation p of "the candidate X[0..M) is worse
   than RHO times the baseline Y[0..N)": the values X and RHO Y pooled,
   the share of the C(M+N, M) ways to pick M of them as the candidate
   whose sum is at least the candidate's (lower is better) or at most
   (higher is better).  Exact for any distribution where the candidate
   is RHO times the baseline in law (a change of scale, as a slower clock
   or a second mode in the same share gives), and conservative where it
   is better; its smallest value is 1 / C(M+N, M).  */
/* The pooled values of both permutation tests: X then RHO times Y, in
   a new array; *SUM is X's sum, *SCALE the largest magnitude.  */
static double *
permutation_pool (const double *x, size_t m, const double *y, size_t n, double rho,
                  double *sum, double *scale)
{
  double *z = xmalloc ((m + n) * sizeof *z);
  *sum = 0, *scale = 0;
  for (size_t i = 0; i < m; i++)
    {
      z[i] = x[i];
      *sum += x[i];
      *scale = fmax (*scale, fabs (x[i]));
    }
  for (size_t j = 0; j < n; j++)
    {
      z[m + j] = rho * y[j];
      *scale = fmax (*scale, fabs (z[m + j]));
    }
  return z;
}

static double
permutation_p (const double *x, size_t m, const double *y, size_t n, double rho,
               bool higher_is_better)
{
  double sum, scale;
  double *z = permutation_pool (x, m, y, n, rho, &sum, &scale);
  /* Sums equal but for rounding are ties, and count against.  */
  double slack = 1e-12 * scale * (double) (m + n);
  double count = count_sums (z, m + n, 0, m, 0, sum, !higher_is_better, slack);
  free (z);
  return count / choose (m + n, m);
}

/* The Monte-Carlo form of permutation_p, for splits too many to count:
   B random splits of the pooled values, p = (1 + splits as extreme) /
   (B + 1), which is itself a valid p (never below the level more often
   than the level), at any M and N and for any shape.  Each split draws
   the smaller side by a partial Fisher-Yates shuffle.  */
static double
permutation_p_sampled (const double *x, size_t m, const double *y, size_t n, double rho,
                       bool higher_is_better, size_t b, struct rng *rng)
{
  size_t total = m + n;
  double sum, all = 0, scale;
  double *z = permutation_pool (x, m, y, n, rho, &sum, &scale);
  for (size_t i = 0; i < total; i++)
    all += z[i];
  double slack = 1e-12 * scale * (double) total;
  bool more = !higher_is_better;
  size_t k = m <= n ? m : n;
  double count = 1;
  for (size_t r = 0; r < b; r++)
    {
      double part = 0;
      for (size_t i = 0; i < k; i++)
        {
          size_t j = i + (size_t) rng_below (rng, total - i);
          double t = z[i];
          z[i] = z[j];
          z[j] = t;
          part += z[i];
        }
      double s = k == m ? part : all - part;
      count += more ? s >= sum - slack : s <= sum + slack;
    }
  free (z);
  return count / ((double) b + 1);
}

/* The stream of one row's random splits: the same data and seed give
   the same verdict, whatever else the input holds.  */
static void
gate_stream (struct rng *rng, uint64_t seed, const struct summary_data *d, size_t g,
             const char *column)
{
  struct key_buffer k = { 0 };
  key_buffer_add (&k, "g", 1);
  key_buffer_add (&k, column, strlen (column));
  for (size_t i = 0; i < d->ngroup_names; i++)
    key_buffer_add (&k, d->groups[g].key[i], strlen (d->groups[g].key[i]));
  uint64_t h = key_hash (k.text, k.used);
  free (k.text);
  rng_seed (rng, h ^ (seed * 0x9e3779b97f4a7c15ULL + 0x632be59bd9b4e019ULL));
}

/* Random splits a row draws: enough that the smallest p, 1 / (B + 1), is
   far below the strictest level the family asks (Holm's first step over
   ROWS rows), so the test never lacks the resolution to decide.  */
static size_t
gate_splits (double alpha, size_t rows)
{
  double b = ceil (40 * (double) (rows ? rows : 1) / alpha);
  return b < GATE_SPLITS_MIN ? GATE_SPLITS_MIN : b > GATE_SPLITS_MAX ? GATE_SPLITS_MAX : (size_t) b;
}

int
gate_check (const struct gate *gates, size_t ngates, const struct summary_data *d,
            const struct summary_row *rows, size_t nrows, double confidence,
            enum gate_family family, uint64_t seed)
{
  bool regressed = false, unjudged = false;
  bool missing = missing_candidates (gates, ngates, d, rows, nrows);
  struct verdict *verdicts = xcalloc (ngates * nrows + 1, sizeof *verdicts);
  size_t nverdicts = 0;
  /* The smallest p each exact test can give: the rows that cannot show
     a regression at the level, and the least of them all.  */
  double alpha = stats_alpha (confidence) / 2;
  size_t cannot = 0, least_m = 0, least_n = 0;
  const struct summary_row *cannot_row = NULL;
  double best = INFINITY;
  size_t judged = 0;
  for (size_t i = 0; i < ngates; i++)
    for (size_t r = 0; r < nrows; r++)
      judged += STREQ (d->values[rows[r].value].name, gates[i].column)
        && !is_baseline (d, &rows[r]);
  size_t splits = gate_splits (alpha, family == GATE_FAMILY_HOLM ? judged : 1);
  bool sampled = false;
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
            && w->df1 >= 1 && w->df2 >= 1;
          size_t b = row->compared ? baseline_of (d, row->group) : SIZE_MAX;
          const char *why = !row->compared || b == SIZE_MAX ? "no baseline rows for this group"
            : w->diff_why ? w->diff_why
            : !(w->mean2 > 0) ? "the baseline mean is not above 0 (no ratio to judge)" : NULL;
          if (!exact && why)
            {
              char where[512];
              gate_where (d, row->group, where, sizeof where);
              warn (0, "%s%s: cannot judge against the baseline: %s", where, quotef (g->column),
                    why);
              unjudged = true;
              continue;
            }
          double p;
          if (exact && isfinite (w->ratio))
            p = (g->higher_is_better ? w->ratio < limit : w->ratio > limit) ? 0 : 1;
          else if (exact)
            /* A baseline of 0: worse is any move the wrong way.  */
            p = (g->higher_is_better ? w->mean1 < limit * w->mean2
                 : w->mean1 > limit * w->mean2) ? 0 : 1;
          else
            {
              const struct summary_cell *x = &d->groups[row->group].cells[row->value];
              const struct summary_cell *y = &d->groups[b].cells[row->value];
              if (choose (x->n + y->n, x->n) <= GATE_PERMUTATIONS_MAX)
                {
                  p = permutation_p (x->values, x->n, y->values, y->n, limit,
                                     g->higher_is_better);
                  double least = 1 / choose (x->n + y->n, x->n);
                  if (least >= alpha && !cannot++)
                    cannot_row = row, least_m = x->n, least_n = y->n;
                  best = fmin (best, least);
                }
              else
                {
                  struct rng rng;
                  gate_stream (&rng, seed, d, row->group, g->column);
                  p = permutation_p_sampled (x->values, x->n, y->values, y->n, limit,
                                             g->higher_is_better, splits, &rng);
                  best = fmin (best, 1 / ((double) splits + 1));
                  sampled = true;
                }
            }
          verdicts[nverdicts++] = (struct verdict) { g, row, p, exact, !exact && sampled };
          sampled = false;
        }
    }

  /* Each test at one side's share of 1 - C, as the two-sided interval's
     end; Holm's step-down keeps the chance of any false failure in the
     family at that share.  What the exact test cannot reach is said.  */
  if (cannot)
    {
      char where[512];
      gate_where (d, cannot_row->group, where, sizeof where);
      warn (0, "%s%s: cannot decide: with %zu candidate and %zu baseline values no regression "
            "can be shown at %g%% (the exact test's smallest p is %.2g, not below %.2g): more "
            "runs are needed (%zu row%s)", where, quotef (d->values[cannot_row->value].name), least_m,
            least_n, 100 * confidence, 1 / choose (least_m + least_n, least_m), alpha, cannot,
            cannot == 1 ? "" : "s");
    }
  else if (family == GATE_FAMILY_HOLM && nverdicts > 1 && best >= alpha / (double) nverdicts)
    {
      warn (0, "cannot decide: --family-wise holm: over %zu rows the first step asks p < %.2g, "
            "below the smallest p the exact test gives any of them (%.2g): no regression can "
            "be shown; more runs are needed", nverdicts, alpha / (double) nverdicts, best);
      cannot = nverdicts;
    }
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
        {
          char now[32], was[32], ratio[64] = "";
          summary_number_shortest (w->mean1, now, sizeof now);
          summary_number_shortest (w->mean2, was, sizeof was);
          if (isfinite (w->ratio))
            snprintf (ratio, sizeof ratio, "%.4gx the baseline, ", w->ratio);
          warn (0, "%s%s: regression: %sconstant %s -> %s, every value equal on both sides, "
                "worse by more than %g%% (%s is better)", where, quotef (g->column), ratio,
                was, now, 100 * g->tolerance, g->higher_is_better ? "higher" : "lower");
        }
      else
        {
          char interval[96] = "";
          if (!w->ratio_why)
            snprintf (interval, sizeof interval, " [%.4g, %.4g]", w->ratio_low, w->ratio_high);
          char holm[64] = "";
          if (family == GATE_FAMILY_HOLM)
            snprintf (holm, sizeof holm, "Holm over %zu, ", nverdicts);
          char drawn[64] = "";
          if (v->sampled)
            snprintf (drawn, sizeof drawn, " of %zu random splits", splits);
          warn (0, "%s%s: regression: %.4gx%s the baseline, worse by more than %g%% at %g%% "
                "(%s is better; %sone-sided p = %.2g%s)", where, quotef (g->column), w->ratio,
                interval, 100 * g->tolerance, 100 * confidence,
                g->higher_is_better ? "higher" : "lower", holm, v->p, drawn);
        }
      regressed = true;
    }
  free (verdicts);
  /* A row whose test cannot reach the level neither passes nor fails:
     asv declines to call a change its test cannot show, and so does a
     gate that says so in its status.  */
  return regressed ? EXIT_REGRESSION : missing ? EXIT_NOINPUT : unjudged ? EXIT_DATAERR
    : cannot ? EXIT_UNDECIDED : EXIT_OK;
}
