/* summary-compute.c -- the statistics, interval and comparisons of each
   summary row. */
#include "system.h"
#include "summarize.h"
#include "die.h"
#include "distributions.h"
#include "key-table.h"
#include "rng.h"
#include "stats.h"
#include "summary-stats.h"

#include <math.h>

const char *const ci_method_names[CI_METHOD_COUNT + 1] = {
  "auto", "t", "boot-t", "percentile", "bca", "order", NULL
};
const char *const ci_stat_names[CI_STAT_COUNT + 1] = {
  "auto", "mean", "median", "gmean", NULL
};

/* The seed of the stream for one group, column and purpose: every group
   draws the same numbers whatever else the input holds.  */
static uint64_t
stream_seed (uint64_t seed, const struct summary_data *d, size_t g,
             const char *column, char purpose)
{
  struct key_buffer k = { 0 };
  key_buffer_add (&k, &purpose, 1);
  key_buffer_add (&k, column, strlen (column));
  for (size_t i = 0; i < d->ngroup_names; i++)
    key_buffer_add (&k, d->groups[g].key[i], strlen (d->groups[g].key[i]));
  uint64_t h = key_hash (k.text, k.used);
  free (k.text);
  return h ^ (seed * 0x9e3779b97f4a7c15ULL + 0x632be59bd9b4e019ULL);
}

/* Progress of a long resampling, on stderr (a terminal).  */
static size_t progress_row, progress_rows;

static void
show_progress (size_t done, size_t total)
{
  fprintf (stderr, "\r%s: resampling row %zu of %zu: %3.0f%%", program_name,
           progress_row, progress_rows, 100.0 * (double) done / (double) total);
}

bool
summary_ci_resamples (enum ci_method method)
{
  return method == CI_BOOT_T || method == CI_PERCENTILE || method == CI_BCA;
}

/* The statistic and method a row's interval uses: the one decision,
   from the options, the column and N.  auto takes Student's t for a
   mean at every n: bootstrap-t, the old choice from 30 values, covered
   0.929 on t(3) data at n = 30 where t covered 0.957, and auto must not
   pick a method that falls short where t does not.  */
static void
choose_ci (const struct summary_config *config, const struct summary_value *value,
           size_t n, struct summary_row *row)
{
  (void) n;
  enum ci_stat stat = config->stat;
  if (stat == CI_STAT_AUTO)
    stat = value->ratio ? CI_STAT_GMEAN : CI_STAT_MEAN;
  /* Order statistics are the median's, a --ratio column's too: its
     label then says what was computed.  */
  if (config->method == CI_ORDER)
    stat = CI_STAT_MEDIAN;
  row->ci_stat = stat;
  enum ci_method method = config->method;
  if (method == CI_AUTO)
    method = stat == CI_STAT_MEDIAN ? CI_ORDER : CI_T;
  row->ci_method = method;
  /* Positive data stay positive: t and boot-t move to the log scale,
     of the mean (and the geometric mean's are on it already).  */
  row->ci_log = config->log_scale && stat == CI_STAT_MEAN
    && (method == CI_T || method == CI_BOOT_T);
}

/* The measured coverage of the bootstrap methods below
   SUMMARY_BOOT_MIN_N values (bench-summarize(1), CHOOSING AN INTERVAL):
   each is refused there, with the reason naming what holds.  */
static const char *
bootstrap_refusal (enum ci_method method, enum ci_stat stat, size_t n)
{
  if (n >= SUMMARY_BOOT_MIN_N)
    return NULL;
  if (method == CI_BOOT_T)
    return "bootstrap-t below 10 values gives almost no interval, or one far wider than "
      "the data (use --ci t)";
  if (stat == CI_STAT_MEDIAN)
    return "percentile and BCa intervals of a median below 10 values rest on a few "
      "distinct resampled medians (use --ci order)";
  return "percentile and BCa intervals below 10 values covered 0.71 to 0.83 of a 95% "
    "interval on normal data at n = 3 and 5, less on skewed (use --ci t)";
}

/* The interval of the mean of X (sorted) by METHOD.  */
static const char *
mean_interval (const struct summary_config *config, enum ci_method method, bool log_scale,
               const double *x, size_t n, double mean, double sd, struct rng *rng,
               double *low, double *high)
{
  if (method == CI_T)
    return (log_scale ? interval_log_t_mean : interval_t_mean) (mean, sd, n,
                                                               config->confidence,
                                                               low, high);
  struct bootstrap_config b = {
    .method = method == CI_BCA ? BOOTSTRAP_BCA
      : method == CI_BOOT_T ? BOOTSTRAP_STUDENT : BOOTSTRAP_PERCENTILE,
    .confidence = config->confidence, .resamples = config->resamples,
    .log_scale = log_scale,
    .progress = progress_rows ? show_progress : NULL,
  };
  if (n >= 2 && !(sd > 0))
    return "all values equal";
  return bootstrap_ci (&b, BOOTSTRAP_MEAN, x, n, rng, low, high);
}

