/* work-share.c -- how a run's workers divide each epoch's items.  */
#include "system.h"
#include "work-share.h"

#include <sys/mman.h>

const char *const work_share_names[ARENA_SHARE_COUNT + 1] = {
  [ARENA_SHARE_STATIC] = "static",
  [ARENA_SHARE_PULL] = "pull",
  [ARENA_SHARE_COUNT] = NULL,
};

bool
work_share_range (enum arena_share share, uint32_t workers, uint64_t items, uint32_t worker,
                  uint32_t epoch, uint64_t *first, uint64_t *count)
{
  uint64_t per_epoch;
  if (__builtin_mul_overflow (items, workers, &per_epoch)
      || __builtin_mul_overflow (per_epoch, epoch, first))
    return false;
  *count = per_epoch;
  if (share == ARENA_SHARE_STATIC)
    {
      *first += (uint64_t) worker * items;      /* below per_epoch: no overflow */
      *count = items;
    }
  uint64_t end;
  return !__builtin_add_overflow (*first, *count, &end);
}

uint64_t
work_share_arena_items (enum arena_share share, uint32_t workers, uint64_t items,
                        uint32_t epochs)
{
  /* Saturating: the counts come from headers anyone may have rewritten. */
  uint64_t n;
  if (__builtin_mul_overflow (items, epochs, &n)
      || (share == ARENA_SHARE_PULL && __builtin_mul_overflow (n, workers, &n)))
    return UINT64_MAX;
  return n;
}

struct work_claims
{
  /* The next sequence to claim, alone on its cache line: every worker
     writes it once per item.  */
  _Alignas (64) _Atomic uint64_t next;
};

struct work_claims *
work_claims_create (void)
{
  struct work_claims *c = mmap (NULL, sizeof *c, PROT_READ | PROT_WRITE,
                                MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (c == MAP_FAILED)
    return NULL;
  atomic_init (&c->next, 0);
  return c;
}

bool
work_claims_next (struct work_claims *c, uint64_t end, uint64_t *sequence)
{
  uint64_t next = atomic_load_explicit (&c->next, memory_order_relaxed);
  do
    if (next >= end)
      return false;
  while (!atomic_compare_exchange_weak_explicit (&c->next, &next, next + 1,
                                                 memory_order_relaxed, memory_order_relaxed));
  *sequence = next;
  return true;
}
