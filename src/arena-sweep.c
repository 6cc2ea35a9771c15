/* arena-sweep.c -- removing arenas whose producer was killed before any
   consumer learned their names. */
#include "system.h"
#include "arena.h"
#include "arena-layout.h"
#include "arena-sync.h"
#include "clock.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* An object that is not an arena yet: created, but killed before its
   header was written (size 0, or a first page of zeros).  An empty one
   may be a live producer's between shm_open and its lock: it is left
   alone this long.  */
#define BLANK_GRACE_S 2

static bool
blank (int fd, const struct stat *st)
{
  if (st->st_size == 0)
    return true;
  unsigned char head[ARENA_SLOT_TABLE];
  if (pread (fd, head, sizeof head, 0) != (ssize_t) sizeof head)
    return false;
  for (size_t i = 0; i < sizeof head; i++)
    if (head[i])
      return false;
  return true;
}

/* Is the object NAME an orphan: an arena of ours whose producer lock
   nobody holds?  Ours means this user's, not open to others (0600, or
   0400 as an older producer under umask 0277 left it) and either a
   well-formed header, or blank: sized, or empty and untouched for
   BLANK_GRACE_S seconds.  The producer takes its lock before it gives
   the object a size, so an unlocked blank object with a size is one whose
   creator died (killed before its header was written: a consumer's
   sweep, moments later, left it behind while it waited out the grace);
   the grace covers only an empty one, which may be in the moment between
   shm_open and the lock.  Anything else under our prefix is not ours to
   remove.  */
static bool
orphan (const char *name, bool *live)
{
  *live = false;
  /* O_NONBLOCK: a FIFO planted under the name would block the open until
     someone writes to it; fstat then passes it by.  */
  int fd = shm_open (name, O_RDONLY | O_NONBLOCK, 0);
  if (fd < 0)
    return false;
  struct stat st;
  bool result = false;
  if (fstat (fd, &st) == 0 && S_ISREG (st.st_mode) && st.st_uid == geteuid ()
      && (st.st_mode & 077) == 0)
    {
      struct timespec now;
      clock_gettime (CLOCK_REALTIME, &now);
      struct arena_header h;
      bool ours = blank (fd, &st)
        ? st.st_size > 0 || now.tv_sec - st.st_mtim.tv_sec >= BLANK_GRACE_S
        : pread (fd, &h, sizeof h, 0) == (ssize_t) sizeof h
          && !arena_header_problem (&h, (uint64_t) st.st_size);
      *live = arena_lock_held (fd, ARENA_LOCK_PRODUCER);
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
          || !arena_valid_name (name))
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

