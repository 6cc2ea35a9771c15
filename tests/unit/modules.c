/* modules.c -- unit tests of the small modules the commands share: the
   grouping engine's key table and key buffer, the work share's ranges
   and claims, the generator's exact stream (--seed reproduces runs), the
   producer columns, display widths and JSON strings, the step and AU, and
   the clock.  */
#include "system.h"
#include "clock.h"
#include "compute-step.h"
#include "key-table.h"
#include "producer-tally.h"
#include "rng.h"
#include "summary-text.h"
#include "work-share.h"
#include "tap.h"

#include <inttypes.h>
#include <math.h>
#include <time.h>

static char json_text[256];

static const char *
json_of (const char *s)
{
  FILE *f = fmemopen (json_text, sizeof json_text, "w");
  summary_text_json (f, s);
  fclose (f);
  return json_text;
}

int
main (void)
{
  /* Key table: a thousand keys, through several growths, each found
     again with its own value; the empty key is a key.  */
  struct key_table t = { 0 };
  char key[32];
  size_t wrong = 0;
  for (size_t i = 0; i < 1000; i++)
    {
      int len = snprintf (key, sizeof key, "key%zu", i);
      wrong += key_table_intern (&t, key, (size_t) len, i) != i;
    }
  for (size_t i = 0; i < 1000; i++)
    {
      int len = snprintf (key, sizeof key, "key%zu", i);
      wrong += key_table_intern (&t, key, (size_t) len, SIZE_MAX) != i;
      wrong += key_table_intern (&t, key, (size_t) len, 5000 + i) != i;
    }
  ok (wrong == 0 && t.count == 1000, "1000 keys stored once and found again (%zu wrong, %zu)",
      wrong, t.count);
  ok (key_table_intern (&t, "key1000", 7, SIZE_MAX) == SIZE_MAX && t.count == 1000,
      "looking up a missing key stores nothing");
  ok (key_table_intern (&t, "", 0, 7) == 7 && key_table_intern (&t, "", 0, SIZE_MAX) == 7,
      "the empty key is a key");
  key_table_free (&t);

  /* Key buffer: each field after its length, so the split shows.  */
  struct key_buffer k1 = { 0 }, k2 = { 0 };
  key_buffer_add (&k1, "a", 1);
  key_buffer_add (&k1, "bc", 2);
  key_buffer_add (&k2, "ab", 2);
  key_buffer_add (&k2, "c", 1);
  ok (k1.used == k2.used && memcmp (k1.text, k2.text, k1.used) != 0,
      "(a, bc) and (ab, c) are different keys");
  free (k1.text);
  free (k2.text);

  /* Work share: static gives worker w the w-th block of its epoch; pull
     the whole epoch to every worker's claims.  */
  uint64_t first = 0, count = 0;
  ok (work_share_range (ARENA_SHARE_STATIC, 4, 10, 2, 1, &first, &count)
      && first == 60 && count == 10, "static: worker 2 of 4, epoch 1: [60, 70) (%" PRIu64
      ", %" PRIu64 ")", first, count);
  ok (work_share_range (ARENA_SHARE_PULL, 4, 10, 2, 1, &first, &count)
      && first == 40 && count == 40, "pull: epoch 1 is [40, 80) (%" PRIu64 ", %" PRIu64 ")",
      first, count);
  ok (!work_share_range (ARENA_SHARE_PULL, 2, UINT64_MAX / 2, 0, 1, &first, &count),
      "a range past 64 bits is refused");
  ok (work_share_arena_items (ARENA_SHARE_PULL, 4, 10, 3) == 120
      && work_share_arena_items (ARENA_SHARE_STATIC, 4, 10, 3) == 30
      && work_share_arena_items (ARENA_SHARE_PULL, 2, UINT64_MAX / 2, 3) == UINT64_MAX,
      "an arena's items: every worker's under pull, its own under static, saturating");
  struct work_claims *c = work_claims_create ();
  uint64_t a = 9, b = 9, z = 9;
  ok (c && work_claims_next (c, 2, &a) && work_claims_next (c, 2, &b)
      && !work_claims_next (c, 2, &z) && a == 0 && b == 1 && z == 9,
      "claims: 0 and 1 below 2, then none");

  /* The generator: xoshiro256** seeded by splitmix64, the reference's
     stream (so a --seed gives the same intervals everywhere).  */
  struct rng r;
  rng_seed (&r, 1);
  uint64_t x0 = rng_next (&r), x1 = rng_next (&r), x2 = rng_next (&r);
  ok (x0 == 0xb3f2af6d0fc710c5ULL && x1 == 0x853b559647364ceaULL
      && x2 == 0x92f89756082a4514ULL, "seed 1: the reference's first three outputs");
  rng_seed (&r, 1);
  double u = rng_uniform (&r);
  ok (u == 0.7029218331588505, "seed 1: the first uniform is %.17g", u);
  uint64_t below[7] = { 0 };
  for (int i = 0; i < 7000; i++)
    below[rng_below (&r, 7)]++;
  int each = 1;
  for (int i = 0; i < 7; i++)
    each &= below[i] > 800 && below[i] < 1200;
  ok (each, "rng_below 7: every value, about as often");

  /* Producer columns: items per worker, median fill in us, "-" for none. */
  struct producer_tally p = { 0 };
  producer_tally_add (&p, 3, 0, 100000);
  producer_tally_add (&p, 3, 2, 1000);
  producer_tally_add (&p, 3, 2, 1000);
  producer_tally_add (&p, 3, 2, 100000);
  producer_tally_add (&p, 3, 7, 1000);
  /* A copy each: a second call frees the text the first returned.  */
  char *cells = strdup (producer_tally_items (&p));
  ok (cells && STREQ (cells, "1 0 3"), "items: %s", cells);
  free (cells);
  cells = strdup (producer_tally_fill_us (&p));
  ok (cells && STREQ (cells, "99.3 - 1.0"), "fill: %s (a bucket's middle)", cells);
  free (cells);
  producer_tally_free (&p);

  /* Display widths and JSON strings.  */
  ok (summary_text_width ("\xe6\x97\xa5\xe6\x9c\xac") == 4, "two wide characters: 4 columns");
  ok (summary_text_width ("e\xcc\x81") == 1, "a combining mark: none");
  ok (summary_text_width ("\xc0\xaf") == 2, "an overlong sequence: a column a byte");
  ok (STREQ (json_of ("a\"b\\c\n\x1f\x7f"), "\"a\\\"b\\\\c\\n\\u001f\x7f\""),
      "JSON: quote, backslash, newline, U+001F escaped: %s", json_text);
  ok (STREQ (json_of ("\xc0\xaf\xed\xa0\x80\xf4\x90\x80\x80"),
             "\"\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\""),
      "JSON: overlong, surrogate, past U+10FFFF: U+FFFD a byte: %s", json_text);
  ok (STREQ (json_of ("\xc3\xa9\xf0\x9f\x98\x80"), "\"\xc3\xa9\xf0\x9f\x98\x80\""),
      "JSON: valid UTF-8 as it is");

  /* The step and AU; the clock in nanoseconds of real time.  */
  compute_step_set_us (2000);
  ok (compute_step_au (10, 0.04) == 0.5, "AU: 10 steps of 2 ms in 40 ms is 0.5");
  uint64_t t0 = clock_now_ns ();
  compute_step_spin ();
  uint64_t spun = clock_now_ns () - t0;
  ok (spun >= 2000000, "a step of 2000 us lasts at least 2 ms (%" PRIu64 " ns)", spun);
  compute_step_set_us (0);
  ok (isnan (compute_step_au (10, 0.04)), "no step: AU unknown");
  t0 = clock_now_ns ();
  nanosleep (&(struct timespec) { 0, 30000000 }, NULL);
  uint64_t slept = clock_now_ns () - t0;
  ok (slept >= 30000000, "30 ms asleep reads as at least 30 ms (%" PRIu64 " ns)", slept);
  /* clock_now_ns is CLOCK_MONOTONIC in ns: between two direct reads.  */
  struct timespec ts1, ts2;
  clock_gettime (CLOCK_MONOTONIC, &ts1);
  uint64_t now = clock_now_ns ();
  clock_gettime (CLOCK_MONOTONIC, &ts2);
  uint64_t n1 = (uint64_t) ts1.tv_sec * 1000000000ULL + (uint64_t) ts1.tv_nsec;
  uint64_t n2 = (uint64_t) ts2.tv_sec * 1000000000ULL + (uint64_t) ts2.tv_nsec;
  ok (n1 <= now && now <= n2, "the clock is CLOCK_MONOTONIC's nanoseconds (%" PRIu64 " in [%"
      PRIu64 ", %" PRIu64 "])", now, n1, n2);
  tap_plan (tap_count);
  return tap_failed != 0;
}
