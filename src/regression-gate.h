/* regression-gate.h -- bench-summarize --baseline ... --fail-if-worse:
   did a column get worse than the baseline by more than a tolerance, at
   the stated confidence?

   A candidate row regressed when the whole Fieller interval of
   candidate mean / baseline mean lies beyond the tolerance on the worse
   side: its upper end below 1 - TOL where higher is better, its lower
   end above 1 + TOL where lower is better.  A row whose interval does
   not exist cannot be judged.  */
#ifndef ARENABENCH_REGRESSION_GATE_H
#define ARENABENCH_REGRESSION_GATE_H

#include <stdbool.h>
#include <stddef.h>

#include "summarize.h"

struct gate
{
  char *column;
  double tolerance;             /* a fraction: 5% is 0.05 */
  bool higher_is_better;
};

/* Parse "COLUMN:TOLERANCE%:higher|lower" (TOLERANCE a percentage, the %
   sign optional); dies with EXIT_USAGE on anything else.  */
struct gate gate_parse (const char *option, const char *text);

/* Die with EXIT_USAGE unless every gated column is summarized.  */
void gate_require (const struct gate *gates, size_t ngates, const struct summary_data *data);

/* Judge every candidate row of each gated column, saying on stderr
   which regressed and which could not be judged.  Returns EXIT_OK,
   EXIT_REGRESSION when a row regressed, or EXIT_DATAERR when none did
   but a row could not be judged.  */
enum { EXIT_REGRESSION = EXIT_MISMATCH };
int gate_check (const struct gate *gates, size_t ngates, const struct summary_data *data,
                const struct summary_row *rows, size_t nrows, double confidence);

#endif
