/* bootstrap.c -- percentile, BCa and bootstrap-t intervals. */
#include "system.h"
#include "bootstrap.h"
#include "die.h"
#include "distributions.h"
#include "stats.h"

#include <float.h>
#include <math.h>

const char *const bootstrap_method_names[BOOTSTRAP_METHOD_COUNT + 1] = {
  "percentile", "bca", "boot-t", NULL
};

double
bootstrap_statistic (enum bootstrap_stat stat, const double *x, size_t n)
{
  if (stat == BOOTSTRAP_MEAN)
    return stats_mean (x, n);
  double *copy = xmalloc (n * sizeof *copy);
  memcpy (copy, x, n * sizeof *copy);
  double m = stats_median (copy, n);
  free (copy);
  return m;
}

/* One resample of X into SCRATCH (for the median) and its statistic.  */
static double
resample_statistic (enum bootstrap_stat stat, const double *x, size_t n,
                    double *scratch, struct rng *rng)
{
  if (stat == BOOTSTRAP_MEAN)
    {
      long double sum = 0;
      for (size_t i = 0; i < n; i++)
        sum += x[rng_below (rng, n)];
      return (double) (sum / n);
    }
  for (size_t i = 0; i < n; i++)
    scratch[i] = x[rng_below (rng, n)];
  return stats_median (scratch, n);
}

/* Leave-one-out values of STAT into JACK[0..N).  The mean needs the sum;
   the median needs only the three order statistics around the middle,
   since dropping a value at or below x(k) moves rank k up by one.  */
static void
jackknife (enum bootstrap_stat stat, const double *x, size_t n, double *jack)
{
  if (stat == BOOTSTRAP_MEAN)
    {
      long double sum = 0;
      for (size_t i = 0; i < n; i++)
        sum += x[i];
      for (size_t i = 0; i < n; i++)
        jack[i] = (double) ((sum - x[i]) / (n - 1));
      return;
    }
  /* Median of the N-1 remaining: ranks K1 and K2 of the remaining data.  */
  size_t m = n - 1, k1 = (m - 1) / 2, k2 = m / 2;
  double *copy = xmalloc (n * sizeof *copy);
  memcpy (copy, x, n * sizeof *copy);
  double s[3];
  s[0] = stats_select (copy, n, k1);
  size_t have = 1;
  for (size_t r = k1 + 1; r < n && have < 3; r++, have++)
    s[have] = stats_select (copy + r, n - r, 0);
  for (; have < 3; have++)
    s[have] = s[have - 1];
  for (size_t i = 0; i < n; i++)
    {
      double v = x[i];
      double a = v <= s[0] ? s[1] : s[0];
      double b = v <= s[k2 - k1] ? s[k2 - k1 + 1] : s[k2 - k1];
      jack[i] = k1 == k2 ? a : (a + b) / 2;
    }
  free (copy);
}

/* Sum of cubed and squared jackknife deviations, scaled by 1/n^3 and
   1/n^2, so several samples can be pooled into one acceleration.  */
static void
jackknife_moments (const double *jack, size_t n, double *cubes, double *squares)
{
  long double mean = 0;
  for (size_t i = 0; i < n; i++)
    mean += jack[i];
  mean /= n;
  long double s2 = 0, s3 = 0;
  for (size_t i = 0; i < n; i++)
    {
      long double u = (n - 1) * (mean - jack[i]);
      s2 += u * u;
      s3 += u * u * u;
    }
  *cubes += (double) (s3 / ((long double) n * n * n));
  *squares += (double) (s2 / ((long double) n * n));
}

/* Turn the sorted replicates into an interval.  ACCELERATION is used only
   for BCa.  */
static const char *
interval (const struct bootstrap_config *config, double *reps, size_t b,
          double observed, double acceleration, double *low, double *high)
{
  stats_sort (reps, b);
  if (!(reps[0] < reps[b - 1]))
    return "every resample gives the same value";
  double alpha = stats_alpha (config->confidence) / 2;
  double p_low = alpha, p_high = 1 - alpha;
  if (config->method == BOOTSTRAP_BCA)
    {
      size_t below = 0, equal = 0;
      for (size_t i = 0; i < b; i++)
        {
          below += reps[i] < observed;
          equal += reps[i] == observed;
        }
      double z0 = dist_normal_quantile ((below + equal / 2.0) / (double) b);
      double zl = dist_normal_quantile (p_low), zh = dist_normal_quantile (p_high);
      double a = acceleration;
      p_low = dist_normal_cdf (z0 + (z0 + zl) / (1 - a * (z0 + zl)));
      p_high = dist_normal_cdf (z0 + (z0 + zh) / (1 - a * (z0 + zh)));
      if (!isfinite (z0) || !(p_low >= 0 && p_low <= 1) || !(p_high >= 0 && p_high <= 1))
        return "the BCa correction is not finite";
    }
  *low = stats_quantile_sorted (reps, b, p_low);
  *high = stats_quantile_sorted (reps, b, p_high);
  return isfinite (*low) && isfinite (*high) ? NULL : "the interval is not finite";
}

/* The acceleration, or NaN for a degenerate jackknife (every
   leave-one-out value the same), where BCa is undefined.  */
static double
acceleration (double cubes, double squares)
{
  return squares > 0 ? cubes / (6 * pow (squares, 1.5)) : NAN;
}

/* Bootstrap-t for the mean: the quantiles of the studentized resamples
   (mean* - mean) / se* turned around the observed mean.  */
