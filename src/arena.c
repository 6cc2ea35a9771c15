/* arena.c -- shared-memory arenas with futex flow control. */
#include "system.h"
#include "arena.h"
#include "clock.h"
#include "rng.h"

#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/futex.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define RING_RECORD_MAGIC UINT64_C (0x44524f4345524252)

/* A waiting producer wakes at least this often to see whether its
   consumer is still there; releases wake it at once.  */
#define LIVENESS_SLICE_NS (100 * 1000000ULL)

const char *const arena_backend_names[ARENA_BACKEND_COUNT + 1] = { "pool", "ring", NULL };

static uint64_t
align_up (uint64_t value, uint64_t alignment)
{
  return (value + alignment - 1) / alignment * alignment;
}

static uint64_t
page_size (void)
{
  long size = sysconf (_SC_PAGESIZE);
  return size > 0 ? (uint64_t) size : 4096;
}

static uint64_t
ring_record_size (uint64_t bytes)
{
  return ARENA_RECORD_BYTES + align_up (bytes ? bytes : 1, ARENA_ALIGN);
}

uint64_t
arena_size (enum arena_backend backend, uint64_t item_bytes, uint32_t slots,
            uint64_t *header_bytes, uint64_t *capacity, uint64_t *slot_bytes)
{
  uint64_t page = page_size ();
  uint64_t table = backend == ARENA_POOL ? (uint64_t) slots * sizeof (uint64_t) : 0;
  *header_bytes = align_up (ARENA_SLOT_TABLE + table, page);
  if (backend == ARENA_POOL)
    {
      /* Page-aligned slots: each item starts on its own page.  */
      *slot_bytes = align_up (item_bytes ? item_bytes : 1, page);
      *capacity = *slot_bytes * slots;
    }
  else
    {
      /* A whole number of equal records never leaves a tail too short to
         use, so SLOTS items of ITEM_BYTES fit at once.  */
      *slot_bytes = ring_record_size (item_bytes);
      *capacity = align_up (*slot_bytes * slots, page);
    }
  return *header_bytes + *capacity;
}

static _Atomic uint64_t *
slot_table (const struct arena *arena)
{
  return (_Atomic uint64_t *) (arena->base + ARENA_SLOT_TABLE);
}

static long
futex (_Atomic uint32_t *word, int op, uint32_t value, const struct timespec *timeout)
{
  return syscall (SYS_futex, (uint32_t *) word, op, value, timeout, NULL, 0);
}

static void
wake_producer (struct arena_header *h)
{
  atomic_fetch_add_explicit (&h->releases, 1, memory_order_release);
  if (atomic_load_explicit (&h->waiters, memory_order_acquire))
    futex (&h->releases, FUTEX_WAKE, INT32_MAX, NULL);
}

/* Does PID still run?  A zombie (killed, not yet reaped) does not.  */
static bool
process_alive (pid_t pid)
{
  if (kill (pid, 0) != 0)
    return errno != ESRCH;
  char path[64], stat_line[512];
  snprintf (path, sizeof path, "/proc/%ld/stat", (long) pid);
  FILE *f = fopen (path, "r");
  if (!f)
    return true;
  bool zombie = false;
  if (fgets (stat_line, sizeof stat_line, f))
    {
      /* "pid (comm) S ...": the state follows the last ')'.  */
      char *paren = strrchr (stat_line, ')');
      zombie = paren && paren[1] == ' ' && paren[2] == 'Z';
    }
  fclose (f);
  return !zombie;
}

/* Is the consumer gone?  It closed the pipe we write handles to, marked
   itself done, or its process no longer exists.  */
static bool
consumer_gone (const struct arena *arena, int stdout_fd)
{
  struct arena_header *h = arena->header;
  if (atomic_load (&h->state) & ARENA_CONSUMER_DONE)
    return true;
  pid_t pid = atomic_load (&h->consumer_pid);
  if (pid > 0 && !process_alive (pid))
    return true;
  if (stdout_fd >= 0)
    {
      struct pollfd p = { .fd = stdout_fd, .events = 0 };
      if (poll (&p, 1, 0) == 1 && (p.revents & (POLLERR | POLLHUP)))
        return true;
    }
  return false;
}

