/* summary-reduce.h -- bench-summarize --reduce: per-rank results (rows
   with a "rank" column, one per rank and group) reduced to one value per
   group and column by a named rule, printed beside every rank's line and
   the rank that set it, so that no rank is hidden.

   sum, mean: over the ranks; min, max: the rank's value that is least or
   greatest; slowest, as MLPerf Storage judges ranks: a rate (higher is
   better) is the lowest rank's rate times the ranks, a time (lower is
   better) the highest rank's time.  Ties go to the lowest rank.  */
#ifndef ARENABENCH_SUMMARY_REDUCE_H
#define ARENABENCH_SUMMARY_REDUCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum reduce_rule { REDUCE_SUM, REDUCE_MIN, REDUCE_MEAN, REDUCE_MAX, REDUCE_SLOWEST,
                   REDUCE_RULE_COUNT };
extern const char *const summary_reduce_names[REDUCE_RULE_COUNT + 1];

struct summary_reduce_options
{
  enum reduce_rule rule;
  char **by, **value;           /* group and value columns */
  size_t nby, nvalue;
  char **higher, **lower;       /* which way is better, past the unit */
  size_t nhigher, nlower;
  bool table;                   /* a table for people, else CSV */
};

/* Read PATHS ("-" or none: stdin), reduce, write to OUT; returns the
   exit status.  Dies on input that would hide a rank: a value cell that
   is not a number, a rank twice in a group.  */
int summary_reduce_run (FILE *out, const struct summary_reduce_options *options, char **paths, size_t npaths);

#endif