static const char *
studentized (const struct bootstrap_config *config, const double *x, size_t n,
             struct rng *rng, double *low, double *high)
{
  size_t b = config->resamples;
  double mean = stats_mean (x, n);
  double se = stats_sd (x, n, mean) / sqrt ((double) n);
  if (!(se > 0))
    return "all values equal";
  /* An SD within rounding of the values (a few units in the last place)
     is no spread to studentize by.  */
  double size = 0;
  for (size_t i = 0; i < n; i++)
    size = fmax (size, fabs (x[i]));
  if (se * sqrt ((double) n) <= BOOTSTRAP_SPREAD_EPSILON * size)
    return "the values differ only by rounding (their SD is below 1e-13 of their size)";
  double *reps = xmalloc (b * sizeof *reps);
  /* Deviations from the sample mean keep the sums small, so doubles hold
     them to about 1e-12 relative at a million values, far below the
     resampling error, at a third of the time of long double sums.  */
  double *dev = xmalloc (n * sizeof *dev);
  for (size_t i = 0; i < n; i++)
    dev[i] = x[i] - mean;
  size_t flat = 0;
  for (size_t r = 0; r < b; r++)
    {
      if (config->progress && r % 1024 == 0)
        config->progress (r, b);
      double s1 = 0, s2 = 0;
      for (size_t i = 0; i < n; i++)
        {
          double d = dev[rng_below (rng, n)];
          s1 += d;
          s2 += d * d;
        }
      double var = (s2 - s1 * s1 / (double) n) / (double) (n - 1);
      /* A resample of one value repeated leaves a variance of rounding
         (s2 - s1^2/n cancels to about n ulps of s2), not 0: its se* is
         1e-8 of the data's and t* ran to 1e7, and the interval with it.
         Below that bound a resample has no spread.  */
      if (!(var * (double) (n - 1) > 64 * (double) n * DBL_EPSILON * s2))
        var = 0;
      double shift = s1 / (double) n;
      flat += !(var > 0) && shift != 0;
      double se_r = var > 0 ? sqrt (var / (double) n) : 0;
      if (config->log_scale)
        {
          /* log(mean*) - log(mean), over the delta method's se* / mean*. */
          double m_r = mean + shift;
          shift = log1p (shift / mean);
          se_r /= m_r;
        }
      reps[r] = se_r > 0 ? shift / se_r : shift > 0 ? INFINITY : shift < 0 ? -INFINITY : 0;
    }
  free (dev);
  double alpha = stats_alpha (config->confidence) / 2;
  /* Resamples without spread away from the mean have t* of +-inf: past
     a tail's share they decide that end, which is then no number at all
     (an interval ending at the mean, or infinitely far).  */
  if ((double) flat >= alpha * (double) b)
    {
      free (reps);
      return "too many resamples without spread: the values are nearly all equal "
        "(bootstrap-t needs more distinct values; use --ci t)";
    }
  stats_sort (reps, b);
  double t_low = stats_quantile_sorted (reps, b, alpha);
  double t_high = stats_quantile_sorted (reps, b, 1 - alpha);
  free (reps);
  if (config->log_scale)
    {
      *low = mean * exp (-t_high * se / mean);
      *high = mean * exp (-t_low * se / mean);
    }
  else
    {
      *low = mean - t_high * se;
      *high = mean - t_low * se;
    }
  if (!isfinite (*low) || !isfinite (*high))
    return "too many resamples without spread";
  return NULL;
}

static const char *bootstrap_scaled (const struct bootstrap_config *config,
                                     enum bootstrap_stat stat, const double *x, size_t n,
                                     struct rng *rng, double *low, double *high);

const char *
bootstrap_ci (const struct bootstrap_config *config, enum bootstrap_stat stat,
              const double *x, size_t n, struct rng *rng,
              double *low, double *high)
{
  /* Values near 1e200 or 1e-200 by a power of 2 near 1 first: squared
     deviations overflowed to "resamples without spread".  */
  int e = stats_scale_exponent (x, n);
  if (e == 0)
    return bootstrap_scaled (config, stat, x, n, rng, low, high);
  double *scaled = xmalloc ((n + 1) * sizeof *scaled);
  for (size_t i = 0; i < n; i++)
    scaled[i] = ldexp (x[i], -e);
  const char *why = bootstrap_scaled (config, stat, scaled, n, rng, low, high);
  free (scaled);
  *low = ldexp (*low, e);
  *high = ldexp (*high, e);
  if (!why && (!isfinite (*low) || !isfinite (*high)))
    {
      *low = *high = NAN;
      return "the interval overflows a double";
    }
  return why;
}

static const char *
bootstrap_scaled (const struct bootstrap_config *config, enum bootstrap_stat stat,
                  const double *x, size_t n, struct rng *rng, double *low, double *high)
{
  *low = *high = NAN;
  if (n < 2)
    return "fewer than 2 values";
  if (config->resamples == 0)
    return "no resamples";
  if (config->method == BOOTSTRAP_STUDENT)
    {
      const char *why = studentized (config, x, n, rng, low, high);
      if (why)
        *low = *high = NAN;
      return why;
    }
  size_t b = config->resamples;
  double *reps = xmalloc (b * sizeof *reps);
  double *scratch = xmalloc (n * sizeof *scratch);
  for (size_t r = 0; r < b; r++)
    {
      if (config->progress && r % 1024 == 0)
        config->progress (r, b);
      reps[r] = resample_statistic (stat, x, n, scratch, rng);
    }

  double a = 0;
  if (config->method == BOOTSTRAP_BCA)
    {
      double cubes = 0, squares = 0;
      jackknife (stat, x, n, scratch);
      jackknife_moments (scratch, n, &cubes, &squares);
      a = acceleration (cubes, squares);
    }
  const char *why = isnan (a) ? "the jackknife is degenerate (BCa undefined)"
    : interval (config, reps, b, bootstrap_statistic (stat, x, n), a, low, high);
  if (why)
    *low = *high = NAN;
  free (scratch);
  free (reps);
  return why;
}
