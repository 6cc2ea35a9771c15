/* csv-reader.h -- streaming CSV input through libcsv (RFC 4180). */
#ifndef ARENABENCH_CSV_READER_H
#define ARENABENCH_CSV_READER_H

#include <stddef.h>

/* One parsed record.  FIELDS are NUL-terminated and valid only during the
   callback.  LINE counts records from 1 (the header is line 1), which is
   the physical line number unless a quoted field spans lines.  */
struct csv_record
{
  const char *source;       /* file name, or "stdin" */
  size_t line;
  size_t nfields;
  char **fields;
  const size_t *lengths;
};

typedef void (*csv_record_fn) (const struct csv_record *record, void *context);

struct csv_reader;

/* FN is called once per record, as soon as its terminating newline has
   been read, so a consumer can act on rows while the producer still runs. */
struct csv_reader *csv_reader_new (csv_record_fn fn, void *context);
void csv_reader_free (struct csv_reader *reader);

/* An input whose first byte past blanks (and a byte order mark) is '{'
   is JSON, not CSV: with a JSON_FN set, the whole input goes to it
   instead of the CSV parser (bench-summarize reads other tools' JSON
   results so).  TEXT is the function's to free, as soon as it has
   parsed it; LINES blank lines came before it (more than a buffer of
   them, dropped).  */
typedef void (*csv_json_fn) (char *text, size_t len, const char *source, size_t lines,
                             void *context);
void csv_reader_on_json (struct csv_reader *reader, csv_json_fn fn);

/* Read PATH ("-" for stdin) to its end.  Dies with EXIT_NOINPUT when it
   cannot be opened and EXIT_DATAERR on malformed CSV (with the line).  */
void csv_reader_read_path (struct csv_reader *reader, const char *path);

/* Read an open descriptor to its end; SOURCE names it in messages.  */
void csv_reader_read_fd (struct csv_reader *reader, int fd, const char *source);

#endif
