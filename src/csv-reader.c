/* csv-reader.c -- libcsv push parser feeding one callback per record. */
#include "system.h"
#include "csv-reader.h"
#include "die.h"

#include <csv.h>
#include <fcntl.h>
#include <unistd.h>

struct csv_reader
{
  struct csv_parser parser;
  csv_record_fn fn;
  void *context;
  csv_json_fn json_fn;
  const char *source;
  size_t line;              /* records seen in the current source */

  /* The record being assembled: field bytes back to back in TEXT.  */
  char *text;
  size_t text_used, text_size;
  size_t *starts, *lengths;
  char **fields;
  size_t nfields, fields_size;
};

static void
on_field (void *data, size_t len, void *context)
{
  struct csv_reader *r = context;
  /* A NUL would cut the field short for every string function after.  */
  if (len && memchr (data, '\0', len))
    die (EXIT_DATAERR, 0, "%s: line %zu, column %zu: a NUL byte in the field",
         r->source, r->line + 1, r->nfields + 1);
  if (r->nfields == r->fields_size)
    {
      r->fields_size = r->fields_size ? 2 * r->fields_size : 16;
      r->starts = xreallocarray (r->starts, r->fields_size, sizeof *r->starts);
      r->lengths = xreallocarray (r->lengths, r->fields_size, sizeof *r->lengths);
      r->fields = xreallocarray (r->fields, r->fields_size, sizeof *r->fields);
    }
  if (r->text_used + len + 1 > r->text_size)
    {
      while (r->text_used + len + 1 > r->text_size)
        r->text_size = r->text_size ? 2 * r->text_size : 256;
      r->text = xrealloc (r->text, r->text_size);
    }
  if (len)
    memcpy (r->text + r->text_used, data, len);
  r->text[r->text_used + len] = '\0';
  r->starts[r->nfields] = r->text_used;
  r->lengths[r->nfields] = len;
  r->nfields++;
  r->text_used += len + 1;
}

static void
on_record (int terminator UNUSED, void *context)
{
  struct csv_reader *r = context;
  r->line++;
  for (size_t i = 0; i < r->nfields; i++)
    r->fields[i] = r->text + r->starts[i];
  struct csv_record record = {
    .source = r->source,
    .line = r->line,
    .nfields = r->nfields,
    .fields = r->fields,
    .lengths = r->lengths,
  };
  r->nfields = 0;
  r->text_used = 0;
  r->fn (&record, r->context);
}

struct csv_reader *
csv_reader_new (csv_record_fn fn, void *context)
{
  struct csv_reader *r = xcalloc (1, sizeof *r);
  if (csv_init (&r->parser, CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL) != 0)
    die (EXIT_OSERR, 0, "cannot initialise the CSV parser");
  r->fn = fn;
  r->context = context;
  return r;
}

void
csv_reader_free (struct csv_reader *r)
{
  if (!r)
    return;
  csv_free (&r->parser);
  free (r->text);
  free (r->starts);
  free (r->lengths);
  free (r->fields);
  free (r);
}

static _Noreturn void
parse_failed (struct csv_reader *r)
{
  int code = csv_error (&r->parser);
  const char *why = code == CSV_EPARSE
    ? "malformed CSV (unterminated or misplaced quote)"
    : csv_strerror (code);
  die (EXIT_DATAERR, 0, "%s: line %zu: %s", r->source, r->line + 1, why);
}

/* Read into BUFFER[0..SIZE); 0 at the end of input.  */
static size_t
read_some (int fd, char *buffer, size_t size, const char *source)
{
  for (;;)
    {
      ssize_t got = read (fd, buffer, size);
      if (got >= 0)
        return (size_t) got;
      if (errno == EISDIR)      /* input, not a write: a missing input */
        die (EXIT_NOINPUT, errno, "%s", source);
      if (errno != EINTR)
        die (EXIT_IOERR, errno, "%s: read error", source);
    }
}

void
csv_reader_on_json (struct csv_reader *r, csv_json_fn fn)
{
  r->json_fn = fn;
}

/* The rest of FD after BUFFER[0..HAVE), whole, to R's JSON function;
   LINES blank lines came before BUFFER.  */
static void
read_json (struct csv_reader *r, int fd, const char *buffer, size_t have, size_t lines,
           const char *source)
{
  size_t size = 2 * have + (1 << 16), used = have;
  char *text = xmalloc (size);
  memcpy (text, buffer, have);
  size_t got;
  while ((got = read_some (fd, text + used, size - used, source)) > 0)
    {
      used += got;
      if (used == size)
        text = xreallocarray (text, size *= 2, 1);
    }
  r->json_fn (text, used, source, lines, r->context);
}

void
csv_reader_read_fd (struct csv_reader *r, int fd, const char *source)
{
  static const char bom[] = "\xef\xbb\xbf";
  char buffer[1 << 16];
  r->source = source;
  r->line = 0;
  /* The first three bytes whole, to skip a UTF-8 byte order mark, then
     up to the first byte past blanks: a pipe may give blank lines in one
     read and the '{' in the next.  Blanks before the first record make
     no record of CSV either, so a buffer full of them goes (its lines
     counted, for JSON's messages).  */
  size_t have = 0, skip = 0, first = 0, lines = 0, got;
  bool bom_checked = false;
  do
    {
      if (have == sizeof buffer)
        {
          for (size_t i = skip; i < have; i++)
            lines += buffer[i] == '\n';
          have = skip = first = 0;
        }
      got = read_some (fd, buffer + have, sizeof buffer - have, source);
      have += got;
      if (!bom_checked && (have >= 3 || got == 0))
        {
          bom_checked = true;
          if (have >= 3 && memcmp (buffer, bom, 3) == 0)
            skip = first = 3;
        }
      while (bom_checked && first < have && buffer[first] && strchr (" \t\r\n", buffer[first]))
        first++;
    }
  while (got > 0 && (!bom_checked || first == have));
  if (r->json_fn && first < have && buffer[first] == '{')
    {
      read_json (r, fd, buffer + skip, have - skip, lines, source);
      return;
    }
  for (bool eof = got == 0;; eof = false)
    {
      if (have > skip
          && csv_parse (&r->parser, buffer + skip, have - skip, on_field, on_record, r)
             != have - skip)
        parse_failed (r);
      skip = 0;
      have = eof ? 0 : read_some (fd, buffer, sizeof buffer, source);
      if (have == 0)
        break;
    }
  if (csv_fini (&r->parser, on_field, on_record, r) != 0)
    parse_failed (r);
}

void
csv_reader_read_path (struct csv_reader *r, const char *path)
{
  if (STREQ (path, "-"))
    {
      csv_reader_read_fd (r, STDIN_FILENO, "stdin");
      return;
    }
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    die (EXIT_NOINPUT, errno, "%s", quotef (path));
  char *name = xstrdup (quotef (path));     /* quote's buffers are reused */
  csv_reader_read_fd (r, fd, name);
  close (fd);
  free (name);
}
