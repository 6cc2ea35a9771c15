/* Unit tests of stats, distributions, intervals and bootstrap against
   reference values.  The special-function references were computed with
   mpmath at 40 digits (betainc, erfc, and quadrature of the t density),
   and with scipy into tests/data/reference/distributions.csv (see
   make-reference.py there); the descriptive ones are worked by hand in
   the comments.  */
#include "system.h"
#include "bootstrap.h"
#include "distributions.h"
#include "intervals.h"
#include "rng.h"
#include "stats.h"
#include "tap.h"

#include <math.h>

/* Relative tolerance, for values far from 1.  */
static void
is_relative (double got, double want, double rel, const char *name)
{
  is_double (got, want, fabs (want) * rel, name);
}

static void
test_normal (void)
{
  static const struct { double p, z; } quantiles[] = {
    { 0.975, 1.9599639845400538556 },
    { 0.5, 0 },
    { 0.025, -1.9599639845400542118 },
    { 0.3, -0.52440051270804081597 },
    { 0.02425, -1.9729610513118848376 },
    { 1e-10, -6.3613409024040561991 },       /* tail, r <= 5 */
    { 0.999999, 4.7534243088170877657 },
    { 1e-300, -37.047096299361199237 },       /* far tail, r > 5 */
  };
  for (size_t i = 0; i < ARRAY_SIZE (quantiles); i++)
    {
      char name[64];
      snprintf (name, sizeof name, "normal quantile of %g", quantiles[i].p);
      is_double (dist_normal_quantile (quantiles[i].p), quantiles[i].z,
                 4e-16 * fmax (1, fabs (quantiles[i].z)), name);
    }
  ok (isinf (dist_normal_quantile (0)) && dist_normal_quantile (0) < 0,
      "normal quantile of 0 is -inf");
  ok (isnan (dist_normal_quantile (1.5)), "normal quantile of 1.5 is NaN");

  is_double (dist_normal_cdf (-1.96), 0.024997895148220434137, 1e-17, "normal cdf -1.96");
  is_double (dist_normal_cdf (0), 0.5, 0, "normal cdf 0");
  is_double (dist_normal_cdf (3), 0.99865010196836990547, 2e-16, "normal cdf 3");
  is_relative (dist_normal_cdf (-10), 7.619853024160526066e-24, 1e-14, "normal cdf -10");
  is_double (dist_normal_cdf (dist_normal_quantile (0.8)), 0.8, 2e-16, "cdf(quantile(0.8))");
}

static void
test_beta_and_t (void)
{
  is_double (dist_incomplete_beta (2, 3, 0.4), 0.5248, 1e-15, "I_0.4(2, 3)");
  is_double (dist_incomplete_beta (0.5, 5, 0.2), 0.85507239459591959242, 1e-15, "I_0.2(0.5, 5)");
  is_double (dist_incomplete_beta (10, 0.5, 0.9), 0.15164090963470996856, 1e-14, "I_0.9(10, 0.5)");
  is_double (dist_incomplete_beta (30, 40, 0.45), 0.64474800855856811281, 5e-14, "I_0.45(30, 40)");
  is_double (dist_incomplete_beta (0.5, 0.5, 0.01), 0.063768560858519848583, 1e-15, "I_0.01(0.5, 0.5)");
  /* I_x(1, b) = 1 - (1 - x)^b.  */
  is_double (dist_incomplete_beta (1, 3, 0.3), 1 - 0.7 * 0.7 * 0.7, 1e-15, "I_0.3(1, 3)");

  is_double (dist_t_cdf (2.0, 10), 0.96330598261462981719, 1e-15, "t cdf 2, df 10");
  is_double (dist_t_cdf (-1.5, 3.7), 0.1067990846010067653, 1e-15, "t cdf -1.5, df 3.7");
  is_double (dist_t_cdf (12.706204736174707, 1), 0.97500000000000000379, 1e-15,
             "t cdf at the 97.5% point, df 1 (Cauchy)");
  /* df 2: F(t) = 1/2 + t / (2 sqrt(2 + t^2)); at 0.5, 2/3.  */
  is_double (dist_t_cdf (0.5, 2), 2.0 / 3, 1e-15, "t cdf 0.5, df 2");
  is_relative (dist_t_cdf (-40, 5), 9.2059810858864771776e-8, 1e-12, "t cdf -40, df 5 (tail)");
  is_double (dist_t_cdf (1.0, 250.5), 0.84086225290236927715, 1e-14, "t cdf 1, df 250.5");
  is_double (dist_t_two_sided_p (3.0, 7.3), 0.018980551023133506311, 1e-15, "two-sided p, t 3, df 7.3");
  is_double (dist_t_two_sided_p (0, 4), 1, 0, "two-sided p of t = 0 is 1");

  /* Welch: {1..5} against {2,4,...,12}: t = -2.3763541, df = 6.9722557.  */
  double a[] = { 1, 2, 3, 4, 5 }, b[] = { 2, 4, 6, 8, 10, 12 };
  double ma = stats_mean (a, 5), mb = stats_mean (b, 6);
  struct welch w;
  interval_welch (ma, stats_sd (a, 5, ma), 5, mb, stats_sd (b, 6, mb), 6, 0.95, &w);
  is_double (w.p, 0.049284338206730520766, 1e-14, "Welch p-value");
  interval_welch (1, 0, 3, 1, 0, 3, 0.95, &w);
  ok (isnan (w.p) && w.diff_why, "Welch p-value of two constant samples is NaN");
}