/* The interval of a row whose values X are sorted when SORTED; the
   bootstrap methods need them sorted, so that no interval depends on the
   order of rows.  */
static const char *
compute_interval (struct summary_data *d, const struct summary_config *config,
                  size_t g, size_t v, double *x, size_t n, bool sorted,
                  struct summary_row *row)
{
  row->ci_low = row->ci_high = NAN;
  if (n == 0)
    return "no values";
  struct rng rng;
  rng_seed (&rng, stream_seed (config->seed, d, g, d->values[v].name, 'c'));
  bool boot = summary_ci_resamples (row->ci_method);
  row->seeded = boot;
  if (boot && config->resamples == 0)
    return "no resamples";
  const char *refused = boot ? bootstrap_refusal (row->ci_method, row->ci_stat, n) : NULL;
  if (refused)
    {
      row->seeded = false;
      return refused;
    }
  switch (row->ci_stat)
    {
    case CI_STAT_MEDIAN:
      if (n >= 2 && !(row->min < row->max))
        return "all values equal";
      if (row->ci_method == CI_ORDER)
        {
          size_t j;
          double coverage;
          const char *why = interval_median_rank (n, config->confidence, &j, &coverage);
          if (why)
            return why;
          row->ci_low = sorted ? x[j - 1] : stats_select (x, n, j - 1);
          row->ci_high = sorted ? x[n - j] : stats_select (x, n, n - j);
          return NULL;
        }
      {
        struct bootstrap_config b = {
          .method = row->ci_method == CI_BCA ? BOOTSTRAP_BCA : BOOTSTRAP_PERCENTILE,
          .confidence = config->confidence, .resamples = config->resamples,
          .progress = progress_rows ? show_progress : NULL,
        };
        return bootstrap_ci (&b, BOOTSTRAP_MEDIAN, x, n, &rng, &row->ci_low, &row->ci_high);
      }
    case CI_STAT_GMEAN:
      {
        if (!(row->min > 0))
          return "a value is not positive (no geometric mean)";
        double *logs = xmalloc (n * sizeof *logs);
        for (size_t i = 0; i < n; i++)
          logs[i] = log (x[i]);
        double m = stats_mean (logs, n);
        const char *why = mean_interval (config, row->ci_method, false, logs, n, m,
                                         stats_sd (logs, n, m), &rng,
                                         &row->ci_low, &row->ci_high);
        free (logs);
        row->ci_low = exp (row->ci_low);
        row->ci_high = exp (row->ci_high);
        return why;
      }
    default:
      return mean_interval (config, row->ci_method, row->ci_log, x, n, row->mean, row->sd,
                            &rng,
                            &row->ci_low, &row->ci_high);
    }
}

static void
compute_cell (struct summary_data *d, const struct summary_config *config,
              size_t g, size_t v, struct summary_row *row)
{
  struct summary_cell *cell = &d->groups[g].cells[v];
  double *x = cell->values;
  size_t n = cell->n;
  row->group = g;
  row->value = v;
  row->n = n;
  row->missing = cell->missing;
  row->percentiles = xcalloc (config->npercentiles + 1, sizeof *row->percentiles);
  /* The comparisons' reasons first, then the table's NaNs over all.  */
  interval_welch (NAN, NAN, 0, NAN, NAN, 0, config->confidence, &row->welch);
  rank_test (NULL, 0, NULL, 0, config->confidence, &row->rank);
  interval_paired (NULL, NULL, 0, config->confidence, &row->paired);
  summary_statistics_init (row, config->npercentiles);
  choose_ci (config, &d->values[v], n, row);
  if (n == 0)
    {
      row->ci_low = row->ci_high = NAN;
      row->ci_why = "no values";
      return;
    }

  /* The bootstrap costs far more than a sort, and sorted data makes its
     interval independent of the order of rows; without it, selection
     finds the order statistics in O(n).  */
  bool boot = summary_ci_resamples (row->ci_method) && config->resamples && n >= 2;
  struct summary_sample sample = { x, n, boot, NAN, NAN };
  if (boot)
    {
      stats_sort (x, n);
      for (size_t i = 0; i < config->npercentiles; i++)
        row->percentiles[i] = stats_quantile_sorted (x, n, config->percentiles[i] / 100);
      sample.q1 = stats_quantile_sorted (x, n, 0.25);
      sample.q3 = stats_quantile_sorted (x, n, 0.75);
    }
  else
    {
      size_t np = config->npercentiles;
      double p[np + 2], out[np + 2];
      for (size_t i = 0; i < np; i++)
        p[i] = config->percentiles[i] / 100;
      p[np] = 0.25;
      p[np + 1] = 0.75;
      stats_quantiles (x, n, p, np + 2, out);
      for (size_t i = 0; i < np; i++)
        row->percentiles[i] = out[i];
      sample.q1 = out[np];
      sample.q3 = out[np + 1];
    }
  for (size_t i = 0; i < summary_nstatistics; i++)
    if (summary_statistics[i].compute)
      summary_statistics[i].compute (&sample, row);

  row->ci_why = compute_interval (d, config, g, v, x, n, boot, row);
  if (row->ci_why)
    row->ci_low = row->ci_high = NAN;
}

