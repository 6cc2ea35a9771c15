/* copy-idle.c -- unit tests of the copy engine's idle accounting: each
   case is a copy that follows one that ended at t = 1000 ns, and the gap
   before it must go, whole, to the cause the table names (the part after
   the late submission to "other").  */
#include "system.h"
#include "copy-idle.h"
#include "tap.h"

#include <inttypes.h>

struct idle_case
{
  const char *what;
  struct copy_idle_batch next;
  uint64_t want[IDLE_CAUSE_COUNT];
};

/* The batch before every case: copied over [0, 1000), in time.  */
static const struct copy_idle_batch first = {
  .copy_start_ns = 0, .copy_end_ns = 1000, .submit_ns = 0, .read_ns = 1,
};

static const struct idle_case cases[] = {
  { "no gap: the next copy starts as the last ends",
    { .copy_start_ns = 1000, .copy_end_ns = 2000, .submit_ns = 900, .read_ns = 800,
      .row_ns = 700, .fill_start_ns = 600 },
    { 0 } },
  { "overlapping copies (two streams) leave no gap",
    { .copy_start_ns = 900, .copy_end_ns = 1900, .submit_ns = 800, .read_ns = 700,
      .row_ns = 600, .fill_start_ns = 500 },
    { 0 } },
  { "submitted before the engine ran dry: the engine's own latency",
    { .copy_start_ns = 1300, .copy_end_ns = 2300, .submit_ns = 990, .read_ns = 980,
      .row_ns = 970, .fill_start_ns = 100 },
    { [IDLE_OTHER] = 300 } },
  { "row not written, fill under way: no row",
    { .copy_start_ns = 1500, .copy_end_ns = 2500, .submit_ns = 1400, .read_ns = 1350,
      .row_ns = 1300, .fill_start_ns = 900, .previous_row_ns = 850 },
    { [IDLE_NO_ROW] = 400, [IDLE_OTHER] = 100 } },
  { "fill not begun, producer idle since its last row: no slot",
    { .copy_start_ns = 1600, .copy_end_ns = 2600, .submit_ns = 1600, .read_ns = 1550,
      .row_ns = 1500, .fill_start_ns = 1100, .previous_row_ns = 990 },
    { [IDLE_NO_SLOT] = 600 } },
  { "fill not begun, producer busy with its previous item: no row",
    { .copy_start_ns = 1600, .copy_end_ns = 2600, .submit_ns = 1600, .read_ns = 1550,
      .row_ns = 1500, .fill_start_ns = 1100, .previous_row_ns = 1090 },
    { [IDLE_NO_ROW] = 600 } },
  { "a producer's first item (no previous row): no row",
    { .copy_start_ns = 1200, .copy_end_ns = 2200, .submit_ns = 1200, .read_ns = 1150,
      .row_ns = 1100, .fill_start_ns = 1050 },
    { [IDLE_NO_ROW] = 200 } },
  { "rows without producer times (older producer): no row",
    { .copy_start_ns = 1200, .copy_end_ns = 2200, .submit_ns = 1200, .read_ns = 1150 },
    { [IDLE_NO_ROW] = 200 } },
  { "row read in time, consumer waited on a check: check",
    { .copy_start_ns = 1400, .copy_end_ns = 2400, .submit_ns = 1350, .read_ns = 950,
      .row_ns = 940, .fill_start_ns = 100, .blocked_from_ns = 960, .blocked_to_ns = 1340,
      .blocked_on = IDLE_CHECK },
    { [IDLE_CHECK] = 350, [IDLE_OTHER] = 50 } },
  { "row read in time, consumer waited on a release: release",
    { .copy_start_ns = 1400, .copy_end_ns = 2400, .submit_ns = 1400, .read_ns = 950,
      .row_ns = 940, .fill_start_ns = 100, .blocked_from_ns = 960, .blocked_to_ns = 1390,
      .blocked_on = IDLE_RELEASE },
    { [IDLE_RELEASE] = 400 } },
  { "row read in time, consumer not blocked but late: other",
    { .copy_start_ns = 1400, .copy_end_ns = 2400, .submit_ns = 1400, .read_ns = 950,
      .row_ns = 940, .fill_start_ns = 100 },
    { [IDLE_OTHER] = 400 } },
  { "its wait ended before the engine ran dry: other",
    { .copy_start_ns = 1400, .copy_end_ns = 2400, .submit_ns = 1400, .read_ns = 950,
      .row_ns = 940, .fill_start_ns = 100, .blocked_from_ns = 960, .blocked_to_ns = 999,
      .blocked_on = IDLE_CHECK },
    { [IDLE_OTHER] = 400 } },
  { "row written but unread while the consumer waited on a check: check",
    { .copy_start_ns = 1400, .copy_end_ns = 2400, .submit_ns = 1400, .read_ns = 1300,
      .row_ns = 900, .fill_start_ns = 100, .blocked_from_ns = 950, .blocked_to_ns = 1290,
      .blocked_on = IDLE_CHECK },
    { [IDLE_CHECK] = 400 } },
  { "row written but unread, consumer busy elsewhere: other",
    { .copy_start_ns = 1400, .copy_end_ns = 2400, .submit_ns = 1400, .read_ns = 1300,
      .row_ns = 900, .fill_start_ns = 100 },
    { [IDLE_OTHER] = 400 } },
  { "row written exactly as the engine ran dry counts as written",
    { .copy_start_ns = 1400, .copy_end_ns = 2400, .submit_ns = 1400, .read_ns = 1300,
      .row_ns = 1000, .fill_start_ns = 100 },
    { [IDLE_OTHER] = 400 } },
};