static void
test_moments (void)
{
  /* Mean 5, squared deviations sum to 32: sd = sqrt(32/7).  */
  double x[] = { 2, 4, 4, 4, 5, 5, 7, 9 };
  double m = stats_mean (x, 8);
  is_double (m, 5, 0, "mean of 2,4,4,4,5,5,7,9");
  is_double (stats_sd (x, 8, m), sqrt (32.0 / 7), 1e-15, "sd of 2,4,4,4,5,5,7,9");

  /* 1e15 + {4, 7, 13, 16}: deviations -6,-3,3,6 so sd = sqrt(90/3);
     a one-pass sum of squares (1e30) would lose all of it.  */
  double big[] = { 1e15 + 4, 1e15 + 7, 1e15 + 13, 1e15 + 16 };
  m = stats_mean (big, 4);
  is_double (m, 1e15 + 10, 0, "mean with offset 1e15");
  is_double (stats_sd (big, 4, m), sqrt (30), 1e-15, "sd with offset 1e15");
  double nine[] = { 1e9 + 0.5, 1e9 + 1.5, 1e9 + 2.5 };
  m = stats_mean (nine, 3);
  is_double (stats_sd (nine, 3, m), 1, 1e-15, "sd of 1e9 + 0.5, 1.5, 2.5");
  ok (isnan (stats_sd (x, 1, x[0])), "sd of one value is NaN");
  ok (isnan (stats_mean (x, 0)), "mean of nothing is NaN");
}

