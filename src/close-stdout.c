/* close-stdout.c -- after coreutils' closeout: a lost write is an error. */
#include "system.h"
#include "close-stdout.h"
#include "die.h"

#include <unistd.h>

/* A write error already reported: close_stdout must not say it twice.  */
static bool write_error_reported;

void
stdout_write_error (int errnum)
{
  write_error_reported = true;
  die (EXIT_IOERR, errnum, "write error");
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