/* Each side's mean per key of the pairing column, over the keys both
   sides have, compared pair by pair.  */
static void
compare_paired (const struct summary_data *d, const struct summary_cell *x,
                const struct summary_cell *y, const struct summary_config *config,
                struct paired *p)
{
  size_t keys = d->npair_keys;
  double *sum = xcalloc (2 * keys + 1, sizeof *sum);
  size_t *count = xcalloc (2 * keys + 1, sizeof *count);
  const struct summary_cell *side[2] = { x, y };
  for (int s = 0; s < 2; s++)
    for (size_t i = 0; i < side[s]->n; i++)
      {
        size_t k = side[s]->pair_keys[i];
        sum[2 * k + s] += side[s]->pair_values[i];
        count[2 * k + s]++;
      }
  double *a = xcalloc (keys + 1, sizeof *a), *b = xcalloc (keys + 1, sizeof *b);
  size_t n = 0;
  for (size_t k = 0; k < keys; k++)
    if (count[2 * k] && count[2 * k + 1])
      {
        a[n] = sum[2 * k] / (double) count[2 * k];
        b[n++] = sum[2 * k + 1] / (double) count[2 * k + 1];
      }
  interval_paired (a, b, n, config->confidence, p);
  free (a);
  free (b);
  free (sum);
  free (count);
}

/* Compare each group with the group that differs from it only by having
   the base level in the compared column.  */
static void
compare (struct summary_data *d, const struct summary_config *config,
         struct summary_row *rows, const size_t *row_of, size_t *base_positive)
{
  struct key_table bases = { 0 };
  struct key_buffer k = { 0 };
  size_t ci = d->compare_index;
  for (int pass = 0; pass < 2; pass++)
    for (size_t g = 0; g < d->ngroups; g++)
      {
        char **key = d->groups[g].key;
        bool base = STREQ (key[ci], d->compare_level);
        if (base != (pass == 0))
          continue;
        k.used = 0;
        for (size_t i = 0; i < d->ngroup_names; i++)
          if (i != ci)
            key_buffer_add (&k, key[i], strlen (key[i]));
        if (pass == 0)
          {
            key_table_intern (&bases, k.text, k.used, g);
            continue;
          }
        size_t b = key_table_intern (&bases, k.text, k.used, SIZE_MAX);
        if (b == SIZE_MAX)
          continue;
        for (size_t v = 0; v < d->nvalues; v++)
          {
            if (!d->values[v].numeric)
              continue;
            struct summary_row *row = &rows[row_of[g * d->nvalues + v]];
            const struct summary_row *base_row = &rows[row_of[b * d->nvalues + v]];
            row->compared = true;
            base_positive[row_of[g * d->nvalues + v]] = base_row->min > 0;
            interval_welch (row->mean, row->sd, row->n, base_row->mean, base_row->sd,
                            base_row->n, config->confidence, &row->welch);
            if (config->log_scale)
              interval_welch_log (&row->welch, d->groups[g].cells[v].values,
                                  d->groups[g].cells[v].n, d->groups[b].cells[v].values,
                                  d->groups[b].cells[v].n, config->confidence);
            if (d->paired)
              compare_paired (d, &d->groups[g].cells[v], &d->groups[b].cells[v], config,
                              &row->paired);
            if (config->rank)
              {
                const struct summary_cell *x = &d->groups[g].cells[v];
                const struct summary_cell *y = &d->groups[b].cells[v];
                rank_test (x->values, x->n, y->values, y->n, config->confidence, &row->rank);
              }
          }
      }
  key_table_free (&bases);
  free (k.text);
}

/* "KEY=VALUE, " for each group column of ROW.  */
static void
row_where (const struct summary_data *d, const struct summary_row *row, char *where,
           size_t size)
{
  summary_where (d, row->group, SIZE_MAX, where, size);
}

