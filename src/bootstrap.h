/* bootstrap.h -- bootstrap confidence intervals.

   Percentile intervals take the type-7 quantiles (1-c)/2 and (1+c)/2 of
   the resampled statistic.  BCa intervals (Efron 1987, "Better bootstrap
   confidence intervals") shift those levels by the bias correction z0,
   from the share of resampled statistics below the observed one (ties
   count half), and the acceleration a, from the skewness of the
   jackknife values; with several samples the jackknife runs over each in
   turn, as scipy.stats.bootstrap does.  */
#ifndef ARENABENCH_BOOTSTRAP_H
#define ARENABENCH_BOOTSTRAP_H

#include <stdbool.h>
#include <stddef.h>

#include "rng.h"

enum bootstrap_method { BOOTSTRAP_PERCENTILE, BOOTSTRAP_BCA, BOOTSTRAP_METHOD_COUNT };
enum bootstrap_stat { BOOTSTRAP_MEAN, BOOTSTRAP_MEDIAN, BOOTSTRAP_STAT_COUNT };

extern const char *const bootstrap_method_names[BOOTSTRAP_METHOD_COUNT + 1];
extern const char *const bootstrap_stat_names[BOOTSTRAP_STAT_COUNT + 1];

struct bootstrap_config
{
  enum bootstrap_method method;
  double confidence;            /* in (0, 1) */
  size_t resamples;
};

/* The statistic STAT of X[0..N), as the bootstrap computes it (the mean
   summed in long double; the median by selection on a copy).  */
double bootstrap_statistic (enum bootstrap_stat stat, const double *x, size_t n);

/* Interval for STAT of X[0..N) into *LOW, *HIGH, drawing from RNG.
   Returns false, leaving them NaN, when there is no interval to give:
   N < 2, no resamples, every resample giving the same value (all data
   equal), or a BCa correction that is not finite.  */
bool bootstrap_ci (const struct bootstrap_config *config, enum bootstrap_stat stat,
                   const double *x, size_t n, struct rng *rng,
                   double *low, double *high);

/* Interval for mean(NUM) / mean(DEN), resampling the two samples
   independently.  Same failure rules, each sample needing N >= 2.  */
bool bootstrap_ratio_ci (const struct bootstrap_config *config,
                         const double *num, size_t n_num,
                         const double *den, size_t n_den, struct rng *rng,
                         double *low, double *high);

#endif
