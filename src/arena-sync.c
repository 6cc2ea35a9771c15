/* arena-sync.c -- futex waits and OFD liveness locks of arenas. */
#include "system.h"
#include "arena.h"
#include "arena-sync.h"
#include "clock.h"

#include <fcntl.h>
#include <poll.h>

/* A waiting producer wakes at least this often to see whether its
   consumer is still there; releases wake it at once.  */
#define LIVENESS_SLICE_NS (100 * 1000000ULL)

/* A consumer that keeps up releases within microseconds: look this long
   before paying for the liveness checks and a futex sleep (and the
   consumer for the wake), system calls that cost as much as a small
   item's whole trip.  */
#define SPIN_NS (20 * 1000ULL)

static inline void
cpu_relax (void)
{
#if defined __x86_64__ || defined __i386__
  __builtin_ia32_pause ();
#elif defined __aarch64__
  __asm__ __volatile__ ("yield");
#endif
}

/* Whether RELEASES moved past SEEN within SPIN_NS.  */
static bool
spin_for_release (const struct arena_header *h, uint32_t seen)
{
  uint64_t start = clock_now_ns ();
  for (;;)
    {
      for (int i = 0; i < 64; i++)
        {
          if (atomic_load_explicit (&h->releases, memory_order_acquire) != seen)
            return true;
          cpu_relax ();
        }
      if (clock_now_ns () - start >= SPIN_NS)
        return false;
    }
}

int
arena_lock_take (int fd, off_t byte)
{
  struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = byte, .l_len = 1 };
  return fcntl (fd, F_OFD_SETLK, &fl) == 0 ? 0 : errno;
}

bool
arena_lock_held (int fd, off_t byte)
{
  struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = byte, .l_len = 1 };
  if (fcntl (fd, F_OFD_GETLK, &fl) != 0)
    return true;
  return fl.l_type != F_UNLCK;
}

/* Is the consumer gone?  It closed the pipe we write handles to, marked
   itself done, or attached and has since died (its lock is gone).  */
static bool
consumer_gone (const struct arena *arena, int stdout_fd)
{
  struct arena_header *h = arena->header;
  uint32_t state = atomic_load (&h->state);
  if (state & ARENA_CONSUMER_DONE)
    return true;
  if ((state & ARENA_CONSUMER_ATTACHED) && !arena_lock_held (arena->fd, ARENA_LOCK_CONSUMER))
    return true;
  if (stdout_fd >= 0)
    {
      struct pollfd p = { .fd = stdout_fd, .events = 0 };
      if (poll (&p, 1, 0) == 1 && (p.revents & (POLLERR | POLLHUP)))
        return true;
    }
  return false;
}

enum arena_status
arena_wait_for_release (struct arena *arena, uint32_t seen, uint32_t want, uint64_t deadline,
                        int stdout_fd)
{
  struct arena_header *h = arena->header;
  if (arena->before_wait)
    arena->before_wait (arena);
  if (spin_for_release (h, seen))
    return ARENA_OK;
  /* A consumer that released its last items and left between the spin and
     this look is not a lost one: the caller counts again.  */
  if (consumer_gone (arena, stdout_fd))
    return atomic_load (&h->releases) != seen ? ARENA_OK : ARENA_PEER_GONE;
  uint64_t now = clock_now_ns ();
  if (!arena->attach_noticed && arena->attach_notice && arena->first_publish_ns
      && now - arena->first_publish_ns >= ARENA_ATTACH_NOTICE_NS
      && !(atomic_load (&h->state) & ARENA_CONSUMER_ATTACHED))
    {
      arena->attach_noticed = true;
      arena->attach_notice (arena, now - arena->first_publish_ns);
    }
  if (now >= deadline)
    return ARENA_TIMEOUT;
  uint64_t slice = deadline - now < LIVENESS_SLICE_NS ? deadline - now : LIVENESS_SLICE_NS;
  struct timespec ts = { (time_t) (slice / 1000000000ULL), (long) (slice % 1000000000ULL) };
  /* WAKE_AT before WAITERS: a consumer that sees us waiting sees our
     target too (sequentially consistent atomics).  */
  uint32_t target = seen + (want ? want : 1);
  atomic_store (&h->wake_at, target);
  atomic_fetch_add (&h->waiters, 1);
  uint32_t now_releases = atomic_load (&h->releases);
  if ((int32_t) (now_releases - target) < 0)
    arena_futex (&h->releases, FUTEX_WAIT, now_releases, &ts);
  atomic_fetch_sub (&h->waiters, 1);
  return ARENA_OK;
}
