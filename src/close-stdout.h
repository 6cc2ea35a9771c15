/* close-stdout.h -- make write errors on stdout fail loudly at exit. */
#ifndef ARENABENCH_CLOSE_STDOUT_H
#define ARENABENCH_CLOSE_STDOUT_H

#include <signal.h>
#include <stddef.h>

/* First thing in main, before anything is printed (options_init): stdout
   becomes a stream that waits, with poll(2), where a non-blocking stdout
   says EAGAIN, and goes on, instead of failing with a write error.  */
void stdout_init (void);

/* Write all SIZE bytes of BUF to FD, retrying on EINTR and, after poll(2)
   says FD is writable, on EAGAIN.  One write(2) for what FD takes at once,
   so a line under PIPE_BUF is never split.  Returns 0 or an errno value.  */
int write_fully (int fd, const void *buf, size_t size);

/* Limits on write_fully's wait for a reader to make room: after
   TIMEOUT_S seconds (0: none) it returns ETIMEDOUT, and once *STOP (a
   signal handler's flag; NULL: none) is set, ECANCELED rather than wait.
   It then waits in poll(2), which every signal interrupts, and writes
   at most PIPE_BUF bytes at a time.  */
void write_fully_limit (double timeout_s, volatile sig_atomic_t *stop);

/* Register with atexit() first thing in main: flushes and closes stdout
   and dies with EXIT_IOERR ("write error") if anything was lost.  */
void close_stdout (void);

/* Flush stdout now; die with EXIT_IOERR on failure.  Commands that stream
   rows call it after each row a downstream process may wait for.  */
void flush_stdout (void);

/* Report a failed write to stdout ("write error: ERRNUM's text") and die
   with EXIT_IOERR; close_stdout then adds nothing.  */
_Noreturn void stdout_write_error (int errnum);

#endif
