/* distributions.c -- normal and Student-t distribution functions. */
#include "system.h"
#include "distributions.h"

#include <float.h>
#include <math.h>

double
dist_normal_cdf (double x)
{
  /* erfc keeps full relative accuracy far into the lower tail.  */
  return 0.5 * erfc (-x * M_SQRT1_2);
}

/* Evaluate the polynomial C[0] + C[1] X + ... + C[7] X^7.  */
static double
poly7 (const double c[8], double x)
{
  double r = c[7];
  for (int i = 6; i >= 0; i--)
    r = r * x + c[i];
  return r;
}

double
dist_normal_quantile (double p)
{
  /* Coefficients of AS 241 PPND16: rational approximations for the
     central region |p - 0.5| <= 0.425 and for two tail regions.  */
  static const double a[8] = {
    3.3871328727963666080e0, 1.3314166789178437745e+2,
    1.9715909503065514427e+3, 1.3731693765509461125e+4,
    4.5921953931549871457e+4, 6.7265770927008700853e+4,
    3.3430575583588128105e+4, 2.5090809287301226727e+3 };
  static const double b[8] = {
    1.0, 4.2313330701600911252e+1,
    6.8718700749205790830e+2, 5.3941960214247511077e+3,
    2.1213794301586595867e+4, 3.9307895800092710610e+4,
    2.8729085735721942674e+4, 5.2264952788528545610e+3 };
  static const double c[8] = {
    1.42343711074968357734e0, 4.63033784615654529590e0,
    5.76949722146069140550e0, 3.64784832476320460504e0,
    1.27045825245236838258e0, 2.41780725177450611770e-1,
    2.27238449892691845833e-2, 7.74545014278341407640e-4 };
  static const double d[8] = {
    1.0, 2.05319162663775882187e0,
    1.67638483018380384940e0, 6.89767334985100004550e-1,
    1.48103976427480074590e-1, 1.51986665636164571966e-2,
    5.47593808499534494600e-4, 1.05075007164441684324e-9 };
  static const double e[8] = {
    6.65790464350110377720e0, 5.46378491116411436990e0,
    1.78482653991729133580e0, 2.96560571828504891230e-1,
    2.65321895265761230930e-2, 1.24266094738807843860e-3,
    2.71155556874348757815e-5, 2.01033439929228813265e-7 };
  static const double f[8] = {
    1.0, 5.99832206555887937690e-1,
    1.36929880922735805310e-1, 1.48753612908506148525e-2,
    7.86869131145613259100e-4, 1.84631831751005468180e-5,
    1.42151175831644588870e-7, 2.04426310338993978564e-15 };

  if (isnan (p) || p < 0 || p > 1)
    return NAN;
  if (p == 0)
    return -INFINITY;
  if (p == 1)
    return INFINITY;

  double q = p - 0.5;
  if (fabs (q) <= 0.425)
    {
      double r = 0.180625 - q * q;
      return q * poly7 (a, r) / poly7 (b, r);
    }
  double r = q < 0 ? p : 1 - p;
  r = sqrt (-log (r));
  double z = r <= 5
    ? poly7 (c, r - 1.6) / poly7 (d, r - 1.6)
    : poly7 (e, r - 5) / poly7 (f, r - 5);
  return q < 0 ? -z : z;
}

/* One modified-Lentz step with partial numerator AA: updates C and D and
   returns the factor the fraction's value is multiplied by.  */
static double
lentz_step (double aa, double *c, double *d)
{
  const double tiny = 1e-300;
  *d = 1 + aa * *d;
  if (fabs (*d) < tiny)
    *d = tiny;
  *c = 1 + aa / *c;
  if (fabs (*c) < tiny)
    *c = tiny;
  *d = 1 / *d;
  return *d * *c;
}

/* The continued fraction for I_x(a, b) (Abramowitz and Stegun 26.5.8),
   converging fast for x < (a + 1) / (a + b + 2); modified Lentz.  */
static double
beta_fraction (double a, double b, double x)
{
  const double tiny = 1e-300, epsilon = 1e-16;
  double qab = a + b, qap = a + 1, qam = a - 1;
  double c = 1, d = 1 - qab * x / qap;
  if (fabs (d) < tiny)
    d = tiny;
  d = 1 / d;
  double h = d;
  for (int m = 1; m <= 10000; m++)
    {
      int m2 = 2 * m;
      /* Even step: d_{2m}; then the odd step: d_{2m+1}.  */
      h *= lentz_step (m * (b - m) * x / ((qam + m2) * (a + m2)), &c, &d);
      double delta = lentz_step (-(a + m) * (qab + m) * x / ((a + m2) * (qap + m2)), &c, &d);
      h *= delta;
      if (fabs (delta - 1) < epsilon)
        break;
    }
  return h;
}

/* I_X(A, B) and its complement 1 - I_X(A, B) into *LOWER and *UPPER,
   given X and Y = 1 - X separately, so neither tail is found by
   subtracting the other from 1 where it is the small one.  */
