/* arena.c -- unit tests of the shared-memory arena module: sizes, create,
   attach, reserve/publish/check/release for pool and ring, generations,
   bounds, FIFO order, refused objects, timeouts and peer detection.
   Producer and consumer are the same process here (two mappings of one
   object), except where a second process is the point of the test.  */
#include "system.h"
#include "arena.h"
#include "arena-layout.h"
#include "arena-sync.h"
#include "clock.h"
#include "die.h"
#include "payload.h"
#include "tap.h"

#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MS 1000000ULL
#define SEC 1000000000ULL

static uint64_t page;

/* One worker of one epoch with many items: item N is sequence N.  */
static const struct arena_identity test_id = {
  .run_id = 42, .worker = 0, .workers = 1, .epochs = 1, .items = 1ULL << 40,
  .size_bytes = 4096, .dtype = DTYPE_FP32, .kind = KIND_TENSOR,
};

/* Publish and check with the identity a producer gives generation G.  */
static void
publish (struct arena *a, const struct arena_handle *h)
{
  struct arena_item item = { .sequence = h->generation - 1, .epoch = 0 };
  arena_publish (a, h, &item, false);
}

static enum arena_status
check (struct arena *a, const struct arena_handle *h, const char **why)
{
  struct arena_item item = { .sequence = h->generation - 1, .epoch = 0 };
  return arena_check (a, h, &item, why);
}

static bool
path_exists (const char *path)
{
  struct stat st;
  return lstat (path, &st) == 0;
}

/* Create a producer arena and attach a consumer to it.  */
static bool
make_pair (struct arena *prod, struct arena *cons, enum arena_backend backend,
           uint64_t item_bytes, uint32_t slots)
{
  const char *why = "";
  if (arena_create (prod, backend, item_bytes, slots, false, &test_id) != 0)
    return false;
  int err = arena_attach (cons, prod->name, &why);
  if (err)
    {
      printf ("#   attach: %s: %s\n", why, strerror (err));
      arena_unlink (prod);
      return false;
    }
  return true;
}

static void
drop_pair (struct arena *prod, struct arena *cons)
{
  arena_unlink (prod);
  arena_detach (cons, true);
  arena_detach (prod, false);
}

static void
test_sizes (void)
{
  uint64_t hb, cap, sb;
  uint64_t total = arena_size (ARENA_POOL, 4096, 4, &hb, &cap, &sb);
  ok (hb == page && sb == page && cap == 4 * page && total == 5 * page,
      "pool of 4 x 4096: one header page, page-sized slots");
  total = arena_size (ARENA_POOL, 5000, 3, &hb, &cap, &sb);
  ok (sb == 2 * page && cap == 6 * page && total == 7 * page,
      "pool of 3 x 5000: slots round up to whole pages");
  total = arena_size (ARENA_POOL, 1, 1000, &hb, &cap, &sb);
  ok (hb == ((ARENA_SLOT_TABLE + 1000 * (8 + sizeof (struct arena_slot_meta)) + page - 1) / page) * page && sb == page,
      "pool of 1000 slots: the slot table grows the header");
  total = arena_size (ARENA_RING, 4096, 4, &hb, &cap, &sb);
  ok (hb == page && sb == ARENA_RECORD_BYTES + 4096
      && cap == (4 * (4096 + ARENA_RECORD_BYTES) + page - 1) / page * page && total == hb + cap,
      "ring of 4 x 4096: records of 64 + 4096 bytes, capacity a whole number of pages");
  total = arena_size (ARENA_RING, 100, 2, &hb, &cap, &sb);
  ok (sb == ARENA_RECORD_BYTES + 128 && cap == page, "ring of 2 x 100: payload rounds to 64 bytes");
  ok (hb % page == 0 && hb >= ARENA_SLOT_TABLE + sizeof (struct arena_header)
      && sizeof (struct arena_header) <= ARENA_SLOT_TABLE,
      "the header fits below the slot table; data starts page aligned");
  ok (sizeof (struct ring_record) == ARENA_RECORD_BYTES, "a ring record is 64 bytes");
}

