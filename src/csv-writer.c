/* csv-writer.c -- building CSV lines. */
#include "system.h"
#include "csv-writer.h"
#include "close-stdout.h"
#include "die.h"

#include <inttypes.h>
#include <math.h>
#include <limits.h>
#include <unistd.h>

static void
reserve (struct csv_line *line, size_t more)
{
  if (line->used + more + 2 > line->size)
    {
      while (line->used + more + 2 > line->size)
        line->size = line->size ? 2 * line->size : 256;
      line->text = xrealloc (line->text, line->size);
    }
}

static void
separator (struct csv_line *line)
{
  reserve (line, 1);
  if (line->fields++)
    line->text[line->used++] = ',';
}

static void
append (struct csv_line *line, const char *text, size_t len)
{
  reserve (line, len);
  memcpy (line->text + line->used, text, len);
  line->used += len;
}

void
csv_line_reset (struct csv_line *line)
{
  line->used = 0;
  line->fields = 0;
}

void
csv_line_free (struct csv_line *line)
{
  free (line->text);
  *line = (struct csv_line) { 0 };
}

void
csv_line_str (struct csv_line *line, const char *value)
{
  separator (line);
  /* Quote what a reader would split or trim: libcsv, like many readers,
     drops spaces and tabs at either end of an unquoted field.  */
  size_t len = strlen (value);
  bool padded = len && (strchr (" \t", value[0]) || strchr (" \t", value[len - 1]));
  if (!value[strcspn (value, ",\"\r\n")] && !padded)
    {
      append (line, value, len);
      return;
    }
  append (line, "\"", 1);
  for (const char *p = value; *p; p++)
    {
      if (*p == '"')
        append (line, "\"", 1);
      append (line, p, 1);
    }
  append (line, "\"", 1);
}

/* VALUE's decimal digits, ending at END; returns where they begin.  A
   producer writes a row of twenty numbers per item: at a million 4 KiB
   items a second, snprintf's machinery was half of arena-produce's time. */
static char *
format_u64 (uint64_t value, char *end)
{
  char *p = end;
  do
    {
      *--p = (char) ('0' + value % 10);
      value /= 10;
    }
  while (value);
  return p;
}

void
csv_line_u64 (struct csv_line *line, uint64_t value)
{
  char text[24];
  char *end = text + sizeof text, *begin = format_u64 (value, end);
  separator (line);
  append (line, begin, (size_t) (end - begin));
}

void
csv_line_i64 (struct csv_line *line, int64_t value)
{
  char text[24];
  char *end = text + sizeof text;
  /* The magnitude as unsigned: -INT64_MIN does not fit in an int64_t.  */
  uint64_t magnitude = value < 0 ? 0 - (uint64_t) value : (uint64_t) value;
  char *begin = format_u64 (magnitude, end);
  if (value < 0)
    *--begin = '-';
  separator (line);
  append (line, begin, (size_t) (end - begin));
}

int
csv_format_shortest (char *text, size_t size, double value, int first, bool as_float)
{
  int n = 0;
  for (int digits = first; digits <= 17; digits++)
    {
      n = snprintf (text, size, "%.*g", digits, value);
      double back = strtod (text, NULL);
      if (as_float ? (float) back == (float) value : back == value)
        break;
    }
  return n;
}

int
csv_format_double (char *text, size_t size, double value)
{
  /* From 6 digits: "100", not "1e+02".  */
  return csv_format_shortest (text, size, value, 6, false);
}

void
csv_line_double (struct csv_line *line, double value)
{
  separator (line);
  if (!isfinite (value))
    return;
  char text[40];
  int n = csv_format_double (text, sizeof text, value);
  append (line, text, (size_t) n);
}

void
csv_line_fixed (struct csv_line *line, double value, int decimals)
{
  separator (line);
  if (!isfinite (value))
    return;
  char text[64];
  int n = snprintf (text, sizeof text, "%.*f", decimals, value);
  append (line, text, (size_t) n);
}

void
csv_line_empty (struct csv_line *line)
{
  separator (line);
}

void
csv_line_count (struct csv_line *line, uint64_t value)
{
  if (value == CSV_NONE)
    csv_line_empty (line);
  else
    csv_line_u64 (line, value);
}

void
csv_columns_header (struct csv_line *line, const struct csv_column *table)
{
  for (const struct csv_column *c = table; c->name; c++)
    csv_line_str (line, c->name);
}

void
csv_columns_row (struct csv_line *line, const struct csv_column *table, const void *row)
{
  for (const struct csv_column *c = table; c->name; c++)
    {
      int before = line->fields;
      c->put (line, row);
      if (line->fields != before + 1)
        die (EXIT_SOFTWARE, 0, "receipt column '%s' wrote %d fields", c->name,
             line->fields - before);
    }
}

void
csv_line_put (struct csv_line *line, FILE *stream)
{
  reserve (line, 1);
  line->text[line->used++] = '\n';
  if (fwrite (line->text, 1, line->used, stream) != line->used)
    {
      if (stream == stdout)
        stdout_write_error (errno);
      die (EXIT_IOERR, errno, "write error");
    }
  csv_line_reset (line);
}

int
csv_line_write (struct csv_line *line, int fd)
{
  reserve (line, 1);
  line->text[line->used++] = '\n';
  int err = write_fully (fd, line->text, line->used);
  csv_line_reset (line);
  return err;
}

int
csv_batch_flush (struct csv_line *batch, int fd)
{
  if (!batch->used)
    return 0;
  int err = write_fully (fd, batch->text, batch->used);
  csv_line_reset (batch);
  return err;
}

int
csv_line_batch (struct csv_line *line, struct csv_line *batch, int fd)
{
  /* Only whole lines within PIPE_BUF go out in one atomic write(2); a
     line that does not fit beside what BATCH holds sends BATCH first.  */
  if (batch->used && batch->used + line->used + 1 > PIPE_BUF)
    {
      int err = csv_batch_flush (batch, fd);
      if (err)
        {
          csv_line_reset (line);
          return err;
        }
    }
  reserve (batch, line->used + 1);
  memcpy (batch->text + batch->used, line->text, line->used);
  batch->used += line->used;
  batch->text[batch->used++] = '\n';
  csv_line_reset (line);
  return 0;
}
