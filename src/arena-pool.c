/* arena-pool.c -- the pool backend: fixed, page-aligned slots, each with
   a word (generation<<1 | full) and a record of what it holds.  Its
   operations are arena_pool_ops (arena-layout.h); arena-flow.c calls
   them.  */
#include "system.h"
#include "arena.h"
#include "arena-layout.h"
#include "arena-sync.h"

static void
pool_size (uint64_t item_bytes, uint32_t slots, uint64_t page, uint64_t *table,
           uint64_t *capacity, uint64_t *slot_bytes)
{
  *table = (uint64_t) slots * (sizeof (uint64_t) + sizeof (struct arena_slot_meta));
  /* Page-aligned slots: each item starts on its own page.  */
  *slot_bytes = arena_align_up (item_bytes ? item_bytes : 1, page);
  *capacity = *slot_bytes * slots;
}

static const char *
pool_item_bytes (const struct arena_header *h, uint64_t *item_bytes)
{
  *item_bytes = h->slot_bytes;
  return NULL;
}

static uint64_t
pool_items_when_full (const struct arena *arena)
{
  return arena->slot_count;
}

static enum arena_status
pool_reserve (struct arena *arena, uint64_t bytes, uint64_t deadline, int stdout_fd,
              struct arena_handle *handle)
{
  struct arena_header *h = arena->header;
  _Atomic uint64_t *slots = arena_slot_table (arena);
  if (bytes > arena->slot_bytes)
    {
      errno = EMSGSIZE;
      return ARENA_SYSTEM;
    }
  for (;;)
    {
      uint32_t seen = atomic_load_explicit (&h->releases, memory_order_acquire);
      for (uint32_t k = 0; k < arena->slot_count; k++)
        {
          uint32_t s = (arena->next_slot + k) % arena->slot_count;
          if ((atomic_load_explicit (&slots[s], memory_order_acquire) & 1) == 0)
            {
              arena->next_slot = (s + 1) % arena->slot_count;
              *handle = (struct arena_handle) {
                .slot = s,
                .offset = arena->header_bytes + (uint64_t) s * arena->slot_bytes,
                .bytes = bytes,
                .generation = arena->next_generation++,
              };
              return ARENA_OK;
            }
        }
      enum arena_status st = arena_wait_for_release (arena, seen, arena_releases_wanted (arena),
                                                     deadline, stdout_fd);
      if (st != ARENA_OK)
        return st;
    }
}

static void
pool_publish (struct arena *arena, const struct arena_handle *handle,
              const struct arena_item *item)
{
  arena_slot_meta (arena)[handle->slot] = (struct arena_slot_meta) {
    .generation = handle->generation, .sequence = item->sequence, .bytes = handle->bytes,
    .worker = arena->id.worker, .epoch = item->epoch,
  };
  atomic_store_explicit (&arena_slot_table (arena)[handle->slot],
                         handle->generation << 1 | 1, memory_order_release);
}

static enum arena_status
pool_check (struct arena *arena, const struct arena_handle *handle,
            const struct arena_item *item, const char **why)
{
  if (handle->slot < 0 || (uint64_t) handle->slot >= arena->slot_count)
    {
      *why = "slot out of range";
      return ARENA_BAD_HANDLE;
    }
  if (handle->offset != arena->header_bytes + (uint64_t) handle->slot * arena->slot_bytes
      || handle->bytes > arena->slot_bytes)
    {
      *why = "offset or length does not match the slot";
      return ARENA_BAD_HANDLE;
    }
  uint64_t word = atomic_load_explicit (&arena_slot_table (arena)[handle->slot],
                                        memory_order_acquire);
  if (word != (handle->generation << 1 | 1))
    {
      *why = (word & 1) ? "stale generation: the slot holds another item"
        : "stale generation: the slot is not filled";
      return ARENA_STALE;
    }
  struct arena_slot_meta meta = ((volatile struct arena_slot_meta *) arena_slot_meta (arena))[handle->slot];
  if (meta.generation != handle->generation)
    {
      *why = "stale generation: the slot's record holds another item";
      return ARENA_STALE;
    }
  if (meta.bytes != handle->bytes)
    {
      *why = "length does not match the item in the slot";
      return ARENA_BAD_HANDLE;
    }
  if (meta.sequence != item->sequence || meta.worker != arena->id.worker
      || meta.epoch != item->epoch)
    {
      *why = arena_identity_mismatch ("slot", meta.sequence, meta.worker, meta.epoch);
      return ARENA_BAD_HANDLE;
    }
  return ARENA_OK;
}

static enum arena_status
pool_release (struct arena *arena, const struct arena_handle *handle, const char **why)
{
  _Atomic uint64_t *word = &arena_slot_table (arena)[handle->slot];
  uint64_t full = handle->generation << 1 | 1;
  /* Compare-and-swap: a slot refilled during the read, or released
     twice, does not match and is reported.  */
  if (atomic_load_explicit (word, memory_order_acquire) == full)
    arena_spoil (arena, handle);
  if (!atomic_compare_exchange_strong (word, &full, handle->generation << 1))
    {
      *why = "stale generation: the slot changed while it was being read";
      return ARENA_STALE;
    }
  return ARENA_OK;
}

const struct arena_backend_ops arena_pool_ops = {
  .summary = "fixed slots, released in any order",
  .slotted = true,
  .size = pool_size,
  .item_bytes = pool_item_bytes,
  .items_when_full = pool_items_when_full,
  .reserve = pool_reserve,
  .publish = pool_publish,
  .check = pool_check,
  .release = pool_release,
};
