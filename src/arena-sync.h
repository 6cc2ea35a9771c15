/* arena-sync.h -- between an arena's producer and consumer: the futex the
   producer sleeps on, and the OFD locks that say who is alive.  */
#ifndef ARENABENCH_ARENA_SYNC_H
#define ARENABENCH_ARENA_SYNC_H

#include "arena-object.h"

#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static inline long
arena_futex (_Atomic uint32_t *word, int op, uint32_t value, const struct timespec *timeout)
{
  return syscall (SYS_futex, (uint32_t *) word, op, value, timeout, NULL, 0);
}

/* Consumer: tell a sleeping producer that space was freed, at the release
   that brings as much as it asked for (arena_wait_for_release): once, not
   on every release while a woken producer waits for a CPU.  A producer
   that set its target after that release sees it before sleeping (the
   atomics are sequentially consistent).  Inline: it is on every release. */
static inline void
arena_wake_producer (struct arena_header *h)
{
  uint32_t releases = atomic_fetch_add (&h->releases, 1) + 1;
  if (atomic_load (&h->waiters) && releases == atomic_load (&h->wake_at))
    arena_futex (&h->releases, FUTEX_WAKE, INT32_MAX, NULL);
}

/* Liveness locks.  The producer holds a write lock on byte 0 of the
   object, the consumer one on byte 1.  They are OFD locks: they belong to
   the open file description, which every descriptor and mapping of it
   keeps open, so the kernel drops them when the last holder dies however
   it dies, and a process in another PID namespace sees them the same.  */
enum { ARENA_LOCK_PRODUCER = 0, ARENA_LOCK_CONSUMER = 1 };

/* Take the lock on BYTE of FD without waiting: 0 or an errno value
   (EAGAIN or EACCES: another holds it).  */
int arena_lock_take (int fd, off_t byte);

/* Does another open file description hold the lock on BYTE?  When the
   kernel cannot say, true: a live arena is never removed.  */
bool arena_lock_held (int fd, off_t byte);

/* Producer: sleep until WANT more releases than SEEN (the release count
   read before looking for room) have happened, a liveness slice passes, or
   DEADLINE; ARENA_PEER_GONE if the consumer has gone, ARENA_TIMEOUT past
   DEADLINE.  Asking for several releases at once (never more than the
   items the consumer holds) spares both sides a system call per item.  */
enum arena_status arena_wait_for_release (struct arena *arena, uint32_t seen, uint32_t want,
                                          uint64_t deadline, int stdout_fd);

#endif
