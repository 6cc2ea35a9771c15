/* summary-output.h -- bench-summarize's tidy CSV, aligned table and plot. */
#ifndef ARENABENCH_SUMMARY_OUTPUT_H
#define ARENABENCH_SUMMARY_OUTPUT_H

#include <stdio.h>

#include "summarize.h"

enum summary_format { SUMMARY_CSV, SUMMARY_TABLE, SUMMARY_FORMAT_COUNT };
extern const char *const summary_format_names[SUMMARY_FORMAT_COUNT + 1];

/* Write the header and every row.  CSV numbers are the shortest text
   that reads back as the same double; unknown values are empty fields.
   The table rounds to 6 significant digits and shows unknowns as "-".
   LABELS name the percentile columns ("p5").  */
void summary_output (FILE *out, enum summary_format format,
                     const struct summary_data *data,
                     const struct summary_row *rows, size_t nrows,
                     const struct summary_config *config, char **labels);

/* A ministat-style plot for each value column: every group's values as
   a row of symbols on a common scale, then for each group a line with
   A at the mean, M at the median and |___| from mean - sd to mean + sd. */
void summary_output_plot (FILE *out, const struct summary_data *data,
                          const struct summary_row *rows, size_t nrows);

#endif
