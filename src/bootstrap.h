/* bootstrap.h -- bootstrap confidence intervals.

   Percentile intervals take the type-7 quantiles (1-c)/2 and (1+c)/2 of
   the resampled statistic.  BCa intervals (Efron 1987, "Better bootstrap
   confidence intervals") shift those levels by the bias correction z0,
   from the share of resampled statistics below the observed one (ties
   count half), and the acceleration a, from the skewness of the
   jackknife values; with several samples the jackknife runs over each in
   turn, as scipy.stats.bootstrap does.  Bootstrap-t (boot-t, for the
   mean) takes the quantiles of (mean* - mean) / se* over the resamples
   and turns them around the observed mean (Efron and Tibshirani 1993,
   ch. 12).  */
#ifndef ARENABENCH_BOOTSTRAP_H
#define ARENABENCH_BOOTSTRAP_H

#include <stdbool.h>
#include <stddef.h>

#include "rng.h"

enum bootstrap_method
{ BOOTSTRAP_PERCENTILE, BOOTSTRAP_BCA, BOOTSTRAP_STUDENT, BOOTSTRAP_METHOD_COUNT };
enum bootstrap_stat { BOOTSTRAP_MEAN, BOOTSTRAP_MEDIAN };

extern const char *const bootstrap_method_names[BOOTSTRAP_METHOD_COUNT + 1];

/* Bootstrap-t refuses data whose SD is at most this share of their
   largest magnitude: a spread of rounding (a few units in the last
   place), not of measurement.  */
#define BOOTSTRAP_SPREAD_EPSILON 1e-13

struct bootstrap_config
{
  enum bootstrap_method method;
  double confidence;            /* in (0, 1) */
  size_t resamples;
  /* BOOTSTRAP_STUDENT only: studentize log(mean*) by the delta method's
     se* / mean* and turn the interval back by exp, so it stays positive
     (positive data only).  */
  bool log_scale;
  /* Called now and then with the resamples done so far, or NULL.  */
  void (*progress) (size_t done, size_t total);
};

/* The statistic STAT of X[0..N), as the bootstrap computes it (the mean
   summed in long double; the median by selection on a copy).  */
double bootstrap_statistic (enum bootstrap_stat stat, const double *x, size_t n);

/* Interval for STAT of X[0..N) into *LOW, *HIGH, drawing from RNG.
   Returns NULL, or the reason there is no interval (leaving them NaN):
   N < 2, no resamples, every resample giving the same value (all data
   equal), a degenerate jackknife or a BCa correction that is not
   finite; for BOOTSTRAP_STUDENT also values that differ only by rounding,
   or so few distinct values that more than a tail's share of resamples
   have no spread.  BOOTSTRAP_STUDENT is for the mean only.  */
const char *bootstrap_ci (const struct bootstrap_config *config, enum bootstrap_stat stat,
                          const double *x, size_t n, struct rng *rng,
                          double *low, double *high);

#endif
