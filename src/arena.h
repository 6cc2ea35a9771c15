/* arena.h -- POSIX shared-memory arenas: a pool of fixed slots or a FIFO
   byte ring, with flow control between one producer and one consumer.

   Layout of the shared object (all offsets from its start):
     0                 struct arena_header (magic, layout, identity, counters)
     256               pool only: one 64-bit word per slot, generation<<1 | full,
                       then one struct arena_slot_meta per slot
     header_bytes      data region of CAPACITY bytes (page aligned)
   Pool slot I starts at header_bytes + I*slot_bytes.  A ring record is a
   64-byte struct ring_record followed by its payload, both 64-aligned.

   Every item placed in an arena gets a fresh generation number, and the
   producer writes beside it what the item is (worker, epoch, sequence,
   bytes).  A consumer refuses a handle whose generation, offset, length or
   identity does not match what the arena says is there.

   The object is shared with processes we do not trust: after creation or
   attach each side keeps its own copy of the geometry and never re-reads
   it, and every offset is bounded by that copy.  Liveness is a lock the
   kernel drops when its holder dies (an OFD lock on the object), never a
   pid, which means nothing in another PID namespace.  */
#ifndef ARENABENCH_ARENA_H
#define ARENABENCH_ARENA_H

#include <setjmp.h>

#include "arena-object.h"

extern const char *const arena_backend_names[ARENA_BACKEND_COUNT + 1];

/* BACKEND's items sit in what, in a few words (for --help).  */
const char *arena_backend_summary (enum arena_backend backend);

/* Does a handle of BACKEND name a slot (a pool), or none (a ring)?  */
bool arena_backend_slotted (enum arena_backend backend);

/* Bytes an arena needs: the header region plus the data region.  */
uint64_t arena_size (enum arena_backend backend, uint64_t item_bytes, uint32_t slots,
                     uint64_t *header_bytes, uint64_t *capacity, uint64_t *slot_bytes);

/* Write a fresh header (and empty slot table) for ARENA_SIZE's geometry
   into BASE, which holds TOTAL bytes; fills ARENA's private copy.  Used by
   arena_create, and by tests that build arenas in ordinary memory.  */
void arena_format (struct arena *arena, void *base, uint64_t total, enum arena_backend backend,
                   uint64_t item_bytes, uint32_t slots, bool pin,
                   const struct arena_identity *id);

/* Producer: create a fresh arena (O_EXCL, mode 0600 whatever the umask,
   unpredictable name, space reserved with posix_fallocate so a full
   /dev/shm fails here and never as SIGBUS later), and take the lock that
   says its producer lives.  Returns 0 or an errno value (EFBIG: over the
   file size limit, ulimit -f, when SIGXFSZ is ignored).  */
int arena_create (struct arena *arena, enum arena_backend backend, uint64_t item_bytes,
                  uint32_t slots, bool pin, const struct arena_identity *id);

/* A fresh random run id.  */
uint64_t arena_new_run_id (void);

/* Producer: wait (futex, no polling) up to TIMEOUT_NS for room for BYTES,
   and fill in where to write.  Gives up early if STDOUT_FD's reader has
   gone or the consumer process has exited.  */
enum arena_status arena_reserve (struct arena *arena, uint64_t bytes, uint64_t timeout_ns,
                                 int stdout_fd, struct arena_handle *handle);

/* Producer: record what ITEM is and make it visible to the consumer.
   LAST marks that no item will follow (before its row is written, so a
   consumer that releases it knows the arena is finished).  */
void arena_publish (struct arena *arena, const struct arena_handle *handle,
                    const struct arena_item *item, bool last);

/* Producer: mark the stream complete, then wait until the consumer has
   released everything (or left, or TIMEOUT_NS passed).  */
enum arena_status arena_finish (struct arena *arena, uint64_t timeout_ns, int stdout_fd);
/* Producer: the same wait without marking the stream complete (the end
   of an epoch).  */
enum arena_status arena_drain (struct arena *arena, uint64_t timeout_ns, int stdout_fd);

/* Producer, after a wait failed: did a consumer attach, how many items
   has it released (as the shared header says, but never more than were
   published), and how many were published (our own count)?  */
bool arena_consumer_attached (const struct arena *arena);
uint64_t arena_released_count (const struct arena *arena);
uint64_t arena_published_count (const struct arena *arena);

/* Consumer: how many items the producer says it published, never more
   than its header announced (items times epochs): a count for messages
   that anyone with access to the object may have rewritten.  */
uint64_t arena_produced_count (const struct arena *arena);

/* Either side: remove the name (harmless when already gone).  */
void arena_unlink (struct arena *arena);

/* Either side: unlink arenas of this user whose producer is gone.  A
   producer killed (SIGKILL) before any consumer learned an arena's name
   leaves it in /dev/shm, and nothing else could remove it.  An arena's
   producer holds a lock on it for as long as it lives, in whatever PID
   namespace, taken before the object has a size; an object without
   that lock is an orphan (one still blank, with no size or no header,
   and touched in the last two seconds may be one being created).  Only
   this user's objects, closed to others, with a well-formed header or
   blank, are ever removed.  While some arena is
   still locked, passes repeat for up to GRACE_NS, so that a producer
   killed a moment ago has finished exiting.  Returns how many were
   removed; *KEPT (if not NULL) gets how many live ones were left.  */
unsigned arena_sweep_orphans (uint64_t grace_ns, unsigned *kept);

/* Consumer: open and map NAME, refusing what is not a well-formed arena of
   this user; records the consumer pid and unlinks the name so nothing is
   left in /dev/shm whatever happens next.  Returns 0, or an errno value
   with WHY set to a short reason for the message.  */
int arena_attach (struct arena *arena, const char *name, const char **why);

/* Consumer: check HANDLE and ITEM against the arena (bounds, slot,
   generation, ring order, and the worker, epoch, sequence and bytes the
   producer recorded) before reading it; on failure WHY says what does not
   match.  Call once per item, in stream order.  */
enum arena_status arena_check (struct arena *arena, const struct arena_handle *handle,
                               const struct arena_item *item, const char **why);

/* Consumer: hand the item's space back; re-checks the generation so a
   slot reused during the read is reported, never silently accepted.  The
   first bytes of the item are inverted first, so a slot the producer
   failed to rewrite can never pass as a later item whose pattern repeats.  */
enum arena_status arena_release (struct arena *arena, const struct arena_handle *handle,
                                 const char **why);

/* Is the producer's stream complete: it published its last item and the
   consumer released as many as it published?  */
bool arena_finished (const struct arena *arena);

/* Consumer: mark that it has left, then unmap.  Producer: unmap.  A
   consumer does not touch a header whose object has shrunk.  */
void arena_detach (struct arena *arena, bool consumer);

/* Bus errors: another process may truncate an arena's object while we
   read or write it.  Between arena_fault_catch (&ENV) and
   arena_fault_catch (NULL), such a fault in this thread jumps to ENV
   (sigsetjmp (ENV, 1) returns 1) and arena_fault_name () names the arena;
   faults elsewhere keep their default action.  */
void arena_fault_catch (sigjmp_buf *env);
const char *arena_fault_name (void);

static inline bool
arena_pinned (const struct arena *arena)
{
  return (arena->flags & ARENA_FLAG_PIN) != 0;
}

#endif
