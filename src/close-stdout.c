/* close-stdout.c -- after coreutils' closeout: a lost write is an error. */
#include "system.h"
#include "close-stdout.h"
#include "die.h"
#include "clock.h"

#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <sys/uio.h>
#include <unistd.h>

/* A write error already reported: close_stdout must not say it twice.  */
static bool write_error_reported;

/* An AddressSanitizer build: gcc defines __SANITIZE_ADDRESS__, clang
   says "address_sanitizer".  */
#if defined __SANITIZE_ADDRESS__
# define ARENABENCH_HAS_ASAN 1
#elif defined __has_feature
# if __has_feature (address_sanitizer)
#  define ARENABENCH_HAS_ASAN 1
# endif
#endif
#ifndef ARENABENCH_HAS_ASAN
# define ARENABENCH_HAS_ASAN 0
#endif

/* write_fully_limit's settings: 0, NULL: wait for room as long as it
   takes.  */
static uint64_t room_timeout_ns;
static volatile sig_atomic_t *room_stop;

void
stdout_write_error (int errnum)
{
  write_error_reported = true;
  if (errnum == ECANCELED)
    die (EXIT_IOERR, 0, "stdout: not read when the run was stopped: receipts not yet written are lost");
  if (errnum == ETIMEDOUT)
    die (EXIT_TEMPFAIL, 0, "stdout: not read for %g s (--timeout): its reader stopped reading",
         (double) room_timeout_ns / 1e9);
  die (EXIT_IOERR, errnum, "write error");
}

void
write_fully_limit (double timeout_s, volatile sig_atomic_t *stop)
{
  room_timeout_ns = timeout_s > 0 ? (uint64_t) (timeout_s * 1e9) : 0;
  room_stop = stop;
}

/* Until FD has room (or an error or hang-up, which the write then says),
   in poll(2), which a signal interrupts whatever SA_RESTART says: 0,
   ETIMEDOUT after the limit, ECANCELED once *room_stop is set and FD has
   no room.  */
static int
wait_room (int fd)
{
  uint64_t deadline = room_timeout_ns ? clock_now_ns () + room_timeout_ns : 0;
  for (;;)
    {
      bool stop = room_stop && *room_stop;
      int ms = -1;
      if (stop)
        ms = 0;
      else if (deadline)
        {
          uint64_t now = clock_now_ns ();
          if (now >= deadline)
            return ETIMEDOUT;
          ms = (int) ((deadline - now + 999999) / 1000000);
        }
      struct pollfd pfd = { .fd = fd, .events = POLLOUT };
      int n = poll (&pfd, 1, ms);
      if (n > 0)
        return 0;
      if (n < 0 && errno != EINTR)
        return errno;
      if (stop)
        return ECANCELED;
    }
}

int
write_fully (int fd, const void *buf, size_t size)
{
  const char *p = buf;
  bool limited = room_timeout_ns || room_stop;
  while (size > 0)
    {
      size_t chunk = size;
      if (limited)
        {
          /* write(2) itself would wait for the reader with no limit: write
             no more than a pipe with room takes at once (PIPE_BUF), first
             without waiting (RWF_NOWAIT: no poll(2) per write while the
             reader keeps up), else after poll says there is room.  */
          if (chunk > PIPE_BUF)
            chunk = PIPE_BUF;
          static bool no_nowait;
          if (!no_nowait)
            {
              struct iovec iov = { .iov_base = (void *) p, .iov_len = chunk };
              ssize_t n = pwritev2 (fd, &iov, 1, -1, RWF_NOWAIT);
              if (n >= 0)
                {
                  p += n;
                  size -= (size_t) n;
                  continue;
                }
              if (errno == EINTR)
                continue;
              if (errno == EOPNOTSUPP || errno == EINVAL || errno == ENOSYS)
                no_nowait = true;       /* an older kernel, or another file */
              else if (errno != EAGAIN && errno != EWOULDBLOCK)
                return errno;
            }
          int err = wait_room (fd);
          if (err)
            return err;
        }
      ssize_t n = write (fd, p, chunk);
      if (n < 0)
        {
          if (errno == EINTR)
            continue;
          if (errno != EAGAIN && errno != EWOULDBLOCK)
            return errno;
          /* Non-blocking, and full: wait until the reader makes room (or
             leaves, and the next write says EPIPE).  */
          int err = limited ? wait_room (fd) : 0;
          if (err)
            return err;
          struct pollfd pfd = { .fd = fd, .events = POLLOUT };
          if (!limited && poll (&pfd, 1, -1) < 0 && errno != EINTR)
            return errno;
          continue;
        }
      p += n;
      size -= (size_t) n;
    }
  return 0;
}

/* stdio's stdout gives up at EAGAIN and loses its buffer: write it through
   write_fully instead.  0 with errno set is an error to stdio.  */
static ssize_t
stdout_cookie_write (void *cookie, const char *buf, size_t size)
{
  (void) cookie;
  int err = write_fully (STDOUT_FILENO, buf, size);
  if (err)
    {
      errno = err;
      return 0;
    }
  return (ssize_t) size;
}

void
stdout_init (void)
{
  /* Whoever shares our stdout may make it non-blocking at any time (it is
     a flag of the open file description), so stdout always goes through
     the cookie, buffered as stdio would buffer it.  */
  FILE *f = fopencookie (NULL, "w", (cookie_io_functions_t) { .write = stdout_cookie_write });
  if (!f)
    return;
  if (isatty (STDOUT_FILENO))
    setvbuf (f, NULL, _IOLBF, BUFSIZ);
  stdout = f;
}

void
flush_stdout (void)
{
  if (fflush (stdout) != 0)
    stdout_write_error (errno);
}

void
close_stdout (void)
{
  bool failed = ferror (stdout) != 0;
  int saved = errno;
  if (fclose (stdout) != 0)
    {
      failed = true;
      saved = errno;
    }
  if (failed && write_error_reported)
    _exit (EXIT_IOERR);
  if (failed)
    {
      /* EPIPE here means the reader left; exiting quietly is what a
         pipeline stage does then.  Anything else lost output.  */
      if (saved == EPIPE)
        _exit (EXIT_IOERR);
      warn (saved, "write error");
      _exit (EXIT_IOERR);
    }
#if ARENABENCH_HAS_ASAN
  /* The leak checker reports after the exit handlers: left open, its
     report reaches stderr instead of vanishing behind a bare exit 1.  */
  if (fflush (stderr) != 0)
    _exit (EXIT_IOERR);
#else
  if (fclose (stderr) != 0)
    _exit (EXIT_IOERR);
#endif
}
