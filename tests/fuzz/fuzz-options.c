/* fuzz-options.c -- libFuzzer target: option values as every command
   parses them.  options_parse_size is compared with an independent reading
   of the same grammar; options_size, options_uint, options_double,
   options_choice and options_list run through die() (a longjmp here), and
   whatever they return is checked against the text and the range.

   Input: byte 0 picks the parser and byte 1 the range; the rest is the
   option text (up to its first NUL).  */
#include "fuzz-common.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <regex.h>

#include "options.h"

int LLVMFuzzerInitialize (int *argc, char ***argv);

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  (void) argc;
  (void) argv;
  fuzz_init ();
  return 0;
}

/* The size grammar read another way: digits, then an optional unit whose
   letters may be in either case except the 'i' of KiB.  0 when invalid,
   ERANGE or 1 for the outcome; the value in *VALUE.  */
static int
reference_size (const char *text, uint64_t *value)
{
  const char *p = text;
  unsigned __int128 n = 0;
  bool overflow = false;
  if (!isdigit ((unsigned char) *p))
    return 0;
  for (; isdigit ((unsigned char) *p); p++)
    {
      n = n * 10 + (unsigned) (*p - '0');
      if (n > UINT64_MAX)
        {
          overflow = true;
          n = (unsigned __int128) UINT64_MAX + 1;   /* stays "too big" */
        }
    }
  if (overflow)
    return ERANGE;              /* the digits alone do not fit */
  static const char units[] = "KMGT";
  size_t len = strlen (p);
  unsigned __int128 m = 0;
  char u0 = (char) toupper ((unsigned char) p[0]);
  const char *unit = len ? strchr (units, u0) : NULL;
  int power = unit ? (int) (unit - units) + 1 : 0;
  if (len == 0)
    m = 1;
  else if (len == 1 && u0 == 'B')
    m = 1;
  else if (len == 1 && unit)
    m = (unsigned __int128) 1 << (10 * power);
  else if (len == 2 && unit && toupper ((unsigned char) p[1]) == 'B')
    {
      m = 1;
      for (int i = 0; i < power; i++)
        m *= 1000;
    }
  else if (len == 3 && unit && p[1] == 'i' && toupper ((unsigned char) p[2]) == 'B')
    m = (unsigned __int128) 1 << (10 * power);
  else
    return 0;
  if (n * m > UINT64_MAX)
    return ERANGE;
  *value = (uint64_t) (n * m);
  return 1;
}

static bool
all_digits (const char *text)
{
  if (!*text)
    return false;
  for (; *text; text++)
    if (!isdigit ((unsigned char) *text))
      return false;
  return true;
}

/* The decimal grammar read another way, as a POSIX extended regex: an
   optional '-', digits with at most one '.', then an optional exponent.  */
static bool
decimal_text (const char *text)
{
  static regex_t re;
  static bool compiled;
  if (!compiled)
    {
      if (regcomp (&re, "^-?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][-+]?[0-9]+)?$",
                   REG_EXTENDED | REG_NOSUB) != 0)
        abort ();
      compiled = true;
    }
  return regexec (&re, text, 0, NULL, 0) == 0;
}

static const uint64_t ranges[][2] = {
  { 0, UINT64_MAX }, { 1, 1ULL << 40 }, { 1, 1024 }, { 1, 65536 }, { 5, 5 }, { 0, 0 },
  { 1, UINT32_MAX }, { 100, 10 },
};
static const double double_ranges[][2] = {
  { 0.001, 1e6 }, { 0, 1 }, { -1e300, 1e300 }, { 0, 100 }, { 1e-300, 1e-299 },
};
static const char *const choices[] = { "pool", "ring", "fp32", "fp16", "uint8", "", NULL };

struct input
{
  const char *text;
  unsigned which, range;
  int outcome;                  /* what returned: 1 */
};

