/* csv-writer.h -- CSV output with RFC 4180 quoting where a field needs it. */
#ifndef ARENABENCH_CSV_WRITER_H
#define ARENABENCH_CSV_WRITER_H

#include <stdint.h>
#include <stdio.h>

/* A line under construction; commands that share stdout between processes
   build each row whole and write it with one write(2).  */
struct csv_line
{
  char *text;
  size_t used, size;
  int fields;
};

void csv_line_reset (struct csv_line *line);
void csv_line_free (struct csv_line *line);
void csv_line_str (struct csv_line *line, const char *value);   /* quoted if needed */
void csv_line_u64 (struct csv_line *line, uint64_t value);
void csv_line_i64 (struct csv_line *line, int64_t value);
/* Shortest text that reads back as the same double ("%.17g" trimmed);
   NaN or infinity write an empty field.  */
void csv_line_double (struct csv_line *line, double value);
/* The same text into TEXT (SIZE bytes, 32 are enough) for a finite
   VALUE; returns its length.  For every writer of doubles.  */
int csv_format_double (char *text, size_t size, double value);
/* The %g text of VALUE with the fewest digits, from FIRST to 17, that
   reads back as VALUE (as the same float, when AS_FLOAT): the one
   shortest-double formatter, csv_format_double's and the mismatch
   messages'.  Returns its length.  */
int csv_format_shortest (char *text, size_t size, double value, int first, bool as_float);
/* Fixed decimals, for human-facing numbers such as milliseconds.  */
void csv_line_fixed (struct csv_line *line, double value, int decimals);
void csv_line_empty (struct csv_line *line);
/* A count that may be unknown or not apply: CSV_NONE writes an empty field. */
#define CSV_NONE UINT64_MAX
void csv_line_count (struct csv_line *line, uint64_t value);
/* Terminate with '\n' and write to STREAM (stdio); dies on write error.  */
void csv_line_put (struct csv_line *line, FILE *stream);
/* Terminate with '\n' and write with one write(2) to FD, so lines from
   several processes on one pipe never interleave (lines < PIPE_BUF).
   Returns 0, or an errno value (EPIPE when the reader left).  */
int csv_line_write (struct csv_line *line, int fd);
/* Terminate LINE with '\n' and move it into BATCH, a buffer of whole
   lines written together: fewer system calls for the writer and its
   reader when lines are many and small.  A batch stays within PIPE_BUF
   bytes (its write stays atomic beside other processes' lines); a line
   that does not fit writes the batch to FD first.  Returns 0 or an errno
   value, as csv_line_write.  */
int csv_line_batch (struct csv_line *line, struct csv_line *batch, int fd);
/* Write the lines BATCH holds to FD with one write(2) and empty it.  */
int csv_batch_flush (struct csv_line *batch, int fd);

/* One column of a receipt: its name, and how to write its field of ROW
   (a struct the table's user defines).  A receipt's header and every row
   come from one table, so a column added to it can never shift a row.
   Tables end with an entry whose NAME is NULL.  */
struct csv_column
{
  const char *name;
  void (*put) (struct csv_line *line, const void *row);
};

/* Append the names (csv_columns_header) or the fields of ROW
   (csv_columns_row) of every column of TABLE to LINE.  */
void csv_columns_header (struct csv_line *line, const struct csv_column *table);
void csv_columns_row (struct csv_line *line, const struct csv_column *table, const void *row);

#endif
