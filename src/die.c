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

/* Its callers' format attributes check the arguments; this one lets the
   compiler know FORMAT is theirs (clang's -Wformat-nonliteral).  */
static void vreport (int errnum, const char *format, va_list args)
  __attribute__ ((format (printf, 2, 0)));

static void
vreport (int errnum, const char *format, va_list args)
{
  /* One fprintf per message part into an unbuffered stderr could interleave
     with other processes; build the line first and write it at once.  */
  /* Room for a quoted name cut at QUOTE_MAX and the reason after it.  */
  char line[2048];
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

/* A quoted name longer than a message line is cut: the line is anyway.  */
#define QUOTE_MAX 1024

struct quoted
{
  char text[QUOTE_MAX];
  size_t used;
  bool cut;
};

static void
quote_append (struct quoted *q, const char *text, size_t len)
{
  /* Room for "...'" and the NUL, so a cut name still shows it was cut.  */
  if (q->cut || q->used + len + 5 > sizeof q->text)
    {
      q->cut = true;
      return;
    }
  memcpy (q->text + q->used, text, len);
  q->used += len;
}

const char *
quote (const char *name)
{
  /* Static, not malloc'd: die() may quote a name when memory has run out. */
  static struct quoted slots[QUOTE_SLOTS];
  static unsigned next;
  struct quoted *q = &slots[next++ % QUOTE_SLOTS];
  q->used = 0;
  q->cut = false;

  quote_append (q, "'", 1);
  bool escaping = false;
  for (const unsigned char *p = (const unsigned char *) name; *p && !q->cut; p++)
    {
      bool plain = *p >= 0x20 && *p < 0x7f;
      if (plain && escaping)
        {
          quote_append (q, "''", 2);            /* end $'...', open '...' */
          escaping = false;
        }
      if (!plain && !escaping)
        {
          quote_append (q, "'$'", 3);           /* end '...', open $'...' */
          escaping = true;
        }
      if (*p == '\'')
        quote_append (q, "'\\''", 4);
      else if (plain)
        quote_append (q, (const char *) p, 1);
      else
        {
          static const char letters[] = "\a\b\t\n\v\f\r";
          const char *l = strchr (letters, *p);
          char esc[8];
          if (l)
            snprintf (esc, sizeof esc, "\\%c", "abtnvfr"[l - letters]);
          else
            snprintf (esc, sizeof esc, "\\%03o", *p);
          quote_append (q, esc, strlen (esc));
        }
    }
  if (q->cut)
    {
      memcpy (q->text + q->used, "...", 3);
      q->used += 3;
    }
  else
    q->text[q->used++] = '\'';
  q->text[q->used] = '\0';
  return q->text;
}

const char *
quotef (const char *name)
{
  static const char safe[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                             "0123456789._/+-:,@=";
  return *name && !name[strspn (name, safe)] ? name : quote (name);
}
