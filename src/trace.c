/* trace.c -- --trace FILE as Chrome trace-event JSON.  */
#include "system.h"
#include "trace.h"
#include "die.h"

#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

/* Track numbers: process 1 holds the producers (thread = worker), process
   2 the consumer: its own thread, then the copy streams, the checks and
   the releases.  */
enum
{
  PID_PRODUCERS = 1, PID_CONSUMER = 2,
  TID_CONSUMER = 0, TID_COPY_FIRST = 1, TID_CHECKS = 100, TID_RELEASES = 101,
};

struct trace
{
  char *path;                   /* where the trace goes */
  char *temp;                   /* written here, renamed to PATH; or NULL */
  FILE *file;
  const char *consumer;
  unsigned copy_streams;
  struct trace_item *items;
  size_t count, allocated;
};

/* A FIFO, a terminal or /dev/stdout: written in place, opened without
   waiting (a FIFO nobody reads fails at once, ENXIO, rather than block
   before any --timeout applies), then made blocking again.  */
static FILE *
open_in_place (const char *path)
{
  int fd = open (path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0 && errno == ENXIO)
    die (EXIT_IOERR, 0, "--trace: %s is a FIFO nobody reads", quote (path));
  if (fd < 0)
    die (EXIT_IOERR, errno, "--trace: cannot open %s", quote (path));
  int flags = fcntl (fd, F_GETFL);
  FILE *file = NULL;
  if (flags < 0 || fcntl (fd, F_SETFL, flags & ~O_NONBLOCK) < 0 || !(file = fdopen (fd, "w")))
    die (EXIT_IOERR, errno, "--trace: cannot open %s", quote (path));
  return file;
}

/* A regular file (or none yet): written to TEMP beside it, created with
   MODE as open(2) creates it (the umask applies), and renamed over it
   once whole, so that a run that fails leaves an earlier trace as it was.
   Sets *TEMP (allocated) or dies, having freed it and OWNED (LeakSanitizer
   counts what a death leaves allocated).  */
