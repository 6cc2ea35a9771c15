/* summarize.h -- read benchmark CSV into groups and summarize each.

   Reading (summarize.c): every input is CSV with a header; later inputs
   must carry the same column names, in any order, and a line repeating
   the header (concatenated reports) is skipped.  Rows are grouped by the
   --by columns in order of first appearance.  Each value column keeps
   every number of every group; empty, NA and nan cells are missing,
   infinities and text are missing with a warning (errors when strict).
   Computing (summary-compute.c, with the table of statistics in
   summary-stats.c): the descriptive statistics, an interval
   per row, Tukey's outlier counts, and the comparisons of --compare and
   --baseline.  */
#ifndef ARENABENCH_SUMMARIZE_H
#define ARENABENCH_SUMMARIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bootstrap.h"
#include "intervals.h"
#include "rank.h"

struct summary_data;
struct csv_record;
/* A hook on the grouping (--reduce, summary-reduce.c): called with each
   data row once its value cells are in its group.  GROUP indexes
   summary_data.groups; POSITION maps each column of the first input
   (summarize_column) to its field in RECORD.  */
typedef void summary_row_hook (const struct summary_data *data, const struct csv_record *record,
                               const size_t *position, size_t group, void *context);

struct summarize_options
{
  char **by;                    /* group columns, in output order */
  size_t nby;
  char **value;                 /* value columns; NULL: the measurements */
  size_t nvalue;
  char **ratio;                 /* "NUM/DEN" derived columns */
  size_t nratio;
  const char *compare;          /* "COL=LEVEL", or NULL */
  const char *baseline;         /* a baseline file to compare with, or NULL */
  const char *paired;           /* comparisons pair rows by this column */
  bool strict;                  /* missing, infinite and text cells are errors */
  bool log_scale;               /* every summarized value must be > 0 */
  char **named;                 /* columns named as values elsewhere */
  size_t nnamed;                /* (--fail-if-worse): always summarized */
  char **higher, **lower;       /* --higher-is-better, --lower-is-better */
  size_t nhigher, nlower;
  summary_row_hook *row_hook;   /* or NULL */
  void *row_context;
};

/* Where the first few bad cells of a column were, for the warnings.  */
enum { SUMMARY_CELL_NOTES = 3 };
struct cell_note
{
  char *source;
  size_t line;
  char *text;
};

/* The numbers of one value column within one group, in row order.  */
struct summary_cell
{
  double *values;
  size_t n, size;
  size_t missing;
  /* With --paired: each value again, in row order, and its row's key in
     the pairing column (an index into summary_data.npair_keys).  */
  double *pair_values;
  size_t *pair_keys;
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
  bool numeric;                 /* summarized */
  size_t numbers, texts;        /* cells read of each kind */
  size_t infinite;
  struct cell_note notes[SUMMARY_CELL_NOTES];  /* first text/inf cells */
  size_t nnotes;
  const char *left_out;         /* why a default column is not summarized */
  int better;                   /* 1 higher is better, -1 lower (by unit; 2
                                   and -2 by option), 0 unknown */
  struct cell_note nonpositive; /* the first value <= 0, for --log-scale */
  size_t nonpositive_group;
};

/* The name of the group column --baseline adds, and its two levels.  */
#define SUMMARY_BASELINE_COLUMN "source"
#define SUMMARY_BASELINE_LEVEL "baseline"
#define SUMMARY_CANDIDATE_LEVEL "candidate"

struct summary_data
{
  char **group_names;           /* the --by columns, then a --compare one */
  size_t ngroup_names;
  struct summary_value *values;
  size_t nvalues;
  struct summary_group *groups;
  size_t ngroups;
  size_t rows;                  /* data rows read */
  size_t repeated_headers;      /* header lines met again and skipped */
  size_t compare_index;         /* in group_names; SIZE_MAX without --compare */
  size_t npair_keys;            /* distinct values of the --paired column */
  bool paired;                  /* --paired: comparisons pair rows */
  char *compare_level;
  struct summarize_reader *reader;
};

/* Interval methods; CI_AUTO picks per row (see summary_ci_auto).  */
enum ci_method { CI_AUTO, CI_T, CI_BOOT_T, CI_PERCENTILE, CI_BCA, CI_ORDER, CI_METHOD_COUNT };
extern const char *const ci_method_names[CI_METHOD_COUNT + 1];
/* The statistic an interval is for; CI_STAT_AUTO: the mean, and the
   geometric mean for --ratio columns.  */
