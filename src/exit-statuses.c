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

/* The statuses PROGRAM documents.  */
static size_t
count_of (const char *program)
{
  size_t n = 0;
  for (size_t i = 0; i < ARRAY_SIZE (exit_meanings); i++)
    n += STREQ (exit_meanings[i].program, program);
  return n;
}

/* Write HEAD, LEN bytes of WORD and TAIL as one word at column *COL,
   first breaking the line where it would pass the width.  */
static void
put_word (FILE *out, const char *head, const char *word, size_t len, const char *tail,
          size_t *col)
{
  size_t width = strlen (head) + len + strlen (tail);
  if (*col > 0)
    {
      bool wrap = *col + 1 + width > HELP_WIDTH;
      fputc (wrap ? '\n' : ' ', out);
      *col = wrap ? 0 : *col + 1;
    }
  fprintf (out, "%s%.*s%s", head, (int) len, word, tail);
  *col += width;
}

/* Write TEXT's words, HEAD joined to the first (a status stays on the
   line of its meaning) and TAIL to the last.  */
static void
put_words (FILE *out, const char *head, const char *text, const char *tail, size_t *col)
{
  for (const char *p = text; *p;)
    {
      size_t len = strcspn (p, " ");
      const char *next = p + len + (p[len] == ' ');
      put_word (out, p == text ? head : "", p, len, *next ? "" : tail, col);
      p = next;
    }
}

void
exit_statuses_put_help (FILE *out, const char *program)
{
  size_t col = 0, left = count_of (program);
  put_words (out, "", "Exit status:", "", &col);
  for (size_t i = 0; i < ARRAY_SIZE (exit_meanings); i++)
    if (STREQ (exit_meanings[i].program, program))
      {
        char status[16];
        snprintf (status, sizeof status, "%d ", (int) exit_meanings[i].status);
        put_words (out, status, exit_meanings[i].meaning, --left ? "," : ".", &col);
      }
  fputc ('\n', out);
}