static void
test_create (void)
{
  struct arena a, b;
  bool made = arena_create (&a, ARENA_POOL, 4096, 4, true, &test_id) == 0;
  ok (made, "create a pool arena");
  if (!made)
    return;
  char prefix[64];
  snprintf (prefix, sizeof prefix, "/arenabench.%ld.", (long) getpid ());
  size_t plen = strlen (prefix);
  bool hex = strlen (a.name) == plen + 24;
  for (const char *p = a.name + plen; *p; p++)
    hex &= (*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f');
  ok (strncmp (a.name, prefix, plen) == 0 && hex,
      "name is /arenabench.PID. and 24 hex digits (%s)", a.name);
  ok (STREQ (a.path + strlen ("/dev/shm"), a.name) && strncmp (a.path, "/dev/shm/", 9) == 0,
      "path is /dev/shm + name");
  struct stat st;
  ok (stat (a.path, &st) == 0 && S_ISREG (st.st_mode) && (st.st_mode & 0777) == 0600
      && st.st_uid == geteuid (), "object exists, regular, mode 0600, ours");
  ok ((uint64_t) st.st_size == a.map_bytes && a.map_bytes == 5 * page,
      "object size is the whole arena");
  ok ((uint64_t) st.st_blocks * 512 >= a.map_bytes, "every page is allocated up front");
  const struct arena_header *h = a.header;
  ok (h->magic == ARENA_MAGIC && memcmp (h, "ABAREN01", 8) == 0 && h->version == ARENA_VERSION,
      "header starts with the magic 'ABAREN01' and version %d", ARENA_VERSION);
  ok (h->size_bytes == 4096 && h->dtype == DTYPE_FP32 && h->kind == KIND_TENSOR
      && h->run_id == 42 && h->workers == 1 && h->epochs == 1,
      "header holds the run's identity and what its items are (size, dtype, kind)");
  ok (h->backend == ARENA_POOL && h->slot_count == 4 && h->slot_bytes == page
      && h->header_bytes == page && h->capacity == 4 * page && h->flags == ARENA_FLAG_PIN
      && arena_pinned (&a) && h->producer_pid == getpid () && h->consumer_pid == 0
      && h->state == 0 && h->produced == 0 && h->released == 0,
      "header holds backend, sizes, pin flag, producer pid, zero counters");

  ok (arena_create (&b, ARENA_RING, 4096, 4, false, &test_id) == 0 && !STREQ (a.name, b.name)
      && !arena_pinned (&b), "a second arena gets another name");
  arena_unlink (&b);
  arena_detach (&b, false);
  ok (!path_exists (b.path), "arena_unlink removes the object");
  arena_unlink (&b);
  ok (1, "arena_unlink of a gone name is harmless");

  struct arena c;
  const char *why = "";
  ok (arena_attach (&c, a.name, &why) == 0, "attach the pool arena");
  ok (!path_exists (a.path), "attach unlinks the name at once");
  ok (c.header->consumer_pid == getpid ()
      && (c.header->state & ARENA_CONSUMER_ATTACHED) && c.map_bytes == a.map_bytes,
      "attach records the consumer pid and the attached bit");
  arena_detach (&c, true);
  ok (a.header->state & ARENA_CONSUMER_DONE, "consumer detach marks the consumer done");
  arena_detach (&a, false);
  ok (a.header == NULL && a.base == NULL && a.fd == -1, "detach unmaps and closes");
}

static void
test_pool (void)
{
  struct arena p, c;
  if (!ok (make_pair (&p, &c, ARENA_POOL, 4096, 3), "pool of 3 slots: create and attach"))
    return;
  struct arena_handle hs[4];
  const char *why = "";
  bool good = true;
  for (int i = 0; i < 3; i++)
    {
      good &= arena_reserve (&p, 4096, SEC, -1, &hs[i]) == ARENA_OK;
      good &= hs[i].slot == i && hs[i].offset == page + (uint64_t) i * page
        && hs[i].bytes == 4096 && hs[i].generation == (uint64_t) i + 1;
      memset (p.base + hs[i].offset, 'a' + i, 4096);
      publish (&p, &hs[i]);
    }
  ok (good, "three reserves: slots 0 1 2, offsets one page apart, generations 1 2 3");
  ok (p.header->produced == 3, "produced counts publishes");

  /* Full: a reserve waits out its timeout, sleeping rather than spinning. */
  struct arena_handle extra;
  uint64_t t0 = clock_now_ns (), cpu0 = clock_cpu_ns ();
  enum arena_status st = arena_reserve (&p, 4096, 300 * MS, -1, &extra);
  uint64_t waited = clock_now_ns () - t0, cpu = clock_cpu_ns () - cpu0;
  ok (st == ARENA_TIMEOUT, "reserve in a full pool times out");
  ok (waited >= 300 * MS && waited < 2 * SEC, "after its timeout (%.3f s)", waited / 1e9);
  ok (cpu < 100 * MS, "without busy polling (%.3f s of CPU in a 0.3 s wait)", cpu / 1e9);

  /* The consumer sees the bytes the producer wrote, through its mapping. */
  ok (check (&c, &hs[1], &why) == ARENA_OK && c.base[hs[1].offset] == 'b'
      && c.base[hs[1].offset + 4095] == 'b', "check slot 1; its bytes are visible");
  ok (arena_release (&c, &hs[1], &why) == ARENA_OK && c.header->released == 1,
      "release slot 1");
  {
    int status = arena_release (&c, &hs[1], &why);
    ok (status == ARENA_STALE
        && STREQ (why, "stale generation: the slot changed while it was being read"),
        "releasing it twice is stale: %s", why);
  }
  {
    int status = check (&c, &hs[1], &why);
    ok (status == ARENA_STALE
        && STREQ (why, "stale generation: the slot is not filled"),
        "checking a released slot: %s", why);
  }

  /* The freed slot is reused with a new generation; the old handle is stale. */
  ok (arena_reserve (&p, 4096, SEC, -1, &hs[3]) == ARENA_OK && hs[3].slot == 1
      && hs[3].generation == 4, "the next reserve reuses slot 1 with generation 4");
  publish (&p, &hs[3]);
  {
    int status = check (&c, &hs[1], &why);
    ok (status == ARENA_STALE
        && STREQ (why, "stale generation: the slot holds another item"),
        "the old handle of slot 1: %s", why);
  }
  ok (check (&c, &hs[3], &why) == ARENA_OK, "the new handle of slot 1 checks");

  /* Reused during the read: the release's compare-and-swap notices.  */
  ok (check (&c, &hs[0], &why) == ARENA_OK, "check slot 0");
  atomic_store (&((_Atomic uint64_t *) (p.base + ARENA_SLOT_TABLE))[0], (uint64_t) 9 << 1 | 1);
  {
    int status = arena_release (&c, &hs[0], &why);
    ok (status == ARENA_STALE
        && STREQ (why, "stale generation: the slot changed while it was being read"),
        "a slot refilled between check and release is reported: %s", why);
  }
  atomic_store (&((_Atomic uint64_t *) (p.base + ARENA_SLOT_TABLE))[0], hs[0].generation << 1 | 1);

  /* Handles that point elsewhere.  */
  struct
  {
    struct arena_handle h;
    const char *why;
  } bad[] = {
    { { 0, 0, 4096, 1 }, "offset and length reach outside the arena" },
    { { 0, page - 64, 64, 1 }, "offset and length reach outside the arena" },
    { { 0, page, 4 * page, 1 }, "offset and length reach outside the arena" },
    { { 2, 3 * page, page + 1, 3 }, "offset and length reach outside the arena" },
    { { 0, 5 * page, 0, 1 }, "offset and length reach outside the arena" },
    { { 0, UINT64_MAX - 10, 4096, 1 }, "offset and length reach outside the arena" },
    { { 0, page, UINT64_MAX, 1 }, "offset and length reach outside the arena" },
    { { 3, page, 4096, 1 }, "slot out of range" },
    { { -1, page, 4096, 1 }, "slot out of range" },
    { { 0, 2 * page, 4096, 1 }, "offset or length does not match the slot" },
    { { 0, page + 64, 4096, 1 }, "offset or length does not match the slot" },
    { { 0, page, page + 1, 1 }, "offset or length does not match the slot" },
  };
  for (size_t i = 0; i < ARRAY_SIZE (bad); i++)
    {
      why = "";
      st = check (&c, &bad[i].h, &why);
      ok (st == ARENA_BAD_HANDLE && STREQ (why, bad[i].why),
          "pool handle slot %" PRId64 " offset %" PRIu64 " bytes %" PRIu64 " refused: %s",
          bad[i].h.slot, bad[i].h.offset, bad[i].h.bytes, why);
    }
  struct arena_handle big;
  errno = 0;
  ok (arena_reserve (&p, page + 1, SEC, -1, &big) == ARENA_SYSTEM && errno == EMSGSIZE,
      "reserving more than a slot fails with EMSGSIZE");

  /* finish waits for every release.  */
  ok (arena_finish (&p, 200 * MS, -1) == ARENA_TIMEOUT && (p.header->state & ARENA_PRODUCER_DONE),
      "finish with items unreleased times out and marks the producer done");
  ok (arena_release (&c, &hs[0], &why) == ARENA_OK && check (&c, &hs[2], &why) == ARENA_OK
      && arena_release (&c, &hs[2], &why) == ARENA_OK && arena_release (&c, &hs[3], &why) == ARENA_OK,
      "release the rest in any order");
  t0 = clock_now_ns ();
  ok (arena_finish (&p, 5 * SEC, -1) == ARENA_OK && clock_now_ns () - t0 < SEC
      && p.header->released == p.header->produced, "finish returns once all are released");
  drop_pair (&p, &c);
}

/* A ring whose capacity is a whole number of records: the last record
   ends exactly at the end (at + need == capacity) and still fits, in the
   first lap and after every wrap.  One record of PAGE bytes in a
   one-page ring, and two of half a page.  */
static void
test_ring_exact_fit (void)
{
  for (uint32_t slots = 1; slots <= 2; slots++)
    {
      struct arena p, c;
      uint64_t bytes = page / slots - ARENA_RECORD_BYTES;
      if (!ok (make_pair (&p, &c, ARENA_RING, bytes, slots), "exact-fit ring of %" PRIu32
               ": create and attach", slots))
        continue;
      const char *why = "";
      uint64_t bad = 0, placed = 0;
      bad += p.header->capacity != page;
      /* Three laps, one item at a time: each is placed at once.  */
      for (uint64_t i = 0; i < 3 * slots; i++)
        {
          struct arena_handle hd;
          if (arena_reserve (&p, bytes, 50 * MS, -1, &hd) != ARENA_OK)
            break;
          placed++;
          bad += hd.offset != p.header_bytes + (i % slots) * (page / slots) + ARENA_RECORD_BYTES;
          publish (&p, &hd);
          bad += check (&c, &hd, &why) != ARENA_OK;
          bad += arena_release (&c, &hd, &why) != ARENA_OK;
        }
      ok (bad == 0 && placed == 3 * slots, "exact-fit ring of %" PRIu32 " records of %" PRIu64
          " bytes: %" PRIu64 " of %" PRIu32 " items placed, at their offsets", slots, bytes,
          placed, 3 * slots);
      /* Full: SLOTS records fit without a release, the next waits.  */
      struct arena_handle hs[3];
      uint32_t filled = 0;
      while (filled < 3 && arena_reserve (&p, bytes, 50 * MS, -1, &hs[filled]) == ARENA_OK)
        publish (&p, &hs[filled++]);
      ok (filled == slots, "exact-fit ring of %" PRIu32 ": %" PRIu32 " fit at once, then it is full",
          slots, filled);
      drop_pair (&p, &c);
    }
}

/* What a rewritten header can make us report or wait for.  */
static void
test_header_counts (void)
{
  struct arena p, c;
  if (!ok (make_pair (&p, &c, ARENA_POOL, 4096, 2), "header counts: create and attach"))
    return;
  struct arena_handle hd;
  arena_reserve (&p, 4096, SEC, -1, &hd);
  publish (&p, &hd);
  atomic_store (&p.header->produced, UINT64_C (1) << 50);
  ok (arena_produced_count (&c) == test_id.items * test_id.epochs,
      "a produced count past what the run announced is bounded by it (%" PRIu64 ")",
      arena_produced_count (&c));
  atomic_store (&p.header->released, UINT64_C (1) << 63);
  ok (arena_released_count (&p) == 1 && arena_published_count (&p) == 1,
      "a release count past what was published is bounded by it (%" PRIu64 " of %" PRIu64 ")",
      arena_released_count (&p), arena_published_count (&p));
  atomic_store (&p.header->released, 0);
  arena_reserve (&p, 4096, SEC, -1, &hd);
  publish (&p, &hd);
  ok (atomic_load (&p.header->produced) == 2, "the next publish stores our own count (%" PRIu64 ")",
      (uint64_t) atomic_load (&p.header->produced));
  drop_pair (&p, &c);
  /* A release count rewritten to 0 after many items: the producer waits
     for no more releases than the full arena holds.  */
  if (make_pair (&p, &c, ARENA_POOL, 4096, 2))
    {
      const char *why;
      for (int i = 0; i < 40; i++)
        {
          arena_reserve (&p, 4096, SEC, -1, &hd);
          publish (&p, &hd);
          check (&c, &hd, &why);
          arena_release (&c, &hd, &why);
        }
      atomic_store (&p.header->released, 0);
      ok (arena_releases_wanted (&p) == 1, "released rewritten to 0 after 40 items: the producer "
          "waits for %" PRIu32 " release (at most a quarter of the 2 the pool holds)",
          arena_releases_wanted (&p));
      drop_pair (&p, &c);
    }
  /* When the kernel cannot say whether a lock is held, it is: a live
     arena is never swept.  */
  ok (arena_lock_held (-1, ARENA_LOCK_PRODUCER), "a lock query that fails counts as held");
  /* The largest slot count a header may hold is accepted.  */
  ok (make_pair (&p, &c, ARENA_RING, 1, ARENA_MAX_SLOTS), "a ring of ARENA_MAX_SLOTS (%d) records attaches",
      ARENA_MAX_SLOTS);
  drop_pair (&p, &c);
}

static void
test_ring (void)
{
  struct arena p, c;
  /* 100-byte items: 192-byte records in a one-page ring (21 fit, then wrap). */
  if (!ok (make_pair (&p, &c, ARENA_RING, 100, 2), "ring: create and attach"))
    return;
  const struct arena_header *h = p.header;
  is_double ((double) h->capacity, (double) page, 0, "ring capacity is one page");
  ok (h->slot_bytes == 192 && h->header_bytes == page, "ring records of 192 bytes after a one-page header");
  const char *why = "";
  struct payload_layout layout;
  payload_layout_init (&layout, 100, DTYPE_UINT8, KIND_TENSOR);

  /* One at a time through 3 laps: every item verified, offsets wrap.  */
  uint64_t wraps = 0, bad = 0, prev = 0, n = 3 * (page / 192) + 5;
  for (uint64_t i = 0; i < n; i++)
    {
      struct arena_handle hd;
      if (arena_reserve (&p, 100, SEC, -1, &hd) != ARENA_OK)
        {
          bad++;
          break;
        }
      payload_fill (&layout, i, p.base + hd.offset);
      publish (&p, &hd);
      if (hd.offset < prev)
        wraps++;
      prev = hd.offset;
      struct payload_check pc;
      bad += hd.slot != -1 || hd.generation != i + 1 || hd.offset < h->header_bytes + 64
        || hd.offset + hd.bytes > h->header_bytes + h->capacity || (hd.offset - h->header_bytes) % 64;
      bad += check (&c, &hd, &why) != ARENA_OK;
      payload_verify (&layout, i, c.base + hd.offset, &pc);
      bad += pc.mismatches != 0;
      bad += arena_release (&c, &hd, &why) != ARENA_OK;
    }
  ok (bad == 0 && wraps == 3, "%" PRIu64 " items one at a time: in bounds, checked, verified, "
      "released; the ring wrapped %" PRIu64 " times", n, wraps);

  /* Fill it without releasing: 21 records fit, the 22nd waits.  */
  struct arena_handle hs[32];
  int filled = 0;
  while (filled < 32 && arena_reserve (&p, 100, 50 * MS, -1, &hs[filled]) == ARENA_OK)
    publish (&p, &hs[filled++]);
  ok (filled == (int) (page / 192), "a full ring holds %d records, then times out", filled);
  bool wrapped = false;
  for (int i = 1; i < filled; i++)
    wrapped |= hs[i].offset < hs[i - 1].offset;
  ok (wrapped, "the fill wraps: a record that does not fit the tail starts at the beginning");

  /* FIFO: checking out of order is refused, and so is releasing.  */
  {
    int status = check (&c, &hs[1], &why);
    ok (status == ARENA_ORDER && STREQ (why, "ring item out of FIFO order"),
        "checking the second item first: %s", why);
  }
  ok (check (&c, &hs[0], &why) == ARENA_OK && check (&c, &hs[1], &why) == ARENA_OK,
      "checking in order works, before any release");
  {
    int status = arena_release (&c, &hs[1], &why);
    ok (status == ARENA_BAD_HANDLE
        && STREQ (why, "ring item released out of FIFO order"), "releasing the second first: %s", why);
  }
  {
    int status = check (&c, &hs[0], &why);
    ok (status == ARENA_ORDER && STREQ (why, "ring item out of FIFO order"),
        "replaying a checked item: %s", why);
  }

  /* Handles that do not match a record.  */
  struct
  {
    struct arena_handle h;
    enum arena_status st;
    const char *why;
  } cases[] = {
    { { 0, hs[2].offset, 100, hs[2].generation }, ARENA_BAD_HANDLE, "a ring item has no slot" },
    { { -1, hs[2].offset + 8, 100, hs[2].generation }, ARENA_BAD_HANDLE,
      "offset is not a ring record's payload" },
    { { -1, h->header_bytes, 100, 1 }, ARENA_BAD_HANDLE, "offset is not a ring record's payload" },
    { { -1, hs[2].offset + 64, 36, hs[2].generation }, ARENA_BAD_HANDLE,
      "no ring record at this offset" },
    { { -1, hs[2].offset, 100, hs[2].generation + 1 }, ARENA_STALE,
      "stale generation: the ring record holds another item" },
    { { -1, hs[2].offset, 64, hs[2].generation }, ARENA_BAD_HANDLE,
      "length does not match the ring record" },
    { { -1, h->header_bytes + h->capacity, 1, 1 }, ARENA_BAD_HANDLE,
      "offset and length reach outside the arena" },
    { { -1, h->header_bytes + h->capacity - 64, 128, 1 }, ARENA_BAD_HANDLE,
      "offset and length reach outside the arena" },
    { { -1, 64, 100, 1 }, ARENA_BAD_HANDLE, "offset and length reach outside the arena" },
  };
  for (size_t i = 0; i < ARRAY_SIZE (cases); i++)
    {
      why = "";
      enum arena_status st = check (&c, &cases[i].h, &why);
      ok (st == cases[i].st && STREQ (why, cases[i].why),
          "ring handle slot %" PRId64 " offset %" PRIu64 " bytes %" PRIu64 " gen %" PRIu64
          ": %s", cases[i].h.slot, cases[i].h.offset, cases[i].h.bytes, cases[i].h.generation, why);
    }

  /* Release 0 and 1 in order; then the producer can reuse their space.  */
  ok (arena_release (&c, &hs[0], &why) == ARENA_OK && arena_release (&c, &hs[1], &why) == ARENA_OK,
      "release in FIFO order");
  struct arena_handle more;
  ok (arena_reserve (&p, 100, SEC, -1, &more) == ARENA_OK && more.offset == hs[0].offset,
      "the freed space is reused by the next record");
  publish (&p, &more);

  /* A record overwritten between check and release is reported.  */
  ok (check (&c, &hs[2], &why) == ARENA_OK, "check the third item");
  struct ring_record *rec = (struct ring_record *) (p.base + hs[2].offset - ARENA_RECORD_BYTES);
  rec->generation += 1000;
  {
    int status = arena_release (&c, &hs[2], &why);
    ok (status == ARENA_STALE
        && STREQ (why, "stale generation: the ring record changed while it was being read"),
        "a record rewritten during the read: %s", why);
  }
  rec->generation -= 1000;
  struct arena_handle big;
  errno = 0;
  ok (arena_reserve (&p, page, SEC, -1, &big) == ARENA_SYSTEM && errno == EMSGSIZE,
      "a record larger than the ring fails with EMSGSIZE");
  drop_pair (&p, &c);
}

/* A second process releases 250 ms after the producer starts waiting:
   the futex wakes it at once.  Without the wake it would notice at its
   next 100 ms liveness slice (300 ms), so the bound is 280 ms.  A loaded
   machine may start the releasing child late: three tries, one must make
   it; a missing wake fails all three.  */
static void
test_wakeup (enum arena_backend backend)
{
  uint64_t best = UINT64_MAX;
  bool good = true;
  for (int attempt = 0; attempt < 3 && best >= 280 * MS; attempt++)
    {
      struct arena p, c;
      if (!make_pair (&p, &c, backend, 4096, 1))
        {
          ok (0, "wake-up: create and attach");
          return;
        }
      struct arena_handle first, second;
      arena_reserve (&p, 4096, SEC, -1, &first);
      publish (&p, &first);
      uint64_t t0 = clock_now_ns ();
      pid_t pid = fork ();
      if (pid == 0)
        {
          const char *why;
          uint64_t at = t0 + 250 * MS;
          struct timespec ts = { (time_t) (at / SEC), (long) (at % SEC) };
          while (clock_nanosleep (CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
            continue;
          check (&c, &first, &why);
          _exit (arena_release (&c, &first, &why) == ARENA_OK ? 0 : 1);
        }
      enum arena_status st = arena_reserve (&p, 4096, 10 * SEC, -1, &second);
      uint64_t waited = clock_now_ns () - t0;
      int wstatus;
      waitpid (pid, &wstatus, 0);
      good &= st == ARENA_OK && WIFEXITED (wstatus) && WEXITSTATUS (wstatus) == 0
        && waited >= 250 * MS;
      if (waited < best)
        best = waited;
      drop_pair (&p, &c);
    }
  ok (good && best < 280 * MS,
      "%s: a release at 250 ms by another process wakes the waiting producer (%.3f s < 0.280 s)",
      arena_backend_names[backend], best / 1e9);
}

/* The producer gives up early when its consumer is gone.  */
static void
test_peer_gone (void)
{
  struct arena p, c;
  struct arena_handle hd, more;

  /* The consumer detached (it marks itself done).  */
  make_pair (&p, &c, ARENA_POOL, 4096, 1);
  arena_reserve (&p, 4096, SEC, -1, &hd);
  publish (&p, &hd);
  arena_detach (&c, true);
  uint64_t t0 = clock_now_ns ();
  ok (arena_reserve (&p, 4096, 10 * SEC, -1, &more) == ARENA_PEER_GONE
      && clock_now_ns () - t0 < SEC, "reserve after the consumer detached: peer gone at once");
  ok (arena_finish (&p, 10 * SEC, -1) == ARENA_PEER_GONE, "finish after the consumer detached: peer gone");
  arena_unlink (&p);
  arena_detach (&p, false);

  /* The consumer process died without a word (SIGKILL): its lock goes
     with it.  */
  arena_create (&p, ARENA_RING, 4096, 1, false, &test_id);
  arena_reserve (&p, 4096, SEC, -1, &hd);
  publish (&p, &hd);
  pid_t pid = fork ();
  if (pid == 0)
    {
      const char *why;
      if (arena_attach (&c, p.name, &why) == 0)
        raise (SIGKILL);
      _exit (1);
    }
  int wstatus;
  waitpid (pid, &wstatus, 0);
  ok (WIFSIGNALED (wstatus) && (p.header->state & ARENA_CONSUMER_ATTACHED),
      "a child attached, then was killed");
  t0 = clock_now_ns ();
  ok (arena_reserve (&p, 4096, 10 * SEC, -1, &more) == ARENA_PEER_GONE
      && clock_now_ns () - t0 < 2 * SEC, "reserve after the consumer was killed: peer gone");
  arena_unlink (&p);
  arena_detach (&p, false);

  /* A live consumer whose recorded pid means nothing here (another PID
     namespace): alive, whatever the pid says.  */
  make_pair (&p, &c, ARENA_POOL, 4096, 1);
  arena_reserve (&p, 4096, SEC, -1, &hd);
  publish (&p, &hd);
  pid = fork ();
  if (pid == 0)
    _exit (0);
  waitpid (pid, NULL, 0);
  atomic_store (&p.header->consumer_pid, (int32_t) pid);
  ok (arena_reserve (&p, 4096, 300 * MS, -1, &more) == ARENA_TIMEOUT,
      "a live consumer with a dead pid in the header: a plain timeout, not peer gone");
  drop_pair (&p, &c);

  /* The reader of our stdout closed it.  */
  make_pair (&p, &c, ARENA_POOL, 4096, 1);
  arena_reserve (&p, 4096, SEC, -1, &hd);
  publish (&p, &hd);
  int fds[2];
  if (pipe (fds) != 0)
    abort ();
  close (fds[0]);
  t0 = clock_now_ns ();
  ok (arena_reserve (&p, 4096, 10 * SEC, fds[1], &more) == ARENA_PEER_GONE
      && clock_now_ns () - t0 < SEC, "reserve with the stdout pipe's reader gone: peer gone");
  close (fds[1]);
  /* Open pipe with a live reader and a live consumer: a plain timeout.  */
  if (pipe (fds) != 0)
    abort ();
  ok (arena_reserve (&p, 4096, 100 * MS, fds[1], &more) == ARENA_TIMEOUT,
      "reserve with a live reader that does not release: timeout");
  close (fds[0]);
  close (fds[1]);
  drop_pair (&p, &c);
}

/* Write a shared-memory object by hand for the attach refusals.  */
static char forged_name[64];

static int
forge (mode_t mode, uint64_t size)
{
  snprintf (forged_name, sizeof forged_name, "/arenabench.%ld.f0f0", (long) getpid ());
  shm_unlink (forged_name);
  int fd = shm_open (forged_name, O_RDWR | O_CREAT | O_EXCL, 0600);
  if (fd < 0 || ftruncate (fd, (off_t) size) != 0 || fchmod (fd, mode) != 0)
    abort ();
  return fd;
}

static void
test_attach_refusals (void)
{
  struct arena a, p;
  const char *why;
  struct
  {
    const char *name;
    int err;
    const char *why;
  } names[] = {
    { "/etc/passwd", EINVAL, "not an arenabench arena name" },
    { "arenabench.1.ab", EINVAL, "not an arenabench arena name" },
    { "/arenabench.", EINVAL, "not an arenabench arena name" },
    { "/arenabench.1.AB", EINVAL, "not an arenabench arena name" },
    { "/arenabench.1/../../etc/passwd", EINVAL, "not an arenabench arena name" },
    { "/arenabench.1.ab\n", EINVAL, "not an arenabench arena name" },
    { "/arenabench.111111111111111111111111111111111111111111111111111111",
      EINVAL, "not an arenabench arena name" },
    { "/arenabench.1.abcdef0123", ENOENT,
      "no such arena (its producer exited or it was consumed already)" },
  };
  for (size_t i = 0; i < ARRAY_SIZE (names); i++)
    {
      why = "";
      int err = arena_attach (&a, names[i].name, &why);
      /* Shown without its control characters: a newline would end the TAP line. */
      char shown[80];
      size_t k = 0;
      for (const char *q = names[i].name; *q && k < sizeof shown - 3; q++)
        if (*q == '\n')
          {
            shown[k++] = '\\';
            shown[k++] = 'n';
          }
        else
          shown[k++] = *q;
      shown[k] = '\0';
      ok (err == names[i].err && STREQ (why, names[i].why), "attach '%s' refused: %s",
          shown, why);
    }

  /* A symbolic link planted under an arena name.  */
  char link_name[64], link_path[80];
  snprintf (link_name, sizeof link_name, "/arenabench.%ld.11", (long) getpid ());
  snprintf (link_path, sizeof link_path, "/dev/shm%s", link_name);
  arena_create (&p, ARENA_POOL, 4096, 1, false, &test_id);
  unlink (link_path);
  if (symlink (p.path, link_path) != 0)
    abort ();
  why = "";
  {
    int status = arena_attach (&a, link_name, &why);
    ok (status == ELOOP && STREQ (why, "is a symbolic link"),
        "a symbolic link is refused: %s", why);
  }
  ok (path_exists (link_path) && path_exists (p.path), "refusal unlinks neither link nor target");
  unlink (link_path);

  /* A real arena, its header edited field by field.  */
  struct
  {
    size_t offset;
    size_t width;
    uint64_t value;
    const char *why;
  } edits[] = {
    { offsetof (struct arena_header, magic), 8, 0x4e4552414241ULL,
      "wrong magic number (not an arenabench arena)" },
    { offsetof (struct arena_header, version), 4, 1,
      "unsupported arena layout version 1 (this program reads version 4)" },
    { offsetof (struct arena_header, version), 4, 3,
      "unsupported arena layout version 3 (this program reads version 4)" },
    { offsetof (struct arena_header, version), 4, 5,
      "unsupported arena layout version 5 (this program reads version 4)" },
    { offsetof (struct arena_header, workers), 4, 0, "bad workers, epochs, items or share in header" },
    { offsetof (struct arena_header, worker), 4, 1, "bad workers, epochs, items or share in header" },
    { offsetof (struct arena_header, epochs), 4, 0, "bad workers, epochs, items or share in header" },
    { offsetof (struct arena_header, items), 8, 0, "bad workers, epochs, items or share in header" },
    { offsetof (struct arena_header, share), 4, ARENA_SHARE_COUNT,
      "bad workers, epochs, items or share in header" },
    { offsetof (struct arena_header, size_bytes), 8, 0, "bad size_bytes, dtype or kind in header" },
    { offsetof (struct arena_header, size_bytes), 8, PAYLOAD_MAX_SIZE + 1,
      "bad size_bytes, dtype or kind in header" },
    { offsetof (struct arena_header, dtype), 4, DTYPE_COUNT, "bad size_bytes, dtype or kind in header" },
    { offsetof (struct arena_header, kind), 4, KIND_COUNT, "bad size_bytes, dtype or kind in header" },
    { offsetof (struct arena_header, backend), 4, 2, "unknown backend in header" },
    { offsetof (struct arena_header, slot_count), 4, 0, "bad slot count in header" },
    { offsetof (struct arena_header, slot_count), 4, ARENA_MAX_SLOTS + 1, "bad slot count in header" },
    { offsetof (struct arena_header, slot_count), 4, 2, "header sizes do not match the object's size" },
    { offsetof (struct arena_header, capacity), 8, 8192, "header sizes do not match the object's size" },
    { offsetof (struct arena_header, header_bytes), 8, 0, "header sizes do not match the object's size" },
    { offsetof (struct arena_header, slot_bytes), 8, 1ULL << 62, "header sizes do not match the object's size" },
  };
  for (size_t i = 0; i < ARRAY_SIZE (edits); i++)
    {
      unsigned char saved[8];
      unsigned char *field = (unsigned char *) p.header + edits[i].offset;
      memcpy (saved, field, edits[i].width);
      if (edits[i].width == 8)
        memcpy (field, &edits[i].value, 8);
      else
        {
          uint32_t v = (uint32_t) edits[i].value;
          memcpy (field, &v, 4);
        }
      why = "";
      int err = arena_attach (&a, p.name, &why);
      ok (err == EPROTO && STREQ (why, edits[i].why) && path_exists (p.path),
          "header field at %zu set to %" PRIu64 ": refused (%s), name kept", edits[i].offset,
          edits[i].value, why);
      memcpy (field, saved, edits[i].width);
    }
  /* A ring header whose record size is too small to hold a record.  */
  struct arena r;
  arena_create (&r, ARENA_RING, 100, 2, false, &test_id);
  r.header->slot_bytes = 64;
  why = "";
  {
    int status = arena_attach (&a, r.name, &why);
    ok (status == EPROTO && STREQ (why, "bad record size in header"),
        "ring record size 64: %s", why);
  }
  arena_unlink (&r);
  arena_detach (&r, false);

  /* Mode not 0600.  */
  fchmod (p.fd, 0640);
  why = "";
  {
    int status = arena_attach (&a, p.name, &why);
    ok (status == EPERM
        && STREQ (why, "accessible to other users (mode is not 0600)"), "mode 0640: %s", why);
  }
  fchmod (p.fd, 0604);
  {
    int status = arena_attach (&a, p.name, &why);
    ok (status == EPERM
        && STREQ (why, "accessible to other users (mode is not 0600)"), "mode 0604: %s", why);
  }
  fchmod (p.fd, 0600);

  /* Owned by another user (needs root to arrange).  */
  if (geteuid () == 0)
    {
      if (fchown (p.fd, 65534, 65534) != 0)
        abort ();
      why = "";
      {
        int status = arena_attach (&a, p.name, &why);
        ok (status == EPERM && STREQ (why, "owned by another user"),
            "owned by uid 65534: %s", why);
      }
      if (fchown (p.fd, 0, 0) != 0)
        abort ();
    }
  else
    ok (1, "# SKIP owned by another user: needs root to chown");

  /* Restored: it attaches.  */
  why = "";
  ok (arena_attach (&a, p.name, &why) == 0, "the restored arena attaches");
  arena_detach (&a, true);
  arena_detach (&p, false);

  /* Objects that are too small.  */
  int fd = forge (0600, 100);
  why = "";
  {
    int status = arena_attach (&a, forged_name, &why);
    ok (status == EPERM && STREQ (why, "too small to be an arena"),
        "a 100-byte object: %s", why);
  }
  close (fd);
  shm_unlink (forged_name);
  fd = forge (0600, 0);
  {
    int status = arena_attach (&a, forged_name, &why);
    ok (status == EPERM && STREQ (why, "too small to be an arena"),
        "an empty object: %s", why);
  }
  close (fd);
  shm_unlink (forged_name);
  /* Right size, zero header: wrong magic.  */
  fd = forge (0600, 5 * page);
  {
    int status = arena_attach (&a, forged_name, &why);
    ok (status == EPROTO
        && STREQ (why, "wrong magic number (not an arenabench arena)"), "zeroed header: %s", why);
  }
  close (fd);
  shm_unlink (forged_name);
}

/* The producer records what each item is; a row that names the right
   place but another item is refused, even where the payload repeats.  */
static void
test_identity (enum arena_backend backend)
{
  struct arena p, c;
  const char *why = "";
  const char *where = backend == ARENA_POOL ? "slot" : "ring record";
  if (!ok (make_pair (&p, &c, backend, 4096, 2), "%s identity: create and attach",
           arena_backend_names[backend]))
    return;
  struct arena_handle h;
  arena_reserve (&p, 4096, SEC, -1, &h);
  struct arena_item item = { .sequence = 7, .epoch = 0 };
  arena_publish (&p, &h, &item, false);
  char want[200];
  struct arena_item replay = { .sequence = 7 + 251, .epoch = 0 };
  snprintf (want, sizeof want, "the row is not the item in the %s: it holds sequence 7 of "
            "worker 0, epoch 0", where);
  {
    int status = arena_check (&c, &h, &replay, &why);
    ok (status == ARENA_BAD_HANDLE && STREQ (why, want),
        "%s: sequence + 251 refused: %s", arena_backend_names[backend], why);
  }
  struct arena_item other_epoch = { .sequence = 7, .epoch = 1 };
  ok (arena_check (&c, &h, &other_epoch, &why) == ARENA_BAD_HANDLE && STREQ (why, want),
      "%s: another epoch refused", arena_backend_names[backend]);
  struct arena_handle half = h;
  half.bytes /= 2;
  {
    int status = arena_check (&c, &half, &item, &why);
    ok (status == ARENA_BAD_HANDLE
        && STREQ (why, backend == ARENA_POOL ? "length does not match the item in the slot"
                  : "length does not match the ring record"),
        "%s: half the bytes refused: %s", arena_backend_names[backend], why);
  }
  ok (arena_check (&c, &h, &item, &why) == ARENA_OK, "%s: the true identity checks",
      arena_backend_names[backend]);
  drop_pair (&p, &c);
}

/* A slot the producer publishes again without writing it cannot pass as
   the later item whose pattern equals the old one's (every 251).  */
static void
test_spoil (void)
{
  struct arena p, c;
  const char *why;
  struct payload_layout layout;
  payload_layout_init (&layout, 4096, DTYPE_FP32, KIND_TENSOR);
  if (!ok (make_pair (&p, &c, ARENA_POOL, 4096, 1), "spoil: create and attach"))
    return;
  struct arena_handle h;
  arena_reserve (&p, 4096, SEC, -1, &h);
  payload_fill (&layout, 0, p.base + h.offset);
  struct arena_item item0 = { .sequence = 0 }, item251 = { .sequence = 251 };
  arena_publish (&p, &h, &item0, false);
  struct payload_check pc;
  payload_verify (&layout, 251, c.base + h.offset, &pc);
  ok (pc.mismatches == 0, "sequence 0's payload passes as sequence 251 (the pattern repeats)");
  ok (arena_check (&c, &h, &item0, &why) == ARENA_OK && arena_release (&c, &h, &why) == ARENA_OK,
      "check and release sequence 0");
  arena_reserve (&p, 4096, SEC, -1, &h);
  arena_publish (&p, &h, &item251, false);      /* not written */
  payload_verify (&layout, 251, c.base + h.offset, &pc);
  ok (arena_check (&c, &h, &item251, &why) == ARENA_OK && pc.mismatches > 0,
      "the same slot published again unwritten: sequence 251 does not verify (%" PRIu64
      " mismatches)", pc.mismatches);
  drop_pair (&p, &c);
}

/* The shared header is not trusted after attach, and truncation is an
   error we catch, not a SIGBUS.  */
static void
test_untrusted (void)
{
  struct arena p, c;
  const char *why;
  if (!ok (make_pair (&p, &c, ARENA_POOL, 4096, 2), "untrusted: create and attach"))
    return;
  struct arena_handle h[2];
  for (int i = 0; i < 2; i++)
    {
      arena_reserve (&p, 4096, SEC, -1, &h[i]);
      publish (&p, &h[i]);
    }
  /* Someone rewrites the geometry: we keep ours.  */
  p.header->slot_count = ARENA_MAX_SLOTS;
  p.header->slot_bytes = 1ULL << 40;
  p.header->header_bytes = 0;
  p.header->capacity = UINT64_MAX;
  struct arena_handle far = { .slot = 5, .offset = page + 5 * page, .bytes = 4096, .generation = 1 };
  {
    int status = check (&c, &far, &why);
    ok (status == ARENA_BAD_HANDLE
        && STREQ (why, "offset and length reach outside the arena"),
        "a rewritten header does not widen the consumer's bounds: %s", why);
  }
  ok (check (&c, &h[1], &why) == ARENA_OK, "real items still check");
  struct arena_handle more;
  ok (arena_reserve (&p, 4096, 50 * MS, -1, &more) == ARENA_TIMEOUT,
      "nor the producer's: the full pool of 2 stays full");
  /* The object truncated under both sides.  */
  if (ftruncate (p.fd, 0) != 0)
    abort ();
  static sigjmp_buf env;
  volatile int faulted = 0;
  if (sigsetjmp (env, 1) == 0)
    {
      arena_fault_catch (&env);
      volatile unsigned char byte = c.base[h[1].offset];
      (void) byte;
    }
  else
    faulted = 1;
  arena_fault_catch (NULL);
  ok (faulted && STREQ (arena_fault_name (), c.name),
      "reading a truncated arena is caught and named: %s", arena_fault_name ());
  faulted = 0;
  if (sigsetjmp (env, 1) == 0)
    {
      arena_fault_catch (&env);
      p.base[h[0].offset] = 1;
    }
  else
    faulted = 1;
  arena_fault_catch (NULL);
  ok (faulted, "so is the producer writing into one");
  drop_pair (&p, &c);
  ok (1, "detaching from a truncated arena does not touch its header");
}

/* With stdin closed, shm_open would return descriptor 0.  */
static void
test_low_fds (void)
{
  struct arena p, c;
  int saved = dup (STDIN_FILENO);
  close (STDIN_FILENO);
  bool made = make_pair (&p, &c, ARENA_POOL, 4096, 1);
  int in_use = fcntl (STDIN_FILENO, F_GETFD);
  ok (made && p.fd > STDERR_FILENO && c.fd > STDERR_FILENO && in_use < 0,
      "with stdin closed, arenas use descriptors above 2 (%d, %d) and leave 0 closed",
      p.fd, c.fd);
  if (made)
    drop_pair (&p, &c);
  dup2 (saved, STDIN_FILENO);
  close (saved);
  /* Stderr alone closed (stdout carries this TAP): 2 stays free.  */
  fflush (stderr);
  int saved_err = dup (STDERR_FILENO);
  close (STDERR_FILENO);
  made = make_pair (&p, &c, ARENA_POOL, 4096, 1);
  bool err_free = fcntl (STDERR_FILENO, F_GETFD) < 0;
  int pfd = made ? p.fd : -1, cfd = made ? c.fd : -1;
  if (made)
    drop_pair (&p, &c);
  dup2 (saved_err, STDERR_FILENO);
  close (saved_err);
  ok (made && pfd > STDERR_FILENO && cfd > STDERR_FILENO && err_free,
      "with stderr closed, arenas use descriptors above 2 (%d, %d) and leave 2 closed", pfd, cfd);
}

/* The sweep removes objects nobody holds the producer lock on, and keeps
   live arenas whatever pid their name carries.  */
static void
test_sweep (void)
{
  struct arena live;
  arena_create (&live, ARENA_POOL, 4096, 1, false, &test_id);
  /* An arena whose producer was killed: a child creates it and dies.  */
  int pipefd[2];
  if (pipe (pipefd) != 0)
    abort ();
  pid_t pid = fork ();
  if (pid == 0)
    {
      struct arena dead;
      if (arena_create (&dead, ARENA_POOL, 4096, 1, false, &test_id) != 0)
        _exit (1);
      ssize_t w = write (pipefd[1], dead.path, sizeof dead.path);
      (void) w;
      raise (SIGKILL);
    }
  char dead_path[80] = "";
  close (pipefd[1]);
  ssize_t got = read (pipefd[0], dead_path, sizeof dead_path);
  close (pipefd[0]);
  waitpid (pid, NULL, 0);
  ok (got == sizeof dead_path && path_exists (dead_path), "a killed producer left %s", dead_path);
  /* Not an arena (a zero header) under our prefix: not ours to remove.  */
  int fd = forge (0600, 5 * page);
  char forged_path[80];
  snprintf (forged_path, sizeof forged_path, "/dev/shm%s", forged_name);
  unsigned kept = 0;
  unsigned removed = arena_sweep_orphans (0, &kept);
  ok (removed >= 1 && !path_exists (dead_path) && path_exists (live.path) && kept >= 1,
      "the sweep removes it (%u removed) and keeps the live one (%u kept)", removed, kept);
  ok (path_exists (forged_path), "and leaves an object that is not a well-formed arena");
  close (fd);
  shm_unlink (forged_name);
  arena_unlink (&live);
  arena_detach (&live, false);
}

int
main (int argc, char **argv)
{
  die_set_program_name (argv[0]);
  (void) argc;
  page = (uint64_t) sysconf (_SC_PAGESIZE);
  test_sizes ();
  test_create ();
  test_pool ();
  test_ring ();
  test_header_counts ();
  test_ring_exact_fit ();
  test_wakeup (ARENA_POOL);
  test_wakeup (ARENA_RING);
  test_peer_gone ();
  test_attach_refusals ();
  test_identity (ARENA_POOL);
  test_identity (ARENA_RING);
  test_spoil ();
  test_untrusted ();
  test_low_fds ();
  test_sweep ();
  tap_plan (tap_count);
  return done_testing ();
}
