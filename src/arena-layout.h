/* arena-layout.h -- what the arena modules share about the object's
   layout: where the slot table, slot records and ring records lie, and
   the checks on what an object holds.  Not for callers of arena.h.  */
#ifndef ARENABENCH_ARENA_LAYOUT_H
#define ARENABENCH_ARENA_LAYOUT_H

#include "arena.h"

#define RING_RECORD_MAGIC UINT64_C (0x44524f4345524252)

static inline uint64_t
arena_align_up (uint64_t value, uint64_t alignment)
{
  return (value + alignment - 1) / alignment * alignment;
}

/* Bytes one ring record of BYTES payload bytes takes.  */
static inline uint64_t
arena_ring_record_size (uint64_t bytes)
{
  return ARENA_RECORD_BYTES + arena_align_up (bytes ? bytes : 1, ARENA_ALIGN);
}

/* Pool: one word per slot, generation<<1 | full.  */
static inline _Atomic uint64_t *
arena_slot_table (const struct arena *arena)
{
  return (_Atomic uint64_t *) (arena->base + ARENA_SLOT_TABLE);
}

/* Pool: what each slot holds, after the words.  */
static inline struct arena_slot_meta *
arena_slot_meta (const struct arena *arena)
{
  return (struct arena_slot_meta *) (arena->base + ARENA_SLOT_TABLE
                                     + (uint64_t) arena->slot_count * sizeof (uint64_t));
}

/* Is H, read from an object of SIZE bytes, a well-formed arena header?
   NULL if so, else why not.  */
const char *arena_header_problem (const struct arena_header *h, uint64_t size);

/* Is the object ST an arena's: regular, this user's, mode 0600, large
   enough?  NULL if so, else why not.  */
struct stat;
const char *arena_object_problem (const struct stat *st);

/* Is NAME one we create: "/arenabench." then digits, '.' and hex?  */
bool arena_valid_name (const char *name);

#endif