static void
test_quantiles (void)
{
  double even[] = { 4, 1, 3, 2 };
  is_double (stats_median (even, 4), 2.5, 0, "median of 4 values is the mean of the middle two");
  double odd[] = { 3, 1, 2 };
  is_double (stats_median (odd, 3), 2, 0, "median of 3 values");
  double one[] = { 7 };
  is_double (stats_median (one, 1), 7, 0, "median of one value");

  /* numpy.percentile([15, 20, 35, 40, 50], [0, 40, 50, 100]).  */
  double y[] = { 50, 20, 40, 15, 35 };
  double p[] = { 0.4, 1, 0, 0.5 }, q[4];
  stats_quantiles (y, 5, p, 4, q);
  is_double (q[0], 29, 1e-15, "40th percentile interpolates: 20 + 0.6 * 15");
  is_double (q[1], 50, 0, "100th percentile is the max");
  is_double (q[2], 15, 0, "0th percentile is the min");
  is_double (q[3], 35, 0, "50th percentile of odd count");

  double ten[10];
  for (int i = 0; i < 10; i++)
    ten[9 - i] = i + 1;
  double p5[] = { 0.05, 0.95 }, q5[2];
  stats_quantiles (ten, 10, p5, 2, q5);
  is_double (q5[0], 1.45, 1e-15, "5th percentile of 1..10 is 1.45");
  is_double (q5[1], 9.55, 1e-14, "95th percentile of 1..10 is 9.55");
  double sorted[] = { 1, 2, 3, 4 };
  is_double (stats_quantile_sorted (sorted, 4, 0.25), 1.75, 0, "quantile 0.25 of sorted 1..4");

  /* Selection agrees with sorting, duplicates included.  */
  struct rng rng;
  rng_seed (&rng, 42);
  enum { N = 1001 };
  static double data[N], copy[N];
  for (int i = 0; i < N; i++)
    data[i] = (double) rng_below (&rng, 50);
  memcpy (copy, data, sizeof data);
  stats_sort (copy, N);
  bool same = true;
  for (size_t k = 0; k < N; k += 37)
    {
      double work[N];
      memcpy (work, data, sizeof data);
      same &= stats_select (work, N, k) == copy[k];
    }
  ok (same, "selection of every 37th rank matches sorting (with ties)");
  double probs[] = { 0.999, 0.001, 0.5, 0.25, 0.75, 0.123 }, got[6];
  double work[N];
  memcpy (work, data, sizeof data);
  stats_quantiles (work, N, probs, 6, got);
  same = true;
  for (int i = 0; i < 6; i++)
    same &= got[i] == stats_quantile_sorted (copy, N, probs[i]);
  ok (same, "stats_quantiles matches quantiles of the sorted data");
}

static double
normal (struct rng *rng)
{
  /* Box-Muller; 1 - u keeps the logarithm finite.  */
  double u = 1 - rng_uniform (rng), v = rng_uniform (rng);
  return sqrt (-2 * log (u)) * cos (2 * M_PI * v);
}

