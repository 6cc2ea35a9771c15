/* die.c -- error reporting and allocation that cannot fail. */
#include "system.h"
#include "die.h"

#include <stdarg.h>

const char *program_name = "arenabench";
static void (*die_cleanup) (void);

void
die_set_program_name (const char *argv0)
{
  const char *slash = strrchr (argv0, '/');
  program_name = slash ? slash + 1 : argv0;
}

void
die_set_cleanup (void (*cleanup) (void))
{
  die_cleanup = cleanup;
}

static void
vreport (int errnum, const char *format, va_list args)
{
  /* One fprintf per message part into an unbuffered stderr could interleave
     with other processes; build the line first and write it at once.  */
  char line[1024];
  int used = snprintf (line, sizeof line, "%s: ", program_name);
  if (used < 0 || (size_t) used >= sizeof line)
    used = 0;
  int more = vsnprintf (line + used, sizeof line - used, format, args);
  if (more > 0)
    used = (size_t) (used + more) < sizeof line ? used + more : (int) sizeof line - 1;
  if (errnum && (size_t) used < sizeof line - 1)
    {
      more = snprintf (line + used, sizeof line - used, ": %s", strerror (errnum));
      if (more > 0)
        used = (size_t) (used + more) < sizeof line ? used + more : (int) sizeof line - 1;
    }
  fprintf (stderr, "%s\n", line);
}

void
die (int status, int errnum, const char *format, ...)
{
  va_list args;
  va_start (args, format);
  vreport (errnum, format, args);
  va_end (args);
  if (die_cleanup)
    {
      void (*cleanup) (void) = die_cleanup;
      die_cleanup = NULL;
      cleanup ();
    }
  exit (status);
}

void
warn (int errnum, const char *format, ...)
{
  va_list args;
  va_start (args, format);
  vreport (errnum, format, args);
  va_end (args);
}

void *
xmalloc (size_t size)
{
  void *p = malloc (size ? size : 1);
  if (!p)
    die (EXIT_OSERR, errno, "cannot allocate %zu bytes", size);
  return p;
}

void *
xcalloc (size_t count, size_t size)
{
  void *p = calloc (count ? count : 1, size ? size : 1);
  if (!p)
    die (EXIT_OSERR, errno, "cannot allocate %zu x %zu bytes", count, size);
  return p;
}

void *
xrealloc (void *ptr, size_t size)
{
  void *p = realloc (ptr, size ? size : 1);
  if (!p)
    die (EXIT_OSERR, errno, "cannot allocate %zu bytes", size);
  return p;
}

void *
xreallocarray (void *ptr, size_t count, size_t size)
{
  if (size && count > SIZE_MAX / size)
    die (EXIT_OSERR, 0, "cannot allocate %zu x %zu bytes: too large", count, size);
  return xrealloc (ptr, count * size);
}

char *
xstrdup (const char *text)
{
  size_t n = strlen (text) + 1;
  return memcpy (xmalloc (n), text, n);
}

/* Append LEN bytes of TEXT to the growing buffer *BUF.  */
static void
quote_append (char **buf, size_t *used, size_t *size, const char *text, size_t len)
{
  if (*used + len + 1 > *size)
    {
      while (*used + len + 1 > *size)
        *size = *size ? 2 * *size : 64;
      *buf = xrealloc (*buf, *size);
    }
  memcpy (*buf + *used, text, len);
  *used += len;
  (*buf)[*used] = '\0';
}

const char *
quote (const char *name)
{
  static char *slots[QUOTE_SLOTS];
  static size_t sizes[QUOTE_SLOTS];
  static unsigned next;
  unsigned i = next++ % QUOTE_SLOTS;
  char **buf = &slots[i];
  size_t *size = &sizes[i], used = 0;

  quote_append (buf, &used, size, "'", 1);
  bool escaping = false;
  for (const unsigned char *p = (const unsigned char *) name; *p; p++)
    {
      bool plain = *p >= 0x20 && *p < 0x7f;
      if (plain && escaping)
        {
          quote_append (buf, &used, size, "''", 2);     /* end $'...', open '...' */
          escaping = false;
        }
      if (!plain && !escaping)
        {
          quote_append (buf, &used, size, "'$'", 3);    /* end '...', open $'...' */
          escaping = true;
        }
      if (*p == '\'')
        quote_append (buf, &used, size, "'\\''", 4);
      else if (plain)
        quote_append (buf, &used, size, (const char *) p, 1);
      else
        {
          static const char letters[] = "\a\b\t\n\v\f\r";
          const char *l = *p ? strchr (letters, *p) : NULL;
          char esc[8];
          if (l)
            snprintf (esc, sizeof esc, "\\%c", "abtnvfr"[l - letters]);
          else
            snprintf (esc, sizeof esc, "\\%03o", *p);
          quote_append (buf, &used, size, esc, strlen (esc));
        }
    }
  quote_append (buf, &used, size, "'", 1);
  return *buf;
}

const char *
quotef (const char *name)
{
  static const char safe[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                             "0123456789._/+-:,@=";
  return *name && !name[strspn (name, safe)] ? name : quote (name);
}
