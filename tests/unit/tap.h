/* tap.h -- a minimal Test Anything Protocol emitter for the C unit tests. */
#ifndef ARENABENCH_TAP_H
#define ARENABENCH_TAP_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>

static int tap_count, tap_failed;

static void
tap_plan (int tests)
{
  printf ("1..%d\n", tests);
}

__attribute__ ((format (printf, 2, 3))) static int
ok (int condition, const char *format, ...)
{
  va_list args;
  tap_count++;
  if (!condition)
    tap_failed++;
  printf ("%s %d - ", condition ? "ok" : "not ok", tap_count);
  va_start (args, format);
  vprintf (format, args);
  va_end (args);
  putchar ('\n');
  return condition;
}

/* |got - want| <= tol, with NaN never passing.  Inline: a test that
   compares no doubles is no unused function.  */
static inline int
is_double (double got, double want, double tol, const char *name)
{
  int pass = fabs (got - want) <= tol;
  if (!ok (pass, "%s", name))
    printf ("#   got %.17g, want %.17g (tolerance %g)\n", got, want, tol);
  return pass;
}

static inline int
done_testing (void)
{
  if (tap_count == 0)
    printf ("1..0\n");
  return tap_failed ? 1 : 0;
}

#endif
