/* regression-gate.h -- bench-summarize --baseline ... --fail-if-worse:
   did a column get worse than the baseline by more than a tolerance, at
   the stated confidence?

   A candidate row regressed when the whole Fieller interval of
   candidate mean / baseline mean lies beyond the tolerance on the worse
   side: its upper end below 1 - TOL where higher is better, its lower
   end above 1 + TOL where lower is better; equivalently, Fieller's
   one-sided test at that limit has p < (1 - C) / 2.  A row whose
   interval does not exist cannot be judged, unless every value on both
   sides is equal.  */
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

/* Family-wise control over every judged row of every gate: none (each
   row at (1 - C) / 2, one side of its interval) or Holm's step-down,
   which keeps the chance that any unchanged row fails at (1 - C) / 2.  */
enum gate_family { GATE_FAMILY_NONE, GATE_FAMILY_HOLM, GATE_FAMILY_COUNT };
extern const char *const gate_family_names[GATE_FAMILY_COUNT + 1];

/* Judge every candidate row of each gated column, saying on stderr
   which regressed, which could not be judged and which baseline
   benchmark has no candidate rows.  Values all equal on both sides are
   judged exactly (equal passes).  Returns EXIT_REGRESSION when a row
   regressed, else EXIT_NOINPUT when a benchmark is missing from the
   candidate, else EXIT_DATAERR when a row could not be judged, else
   EXIT_OK.  */
enum { EXIT_REGRESSION = EXIT_MISMATCH };
int gate_check (const struct gate *gates, size_t ngates, const struct summary_data *data,
                const struct summary_row *rows, size_t nrows, double confidence,
                enum gate_family family);

#endif
