/* arena-flow.c -- items through an arena: the producer reserves, fills
   and publishes; the consumer checks and releases.  What is the same for
   every backend is here (bounds, counts, wakes); what a backend does is
   behind its operations (arena-backends.def). */
#include "system.h"
#include "arena.h"
#include "arena-layout.h"
#include "arena-sync.h"
#include "clock.h"
#include "work-share.h"

#include <inttypes.h>

/* ------------------------------------------------------------ producer */

/* Releases to wait for when there is no room: a quarter of the items the
   consumer holds, so the producer sleeps and is woken once per several
   items and still refills long before the consumer runs dry.  What it
   holds comes from our own count of items published and the header's
   count of releases, which anyone may rewrite: bounded by what the arena
   holds when full, a scribbled count cannot make us wait for releases
   that never come (a slice per item).  */
uint32_t
arena_releases_wanted (const struct arena *arena)
{
  uint64_t held = arena->published - arena_released_count (arena);
  uint64_t full = arena_ops (arena)->items_when_full (arena);
  if (held > full)
    held = full;
  return held >= 8 ? (uint32_t) (held / 4) : 1;
}

enum arena_status
arena_reserve (struct arena *arena, uint64_t bytes, uint64_t timeout_ns, int stdout_fd,
               struct arena_handle *handle)
{
  uint64_t deadline = clock_now_ns () + timeout_ns;
  return arena_ops (arena)->reserve (arena, bytes, deadline, stdout_fd, handle);
}

void
arena_publish (struct arena *arena, const struct arena_handle *handle,
               const struct arena_item *item, bool last)
{
  struct arena_header *h = arena->header;
  arena_ops (arena)->publish (arena, handle, item);
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
      uint64_t full = arena_ops (arena)->items_when_full (arena);
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
  uint64_t announced = work_share_arena_items (arena->id.share, arena->id.workers,
                                               arena->id.items, arena->id.epochs);
  return produced < announced ? produced : announced;
}

/* ------------------------------------------------------------ consumer */

/* A message with numbers in it, for WHY.  */
static _Thread_local char why_text[192];

const char *
arena_identity_mismatch (const char *where, uint64_t sequence, uint32_t worker, uint32_t epoch)
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
  return arena_ops (arena)->check (arena, handle, item, why);
}

/* Invert the item's first bytes: if the producer ever publishes this space
   again without writing it, the item cannot verify, even where the
   pattern of the new sequence equals the old one's.  */
void
arena_spoil (struct arena *arena, const struct arena_handle *handle)
{
  volatile unsigned char *p = arena->base + handle->offset;
  for (uint64_t i = 0; i < handle->bytes && i < 8; i++)
    p[i] = (unsigned char) ~p[i];
}

enum arena_status
arena_release (struct arena *arena, const struct arena_handle *handle, const char **why)
{
  struct arena_header *h = arena->header;
  enum arena_status st = arena_ops (arena)->release (arena, handle, why);
  if (st != ARENA_OK)
    return st;
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

