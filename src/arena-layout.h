/* arena-layout.h -- what the arena modules share about the object's
   layout: where the slot table, slot records and ring records lie, and
   the checks on what an object holds.  Not for callers of arena.h.  */
#ifndef ARENABENCH_ARENA_LAYOUT_H
#define ARENABENCH_ARENA_LAYOUT_H

#include "arena-object.h"

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

/* A backend: how it lays out its data region and moves items through
   it.  arena-NAME.c defines arena_NAME_ops for each line of
   arena-backends.def; arena_backends (arena-backends.c) holds them,
   indexed by enum arena_backend; arena.c and arena-flow.c do what is common (the
   header, bounds, counters, wakes) and call these for the rest.  */
struct arena_backend_ops
{
  /* What its items sit in, in a few words (arena-produce --help).  */
  const char *summary;
  /* Handles name a slot (the row's slot column); else it is empty.  */
  bool slotted;
  /* Bytes of the per-slot table after the header (TABLE), of the data
     region, and the slot stride or record size, for SLOTS items of
     ITEM_BYTES on pages of PAGE bytes.  */
  void (*size) (uint64_t item_bytes, uint32_t slots, uint64_t page, uint64_t *table,
                uint64_t *capacity, uint64_t *slot_bytes);
  /* The item size a header's slot_bytes stands for (what SIZE was given),
     or why the header's slot_bytes cannot be this backend's.  */
  const char *(*item_bytes) (const struct arena_header *h, uint64_t *item_bytes);
  /* Items the arena holds when full: no consumer holds more.  */
  uint64_t (*items_when_full) (const struct arena *arena);
  /* Producer: room for BYTES before DEADLINE (arena_wait_for_release
     while there is none); fills in HANDLE.  */
  enum arena_status (*reserve) (struct arena *arena, uint64_t bytes, uint64_t deadline,
                                int stdout_fd, struct arena_handle *handle);
  /* Producer: record what ITEM is beside it and make it visible.  */
  void (*publish) (struct arena *arena, const struct arena_handle *handle,
                   const struct arena_item *item);
  /* Consumer: HANDLE (already within the data region) and ITEM against
     what the backend's records say.  */
  enum arena_status (*check) (struct arena *arena, const struct arena_handle *handle,
                              const struct arena_item *item, const char **why);
  /* Consumer: give the item's space back (arena_spoil it first).  */
  enum arena_status (*release) (struct arena *arena, const struct arena_handle *handle,
                                const char **why);
};

#define ARENA_BACKEND(id, name) extern const struct arena_backend_ops arena_##name##_ops;
#include "arena-backends.def"
#undef ARENA_BACKEND
extern const struct arena_backend_ops *const arena_backends[ARENA_BACKEND_COUNT];

static inline const struct arena_backend_ops *
arena_ops (const struct arena *arena)
{
  return arena_backends[arena->backend];
}

/* Shared by the backends (arena-flow.c).  */
uint32_t arena_releases_wanted (const struct arena *arena);
const char *arena_identity_mismatch (const char *where, uint64_t sequence, uint32_t worker,
                                     uint32_t epoch);
void arena_spoil (struct arena *arena, const struct arena_handle *handle);

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
