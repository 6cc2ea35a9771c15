/* die.h -- the one way arenabench commands report errors. */
#ifndef ARENABENCH_DIE_H
#define ARENABENCH_DIE_H

#include <stdarg.h>

/* Name used as the prefix of every message; set once from main.  */
extern const char *program_name;
void die_set_program_name (const char *argv0);

/* Called once by die() before exiting, so a command can unlink its arenas.
   Must be safe to call from any state the program can die in.  */
void die_set_cleanup (void (*cleanup) (void));

/* Print "PROGRAM: MESSAGE[: strerror(ERRNUM)]" and exit with STATUS.
   ERRNUM 0 adds no system error text.  */
_Noreturn void die (int status, int errnum, const char *format, ...)
  __attribute__ ((format (printf, 3, 4)));

/* Print "PROGRAM: MESSAGE[: strerror(ERRNUM)]" without exiting.  */
void warn (int errnum, const char *format, ...)
  __attribute__ ((format (printf, 2, 3)));

/* NAME (a file, an arena, an option's value) quoted for a message as
   coreutils quotes file names (quotearg's shell-escape-always style):
   'name'; a single quote becomes '\'' and each run of control,
   DEL or non-ASCII bytes $'\n', $'\033', so a name can neither break
   the one-line message nor send the terminal escape codes.  The result
   is one of QUOTE_SLOTS buffers used in turn: a message may quote that
   many names.  */
#define QUOTE_SLOTS 4
const char *quote (const char *name);

/* NAME as the subject of a message ("NAME: line 3: ..."): as it is when
   it holds only letters, digits and . _ / + - : , @ =, else as quote
   gives it (coreutils' quotef).  */
const char *quotef (const char *name);

/* Allocation that cannot fail: out of memory dies with EXIT_OSERR.  */
void *xmalloc (size_t size);
void *xcalloc (size_t count, size_t size);
void *xrealloc (void *ptr, size_t size);
void *xreallocarray (void *ptr, size_t count, size_t size);
char *xstrdup (const char *text);

#endif