static void
test_bootstrap (void)
{
  struct rng rng;
  double low, high;
  struct bootstrap_config pct =
    { .method = BOOTSTRAP_PERCENTILE, .confidence = 0.95, .resamples = 10000 };
  struct bootstrap_config bca =
    { .method = BOOTSTRAP_BCA, .confidence = 0.95, .resamples = 10000 };
  double one[] = { 3 }, same[] = { 2, 2, 2, 2 };

  rng_seed (&rng, 1);
  ok (bootstrap_ci (&pct, BOOTSTRAP_MEAN, one, 1, &rng, &low, &high) && isnan (low),
      "no interval for one value");
  ok (bootstrap_ci (&bca, BOOTSTRAP_MEDIAN, same, 4, &rng, &low, &high) && isnan (high),
      "no interval for constant data");
  struct bootstrap_config none =
    { .method = BOOTSTRAP_PERCENTILE, .confidence = 0.95, .resamples = 0 };
  ok (bootstrap_ci (&none, BOOTSTRAP_MEAN, same, 4, &rng, &low, &high) != NULL,
      "no interval without resamples");

  enum { N = 10000 };
  static double x[N];
  rng_seed (&rng, 2);
  for (int i = 0; i < N; i++)
    x[i] = 100 + 5 * normal (&rng);
  double m = stats_mean (x, N), se = stats_sd (x, N, m) / sqrt (N);
  rng_seed (&rng, 3);
  bootstrap_ci (&pct, BOOTSTRAP_MEAN, x, N, &rng, &low, &high);
  /* The normal-theory half width is 1.96 se; allow a few percent.  */
  is_double ((high - low) / 2, 1.959964 * se, 0.04 * 1.959964 * se,
             "percentile CI of the mean: half width 1.96 se within 4%");
  is_double ((high + low) / 2, m, 0.1 * se, "percentile CI of the mean is centred on it");
  double blow, bhigh;
  rng_seed (&rng, 3);
  bootstrap_ci (&bca, BOOTSTRAP_MEAN, x, N, &rng, &blow, &bhigh);
  ok (fabs (blow - low) < 0.05 * (high - low) && fabs (bhigh - high) < 0.05 * (high - low),
      "BCa equals percentile for symmetric data within Monte-Carlo error");

  /* Narrower with more data: n = 100 against n = 10000.  */
  double small_low, small_high;
  rng_seed (&rng, 3);
  bootstrap_ci (&pct, BOOTSTRAP_MEAN, x, 100, &rng, &small_low, &small_high);
  ok (small_high - small_low > 5 * (high - low), "CI narrows as n grows (ratio ~10)");

  /* Same stream, same interval.  */
  double again_low, again_high;
  rng_seed (&rng, 3);
  bootstrap_ci (&pct, BOOTSTRAP_MEAN, x, N, &rng, &again_low, &again_high);
  ok (again_low == low && again_high == high, "same seed gives the same interval");

  /* The median of symmetric data: BCa and percentile agree, and the
     interval holds the sample median.  */
  rng_seed (&rng, 4);
  bootstrap_ci (&pct, BOOTSTRAP_MEDIAN, x, 1000, &rng, &low, &high);
  rng_seed (&rng, 4);
  bootstrap_ci (&bca, BOOTSTRAP_MEDIAN, x, 1000, &rng, &blow, &bhigh);
  double med = bootstrap_statistic (BOOTSTRAP_MEDIAN, x, 1000);
  ok (low < med && med < high, "percentile CI of the median holds the median");
  ok (fabs (blow - low) < 0.15 * (high - low) && fabs (bhigh - high) < 0.15 * (high - low),
      "BCa median interval close to percentile for symmetric data");

  /* Right-skewed data (exponential): BCa moves the interval of the mean
     to the right of the percentile one, as the bias and skew demand.  */
  static double e[200];
  rng_seed (&rng, 5);
  for (int i = 0; i < 200; i++)
    e[i] = -log (1 - rng_uniform (&rng));
  rng_seed (&rng, 6);
  bootstrap_ci (&pct, BOOTSTRAP_MEAN, e, 200, &rng, &low, &high);
  rng_seed (&rng, 6);
  bootstrap_ci (&bca, BOOTSTRAP_MEAN, e, 200, &rng, &blow, &bhigh);
  ok (blow > low && bhigh > high, "BCa shifts a skewed mean's interval right");

  /* Bootstrap-t of the exponential's mean: to the right of the t
     interval, as skewed data demand, and holding the mean.  */
  struct bootstrap_config boot_t =
    { .method = BOOTSTRAP_STUDENT, .confidence = 0.95, .resamples = 10000 };
  rng_seed (&rng, 6);
  ok (bootstrap_ci (&boot_t, BOOTSTRAP_MEAN, e, 200, &rng, &blow, &bhigh) == NULL,
      "bootstrap-t gives an interval");
  double em = stats_mean (e, 200), tlow, thigh;
  interval_t_mean (em, stats_sd (e, 200, em), 200, 0.95, &tlow, &thigh);
  ok (blow < em && em < bhigh && blow > tlow && bhigh > thigh,
      "bootstrap-t of a right-skewed mean lies right of the t interval");

  /* The median of {1,2,2,2,3}: every leave-one-out median is 2, so BCa's
     acceleration is undefined, though resamples vary.  */
  double flat[] = { 1, 2, 2, 2, 3 };
  rng_seed (&rng, 9);
  const char *why = bootstrap_ci (&bca, BOOTSTRAP_MEDIAN, flat, 5, &rng, &low, &high);
  ok (why && STREQ (why, "the jackknife is degenerate (BCa undefined)") && isnan (low),
      "BCa with a degenerate jackknife gives no interval: %s", why ? why : "(interval)");
}

/* Every row of tests/data/reference/distributions.csv (scipy).  */
/* Many degrees of freedom: t = z + (z^3 + z) / (4 df) to the last bit
   at df 1e8 and 1e12 (the next term is 1e-16 of t at 1e8); the
   incomplete beta's tail gave 4e-9 and 3e-5 relative there.  */
static void
test_t_quantile_large_df (void)
{
  static const double dfs[] = { 1e8, 1e10, 1e12 };
  static const double ps[] = { 0.975, 0.995, 0.9 };
  for (size_t i = 0; i < ARRAY_SIZE (dfs); i++)
    for (size_t j = 0; j < ARRAY_SIZE (ps); j++)
      {
        double z = dist_normal_quantile (ps[j]);
        double want = z + (z * z * z + z) / (4 * dfs[i]);
        char name[96];
        snprintf (name, sizeof name, "t quantile of %g at df %g", ps[j], dfs[i]);
        is_relative (dist_t_quantile (ps[j], dfs[i]), want, 1e-13, name);
      }
}

