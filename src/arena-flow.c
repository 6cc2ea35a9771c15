/* arena-flow.c -- items through an arena: the producer reserves, fills
   and publishes; the consumer checks and releases. */
#include "system.h"
#include "arena-layout.h"
#include "arena-sync.h"
#include "clock.h"

#include <inttypes.h>

/* ------------------------------------------------------------ producer */

/* Items the arena holds when full: a consumer can never hold more, so a
   producer never waits for more releases than this.  */
static uint64_t
items_when_full (const struct arena *arena)
{
  return arena->backend == ARENA_POOL ? arena->slot_count : arena->capacity / arena->slot_bytes;
}

/* Releases to wait for when there is no room: a quarter of the items the
   consumer holds, so the producer sleeps and is woken once per several
   items and still refills long before the consumer runs dry.  What it
   holds comes from our own count of items published and the header's
   count of releases, which anyone may rewrite: bounded by what the arena
   holds when full, a scribbled count cannot make us wait for releases
   that never come (a slice per item).  */
static uint32_t
releases_wanted (const struct arena *arena)
{
  uint64_t held = arena->published - arena_released_count (arena);
  uint64_t full = items_when_full (arena);
  if (held > full)
    held = full;
  return held >= 8 ? (uint32_t) (held / 4) : 1;
}

static enum arena_status
reserve_pool (struct arena *arena, uint64_t bytes, uint64_t deadline, int stdout_fd,
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
      enum arena_status st = arena_wait_for_release (arena, seen, releases_wanted (arena),
                                                     deadline, stdout_fd);
      if (st != ARENA_OK)
        return st;
    }
}

