/* intervals.h -- confidence intervals given by formulas: Student's t for
   a mean, order statistics for a median (distribution-free), Welch's t
   for a difference of means and Fieller's theorem for their ratio.

   Each returns NULL with *LOW and *HIGH set, or a short reason why there
   is no interval (both then NaN).  CONFIDENCE is in (0, 1).  */
#ifndef ARENABENCH_INTERVALS_H
#define ARENABENCH_INTERVALS_H

#include <stdbool.h>
#include <stddef.h>

/* Mean +- t(df = n-1, (1+C)/2) * SD / sqrt(N).  */
const char *interval_t_mean (double mean, double sd, size_t n, double confidence,
                             double *low, double *high);

/* The same on the log scale, for positive data: the delta method's
   standard error of log(mean), SD / (MEAN sqrt(N)), gives
   MEAN * exp(-+ t * SD / (MEAN sqrt(N))), an interval of the mean that
   is never negative and is wider above than below.  */
const char *interval_log_t_mean (double mean, double sd, size_t n, double confidence,
                                 double *low, double *high);

/* [x(j), x(n+1-j)] of SORTED data, with the largest J whose coverage
   1 - 2 P(B <= j-1), B ~ Binomial(N, 1/2), is at least CONFIDENCE.  None
   exists when N < 1 - log2(1 - CONFIDENCE) (N <= 5 at 95%).  *COVERAGE
   gets the exact coverage of the interval given.  */
const char *interval_median_order (const double *sorted, size_t n, double confidence,
                                   double *low, double *high, double *coverage);

/* The rank J (from 1) of that interval's lower end, and its coverage;
   the upper end is rank N+1-J.  */
const char *interval_median_rank (size_t n, double confidence, size_t *j,
                                  double *coverage);

/* The smallest N for which interval_median_order gives an interval.  */
size_t interval_median_min_n (double confidence);

/* Welch's comparison of two independent samples (1 the group, 2 the
   base): the difference of means MEAN1 - MEAN2 with its interval, and
   the t statistic, Welch-Satterthwaite degrees of freedom and two-sided
   p-value into *T, *DF and *P.  */
struct welch
{
  double diff, diff_low, diff_high;
  double t, df, p;
  double ratio, ratio_low, ratio_high;  /* Fieller, same t quantile */
  double pct, pct_low, pct_high;        /* the ratio less 1, in percent */
  double ratio_p;                       /* the p of the ratio's own test */
  const char *diff_why, *ratio_why;
  double mean1, mean2, v1, v2;          /* the means and squared SEs */
  int scale;                            /* v1 and v2 are of the data / 2^scale */
  double df1, df2;                      /* n1 - 1 and n2 - 1 */
};

/* Fills W.  The ratio MEAN1 / MEAN2 has Fieller's interval, solved with
   the quantile of Welch's test, so it excludes 1 exactly when the test's
   p is below 1 - CONFIDENCE.  When the base mean is not clearly away
   from 0 at that level the set is unbounded, and the interval empty.
   Means and SDs near the ends of the double range (1e200, 1e-200) are
   scaled first, so squares neither overflow nor underflow.  */
void interval_welch (double mean1, double sd1, size_t n1,
                     double mean2, double sd2, size_t n2,
                     double confidence, struct welch *w);

/* --log-scale: the ratio of W becomes the ratio of the geometric means
   of X[0..N1) and Y[0..N2) (every value positive), exp(mean log x -
   mean log y), with Welch's interval and p of the mean logarithms
   exponentiated, so it is positive; RATIO_P is that test's p.  The
   difference of means and its p are left as they are.  */
void interval_welch_log (struct welch *w, const double *x, size_t n1, const double *y,
                         size_t n2, double confidence);

/* A paired comparison of X[i] with Y[i], i < N: the mean difference
   with Student's t interval (N-1 df) and its two-sided p, and the
   geometric mean of the ratios X[i]/Y[i] with the t interval of their
   logarithms, exponentiated (every value positive).  */
struct paired
{
  double pairs;                 /* a count, as a double: empty where unknown */
  double diff, diff_low, diff_high, p;
  double ratio, ratio_low, ratio_high;
  double ratio_p;               /* the t test of the mean log ratio */
  const char *diff_why, *ratio_why;
};
void interval_paired (const double *x, const double *y, size_t n, double confidence,
                      struct paired *p);

#endif
