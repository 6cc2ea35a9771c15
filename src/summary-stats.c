/* summary-stats.c -- the table of summary statistics. */
#include "system.h"
#include "summary-stats.h"
#include "stats.h"

#include <math.h>

static void
compute_mean (const struct summary_sample *s, struct summary_row *row)
{
  row->mean = stats_mean (s->x, s->n);
}

static void
compute_sd (const struct summary_sample *s, struct summary_row *row)
{
  row->sd = stats_sd (s->x, s->n, row->mean);
}

static void
compute_se (const struct summary_sample *s, struct summary_row *row)
{
  row->se = row->sd / sqrt ((double) s->n);
}

static void
compute_min (const struct summary_sample *s, struct summary_row *row)
{
  double m = s->x[0];
  for (size_t i = 1; i < s->n; i++)
    if (s->x[i] < m)
      m = s->x[i];
  row->min = m;
}

static void
compute_max (const struct summary_sample *s, struct summary_row *row)
{
  double m = s->x[0];
  for (size_t i = 1; i < s->n; i++)
    if (s->x[i] > m)
      m = s->x[i];
  row->max = m;
}

static void
compute_median (const struct summary_sample *s, struct summary_row *row)
{
  if (!s->sorted)
    {
      row->median = stats_median (s->x, s->n);
      return;
    }
  size_t k = (s->n - 1) / 2;
  double m = s->n % 2 ? s->x[k] : (s->x[k] + s->x[k + 1]) / 2;
  row->median = isfinite (m) || s->n % 2 ? m : s->x[k] / 2 + s->x[k + 1] / 2;
}

/* exp of the mean log, where every value is positive.  */
static void
compute_gmean (const struct summary_sample *s, struct summary_row *row)
{
  if (!(row->min > 0))
    return;
  long double sum = 0;
  for (size_t i = 0; i < s->n; i++)
    sum += log (s->x[i]);
  row->gmean = exp ((double) (sum / s->n));
}

/* Tukey's fences: mild beyond 1.5 interquartile ranges, severe beyond 3. */
static void
compute_outliers (const struct summary_sample *s, struct summary_row *row)
{
  double iqr = s->q3 - s->q1;
  row->outliers_mild = row->outliers_severe = 0;
  for (size_t i = 0; i < s->n; i++)
    {
      double x = s->x[i];
      double out = x < s->q1 ? s->q1 - x : x > s->q3 ? x - s->q3 : 0;
      if (out > 3 * iqr)
        row->outliers_severe++;
      else if (out > 1.5 * iqr)
        row->outliers_mild++;
    }
}