/* Sleep until a release happens, a liveness slice passes, or DEADLINE.  */
static enum arena_status
wait_for_release (struct arena *arena, uint32_t seen, uint64_t deadline, int stdout_fd)
{
  struct arena_header *h = arena->header;
  if (consumer_gone (arena, stdout_fd))
    return ARENA_PEER_GONE;
  uint64_t now = clock_now_ns ();
  if (now >= deadline)
    return ARENA_TIMEOUT;
  uint64_t slice = deadline - now < LIVENESS_SLICE_NS ? deadline - now : LIVENESS_SLICE_NS;
  struct timespec ts = { (time_t) (slice / 1000000000ULL), (long) (slice % 1000000000ULL) };
  atomic_fetch_add (&h->waiters, 1);
  if (atomic_load (&h->releases) == seen)
    futex (&h->releases, FUTEX_WAIT, seen, &ts);
  atomic_fetch_sub (&h->waiters, 1);
  return ARENA_OK;
}

static void
random_name (struct arena *arena)
{
  uint64_t r[2];
  rng_entropy_bytes (r, sizeof r);
  snprintf (arena->name, sizeof arena->name, ARENA_NAME_PREFIX "%ld.%016" PRIx64 "%08" PRIx64,
            (long) getpid (), r[0], r[1] & 0xffffffffu);
  snprintf (arena->path, sizeof arena->path, "/dev/shm%s", arena->name);
}

