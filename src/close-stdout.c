/* close-stdout.c -- after coreutils' closeout: a lost write is an error. */
#include "system.h"
#include "close-stdout.h"
#include "die.h"

#include <poll.h>
#include <unistd.h>

/* A write error already reported: close_stdout must not say it twice.  */
static bool write_error_reported;

void
stdout_write_error (int errnum)
{
  write_error_reported = true;
  die (EXIT_IOERR, errnum, "write error");
}

int
write_fully (int fd, const void *buf, size_t size)
{
  const char *p = buf;
  while (size > 0)
    {
      ssize_t n = write (fd, p, size);
      if (n < 0)
        {
          if (errno == EINTR)
            continue;
          if (errno != EAGAIN && errno != EWOULDBLOCK)
            return errno;
          /* Non-blocking, and full: wait until the reader makes room (or
             leaves, and the next write says EPIPE).  */
          struct pollfd pfd = { .fd = fd, .events = POLLOUT };
          if (poll (&pfd, 1, -1) < 0 && errno != EINTR)
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
  if (fclose (stderr) != 0)
    _exit (EXIT_IOERR);
}
