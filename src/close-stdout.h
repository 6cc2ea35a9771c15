/* close-stdout.h -- make write errors on stdout fail loudly at exit. */
#ifndef ARENABENCH_CLOSE_STDOUT_H
#define ARENABENCH_CLOSE_STDOUT_H

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
