/* fuzz-common.h -- what every arenabench libFuzzer target shares: running
   one input with die() turned into a longjmp, and freeing what a call
   that died left allocated (see fuzz-alloc.h).  Include once per target. */
#ifndef ARENABENCH_FUZZ_COMMON_H
#define ARENABENCH_FUZZ_COMMON_H

#include "system.h"

/* The harness itself allocates with the real functions.  */
#undef malloc
#undef calloc
#undef realloc
#undef free
#undef csv_init
#undef csv_free

#include <csv.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "die.h"

/* ---- allocation tracker ------------------------------------------------
   A set of the library's live blocks, open addressing with backward-shift
   deletion.  Pointers are stored XOR-ed so LeakSanitizer does not count
   the set as a reference to them.  */
enum { TRACK_SLOTS = 1 << 15, TRACK_PARSERS = 16 };
/* The tracker is bookkeeping, not code under test: no coverage feedback,
   which would also make its scans cost more than the target.  */
#define NO_COVERAGE __attribute__ ((no_sanitize ("coverage"), noinline))
#define TRACK_HIDE ((uintptr_t) 0xa5a5a5a5a5a5a5a5ULL)

static uintptr_t track_table[TRACK_SLOTS];
static size_t track_count;
/* Every block added during the input, live or since freed, so a release
   visits those instead of the whole table (which it does on overflow).  */
enum { TRACK_LOG = 1 << 16 };
static uintptr_t track_log[TRACK_LOG];
static size_t track_logged;
static bool track_on;
static struct csv_parser *track_parsers[TRACK_PARSERS];

NO_COVERAGE static size_t
track_home (uintptr_t hidden)
{
  return (size_t) ((hidden * 0x9e3779b97f4a7c15ULL) >> 40) & (TRACK_SLOTS - 1);
}

NO_COVERAGE static void
track_add (void *p)
{
  if (!track_on || !p)
    return;
  if (2 * track_count >= TRACK_SLOTS)
    {
      fprintf (stderr, "fuzz: more than %d live blocks in one input\n", TRACK_SLOTS / 2);
      abort ();
    }
  uintptr_t h = (uintptr_t) p ^ TRACK_HIDE;
  size_t i = track_home (h);
  while (track_table[i])
    i = (i + 1) & (TRACK_SLOTS - 1);
  track_table[i] = h;
  track_count++;
  if (track_logged < TRACK_LOG)
    track_log[track_logged] = h;
  track_logged++;
}

NO_COVERAGE static void
track_remove (void *p)
{
  if (!p || !track_count)
    return;
  uintptr_t h = (uintptr_t) p ^ TRACK_HIDE;
  size_t i = track_home (h);
  for (; track_table[i] != h; i = (i + 1) & (TRACK_SLOTS - 1))
    if (!track_table[i])
      return;                   /* not ours: allocated before tracking */
  for (size_t j = i;;)
    {
      j = (j + 1) & (TRACK_SLOTS - 1);
      if (!track_table[j])
        break;
      size_t k = track_home (track_table[j]);
      bool stays = i <= j ? (i < k && k <= j) : (i < k || k <= j);
      if (stays)
        continue;
      track_table[i] = track_table[j];
      i = j;
    }
  track_table[i] = 0;
  track_count--;
}

NO_COVERAGE void *
fuzz_malloc (size_t size)
{
  void *p = malloc (size);
  track_add (p);
  return p;
}

NO_COVERAGE void *
fuzz_calloc (size_t count, size_t size)
{
  void *p = calloc (count, size);
  track_add (p);
  return p;
}

NO_COVERAGE void *
fuzz_realloc (void *ptr, size_t size)
{
  void *p = realloc (ptr, size);
  if (p)
    {
      track_remove (ptr);
      track_add (p);
    }
  return p;
}

NO_COVERAGE void
fuzz_free (void *ptr)
{
  track_remove (ptr);
  free (ptr);
}

