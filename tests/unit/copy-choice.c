/* copy-choice.c -- unit tests of --copy-path auto's decision over
   synthetic measurements: rounds of (engine, batch, sm) rates in GB/s.  */
#include "system.h"
#include "copy-choice.h"
#include "tap.h"

#include <math.h>
#include <string.h>

enum { ENGINE, BATCH, SM, PATHS };
static const char *const names[PATHS] = { "engine", "batch", "sm" };

struct choice_case
{
  const char *what;
  size_t rounds;
  double rates[COPY_CHOICE_ROUNDS_MAX * PATHS];
  bool eligible[PATHS];
  int want;
  double want_median[PATHS];    /* NaN where none */
};

#define ALL { true, true, true }

static const struct choice_case cases[] = {
  /* The H200 case: one round the engine lost to a busy host, one the sm
     path won by it.  The best of rounds took sm; the median takes the
     engine.  */
  { "one disturbed round each way moves no median",
    5, { 28.7, 27.0, 21.0,  12.0, 27.2, 21.5,  28.9, 26.8, 21.4,  28.5, 27.1, 30.0,
         28.8, 26.9, 21.3 },
    ALL, ENGINE, { 28.7, 27.0, 21.4 } },
  { "the fastest median wins by more than the margin",
    5, { 40, 46.6, 30,  41, 46.5, 31,  40.5, 46.7, 29,  40.2, 46.4, 30.5,  40.1, 46.8, 30.2 },
    ALL, BATCH, { 40.2, 46.6, 30.2 } },
  { "within the margin of the fastest, the earlier path is taken",
    3, { 30.0, 30.5, 30.59,  30.0, 30.5, 30.59,  30.0, 30.5, 30.59 },
    ALL, ENGINE, { 30.0, 30.5, 30.59 } },
  { "just past the margin, the faster path is taken",
    3, { 30.0, 30.0, 30.61,  30.0, 30.0, 30.61,  30.0, 30.0, 30.61 },
    ALL, SM, { 30.0, 30.0, 30.61 } },
  { "the earliest of several within the margin: batch before sm",
    3, { 20, 30.0, 30.5,  20, 30.0, 30.5,  20, 30.0, 30.5 },
    ALL, BATCH, { 20, 30.0, 30.5 } },
  { "an ineligible path (pageable arena) is never taken, however fast, but reported",
    3, { 10, 50, 60,  10, 50, 60,  10, 50, 60 },
    { true, false, false }, ENGINE, { 10, 50, 60 } },
  { "an ineligible path between eligible ones is passed over, not taken as within the margin",
    3, { 10, 50, 12,  10, 50, 12,  10, 50, 12 },
    { true, false, true }, SM, { 10, 50, 12 } },
  { "a path not available (0 every round) is left out",
    5, { 28, 0, 35,  28, 0, 35,  28, 0, 35,  28, 0, 35,  28, 0, 35 },
    ALL, SM, { 28, NAN, 35 } },
  { "an even count of measured rounds takes the middle two's mean",
    4, { 10, 0, 0,  20, 0, 0,  30, 0, 0,  1000, 0, 0 },
    ALL, ENGINE, { 25, NAN, NAN } },
  { "NaN rounds are not measurements",
    3, { NAN, 5, 4,  NAN, 5, 4,  NAN, 5, 4 },
    ALL, BATCH, { NAN, 5, 4 } },
  { "nothing measured: the engine",
    2, { 0, 0, 0,  NAN, -1, 0 },
    ALL, ENGINE, { NAN, NAN, NAN } },
};

static bool
same (double got, double want)
{
  return isnan (want) ? isnan (got) : fabs (got - want) < 1e-12;
}

int
main (void)
{
  size_t ncases = sizeof cases / sizeof *cases;
  tap_plan ((int) (2 * ncases + 15));
  for (size_t i = 0; i < ncases; i++)
    {
      const struct choice_case *c = &cases[i];
      double median[PATHS];
      int got = copy_choice_decide (c->rates, c->rounds, PATHS, c->eligible, median);
      if (!ok (got == c->want, "%s: chooses %s", c->what, names[c->want]))
        printf ("#   got %s\n", got >= 0 && got < PATHS ? names[got] : "?");
      bool medians = true;
      for (int p = 0; p < PATHS; p++)
        medians &= same (median[p], c->want_median[p]);
      if (!ok (medians, "%s: medians", c->what))
        printf ("#   got %g %g %g\n", median[0], median[1], median[2]);
    }

  /* ELIGIBLE NULL: every path.  */
  double rates[] = { 1, 2, 3 }, median[PATHS];
  ok (copy_choice_decide (rates, 1, PATHS, NULL, median) == SM, "no eligibility list: all paths");

  double parsed[PATHS];
  ok (copy_choice_parse_rates ("28.7,27,21.5", PATHS, parsed)
      && parsed[0] == 28.7 && parsed[1] == 27 && parsed[2] == 21.5, "parse: three rates");
  ok (copy_choice_parse_rates ("28.7,,21.5", PATHS, parsed)
      && isnan (parsed[1]) && parsed[2] == 21.5, "parse: an empty field is not measured");
  ok (copy_choice_parse_rates ("5,,", PATHS, parsed) && parsed[0] == 5 && isnan (parsed[2]),
      "parse: empty last fields");
  ok (!copy_choice_parse_rates ("28.7,27", PATHS, parsed), "parse: too few fields refused");
  ok (!copy_choice_parse_rates ("1,2,3,4", PATHS, parsed), "parse: too many fields refused");
  ok (!copy_choice_parse_rates ("1,x,3", PATHS, parsed), "parse: a word refused");
  ok (!copy_choice_parse_rates ("1,0,3", PATHS, parsed), "parse: zero refused");
  ok (!copy_choice_parse_rates ("1,-2,3", PATHS, parsed), "parse: a negative refused");
  ok (!copy_choice_parse_rates ("1,inf,3", PATHS, parsed), "parse: inf refused");
  ok (!copy_choice_parse_rates ("1,2,3x", PATHS, parsed), "parse: trailing text refused");

  char line[256];
  double m1[PATHS] = { 28.7, 27.1, 21.5 };
  copy_choice_describe (line, sizeof line, 65536, 5, 0.020, names, PATHS, m1, ENGINE);
  if (!ok (strcmp (line, "--copy-path auto: 65536-byte items, median of 5 rounds of 20 ms: "
                   "engine 28.70, batch 27.10, sm 21.50 GB/s: chose engine") == 0,
           "describe: sizes, rates per path, choice"))
    printf ("#   got '%s'\n", line);
  double m2[PATHS] = { 3.2, NAN, 4.25 };
  copy_choice_describe (line, sizeof line, 4096, 5, 0.020, names, PATHS, m2, SM);
  if (!ok (strcmp (line, "--copy-path auto: 4096-byte items, median of 5 rounds of 20 ms: "
                   "engine 3.20, batch -, sm 4.25 GB/s: chose sm") == 0,
           "describe: a path not measured reads '-'"))
    printf ("#   got '%s'\n", line);
  copy_choice_describe (line, sizeof line, 4096, 1, 0, names, PATHS, m2, SM);
  if (!ok (strcmp (line, "--copy-path auto: 4096-byte items, rates given: "
                   "engine 3.20, batch -, sm 4.25 GB/s: chose sm") == 0,
           "describe: rates given, not measured"))
    printf ("#   got '%s'\n", line);
  char small[16];
  copy_choice_describe (small, sizeof small, 4096, 5, 0.020, names, PATHS, m2, SM);
  ok (strlen (small) == sizeof small - 1, "describe: truncated to the buffer, terminated");
  return done_testing ();
}