static bool
same_counts (const struct copy_idle *idle, const uint64_t *want)
{
  for (int c = 0; c < IDLE_CAUSE_COUNT; c++)
    if (idle->idle_ns[c] != want[c])
      return false;
  return true;
}

int
main (void)
{
  for (size_t i = 0; i < ARRAY_SIZE (cases); i++)
    {
      struct copy_idle idle;
      copy_idle_init (&idle);
      copy_idle_add (&idle, &first, true);
      copy_idle_add (&idle, &cases[i].next, true);
      if (!ok (same_counts (&idle, cases[i].want), "%s", cases[i].what))
        for (int c = 0; c < IDLE_CAUSE_COUNT; c++)
          printf ("#   %s: got %" PRIu64 ", want %" PRIu64 "\n", copy_idle_columns[c],
                  idle.idle_ns[c], cases[i].want[c]);
    }

  /* The window: nothing before the first measured batch counts.  */
  struct copy_idle idle;
  copy_idle_init (&idle);
  struct copy_idle_batch late = { .copy_start_ns = 5000, .copy_end_ns = 6000,
                                  .submit_ns = 5000, .read_ns = 4000 };
  copy_idle_add (&idle, &first, false);
  copy_idle_add (&idle, &late, true);
  ok (copy_idle_total_ns (&idle) == 0, "the gap before the first measured batch is outside");

  struct copy_idle_batch later = { .copy_start_ns = 6500, .copy_end_ns = 7000,
                                   .submit_ns = 6500, .read_ns = 6400, .row_ns = 6300 };
  copy_idle_add (&idle, &later, true);
  ok (idle.idle_ns[IDLE_NO_ROW] == 500 && copy_idle_total_ns (&idle) == 500,
      "a gap between measured batches counts, by its cause");

  struct copy_idle_batch warm = { .copy_start_ns = 9000, .copy_end_ns = 9500,
                                  .submit_ns = 9000, .read_ns = 8000 };
  copy_idle_add (&idle, &warm, false);
  ok (copy_idle_total_ns (&idle) == 500, "a gap before an unmeasured batch is outside");

  /* Overlapping copies: the engine is busy until the latest end.  */
  copy_idle_init (&idle);
  struct copy_idle_batch a = { .copy_start_ns = 0, .copy_end_ns = 3000 };
  struct copy_idle_batch b = { .copy_start_ns = 1000, .copy_end_ns = 2000 };
  struct copy_idle_batch c = { .copy_start_ns = 3500, .copy_end_ns = 4000, .submit_ns = 0 };
  copy_idle_add (&idle, &a, true);
  copy_idle_add (&idle, &b, true);
  copy_idle_add (&idle, &c, true);
  ok (idle.idle_ns[IDLE_OTHER] == 500 && copy_idle_total_ns (&idle) == 500,
      "a copy that ends inside an earlier one does not end the busy time");
  tap_plan (tap_count);         /* a trailing plan: TAP allows it */
  return done_testing ();
}
