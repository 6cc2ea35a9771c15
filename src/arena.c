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
  uint64_t table = backend == ARENA_POOL
    ? (uint64_t) slots * (sizeof (uint64_t) + sizeof (struct arena_slot_meta)) : 0;
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

/* Liveness locks.  The producer holds a write lock on byte 0 of the
   object, the consumer one on byte 1.  They are OFD locks: they belong to
   the open file description, which every descriptor and mapping of it
   keeps open, so the kernel drops them when the last holder dies however
   it dies, and a process in another PID namespace sees them the same.  */
enum { LOCK_PRODUCER = 0, LOCK_CONSUMER = 1 };

static int
take_lock (int fd, off_t byte)
{
  struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = byte, .l_len = 1 };
  return fcntl (fd, F_OFD_SETLK, &fl) == 0 ? 0 : errno;
}

/* Does another open file description hold the lock on BYTE?  When the
   kernel cannot say, assume it does: a live arena is never removed.  */
static bool
lock_held (int fd, off_t byte)
{
  struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = byte, .l_len = 1 };
  if (fcntl (fd, F_OFD_GETLK, &fl) != 0)
    return true;
  return fl.l_type != F_UNLCK;
}

/* A descriptor above 2: with stdin, stdout or stderr closed, shm_open
   would return 0, 1 or 2, and rows, receipts or messages would be
   written into the arena.  */
static int
high_fd (int fd)
{
  if (fd < 0 || fd > STDERR_FILENO)
    return fd;
  int high = fcntl (fd, F_DUPFD_CLOEXEC, STDERR_FILENO + 1);
  int err = errno;
  close (fd);
  errno = err;
  return high;
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
  if ((state & ARENA_CONSUMER_ATTACHED) && !lock_held (arena->fd, LOCK_CONSUMER))
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
  atomic_fetch_add (&h->waiters, 1);
  if (atomic_load (&h->releases) == seen)
    futex (&h->releases, FUTEX_WAIT, seen, &ts);
  atomic_fetch_sub (&h->waiters, 1);
  return ARENA_OK;
}

/* ------------------------------------------------ bus errors in arenas */

/* Mapped arenas, for the handler; changed only outside it.  */
static struct arena *mapped_arenas;
static _Thread_local sigjmp_buf *fault_env;
static char fault_name[sizeof ((struct arena *) 0)->name];

static void
on_bus_error (int sig, siginfo_t *info, void *context)
{
  (void) context;
  const unsigned char *addr = info->si_addr;
  for (const struct arena *a = mapped_arenas; a; a = a->next_mapped)
    if (addr >= a->base && addr < a->base + a->map_bytes && fault_env)
      {
        memcpy (fault_name, a->name, sizeof fault_name);
        sigjmp_buf *env = fault_env;
        fault_env = NULL;
        siglongjmp (*env, 1);
      }
  /* Not ours to explain: returning repeats the access with the default
     action.  */
  signal (sig, SIG_DFL);
}

static void
register_mapping (struct arena *arena)
{
  static bool installed;
  if (!installed)
    {
      struct sigaction sa = { .sa_sigaction = on_bus_error, .sa_flags = SA_SIGINFO };
      sigemptyset (&sa.sa_mask);
      sigaction (SIGBUS, &sa, NULL);
      installed = true;
    }
  arena->next_mapped = mapped_arenas;
  mapped_arenas = arena;
}

static void
unregister_mapping (struct arena *arena)
{
  for (struct arena **p = &mapped_arenas; *p; p = &(*p)->next_mapped)
    if (*p == arena)
      {
        *p = arena->next_mapped;
        break;
      }
  arena->next_mapped = NULL;
}

void
arena_fault_catch (sigjmp_buf *env)
{
  fault_env = env;
}

const char *
arena_fault_name (void)
{
  return fault_name;
}

/* Is HEADER, read from an object of SIZE bytes, a well-formed arena
   header?  NULL if so, else why not.  */