static void
test_reference (void)
{
  const char *top = getenv ("top_srcdir");
  char path[4096];
  snprintf (path, sizeof path, "%s/tests/data/reference/distributions.csv", top ? top : ".");
  FILE *f = fopen (path, "r");
  ok (f != NULL, "open %s", path);
  if (!f)
    return;
  char line[256];
  size_t rows = 0;
  while (fgets (line, sizeof line, f))
    {
      char kind[32];
      double x, df, want;
      if (sscanf (line, "%31[^,],%lf,%lf,%lf", kind, &x, &df, &want) != 4)
        continue;
      rows++;
      char name[96];
      snprintf (name, sizeof name, "%s(%g, %g) = %g", kind, x, df, want);
      if (STREQ (kind, "t_quantile"))
        is_relative (dist_t_quantile (x, df), want, 1e-12, name);
      else if (STREQ (kind, "t_two_sided"))
        is_relative (dist_t_two_sided_p (x, df), want, 1e-12, name);
      else if (STREQ (kind, "binomial_half_cdf"))
        is_relative (dist_binomial_half_cdf ((unsigned long) x, (unsigned long) df), want,
                     1e-12, name);
      else
        ok (0, "unknown kind %s", kind);
    }
  fclose (f);
  ok (rows == 30, "30 reference rows read (%zu)", rows);
}

static void
test_intervals (void)
{
  double low, high, coverage;
  /* n = 5 at 95%: [x(1), x(5)] covers 1 - 2/32 = 0.9375 only.  */
  double five[] = { 1, 2, 3, 4, 5 }, six[] = { 1, 2, 3, 4, 5, 6 };
  ok (interval_median_order (five, 5, 0.95, &low, &high, &coverage) != NULL && isnan (low),
      "no distribution-free 95%% interval of the median from 5 values");
  ok (interval_median_min_n (0.95) == 6 && interval_median_min_n (0.99) == 8,
      "6 values for 95%%, 8 for 99%%");
  ok (interval_median_order (six, 6, 0.95, &low, &high, &coverage) == NULL
      && low == 1 && high == 6, "n = 6: [x(1), x(6)]");
  is_double (coverage, 1 - 2.0 / 64, 0, "its coverage is exactly 1 - 2/64");
  /* n = 20: P(B <= 5) = 21700/2^20 <= 0.025 < P(B <= 6), so j = 6:
     [x(6), x(15)] with coverage 1 - 2 * 21700 / 2^20.  */
  double twenty[20];
  for (int i = 0; i < 20; i++)
    twenty[i] = i + 1;
  ok (interval_median_order (twenty, 20, 0.95, &low, &high, &coverage) == NULL
      && low == 6 && high == 15, "n = 20: [x(6), x(15)]");
  is_double (coverage, 1 - 2 * 21700.0 / 1048576, 1e-15, "its coverage is 1 - 43400/2^20");
  double same[] = { 4, 4, 4, 4, 4, 4, 4 };
  ok (interval_median_order (same, 7, 0.95, &low, &high, &coverage) != NULL,
      "no median interval when all values are equal");

  /* t interval of {2,4,4,4,5,5,7,9}: 5 -+ t(7, 0.975) sqrt(32/7)/sqrt(8),
     t(7, 0.975) = 2.3646242515927844 (scipy).  */
  double sd = sqrt (32.0 / 7);
  ok (interval_t_mean (5, sd, 8, 0.95, &low, &high) == NULL, "t interval given");
  is_double (low, 5 - 2.3646242515927844 * sd / sqrt (8), 1e-14, "t interval low");
  is_double (high, 5 + 2.3646242515927844 * sd / sqrt (8), 1e-14, "t interval high");
  ok (interval_t_mean (5, 0, 8, 0.95, &low, &high) != NULL && isnan (low),
      "no t interval of constant data");
  ok (interval_t_mean (5, NAN, 1, 0.95, &low, &high) != NULL, "no t interval of one value");

  /* Fieller agrees with Welch: the example, p = 0.14, so the
     ratio interval must hold 1.  */
  struct welch w;
  interval_welch (12.5, 1, 3, 11, 1, 3, 0.95, &w);
  ok (w.ratio_why == NULL && w.ratio_low < 1 && 1 < w.ratio_high && w.p > 0.05,
      "Fieller's interval [%g, %g] holds 1 where Welch's p = %g", w.ratio_low, w.ratio_high, w.p);
  /* At the confidence 1 - p the interval ends at 1 exactly.  */
  interval_welch (12.5, 1, 3, 11, 1, 3, 1 - w.p, &w);
  is_double (w.ratio_low, 1, 1e-9, "at confidence 1 - p, Fieller's interval ends at 1");
  is_double (w.diff_low, 0, 1e-9, "and so does the difference's");
  /* A base mean within q standard errors of 0: unbounded.  */
  interval_welch (10, 1, 5, 0.5, 2, 5, 0.95, &w);
  ok (w.ratio_why != NULL && isnan (w.ratio_low) && w.diff_why == NULL,
      "Fieller unbounded when the base mean is not clearly away from 0");
}

