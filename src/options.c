/* options.c -- option values: sizes, numbers, choices and lists. */
#include "system.h"
#include "options.h"
#include "close-stdout.h"
#include "die.h"

#include <ctype.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <unistd.h>

/* As gnulib's stdopen: a closed descriptor 0, 1 or 2 would be the next
   open's result, and an arena or file opened there would receive our
   messages and rows.  Open /dev/null in the opposite mode on each, so a
   write to a closed stdout still fails (EBADF: a write error, 74) and a
   read from a closed stdin fails too.  */
static void
open_standard_fds (void)
{
  for (int fd = STDIN_FILENO; fd <= STDERR_FILENO; fd++)
    if (fcntl (fd, F_GETFD) < 0 && errno == EBADF)
      {
        int got = open ("/dev/null", fd == STDIN_FILENO ? O_WRONLY : O_RDONLY);
        if (got != fd)
          /* No /dev/null, or a lower descriptor appeared: nothing to say
             it on safely but the status.  */
          _exit (EXIT_OSERR);
      }
}

void
options_init (char **argv)
{
  open_standard_fds ();
  /* Over the file size limit (ulimit -f) a write or ftruncate would kill
     us with SIGXFSZ, leaving arenas and half files; ignored, it fails
     with EFBIG and is reported and cleaned up like any other error.  */
  signal (SIGXFSZ, SIG_IGN);
  die_set_program_name (argv[0]);
  argv[0] = (char *) program_name;
  stdout_init ();
  atexit (close_stdout);
}

void
options_common (int code, void (*usage) (void))
{
  if (code == OPTION_HELP)
    usage ();
  if (code == OPTION_VERSION)
    options_version ();
  options_try_help ();
}

void
options_no_operands (int argc, char **argv)
{
  if (optind < argc)
    {
      warn (0, "unexpected argument %s", quote (argv[optind]));
      options_try_help ();
    }
}

void
options_stdin_operand (int argc, char **argv)
{
  if (optind < argc && strcmp (argv[optind], "-") == 0)
    optind++;
  options_no_operands (argc, argv);
}

void
options_version (void)
{
  printf ("%s (%s) %s\n", program_name, PACKAGE_NAME, PACKAGE_VERSION);
  printf ("Copyright (c) 2026 the arenabench authors.  BSD-3-Clause licence.\n");
#ifdef HAVE_CUDA
  printf ("CUDA support: built in\n");
#else
  printf ("CUDA support: not built in\n");
#endif
  exit (EXIT_OK);
}

void
options_try_help (void)
{
  fprintf (stderr, "Try '%s --help' for more information.\n", program_name);
  exit (EXIT_USAGE);
}

struct size_suffix
{
  const char *name;
  uint64_t multiplier;
};

/* Binary multipliers for the bare letters, as coreutils and numpy users
   expect of "8M"; decimal ones only when spelt KB, MB, GB, TB.  */
static const struct size_suffix size_suffixes[] = {
  { "", 1 }, { "B", 1 },
  { "K", 1ULL << 10 }, { "KiB", 1ULL << 10 }, { "KB", 1000ULL },
  { "M", 1ULL << 20 }, { "MiB", 1ULL << 20 }, { "MB", 1000000ULL },
  { "G", 1ULL << 30 }, { "GiB", 1ULL << 30 }, { "GB", 1000000000ULL },
  { "T", 1ULL << 40 }, { "TiB", 1ULL << 40 }, { "TB", 1000000000000ULL },
};

static bool
suffix_equal (const char *given, const char *name)
{
  /* Letters other than the 'i' of KiB may be given in either case.  */
  for (; *given && *name; given++, name++)
    if (*name == 'i' ? *given != 'i' : toupper ((unsigned char) *given) != *name)
      return false;
  return *given == *name;
}

/* How many ASCII digits TEXT starts with (no locale: isdigit may take
   others).  */
static size_t
digits_span (const char *text)
{
  size_t n = 0;
  while (text[n] >= '0' && text[n] <= '9')
    n++;
  return n;
}

/* The one integer parser: ASCII digits only (no sign, space or locale),
   at least one; *END gets the first byte after them.  */
static bool
parse_digits (const char *text, uint64_t *value, const char **end)
{
  size_t n = digits_span (text);
  if (n == 0)
    {
      errno = EINVAL;
      return false;
    }
  uint64_t number = 0;
  for (size_t i = 0; i < n; i++)
    {
      unsigned digit = (unsigned) (text[i] - '0');
      if (number > (UINT64_MAX - digit) / 10)
        {
          errno = ERANGE;
          return false;
        }
      number = number * 10 + digit;
    }
  *value = number;
  *end = text + n;
  return true;
}

