/* rank.h -- the Wilcoxon-Mann-Whitney rank-sum test and the
   Hodges-Lehmann shift with its distribution-free interval.

   U counts the pairs (x_i, y_j) with x_i > y_j, ties a half.  Without
   ties and with m + n <= RANK_EXACT_MAX, U's exact null distribution
   gives p = min(1, 2 min(P(U <= u), P(U >= u))); otherwise the normal
   approximation with the tie correction and a continuity correction of
   1/2 (scipy.stats.mannwhitneyu's defaults for method "asymptotic"),
   except with ties and few values, where p is the exact permutation p
   given the ties (as scipy.stats.permutation_test finds it).

   The shift is the median of the m n differences x_i - y_j; its
   interval is [D(k), D(mn+1-k)] of the sorted differences, with the
   largest k whose null probability P(U <= k-1) is at most (1-C)/2
   (exact), or k = floor(mn/2 - z sqrt(mn(m+n+1)/12)) (normal).  With
   ties it is the set of shifts d the same test of x - d against y does
   not reject, so it holds 0 exactly when p is not below 1 - C; an end
   the test rejects, with the shifts just inside accepted, is open.  */
#ifndef ARENABENCH_RANK_H
#define ARENABENCH_RANK_H

#include <stdbool.h>
#include <stddef.h>

enum { RANK_EXACT_MAX = 50 };
/* With ties, p is exact given them (every split of the midranks) where
   the splits number at most this (11 and 11 values); beyond, normal.  */
#define RANK_TIED_SPLITS_MAX 705432.0
/* More differences than this are not formed: no shift then.  */
#define RANK_PAIRS_MAX 10000000.0

struct rank_test
{
  double u, p;
  double shift, shift_low, shift_high;
  bool exact;
  bool tied;                    /* exact given the ties */
  bool low_open, high_open;     /* an end the test rejects (ties) */
  const char *why;              /* no test, or NULL */
  const char *shift_why;        /* no shift interval, or NULL */
};

/* Test X[0..M) against Y[0..N) at CONFIDENCE into *R.  */
void rank_test (const double *x, size_t m, const double *y, size_t n, double confidence,
                struct rank_test *r);

#endif
