/* cell-parse.c -- unit tests of cell_parse: every number parsed to the
   same bits as strtod, on the fast path and off it (17 digits, 2^53 and
   beyond, exponents at the path's edge), hexadecimal as text, missing
   values and infinities.  */
#include "system.h"
#include "cell-parse.h"
#include "tap.h"

#include <inttypes.h>
#include <math.h>

static enum cell_kind
parse (const char *s, double *v)
{
  return cell_parse (s, strlen (s), v);
}

int
main (void)
{
  /* Decimals of 1 to 17 digits with exponents -25..25: strtod's bits.  */
  uint64_t state = 12345, bad = 0, n = 0;
  char text[64], first_bad[64] = "";
  for (int digits = 1; digits <= 17; digits++)
    for (int e = -25; e <= 25; e++)
      for (int k = 0; k < 40; k++)
        {
          state = state * 6364136223846793005ULL + 1442695040888963407ULL;
          uint64_t m = state >> 1;
          uint64_t limit = 1;
          for (int d = 0; d < digits; d++)
            limit *= 10;
          m %= limit;
          snprintf (text, sizeof text, "%" PRIu64 "e%d", m, e);
          double got = -1, want = strtod (text, NULL);
          n++;
          if (parse (text, &got) != CELL_NUMBER || memcmp (&got, &want, sizeof got) != 0)
            {
              if (!bad++)
                snprintf (first_bad, sizeof first_bad, "%s", text);
            }
        }
  ok (bad == 0, "%" PRIu64 " decimals of 1-17 digits, exponents -25..25: %" PRIu64
      " differ from strtod%s%s", n, bad, bad ? ", first " : "", first_bad);

  /* Around 2^53, where one multiply stops being exact.  */
  const char *edges[] = { "9007199254740992", "9007199254740993", "9007199254740995",
                          "18014398509481983", "12345678901234567e-5", "99999999999999999",
                          "0.1", "1e22", "1e23", "-0.0", "+5", "17.25e-3" };
  int same = 0;
  for (size_t i = 0; i < ARRAY_SIZE (edges); i++)
    {
      double got = -1, want = strtod (edges[i], NULL);
      same += parse (edges[i], &got) == CELL_NUMBER && memcmp (&got, &want, sizeof got) == 0;
    }
  ok (same == (int) ARRAY_SIZE (edges), "%d of %zu values at the fast path's edges as strtod",
      same, ARRAY_SIZE (edges));

  double v;
  ok (parse ("0x10", &v) == CELL_TEXT && parse ("0X10", &v) == CELL_TEXT
      && parse ("0x1p3", &v) == CELL_TEXT, "hexadecimal, either case, is text");
  ok (parse ("", &v) == CELL_MISSING && parse ("NA", &v) == CELL_MISSING
      && parse ("-nan", &v) == CELL_MISSING && parse ("NaN", &v) == CELL_MISSING,
      "empty, NA and nan are missing");
  ok (parse ("inf", &v) == CELL_INFINITE && parse ("-Infinity", &v) == CELL_INFINITE
      && parse ("1e999", &v) == CELL_INFINITE, "inf, -Infinity and 1e999 are infinite");
  ok (parse ("12 ms", &v) == CELL_TEXT && parse ("1.2.3", &v) == CELL_TEXT
      && parse ("-", &v) == CELL_TEXT, "12 ms, 1.2.3 and a lone sign are text");
  v = 0;
  ok (parse ("1.5\t", &v) == CELL_NUMBER, "a trailing tab is allowed");
  is_double (v, 1.5, 0, "and the value is read");
  tap_plan (tap_count);
  return done_testing ();
}
