/* logt-coverage.c -- the coverage of bench-summarize's --log-scale log-t
   95% interval of a mean on log-normal data, by log SD and n: the limits
   of the skew warning under --log-scale (summary-compute.c,
   skew_limit_log) are the log SDs where it falls to 0.93.

   The interval is bench-summarize's log-t: mean * exp(+-t(n-1, 0.975) sd
   / (mean sqrt(n))); the truth exp(s^2 / 2), the mean of exp(s Z).

   Build from a configured tree, then run:
     cc -O2 -Isrc -o logt-coverage doc/results/log-scale-skew/logt-coverage.c \
       src/libarenabench.a -lm
     ./logt-coverage 100000 > doc/results/log-scale-skew/raw.csv
   Rows: n, log_sd, samples, covered (the share of intervals holding the
   truth).  Seeded (xoshiro256**, seed 12345): the same CSV every run.  */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "distributions.h"
#include "rng.h"

static double
normal (struct rng *r)
{
  double u = 1 - rng_uniform (r), w = rng_uniform (r);
  return sqrt (-2 * log (u)) * cos (2 * M_PI * w);
}

int
main (int argc, char **argv)
{
  int reps = argc > 1 ? atoi (argv[1]) : 100000;
  static const size_t ns[] = { 3, 5, 10, 20, 30, 50, 100 };
  static const double sig[] = { 0.25, 0.4, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.9, 1.0, 1.2 };
  struct rng r;
  rng_seed (&r, 12345);
  printf ("n,log_sd,samples,covered\n");
  for (size_t i = 0; i < sizeof ns / sizeof *ns; i++)
    {
      size_t n = ns[i];
      double q = dist_t_quantile (0.975, (double) (n - 1));
      for (size_t j = 0; j < sizeof sig / sizeof *sig; j++)
        {
          double s = sig[j], truth = exp (s * s / 2), x[100];
          int hit = 0;
          for (int k = 0; k < reps; k++)
            {
              double m = 0, v = 0;
              for (size_t a = 0; a < n; a++)
                m += x[a] = exp (s * normal (&r));
              m /= (double) n;
              for (size_t a = 0; a < n; a++)
                v += (x[a] - m) * (x[a] - m);
              double h = q * sqrt (v / (double) (n - 1)) / (m * sqrt ((double) n));
              hit += m * exp (-h) <= truth && truth <= m * exp (h);
            }
          printf ("%zu,%g,%d,%.4f\n", n, s, reps, (double) hit / reps);
        }
    }
  return 0;
}