/* Why ROW has no interval worth saying, or NULL.  */
static const char *
interval_reason (const struct summary_row *row)
{
  /* A group with no values is counted too: its empty interval is as
     unexplained as any other.  */
  const char *why = row->ci_why;
  return !why || STREQ (why, "no resamples") ? NULL : why;
}

/* Why ROW's comparison has no interval, or NULL.  */
static const char *
comparison_reason (const struct summary_row *row)
{
  return !row->compared ? NULL : row->welch.diff_why ? row->welch.diff_why
    : row->welch.ratio_why;
}

static void
say_interval (const struct summary_data *d, const struct summary_config *config,
              const struct summary_row *row, const char *why, size_t count)
{
  char where[256];
  row_where (d, row, where, sizeof where);
  if (STREQ (why, "too few values for a distribution-free interval of the median"))
    warn (0, "no distribution-free %g%% interval of the median from fewer than %zu "
          "values, in %zu row%s (first: %scolumn %s, n=%zu)", 100 * config->confidence,
          interval_median_min_n (config->confidence), count, count == 1 ? "" : "s",
          where, quote (d->values[row->value].name), row->n);
  else
    warn (0, "no interval: %s, in %zu row%s (first: %scolumn %s, n=%zu)",
          why, count, count == 1 ? "" : "s", where, quote (d->values[row->value].name),
          row->n);
}

static void
say_comparison (const struct summary_data *d, const struct summary_config *config,
                const struct summary_row *row, const char *why, size_t count)
{
  (void) config;
  char where[512];
  row_where (d, row, where, sizeof where);
  warn (0, "%s: %s, in %zu comparison%s (first: %scolumn %s)",
        row->welch.diff_why ? "no comparison intervals" : "no interval of the ratio",
        why, count, count == 1 ? "" : "s", where, quote (d->values[row->value].name));
}

/* Each reason REASON gives, said once by SAY with how many rows give it
   and the first of them.  Reasons are static strings: the same pointer
   is the same reason.  */
static void
say_each_reason_once (const struct summary_data *d, const struct summary_config *config,
                      const struct summary_row *rows, size_t nrows,
                      const char *(*reason) (const struct summary_row *),
                      void (*say) (const struct summary_data *, const struct summary_config *,
                                   const struct summary_row *, const char *, size_t))
{
  const char *said[32];
  size_t nsaid = 0;
  for (size_t r = 0; r < nrows; r++)
    {
      const char *why = reason (&rows[r]);
      if (!why)
        continue;
      bool seen = false;
      for (size_t i = 0; i < nsaid; i++)
        seen |= said[i] == why;
      if (seen || nsaid == ARRAY_SIZE (said))
        continue;
      said[nsaid++] = why;
      size_t count = 0;
      for (size_t s = r; s < nrows; s++)
        count += reason (&rows[s]) == why;
      say (d, config, &rows[r], why, count);
    }
}

/* The fewest values beyond Tukey's fences (1.5 IQR past the type-7
   quartiles) that clean normal data of N values reach less than 1% of
   the time: 2 * 10^5 samples of each N from 10 to 100 and at 150 and 200
   (numpy, seed 7), made non-decreasing; from 200, 0.007 N (the share
   beyond the fences) + 0.4 sqrt(N), above the simulated 9, 12 and 17 at
   300, 500 and 1000.  The old rule, more than 10% of a row, flagged 9%
   of clean groups of 10 and 4% of 20.  */
static size_t
outlier_limit (size_t n)
{
  static const struct { size_t below; size_t limit; } steps[] = {
    { 13, 4 }, { 50, 5 }, { 150, 6 }, { 200, 7 },
  };
  for (size_t i = 0; i < ARRAY_SIZE (steps); i++)
    if (n < steps[i].below)
      return steps[i].limit;
  return (size_t) ceil (0.007 * (double) n + 0.4 * sqrt ((double) n));
}

/* Values of X[0..N) (every one positive) beyond Tukey's mild fences
   of their logarithms.  */
static size_t
log_outliers (const double *x, size_t n)
{
  double *logs = xmalloc (n * sizeof *logs);
  for (size_t i = 0; i < n; i++)
    logs[i] = log (x[i]);
  stats_sort (logs, n);
  double q1 = stats_quantile_sorted (logs, n, 0.25), q3 = stats_quantile_sorted (logs, n, 0.75);
  double fence = 1.5 * (q3 - q1);
  size_t out = 0;
  for (size_t i = 0; i < n; i++)
    out += logs[i] < q1 - fence || logs[i] > q3 + fence;
  free (logs);
  return out;
}

