/* consumer-intake.h -- a consumer's handle rows off a descriptor, fast.

   The same records, line numbers and errors as csv-reader (RFC 4180 as
   libcsv reads it strictly: quoted fields, "" escapes, CR or LF ends a
   record, blank lines skipped, spaces and tabs around unquoted fields
   trimmed, a UTF-8 byte order mark skipped), but a row without a quote,
   space or CR, which is every row arena-produce writes, is split in place
   in one pass: libcsv's byte-at-a-time callbacks cost more than all the
   rest of a small item's handling.  */
#ifndef ARENABENCH_CONSUMER_INTAKE_H
#define ARENABENCH_CONSUMER_INTAKE_H

#include "csv-reader.h"

/* Read FD to its end, calling RECORD for each record as soon as its
   terminator is read, and IDLE (when not NULL) whenever every record read
   so far has been handed over and the next read may block: a sink that
   gathers items into batches submits what it holds there.  Dies with
   EXIT_DATAERR on malformed CSV and EXIT_IOERR on a read error, naming
   SOURCE.  */
void consumer_intake_read (int fd, const char *source, csv_record_fn record,
                           void (*idle) (void *context), void *context);

#endif
