/* arena.c -- shared-memory arenas: geometry, creation, attaching and
   detaching.  Flow control is in arena-flow.c, liveness in arena-sync.c,
   bus errors in arena-fault.c, orphans in arena-sweep.c.  */
#include "system.h"
#include "arena.h"
#include "arena-fault.h"
#include "arena-layout.h"
#include "arena-sync.h"
#include "rng.h"

#include <fcntl.h>
#include <inttypes.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* The slot table follows the header.  */
_Static_assert (sizeof (struct arena_header) <= ARENA_SLOT_TABLE, "arena header too large");

static uint64_t
page_size (void)
{
  long size = sysconf (_SC_PAGESIZE);
  return size > 0 ? (uint64_t) size : 4096;
}

uint64_t
arena_size (enum arena_backend backend, uint64_t item_bytes, uint32_t slots,
            uint64_t *header_bytes, uint64_t *capacity, uint64_t *slot_bytes)
{
  uint64_t page = page_size (), table;
  arena_backends[backend]->size (item_bytes, slots, page, &table, capacity, slot_bytes);
  *header_bytes = arena_align_up (ARENA_SLOT_TABLE + table, page);
  return *header_bytes + *capacity;
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

/* Is HEADER, read from an object of SIZE bytes, a well-formed arena
   header?  NULL if so, else why not.  */
const char *
arena_header_problem (const struct arena_header *h, uint64_t size)
{
  uint64_t hb, cap, sb;
  if (h->magic != ARENA_MAGIC)
    return "wrong magic number (not an arenabench arena)";
  if (h->version != ARENA_VERSION)
    {
      /* Say both: a producer and a consumer of different releases.  */
      static _Thread_local char why[96];
      snprintf (why, sizeof why, "unsupported arena layout version %" PRIu32
                " (this program reads version %d)", h->version, ARENA_VERSION);
      return why;
    }
  if (h->backend >= ARENA_BACKEND_COUNT)
    return "unknown backend in header";
  if (h->slot_count == 0 || h->slot_count > ARENA_MAX_SLOTS)
    return "bad slot count in header";
  uint64_t item_bytes;
  const char *why = arena_backends[h->backend]->item_bytes (h, &item_bytes);
  if (why)
    return why;
  if (arena_size (h->backend, item_bytes, h->slot_count, &hb, &cap, &sb) != size
      || hb != h->header_bytes || cap != h->capacity || sb != h->slot_bytes)
    return "header sizes do not match the object's size";
  if (h->workers == 0 || h->workers > ARENA_MAX_WORKERS || h->worker >= h->workers
      || h->epochs == 0 || h->epochs > ARENA_MAX_EPOCHS || h->items == 0
      || h->share >= ARENA_SHARE_COUNT)
    return "bad workers, epochs, items or share in header";
  if (h->size_bytes == 0 || h->size_bytes > PAYLOAD_MAX_SIZE || h->dtype >= DTYPE_COUNT
      || h->kind >= KIND_COUNT)
    return "bad size_bytes, dtype or kind in header";
  return NULL;
}

/* Is ST an object we may use as an arena: a regular file of this user,
   closed to others, that its owner can read and write, large enough for a
   header?  NULL if so, else why not.  */
const char *
arena_object_problem (const struct stat *st)
{
  if (!S_ISREG (st->st_mode))
    return "not a regular shared-memory object";
  if (st->st_uid != geteuid ())
    return "owned by another user";
  if ((st->st_mode & 077) != 0)
    return "accessible to other users (mode is not 0600)";
  if ((st->st_mode & 0600) != 0600)
    return "its owner cannot read and write it (mode is not 0600)";
  if ((uint64_t) st->st_size < ARENA_SLOT_TABLE + sizeof (struct arena_header))
    return "too small to be an arena";
  return NULL;
}

/* Names we create: "/arenabench." then digits, '.', hex; nothing else may
   reach shm_open, so a row cannot name an arbitrary file.  */
bool
arena_valid_name (const char *name)
{
  size_t prefix = strlen (ARENA_NAME_PREFIX);
  if (strncmp (name, ARENA_NAME_PREFIX, prefix) != 0 || strlen (name) >= sizeof ((struct arena *) 0)->name)
    return false;
  for (const char *p = name + prefix; *p; p++)
    if (!(*p == '.' || (*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
      return false;
  return name[prefix] != '\0';
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

/* Take our private copy of the geometry and identity from H, a header
   that is ours alone (built, or read once and validated): the shared
   header may be rewritten by anyone with access to the object, and is
   never read for these again.  */
static void
keep_geometry (struct arena *arena, const struct arena_header *h)
{
  arena->backend = h->backend;
  arena->header_bytes = h->header_bytes;
  arena->capacity = h->capacity;
  arena->slot_bytes = h->slot_bytes;
  arena->slot_count = h->slot_count;
  arena->flags = h->flags;
  arena->id = (struct arena_identity) {
    .run_id = h->run_id, .worker = h->worker, .workers = h->workers,
    .epochs = h->epochs, .items = h->items, .share = (enum arena_share) h->share,
    .size_bytes = h->size_bytes,
    .dtype = (enum payload_dtype) h->dtype, .kind = (enum payload_kind) h->kind,
  };
}

void
arena_format (struct arena *arena, void *base, uint64_t total, enum arena_backend backend,
              uint64_t item_bytes, uint32_t slots, bool pin, const struct arena_identity *id)
{
  /* The header is built privately, our copy taken from it, and only then
     is it written where others can change it.  */
  struct arena_header image = {
    .version = ARENA_VERSION, .backend = backend, .slot_count = slots,
    .flags = pin ? ARENA_FLAG_PIN : 0, .producer_pid = getpid (),
    .run_id = id->run_id, .worker = id->worker, .workers = id->workers,
    .epochs = id->epochs, .items = id->items, .share = id->share,
    .size_bytes = id->size_bytes, .dtype = id->dtype, .kind = id->kind,
  };
  arena_size (backend, item_bytes, slots, &image.header_bytes, &image.capacity,
              &image.slot_bytes);
  arena->base = base;
  arena->header = base;
  arena->map_bytes = total;
  keep_geometry (arena, &image);
  arena->next_generation = 1;
  arena->published = 0;
  /* Everything but the magic, still 0 in IMAGE (the counters start at
     zero).  */
  memcpy (arena->header, &image, sizeof image);
  /* Magic last: a consumer that sees it sees a complete header.  */
  atomic_thread_fence (memory_order_release);
  arena->header->magic = ARENA_MAGIC;
}

/* An object in /dev/shm with no name yet (O_TMPFILE), named by publish
   once its header is whole: a producer killed between creating and sizing
   its arena leaves nothing.  -1 where the kernel or the file system has
   no unnamed files.  */
static int
open_unnamed (void)
{
#ifdef O_TMPFILE
  return high_fd (open ("/dev/shm", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600));
#else
  return -1;
#endif
}

/* Give the unnamed object FD ARENA's name, failing (EEXIST) rather than
   replace another.  Through /proc (any user may), else by the descriptor
   itself (needs CAP_DAC_READ_SEARCH).  */
static int
publish (int fd, const struct arena *arena)
{
  char proc[32];
  snprintf (proc, sizeof proc, "/proc/self/fd/%d", fd);
  if (linkat (AT_FDCWD, proc, AT_FDCWD, arena->path, AT_SYMLINK_FOLLOW) == 0)
    return 0;
  if (errno == EEXIST)
    return errno;
#ifdef AT_EMPTY_PATH
  if (linkat (fd, "", AT_FDCWD, arena->path, AT_EMPTY_PATH) == 0)
    return 0;
#endif
  return errno;
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
  int fd = open_unnamed ();
  bool named = fd < 0;
  if (named)
    fd = high_fd (shm_open (arena->name, O_RDWR | O_CREAT | O_EXCL, 0600));
  if (fd < 0)
    return errno;
  /* The lock first: from now on a sweep sees this arena as alive.  Then
     the mode: the umask may have taken the owner's write bit, and a
     consumer needs to read and write.  */
  int err = arena_lock_take (fd, ARENA_LOCK_PRODUCER);
  if (!err && fchmod (fd, 0600) != 0)
    err = errno;
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
    arena_format (arena, base, total, backend, item_bytes, slots, pin, id);
  /* Named once its header is whole: from then on a sweep recognises it. */
  if (!err && !named)
    {
      err = publish (fd, arena);
      named = !err;
    }
  if (!err)
    err = posix_fallocate (fd, 0, (off_t) total);
  if (err)
    {
      if (base != MAP_FAILED)
        munmap (base, total);
      close (fd);
      if (named)
        shm_unlink (arena->name);
      arena->base = NULL;
      arena->header = NULL;
      return err;
    }
  arena->fd = fd;
  arena_fault_register (arena);
  return 0;
}

void
arena_unlink (struct arena *arena)
{
  if (arena->name[0])
    shm_unlink (arena->name);
}

/* ------------------------------------------------------------ consumer */

/* Open the object NAME (at PATH in /dev/shm) and vet what it is
   (arena_object_problem): its descriptor in *FD_OUT and its status in
   *ST, or an errno and *WHY.  */
static int
open_object (const char *name, const char *path, int *fd_out, struct stat *st, const char **why)
{
  /* glibc's shm_open adds O_NOFOLLOW: a symlink planted under the name
     fails with ELOOP.  O_NONBLOCK: anyone can plant a FIFO under the name
     in /dev/shm, and opening one to read would wait for a writer forever;
     fstat below refuses it.  */
  int fd = high_fd (shm_open (name, O_RDWR | O_NONBLOCK, 0));
  if (fd < 0 && errno == EACCES)
    /* Its mode may forbid writing: open it to read, so the checks below
       say what is wrong with it.  */
    fd = high_fd (shm_open (name, O_RDONLY | O_NONBLOCK, 0));
  const char *reason = NULL;
  if (fd < 0)
    {
      int err = errno;
      if (err == ENOENT || err == ELOOP)
        {
          *why = err == ENOENT ? "no such arena (its producer exited or it was consumed already)"
            : "is a symbolic link";
          return err;
        }
      /* Refused (another user's object, a directory, a socket): what the
         object is, from its inode, is about the input, not the system.  */
      int probe = open (path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
      if (probe >= 0 && fstat (probe, st) == 0)
        reason = arena_object_problem (st);
      if (probe >= 0)
        close (probe);
      *why = reason ? reason : "cannot open arena";
      return reason ? EPERM : err;
    }
  if (fstat (fd, st) != 0)
    reason = "cannot stat arena";
  else
    reason = arena_object_problem (st);
  if (reason)
    {
      close (fd);
      *why = reason;
      return EPERM;
    }
  *fd_out = fd;
  return 0;
}

int
arena_attach (struct arena *arena, const char *name, const char **why)
{
  memset (arena, 0, sizeof *arena);
  arena->fd = -1;
  if (!arena_valid_name (name))
    {
      *why = "not an arenabench arena name";
      return EINVAL;
    }
  snprintf (arena->name, sizeof arena->name, "%s", name);
  snprintf (arena->path, sizeof arena->path, "/dev/shm%s", name);
  struct stat st;
  int fd = -1, err = open_object (name, arena->path, &fd, &st, why);
  if (err)
    return err;
  /* A regular file: reads and writes of it never wait anyway.  */
  fcntl (fd, F_SETFL, fcntl (fd, F_GETFL) & ~O_NONBLOCK);
  void *base = mmap (NULL, (size_t) st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (base == MAP_FAILED)
    {
      err = errno;
      close (fd);
      *why = "cannot map arena";
      return err;
    }
  arena->fd = fd;
  arena->base = base;
  arena->map_bytes = (uint64_t) st.st_size;
  arena->header = base;
  arena_fault_register (arena);
  /* Read the header once into our copy, then judge the copy: the
     header may change under us.  */
  struct arena_header h;
  memcpy (&h, (const void *) arena->header, sizeof h);
  const char *reason = arena_header_problem (&h, arena->map_bytes);
  if (reason)
    {
      arena_detach (arena, false);
      *why = reason;
      return EPROTO;
    }
  /* From here on, only the validated copy counts.  */
  keep_geometry (arena, &h);
  /* One consumer per arena: a second that opened the name before the
     first unlinked it finds the lock taken.  */
  err = arena_lock_take (fd, ARENA_LOCK_CONSUMER);
  if (err)
    {
      arena_detach (arena, false);
      *why = err == EAGAIN || err == EACCES ? "another consumer holds this arena"
        : "cannot lock arena";
      return err == EAGAIN || err == EACCES ? EBUSY : err;
    }
  arena->ring_expect = atomic_load (&arena->header->tail);
  arena->producer_pid = h.producer_pid > 0 ? h.producer_pid : 0;
  atomic_store (&arena->header->consumer_pid, (int32_t) getpid ());
  atomic_fetch_or (&arena->header->state, ARENA_CONSUMER_ATTACHED);
  /* We hold the mapping; the name has done its job.  */
  shm_unlink (name);
  return 0;
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
      arena_wake_producer (arena->header);
    }
  /* The descriptor first: once the mapping is gone, so is everything.  */
  if (arena->fd >= 0)
    close (arena->fd);
  if (arena->base)
    {
      arena_fault_unregister (arena);
      munmap (arena->base, arena->map_bytes);
    }
  arena->base = NULL;
  arena->header = NULL;
  arena->fd = -1;
}
