/* csv-writer.c -- unit tests of CSV lines and of the CSV reader: fields
   quoted where a reader would split or trim them, doubles written in the
   fewest digits that read back exactly, a reader that skips a byte order
   mark and refuses a NUL byte; and batched lines: every write(2) of a
   batch holds whole lines, at most PIPE_BUF bytes, and together the writes
   are exactly the lines in order.  A SOCK_SEQPACKET pair keeps each
   write(2) as one message, so the reader sees the writer's boundaries.  */
#include "system.h"
#include "csv-reader.h"
#include "csv-writer.h"
#include "tap.h"

#include <inttypes.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

/* One field written alone: exactly WANT.  */
static void
check_str (const char *value, const char *want, const char *what)
{
  struct csv_line line = { 0 };
  csv_line_str (&line, value);
  line.text[line.used] = '\0';
  /* Named by WHAT alone: a newline in the TAP line would end it.  */
  if (!ok (STREQ (line.text, want), "%s: written %s", what,
           line.text[0] == '"' ? "quoted" : "as it is"))
    printf ("#   got [%s], want [%s]\n", line.text, want);
  csv_line_free (&line);
}

static void
test_quoting (void)
{
  check_str ("plain", "plain", "a plain field");
  check_str ("", "", "an empty field");
  check_str ("a,b", "\"a,b\"", "a comma");
  check_str ("say \"x\"", "\"say \"\"x\"\"\"", "a quote, doubled");
  check_str ("a\nb", "\"a\nb\"", "a newline");
  check_str ("a\rb", "\"a\rb\"", "a carriage return");
  check_str (" lead", "\" lead\"", "a leading space");
  check_str ("trail ", "\"trail \"", "a trailing space");
  check_str ("trail\t", "\"trail\t\"", "a trailing tab");
  check_str ("in side", "in side", "a space inside");
}

/* Doubles: the fewest digits that read back to the same bits, up to 17.  */
static void
test_doubles (void)
{
  const double values[] = { 0.1, 1.0 / 3, 2.0 / 3, 0.30000000000000004, 123456.789,
                            5e-324, 1.7976931348623157e308, 9007199254740993.0 };
  int exact = 0, n = (int) ARRAY_SIZE (values), seventeen = 0;
  for (int i = 0; i < n; i++)
    {
      struct csv_line line = { 0 };
      csv_line_double (&line, values[i]);
      line.text[line.used] = '\0';
      exact += strtod (line.text, NULL) == values[i];
      seventeen += strlen (line.text) >= 17;
      csv_line_free (&line);
    }
  ok (exact == n, "%d of %d doubles read back exactly", exact, n);
  ok (seventeen > 0, "some need 17 significant digits (%d)", seventeen);
  struct csv_line line = { 0 };
  csv_line_double (&line, 0.1);
  line.text[line.used] = '\0';
  ok (STREQ (line.text, "0.1"), "0.1 is written 0.1, not in 17 digits (%s)", line.text);
  csv_line_free (&line);
}

struct collected
{
  char text[256];
  size_t records;
};

static void
collect (const struct csv_record *record, void *context)
{
  struct collected *c = context;
  c->records++;
  for (size_t i = 0; i < record->nfields; i++)
    {
      size_t used = strlen (c->text);
      snprintf (c->text + used, sizeof c->text - used, "%s[%s]", i ? "," : "", record->fields[i]);
    }
  strncat (c->text, ";", sizeof c->text - strlen (c->text) - 1);
}

/* Read TEXT (LEN bytes) through the CSV reader in a child; its fields as
   [a],[b]; in OUT, and the child's exit status returned.  */
static int
read_csv (const char *text, size_t len, char *out, size_t size)
{
  int in[2], back[2];
  if (pipe (in) != 0 || pipe (back) != 0)
    abort ();
  fflush (stdout);               /* the child's exit must not repeat it */
  pid_t pid = fork ();
  if (pid == 0)
    {
      close (in[1]);
      close (back[0]);
      struct collected c = { "", 0 };
      struct csv_reader *r = csv_reader_new (collect, &c);
      int devnull = open ("/dev/null", O_WRONLY);
      dup2 (devnull, STDERR_FILENO);          /* the child's die message */
      csv_reader_read_fd (r, in[0], "test");
      csv_reader_free (r);
      if (write (back[1], c.text, strlen (c.text)) < 0)
        _exit (99);
      _exit (0);
    }
  close (in[0]);
  close (back[1]);
  if (write (in[1], text, len) != (ssize_t) len)
    abort ();
  close (in[1]);
  ssize_t got = read (back[0], out, size - 1);
  out[got > 0 ? got : 0] = '\0';
  close (back[0]);
  int status;
  waitpid (pid, &status, 0);
  return WIFEXITED (status) ? WEXITSTATUS (status) : 128 + WTERMSIG (status);
}

static void
test_reader (void)
{
  char out[256];
  int st = read_csv ("\xef\xbb\xbf" "a,b\n1,2\n", 11, out, sizeof out);
  ok (st == 0 && STREQ (out, "[a],[b];[1],[2];"), "a byte order mark is skipped: %s", out);
  st = read_csv ("a,\"x\"\"y\"\n", 9, out, sizeof out);
  ok (st == 0 && STREQ (out, "[a],[x\"y];"), "a quoted field with a doubled quote: %s", out);
  st = read_csv ("a,b\nx\0y,2\n", 10, out, sizeof out);
  ok (st == EXIT_DATAERR && STREQ (out, ""), "a NUL byte in a field: exit %d (65)", st);
  st = read_csv ("a,\"x\"y\n", 7, out, sizeof out);
  ok (st == EXIT_DATAERR, "text after a closing quote: exit %d (65)", st);
}