static void
body (void *context)
{
  struct input *in = context;
  const char *text = in->text;
  const uint64_t *r = ranges[in->range % ARRAY_SIZE (ranges)];
  switch (in->which % 6)
    {
    case 0:
      {
        uint64_t got = 0, want = 0;
        errno = 0;
        bool ok = options_parse_size (text, &got);
        int ref = reference_size (text, &want);
        if (ok)
          FUZZ_ASSERT (ref == 1 && got == want, "size '%s': %llu, reference %d %llu", text,
                       (unsigned long long) got, ref, (unsigned long long) want);
        else
          FUZZ_ASSERT (ref != 1 && errno == (ref == ERANGE ? ERANGE : EINVAL),
                       "size '%s' refused (errno %d), reference %d %llu", text, errno, ref,
                       (unsigned long long) want);
        break;
      }
    case 1:
      {
        uint64_t v = options_size ("--size", text, r[0], r[1]);
        uint64_t want = 0;
        FUZZ_ASSERT (reference_size (text, &want) == 1 && v == want && v >= r[0] && v <= r[1],
                     "options_size '%s' gave %llu", text, (unsigned long long) v);
        break;
      }
    case 2:
      {
        uint64_t v = options_uint ("--items", text, r[0], r[1]);
        errno = 0;
        char *end;
        unsigned long long want = strtoull (text, &end, 10);
        FUZZ_ASSERT (all_digits (text) && errno == 0 && !*end && v == want
                     && v >= r[0] && v <= r[1], "options_uint '%s' gave %llu", text,
                     (unsigned long long) v);
        break;
      }
    case 3:
      {
        const double *dr = double_ranges[in->range % ARRAY_SIZE (double_ranges)];
        double v = options_double ("--timeout", text, dr[0], dr[1]);
        double want = strtod (text, NULL);
        FUZZ_ASSERT (decimal_text (text) && isfinite (v) && v == want
                     && v >= dr[0] && v <= dr[1],
                     "options_double '%s' gave %g", text, v);
        break;
      }
    case 4:
      {
        int i = options_choice ("--backend", text, choices);
        FUZZ_ASSERT (i >= 0 && i < (int) ARRAY_SIZE (choices) - 1 && STREQ (choices[i], text),
                     "options_choice '%s' gave %d", text, i);
        break;
      }
    case 5:
      {
        char **items;
        size_t n = options_list ("--by", text, &items);
        /* The items joined by commas are the text again; none is empty. */
        size_t at = 0;
        for (size_t i = 0; i < n; i++)
          {
            size_t len = strlen (items[i]);
            FUZZ_ASSERT (len > 0 && !strchr (items[i], ',')
                         && strncmp (text + at, items[i], len) == 0
                         && text[at + len] == (i + 1 < n ? ',' : '\0'),
                         "options_list '%s': item %zu is '%s'", text, i, items[i]);
            at += len + 1;
          }
        FUZZ_ASSERT (n >= 1, "options_list '%s' returned no items", text);
        options_list_free (items, n);
        break;
      }
    }
  in->outcome = 1;
}

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  if (size < 2)
    return 0;
  char text[512];
  size_t len = size - 2 < sizeof text - 1 ? size - 2 : sizeof text - 1;
  memcpy (text, data + 2, len);
  text[len] = '\0';
  struct input in = { .text = text, .which = data[0], .range = data[1] };
  if (fuzz_run (body, &in))
    return 0;

  /* It died: only text that is not a valid value in range may do that.  */
  const uint64_t *r = ranges[in.range % ARRAY_SIZE (ranges)];
  uint64_t want;
  switch (in.which % 6)
    {
    case 1:
      FUZZ_ASSERT (reference_size (text, &want) != 1 || want < r[0] || want > r[1],
                   "options_size refused '%s'", text);
      break;
    case 2:
      {
        errno = 0;
        unsigned long long v = strtoull (text, NULL, 10);
        FUZZ_ASSERT (!all_digits (text) || errno == ERANGE || v < r[0] || v > r[1],
                     "options_uint refused '%s'", text);
        break;
      }
    case 3:
      {
        const double *dr = double_ranges[in.range % ARRAY_SIZE (double_ranges)];
        char *end;
        errno = 0;
        double v = strtod (text, &end);
        FUZZ_ASSERT (!decimal_text (text) || end == text || *end || errno == ERANGE
                     || !isfinite (v) || v < dr[0] || v > dr[1],
                     "options_double refused '%s'", text);
        break;
      }
    case 4:
      for (int i = 0; choices[i]; i++)
        FUZZ_ASSERT (!STREQ (text, choices[i]), "options_choice refused '%s'", text);
      break;
    case 5:
      FUZZ_ASSERT (!*text || *text == ',' || text[strlen (text) - 1] == ','
                   || strstr (text, ",,"), "options_list refused '%s'", text);
      break;
    default:
      FUZZ_ASSERT (false, "options_parse_size died on '%s'", text);
    }
  return 0;
}
