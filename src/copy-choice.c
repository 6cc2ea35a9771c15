/* copy-choice.c -- the decision of h2d-check --copy-path auto.  */
#include "system.h"
#include "copy-choice.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool
measured (double rate)
{
  return rate > 0 && !isnan (rate);
}

static int
compare_doubles (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

double
copy_choice_median (const double *rates, size_t n)
{
  double kept[COPY_CHOICE_ROUNDS_MAX];
  size_t m = 0;
  for (size_t i = 0; i < n && m < COPY_CHOICE_ROUNDS_MAX; i++)
    if (measured (rates[i]))
      kept[m++] = rates[i];
  if (!m)
    return NAN;
  qsort (kept, m, sizeof *kept, compare_doubles);
  return m % 2 ? kept[m / 2] : (kept[m / 2 - 1] + kept[m / 2]) / 2;
}

int
copy_choice_decide (const double *rates, size_t rounds, size_t npaths,
                    const bool *eligible, double *median)
{
  double fastest = 0;
  if (rounds > COPY_CHOICE_ROUNDS_MAX)
    rounds = COPY_CHOICE_ROUNDS_MAX;
  for (size_t p = 0; p < npaths; p++)
    {
      double column[COPY_CHOICE_ROUNDS_MAX];
      for (size_t r = 0; r < rounds; r++)
        column[r] = rates[r * npaths + p];
      median[p] = copy_choice_median (column, rounds);
      if ((!eligible || eligible[p]) && measured (median[p]) && median[p] > fastest)
        fastest = median[p];
    }
  for (size_t p = 0; p < npaths; p++)
    if ((!eligible || eligible[p]) && measured (median[p])
        && median[p] * (1 + COPY_CHOICE_MARGIN) >= fastest)
      return (int) p;
  return 0;
}

bool
copy_choice_parse_rates (const char *text, size_t npaths, double *rates)
{
  const char *at = text;
  for (size_t p = 0; p < npaths; p++)
    {
      char *end = (char *) at;
      rates[p] = NAN;
      if (*at != ',' && *at != '\0')
        {
          rates[p] = strtod (at, &end);
          if (end == at || !(rates[p] > 0) || isinf (rates[p]))
            return false;
        }
      if (p + 1 < npaths ? *end != ',' : *end != '\0')
        return false;
      at = end + 1;
    }
  return true;
}

void
copy_choice_describe (char *buf, size_t size, uint64_t bytes, size_t rounds,
                      double round_s, const char *const *names, size_t npaths,
                      const double *median, int chosen)
{
  size_t at = 0;
#define PUT(...) \
  do { int n_ = snprintf (buf + at, at < size ? size - at : 0, __VA_ARGS__); \
       if (n_ > 0) at += (size_t) n_; } while (0)
  if (size)
    buf[0] = '\0';
  if (round_s > 0)
    PUT ("--copy-path auto: %llu-byte items, median of %zu rounds of %.0f ms:",
         (unsigned long long) bytes, rounds, round_s * 1e3);
  else
    PUT ("--copy-path auto: %llu-byte items, rates given:", (unsigned long long) bytes);
  for (size_t p = 0; p < npaths; p++)
    {
      if (measured (median[p]))
        PUT ("%s %s %.2f", p ? "," : "", names[p], median[p]);
      else
        PUT ("%s %s -", p ? "," : "", names[p]);
    }
  PUT (" GB/s: chose %s", names[chosen]);
#undef PUT
}