/* Rows with more values beyond Tukey's fences than clean normal data
   give 99 times in 100, from 10 values, as hyperfine and criterion warn,
   naming the rule.  Positive values must be beyond them on the log scale
   too: clean log-normal timings (log SD 0.5 to 1) have a long right tail
   that crossed the limit at 100 to 300 values in 7% to 91% of samples,
   as clean as they were; on the log scale they are normal, and both
   scales together flag clean normal or log-normal data at most 1% of the
   time (doc/results/outlier-warning-skew).  */
static void
warn_outliers (const struct summary_data *d, const struct summary_row *rows, size_t nrows)
{
  for (size_t r = 0; r < nrows; r++)
    {
      const struct summary_row *row = &rows[r];
      size_t out = row->outliers_mild + row->outliers_severe;
      if (row->n < 10 || out < outlier_limit (row->n))
        continue;
      const struct summary_cell *cell = &d->groups[row->group].cells[row->value];
      if (row->min > 0 && cell->n == row->n
          && log_outliers (cell->values, cell->n) < outlier_limit (row->n))
        continue;
      char where[256];
      row_where (d, row, where, sizeof where);
      warn (0, "%scolumn %s: %zu of %zu values lie beyond Tukey's fences (1.5 IQR past the "
            "quartiles; %zu of them past 3 IQR), where clean normal data of %zu values have "
            "%zu or more less than 1%% of the time: the runs may have been disturbed", where,
            quote (d->values[row->value].name), out, row->n, row->outliers_severe, row->n,
            outlier_limit (row->n));
    }
}

/* The 99th percentile of the largest gap between neighbouring sorted
   values, in sample SDs, for N = 3 .. 29 normal values: 200000 samples
   of each N (Python's random.gauss, seed 12345).  A larger gap flags one
   normal sample in a hundred.  */
static const double shape_gap_limit[SUMMARY_BOOT_T_MIN] = {
  [3] = 1.7267, 1.9172, 2.0044, 2.0418, 2.0500, 2.0520, 2.0438, 2.0400, 2.0144,
  2.0134, 1.9890, 1.9790, 1.9756, 1.9605, 1.9547, 1.9434, 1.9299, 1.9313, 1.9120,
  1.9081, 1.8869, 1.8842, 1.8698, 1.8647, 1.8648, 1.8621, 1.8587,
};

/* P(B >= K) for B ~ Binomial(N, P).  */
static double
binomial_upper_tail (size_t k, size_t n, double p)
{
  double below = 0;
  for (size_t i = 0; i < k; i++)
    below += exp (lgamma ((double) n + 1) - lgamma ((double) i + 1)
                  - lgamma ((double) (n - i) + 1) + (double) i * log (p)
                  + (double) (n - i) * log1p (-p));
  return fmax (0, 1 - below);
}

/* The largest gap between neighbouring values of X[0..N), in SDs.  */
static double
largest_gap (const double *x, size_t n, double sd)
{
  double *sorted = xmalloc (n * sizeof *sorted);
  memcpy (sorted, x, n * sizeof *sorted);
  stats_sort (sorted, n);
  double gap = 0;
  for (size_t i = 1; i < n; i++)
    gap = fmax (gap, sorted[i] - sorted[i - 1]);
  free (sorted);
  return gap / sd;
}

/* Small samples whose mean's interval rests on near-normal data, but
   whose values split into clusters or trail a long tail: one value far
   from the rest (the largest gap beyond its 1% level for normal data).
   Said once per column, naming the first such row: a sample that drew
   no value from a second mode looks tight and cannot be flagged, yet
   its interval misses (bimodal data at n = 3 to 10 cover 52-86% in the
   rows not flagged), so a flag in any row speaks for the column.  With
   many rows some normal ones cross the 1% level: the column is flagged
   only where so many rows cross that normal data would do so less than
   1% of the time (one row of one, two of 2 to 15, three of 16 to 44...). */
