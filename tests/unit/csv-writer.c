/* csv-writer.c -- unit tests of batched CSV lines: every write(2) of a
   batch holds whole lines, at most PIPE_BUF bytes, and together the writes
   are exactly the lines in order.  A SOCK_SEQPACKET pair keeps each
   write(2) as one message, so the reader sees the writer's boundaries.  */
#include "system.h"
#include "csv-writer.h"
#include "tap.h"

#include <inttypes.h>
#include <limits.h>
#include <sys/socket.h>
#include <unistd.h>

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
