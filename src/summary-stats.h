/* summary-stats.h -- the table of summary statistics: for each output
   column after the group columns, its header, how it is computed, where
   the row keeps it and how it is written (GNU datamash's operation table
   is the model).  summary-compute.c runs the compute functions in table
   order; summary-output.c writes every format from the same table.  */
#ifndef ARENABENCH_SUMMARY_STATS_H
#define ARENABENCH_SUMMARY_STATS_H

#include <stdbool.h>
#include <stddef.h>

#include "summarize.h"

/* How a column's value is found and written.  */
enum stat_kind
{
  STAT_TEXT,                    /* a string (the column name) */
  STAT_COUNT,                   /* a size_t at OFFSET */
  STAT_NUMBER,                  /* a double at OFFSET */
  STAT_P,                       /* a p-value (double at OFFSET) */
  STAT_CI_STAT, STAT_CI_METHOD, STAT_CI_LEVEL, STAT_SEED, STAT_VS,
  STAT_PERCENTILES,             /* one column per --percentiles */
};

/* Numbers of one family share their digits in the table, enough to
   tell apart any two different values of the family.  */
enum stat_family { STAT_FAM_NONE, STAT_FAM_LOCATION, STAT_FAM_SD, STAT_FAM_SE, STAT_FAM_LEVEL,
                   STAT_FAM_RATIO, STAT_FAM_DIFF, STAT_FAM_PCT, STAT_FAM_T, STAT_FAM_DF,
                   STAT_FAM_U, STAT_FAM_COUNT };

/* When the column is there: always, with a geometric mean (--ratio or
   --ci-stat gmean), with a comparison, or with a comparison and --rank
   or --paired.  */
enum stat_part { STAT_PART_ALWAYS, STAT_PART_GMEAN, STAT_PART_COMPARE, STAT_PART_RANK,
                 STAT_PART_PAIRED };

/* What a compute function sees of one group's column: its N > 0 values,
   sorted when SORTED (else in any order, which it may change), and the
   type-7 quartiles.  */
struct summary_sample
{
  double *x;
  size_t n;
  bool sorted;
  double q1, q3;
};

struct summary_statistic
{
  const char *header;
  enum stat_kind kind;
  enum stat_family family;
  size_t offset;                /* in struct summary_row */
  enum stat_part part;
  /* Sets the row's value from the sample and the values before it in
     the table; NULL where summary-compute.c sets it (counts, interval,
     percentiles, comparison).  */
  void (*compute) (const struct summary_sample *sample, struct summary_row *row);
};

extern const struct summary_statistic summary_statistics[];
extern const size_t summary_nstatistics;

/* Every number of ROW the table names unknown (NaN), its NPERCENTILES
   percentiles too: the table owns a row's initial values, so a new
   statistic cannot be left at 0.  */
void summary_statistics_init (struct summary_row *row, size_t npercentiles);

#endif