int
arena_create (struct arena *arena, enum arena_backend backend, uint64_t item_bytes,
              uint32_t slots, bool pin)
{
  uint64_t header_bytes, capacity, slot_bytes;
  uint64_t total = arena_size (backend, item_bytes, slots, &header_bytes, &capacity, &slot_bytes);
  memset (arena, 0, sizeof *arena);
  arena->fd = -1;
  random_name (arena);
  int fd = shm_open (arena->name, O_RDWR | O_CREAT | O_EXCL, 0600);
  if (fd < 0)
    return errno;
  int err = 0;
  if (ftruncate (fd, (off_t) total) != 0)
    err = errno;
  /* Reserve every page now: tmpfs otherwise allocates on first touch and
     a full /dev/shm would kill us with SIGBUS in the middle of a run.  */
  if (!err)
    err = posix_fallocate (fd, 0, (off_t) total);
  void *base = MAP_FAILED;
  if (!err)
    {
      base = mmap (NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
      if (base == MAP_FAILED)
        err = errno;
    }
  if (err)
    {
      close (fd);
      shm_unlink (arena->name);
      return err;
    }
  arena->fd = fd;
  arena->base = base;
  arena->map_bytes = total;
  arena->header = base;
  arena->next_generation = 1;
  struct arena_header *h = arena->header;
  h->backend = backend;
  h->header_bytes = header_bytes;
  h->capacity = capacity;
  h->slot_bytes = slot_bytes;
  h->slot_count = slots;
  h->flags = pin ? ARENA_FLAG_PIN : 0;
  h->producer_pid = getpid ();
  h->version = ARENA_VERSION;
  /* Magic last: a consumer that sees it sees a complete header.  */
  atomic_thread_fence (memory_order_release);
  h->magic = ARENA_MAGIC;
  return 0;
}

static enum arena_status
reserve_pool (struct arena *arena, uint64_t bytes, uint64_t deadline, int stdout_fd,
              struct arena_handle *handle)
{
  struct arena_header *h = arena->header;
  _Atomic uint64_t *slots = slot_table (arena);
  if (bytes > h->slot_bytes)
    {
      errno = EMSGSIZE;
      return ARENA_SYSTEM;
    }
  for (;;)
    {
      uint32_t seen = atomic_load_explicit (&h->releases, memory_order_acquire);
      for (uint32_t k = 0; k < h->slot_count; k++)
        {
          uint32_t s = (arena->next_slot + k) % h->slot_count;
          if ((atomic_load_explicit (&slots[s], memory_order_acquire) & 1) == 0)
            {
              arena->next_slot = (s + 1) % h->slot_count;
              *handle = (struct arena_handle) {
                .slot = s,
                .offset = h->header_bytes + (uint64_t) s * h->slot_bytes,
                .bytes = bytes,
                .generation = arena->next_generation++,
              };
              return ARENA_OK;
            }
        }
      enum arena_status st = wait_for_release (arena, seen, deadline, stdout_fd);
      if (st != ARENA_OK)
        return st;
    }
}

static enum arena_status
reserve_ring (struct arena *arena, uint64_t bytes, uint64_t deadline, int stdout_fd,
              struct arena_handle *handle)
{
  struct arena_header *h = arena->header;
  uint64_t need = ring_record_size (bytes);
  if (need > h->capacity)
    {
      errno = EMSGSIZE;
      return ARENA_SYSTEM;
    }
  uint64_t head = atomic_load_explicit (&h->head, memory_order_relaxed);
  uint64_t at = head % h->capacity;
  /* A record never wraps: if it does not fit before the end, it starts
     at the beginning and the gap belongs to it.  */
  uint64_t start = at + need > h->capacity ? head + (h->capacity - at) : head;
  uint64_t end = start + need;
  for (;;)
    {
      uint32_t seen = atomic_load_explicit (&h->releases, memory_order_acquire);
      uint64_t tail = atomic_load_explicit (&h->tail, memory_order_acquire);
      if (end - tail <= h->capacity)
        break;
      enum arena_status st = wait_for_release (arena, seen, deadline, stdout_fd);
      if (st != ARENA_OK)
        return st;
    }
  struct ring_record *rec = (struct ring_record *) (arena->base + h->header_bytes
                                                    + start % h->capacity);
  *rec = (struct ring_record) {
    .magic = RING_RECORD_MAGIC,
    .generation = arena->next_generation++,
    .bytes = bytes,
    .begin = head,
    .end = end,
  };
  *handle = (struct arena_handle) {
    .slot = -1,
    .offset = h->header_bytes + start % h->capacity + ARENA_RECORD_BYTES,
    .bytes = bytes,
    .generation = rec->generation,
  };
  return ARENA_OK;
}

enum arena_status
arena_reserve (struct arena *arena, uint64_t bytes, uint64_t timeout_ns, int stdout_fd,
               struct arena_handle *handle)
{
  uint64_t deadline = clock_now_ns () + timeout_ns;
  return arena->header->backend == ARENA_POOL
    ? reserve_pool (arena, bytes, deadline, stdout_fd, handle)
    : reserve_ring (arena, bytes, deadline, stdout_fd, handle);
}

void
arena_publish (struct arena *arena, const struct arena_handle *handle)
{
  struct arena_header *h = arena->header;
  if (h->backend == ARENA_POOL)
    atomic_store_explicit (&slot_table (arena)[handle->slot],
                           handle->generation << 1 | 1, memory_order_release);
  else
    {
      const struct ring_record *rec = (const struct ring_record *)
        (arena->base + handle->offset - ARENA_RECORD_BYTES);
      atomic_store_explicit (&h->head, rec->end, memory_order_release);
    }
  atomic_fetch_add_explicit (&h->produced, 1, memory_order_release);
}

enum arena_status
arena_finish (struct arena *arena, uint64_t timeout_ns, int stdout_fd)
{
  struct arena_header *h = arena->header;
  atomic_fetch_or (&h->state, ARENA_PRODUCER_DONE);
  uint64_t deadline = clock_now_ns () + timeout_ns;
  for (;;)
    {
      uint32_t seen = atomic_load_explicit (&h->releases, memory_order_acquire);
      if (atomic_load (&h->released) == atomic_load (&h->produced))
        return ARENA_OK;
      enum arena_status st = wait_for_release (arena, seen, deadline, stdout_fd);
      if (st != ARENA_OK)
        return st;
    }
}

void
arena_unlink (struct arena *arena)
{
  if (arena->name[0])
    shm_unlink (arena->name);
}

/* Names we create: "/arenabench." then digits, '.', hex; nothing else may
   reach shm_open, so a row cannot name an arbitrary file.  */
static bool
valid_name (const char *name)
{
  size_t prefix = strlen (ARENA_NAME_PREFIX);
  if (strncmp (name, ARENA_NAME_PREFIX, prefix) != 0 || strlen (name) >= sizeof ((struct arena *) 0)->name)
    return false;
  for (const char *p = name + prefix; *p; p++)
    if (!(*p == '.' || (*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
      return false;
  return name[prefix] != '\0';
}

/* One pass over /dev/shm: unlink our arenas whose creator is gone.
   *WAITING counts those whose creator still runs.  */
static unsigned
sweep_pass (unsigned *waiting)
{
  DIR *dir = opendir ("/dev/shm");
  if (!dir)
    return 0;
  unsigned removed = 0;
  const char *prefix = ARENA_NAME_PREFIX + 1;       /* without the '/' */
  struct dirent *entry;
  while ((entry = readdir (dir)))
    {
      char name[sizeof ((struct arena *) 0)->name];
      if (snprintf (name, sizeof name, "/%s", entry->d_name) >= (int) sizeof name
          || !valid_name (name))
        continue;
      char *end;
      long pid = strtol (entry->d_name + strlen (prefix), &end, 10);
      struct stat st;
      if (*end != '.' || pid <= 0
          || fstatat (dirfd (dir), entry->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0
          || !S_ISREG (st.st_mode) || st.st_uid != geteuid ())
        continue;
      if (process_alive ((pid_t) pid))
        (*waiting)++;
      else if (shm_unlink (name) == 0)
        removed++;
    }
  closedir (dir);
  return removed;
}

unsigned
arena_sweep_orphans (uint64_t grace_ns)
{
  uint64_t deadline = clock_now_ns () + grace_ns;
  unsigned removed = 0;
  for (;;)
    {
      unsigned waiting = 0;
      removed += sweep_pass (&waiting);
      if (waiting == 0 || clock_now_ns () >= deadline)
        return removed;
      /* A producer killed a moment ago may still be exiting.  */
      struct timespec pause = { 0, 5 * 1000000L };
      nanosleep (&pause, NULL);
    }
}

int
arena_attach (struct arena *arena, const char *name, const char **why)
{
  memset (arena, 0, sizeof *arena);
  arena->fd = -1;
  if (!valid_name (name))
    {
      *why = "not an arenabench arena name";
      return EINVAL;
    }
  snprintf (arena->name, sizeof arena->name, "%s", name);
  snprintf (arena->path, sizeof arena->path, "/dev/shm%s", name);
  /* glibc's shm_open adds O_NOFOLLOW: a symlink planted under the name
     fails with ELOOP.  */
  int fd = shm_open (name, O_RDWR, 0);
  if (fd < 0)
    {
      int err = errno;
      *why = err == ENOENT ? "no such arena (its producer exited or it was consumed already)"
        : err == ELOOP ? "is a symbolic link"
        : "cannot open arena";
      return err;
    }
  struct stat st;
  const char *reason = NULL;
  if (fstat (fd, &st) != 0)
    reason = "cannot stat arena";
  else if (!S_ISREG (st.st_mode))
    reason = "not a regular shared-memory object";
  else if (st.st_uid != geteuid ())
    reason = "owned by another user";
  else if ((st.st_mode & 077) != 0)
    reason = "accessible to other users (mode is not 0600)";
  else if ((uint64_t) st.st_size < ARENA_SLOT_TABLE + sizeof (struct arena_header))
    reason = "too small to be an arena";
  if (reason)
    {
      close (fd);
      *why = reason;
      return EPERM;
    }
  void *base = mmap (NULL, (size_t) st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (base == MAP_FAILED)
    {
      int err = errno;
      close (fd);
      *why = "cannot map arena";
      return err;
    }
  arena->fd = fd;
  arena->base = base;
  arena->map_bytes = (uint64_t) st.st_size;
  arena->header = base;
  struct arena_header *h = arena->header;
  uint64_t hb, cap, sb;
  if (h->magic != ARENA_MAGIC)
    reason = "wrong magic number (not an arenabench arena)";
  else if (h->version != ARENA_VERSION)
    reason = "unsupported arena layout version";
  else if (h->backend >= ARENA_BACKEND_COUNT)
    reason = "unknown backend in header";
  else if (h->slot_count == 0 || h->slot_count > ARENA_MAX_SLOTS)
    reason = "bad slot count in header";
  else if (h->backend == ARENA_RING && h->slot_bytes < ARENA_RECORD_BYTES + ARENA_ALIGN)
    reason = "bad record size in header";
  else if (arena_size (h->backend, h->backend == ARENA_POOL ? h->slot_bytes
                       : h->slot_bytes - ARENA_RECORD_BYTES, h->slot_count, &hb, &cap, &sb)
           != arena->map_bytes
           || hb != h->header_bytes || cap != h->capacity || sb != h->slot_bytes)
    reason = "header sizes do not match the object's size";
  if (reason)
    {
      arena_detach (arena, false);
      *why = reason;
      return EPROTO;
    }
  arena->ring_expect = atomic_load (&h->tail);
  atomic_store (&h->consumer_pid, (int32_t) getpid ());
  atomic_fetch_or (&h->state, ARENA_CONSUMER_ATTACHED);
  /* We hold the mapping; the name has done its job.  */
  shm_unlink (name);
  return 0;
}

enum arena_status
arena_check (struct arena *arena, const struct arena_handle *handle, const char **why)
{
  const struct arena_header *h = arena->header;
  uint64_t data_end = h->header_bytes + h->capacity;
  if (handle->offset < h->header_bytes || handle->offset > data_end
      || handle->bytes > data_end - handle->offset)
    {
      *why = "offset and length reach outside the arena";
      return ARENA_BAD_HANDLE;
    }
  if (h->backend == ARENA_POOL)
    {
      if (handle->slot < 0 || (uint64_t) handle->slot >= h->slot_count)
        {
          *why = "slot out of range";
          return ARENA_BAD_HANDLE;
        }
      if (handle->offset != h->header_bytes + (uint64_t) handle->slot * h->slot_bytes
          || handle->bytes > h->slot_bytes)
        {
          *why = "offset or length does not match the slot";
          return ARENA_BAD_HANDLE;
        }
      uint64_t word = atomic_load_explicit (&slot_table (arena)[handle->slot],
                                            memory_order_acquire);
      if (word != (handle->generation << 1 | 1))
        {
          *why = (word & 1) ? "stale generation: the slot holds another item"
            : "stale generation: the slot is not filled";
          return ARENA_STALE;
        }
      return ARENA_OK;
    }
  if (handle->slot != -1)
    {
      *why = "a ring item has no slot";
      return ARENA_BAD_HANDLE;
    }
  if ((handle->offset - h->header_bytes) % ARENA_ALIGN != 0
      || handle->offset - h->header_bytes < ARENA_RECORD_BYTES)
    {
      *why = "offset is not a ring record's payload";
      return ARENA_BAD_HANDLE;
    }
  const struct ring_record *rec = (const struct ring_record *)
    (arena->base + handle->offset - ARENA_RECORD_BYTES);
  if (rec->magic != RING_RECORD_MAGIC)
    {
      *why = "no ring record at this offset";
      return ARENA_BAD_HANDLE;
    }
  if (rec->generation != handle->generation)
    {
      *why = "stale generation: the ring record holds another item";
      return ARENA_STALE;
    }
  if (rec->bytes != handle->bytes)
    {
      *why = "length does not match the ring record";
      return ARENA_BAD_HANDLE;
    }
  /* Items may be checked before earlier ones are released (a pipelined
     consumer), so order is judged against the last item checked.  */
  if (rec->begin != arena->ring_expect)
    {
      *why = "ring item out of FIFO order";
      return ARENA_BAD_HANDLE;
    }
  arena->ring_expect = rec->end;
  return ARENA_OK;
}

enum arena_status
arena_release (struct arena *arena, const struct arena_handle *handle, const char **why)
{
  struct arena_header *h = arena->header;
  if (h->backend == ARENA_POOL)
    {
      uint64_t full = handle->generation << 1 | 1;
      /* Compare-and-swap: a slot refilled during the read, or released
         twice, does not match and is reported.  */
      if (!atomic_compare_exchange_strong (&slot_table (arena)[handle->slot], &full,
                                           handle->generation << 1))
        {
          *why = "stale generation: the slot changed while it was being read";
          return ARENA_STALE;
        }
    }
  else
    {
      const struct ring_record *rec = (const struct ring_record *)
        (arena->base + handle->offset - ARENA_RECORD_BYTES);
      if (rec->generation != handle->generation)
        {
          *why = "stale generation: the ring record changed while it was being read";
          return ARENA_STALE;
        }
      if (rec->begin != atomic_load_explicit (&h->tail, memory_order_relaxed))
        {
          *why = "ring item released out of FIFO order";
          return ARENA_BAD_HANDLE;
        }
      atomic_store_explicit (&h->tail, rec->end, memory_order_release);
    }
  atomic_fetch_add_explicit (&h->released, 1, memory_order_release);
  wake_producer (h);
  return ARENA_OK;
}

void
arena_detach (struct arena *arena, bool consumer)
{
  if (arena->header && consumer)
    {
      atomic_fetch_or (&arena->header->state, ARENA_CONSUMER_DONE);
      wake_producer (arena->header);
    }
  if (arena->base)
    munmap (arena->base, arena->map_bytes);
  if (arena->fd >= 0)
    close (arena->fd);
  arena->base = NULL;
  arena->header = NULL;
  arena->fd = -1;
}
