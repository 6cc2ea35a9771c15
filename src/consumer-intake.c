/* consumer-intake.c -- handle rows off a descriptor: records split in
   place in a large buffer, without a callback per byte.  */
#include "system.h"
#include "consumer-intake.h"
#include "die.h"

#include <poll.h>
#include <unistd.h>

/* The buffer starts at this size and doubles for a record that does not
   fit.  */
#define INTAKE_BUFFER_BYTES (1 << 20)

struct intake
{
  const char *source;
  size_t line;                  /* records handed over so far */
  char *buf;
  size_t size, start, have;     /* unparsed bytes: [start, have) */
  bool eof;
  char **fields;
  size_t *lengths;
  size_t fields_size;
};

static _Noreturn void
malformed (const struct intake *in)
{
  die (EXIT_DATAERR, 0, "%s: line %zu: malformed CSV (unterminated or misplaced quote)",
       in->source, in->line + 1);
}

static _Noreturn void
nul_byte (const struct intake *in, size_t field)
{
  die (EXIT_DATAERR, 0, "%s: line %zu, column %zu: a NUL byte in the field", in->source,
       in->line + 1, field + 1);
}

static void
add_field (struct intake *in, size_t n, char *text, size_t length)
{
  if (n == in->fields_size)
    {
      in->fields_size = in->fields_size ? 2 * in->fields_size : 32;
      in->fields = xreallocarray (in->fields, in->fields_size, sizeof *in->fields);
      in->lengths = xreallocarray (in->lengths, in->fields_size, sizeof *in->lengths);
    }
  in->fields[n] = text;
  in->lengths[n] = length;
}

static void
hand_over (struct intake *in, size_t nfields, csv_record_fn fn, void *context)
{
  in->line++;
  struct csv_record record = {
    .source = in->source, .line = in->line, .nfields = nfields,
    .fields = in->fields, .lengths = in->lengths,
  };
  fn (&record, context);
}

static bool
is_blank (char c)
{
  return c == ' ' || c == '\t';
}

/* Where the record at P ends: its CR or LF outside quotes, END when the
   input ended without one, NULL when more input is needed.  Quotes are
   counted, not checked: the parse that follows checks them.  */
static char *
record_end (char *p, char *end, bool eof)
{
  bool quoted = false;
  for (; p < end; p++)
    if (*p == '"')
      quoted = !quoted;
    else if (!quoted && (*p == '\n' || *p == '\r'))
      return p;
  return eof ? end : NULL;
}

/* Split the record [P, END) in place (END has a byte after it to write a
   NUL to) and return its field count: quoted fields unescaped, blanks
   around unquoted ones trimmed.  */
static size_t
parse_record (struct intake *in, char *p, char *end)
{
  size_t n = 0;
  for (;;)
    {
      while (p < end && is_blank (*p))
        p++;
      char *out = p, *text = p;
      if (p < end && *p == '"')
        {
          text = out = ++p;
          for (;;)
            {
              if (p == end)
                malformed (in);         /* unterminated */
              if (*p == '"')
                {
                  if (p + 1 < end && p[1] == '"')
                    p++;
                  else
                    break;
                }
              else if (*p == '\0')
                nul_byte (in, n);
              *out++ = *p++;
            }
          p++;                          /* the closing quote */
          while (p < end && is_blank (*p))
            p++;
          if (p < end && *p != ',')
            malformed (in);
        }
      else
        {
          for (; p < end && *p != ','; p++)
            if (*p == '"')
              malformed (in);
            else if (*p == '\0')
              nul_byte (in, n);
          out = p;
          while (out > text && is_blank (out[-1]))
            out--;
        }
      add_field (in, n++, text, (size_t) (out - text));
      bool last = p == end;
      *out = '\0';
      if (last)
        return n;
      p++;                              /* the comma */
    }
}

/* Bytes of the 8-byte word X that are below 0x21 (control, blank) or are
   '"' or ',': each such byte's top bit set in the result (exact, unlike
   the usual has-zero trick, so a comma is never reported in the wrong
   byte).  */
static uint64_t
special_bytes (uint64_t x)
{
  const uint64_t low7 = 0x7f7f7f7f7f7f7f7fULL, ones = 0x0101010101010101ULL;
  uint64_t quote = x ^ (ones * '"'), comma = x ^ (ones * ',');
  /* Top bit of each byte: (b & 0x7f) + 0x7f overflows into it unless b's
     low seven bits are zero; with b's own top bit, a zero byte is found. */
  uint64_t zq = ~(((quote & low7) + low7) | quote) & ~low7;
  uint64_t zc = ~(((comma & low7) + low7) | comma) & ~low7;
  /* Below 0x21: (b & 0x7f) + (0x80 - 0x21) stays under 0x80.  */
  uint64_t lt = ~(((x & low7) + ones * (0x80 - 0x21)) | x) & ~low7;
  return zq | zc | lt;
}

