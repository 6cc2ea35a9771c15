/* arena-object.h -- what an arena is: the shared object's header, slot
   and ring records (see arena.h for the layout), the handles and items
   that go through it, and each side's private view of it.  Types only:
   arena.h (the interface) and the arena modules' own headers build on it,
   and it includes none of theirs.  */
#ifndef ARENABENCH_ARENA_OBJECT_H
#define ARENABENCH_ARENA_OBJECT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "payload.h"

#define ARENA_MAGIC UINT64_C (0x31304e4552414241)   /* the bytes "ABAREN01" */
/* 3: the header says what every item is (size_bytes, dtype, kind).
   4: and how the run's workers share each epoch's items (share).  */
#define ARENA_VERSION 4
#define ARENA_NAME_PREFIX "/arenabench."
#define ARENA_SLOT_TABLE 256
#define ARENA_ALIGN 64
#define ARENA_RECORD_BYTES 64
#define ARENA_MAX_SLOTS 65536
#define ARENA_MAX_WORKERS 65536
#define ARENA_MAX_EPOCHS 1000000

/* Every backend of arena-backends.def, in its order.  */
enum arena_backend
{
#define ARENA_BACKEND(id, name) ARENA_##id,
#include "arena-backends.def"
#undef ARENA_BACKEND
  ARENA_BACKEND_COUNT
};

enum { ARENA_FLAG_PIN = 1 };

/* How a run's workers divide each epoch's WORKERS * ITEMS items.  STATIC:
   worker W fills the epoch's W-th block of ITEMS sequences, so a slow
   worker sets the epoch's end.  PULL: every worker claims the epoch's
   next sequence from one shared counter as it comes free, so an arena
   holds any number of the epoch's items (and a worker may fill none).
   STATIC is 0: rows and headers that do not say are static.  */
enum arena_share { ARENA_SHARE_STATIC, ARENA_SHARE_PULL, ARENA_SHARE_COUNT };

/* Bits of header->state.  */
enum
{
  ARENA_PRODUCER_DONE = 1,      /* the last item is published: no more follow */
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
  int32_t producer_pid;         /* for messages only: pids cross namespaces */
  _Atomic int32_t consumer_pid;
  _Atomic uint32_t state;
  _Atomic uint32_t releases;    /* futex word: bumped on every release */
  _Atomic uint32_t waiters;     /* producers sleeping on RELEASES */
  _Atomic uint32_t wake_at;     /* RELEASES at which a sleeping producer wants waking */
  _Atomic uint64_t produced;    /* items published */
  _Atomic uint64_t released;    /* items released */
  _Atomic uint64_t head;        /* ring: producer's next byte (monotonic) */
  _Atomic uint64_t tail;        /* ring: consumer's next byte (monotonic) */
  /* What the producer announced: the consumer checks rows against it.  */
  uint64_t run_id;              /* the same in every arena of one run */
  uint64_t items;               /* per worker per epoch */
  uint32_t worker;
  uint32_t workers;
  uint32_t epochs;
  uint32_t share;               /* enum arena_share */
  /* What every item is: rows must describe it the same way.  */
  uint64_t size_bytes;
  uint32_t dtype;               /* enum payload_dtype */
  uint32_t kind;                /* enum payload_kind */
};

/* Pool: what slot I holds, written before its word is marked full.  */
struct arena_slot_meta
{
  uint64_t generation;
  uint64_t sequence;
  uint64_t bytes;
  uint32_t worker;
  uint32_t epoch;
};

struct ring_record
{
  uint64_t magic;
  uint64_t generation;
  uint64_t bytes;               /* payload bytes */
  uint64_t begin;               /* monotonic head before this record */
  uint64_t end;                 /* monotonic position after this record */
  uint64_t sequence;
  uint32_t worker;
  uint32_t epoch;
  uint64_t reserved;
};

/* The producer's identity of one run, written into every arena of it,
   and the description of its items (their leaf layout follows from it).  */
struct arena_identity
{
  uint64_t run_id;
  uint32_t worker, workers, epochs;
  uint64_t items;               /* per worker per epoch, as announced */
  enum arena_share share;
  uint64_t size_bytes;
  enum payload_dtype dtype;
  enum payload_kind kind;
};

/* What one item is: written by the producer, checked by the consumer.  */
struct arena_item
{
  uint64_t sequence;
  uint32_t epoch;
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
  /* Our own copy of the geometry and identity, validated once: the shared
     header may be rewritten by anyone with access to the object.  */
  enum arena_backend backend;
  uint64_t header_bytes, capacity, slot_bytes;
  uint32_t slot_count;
  uint32_t flags;
  struct arena_identity id;
  uint64_t ring_expect;          /* consumer: where the next ring item begins */
  _Atomic uint64_t released;     /* consumer: items this side released */
  int32_t producer_pid;          /* read once at attach, for messages */
  /* producer side */
  uint64_t published;            /* items published: the header's count is
                                    rewritten from it, never read back */
  uint64_t next_generation;
  uint32_t next_slot;
  uint64_t head;                 /* ring: the next byte, our own count */
  uint64_t first_publish_ns;     /* when the first item was published */
  bool attach_noticed;
  /* Called once when nobody attached to the arena ATTACH_NOTICE_NS after
     its first item, while the producer waits (a buffering filter).  */
  void (*attach_notice) (const struct arena *arena, uint64_t waited_ns);
  /* Called before every wait for space: a producer that holds rows back
     sends them here, or the consumer could never free the space.  */
  void (*before_wait) (struct arena *arena);
  struct arena *next_mapped;     /* list of mappings, for the bus-error handler */
  struct arena *prev_mapped;
};

/* How long a producer waits for a consumer to attach before saying so.  */
#define ARENA_ATTACH_NOTICE_NS (3 * 1000000000ULL)

/* Outcome of a call that may wait on or validate against the peer.  */
enum arena_status
{
  ARENA_OK,
  ARENA_TIMEOUT,        /* no space within the timeout: consumer stalled */
  ARENA_PEER_GONE,      /* the consumer exited or closed its end */
  ARENA_BAD_HANDLE,     /* offset, length, slot or generation do not match */
  ARENA_STALE,          /* the slot was reused while, or before, it was read */
  ARENA_ORDER,          /* a ring item that is not the next one in FIFO order */
  ARENA_SYSTEM          /* a system call failed; errno holds why */
};

#endif
