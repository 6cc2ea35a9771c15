/* stats.c -- descriptive statistics: stable moments, selection, quantiles. */
#include "system.h"
#include "stats.h"

#include <math.h>

double
stats_mean (const double *x, size_t n)
{
  if (n == 0)
    return NAN;
  long double sum = 0;
  for (size_t i = 0; i < n; i++)
    sum += x[i];
  return (double) (sum / n);
}

double
stats_sd (const double *x, size_t n, double mean)
{
  if (n < 2)
    return NAN;
  /* Corrected two-pass (Chan, Golub and LeVeque): the second sum removes
     the error left in MEAN itself.  */
  long double squares = 0, deviations = 0;
  for (size_t i = 0; i < n; i++)
    {
      long double d = (long double) x[i] - mean;
      squares += d * d;
      deviations += d;
    }
  long double variance = (squares - deviations * deviations / n) / (n - 1);
  if (variance < 0)
    variance = 0;
  return (double) sqrtl (variance);
}

static inline void
swap (double *a, double *b)
{
  double t = *a;
  *a = *b;
  *b = t;
}

double
stats_select (double *x, size_t n, size_t k)
{
  /* Quickselect with median-of-three pivots and a three-way partition,
     so runs of equal values (common in timings) cost O(N), not O(N^2).  */
  size_t left = 0, right = n - 1;
  while (left < right)
    {
      size_t mid = left + (right - left) / 2;
      if (x[mid] < x[left])
        swap (&x[mid], &x[left]);
      if (x[right] < x[left])
        swap (&x[right], &x[left]);
      if (x[right] < x[mid])
        swap (&x[right], &x[mid]);
      double pivot = x[mid];
      /* Dutch national flag: [left,lt) < pivot, [lt,i) == pivot,
         (gt,right] > pivot.  */
      size_t lt = left, i = left, gt = right;
      while (i <= gt)
        {
          if (x[i] < pivot)
            swap (&x[i++], &x[lt++]);
          else if (x[i] > pivot)
            {
              swap (&x[i], &x[gt]);
              if (gt == 0)
                break;
              gt--;
            }
          else
            i++;
        }
      if (k < lt)
        right = lt - 1;
      else if (k > gt)
        left = gt + 1;
      else
        return x[k];
    }
  return x[k];
}

double
stats_lerp (double lo, double hi, double fraction)
{
  /* numpy's form: exact at both ends and monotone in FRACTION.  */
  double diff = hi - lo;
  if (isinf (diff) && isfinite (lo) && isfinite (hi))
    {
      /* Ends more than DBL_MAX apart: step by half the distance instead. */
      double half = hi / 2 - lo / 2;
      return fraction < 0.5 ? lo + half * (2 * fraction) : hi - half * (2 * (1 - fraction));
    }
  return fraction < 0.5 ? lo + diff * fraction : hi - diff * (1 - fraction);
}

static double
minimum (const double *x, size_t n)
{
  double m = x[0];
  for (size_t i = 1; i < n; i++)
    if (x[i] < m)
      m = x[i];
  return m;
}

struct probability
{
  double p;
  size_t index;
};

static int
probability_compare (const void *a, const void *b)
{
  double pa = ((const struct probability *) a)->p;
  double pb = ((const struct probability *) b)->p;
  return (pa > pb) - (pa < pb);
}

void
stats_quantiles (double *x, size_t n, const double *p, size_t np, double *out)
{
  struct probability order[np ? np : 1];
  for (size_t i = 0; i < np; i++)
    order[i] = (struct probability) { p[i], i };
  qsort (order, np, sizeof *order, probability_compare);

  /* After selecting rank K, X[K..N) holds the N-K largest values, so each
     larger probability selects within what is left.  */
  size_t base = 0;
  for (size_t i = 0; i < np; i++)
    {
      double h = (double) (n - 1) * order[i].p;
      size_t k = (size_t) floor (h);
      if (k >= n - 1)
        k = n - 1;
      double fraction = h - (double) k;
      double lo = stats_select (x + base, n - base, k - base);
      base = k;
      double hi = k + 1 < n && fraction > 0 ? minimum (x + k + 1, n - k - 1) : lo;
      out[order[i].index] = fraction > 0 ? stats_lerp (lo, hi, fraction) : lo;
    }
}

double
stats_median (double *x, size_t n)
{
  if (n == 0)
    return NAN;
  size_t k = (n - 1) / 2;
  double lo = stats_select (x, n, k);
  if (n % 2)
    return lo;
  double hi = minimum (x + k + 1, n - k - 1);
  /* As numpy.median: the mean of the middle two.  */
  double m = (lo + hi) / 2;
  return isfinite (m) ? m : lo / 2 + hi / 2;
}

double
stats_quantile_sorted (const double *sorted, size_t n, double p)
{
  double h = (double) (n - 1) * p;
  size_t k = (size_t) floor (h);
  if (k >= n - 1)
    return sorted[n - 1];
  double fraction = h - (double) k;
  return fraction > 0 ? stats_lerp (sorted[k], sorted[k + 1], fraction) : sorted[k];
}

static int
double_compare (const void *a, const void *b)
{
  double da = *(const double *) a, db = *(const double *) b;
  return (da > db) - (da < db);
}

void
stats_sort (double *x, size_t n)
{
  qsort (x, n, sizeof *x, double_compare);
}

double
stats_alpha (double confidence)
{
  char text[32];
  snprintf (text, sizeof text, "%.15g", 1 - confidence);
  return strtod (text, NULL);
}

int
stats_scale_exponent (const double *x, size_t n)
{
  double top = 0;
  for (size_t i = 0; i < n; i++)
    if (isfinite (x[i]))
      top = fmax (top, fabs (x[i]));
  int e = 0;
  if (top > 0)
    frexp (top, &e);
  return e > -100 && e < 100 ? 0 : e;
}
