/* copy-choice.h -- which copy path h2d-check --copy-path auto takes, from
   the rates it measured.

   Each candidate path is timed in ROUNDS rounds, the paths taking turns
   within a round so that a host that grows busier slows all of them
   alike.  A path's figure is the median of its rounds: one round that a
   neighbour disturbed moves it no more than any other (on a noisy H200
   host the best of two 5 ms rounds chose sm at 21.5 GB/s where the
   engine gave 28.7 in the same run).  The choice is the first path, in
   the pipeline's order (engine, batch, sm), whose median is within
   COPY_CHOICE_MARGIN of the fastest median: a difference the rounds
   cannot tell apart keeps the simpler path (the engine leaves the SMs
   to compute).  Nothing here measures: it is pure, for its unit
   test.  */
#ifndef ARENABENCH_COPY_CHOICE_H
#define ARENABENCH_COPY_CHOICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Most paths and rounds a choice takes.  */
#define COPY_CHOICE_PATHS_MAX 8
#define COPY_CHOICE_ROUNDS_MAX 64

/* Rounds and their length by default: median of 5, each >= 20 ms.  */
#define COPY_CHOICE_ROUNDS 5
#define COPY_CHOICE_ROUND_S 0.020

/* A path within this fraction of the fastest counts as fast as it.  */
#define COPY_CHOICE_MARGIN 0.02

/* The median of the N rates at RATES that are measured (> 0, not NaN);
   NaN when none is.  */
double copy_choice_median (const double *rates, size_t n);

/* The path to take, from RATES[ROUND * NPATHS + PATH] (GB/s; <= 0 or NaN:
   not measured in that round), among the paths ELIGIBLE names (NULL:
   all): the index of the chosen path.  MEDIAN[NPATHS] gets every path's
   median, eligible or not (NaN: not measured).  Path 0 when no eligible
   path was measured.  */
int copy_choice_decide (const double *rates, size_t rounds, size_t npaths,
                        const bool *eligible, double *median);

/* Parse TEXT, "R0,R1,...", NPATHS rates in GB/s (empty: not measured),
   into RATES; false when it is not that.  (ARENABENCH_AUTO_RATES: a
   test's synthetic measurement.)  */
bool copy_choice_parse_rates (const char *text, size_t npaths, double *rates);

/* The one line that says what auto measured and chose, without a newline:
   "--copy-path auto: 65536-byte items, median of 5 rounds of 20 ms:
   engine 28.70, batch 27.10, sm 21.50 GB/s: chose engine".  A path not
   measured reads "-"; ROUND_S 0 says the rates were given ("rates
   given:"), not measured.  */
void copy_choice_describe (char *buf, size_t size, uint64_t bytes, size_t rounds,
                           double round_s, const char *const *names, size_t npaths,
                           const double *median, int chosen);

#endif
