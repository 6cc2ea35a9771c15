/* arena-ring.c -- the ring backend: a FIFO of byte records, each a
   64-byte struct ring_record and its payload, that never wrap; the
   producer's head and the consumer's tail count bytes monotonically.
   Its operations are arena_ring_ops (arena-layout.h); arena-flow.c calls
   them.  */
#include "system.h"
#include "arena.h"
#include "arena-layout.h"
#include "arena-sync.h"

static void
ring_size (uint64_t item_bytes, uint32_t slots, uint64_t page, uint64_t *table,
           uint64_t *capacity, uint64_t *slot_bytes)
{
  *table = 0;
  /* A whole number of equal records never leaves a tail too short to
     use, so SLOTS items of ITEM_BYTES fit at once.  */
  *slot_bytes = arena_ring_record_size (item_bytes);
  *capacity = arena_align_up (*slot_bytes * slots, page);
}

static const char *
ring_item_bytes (const struct arena_header *h, uint64_t *item_bytes)
{
  if (h->slot_bytes < ARENA_RECORD_BYTES + ARENA_ALIGN)
    return "bad record size in header";
  *item_bytes = h->slot_bytes - ARENA_RECORD_BYTES;
  return NULL;
}

static uint64_t
ring_items_when_full (const struct arena *arena)
{
  return arena->capacity / arena->slot_bytes;
}

static enum arena_status
ring_reserve (struct arena *arena, uint64_t bytes, uint64_t deadline, int stdout_fd,
              struct arena_handle *handle)
{
  struct arena_header *h = arena->header;
  uint64_t need = arena_ring_record_size (bytes);
  uint64_t capacity = arena->capacity;
  if (need > capacity)
    {
      errno = EMSGSIZE;
      return ARENA_SYSTEM;
    }
  uint64_t head = arena->head;
  uint64_t at = head % capacity;
  /* A record never wraps: if it does not fit before the end, it starts
     at the beginning and the gap belongs to it.  One that ends exactly
     at the end fits (a capacity that is a whole number of records).  */
  uint64_t start = at + need > capacity ? head + (capacity - at) : head;
  uint64_t end = start + need;
  for (;;)
    {
      uint32_t seen = atomic_load_explicit (&h->releases, memory_order_acquire);
      uint64_t tail = atomic_load_explicit (&h->tail, memory_order_acquire);
      if (end - tail <= capacity)
        break;
      enum arena_status st = arena_wait_for_release (arena, seen, arena_releases_wanted (arena),
                                                     deadline, stdout_fd);
      if (st != ARENA_OK)
        return st;
    }
  struct ring_record *rec = (struct ring_record *) (arena->base + arena->header_bytes
                                                    + start % capacity);
  *rec = (struct ring_record) {
    .magic = RING_RECORD_MAGIC,
    .generation = arena->next_generation++,
    .bytes = bytes,
    .begin = head,
    .end = end,
  };
  *handle = (struct arena_handle) {
    .slot = -1,
    .offset = arena->header_bytes + start % capacity + ARENA_RECORD_BYTES,
    .bytes = bytes,
    .generation = arena->next_generation - 1,
  };
  arena->head = end;
  return ARENA_OK;
}

static void
ring_publish (struct arena *arena, const struct arena_handle *handle,
              const struct arena_item *item)
{
  struct ring_record *rec = (struct ring_record *)
    (arena->base + handle->offset - ARENA_RECORD_BYTES);
  rec->sequence = item->sequence;
  rec->worker = arena->id.worker;
  rec->epoch = item->epoch;
  atomic_store_explicit (&arena->header->head, arena->head, memory_order_release);
}

static enum arena_status
ring_check (struct arena *arena, const struct arena_handle *handle,
            const struct arena_item *item, const char **why)
{
  if (handle->slot != -1)
    {
      *why = "a ring item has no slot";
      return ARENA_BAD_HANDLE;
    }
  if ((handle->offset - arena->header_bytes) % ARENA_ALIGN != 0
      || handle->offset - arena->header_bytes < ARENA_RECORD_BYTES)
    {
      *why = "offset is not a ring record's payload";
      return ARENA_BAD_HANDLE;
    }
  struct ring_record rec = *(const volatile struct ring_record *)
    (arena->base + handle->offset - ARENA_RECORD_BYTES);
  if (rec.magic != RING_RECORD_MAGIC)
    {
      *why = "no ring record at this offset";
      return ARENA_BAD_HANDLE;
    }
  if (rec.generation != handle->generation)
    {
      *why = "stale generation: the ring record holds another item";
      return ARENA_STALE;
    }
  if (rec.bytes != handle->bytes)
    {
      *why = "length does not match the ring record";
      return ARENA_BAD_HANDLE;
    }
  if (rec.sequence != item->sequence || rec.worker != arena->id.worker || rec.epoch != item->epoch)
    {
      *why = arena_identity_mismatch ("ring record", rec.sequence, rec.worker, rec.epoch);
      return ARENA_BAD_HANDLE;
    }
  /* Items may be checked before earlier ones are released (a pipelined
     consumer), so order is judged against the last item checked.  */
  if (rec.begin != arena->ring_expect)
    {
      *why = "ring item out of FIFO order";
      return ARENA_ORDER;
    }
  arena->ring_expect = rec.end;
  return ARENA_OK;
}

static enum arena_status
ring_release (struct arena *arena, const struct arena_handle *handle, const char **why)
{
  struct arena_header *h = arena->header;
  const volatile struct ring_record *rec = (const volatile struct ring_record *)
    (arena->base + handle->offset - ARENA_RECORD_BYTES);
  if (rec->generation != handle->generation)
    {
      *why = "stale generation: the ring record changed while it was being read";
      return ARENA_STALE;
    }
  uint64_t end = rec->end;
  if (rec->begin != atomic_load_explicit (&h->tail, memory_order_relaxed))
    {
      *why = "ring item released out of FIFO order";
      return ARENA_BAD_HANDLE;
    }
  arena_spoil (arena, handle);
  atomic_store_explicit (&h->tail, end, memory_order_release);
  return ARENA_OK;
}

const struct arena_backend_ops arena_ring_ops = {
  .summary = "a FIFO byte ring, released in order",
  .size = ring_size,
  .item_bytes = ring_item_bytes,
  .items_when_full = ring_items_when_full,
  .reserve = ring_reserve,
  .publish = ring_publish,
  .check = ring_check,
  .release = ring_release,
};