static const char *
header_problem (const struct arena_header *h, uint64_t size)
{
  uint64_t hb, cap, sb;
  if (h->magic != ARENA_MAGIC)
    return "wrong magic number (not an arenabench arena)";
  if (h->version != ARENA_VERSION)
    return "unsupported arena layout version";
  if (h->backend >= ARENA_BACKEND_COUNT)
    return "unknown backend in header";
  if (h->slot_count == 0 || h->slot_count > ARENA_MAX_SLOTS)
    return "bad slot count in header";
  if (h->backend == ARENA_RING && h->slot_bytes < ARENA_RECORD_BYTES + ARENA_ALIGN)
    return "bad record size in header";
  if (arena_size (h->backend, h->backend == ARENA_POOL ? h->slot_bytes
                  : h->slot_bytes - ARENA_RECORD_BYTES, h->slot_count, &hb, &cap, &sb) != size
      || hb != h->header_bytes || cap != h->capacity || sb != h->slot_bytes)
    return "header sizes do not match the object's size";
  if (h->workers == 0 || h->workers > ARENA_MAX_WORKERS || h->worker >= h->workers
      || h->epochs == 0 || h->epochs > ARENA_MAX_EPOCHS || h->items == 0)
    return "bad workers, epochs or items in header";
  return NULL;
}

/* ------------------------------------------------------------ producer */

static void
random_name (struct arena *arena)
{
  uint64_t r[2];
  rng_entropy_bytes (r, sizeof r);
  snprintf (arena->name, sizeof arena->name, ARENA_NAME_PREFIX "%ld.%016" PRIx64 "%08" PRIx64,
            (long) getpid (), r[0], r[1] & 0xffffffffu);
  snprintf (arena->path, sizeof arena->path, "/dev/shm%s", arena->name);
}

uint64_t
arena_new_run_id (void)
{
  uint64_t id;
  rng_entropy_bytes (&id, sizeof id);
  return id;
}

static struct arena_slot_meta *
slot_meta (const struct arena *arena)
{
  return (struct arena_slot_meta *) (arena->base + ARENA_SLOT_TABLE
                                     + (uint64_t) arena->slot_count * sizeof (uint64_t));
}

void
arena_format (struct arena *arena, void *base, uint64_t total, enum arena_backend backend,
              uint64_t item_bytes, uint32_t slots, bool pin, const struct arena_identity *id)
{
  uint64_t header_bytes, capacity, slot_bytes;
  arena_size (backend, item_bytes, slots, &header_bytes, &capacity, &slot_bytes);
  arena->base = base;
  arena->header = base;
  arena->map_bytes = total;
  arena->backend = backend;
  arena->header_bytes = header_bytes;
  arena->capacity = capacity;
  arena->slot_bytes = slot_bytes;
  arena->slot_count = slots;
  arena->flags = pin ? ARENA_FLAG_PIN : 0;
  arena->id = *id;
  arena->next_generation = 1;
  struct arena_header *h = arena->header;
  h->backend = backend;
  h->header_bytes = header_bytes;
  h->capacity = capacity;
  h->slot_bytes = slot_bytes;
  h->slot_count = slots;
  h->flags = arena->flags;
  h->producer_pid = getpid ();
  h->run_id = id->run_id;
  h->worker = id->worker;
  h->workers = id->workers;
  h->epochs = id->epochs;
  h->items = id->items;
  h->version = ARENA_VERSION;
  /* Magic last: a consumer that sees it sees a complete header.  */
  atomic_thread_fence (memory_order_release);
  h->magic = ARENA_MAGIC;
}