enum ci_stat { CI_STAT_AUTO, CI_STAT_MEAN, CI_STAT_MEDIAN, CI_STAT_GMEAN, CI_STAT_COUNT };
extern const char *const ci_stat_names[CI_STAT_COUNT + 1];

/* Whether METHOD draws resamples (and so needs them and the seed).  The
   one place that says which methods bootstrap; choose_ci in
   summary-compute.c is the one that picks a row's method.  */
bool summary_ci_resamples (enum ci_method method);

/* Below SUMMARY_BOOT_T_MIN values small-sample warnings apply (the
   shape test; the bootstrap's coverage note); below SUMMARY_BOOT_MIN_N
   the bootstrap methods are refused (their measured coverage is in
   bench-summarize(1)).  */
enum { SUMMARY_BOOT_T_MIN = 30, SUMMARY_BOOT_MIN_N = 10 };

/* What to compute beyond the fixed columns.  */
struct summary_config
{
  const double *percentiles;    /* each in [0, 100] */
  size_t npercentiles;
  enum ci_method method;
  enum ci_stat stat;
  double confidence;
  size_t resamples;
  uint64_t seed;
  bool progress;                /* show bootstrap progress on stderr */
  bool log_scale;               /* the mean's t and boot-t on the log scale */
  bool rank;                    /* comparisons add the rank-sum test */
  char **columns;               /* --columns: the output columns, in order */
  size_t ncolumns;              /* (0: all) */
};

/* One output row: one group and one value column.  Unknown numbers
   (sd of one value, CI of constant data) are NaN.  */
struct summary_row
{
  size_t group, value;
  size_t n, missing;
  double mean, sd, se, min, median, max, gmean;
  double ci_low, ci_high;
  enum ci_stat ci_stat;         /* never CI_STAT_AUTO */
  enum ci_method ci_method;     /* never CI_AUTO */
  bool ci_log;                  /* t or boot-t on the log scale ("log-t") */
  bool seeded;                  /* the interval drew from the seed */
  const char *ci_why;           /* why there is no interval, or NULL */
  double *percentiles;
  size_t outliers_mild, outliers_severe;  /* Tukey: beyond 1.5 and 3 IQR */
  bool compared;                /* has a base level to be compared with */
  struct welch welch;
  struct rank_test rank;        /* with summary_config.rank */
  struct paired paired;         /* with --paired */
};

/* "KEY=VALUE, " for each group column of GROUP but SKIP (SIZE_MAX:
   none), quoted where needed: the words that name a group in every
   message.  */
void summary_where (const struct summary_data *data, size_t group, size_t skip,
                    char *where, size_t size);

/* Which way is better for a column named NAME, by its unit: 1 higher
   (rates: _per_s, gb_s, mb_s, gbps, _ops ...), -1 lower (times: _s,
   _ms, _us, _ns, latency ...), 0 unknown.  A --ratio column NUM/DEN
   takes NUM's way, or the opposite of DEN's; a time over a time, or a
   rate over a rate, neither.  */
int summary_better_by_name (const char *name);

struct summary_data *summarize_new (const struct summarize_options *options);
/* The first input's column NAME, for a row hook's POSITION; SIZE_MAX:
   none.  */
size_t summarize_column (const struct summary_data *data, const char *name);
/* Read PATH ("-" for stdin) into DATA; dies on bad input.  */
void summarize_read (struct summary_data *data, const char *path);
/* Read the --baseline file and then each candidate PATH.  */
void summarize_read_all (struct summary_data *data, char **paths, size_t npaths);
/* Check what was read (dies on empty input, a --compare level never
   seen, no numeric column), choose the default value columns, and warn
   about bad cells and columns left out.  */
void summarize_finish (struct summary_data *data);
/* Compute every row; *NROWS gets their count.  Deterministic for a
   given seed: each group and column draws from its own stream, seeded
   from the seed, its group key and its column name.  Says once on
   stderr why each kind of missing interval is missing.  */
struct summary_row *summarize_compute (struct summary_data *data,
                                       const struct summary_config *config,
                                       size_t *nrows);
void summarize_free (struct summary_data *data, struct summary_row *rows, size_t nrows);

#endif