bool
options_parse_decimal (const char *text, double *value)
{
  /* The grammar is checked here; strtod only converts what passed, so
     its wider language (blanks, '+', hex, inf, nan) never gets in.  */
  const char *p = text + (*text == '-');
  size_t whole = digits_span (p);
  p += whole;
  size_t fraction = 0;
  if (*p == '.')
    {
      fraction = digits_span (++p);
      p += fraction;
    }
  bool valid = whole + fraction > 0;
  if (valid && (*p == 'e' || *p == 'E'))
    {
      p += 1 + (p[1] == '+' || p[1] == '-');
      size_t exponent = digits_span (p);
      valid = exponent > 0;
      p += exponent;
    }
  if (!valid || *p)
    {
      errno = EINVAL;
      return false;
    }
  errno = 0;
  double number = strtod (text, NULL);
  if (errno == ERANGE || !isfinite (number))
    {
      errno = ERANGE;
      return false;
    }
  *value = number;
  return true;
}

bool
options_parse_uint (const char *text, uint64_t max, uint64_t *value)
{
  uint64_t number;
  const char *end;
  if (!parse_digits (text, &number, &end))
    return false;
  if (*end)
    {
      errno = EINVAL;
      return false;
    }
  if (number > max)
    {
      errno = ERANGE;
      return false;
    }
  *value = number;
  return true;
}

bool
options_parse_size (const char *text, uint64_t *value)
{
  uint64_t number;
  const char *p;
  if (!parse_digits (text, &number, &p))
    return false;
  for (size_t i = 0; i < ARRAY_SIZE (size_suffixes); i++)
    if (suffix_equal (p, size_suffixes[i].name))
      {
        uint64_t m = size_suffixes[i].multiplier;
        if (number > UINT64_MAX / m)
          {
            errno = ERANGE;
            return false;
          }
        *value = number * m;
        return true;
      }
  errno = EINVAL;
  return false;
}

uint64_t
options_size (const char *option, const char *text, uint64_t min, uint64_t max)
{
  uint64_t value;
  if (!options_parse_size (text, &value))
    die (EXIT_USAGE, 0, "%s: invalid size %s (use bytes or a suffix such as 64K, 8MiB, 1G)",
         option, quote (text));
  if (value < min || value > max)
    die (EXIT_USAGE, 0, "%s: size %s out of range [%" PRIu64 ", %" PRIu64 "] bytes",
         option, quote (text), min, max);
  return value;
}

uint64_t
options_uint (const char *option, const char *text, uint64_t min, uint64_t max)
{
  uint64_t value;
  if (!options_parse_uint (text, UINT64_MAX, &value))
    die (EXIT_USAGE, 0, "%s: invalid number %s", option, quote (text));
  if (value < min || value > max)
    die (EXIT_USAGE, 0, "%s: %s out of range [%" PRIu64 ", %" PRIu64 "]",
         option, quote (text), min, max);
  return value;
}

double
options_double (const char *option, const char *text, double min, double max)
{
  double value;
  if (!options_parse_decimal (text, &value))
    die (EXIT_USAGE, 0, "%s: invalid number %s", option, quote (text));
  if (value < min || value > max)
    die (EXIT_USAGE, 0, "%s: %s out of range [%g, %g]", option, quote (text), min, max);
  return value;
}

int
options_choice (const char *option, const char *text, const char *const *names)
{
  char choices[256] = "";
  for (int i = 0; names[i]; i++)
    {
      if (STREQ (text, names[i]))
        return i;
      size_t used = strlen (choices);
      snprintf (choices + used, sizeof choices - used, "%s'%s'", i ? ", " : "", names[i]);
    }
  die (EXIT_USAGE, 0, "%s: invalid choice %s (choose from %s)", option, quote (text), choices);
}

size_t
options_list (const char *option, const char *text, char ***items)
{
  size_t count = 0;
  char **list = NULL;
  const char *start = text;
  for (;;)
    {
      const char *comma = strchr (start, ',');
      size_t len = comma ? (size_t) (comma - start) : strlen (start);
      if (len == 0)
        {
          options_list_free (list, count);
          die (EXIT_USAGE, 0, "%s: empty item in list %s", option, quote (text));
        }
      list = xreallocarray (list, count + 1, sizeof *list);
      list[count] = xmalloc (len + 1);
      memcpy (list[count], start, len);
      list[count][len] = '\0';
      count++;
      if (!comma)
        break;
      start = comma + 1;
    }
  *items = list;
  return count;
}

void
options_list_free (char **items, size_t count)
{
  for (size_t i = 0; i < count; i++)
    free (items[i]);
  free (items);
}

uint64_t
options_env_uint (const char *name, uint64_t fallback, uint64_t max)
{
  const char *text = getenv (name);
  if (!text || !*text)
    return fallback;
  return options_uint (name, text, 0, max);
}
