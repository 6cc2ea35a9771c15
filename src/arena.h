/* arena.h -- POSIX shared-memory arenas: a pool of fixed slots or a FIFO
   byte ring, with flow control between one producer and one consumer.

   Layout of the shared object (all offsets from its start):
     0                 struct arena_header (magic, layout, counters)
     256               pool only: one 64-bit word per slot, generation<<1 | full
     header_bytes      data region of CAPACITY bytes (page aligned)
   Pool slot I starts at header_bytes + I*slot_bytes.  A ring record is a
   64-byte struct ring_record followed by its payload, both 64-aligned.

   Every item placed in an arena gets a fresh generation number; handles
   carry it, and a consumer refuses a handle whose generation, offset or
   length does not match what the header says is there.  */
#ifndef ARENABENCH_ARENA_H
#define ARENABENCH_ARENA_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define ARENA_MAGIC UINT64_C (0x31304e4552414241)   /* the bytes "ABAREN01" */
#define ARENA_VERSION 1
#define ARENA_NAME_PREFIX "/arenabench."
#define ARENA_SLOT_TABLE 256
#define ARENA_ALIGN 64
#define ARENA_RECORD_BYTES 64
#define ARENA_MAX_SLOTS 65536

enum arena_backend { ARENA_POOL, ARENA_RING, ARENA_BACKEND_COUNT };
extern const char *const arena_backend_names[ARENA_BACKEND_COUNT + 1];

enum { ARENA_FLAG_PIN = 1 };

/* Bits of header->state.  */
enum
{
  ARENA_PRODUCER_DONE = 1,      /* every handle has been written */
  ARENA_CONSUMER_ATTACHED = 2,  /* a consumer mapped it and unlinked the name */
  ARENA_CONSUMER_DONE = 4       /* the consumer left after releasing all it took */
};

struct arena_header
{
  uint64_t magic;
  uint32_t version;
  uint32_t backend;
  uint64_t header_bytes;
  uint64_t capacity;
  uint64_t slot_bytes;          /* pool: slot stride; ring: record size hint */
  uint32_t slot_count;
  uint32_t flags;
  int32_t producer_pid;
  _Atomic int32_t consumer_pid;
  _Atomic uint32_t state;
  _Atomic uint32_t releases;    /* futex word: bumped on every release */
  _Atomic uint32_t waiters;     /* producers sleeping on RELEASES */
  uint32_t reserved0;
  _Atomic uint64_t produced;    /* items published */
  _Atomic uint64_t released;    /* items released */
  _Atomic uint64_t head;        /* ring: producer's next byte (monotonic) */
  _Atomic uint64_t tail;        /* ring: consumer's next byte (monotonic) */
};

struct ring_record
{
  uint64_t magic;
  uint64_t generation;
  uint64_t bytes;               /* payload bytes */
  uint64_t begin;               /* monotonic head before this record */
  uint64_t end;                 /* monotonic position after this record */
  uint64_t reserved[3];
};

/* Where one item lives: what a handle row carries.  */
struct arena_handle
{
  int64_t slot;                 /* pool slot, or -1 in a ring */
  uint64_t offset;              /* item's first byte, from the mapping start */
  uint64_t bytes;
  uint64_t generation;
};

struct arena
{
  char name[64];                /* "/arenabench.PID.RANDOM" */
  char path[80];                /* "/dev/shm/arenabench.PID.RANDOM" */
  struct arena_header *header;
  unsigned char *base;
  uint64_t map_bytes;
  int fd;
  uint64_t ring_expect;          /* consumer: where the next ring item begins */
  /* producer side */
  uint64_t next_generation;
  uint32_t next_slot;
};

/* Outcome of a call that may wait on or validate against the peer.  */
enum arena_status
{
  ARENA_OK,
  ARENA_TIMEOUT,        /* no space within the timeout: consumer stalled */
  ARENA_PEER_GONE,      /* the consumer exited or closed its end */
  ARENA_BAD_HANDLE,     /* offset, length, slot or generation do not match */
  ARENA_STALE,          /* the slot was reused while, or before, it was read */
  ARENA_SYSTEM          /* a system call failed; errno holds why */
};

/* Bytes an arena needs: the header region plus the data region.  */
uint64_t arena_size (enum arena_backend backend, uint64_t item_bytes, uint32_t slots,
                     uint64_t *header_bytes, uint64_t *capacity, uint64_t *slot_bytes);

/* Producer: create a fresh arena (O_EXCL, mode 0600, unpredictable name,
   space reserved with posix_fallocate so a full /dev/shm fails here and
   never as SIGBUS later).  Returns 0 or an errno value.  */
int arena_create (struct arena *arena, enum arena_backend backend, uint64_t item_bytes,
                  uint32_t slots, bool pin);

/* Producer: wait (futex, no polling) up to TIMEOUT_NS for room for BYTES,
   and fill in where to write.  Gives up early if STDOUT_FD's reader has
   gone or the consumer process has exited.  */
enum arena_status arena_reserve (struct arena *arena, uint64_t bytes, uint64_t timeout_ns,
                                 int stdout_fd, struct arena_handle *handle);

/* Producer: make a reserved and written item visible to the consumer.  */
void arena_publish (struct arena *arena, const struct arena_handle *handle);

/* Producer: mark the stream complete, then wait until the consumer has
   released everything (or left, or TIMEOUT_NS passed).  */
enum arena_status arena_finish (struct arena *arena, uint64_t timeout_ns, int stdout_fd);

/* Either side: remove the name (harmless when already gone).  */
void arena_unlink (struct arena *arena);

/* Either side: unlink arenas of this user whose creating process is gone.
   A producer killed (SIGKILL) before any consumer learned an arena's name
   leaves it in /dev/shm, and nothing else could remove it; names carry
   the creator's pid, so it can be told from arenas still in use.  While
   some creator still runs, passes repeat for up to GRACE_NS, so that one
   killed a moment ago has finished exiting.  Returns how many were
   removed.  */
unsigned arena_sweep_orphans (uint64_t grace_ns);

/* Consumer: open and map NAME, refusing what is not a well-formed arena of
   this user; records the consumer pid and unlinks the name so nothing is
   left in /dev/shm whatever happens next.  Returns 0, or an errno value
   with WHY set to a short reason for the message.  */
int arena_attach (struct arena *arena, const char *name, const char **why);

/* Consumer: check HANDLE against the arena (bounds, slot, generation,
   ring order) before reading it; on failure WHY says what does not match.
   Call once per item, in stream order.  */
enum arena_status arena_check (struct arena *arena, const struct arena_handle *handle,
                               const char **why);

/* Consumer: hand the item's space back; re-checks the generation so a
   slot reused during the read is reported, never silently accepted.  */
enum arena_status arena_release (struct arena *arena, const struct arena_handle *handle,
                                 const char **why);

/* Consumer: mark that it has left, then unmap.  Producer: unmap.  */
void arena_detach (struct arena *arena, bool consumer);

static inline bool
arena_pinned (const struct arena *arena)
{
  return (arena->header->flags & ARENA_FLAG_PIN) != 0;
}

#endif
