/* summary-output.h -- bench-summarize's tidy CSV, JSON, aligned table,
   Markdown table (summary-output.c), verdicts (summary-verdicts.c) and
   plot (summary-plot.c). */
#ifndef ARENABENCH_SUMMARY_OUTPUT_H
#define ARENABENCH_SUMMARY_OUTPUT_H

#include <stdio.h>

#include "summarize.h"

enum summary_format { SUMMARY_CSV, SUMMARY_TABLE, SUMMARY_JSON, SUMMARY_MARKDOWN,
                      SUMMARY_FORMAT_COUNT };
extern const char *const summary_format_names[SUMMARY_FORMAT_COUNT + 1];

/* Write the header and every row.  CSV and JSON numbers are the shortest
   text that reads back as the same double; unknown values are empty
   fields (JSON null).  The table and Markdown give each family of
   numbers (locations, ratios, ...) at least 6 significant digits and as
   many more as tell its different values apart, show unknowns as "-",
   and end with the verdicts of --compare.  LABELS name the percentile
   columns ("p5").  */
void summary_output (FILE *out, enum summary_format format,
                     const struct summary_data *data,
                     const struct summary_row *rows, size_t nrows,
                     const struct summary_config *config, char **labels);

/* One line in words per compared row, each begun with PREFIX, from the
   test the design calls for (paired with --paired, rank-sum with
   --rank, Welch's otherwise), named at its end:
   "arm=b vs arm=a: v 0.98225x [0.96490, 0.99997] lower (p = 0.0497,
   Welch)", or "... v no difference shown at 95% (...)".  Word, interval
   and p agree as printed (summary_number_interval, _p_against); the
   word is faster/slower by the column's unit, better/worse by
   --higher/--lower-is-better, else higher/lower (summary-verdicts.c).  */
void summary_output_verdicts (FILE *out, const struct summary_data *data,
                              const struct summary_row *rows, size_t nrows,
                              const struct summary_config *config, const char *prefix);

/* A ministat-style plot for each value column: every group's values as
   a row of symbols on a common scale, then for each group a line with
   A at the mean, M at the median and |___| from mean - sd to mean + sd. */
void summary_output_plot (FILE *out, const struct summary_data *data,
                          const struct summary_row *rows, size_t nrows);

#endif