static void
warn_shape (const struct summary_data *d, const struct summary_config *config,
            const struct summary_row *rows, size_t nrows)
{
  for (size_t v = 0; v < d->nvalues; v++)
    {
      const struct summary_row *first = NULL;
      double first_gap = 0;
      bool first_logs = false;
      size_t flagged = 0, small = 0;
      for (size_t r = 0; r < nrows; r++)
        {
          const struct summary_row *row = &rows[r];
          /* A geometric mean's interval (--ratio's too) is the t
             interval of the logarithms: their shape is what it rests on
             (two modes of ratios covered 0.69 to 0.93, unwarned).  */
          bool gmean = row->ci_stat == CI_STAT_GMEAN && row->min > 0;
          if (row->value != v || row->n < 3 || row->n >= SUMMARY_BOOT_T_MIN
              || (row->ci_stat != CI_STAT_MEAN && !gmean) || !(row->sd > 0))
            continue;
          const struct summary_cell *cell = &d->groups[row->group].cells[v];
          double gap;
          if (gmean)
            {
              double *logs = xmalloc (cell->n * sizeof *logs);
              for (size_t i = 0; i < cell->n; i++)
                logs[i] = log (cell->values[i]);
              double sd = stats_sd (logs, cell->n, stats_mean (logs, cell->n));
              gap = sd > 0 ? largest_gap (logs, cell->n, sd) : 0;
              free (logs);
              if (!(sd > 0))
                continue;
            }
          else
            gap = largest_gap (cell->values, cell->n, row->sd);
          small++;
          if (!(gap > shape_gap_limit[row->n]))
            continue;
          if (!first)
            first = row, first_gap = gap, first_logs = gmean;
          flagged++;
        }
      if (!first || binomial_upper_tail (flagged, small, 0.01) > 0.01 + 1e-12)
        continue;
      char where[256];
      row_where (d, first, where, sizeof where);
      warn (0, "column %s: %zu of %zu rows look bimodal or skewed (first: %sn=%zu, a gap of "
            "%.3f SDs between neighbours%s, above %.3f, the 1%% level for normal data); "
            "below %d values its %g%% intervals may cover far less, in any row",
            quote (d->values[v].name), flagged, small, where, first->n, first_gap,
            first_logs ? " on the log scale" : "", shape_gap_limit[first->n],
            SUMMARY_BOOT_T_MIN, 100 * config->confidence);
    }
}

/* Positive values spread by a large factor are skewed the way times and
   rates are, and the t interval of their mean falls short: on log-normal
   data of log SD 1 it covered 0.82 to 0.85 at n = 3 to 10 and 0.91 at
   100, where the log scale's holds.  A sample from such data can look
   tight by chance: the rule that asked for a pooled log SD above 0.75
   left 17% of samples of 10 (44% of 5) unwarned, and they held the mean
   about half the time.  So the warning asks whether the data may be that
   spread: whether a 75% upper confidence bound of the pooled log SD
   (chi-square, by Wilson and Hilferty's cube root, within 1% from 2
   degrees of freedom) passes the log SD at which t's 95% interval of a
   log-normal mean covers 0.93, by the smallest n of the rows pooled
   (simulated, 10^5 samples each: 0.38 from 3 to 9 values, 0.40 to 19,
   0.48 to 29, 0.55 from 30), and whether the values lean right (their
   mean skewness above 0), so even spreads (1 to 10) are not flagged.
   Then from 5 values at most 6% of log-normal samples of any spread miss
   the mean unwarned (at log SD 0.25, where t holds, the 5.6% its 95%
   misses); at 3, 8.6% for log SD 1, where the old rule left 17%.
   Timings of a CV below 8% are never warned.  One line per column, for
   rows whose interval is a mean's; on the log scale (log-t) by its own
   limits.  */
enum { SKEW_MAX_N = 1000 };
#define SKEW_BOUND_LEVEL 0.75
#define SKEW_MIN 0.2

static double
skew_limit (size_t n)
{
  return n < 10 ? 0.38 : n < 20 ? 0.40 : n < 30 ? 0.48 : 0.55;
}

/* The same for --log-scale's log-t interval, which holds longer but not
   for ever (0.89 to 0.92 at n = 3 to 30 on log SD 1): the log SD at which
   its 95% interval covers 0.93 (10^5 samples each, doc/results/
   log-scale-skew): 0.77 at 3, 0.56 at 5, 0.55 at 10, 0.61 at 20, 0.71 at
   30, 0.81 at 50, 0.95 at 100; at most the least of each bin.  */
static double
skew_limit_log (size_t n)
{
  return n < 20 ? 0.55 : n < 30 ? 0.60 : n < 50 ? 0.69 : n < 100 ? 0.80 : 0.92;
}

static double
skew_limit_of (const struct summary_row *row, size_t n)
{
  return row->ci_log ? skew_limit_log (n) : skew_limit (n);
}

/* A 75% upper confidence bound of a log SD of SD on DF degrees of
   freedom (chi-square, Wilson and Hilferty's cube root).  */
static double
skew_bound (double sd, double df)
{
  double z = dist_normal_quantile (1 - SKEW_BOUND_LEVEL);
  double h = 2 / (9 * df), chi2 = df * pow (1 - h + z * sqrt (h), 3);
  return sd * sqrt (df / chi2);
}