static FILE *
open_beside (const char *path, mode_t mode, char **temp, char *owned)
{
  size_t size = strlen (path) + 32;
  char *name = xmalloc (size);
  int fd = -1;
  for (unsigned n = 0; fd < 0 && n < 100; n++)
    {
      snprintf (name, size, "%s.%ld.%u.tmp", path, (long) getpid (), n);
      fd = open (name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
      if (fd < 0 && errno != EEXIST)
        break;
    }
  FILE *file = fd >= 0 ? fdopen (fd, "w") : NULL;
  /* An existing file in a folder we may not write: written in place, but
     only truncated once the trace is written (trace_close), so a failed
     run still leaves it as it was.  */
  if (!file && owned && fd < 0 && (errno == EACCES || errno == EROFS || errno == EPERM)
      && (fd = open (path, O_WRONLY | O_CLOEXEC)) >= 0)
    {
      if ((file = fdopen (fd, "w")))
        {
          free (name);
          *temp = NULL;
          return file;
        }
      close (fd);
      fd = -1;
    }
  if (!file)
    {
      int err = errno;
      if (fd >= 0)
        unlink (name);
      free (name);
      char shown[1024];
      snprintf (shown, sizeof shown, "%s", path);
      free (owned);
      die (EXIT_IOERR, err, "--trace: cannot create %s", quote (shown));
    }
  *temp = name;
  return file;
}

struct trace *
trace_open (const char *path, const char *consumer, unsigned copy_streams)
{
  /* Opened before the trace is allocated: dying here leaks nothing.  A
     symbolic link to a file is followed: the file is replaced, the link
     stays.  */
  struct stat st;
  bool exists = stat (path, &st) == 0;
  char *temp = NULL, *target = NULL;
  FILE *file;
  if (exists && !S_ISREG (st.st_mode))
    file = open_in_place (path);
  else
    {
      if (exists && !(target = realpath (path, NULL)))
        die (EXIT_IOERR, errno, "--trace: cannot create %s", quote (path));
      file = open_beside (target ? target : path, exists ? st.st_mode & 07777 : 0666, &temp,
                          target);
      if (exists)
        fchmod (fileno (file), st.st_mode & 07777);
    }
  struct trace *t = xcalloc (1, sizeof *t);
  t->file = file;
  t->path = target ? target : xstrdup (path);
  t->temp = temp;
  t->consumer = consumer;
  t->copy_streams = copy_streams;
  return t;
}

void
trace_discard (struct trace *t)
{
  fclose (t->file);
  if (t->temp)
    unlink (t->temp);
  free (t->temp);
  free (t->items);
  free (t->path);
  free (t);
}

void
trace_add (struct trace *t, const struct trace_item *item)
{
  if (t->count == t->allocated)
    {
      t->allocated = t->allocated ? 2 * t->allocated : 4096;
      t->items = xreallocarray (t->items, t->allocated, sizeof *t->items);
    }
  t->items[t->count++] = *item;
}

/* Microseconds since ORIGIN, the unit of "ts" and "dur".  */
static double
us (uint64_t ns, uint64_t origin)
{
  return (double) (ns - origin) / 1e3;
}

static void
track_name (FILE *f, int pid, int tid, const char *name)
{
  fprintf (f, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,"
           "\"args\":{\"name\":\"%s\"}}", pid, tid, name);
}

/* A span (FROM and TO both known) or nothing.  */
static void
span (FILE *f, const struct trace_item *it, const char *name, int pid, int tid,
      enum trace_stage from, enum trace_stage to, uint64_t origin)
{
  if (!it->at[from] || !it->at[to] || it->at[to] < it->at[from])
    return;
  fprintf (f, ",\n{\"name\":\"%s\",\"ph\":\"X\",\"pid\":%d,\"tid\":%d,\"ts\":%.3f,"
           "\"dur\":%.3f,\"args\":{\"sequence\":%" PRIu64 ",\"worker\":%" PRIu32
           ",\"epoch\":%" PRIu32 ",\"bytes\":%" PRIu64 "}}", name, pid, tid,
           us (it->at[from], origin), (double) (it->at[to] - it->at[from]) / 1e3,
           it->sequence, it->worker, it->epoch, it->bytes);
}

static void
instant (FILE *f, const struct trace_item *it, const char *name, int pid, int tid,
         enum trace_stage at, uint64_t origin)
{
  if (!it->at[at])
    return;
  fprintf (f, ",\n{\"name\":\"%s\",\"ph\":\"i\",\"s\":\"t\",\"pid\":%d,\"tid\":%d,"
           "\"ts\":%.3f,\"args\":{\"sequence\":%" PRIu64 "}}", name, pid, tid,
           us (it->at[at], origin), it->sequence);
}

static void
write_events (struct trace *t)
{
  FILE *f = t->file;
  /* The earliest time of the run is 0 on the timeline.  */
  uint64_t origin = UINT64_MAX;
  uint32_t workers = 0;
  for (size_t i = 0; i < t->count; i++)
    {
      for (int s = 0; s < TRACE_STAGE_COUNT; s++)
        if (t->items[i].at[s] && t->items[i].at[s] < origin)
          origin = t->items[i].at[s];
      if (t->items[i].worker + 1 > workers)
        workers = t->items[i].worker + 1;
    }
  bool gpu = t->copy_streams > 0;

  fputs ("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[", f);
  fprintf (f, "\n{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,"
           "\"args\":{\"name\":\"producers\"}}", PID_PRODUCERS);
  fprintf (f, ",\n{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,"
           "\"args\":{\"name\":\"%s\"}}", PID_CONSUMER, t->consumer);
  char name[64];
  for (uint32_t w = 0; w < workers; w++)
    {
      snprintf (name, sizeof name, "producer %" PRIu32, w);
      track_name (f, PID_PRODUCERS, (int) w, name);
    }
  track_name (f, PID_CONSUMER, TID_CONSUMER, "consumer");
  for (unsigned s = 0; s < t->copy_streams; s++)
    {
      snprintf (name, sizeof name, "copy stream %u", s);
      track_name (f, PID_CONSUMER, TID_COPY_FIRST + (int) s, name);
    }
  if (gpu)
    {
      track_name (f, PID_CONSUMER, TID_CHECKS, "checks (GPU)");
      track_name (f, PID_CONSUMER, TID_RELEASES, "releases");
    }

  for (size_t i = 0; i < t->count; i++)
    {
      const struct trace_item *it = &t->items[i];
      int w = (int) it->worker;
      span (f, it, "fill", PID_PRODUCERS, w, TRACE_FILL_START, TRACE_FILL_END, origin);
      instant (f, it, "row", PID_PRODUCERS, w, TRACE_ROW, origin);
      span (f, it, "wait for row", PID_CONSUMER, TID_CONSUMER, TRACE_WAIT_START, TRACE_READ,
            origin);
      instant (f, it, "read row", PID_CONSUMER, TID_CONSUMER, TRACE_READ, origin);
      if (gpu)
        {
          instant (f, it, "submit", PID_CONSUMER, TID_CONSUMER, TRACE_SUBMIT, origin);
          if (it->copy_stream >= 0)
            span (f, it, "copy", PID_CONSUMER, TID_COPY_FIRST + it->copy_stream,
                  TRACE_COPY_START, TRACE_COPY_END, origin);
          span (f, it, "check", PID_CONSUMER, TID_CHECKS, TRACE_CHECK_START, TRACE_CHECK_END,
                origin);
          instant (f, it, "release", PID_CONSUMER, TID_RELEASES, TRACE_RELEASE, origin);
        }
      else
        {
          span (f, it, "check", PID_CONSUMER, TID_CONSUMER, TRACE_CHECK_START, TRACE_CHECK_END,
                origin);
          instant (f, it, "release", PID_CONSUMER, TID_CONSUMER, TRACE_RELEASE, origin);
        }
    }
  fputs ("\n]}\n", f);
}

void
trace_close (struct trace *t)
{
  write_events (t);
  /* A regular file written in place (open_beside) was not truncated at
     open: its old bytes past the trace go now.  */
  bool failed = false;
  int err = 0;
  struct stat st;
  if (!t->temp && fflush (t->file) == 0 && fstat (fileno (t->file), &st) == 0
      && S_ISREG (st.st_mode))
    {
      off_t end = ftello (t->file);
      if (end < 0 || ftruncate (fileno (t->file), end) != 0)
        failed = true, err = errno;
    }
  bool lost = ferror (t->file) | (fclose (t->file) != 0);
  if (lost && !failed)
    failed = true, err = errno;
  if (!failed && t->temp && rename (t->temp, t->path) != 0)
    failed = true, err = errno;
  if (failed && t->temp)
    unlink (t->temp);
  char *path = t->path;
  free (t->temp);
  free (t->items);
  free (t);
  if (failed)
    {
      /* The name outlives the trace for the message only.  */
      char name[1024];
      snprintf (name, sizeof name, "%s", path);
      free (path);
      die (EXIT_IOERR, err, "--trace: write error on %s", quote (name));
    }
  free (path);
}
