/* copy-idle.h -- where the copy engine sat idle in a run, and why.

   h2d-check hands over its measured batches as they retire; at the end
   they are taken in the order their copies started (with two copy
   streams the engine may run a later submission first), and between the
   end of the copies so far and the start of the next one the engine had
   nothing to do.  Each such gap is put down to one cause, from what the
   batch's first item and the consumer were doing when the gap began:

     no row     the item's row had not been written: its producer was still
                filling it
     no slot    its producer had not begun to fill it: it was waiting for
                space the consumer had not yet released
     check      the row was at hand, but the consumer was waiting for a
                buffer whose check had not finished
     release    the same, waiting for the release of the buffer's items
     other      the copy was submitted in time and still started late (the
                driver and the engine's own latency), or the consumer was
                busy with other work (reading rows, writing receipts)

   The causes add up to the idle time.  */
#ifndef ARENABENCH_COPY_IDLE_H
#define ARENABENCH_COPY_IDLE_H

#include <stdbool.h>
#include <stdint.h>

enum copy_idle_cause
{
  IDLE_NO_ROW, IDLE_NO_SLOT, IDLE_CHECK, IDLE_RELEASE, IDLE_OTHER, IDLE_CAUSE_COUNT
};

/* Column names of the causes: "idle_no_row_s" ...  */
extern const char *const copy_idle_columns[IDLE_CAUSE_COUNT];

/* One batch, all times CLOCK_MONOTONIC ns.  */
struct copy_idle_batch
{
  uint64_t copy_start_ns, copy_end_ns;
  uint64_t submit_ns;           /* when its copy was submitted */
  /* Its first item: when its producer began the fill (0: unknown), wrote
     the row (0: unknown) and when the consumer read it.  */
  uint64_t fill_start_ns, row_ns, read_ns;
  /* When its producer wrote its previous row (0: none or unknown): a fill
     that began long after it waited for space.  */
  uint64_t previous_row_ns;
  /* Before submitting it, the consumer waited for an earlier buffer from
     BLOCKED_FROM_NS to BLOCKED_TO_NS (both 0: it did not), because of
     BLOCKED_ON (IDLE_CHECK or IDLE_RELEASE).  */
  uint64_t blocked_from_ns, blocked_to_ns;
  enum copy_idle_cause blocked_on;
};

struct copy_idle
{
  struct copy_idle_batch *batches;      /* the measured ones */
  size_t count, allocated;
  uint64_t idle_ns[IDLE_CAUSE_COUNT];   /* by copy_idle_finish */
};

void copy_idle_init (struct copy_idle *idle);

/* Keep batch B if it is in the measured window (MEASURED).  */
void copy_idle_add (struct copy_idle *idle, const struct copy_idle_batch *b, bool measured);

/* Fill IDLE_NS from the batches kept: the gaps between their copies, from
   the first to start to the last to end.  Call once, at the end.  */
void copy_idle_finish (struct copy_idle *idle);

/* Idle ns in all (after copy_idle_finish).  */
uint64_t copy_idle_total_ns (const struct copy_idle *idle);

void copy_idle_free (struct copy_idle *idle);

#endif
