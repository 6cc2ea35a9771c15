/* sequence-ledger.h -- which sequences of a run have arrived, so that
   each is counted exactly once whichever arena carried it (a pull run,
   work-share.h).  Sequences are claimed in order, so those received form
   a solid prefix and a window of stragglers after it: the ledger keeps
   the prefix as one number and the window as bits, and its memory grows
   with the window (items in flight, and those a slow worker still
   holds), not with the run.  */
#ifndef ARENABENCH_SEQUENCE_LEDGER_H
#define ARENABENCH_SEQUENCE_LEDGER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sequence_ledger
{
  uint64_t base;        /* every sequence below it has arrived */
  uint64_t *bits;       /* bit I of the window: sequence base + I */
  size_t words;         /* words of BITS in use */
  size_t size;          /* words allocated */
  uint64_t count;       /* sequences arrived */
};

/* Record SEQUENCE; false if it had arrived already.  */
bool sequence_ledger_mark (struct sequence_ledger *ledger, uint64_t sequence);

/* The first range of sequences in [FROM, END) that have not arrived:
   true with [*FIRST, *LAST] set, or false if none is missing.  */
bool sequence_ledger_gap (const struct sequence_ledger *ledger, uint64_t from, uint64_t end,
                          uint64_t *first, uint64_t *last);

void sequence_ledger_free (struct sequence_ledger *ledger);

#endif