int
arena_create (struct arena *arena, enum arena_backend backend, uint64_t item_bytes,
              uint32_t slots, bool pin, const struct arena_identity *id)
{
  uint64_t header_bytes, capacity, slot_bytes;
  uint64_t total = arena_size (backend, item_bytes, slots, &header_bytes, &capacity, &slot_bytes);
  memset (arena, 0, sizeof *arena);
  arena->fd = -1;
  random_name (arena);
  int fd = high_fd (shm_open (arena->name, O_RDWR | O_CREAT | O_EXCL, 0600));
  if (fd < 0)
    return errno;
  /* The lock first: from now on a sweep sees this arena as alive.  */
  int err = take_lock (fd, LOCK_PRODUCER);
  if (!err && ftruncate (fd, (off_t) total) != 0)
    err = errno;
  /* Reserve every page before touching it: tmpfs otherwise allocates on
     first touch and a full /dev/shm would kill us with SIGBUS in the
     middle of a run.  The header's pages first, so that the header is
     complete before the long reservation of the rest: a producer killed
     during it leaves an arena that a sweep recognises.  */
  if (!err)
    err = posix_fallocate (fd, 0, (off_t) header_bytes);
  void *base = MAP_FAILED;
  if (!err)
    {
      base = mmap (NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
      if (base == MAP_FAILED)
        err = errno;
    }
  if (!err)
    {
      arena_format (arena, base, total, backend, item_bytes, slots, pin, id);
      err = posix_fallocate (fd, 0, (off_t) total);
    }
  if (err)
    {
      if (base != MAP_FAILED)
        munmap (base, total);
      close (fd);
      shm_unlink (arena->name);
      arena->base = NULL;
      arena->header = NULL;
      return err;
    }
  arena->fd = fd;
  register_mapping (arena);
  return 0;
}

static enum arena_status
reserve_pool (struct arena *arena, uint64_t bytes, uint64_t deadline, int stdout_fd,
              struct arena_handle *handle)
{
  struct arena_header *h = arena->header;
  _Atomic uint64_t *slots = slot_table (arena);
  if (bytes > arena->slot_bytes)
    {
      errno = EMSGSIZE;
      return ARENA_SYSTEM;
    }
  for (;;)
    {
      uint32_t seen = atomic_load_explicit (&h->releases, memory_order_acquire);
      for (uint32_t k = 0; k < arena->slot_count; k++)
        {
          uint32_t s = (arena->next_slot + k) % arena->slot_count;
          if ((atomic_load_explicit (&slots[s], memory_order_acquire) & 1) == 0)
            {
              arena->next_slot = (s + 1) % arena->slot_count;
              *handle = (struct arena_handle) {
                .slot = s,
                .offset = arena->header_bytes + (uint64_t) s * arena->slot_bytes,
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
  uint64_t capacity = arena->capacity;
  if (need > capacity)
    {
      errno = EMSGSIZE;
      return ARENA_SYSTEM;
    }
  uint64_t head = arena->head;
  uint64_t at = head % capacity;
  /* A record never wraps: if it does not fit before the end, it starts
     at the beginning and the gap belongs to it.  */
  uint64_t start = at + need > capacity ? head + (capacity - at) : head;
  uint64_t end = start + need;
  for (;;)
    {
      uint32_t seen = atomic_load_explicit (&h->releases, memory_order_acquire);
      uint64_t tail = atomic_load_explicit (&h->tail, memory_order_acquire);
      if (end - tail <= capacity)
        break;
      enum arena_status st = wait_for_release (arena, seen, deadline, stdout_fd);
      if (st != ARENA_OK)
        return st;
    }
  struct ring_record *rec = (struct ring_record *) (arena->base + arena->header_bytes
                                                    + start % capacity);
  *rec = (struct ring_record) {
    .magic = RING_RECORD_MAGIC,
    .generation = arena->next_generation++,
    .bytes = bytes,
    .begin = head,
    .end = end,
  };
  *handle = (struct arena_handle) {
    .slot = -1,
    .offset = arena->header_bytes + start % capacity + ARENA_RECORD_BYTES,
    .bytes = bytes,
    .generation = arena->next_generation - 1,
  };
  arena->head = end;
  return ARENA_OK;
}

enum arena_status
arena_reserve (struct arena *arena, uint64_t bytes, uint64_t timeout_ns, int stdout_fd,
               struct arena_handle *handle)
{
  uint64_t deadline = clock_now_ns () + timeout_ns;
  return arena->backend == ARENA_POOL
    ? reserve_pool (arena, bytes, deadline, stdout_fd, handle)
    : reserve_ring (arena, bytes, deadline, stdout_fd, handle);
}

void
arena_publish (struct arena *arena, const struct arena_handle *handle,
               const struct arena_item *item, bool last)
{
  struct arena_header *h = arena->header;
  if (arena->backend == ARENA_POOL)
    {
      slot_meta (arena)[handle->slot] = (struct arena_slot_meta) {
        .generation = handle->generation, .sequence = item->sequence, .bytes = handle->bytes,
        .worker = arena->id.worker, .epoch = item->epoch,
      };
      atomic_store_explicit (&slot_table (arena)[handle->slot],
                             handle->generation << 1 | 1, memory_order_release);
    }
  else
    {
      struct ring_record *rec = (struct ring_record *)
        (arena->base + handle->offset - ARENA_RECORD_BYTES);
      rec->sequence = item->sequence;
      rec->worker = arena->id.worker;
      rec->epoch = item->epoch;
      atomic_store_explicit (&h->head, arena->head, memory_order_release);
    }
  atomic_fetch_add_explicit (&h->produced, 1, memory_order_release);
  if (last)
    atomic_fetch_or (&h->state, ARENA_PRODUCER_DONE);
  if (!arena->first_publish_ns)
    arena->first_publish_ns = clock_now_ns ();
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

bool
arena_consumer_attached (const struct arena *arena)
{
  return atomic_load (&arena->header->state) & ARENA_CONSUMER_ATTACHED;
}

uint64_t
arena_released_count (const struct arena *arena)
{
  return atomic_load (&arena->header->released);
}

void
arena_unlink (struct arena *arena)
{
  if (arena->name[0])
    shm_unlink (arena->name);
}

/* ------------------------------------------------------------- sweeping */

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

/* Is the object NAME an orphan: an arena of ours (mode 0600 and a
   well-formed header, or empty and older than two seconds: killed before
   it had a size) whose producer lock nobody holds?  Anything else under
   our prefix is not ours to remove.  */
static bool
orphan (const char *name, bool *live)
{
  *live = false;
  int fd = shm_open (name, O_RDONLY, 0);
  if (fd < 0)
    return false;
  struct stat st;
  bool result = false;
  if (fstat (fd, &st) == 0 && S_ISREG (st.st_mode) && st.st_uid == geteuid ()
      && (st.st_mode & 0777) == 0600)
    {
      struct timespec now;
      clock_gettime (CLOCK_REALTIME, &now);
      struct arena_header h;
      bool ours = st.st_size == 0
        ? now.tv_sec - st.st_ctim.tv_sec >= 2
        : pread (fd, &h, sizeof h, 0) == (ssize_t) sizeof h
          && !header_problem (&h, (uint64_t) st.st_size);
      *live = lock_held (fd, LOCK_PRODUCER);
      result = ours && !*live;
    }
  close (fd);
  return result;
}

/* One pass over /dev/shm: unlink our arenas whose producer is gone.
   *WAITING counts those whose producer still runs.  */
static unsigned
sweep_pass (unsigned *waiting)
{
  DIR *dir = opendir ("/dev/shm");
  if (!dir)
    return 0;
  unsigned removed = 0;
  struct dirent *entry;
  while ((entry = readdir (dir)))
    {
      char name[sizeof ((struct arena *) 0)->name];
      if (snprintf (name, sizeof name, "/%s", entry->d_name) >= (int) sizeof name
          || !valid_name (name))
        continue;
      bool live;
      if (orphan (name, &live))
        removed += shm_unlink (name) == 0;
      else if (live)
        (*waiting)++;
    }
  closedir (dir);
  return removed;
}

unsigned
arena_sweep_orphans (uint64_t grace_ns, unsigned *kept)
{
  uint64_t deadline = clock_now_ns () + grace_ns;
  unsigned removed = 0;
  for (;;)
    {
      unsigned waiting = 0;
      removed += sweep_pass (&waiting);
      if (waiting == 0 || clock_now_ns () >= deadline)
        {
          if (kept)
            *kept = waiting;
          return removed;
        }
      /* A producer killed a moment ago may still be exiting.  */
      struct timespec pause = { 0, 5 * 1000000L };
      nanosleep (&pause, NULL);
    }
}

/* ------------------------------------------------------------ consumer */

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
  int fd = high_fd (shm_open (name, O_RDWR, 0));
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
  register_mapping (arena);
  /* Read the header once into our copy, then judge the copy: the
     header may change under us.  */
  struct arena_header h;
  memcpy (&h, (const void *) arena->header, sizeof h);
  reason = header_problem (&h, arena->map_bytes);
  if (reason)
    {
      arena_detach (arena, false);
      *why = reason;
      return EPROTO;
    }
  /* From here on, only the validated copy counts.  */
  arena->backend = h.backend;
  arena->header_bytes = h.header_bytes;
  arena->capacity = h.capacity;
  arena->slot_bytes = h.slot_bytes;
  arena->slot_count = h.slot_count;
  arena->flags = h.flags;
  arena->id = (struct arena_identity) {
    .run_id = h.run_id, .worker = h.worker, .workers = h.workers,
    .epochs = h.epochs, .items = h.items,
  };
  /* One consumer per arena: a second that opened the name before the
     first unlinked it finds the lock taken.  */
  int err = take_lock (fd, LOCK_CONSUMER);
  if (err)
    {
      arena_detach (arena, false);
      *why = err == EAGAIN || err == EACCES ? "another consumer has attached to it"
        : "cannot lock arena";
      return err == EAGAIN || err == EACCES ? EBUSY : err;
    }
  arena->ring_expect = atomic_load (&arena->header->tail);
  atomic_store (&arena->header->consumer_pid, (int32_t) getpid ());
  atomic_fetch_or (&arena->header->state, ARENA_CONSUMER_ATTACHED);
  /* We hold the mapping; the name has done its job.  */
  shm_unlink (name);
  return 0;
}

/* A message with numbers in it, for WHY.  */
static _Thread_local char why_text[192];

static const char *
identity_mismatch (const char *where, uint64_t sequence, uint32_t worker, uint32_t epoch)
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
  if (arena->backend == ARENA_POOL)
    {
      if (handle->slot < 0 || (uint64_t) handle->slot >= arena->slot_count)
        {
          *why = "slot out of range";
          return ARENA_BAD_HANDLE;
        }
      if (handle->offset != arena->header_bytes + (uint64_t) handle->slot * arena->slot_bytes
          || handle->bytes > arena->slot_bytes)
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
      struct arena_slot_meta meta = ((volatile struct arena_slot_meta *) slot_meta (arena))[handle->slot];
      if (meta.generation != handle->generation)
        {
          *why = "stale generation: the slot's record holds another item";
          return ARENA_STALE;
        }
      if (meta.bytes != handle->bytes)
        {
          *why = "length does not match the item in the slot";
          return ARENA_BAD_HANDLE;
        }
      if (meta.sequence != item->sequence || meta.worker != arena->id.worker
          || meta.epoch != item->epoch)
        {
          *why = identity_mismatch ("slot", meta.sequence, meta.worker, meta.epoch);
          return ARENA_BAD_HANDLE;
        }
      return ARENA_OK;
    }
  if (handle->slot != -1)
    {
      *why = "a ring item has no slot";
      return ARENA_BAD_HANDLE;
    }
  if ((handle->offset - arena->header_bytes) % ARENA_ALIGN != 0
      || handle->offset - arena->header_bytes < ARENA_RECORD_BYTES)
    {
      *why = "offset is not a ring record's payload";
      return ARENA_BAD_HANDLE;
    }
  struct ring_record rec = *(const volatile struct ring_record *)
    (arena->base + handle->offset - ARENA_RECORD_BYTES);
  if (rec.magic != RING_RECORD_MAGIC)
    {
      *why = "no ring record at this offset";
      return ARENA_BAD_HANDLE;
    }
  if (rec.generation != handle->generation)
    {
      *why = "stale generation: the ring record holds another item";
      return ARENA_STALE;
    }
  if (rec.bytes != handle->bytes)
    {
      *why = "length does not match the ring record";
      return ARENA_BAD_HANDLE;
    }
  if (rec.sequence != item->sequence || rec.worker != arena->id.worker || rec.epoch != item->epoch)
    {
      *why = identity_mismatch ("ring record", rec.sequence, rec.worker, rec.epoch);
      return ARENA_BAD_HANDLE;
    }
  /* Items may be checked before earlier ones are released (a pipelined
     consumer), so order is judged against the last item checked.  */
  if (rec.begin != arena->ring_expect)
    {
      *why = "ring item out of FIFO order";
      return ARENA_ORDER;
    }
  arena->ring_expect = rec.end;
  return ARENA_OK;
}

/* Invert the item's first bytes: if the producer ever publishes this space
   again without writing it, the item cannot verify, even where the
   pattern of the new sequence equals the old one's.  */
static void
spoil (struct arena *arena, const struct arena_handle *handle)
{
  volatile unsigned char *p = arena->base + handle->offset;
  for (uint64_t i = 0; i < handle->bytes && i < 8; i++)
    p[i] = (unsigned char) ~p[i];
}

enum arena_status
arena_release (struct arena *arena, const struct arena_handle *handle, const char **why)
{
  struct arena_header *h = arena->header;
  if (arena->backend == ARENA_POOL)
    {
      _Atomic uint64_t *word = &slot_table (arena)[handle->slot];
      uint64_t full = handle->generation << 1 | 1;
      /* Compare-and-swap: a slot refilled during the read, or released
         twice, does not match and is reported.  */
      if (atomic_load_explicit (word, memory_order_acquire) == full)
        spoil (arena, handle);
      if (!atomic_compare_exchange_strong (word, &full, handle->generation << 1))
        {
          *why = "stale generation: the slot changed while it was being read";
          return ARENA_STALE;
        }
    }
  else
    {
      const volatile struct ring_record *rec = (const volatile struct ring_record *)
        (arena->base + handle->offset - ARENA_RECORD_BYTES);
      if (rec->generation != handle->generation)
        {
          *why = "stale generation: the ring record changed while it was being read";
          return ARENA_STALE;
        }
      uint64_t end = rec->end;
      if (rec->begin != atomic_load_explicit (&h->tail, memory_order_relaxed))
        {
          *why = "ring item released out of FIFO order";
          return ARENA_BAD_HANDLE;
        }
      spoil (arena, handle);
      atomic_store_explicit (&h->tail, end, memory_order_release);
    }
  atomic_fetch_add_explicit (&h->released, 1, memory_order_release);
  wake_producer (h);
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

/* Does the object still cover our mapping?  Another process may have
   truncated it, and touching a page past its end is a bus error.  */
static bool
intact (const struct arena *arena)
{
  struct stat st;
  return arena->fd >= 0 && fstat (arena->fd, &st) == 0
    && (uint64_t) st.st_size >= arena->map_bytes;
}

void
arena_detach (struct arena *arena, bool consumer)
{
  if (arena->header && consumer && intact (arena))
    {
      atomic_fetch_or (&arena->header->state, ARENA_CONSUMER_DONE);
      wake_producer (arena->header);
    }
  /* The descriptor first: once the mapping is gone, so is everything.  */
  if (arena->fd >= 0)
    close (arena->fd);
  if (arena->base)
    {
      unregister_mapping (arena);
      munmap (arena->base, arena->map_bytes);
    }
  arena->base = NULL;
  arena->header = NULL;
  arena->fd = -1;
}
