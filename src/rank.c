/* rank.c -- Mann-Whitney U and the Hodges-Lehmann shift. */
#include "system.h"
#include "rank.h"
#include "die.h"
#include "distributions.h"
#include "stats.h"

#include <math.h>

struct labelled
{
  double v;
  bool first;
};

static int
labelled_order (const void *a, const void *b)
{
  double x = ((const struct labelled *) a)->v, y = ((const struct labelled *) b)->v;
  return (x > y) - (x < y);
}

/* U of X against Y by midranks, and sum(t^3 - t) over tied runs.  */
static double
mann_whitney_u (const double *x, size_t m, const double *y, size_t n, double *ties)
{
  size_t total = m + n;
  struct labelled *all = xmalloc (total * sizeof *all);
  for (size_t i = 0; i < m; i++)
    all[i] = (struct labelled) { x[i], true };
  for (size_t j = 0; j < n; j++)
    all[m + j] = (struct labelled) { y[j], false };
  qsort (all, total, sizeof *all, labelled_order);
  double rank_sum = 0;
  *ties = 0;
  for (size_t i = 0; i < total;)
    {
      size_t k = i;
      while (k < total && all[k].v == all[i].v)
        k++;
      double t = (double) (k - i), midrank = (double) (i + k + 1) / 2;
      *ties += t * t * t - t;
      for (size_t j = i; j < k; j++)
        if (all[j].first)
          rank_sum += midrank;
      i = k;
    }
  free (all);
  return rank_sum - (double) m * (double) (m + 1) / 2;
}

/* P(U <= u) for u = 0 .. mn into CDF: the coefficients of the Gaussian
   binomial [m+n, m]_q, the counts of each U over the C(m+n, m) equally
   likely arrangements.  Dividing by (1 - q^i) first keeps every
   coefficient a positive count; long double holds them exactly for
   m + n <= RANK_EXACT_MAX.  */
static void
exact_cdf (size_t m, size_t n, double *cdf)
{
  size_t top = m * n;
  long double *c = xcalloc (top + 1, sizeof *c);
  c[0] = 1;
  for (size_t i = 1; i <= m; i++)
    {
      for (size_t u = i; u <= top; u++)
        c[u] += c[u - i];
      for (size_t u = top; u >= n + i; u--)
        c[u] -= c[u - n - i];
    }
  long double all = 0;
  for (size_t u = 0; u <= top; u++)
    all += c[u];
  long double sum = 0;
  for (size_t u = 0; u <= top; u++)
    {
      sum += c[u];
      cdf[u] = (double) (sum / all);
    }
  free (c);
}

/* The Hodges-Lehmann shift and its interval from order statistics K
   and MN+1-K (from 1) of the differences; K 0: no interval.  */
static void
shift_interval (const double *x, size_t m, const double *y, size_t n, size_t k,
                struct rank_test *r)
{
  size_t pairs = m * n;
  double *d = xmalloc (pairs * sizeof *d);
  for (size_t i = 0; i < m; i++)
    for (size_t j = 0; j < n; j++)
      d[i * n + j] = x[i] - y[j];
  r->shift = stats_median (d, pairs);
  if (k == 0)
    r->shift_why = "too few values for a distribution-free interval of the shift";
  else
    {
      r->shift_low = stats_select (d, pairs, k - 1);
      r->shift_high = stats_select (d, pairs, pairs - k);
    }
  free (d);
}

void
rank_test (const double *x, size_t m, const double *y, size_t n, double confidence,
           struct rank_test *r)
{
  *r = (struct rank_test) { NAN, NAN, NAN, NAN, NAN, false, NULL, NULL };
  if (m == 0 || n == 0)
    {
      r->why = r->shift_why = "no values on a side";
      return;
    }
  double ties;
  r->u = mann_whitney_u (x, m, y, n, &ties);
  double mn = (double) m * (double) n, total = (double) (m + n);
  double alpha = (1 - confidence) / 2;
  size_t k = 0;
  r->exact = ties == 0 && m + n <= RANK_EXACT_MAX;
  if (r->exact)
    {
      double *cdf = xmalloc ((m * n + 1) * sizeof *cdf);
      exact_cdf (m, n, cdf);
      size_t u = (size_t) r->u;
      /* The distribution is symmetric: P(U >= u) = P(U <= mn - u).  */
      double lower = cdf[u], upper = cdf[m * n - u];
      r->p = fmin (1, 2 * fmin (lower, upper));
      while (k < m * n && cdf[k] <= alpha)
        k++;
      free (cdf);
    }
  else
    {
      double var = mn / 12 * ((total + 1) - ties / (total * (total - 1)));
      if (!(var > 0))
        {
          r->why = r->shift_why = "all values equal on both sides";
          return;
        }
      double z = (fabs (r->u - mn / 2) - 0.5) / sqrt (var);
      r->p = z > 0 ? fmin (1, erfc (z * M_SQRT1_2)) : 1;
      double kk = floor (mn / 2 - dist_normal_quantile (1 - alpha)
                         * sqrt (mn * (total + 1) / 12));
      k = kk >= 1 ? (size_t) kk : 0;
    }
  if (mn > RANK_PAIRS_MAX)
    r->shift_why = "more than 10^7 pairs of values";
  else
    shift_interval (x, m, y, n, k, r);
}
