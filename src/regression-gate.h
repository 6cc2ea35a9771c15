/* regression-gate.h -- bench-summarize --baseline ... --fail-if-worse:
   did a column get worse than the baseline by more than a tolerance, at
   the stated confidence?

   A candidate row regressed when a one-sided test of "worse than the
   baseline by more than the tolerance" has p < (1 - C) / 2: the exact
   permutation test of the candidate's values against the baseline's
   times 1 + TOL (lower is better) or 1 - TOL (higher is better) where
   the ways to split the pooled values number at most
   GATE_PERMUTATIONS_MAX (11 and 11 values, or fewer), else the same
   test over random splits (Monte-Carlo, seeded from --seed, else 0, and
   the row's key).  Fieller's test of the ratio, used there before,
   false-failed unchanged code 4% to 11% of the time at 12 and 60 runs
   (Welch's df is wrong when the sides' counts differ and the data lean).
   The permutation test holds its level at any pair of run counts and
   for any shape (two modes, heavy tails), so it cannot fail
   an unchanged benchmark more often than promised; its smallest p is
   1 / C(m+n, m), so at 3 and 3 values (1/20) no regression can be
   shown at 95% and standard error says so.  A row with fewer than 2
   values on a side, or a baseline mean not above 0, cannot be judged,
   unless every value on both sides is equal.  */
#ifndef ARENABENCH_REGRESSION_GATE_H
#define ARENABENCH_REGRESSION_GATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
enum { GATE_PERMUTATIONS_MAX = 705432 };  /* C(22, 11) */
/* Random splits beyond that: at least 20000 (p's Monte-Carlo error at
   0.025 is 0.0011), and 40 k / alpha under Holm over k rows.  */
enum { GATE_SPLITS_MIN = 20000, GATE_SPLITS_MAX = 2000000 };
enum gate_family { GATE_FAMILY_NONE, GATE_FAMILY_HOLM, GATE_FAMILY_COUNT };
extern const char *const gate_family_names[GATE_FAMILY_COUNT + 1];

/* Judge every candidate row of each gated column, saying on stderr
   which regressed, which could not be judged and which baseline
   benchmark has no candidate rows.  Values all equal on both sides are
   judged exactly (equal passes).  Returns EXIT_REGRESSION when a row
   regressed, else EXIT_NOINPUT when a benchmark is missing from the
   candidate, else EXIT_DATAERR when a row could not be judged, else
   EXIT_UNDECIDED when a row's exact test cannot reach the level with so
   few values (a line on stderr begins "cannot decide"), else EXIT_OK.
   SEED seeds the random splits of rows too many to count.  */
enum { EXIT_REGRESSION = EXIT_MISMATCH, EXIT_UNDECIDED = EXIT_TEMPFAIL };
int gate_check (const struct gate *gates, size_t ngates, const struct summary_data *data,
                const struct summary_row *rows, size_t nrows, double confidence,
                enum gate_family family, uint64_t seed);

#endif
