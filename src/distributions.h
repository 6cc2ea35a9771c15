/* distributions.h -- the special functions bench-summarize needs.

   dist_normal_quantile is Wichura's algorithm AS 241 (PPND16, Applied
   Statistics 37, 1988), good to about 1e-16 relative.  The Student-t
   distribution goes through the regularized incomplete beta function,
   evaluated by its continued fraction with the modified Lentz method
   (Lentz 1976; Thompson and Barnett 1986).  */
#ifndef ARENABENCH_DISTRIBUTIONS_H
#define ARENABENCH_DISTRIBUTIONS_H

/* Standard normal: P(Z <= X).  */
double dist_normal_cdf (double x);

/* Inverse of dist_normal_cdf for P in (0, 1); -inf at 0, +inf at 1, NaN
   outside [0, 1].  */
double dist_normal_quantile (double p);

/* Regularized incomplete beta I_X(A, B) for A, B > 0 and X in [0, 1].  */
double dist_incomplete_beta (double a, double b, double x);

/* Student's t with DF > 0 degrees of freedom (need not be an integer):
   P(T <= T).  */
double dist_t_cdf (double t, double df);

/* P(|T| >= |T|): the two-sided p-value of a t statistic, with full
   relative accuracy in the tail down to about 1e-300.  */
double dist_t_two_sided_p (double t, double df);

/* Inverse of dist_t_cdf for P in [0, 1]: -inf at 0, +inf at 1.  */
double dist_t_quantile (double p, double df);

/* P(B <= K) for B binomial with N trials and success chance 1/2.  */
double dist_binomial_half_cdf (unsigned long k, unsigned long n);

#endif