NO_COVERAGE int
fuzz_csv_init (struct csv_parser *parser, unsigned char options)
{
  int result = csv_init (parser, options);
  for (int i = 0; track_on && result == 0 && i < TRACK_PARSERS; i++)
    if (!track_parsers[i])
      {
        track_parsers[i] = parser;
        break;
      }
  return result;
}

NO_COVERAGE void
fuzz_csv_free (struct csv_parser *parser)
{
  for (int i = 0; i < TRACK_PARSERS; i++)
    if (track_parsers[i] == parser)
      track_parsers[i] = NULL;
  csv_free (parser);
}

/* After a die: free every parser buffer and block the input allocated.  */
NO_COVERAGE static void
track_release_all (void)
{
  for (int i = 0; i < TRACK_PARSERS; i++)
    if (track_parsers[i])
      {
        csv_free (track_parsers[i]);
        track_parsers[i] = NULL;
      }
  if (track_logged <= TRACK_LOG)
    for (size_t i = 0; track_count && i < track_logged; i++)
      {
        void *p = (void *) (track_log[i] ^ TRACK_HIDE);
        size_t before = track_count;
        track_remove (p);
        if (track_count < before)
          free (p);
      }
  for (size_t i = 0; track_count && i < TRACK_SLOTS; i++)
    if (track_table[i])
      {
        free ((void *) (track_table[i] ^ TRACK_HIDE));
        track_table[i] = 0;
        track_count--;
      }
  track_logged = 0;
}

/* After a normal return: anything still tracked was leaked, and LeakSanitizer
   reports it; forget it so the set stays small.  */
NO_COVERAGE static void
track_forget_all (void)
{
  if (track_count)
    memset (track_table, 0, sizeof track_table);
  track_count = 0;
  track_logged = 0;
  memset (track_parsers, 0, sizeof track_parsers);
}

/* ---- one input --------------------------------------------------------- */
static jmp_buf fuzz_jump;
static FILE *fuzz_null;
static FILE *fuzz_saved_stderr;
static unsigned long fuzz_died;

static void
fuzz_die_hook (void)
{
  longjmp (fuzz_jump, 1);
}

/* Call once from LLVMFuzzerInitialize.  FUZZ_VERBOSE=1 keeps die()'s
   messages on stderr.  */
static void
fuzz_init (void)
{
  die_set_program_name ("fuzz");
  const char *verbose = getenv ("FUZZ_VERBOSE");
  if (!verbose || !*verbose || *verbose == '0')
    fuzz_null = fopen ("/dev/null", "w");
}

/* Run BODY (CONTEXT) as one input.  die() registers nothing but our hook:
   it clears its hook before calling it, so every input sets it again.
   Returns true when BODY returned, false when it died.  */
NO_COVERAGE static bool
fuzz_run (void (*body) (void *), void *context)
{
  fuzz_saved_stderr = stderr;
  if (fuzz_null)
    stderr = fuzz_null;
  track_on = true;
  die_set_cleanup (fuzz_die_hook);
  bool returned;
  if (setjmp (fuzz_jump) == 0)
    {
      body (context);
      returned = true;
      track_on = false;
      track_forget_all ();
    }
  else
    {
      returned = false;
      fuzz_died++;
      track_on = false;
      track_release_all ();
    }
  die_set_cleanup (NULL);
  stderr = fuzz_saved_stderr;
  return returned;
}

/* A broken invariant: say which and crash so libFuzzer keeps the input. */
#define FUZZ_ASSERT(cond, ...) \
  do { if (!(cond)) { fprintf (fuzz_saved_stderr ? fuzz_saved_stderr : stderr, \
                               "fuzz invariant failed: " __VA_ARGS__); \
                      fputc ('\n', fuzz_saved_stderr ? fuzz_saved_stderr : stderr); \
                      abort (); } } while (0)

#endif
