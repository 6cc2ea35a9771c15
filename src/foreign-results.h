/* foreign-results.h -- other tools' JSON results as rows of CSV records,
   so bench-summarize gives them its intervals and comparisons.

   hyperfine --export-json: {"results": [{"command": C, "times": [s, ...]},
   ...]}: a row "command,time_s" per run (its parameters are in the
   command's text).  pytest-benchmark --benchmark-json:
   {"benchmarks": [{"name": N, "stats": {"data": [s, ...]}}, ...]}: a row
   "name,time_s" per round; without "data" (saved only with
   --benchmark-save-data) its summary statistics cannot give an interval,
   and the input is refused saying so.  */
#ifndef ARENABENCH_FOREIGN_RESULTS_H
#define ARENABENCH_FOREIGN_RESULTS_H

#include <stddef.h>

#include "csv-reader.h"

/* Parse TEXT[0..LEN) from SOURCE (LINES lines came before it), free
   TEXT (before the records: the tree is smaller) and give FN a header
   record (line 1) and one record per run; dies with EXIT_DATAERR, saying
   why, on JSON that is malformed or of neither tool.  */
void foreign_results_read (char *text, size_t len, const char *source, size_t lines,
                           csv_record_fn fn, void *context);

#endif
