/* work-share.h -- how a run's workers divide each epoch's items, and the
   counter they pull them from.

   Every item of a run has a sequence number: epoch E's WORKERS * ITEMS
   items are the sequences [E * WORKERS * ITEMS, (E + 1) * WORKERS * ITEMS).
   Under ARENA_SHARE_STATIC worker W fills the W-th block of ITEMS of them;
   under ARENA_SHARE_PULL the workers claim them one at a time, in order,
   from a counter in memory that fork(2) shares, so whichever worker is
   free fills the next item.  Either way every sequence is filled exactly
   once, and its payload depends on the sequence alone.  */
#ifndef ARENABENCH_WORK_SHARE_H
#define ARENABENCH_WORK_SHARE_H

#include "arena-object.h"

/* "static", "pull", then NULL; indexed by enum arena_share.  */
extern const char *const work_share_names[ARENA_SHARE_COUNT + 1];

/* The sequences WORKER may fill in EPOCH: [*FIRST, *FIRST + *COUNT).
   False when they overflow 64 bits (a row that cannot be).  */
bool work_share_range (enum arena_share share, uint32_t workers, uint64_t items,
                       uint32_t worker, uint32_t epoch, uint64_t *first, uint64_t *count);

/* The most items one arena of a run can hold over all its epochs.  */
uint64_t work_share_arena_items (enum arena_share share, uint32_t workers, uint64_t items,
                                 uint32_t epochs);

/* The pull counter, shared by the workers of one producer.  */
struct work_claims;

/* A counter at sequence 0, in memory that fork(2) shares; NULL with errno
   set if it cannot be mapped.  */
struct work_claims *work_claims_create (void);

/* Claim the next sequence below END (the end of the current epoch's
   sequences) into *SEQUENCE; false once the epoch's items are all
   claimed.  The counter never passes END, so once every worker has
   found an epoch spent, the next epoch's first claim is END.  */
bool work_claims_next (struct work_claims *claims, uint64_t end, uint64_t *sequence);

#endif
