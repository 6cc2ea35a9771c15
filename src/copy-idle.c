/* copy-idle.c -- the copy engine's idle time, by cause.  */
#include "system.h"
#include "copy-idle.h"
#include "die.h"

#include <stdlib.h>

const char *const copy_idle_columns[IDLE_CAUSE_COUNT] = {
  [IDLE_NO_ROW] = "idle_no_row_s",
  [IDLE_NO_SLOT] = "idle_no_slot_s",
  [IDLE_CHECK] = "idle_check_s",
  [IDLE_RELEASE] = "idle_release_s",
  [IDLE_OTHER] = "idle_other_s",
};

void
copy_idle_init (struct copy_idle *idle)
{
  *idle = (struct copy_idle) { 0 };
}

/* Whether the consumer was waiting for a buffer at time T.  */
static bool
blocked_at (const struct copy_idle_batch *b, uint64_t t)
{
  return b->blocked_to_ns > t && b->blocked_from_ns <= t;
}

/* Why B's copy had not been submitted when the engine ran dry at IDLE.  */
static enum copy_idle_cause
cause_at (const struct copy_idle_batch *b, uint64_t idle)
{
  if (b->read_ns > idle)
    {
      bool written = b->row_ns && b->row_ns <= idle;
      if (!written)
        {
          /* Its producer had written its previous row and not begun this
             fill: it was waiting for space.  */
          bool waiting = b->fill_start_ns > idle && b->previous_row_ns
                         && b->previous_row_ns <= idle;
          return waiting ? IDLE_NO_SLOT : IDLE_NO_ROW;
        }
      /* Written and not yet read: the consumer was elsewhere.  */
      return blocked_at (b, idle) ? b->blocked_on : IDLE_OTHER;
    }
  /* Read in time, submitted late.  */
  return b->blocked_to_ns > idle ? b->blocked_on : IDLE_OTHER;
}

void
copy_idle_add (struct copy_idle *idle, const struct copy_idle_batch *b, bool measured)
{
  if (!measured)
    return;
  if (idle->count == idle->allocated)
    {
      idle->allocated = idle->allocated ? 2 * idle->allocated : 1024;
      idle->batches = xreallocarray (idle->batches, idle->allocated, sizeof *idle->batches);
    }
  idle->batches[idle->count++] = *b;
}

static int
by_copy_start (const void *a, const void *b)
{
  uint64_t x = ((const struct copy_idle_batch *) a)->copy_start_ns;
  uint64_t y = ((const struct copy_idle_batch *) b)->copy_start_ns;
  return (x > y) - (x < y);
}

void
copy_idle_finish (struct copy_idle *idle)
{
  qsort (idle->batches, idle->count, sizeof *idle->batches, by_copy_start);
  for (int c = 0; c < IDLE_CAUSE_COUNT; c++)
    idle->idle_ns[c] = 0;
  uint64_t busy_until = idle->count ? idle->batches[0].copy_end_ns : 0;
  for (size_t i = 1; i < idle->count; i++)
    {
      const struct copy_idle_batch *b = &idle->batches[i];
      uint64_t from = busy_until, to = b->copy_start_ns;
      if (to > from)
        {
          /* After the submission the wait is the driver's and the
             engine's.  */
          uint64_t late_until = b->submit_ns < to ? b->submit_ns : to;
          if (late_until > from)
            {
              idle->idle_ns[cause_at (b, from)] += late_until - from;
              idle->idle_ns[IDLE_OTHER] += to - late_until;
            }
          else
            idle->idle_ns[IDLE_OTHER] += to - from;
        }
      if (b->copy_end_ns > busy_until)
        busy_until = b->copy_end_ns;
    }
}

uint64_t
copy_idle_total_ns (const struct copy_idle *idle)
{
  uint64_t total = 0;
  for (int c = 0; c < IDLE_CAUSE_COUNT; c++)
    total += idle->idle_ns[c];
  return total;
}

void
copy_idle_free (struct copy_idle *idle)
{
  free (idle->batches);
  copy_idle_init (idle);
}