#define ROW(member) offsetof (struct summary_row, member)
const struct summary_statistic summary_statistics[] = {
  { "column", STAT_TEXT, STAT_FAM_NONE, 0, STAT_PART_ALWAYS, NULL },
  { "n", STAT_COUNT, STAT_FAM_NONE, ROW (n), STAT_PART_ALWAYS, NULL },
  { "missing", STAT_COUNT, STAT_FAM_NONE, ROW (missing), STAT_PART_ALWAYS, NULL },
  { "mean", STAT_NUMBER, STAT_FAM_LOCATION, ROW (mean), STAT_PART_ALWAYS, compute_mean },
  { "sd", STAT_NUMBER, STAT_FAM_SD, ROW (sd), STAT_PART_ALWAYS, compute_sd },
  { "se", STAT_NUMBER, STAT_FAM_SE, ROW (se), STAT_PART_ALWAYS, compute_se },
  { "min", STAT_NUMBER, STAT_FAM_LOCATION, ROW (min), STAT_PART_ALWAYS, compute_min },
  { "median", STAT_NUMBER, STAT_FAM_LOCATION, ROW (median), STAT_PART_ALWAYS, compute_median },
  { "max", STAT_NUMBER, STAT_FAM_LOCATION, ROW (max), STAT_PART_ALWAYS, compute_max },
  { "gmean", STAT_NUMBER, STAT_FAM_LOCATION, ROW (gmean), STAT_PART_GMEAN, compute_gmean },
  { "ci_low", STAT_NUMBER, STAT_FAM_LOCATION, ROW (ci_low), STAT_PART_ALWAYS, NULL },
  { "ci_high", STAT_NUMBER, STAT_FAM_LOCATION, ROW (ci_high), STAT_PART_ALWAYS, NULL },
  { "ci_stat", STAT_CI_STAT, STAT_FAM_NONE, 0, STAT_PART_ALWAYS, NULL },
  { "ci_method", STAT_CI_METHOD, STAT_FAM_NONE, 0, STAT_PART_ALWAYS, NULL },
  { "ci_level", STAT_CI_LEVEL, STAT_FAM_LEVEL, 0, STAT_PART_ALWAYS, NULL },
  { "seed", STAT_SEED, STAT_FAM_NONE, 0, STAT_PART_ALWAYS, NULL },
  { NULL, STAT_PERCENTILES, STAT_FAM_LOCATION, 0, STAT_PART_ALWAYS, NULL },
  { "outliers_mild", STAT_COUNT, STAT_FAM_NONE, ROW (outliers_mild), STAT_PART_ALWAYS,
    compute_outliers },
  { "outliers_severe", STAT_COUNT, STAT_FAM_NONE, ROW (outliers_severe), STAT_PART_ALWAYS,
    NULL },                     /* with the mild ones */
  { "vs", STAT_VS, STAT_FAM_NONE, 0, STAT_PART_COMPARE, NULL },
/* A comparison's estimate NAME and its interval, NAME_ci_low and
   NAME_ci_high.  */
#define WITH_CI(name, family, point, low, high) \
  { name, STAT_NUMBER, family, ROW (welch.point), STAT_PART_COMPARE, NULL }, \
  { name "_ci_low", STAT_NUMBER, family, ROW (welch.low), STAT_PART_COMPARE, NULL }, \
  { name "_ci_high", STAT_NUMBER, family, ROW (welch.high), STAT_PART_COMPARE, NULL }
  WITH_CI ("ratio", STAT_FAM_RATIO, ratio, ratio_low, ratio_high),
  WITH_CI ("diff", STAT_FAM_DIFF, diff, diff_low, diff_high),
  WITH_CI ("diff_pct", STAT_FAM_PCT, pct, pct_low, pct_high),
#undef WITH_CI
  { "t", STAT_NUMBER, STAT_FAM_T, ROW (welch.t), STAT_PART_COMPARE, NULL },
  { "df", STAT_NUMBER, STAT_FAM_DF, ROW (welch.df), STAT_PART_COMPARE, NULL },
  { "p_welch", STAT_P, STAT_FAM_NONE, ROW (welch.p), STAT_PART_COMPARE, NULL },
  { "u", STAT_NUMBER, STAT_FAM_U, ROW (rank.u), STAT_PART_RANK, NULL },
  { "p_rank", STAT_P, STAT_FAM_NONE, ROW (rank.p), STAT_PART_RANK, NULL },
  { "shift", STAT_NUMBER, STAT_FAM_DIFF, ROW (rank.shift), STAT_PART_RANK, NULL },
  { "shift_ci_low", STAT_NUMBER, STAT_FAM_DIFF, ROW (rank.shift_low), STAT_PART_RANK, NULL },
  { "shift_ci_high", STAT_NUMBER, STAT_FAM_DIFF, ROW (rank.shift_high), STAT_PART_RANK, NULL },
  { "pairs", STAT_NUMBER, STAT_FAM_U, ROW (paired.pairs), STAT_PART_PAIRED, NULL },
  { "paired_diff", STAT_NUMBER, STAT_FAM_DIFF, ROW (paired.diff), STAT_PART_PAIRED, NULL },
  { "paired_diff_ci_low", STAT_NUMBER, STAT_FAM_DIFF, ROW (paired.diff_low), STAT_PART_PAIRED,
    NULL },
  { "paired_diff_ci_high", STAT_NUMBER, STAT_FAM_DIFF, ROW (paired.diff_high),
    STAT_PART_PAIRED, NULL },
  { "paired_ratio", STAT_NUMBER, STAT_FAM_RATIO, ROW (paired.ratio), STAT_PART_PAIRED, NULL },
  { "paired_ratio_ci_low", STAT_NUMBER, STAT_FAM_RATIO, ROW (paired.ratio_low),
    STAT_PART_PAIRED, NULL },
  { "paired_ratio_ci_high", STAT_NUMBER, STAT_FAM_RATIO, ROW (paired.ratio_high),
    STAT_PART_PAIRED, NULL },
  { "p_paired", STAT_P, STAT_FAM_NONE, ROW (paired.p), STAT_PART_PAIRED, NULL },
};
#undef ROW
const size_t summary_nstatistics = ARRAY_SIZE (summary_statistics);

void
summary_statistics_init (struct summary_row *row, size_t npercentiles)
{
  char *base = (char *) row;
  for (size_t i = 0; i < summary_nstatistics; i++)
    if (summary_statistics[i].kind == STAT_NUMBER || summary_statistics[i].kind == STAT_P)
      *(double *) (base + summary_statistics[i].offset) = NAN;
    else if (summary_statistics[i].kind == STAT_PERCENTILES)
      for (size_t p = 0; p < npercentiles; p++)
        row->percentiles[p] = NAN;
}