static void
warn_skew (const struct summary_data *d, const struct summary_config *config,
           const struct summary_row *rows, size_t nrows)
{
  for (size_t v = 0; v < d->nvalues; v++)
    {
      const struct summary_row *first = NULL, *alone = NULL;
      double squares = 0, df = 0, skew = 0, weight = 0, alone_sd = 0;
      size_t counted = 0, least_n = SIZE_MAX, nalone = 0;
      /* Only a column of positive values (times, rates): one that holds
         0 or less anywhere is no such quantity.  */
      bool positive = true;
      for (size_t r = 0; r < nrows; r++)
        positive &= rows[r].value != v || rows[r].n == 0 || rows[r].min > 0;
      for (size_t r = 0; r < nrows && positive; r++)
        {
          const struct summary_row *row = &rows[r];
          if (row->value != v || row->n < 3 || row->n >= SKEW_MAX_N
              || row->ci_stat != CI_STAT_MEAN)
            continue;
          const struct summary_cell *cell = &d->groups[row->group].cells[v];
          double *logs = xmalloc (cell->n * sizeof *logs);
          for (size_t i = 0; i < cell->n; i++)
            logs[i] = log (cell->values[i]);
          double sd = stats_sd (logs, cell->n, stats_mean (logs, cell->n));
          free (logs);
          /* The moment skewness of the values themselves, m3 / m2^1.5.  */
          double m2 = 0, m3 = 0, own = 0;
          for (size_t i = 0; i < cell->n; i++)
            {
              double e = (cell->values[i] - row->mean) / row->sd;
              m2 += e * e;
              m3 += e * e * e;
            }
          if (m2 > 0)
            own = (m3 / (double) cell->n) / pow (m2 / (double) cell->n, 1.5);
          skew += (double) cell->n * own;
          /* A row by itself: one skewed group among tight ones is lost
             in the pool, and its own interval falls short all the same. */
          if (skew_bound (sd, (double) (cell->n - 1)) > skew_limit_of (row, row->n)
              && own > SKEW_MIN)
            {
              if (!alone)
                alone = row, alone_sd = sd;
              nalone++;
            }
          weight += (double) cell->n;
          squares += sd * sd * (double) (cell->n - 1);
          df += (double) (cell->n - 1);
          first = first ? first : row;
          least_n = row->n < least_n ? row->n : least_n;
          counted++;
        }
      if (!first || !(df > 0))
        continue;
      double sd = sqrt (squares / df);
      double bound = skew_bound (sd, df);
      char where[256];
      /* On the log scale already, the line says what log-t does.  */
      const char *covers = first->ci_log
        ? "log-t covered 0.89 to 0.92 at n = 3 to 30 on log-normal data of log SD 1); "
        "--ci-stat gmean holds, or more runs"
        : "t covered 0.82 to 0.85 at n = 3 to 10 on log-normal data of log SD 1); "
        "--log-scale or --ci-stat gmean hold better";
      if ((!(bound > skew_limit_of (first, least_n)) || !(skew > SKEW_MIN * weight)) && alone)
        {
          row_where (d, alone, where, sizeof where);
          warn (0, "column %s: positive values that may be spread by a large factor in %zu of "
                "%zu rows (first: %sn=%zu, the SD of its logs is %.2f, up to %.2f at %.0f%% "
                "confidence, past %.2f): the %g%% interval of such a mean covers less (%s",
                quote (d->values[v].name), nalone, counted, where, alone->n, alone_sd,
                skew_bound (alone_sd, (double) (alone->n - 1)), 100 * SKEW_BOUND_LEVEL,
                skew_limit_of (alone, alone->n), 100 * config->confidence, covers);
          continue;
        }
      if (!(bound > skew_limit_of (first, least_n)) || !(skew > SKEW_MIN * weight))
        continue;
      row_where (d, first, where, sizeof where);
      warn (0, "column %s: positive values that may be spread by a large factor (the SD of "
            "their logs is %.2f, pooled over %zu rows; first: %sn=%zu; up to %.2f at %.0f%% "
            "confidence, past %.2f): the %g%% interval of such a mean covers less (%s",
            quote (d->values[v].name), sd, counted, where, first->n, bound,
            100 * SKEW_BOUND_LEVEL, skew_limit_of (first, least_n), 100 * config->confidence,
            covers);
    }
}

/* Intervals that reach 0 or below for a row whose every value is
   positive (times, rates): true to their level, but too few values for
   the spread, and they say nothing (pinned-arena --repeats 2 printed
   [0, 2.9e9] items/s and 0.6x [-4.5, 5.7]).  One line per column for
   the rows' own intervals and one for their comparisons' ratios.  */