static enum arena_status
reserve_ring (struct arena *arena, uint64_t bytes, uint64_t deadline, int stdout_fd,
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
     at the beginning and the gap belongs to it.  */
  uint64_t start = at + need > capacity ? head + (capacity - at) : head;
  uint64_t end = start + need;
  for (;;)
    {
      uint32_t seen = atomic_load_explicit (&h->releases, memory_order_acquire);
      uint64_t tail = atomic_load_explicit (&h->tail, memory_order_acquire);
      if (end - tail <= capacity)
        break;
      enum arena_status st = arena_wait_for_release (arena, seen, releases_wanted (arena),
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

enum arena_status
arena_reserve (struct arena *arena, uint64_t bytes, uint64_t timeout_ns, int stdout_fd,
               struct arena_handle *handle)
{
  uint64_t deadline = clock_now_ns () + timeout_ns;
  return arena->backend == ARENA_POOL
    ? reserve_pool (arena, bytes, deadline, stdout_fd, handle)
    : reserve_ring (arena, bytes, deadline, stdout_fd, handle);
}

void
arena_publish (struct arena *arena, const struct arena_handle *handle,
               const struct arena_item *item, bool last)
{
  struct arena_header *h = arena->header;
  if (arena->backend == ARENA_POOL)
    {
      arena_slot_meta (arena)[handle->slot] = (struct arena_slot_meta) {
        .generation = handle->generation, .sequence = item->sequence, .bytes = handle->bytes,
        .worker = arena->id.worker, .epoch = item->epoch,
      };
      atomic_store_explicit (&arena_slot_table (arena)[handle->slot],
                             handle->generation << 1 | 1, memory_order_release);
    }
  else
    {
      struct ring_record *rec = (struct ring_record *)
        (arena->base + handle->offset - ARENA_RECORD_BYTES);
      rec->sequence = item->sequence;
      rec->worker = arena->id.worker;
      rec->epoch = item->epoch;
      atomic_store_explicit (&h->head, arena->head, memory_order_release);
    }
  /* Stored from our own count, never incremented: a rewritten header
     count is put right by the next item.  */
  atomic_store_explicit (&h->produced, ++arena->published, memory_order_release);
  if (last)
    atomic_fetch_or (&h->state, ARENA_PRODUCER_DONE);
  if (!arena->first_publish_ns)
    arena->first_publish_ns = clock_now_ns ();
}

enum arena_status
arena_finish (struct arena *arena, uint64_t timeout_ns, int stdout_fd)
{
  atomic_fetch_or (&arena->header->state, ARENA_PRODUCER_DONE);
  return arena_drain (arena, timeout_ns, stdout_fd);
}

enum arena_status
arena_drain (struct arena *arena, uint64_t timeout_ns, int stdout_fd)
{
  struct arena_header *h = arena->header;
  uint64_t deadline = clock_now_ns () + timeout_ns;
  for (;;)
    {
      uint32_t seen = atomic_load_explicit (&h->releases, memory_order_acquire);
      uint64_t left = arena->published - arena_released_count (arena);
      if (left == 0)
        return ARENA_OK;
      /* Woken by the last release (a count older than SEEN only wakes us
         early, never late).  */
      uint64_t full = items_when_full (arena);
      if (left > full)
        left = full;
      enum arena_status st = arena_wait_for_release (arena, seen, (uint32_t) left, deadline,
                                                     stdout_fd);
      if (st != ARENA_OK)
        return st;
    }
}

bool
arena_consumer_attached (const struct arena *arena)
{
  return atomic_load (&arena->header->state) & ARENA_CONSUMER_ATTACHED;
}

uint64_t
arena_released_count (const struct arena *arena)
{
  uint64_t released = atomic_load (&arena->header->released);
  return released < arena->published ? released : arena->published;
}

uint64_t
arena_published_count (const struct arena *arena)
{
  return arena->published;
}

uint64_t
arena_produced_count (const struct arena *arena)
{
  uint64_t produced = atomic_load (&arena->header->produced);
  uint64_t announced = arena->id.items * arena->id.epochs;
  return produced < announced ? produced : announced;
}

/* ------------------------------------------------------------ consumer */

/* A message with numbers in it, for WHY.  */
static _Thread_local char why_text[192];

static const char *
identity_mismatch (const char *where, uint64_t sequence, uint32_t worker, uint32_t epoch)
{
  snprintf (why_text, sizeof why_text,
            "the row is not the item in the %s: it holds sequence %" PRIu64 " of worker %" PRIu32
            ", epoch %" PRIu32, where, sequence, worker, epoch);
  return why_text;
}

enum arena_status
arena_check (struct arena *arena, const struct arena_handle *handle,
             const struct arena_item *item, const char **why)
{
  uint64_t data_end = arena->header_bytes + arena->capacity;
  if (handle->offset < arena->header_bytes || handle->offset > data_end
      || handle->bytes > data_end - handle->offset)
    {
      *why = "offset and length reach outside the arena";
      return ARENA_BAD_HANDLE;
    }
  if (arena->backend == ARENA_POOL)
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
          *why = identity_mismatch ("slot", meta.sequence, meta.worker, meta.epoch);
          return ARENA_BAD_HANDLE;
        }
      return ARENA_OK;
    }
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
      *why = identity_mismatch ("ring record", rec.sequence, rec.worker, rec.epoch);
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

/* Invert the item's first bytes: if the producer ever publishes this space
   again without writing it, the item cannot verify, even where the
   pattern of the new sequence equals the old one's.  */
static void
spoil (struct arena *arena, const struct arena_handle *handle)
{
  volatile unsigned char *p = arena->base + handle->offset;
  for (uint64_t i = 0; i < handle->bytes && i < 8; i++)
    p[i] = (unsigned char) ~p[i];
}

enum arena_status
arena_release (struct arena *arena, const struct arena_handle *handle, const char **why)
{
  struct arena_header *h = arena->header;
  if (arena->backend == ARENA_POOL)
    {
      _Atomic uint64_t *word = &arena_slot_table (arena)[handle->slot];
      uint64_t full = handle->generation << 1 | 1;
      /* Compare-and-swap: a slot refilled during the read, or released
         twice, does not match and is reported.  */
      if (atomic_load_explicit (word, memory_order_acquire) == full)
        spoil (arena, handle);
      if (!atomic_compare_exchange_strong (word, &full, handle->generation << 1))
        {
          *why = "stale generation: the slot changed while it was being read";
          return ARENA_STALE;
        }
    }
  else
    {
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
      spoil (arena, handle);
      atomic_store_explicit (&h->tail, end, memory_order_release);
    }
  atomic_fetch_add_explicit (&h->released, 1, memory_order_release);
  arena_wake_producer (h);
  /* Last: once the count is up, the main thread may unmap the arena.  */
  atomic_fetch_add_explicit (&arena->released, 1, memory_order_release);
  return ARENA_OK;
}

bool
arena_finished (const struct arena *arena)
{
  const struct arena_header *h = arena->header;
  return (atomic_load (&h->state) & ARENA_PRODUCER_DONE)
    && atomic_load (&h->produced) == atomic_load (&arena->released);
}

