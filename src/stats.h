/* stats.h -- descriptive statistics over arrays of doubles.

   Conventions: the sample SD divides by n - 1; quantiles interpolate
   linearly between order statistics (Hyndman and Fan type 7, the default
   of numpy.percentile and R's quantile); the median of an even count is the
   mean of the middle two.  Functions that select rather than sort reorder
   their input, which is then a permutation of what it was.  */
#ifndef ARENABENCH_STATS_H
#define ARENABENCH_STATS_H

#include <stddef.h>

/* Mean by summing in long double; NaN when N is 0.  */
double stats_mean (const double *x, size_t n);

/* Sample standard deviation about MEAN, by the corrected two-pass
   algorithm in long double, so 1e9 + small noise keeps its digits.
   NaN when N < 2.  */
double stats_sd (const double *x, size_t n, double mean);

/* The K-th smallest of X[0..N) (K from 0), in expected O(N).  Afterwards
   X[K] holds it, everything before is <= and everything after is >=.  */
double stats_select (double *x, size_t n, size_t k);

/* The type-7 quantile of sorted or unsorted data for a P in [0, 1], given
   the two order statistics around (N-1)P: LO = x(floor), HI = x(floor+1).  */
double stats_lerp (double lo, double hi, double fraction);

/* Quantiles of X for the NP probabilities P (each in [0, 1], any order)
   into OUT, by successive selection: O(N * NP) at worst, no sort.
   Reorders X.  N must be > 0.  */
void stats_quantiles (double *x, size_t n, const double *p, size_t np,
                      double *out);

/* Median by selection; reorders X.  NaN when N is 0.  */
double stats_median (double *x, size_t n);

/* Quantile P of data already sorted ascending.  */
double stats_quantile_sorted (const double *sorted, size_t n, double p);

/* Sort ascending (NaN-free data).  */
void stats_sort (double *x, size_t n);

/* The power of 2 that brings the largest finite |X[i]| of X[0..N) near
   1 where it lies beyond 2^+-100 (1.3e30), else 0: values scaled by it
   square neither to infinity (1e200) nor to 0 (1e-200), and scale back
   exactly.  */
int stats_scale_exponent (const double *x, size_t n);

/* 1 - CONFIDENCE as the decimal the user wrote: 0.95 gives 0.05 exactly,
   not 0.050000000000000044, so a p printed as 0.05 and the level agree.
   The one place each test's and interval's alpha comes from.  */
double stats_alpha (double confidence);

#endif
