/* copy-idle.c -- unit tests of the copy engine's idle accounting: each
   case is a copy that follows one that ended at t = 1000 ns, and the gap
   before it must go, whole, to the cause the table names (the part after
   the late submission to "other").  */
#include "system.h"
#include "copy-idle.h"
#include "tap.h"

#include <inttypes.h>
#include <stdlib.h>

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
  { "row written but unread, the consumer's wait began after the engine ran dry: other",
    { .copy_start_ns = 1400, .copy_end_ns = 2400, .submit_ns = 1400, .read_ns = 1300,
      .row_ns = 900, .fill_start_ns = 100, .blocked_from_ns = 1100, .blocked_to_ns = 1290,
      .blocked_on = IDLE_CHECK },
    { [IDLE_OTHER] = 400 } },
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

/* The idle counts of BATCHES (N of them, MEASURED[i] each) once finished. */
static struct copy_idle
account (const struct copy_idle_batch *batches, const bool *measured, size_t n)
{
  struct copy_idle idle;
  copy_idle_init (&idle);
  for (size_t i = 0; i < n; i++)
    copy_idle_add (&idle, &batches[i], measured[i]);
  copy_idle_finish (&idle);
  free (idle.batches);
  idle.batches = NULL;
  return idle;
}

int
main (void)
{
  for (size_t i = 0; i < ARRAY_SIZE (cases); i++)
    {
      const struct copy_idle_batch both[] = { first, cases[i].next };
      struct copy_idle idle = account (both, (const bool[]) { true, true }, 2);
      if (!ok (same_counts (&idle, cases[i].want), "%s", cases[i].what))
        for (int c = 0; c < IDLE_CAUSE_COUNT; c++)
          printf ("#   %s: got %" PRIu64 ", want %" PRIu64 "\n", copy_idle_columns[c],
                  idle.idle_ns[c], cases[i].want[c]);
    }

  /* The window: only gaps between measured batches count.  */
  const struct copy_idle_batch run[] = {
    first,
    { .copy_start_ns = 5000, .copy_end_ns = 6000, .submit_ns = 5000, .read_ns = 4000 },
    { .copy_start_ns = 6500, .copy_end_ns = 7000, .submit_ns = 6500, .read_ns = 6400,
      .row_ns = 6300 },
    { .copy_start_ns = 9000, .copy_end_ns = 9500, .submit_ns = 9000, .read_ns = 8000 },
  };
  struct copy_idle idle = account (run, (const bool[]) { false, true, true, false }, 4);
  ok (idle.idle_ns[IDLE_NO_ROW] == 500 && copy_idle_total_ns (&idle) == 500,
      "the gaps before the first measured batch and after the last are outside");

  /* Overlapping copies: the engine is busy until the latest end.  */
  const struct copy_idle_batch nested[] = {
    { .copy_start_ns = 0, .copy_end_ns = 3000 },
    { .copy_start_ns = 1000, .copy_end_ns = 2000 },
    { .copy_start_ns = 3500, .copy_end_ns = 4000 },
  };
  idle = account (nested, (const bool[]) { true, true, true }, 3);
  ok (idle.idle_ns[IDLE_OTHER] == 500 && copy_idle_total_ns (&idle) == 500,
      "a copy that ends inside an earlier one does not end the busy time");

  /* Two streams: the engine ran the later submission first.  Taken in
     submission order, [2000, 3000) would look idle; it was not.  */
  const struct copy_idle_batch swapped[] = {
    { .copy_start_ns = 0, .copy_end_ns = 1000 },
    { .copy_start_ns = 2000, .copy_end_ns = 3000, .submit_ns = 100 },
    { .copy_start_ns = 1000, .copy_end_ns = 2000, .submit_ns = 200 },
    { .copy_start_ns = 3200, .copy_end_ns = 4000, .submit_ns = 300 },
  };
  idle = account (swapped, (const bool[]) { true, true, true, true }, 4);
  ok (idle.idle_ns[IDLE_OTHER] == 200 && copy_idle_total_ns (&idle) == 200,
      "copies are taken in the order they started, not the order they were submitted");
  tap_plan (tap_count);         /* a trailing plan: TAP allows it */
  return done_testing ();
}