static void
beta_both (double a, double b, double x, double y, double *lower, double *upper)
{
  if (x == 0 || y == 0)
    {
      *lower = x == 0 ? 0 : 1;
      *upper = 1 - *lower;
      return;
    }
  /* x^a y^b / B(a, b), in logs to survive large A and B.  */
  double log_front = lgamma (a + b) - lgamma (a) - lgamma (b)
    + a * log (x) + b * log (y);
  double front = exp (log_front);
  if (x < (a + 1) / (a + b + 2))
    {
      *lower = front * beta_fraction (a, b, x) / a;
      *upper = 1 - *lower;
    }
  else
    {
      /* The symmetry I_x(a, b) = 1 - I_y(b, a), where that converges.  */
      *upper = front * beta_fraction (b, a, y) / b;
      *lower = 1 - *upper;
    }
}

double
dist_incomplete_beta (double a, double b, double x)
{
  if (isnan (x) || isnan (a) || isnan (b) || a <= 0 || b <= 0 || x < 0 || x > 1)
    return NAN;
  double lower, upper;
  beta_both (a, b, x, 1 - x, &lower, &upper);
  return lower;
}

/* P(T > |T|) for DF degrees of freedom, computed as a tail directly so
   that small p-values keep their relative accuracy down to the smallest
   doubles: the two-sided tail is I_x(df/2, 1/2) with x = df/(df+t^2),
   and 1 - x = t^2/(df+t^2) is formed without cancellation.  */
static double
t_upper_tail (double t, double df)
{
  if (isinf (t))
    return 0;
  double t2 = t * t;
  double x, y;
  if (t2 > df)
    {
      double r = df / t2;       /* no overflow of df + t^2 */
      x = r / (1 + r);
      y = 1 / (1 + r);
    }
  else
    {
      x = df / (df + t2);
      y = t2 / (df + t2);
    }
  double lower, upper;
  beta_both (df / 2, 0.5, x, y, &lower, &upper);
  return lower / 2;
}

double
dist_t_cdf (double t, double df)
{
  if (isnan (t) || isnan (df) || df <= 0)
    return NAN;
  double upper = t_upper_tail (fabs (t), df);
  return t < 0 ? upper : 1 - upper;
}

double
dist_t_two_sided_p (double t, double df)
{
  if (isnan (t) || isnan (df) || df <= 0)
    return NAN;
  double p = 2 * t_upper_tail (fabs (t), df);
  return p > 1 ? 1 : p;
}

/* The density of Student's t.  */
static double
t_density (double t, double df)
{
  return exp (lgamma ((df + 1) / 2) - lgamma (df / 2) - 0.5 * log (df * M_PI)
              - (df + 1) / 2 * log1p (t * t / df));
}

double
dist_t_quantile (double p, double df)
{
  if (isnan (p) || isnan (df) || df <= 0 || p < 0 || p > 1)
    return NAN;
  if (p == 0 || p == 1)
    return p == 0 ? -INFINITY : INFINITY;
  if (p == 0.5)
    return 0;
  /* Solve for the upper tail Q = min(p, 1-p) with t > 0, then mirror:
     Newton steps on the tail, kept inside a bracket by bisection.  */
  double q = p < 0.5 ? p : 1 - p;
  /* Many degrees of freedom (Welch's df of large samples): the tail's
     incomplete beta loses digits (4e-9 relative at df 1e8, 3e-5 at
     1e12), where Hill's expansion in 1/df about the normal quantile
     (Abramowitz and Stegun 26.7.5) is exact to the last bit once its
     fourth term is below 1e-17 of t.  */
  if (df >= 1e4)
    {
      double z = -dist_normal_quantile (q), z2 = z * z;
      double g1 = (z2 + 1) * z / 4, g2 = ((5 * z2 + 16) * z2 + 3) * z / 96;
      double g3 = (((3 * z2 + 19) * z2 + 17) * z2 - 15) * z / 384;
      double g4 = ((((79 * z2 + 776) * z2 + 1482) * z2 - 1920) * z2 - 945) * z / 92160;
      double t = z + (g1 + (g2 + (g3 + g4 / df) / df) / df) / df;
      if (fabs (g4) / (df * df * df * df) <= 1e-17 * t)
        return p < 0.5 ? -t : t;
    }
  double lo = 0, hi = 1;
  while (t_upper_tail (hi, df) > q)
    {
      lo = hi;
      hi *= 2;
      if (isinf (hi))
        return p < 0.5 ? -INFINITY : INFINITY;
    }
  double t = fmax (lo, fmin (hi, -dist_normal_quantile (q)));
  for (int i = 0; i < 200; i++)
    {
      double f = t_upper_tail (t, df) - q;
      if (f == 0)
        break;
      if (f > 0)
        lo = t;
      else
        hi = t;
      double next = t + f / t_density (t, df);
      if (!(next > lo && next < hi))
        next = lo + (hi - lo) / 2;
      if (fabs (next - t) <= 4 * DBL_EPSILON * t || hi - lo <= 4 * DBL_EPSILON * hi)
        {
          t = next;
          break;
        }
      t = next;
    }
  return p < 0.5 ? -t : t;
}

double
dist_binomial_half_cdf (unsigned long k, unsigned long n)
{
  if (k >= n)
    return 1;
  /* P(B <= k) = I_{1/2}(n - k, k + 1).  */
  double lower, upper;
  beta_both ((double) (n - k), (double) k + 1, 0.5, 0.5, &lower, &upper);
  return lower;
}