static void
warn_below_zero (const struct summary_data *d, const struct summary_config *config,
                 const struct summary_row *rows, size_t nrows, const size_t *base_min_of)
{
  for (size_t v = 0; v < d->nvalues; v++)
    for (int ratio = 0; ratio < 2; ratio++)
      {
        const struct summary_row *first = NULL;
        size_t count = 0;
        for (size_t r = 0; r < nrows; r++)
          {
            const struct summary_row *row = &rows[r];
            if (row->value != v || !(row->min > 0) || row->n > 2)
              continue;
            bool below = ratio ? row->compared && !row->welch.ratio_why
              && base_min_of[r] && row->welch.ratio_low <= 0
              : !row->ci_why && row->ci_low <= 0;
            if (!below)
              continue;
            first = first ? first : row;
            count++;
          }
        if (!first)
          continue;
        char where[256];
        row_where (d, first, where, sizeof where);
        warn (0, "column %s: %s %g%% interval%s reach%s 0 or below though every value is "
              "positive (%zu row%s, first: %sn=%zu): too few values for their spread to say "
              "anything; more runs, or --log-scale", quote (d->values[v].name),
              ratio ? "the ratio's" : "the mean's", 100 * config->confidence,
              count == 1 ? "" : "s", count == 1 ? "es" : "", count, count == 1 ? "" : "s",
              where, first->n);
      }
}

/* Percentile and BCa intervals from 10 to 29 values print, with one
   line per column that says how far they fell short in simulation
   (bench-summarize(1), CHOOSING AN INTERVAL; 95% intervals).  */
static void
warn_bootstrap_coverage (const struct summary_data *d, const struct summary_config *config,
                         const struct summary_row *rows, size_t nrows)
{
  for (size_t v = 0; v < d->nvalues; v++)
    {
      const struct summary_row *first = NULL;
      size_t count = 0;
      for (size_t r = 0; r < nrows; r++)
        {
          const struct summary_row *row = &rows[r];
          if (row->value != v || row->ci_why || row->n >= SUMMARY_BOOT_T_MIN
              || (row->ci_method != CI_PERCENTILE && row->ci_method != CI_BCA))
            continue;
          first = first ? first : row;
          count++;
        }
      if (!first)
        continue;
      char where[256];
      row_where (d, first, where, sizeof where);
      warn (0, "column %s: %s intervals from %d to %d values fall short of their level: at "
            "95%%, 0.91 (n = 10) to 0.94 (n = 30) on normal data, 0.81 to 0.92 on log-normal; "
            "--ci t holds for normal data (%zu row%s, first: %sn=%zu, at %g%%)",
            quote (d->values[v].name), ci_method_names[first->ci_method], SUMMARY_BOOT_MIN_N,
            SUMMARY_BOOT_T_MIN - 1, count, count == 1 ? "" : "s", where, first->n,
            100 * config->confidence);
    }
}

struct summary_row *
summarize_compute (struct summary_data *d, const struct summary_config *config,
                   size_t *nrows)
{
  size_t count = 0;
  for (size_t v = 0; v < d->nvalues; v++)
    count += d->values[v].numeric;
  count *= d->ngroups;
  struct summary_row *rows = xcalloc (count + 1, sizeof *rows);
  size_t *row_of = xcalloc (d->ngroups * d->nvalues + 1, sizeof *row_of);
  /* Progress only where the resampling is long: over a billion draws.  */
  double draws = 0;
  if (config->progress)
    for (size_t g = 0; g < d->ngroups; g++)
      for (size_t v = 0; v < d->nvalues; v++)
        draws += (double) d->groups[g].cells[v].n * (double) config->resamples;
  bool progress = config->progress && draws > 1e9;
  progress_rows = progress ? count : 0;
  size_t r = 0;
  for (size_t g = 0; g < d->ngroups; g++)
    for (size_t v = 0; v < d->nvalues; v++)
      if (d->values[v].numeric)
        {
          progress_row = r + 1;
          row_of[g * d->nvalues + v] = r;
          compute_cell (d, config, g, v, &rows[r++]);
        }
  if (progress)
    fprintf (stderr, "\r\033[K");
  progress_rows = 0;
  /* For each compared row, whether its base's values are all positive.  */
  size_t *base_positive = xcalloc (count + 1, sizeof *base_positive);
  if (d->compare_level)
    compare (d, config, rows, row_of, base_positive);
  free (row_of);
  say_each_reason_once (d, config, rows, count, interval_reason, say_interval);
  if (d->compare_level)
    say_each_reason_once (d, config, rows, count, comparison_reason, say_comparison);
  warn_outliers (d, rows, count);
  warn_shape (d, config, rows, count);
  warn_bootstrap_coverage (d, config, rows, count);
  warn_skew (d, config, rows, count);
  warn_below_zero (d, config, rows, count, base_positive);
  free (base_positive);
  *nrows = count;
  return rows;
}
