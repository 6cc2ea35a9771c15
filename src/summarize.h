/* summarize.h -- read benchmark CSV into groups and summarize each.

   Reading: every input is CSV with a header; later inputs must carry the
   same column names, in any order.  Rows are grouped by the --by columns
   in order of first appearance (a hash table, so groups need not be
   adjacent).  Each value column keeps every number of every group; a
   cell that is empty, "NA" or "nan" (any case) is counted as missing
   instead, unless the reader is strict.  */
#ifndef ARENABENCH_SUMMARIZE_H
#define ARENABENCH_SUMMARIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bootstrap.h"

struct summarize_options
{
  char **by;                    /* group columns, in output order */
  size_t nby;
  char **value;                 /* value columns; NULL: every numeric one */
  size_t nvalue;
  char **ratio;                 /* "NUM/DEN" derived columns */
  size_t nratio;
  const char *compare;          /* "COL=LEVEL", or NULL */
  bool strict;                  /* missing cells are errors */
};

/* The numbers of one value column within one group.  */
struct summary_cell
{
  double *values;
  size_t n, size;
  size_t missing;
};

struct summary_group
{
  char **key;                   /* one string per group column */
  struct summary_cell *cells;   /* one per value column */
};

struct summary_value
{
  char *name;                   /* column name, or "NUM/DEN" */
  size_t num, den;              /* input columns; DEN used by ratios only */
  bool ratio;
  bool explicit_;               /* named by --value or --ratio */
  bool numeric;                 /* false once a non-number was seen */
};

struct summary_data
{
  char **group_names;           /* the --by columns, then a --compare one */
  size_t ngroup_names;
  struct summary_value *values;
  size_t nvalues;
  struct summary_group *groups;
  size_t ngroups;
  size_t rows;                  /* data rows read */
  size_t compare_index;         /* in group_names; SIZE_MAX without --compare */
  char *compare_level;
  struct summarize_reader *reader;
};

/* What to compute beyond the fixed columns.  */
struct summary_config
{
  const double *percentiles;    /* each in [0, 100] */
  size_t npercentiles;
  struct bootstrap_config bootstrap;
  enum bootstrap_stat ci_stat;
  uint64_t seed;
};

/* One output row: one group and one value column.  Unknown numbers
   (sd of one value, CI of constant data) are NaN.  */
struct summary_row
{
  size_t group, value;
  size_t n, missing;
  double mean, sd, se, min, median, max, ci_low, ci_high;
  double *percentiles;
  bool compared;                /* has a base level to be compared with */
  double ratio, ratio_low, ratio_high, p_welch;
};

struct summary_data *summarize_new (const struct summarize_options *options);
/* Read PATH ("-" for stdin) into DATA; dies on bad input.  */
void summarize_read (struct summary_data *data, const char *path);
/* Check what was read (dies on empty input, a --compare level never
   seen, no numeric column) and drop value columns found not numeric.  */
void summarize_finish (struct summary_data *data);
/* Compute every row; *NROWS gets their count.  Deterministic for a
   given seed: each group and column draws from its own stream, seeded
   from the seed, its group key and its column name.  */
struct summary_row *summarize_compute (struct summary_data *data,
                                       const struct summary_config *config,
                                       size_t *nrows);
void summarize_free (struct summary_data *data, struct summary_row *rows, size_t nrows);

#endif