/* The common row: no quote, blank, CR or NUL before its LF.  Splits
   [P, END) at commas and returns the field count, or 0 when the row needs
   the general parse (nothing is changed then).  Eight bytes at a time:
   this is most of a small item's handling.  */
static size_t
split_plain (struct intake *in, char *p, char *end)
{
  /* First find every comma, and any byte that needs the general parse. */
  size_t n = 0;
  char *text = p;
  while (p < end)
    {
      uint64_t word, hits;
      if (end - p >= 8)
        {
          memcpy (&word, p, 8);
          hits = special_bytes (word);
          if (!hits)
            {
              p += 8;
              continue;
            }
        }
      else
        {
          word = 0x4141414141414141ULL;       /* 'A's pad the tail */
          memcpy (&word, p, (size_t) (end - p));
          hits = special_bytes (word);
          if (!hits)
            break;
        }
      while (hits)
        {
          char *q = p + __builtin_ctzll (hits) / 8;
          if (*q != ',')
            return 0;
          if (n + 1 >= in->fields_size)
            add_field (in, n, text, 0);       /* grow */
          in->fields[n] = text;
          in->lengths[n++] = (size_t) (q - text);
          text = q + 1;
          hits &= hits - 1;
        }
      p += 8;
    }
  add_field (in, n++, text, (size_t) (end - text));
  for (size_t i = 0; i < n; i++)
    in->fields[i][in->lengths[i]] = '\0';
  return n;
}

/* Hand over every complete record in the buffer.  */
static void
parse_available (struct intake *in, csv_record_fn fn, void *context)
{
  char *buf = in->buf;
  while (in->start < in->have)
    {
      char *p = buf + in->start, *end = buf + in->have;
      if (*p == '\n' || *p == '\r')     /* a blank line, or the LF of CR LF */
        {
          in->start++;
          continue;
        }
      char *lf = memchr (p, '\n', (size_t) (end - p));
      if (lf)
        {
          size_t n = split_plain (in, p, lf);
          if (n)
            {
              in->start = (size_t) (lf + 1 - buf);
              hand_over (in, n, fn, context);
              continue;
            }
        }
      char *stop = record_end (p, end, in->eof);
      if (!stop)
        return;
      /* The terminator (or the spare byte after the data) takes the NUL. */
      in->start = stop < end ? (size_t) (stop + 1 - buf) : in->have;
      char *q = p;
      while (q < stop && is_blank (*q))
        q++;
      if (q < stop)                     /* not a line of blanks */
        hand_over (in, parse_record (in, p, stop), fn, context);
    }
}

static bool
input_ready (int fd)
{
  struct pollfd pfd = { .fd = fd, .events = POLLIN };
  return poll (&pfd, 1, 0) > 0;
}

/* Read more input after the unparsed bytes; false at its end.  */
static bool
read_more (struct intake *in, int fd)
{
  if (in->start == in->have)
    in->start = in->have = 0;
  else if (in->start > 0 && in->have == in->size - 1)
    {
      memmove (in->buf, in->buf + in->start, in->have - in->start);
      in->have -= in->start;
      in->start = 0;
    }
  if (in->have == in->size - 1)         /* one record fills the buffer */
    {
      in->size *= 2;
      in->buf = xrealloc (in->buf, in->size);
    }
  for (;;)
    {
      /* One byte is kept spare for the NUL after a last unterminated
         record.  */
      ssize_t got = read (fd, in->buf + in->have, in->size - 1 - in->have);
      if (got > 0)
        {
          in->have += (size_t) got;
          return true;
        }
      if (got == 0)
        return false;
      /* A directory, or no descriptor at all (stdin closed): there is no
         input to read, as for a missing file.  */
      if (errno == EISDIR || errno == EBADF)
        die (EXIT_NOINPUT, errno, "%s", in->source);
      if (errno != EINTR)
        die (EXIT_IOERR, errno, "%s: read error", in->source);
    }
}

void
consumer_intake_read (int fd, const char *source, csv_record_fn fn,
                      void (*idle) (void *context), void *context)
{
  struct intake in = { .source = source, .size = INTAKE_BUFFER_BYTES };
  in.buf = xmalloc (in.size);
  /* The first three bytes whole, to skip a UTF-8 byte order mark.  */
  while (in.have < 3 && read_more (&in, fd))
    continue;
  if (in.have >= 3 && memcmp (in.buf, "\xef\xbb\xbf", 3) == 0)
    in.start = 3;
  for (;;)
    {
      parse_available (&in, fn, context);
      if (idle && !input_ready (fd))
        idle (context);
      if (!read_more (&in, fd))
        break;
    }
  in.eof = true;
  parse_available (&in, fn, context);
  free (in.buf);
  free (in.fields);
  free (in.lengths);
}
