/* exit-statuses.c -- one table of what each command's exit statuses mean.
   --help prints it; tests/help.bats checks each man page's EXIT STATUS
   section, arenabench(7) and README against --help, so a status is added
   here and in the pages that explain it, nowhere else.  */
#include "system.h"
#include "exit-statuses.h"

struct exit_meaning
{
  const char *program;
  enum exit_status status;
  const char *meaning;
};

/* Each program's rows in ascending status order.  */
static const struct exit_meaning exit_meanings[] = {
  { "arena-produce", EXIT_OK, "success" },
  { "arena-produce", EXIT_USAGE, "bad option" },
  { "arena-produce", EXIT_DATAERR, "an arena truncated by another process" },
  { "arena-produce", EXIT_SOFTWARE, "internal error" },
  { "arena-produce", EXIT_OSERR, "arena creation failed" },
  { "arena-produce", EXIT_IOERR, "write error" },
  { "arena-produce", EXIT_TEMPFAIL, "the consumer stalled or went away" },

  { "arena-consume", EXIT_OK, "success" },
  { "arena-consume", EXIT_MISMATCH, "a value did not match" },
  { "arena-consume", EXIT_USAGE, "bad option" },
  { "arena-consume", EXIT_DATAERR, "malformed row or foreign, stale or out-of-bounds handle" },
  { "arena-consume", EXIT_NOINPUT, "empty or closed input or missing arena" },
  { "arena-consume", EXIT_OSERR,
    "the system refused to open, map or (with --require-pin) page-lock an arena" },
  { "arena-consume", EXIT_IOERR, "write error" },
  { "arena-consume", EXIT_TEMPFAIL, "truncated stream, missing items or --timeout" },

  { "h2d-check", EXIT_OK, "success" },
  { "h2d-check", EXIT_MISMATCH, "a value did not match" },
  { "h2d-check", EXIT_USAGE, "bad option" },
  { "h2d-check", EXIT_DATAERR, "malformed row or foreign, stale or out-of-bounds handle" },
  { "h2d-check", EXIT_NOINPUT, "empty or closed input or missing arena" },
  { "h2d-check", EXIT_UNAVAILABLE, "no CUDA device or built without CUDA" },
  { "h2d-check", EXIT_SOFTWARE, "CUDA error" },
  { "h2d-check", EXIT_OSERR,
    "the system refused to open, map or (with --require-pin) page-lock an arena" },
  { "h2d-check", EXIT_IOERR, "write error" },
  { "h2d-check", EXIT_TEMPFAIL, "truncated stream, missing items or --timeout" },

  { "d2h-overlap", EXIT_OK, "success" },
  { "d2h-overlap", EXIT_MISMATCH, "a transfer returned wrong bytes" },
  { "d2h-overlap", EXIT_USAGE, "bad option" },
  { "d2h-overlap", EXIT_UNAVAILABLE, "no CUDA device or no CUDA build" },
  { "d2h-overlap", EXIT_SOFTWARE, "CUDA error" },
  { "d2h-overlap", EXIT_OSERR, "the system refused memory or a thread" },
  { "d2h-overlap", EXIT_IOERR, "write error" },

  { "bench-summarize", EXIT_OK, "success" },
  { "bench-summarize", EXIT_MISMATCH, "a --fail-if-worse column regressed" },
  { "bench-summarize", EXIT_USAGE, "bad option or a column not in the input" },
  { "bench-summarize", EXIT_DATAERR,
    "malformed input (or a regression gate that could not judge)" },
  { "bench-summarize", EXIT_NOINPUT, "no input rows, a missing file, or a gated benchmark "
    "in the baseline but not in the candidate" },
  { "bench-summarize", EXIT_IOERR, "write error" },
  { "bench-summarize", EXIT_TEMPFAIL,
    "a regression gate that cannot decide (too few runs for its test to reach the level)" },
};

/* --help's text width, as the option lists.  */
enum { HELP_WIDTH = 78 };

size_t
exit_statuses_count (const char *program)
{
  size_t n = 0;
  for (size_t i = 0; i < ARRAY_SIZE (exit_meanings); i++)
    n += STREQ (exit_meanings[i].program, program);
  return n;
}

/* Write WORD (LEN bytes) at column *COL, breaking the line before it
   where it would pass the width.  */
static void
put_word (FILE *out, const char *word, size_t len, size_t *col)
{
  if (*col > 0 && *col + 1 + len > HELP_WIDTH)
    {
      fputc ('\n', out);
      *col = 0;
    }
  else if (*col > 0)
    {
      fputc (' ', out);
      (*col)++;
    }
  fwrite (word, 1, len, out);
  *col += len;
}

/* Write TEXT's words, SUFFIX after the last one.  */
static void
put_words (FILE *out, const char *text, const char *suffix, size_t *col)
{
  char word[256];
  for (const char *p = text; *p;)
    {
      size_t len = strcspn (p, " ");
      const char *next = p + len + (p[len] == ' ');
      int n = snprintf (word, sizeof word, "%.*s%s", (int) len, p, *next ? "" : suffix);
      put_word (out, word, (size_t) n < sizeof word ? (size_t) n : sizeof word - 1, col);
      p = next;
    }
}

void
exit_statuses_put_help (FILE *out, const char *program)
{
  size_t col = 0, left = exit_statuses_count (program);
  put_words (out, "Exit status:", "", &col);
  for (size_t i = 0; i < ARRAY_SIZE (exit_meanings); i++)
    {
      const struct exit_meaning *m = &exit_meanings[i];
      if (!STREQ (m->program, program))
        continue;
      const char *suffix = --left ? "," : ".";
      /* The status stays on the line of its meaning's first word.  */
      size_t len = strcspn (m->meaning, " ");
      char first[64];
      int n = snprintf (first, sizeof first, "%d %.*s%s", (int) m->status, (int) len, m->meaning,
                        m->meaning[len] ? "" : suffix);
      put_word (out, first, (size_t) n < sizeof first ? (size_t) n : sizeof first - 1, &col);
      if (m->meaning[len])
        put_words (out, m->meaning + len + 1, suffix, &col);
    }
  fputc ('\n', out);
}