/* Bootstrap-t on near-constant counts: resamples of one value repeated
   kept a variance of rounding, and their t* of 1e7 gave an interval 1e7
   times the data's range ([99.9997, 9981842] for 28 of 100 and 2 of
   101); values a ulp apart studentized by rounding.  Both refused.  */
static void
test_boot_t_near_constant (void)
{
  struct bootstrap_config bt =
    { .method = BOOTSTRAP_STUDENT, .confidence = 0.95, .resamples = 10000 };
  struct rng rng;
  double low, high, x[30];
  for (int i = 0; i < 30; i++)
    x[i] = i < 28 ? 100 : 101;
  rng_seed (&rng, 1);
  const char *why = bootstrap_ci (&bt, BOOTSTRAP_MEAN, x, 30, &rng, &low, &high);
  ok (why && strstr (why, "without spread: the values are nearly all equal") && isnan (low)
      && isnan (high),
      "bootstrap-t refuses 28 of 100 and 2 of 101: %s", why ? why : "an interval");
  for (int i = 0; i < 30; i++)
    x[i] = i < 29 ? 1e15 : 1e15 + 0.125;
  rng_seed (&rng, 1);
  why = bootstrap_ci (&bt, BOOTSTRAP_MEAN, x, 30, &rng, &low, &high);
  ok (why && strstr (why, "only by rounding") && isnan (low),
      "bootstrap-t refuses values a ulp apart: %s", why ? why : "an interval");
  /* Five of 8 among 25 of 7: resamples without spread are 0.4%, below
     the tail's 2.5%: an interval, within the data.  */
  for (int i = 0; i < 30; i++)
    x[i] = i < 25 ? 7 : 8;
  rng_seed (&rng, 1);
  why = bootstrap_ci (&bt, BOOTSTRAP_MEAN, x, 30, &rng, &low, &high);
  ok (!why && low > 7 && high < 8, "bootstrap-t of 25 sevens and 5 eights: [%g, %g]", low, high);
  /* 28 values at the mean itself: their resamples have t* = 0, no end. */
  for (int i = 0; i < 30; i++)
    x[i] = i < 28 ? 100 : i == 28 ? 99 : 101;
  rng_seed (&rng, 1);
  why = bootstrap_ci (&bt, BOOTSTRAP_MEAN, x, 30, &rng, &low, &high);
  ok (!why && low > 99 && high < 101, "bootstrap-t of 28 at the mean: [%g, %g]", low, high);
}

int
main (void)
{
  test_normal ();
  test_beta_and_t ();
  test_moments ();
  test_quantiles ();
  test_bootstrap ();
  test_reference ();
  test_t_quantile_large_df ();
  test_intervals ();
  test_boot_t_near_constant ();
  tap_plan (tap_count);        /* a trailing plan: TAP allows it */
  return done_testing ();
}
