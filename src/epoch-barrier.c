/* epoch-barrier.c -- a producer's workers begin each epoch together. */
#include "system.h"
#include "epoch-barrier.h"
#include "arena-sync.h"
#include "clock.h"

#include <sys/mman.h>

struct epoch_barrier
{
  _Atomic uint32_t arrivals;    /* futex word: workers arrived, all epochs */
  uint32_t workers;
};

struct epoch_barrier *
epoch_barrier_create (uint32_t workers)
{
  struct epoch_barrier *b = mmap (NULL, sizeof *b, PROT_READ | PROT_WRITE,
                                  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (b == MAP_FAILED)
    return NULL;
  atomic_init (&b->arrivals, 0);
  b->workers = workers;
  return b;
}

bool
epoch_barrier_wait (struct epoch_barrier *b, uint32_t epoch, uint64_t deadline_ns)
{
  /* Epoch E is passed once (E + 1) * WORKERS arrivals are in; the count
     wraps only after 2^32 arrivals, far beyond ARENA_MAX_EPOCHS * 1024.  */
  uint32_t target = (epoch + 1) * b->workers;
  uint32_t seen = atomic_fetch_add (&b->arrivals, 1) + 1;
  if (seen >= target)
    {
      arena_futex (&b->arrivals, FUTEX_WAKE, INT32_MAX, NULL);
      return true;
    }
  for (;;)
    {
      uint64_t now = clock_now_ns ();
      if (now >= deadline_ns)
        return false;
      uint64_t wait = deadline_ns - now;
      struct timespec ts = { (time_t) (wait / 1000000000ULL), (long) (wait % 1000000000ULL) };
      /* Shared, not private: the workers are separate processes.  */
      arena_futex (&b->arrivals, FUTEX_WAIT, seen, &ts);
      seen = atomic_load (&b->arrivals);
      if (seen >= target)
        return true;
    }
}