/* Line I: "I,x...x" with a length that varies, some lines near PIPE_BUF.  */
static void
make_line (struct csv_line *line, int i, char *filler, size_t filler_size)
{
  size_t n = i % 97 == 0 ? filler_size - 1 : (size_t) (i * 37) % 300;
  memset (filler, 'a' + i % 26, n);
  filler[n] = '\0';
  csv_line_u64 (line, (uint64_t) i);
  csv_line_str (line, filler);
}

/* Integers as printf writes them, at the ends of their ranges and at
   every change of digit count.  */
static void
check_integers (void)
{
  static const int64_t signed_values[] = { 0, 1, -1, 9, 10, -10, 99, 100, 12345, -987654321,
                                           INT64_MAX, INT64_MIN, INT64_MIN + 1 };
  struct csv_line line = { 0 };
  char want[64];
  bool same = true;
  for (size_t i = 0; i < ARRAY_SIZE (signed_values); i++)
    {
      csv_line_reset (&line);
      csv_line_i64 (&line, signed_values[i]);
      snprintf (want, sizeof want, "%" PRId64, signed_values[i]);
      if (line.used != strlen (want) || memcmp (line.text, want, line.used) != 0)
        {
          printf ("#   %s written as %.*s\n", want, (int) line.used, line.text);
          same = false;
        }
    }
  ok (same, "csv_line_i64 writes what printf's %%" PRId64 " writes");
  same = true;
  for (uint64_t p = 1, k = 0; k < 20; k++, p *= 10)
    {
      const uint64_t values[] = { p - 1, p, p + 1, UINT64_MAX - k };
      for (size_t i = 0; i < ARRAY_SIZE (values); i++)
        {
          csv_line_reset (&line);
          csv_line_u64 (&line, values[i]);
          csv_line_u64 (&line, 7);
          snprintf (want, sizeof want, "%" PRIu64 ",7", values[i]);
          if (line.used != strlen (want) || memcmp (line.text, want, line.used) != 0)
            {
              printf ("#   %s written as %.*s\n", want, (int) line.used, line.text);
              same = false;
            }
        }
    }
  ok (same, "csv_line_u64 writes what printf's %%" PRIu64 " writes, fields separated");
  csv_line_free (&line);
}

int
main (void)
{
  check_integers ();
  test_quoting ();
  test_doubles ();
  test_reader ();
  enum { LINES = 2000 };
  int sv[2];
  if (socketpair (AF_UNIX, SOCK_SEQPACKET, 0, sv) != 0)
    {
      printf ("1..0 # SKIP no SOCK_SEQPACKET here\n");
      return 0;
    }
  /* Big enough that the writer never blocks: the reader runs after it.  */
  int big = 64 << 20;
  setsockopt (sv[0], SOL_SOCKET, SO_SNDBUF, &big, sizeof big);
  setsockopt (sv[1], SOL_SOCKET, SO_RCVBUF, &big, sizeof big);

  static char filler[PIPE_BUF - 16];
  struct csv_line line = { 0 }, batch = { 0 }, want = { 0 };
  int err = 0;
  for (int i = 0; i < LINES && !err; i++)
    {
      make_line (&line, i, filler, sizeof filler);
      make_line (&want, i, filler, sizeof filler);
      want.text[want.used++] = '\n';      /* reserve keeps 2 bytes spare */
      want.fields = 0;
      err = csv_line_batch (&line, &batch, sv[0]);
    }
  if (!err)
    err = csv_batch_flush (&batch, sv[0]);
  ok (err == 0, "every batch written");
  ok (batch.used == 0 && line.used == 0, "the batch and the line are empty after a flush");
  shutdown (sv[0], SHUT_WR);

  /* Read the messages back.  */
  static char got[LINES * PIPE_BUF];
  size_t got_used = 0, messages = 0, largest = 0;
  bool whole = true;
  for (;;)
    {
      ssize_t n = recv (sv[1], got + got_used, sizeof got - got_used, 0);
      if (n <= 0)
        break;
      messages++;
      if ((size_t) n > largest)
        largest = (size_t) n;
      if (got[got_used + n - 1] != '\n')
        whole = false;
      got_used += (size_t) n;
    }
  is_double ((double) got_used, (double) want.used, 0, "as many bytes read as written");
  ok (largest <= PIPE_BUF && whole, "each write is whole lines within PIPE_BUF (largest %zu)",
      largest);
  ok (messages < LINES / 2, "lines go out together (%zu writes for %d lines)", messages, LINES);
  ok (got_used == want.used && memcmp (got, want.text, got_used) == 0,
      "the lines arrive exactly, in order");
  csv_line_free (&line);
  csv_line_free (&batch);
  csv_line_free (&want);
  close (sv[0]);
  close (sv[1]);
  tap_plan (tap_count);         /* a trailing plan: TAP allows it */
  return done_testing ();
}
