/* copy-idle.c -- the copy engine's idle time, by cause.  */
#include "system.h"
#include "copy-idle.h"

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
  uint64_t from = idle->busy_until_ns, to = b->copy_start_ns;
  if (measured && idle->started && to > from)
    {
      /* After the submission the wait is the driver's and the engine's.  */
      uint64_t late_until = b->submit_ns < to ? b->submit_ns : to;
      if (late_until > from)
        {
          idle->idle_ns[cause_at (b, from)] += late_until - from;
          idle->idle_ns[IDLE_OTHER] += to - late_until;
        }
      else
        idle->idle_ns[IDLE_OTHER] += to - from;
    }
  if (measured)
    idle->started = true;
  if (b->copy_end_ns > idle->busy_until_ns)
    idle->busy_until_ns = b->copy_end_ns;
}

uint64_t
copy_idle_total_ns (const struct copy_idle *idle)
{
  uint64_t total = 0;
  for (int c = 0; c < IDLE_CAUSE_COUNT; c++)
    total += idle->idle_ns[c];
  return total;
}
