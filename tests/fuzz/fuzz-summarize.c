/* fuzz-summarize.c -- libFuzzer target: bench-summarize's reading, cell
   parsing, grouping and statistics through summarize.h, then both output
   formats and the plot.

   Input: byte 0 picks the options (--by, --value, --ratio, --compare,
   --strict), the CI method and statistic, the format, and whether the
   rest is read as one file or as two files split at the first form
   feed.  The rest is CSV.  Checked on every summary row: each row of the
   input lands in exactly one of n or missing for every numeric column;
   min <= median, the mean and every percentile <= max; p50 equals the
   median; percentiles rise with p; a CI has low <= high, and an empty
   one a reason; the SD is not negative; outliers are at most n; Fieller's
   interval excludes 1 exactly when Welch's p is below 1 - confidence. */
#include "fuzz-common.h"

#include <float.h>
#include <math.h>
#include <sys/mman.h>
#include <unistd.h>

#include "summarize.h"
#include "summary-output.h"

static int input_fd[2] = { -1, -1 };
static FILE *sink;

static char *by_g[] = { "g" };
static char *by_gh[] = { "g", "h" };
static char *value_a[] = { "a" };
static char *value_ab[] = { "a", "b" };
static char *ratio_ab[] = { "a/b" };
static char *ratio_ba[] = { "b/a" };

static const struct summarize_options option_sets[] = {
  { 0 },
  { .by = by_g, .nby = 1 },
  { .by = by_g, .nby = 1, .value = value_a, .nvalue = 1 },
  { .ratio = ratio_ab, .nratio = 1 },
  { .by = by_g, .nby = 1, .compare = "h=x" },
  { .by = by_gh, .nby = 2, .compare = "g=1", .strict = true },
  { .value = value_ab, .nvalue = 2, .ratio = ratio_ba, .nratio = 1, .strict = true },
  { .by = by_g, .nby = 1, .value = value_ab, .nvalue = 2, .compare = "h=x" },
};

/* Listed out of order on purpose: results must not depend on it.  */
static const double percentiles[] = { 95, 5, 50, 0, 100, 25 };
enum { P50 = 2, P0 = 3, P100 = 4 };

int LLVMFuzzerInitialize (int *argc, char ***argv);

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  (void) argc;
  (void) argv;
  fuzz_init ();
  sink = fopen ("/dev/null", "w");
  for (int i = 0; i < 2; i++)
    input_fd[i] = memfd_create ("fuzz-input", 0);
  if (!sink || input_fd[0] < 0 || input_fd[1] < 0)
    abort ();
  return 0;
}

struct input
{
  unsigned mode;
  size_t nfiles;
};

static void
load (int fd, const uint8_t *data, size_t size)
{
  if (ftruncate (fd, 0) != 0 || (size && pwrite (fd, data, size, 0) != (ssize_t) size))
    abort ();
}

static void
check_rows (const struct summary_data *d, const struct summary_row *rows, size_t nrows,
            const struct summary_config *config)
{
  for (size_t v = 0; v < d->nvalues; v++)
    {
      if (!d->values[v].numeric)
        continue;
      size_t seen = 0;
      for (size_t i = 0; i < nrows; i++)
        if (rows[i].value == v)
          seen += rows[i].n + rows[i].missing;
      FUZZ_ASSERT (seen == d->rows, "column '%s': n + missing is %zu over %zu rows",
                   d->values[v].name, seen, d->rows);
    }
  for (size_t i = 0; i < nrows; i++)
    {
      const struct summary_row *r = &rows[i];
      const char *name = d->values[r->value].name;
      if (r->n == 0)
        continue;
      FUZZ_ASSERT (r->min <= r->max && r->min <= r->median && r->median <= r->max,
                   "'%s': min %g median %g max %g", name, r->min, r->median, r->max);
      FUZZ_ASSERT (r->mean >= r->min && r->mean <= r->max, "'%s': mean %.17g outside [%.17g, %.17g]",
                   name, r->mean, r->min, r->max);
      FUZZ_ASSERT (isnan (r->sd) || r->sd >= 0, "'%s': sd %g", name, r->sd);
      FUZZ_ASSERT (r->n >= 2 || isnan (r->sd), "'%s': an SD of one value", name);
      FUZZ_ASSERT (r->percentiles[P0] == r->min && r->percentiles[P100] == r->max,
                   "'%s': p0 %g p100 %g, min %g max %g", name, r->percentiles[P0],
                   r->percentiles[P100], r->min, r->max);
      /* The median averages the middle two, p50 interpolates between
         them: the same number up to rounding, which is relative to the
         values and not to the result: two of opposite signs cancel
         ({-1.33, 1.5}: p50 and median 0.0833 differ by 8 of its ulps).  */
      double scale = fmax (fabs (r->min), fabs (r->max));
      FUZZ_ASSERT (fabs (r->percentiles[P50] - r->median) <= 4 * DBL_EPSILON * scale + DBL_TRUE_MIN,
                   "'%s': p50 %.17g, median %.17g", name, r->percentiles[P50], r->median);
      for (size_t a = 0; a < config->npercentiles; a++)
        {
          FUZZ_ASSERT (r->percentiles[a] >= r->min && r->percentiles[a] <= r->max,
                       "'%s': p%g = %g outside [%g, %g]", name, config->percentiles[a],
                       r->percentiles[a], r->min, r->max);
          for (size_t b = 0; b < config->npercentiles; b++)
            FUZZ_ASSERT (config->percentiles[a] > config->percentiles[b]
                         || r->percentiles[a] <= r->percentiles[b],
                         "'%s': p%g > p%g", name, config->percentiles[a],
                         config->percentiles[b]);
        }
      FUZZ_ASSERT (!(r->ci_low > r->ci_high), "'%s': CI [%g, %g]", name, r->ci_low, r->ci_high);
      FUZZ_ASSERT (!isnan (r->ci_low) || r->ci_why, "'%s': an empty CI without a reason", name);
      FUZZ_ASSERT (r->outliers_mild + r->outliers_severe <= r->n, "'%s': outliers", name);
      const struct welch *w = &r->welch;
      FUZZ_ASSERT (!(w->ratio_low > w->ratio_high), "'%s': ratio CI [%g, %g]", name,
                   w->ratio_low, w->ratio_high);
      FUZZ_ASSERT (!(w->diff_low > w->diff_high), "'%s': difference CI [%g, %g]", name,
                   w->diff_low, w->diff_high);
      /* Away from the boundary, where rounding may tip either way.  */
      if (r->compared && !w->ratio_why && fabs (w->p - 0.1) > 1e-6
          && fabs (w->ratio_low - 1) > 1e-9 && fabs (w->ratio_high - 1) > 1e-9)
        FUZZ_ASSERT ((w->ratio_low <= 1 && 1 <= w->ratio_high) == (w->p >= 0.1),
                     "'%s': Fieller [%.17g, %.17g] against Welch p %.17g", name,
                     w->ratio_low, w->ratio_high, w->p);
    }
}

static void
body (void *context)
{
  struct input *in = context;
  const struct summarize_options *options = &option_sets[in->mode % ARRAY_SIZE (option_sets)];
  struct summary_data *d = summarize_new (options);
  for (size_t f = 0; f < in->nfiles; f++)
    {
      /* Through "-" as the command reads stdin: no descriptor to leak when
         the read dies.  */
      if (dup2 (input_fd[f], STDIN_FILENO) < 0 || lseek (STDIN_FILENO, 0, SEEK_SET) != 0)
        abort ();
      summarize_read (d, "-");
    }
  summarize_finish (d);
  struct summary_config config = {
    .percentiles = percentiles,
    .npercentiles = ARRAY_SIZE (percentiles),
    .method = (in->mode >> 3) & 1 ? CI_BCA : CI_AUTO,
    .stat = (in->mode >> 4) & 1 ? CI_STAT_MEDIAN : CI_STAT_AUTO,
    .confidence = 0.9,
    .resamples = 200,
    .seed = 42,
  };
  size_t nrows;
  struct summary_row *rows = summarize_compute (d, &config, &nrows);
  check_rows (d, rows, nrows, &config);
  char *labels[ARRAY_SIZE (percentiles)];
  char text[ARRAY_SIZE (percentiles)][16];
  for (size_t i = 0; i < ARRAY_SIZE (percentiles); i++)
    {
      snprintf (text[i], sizeof text[i], "p%g", percentiles[i]);
      labels[i] = text[i];
    }
  enum summary_format format = (in->mode >> 5) & 1
    ? ((in->mode >> 3) & 1 ? SUMMARY_MARKDOWN : SUMMARY_TABLE)
    : ((in->mode >> 4) & 1 ? SUMMARY_JSON : SUMMARY_CSV);
  summary_output (sink, format, d, rows, nrows, &config, labels);
  if ((in->mode >> 6) & 1)
    summary_output_plot (sink, d, rows, nrows);
  summarize_free (d, rows, nrows);
}

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  if (size < 1)
    return 0;
  struct input in = { .mode = data[0], .nfiles = 1 };
  data++, size--;
  const uint8_t *split = (in.mode & 0x80) ? memchr (data, '\f', size) : NULL;
  if (split)
    {
      load (input_fd[0], data, (size_t) (split - data));
      load (input_fd[1], split + 1, size - (size_t) (split - data) - 1);
      in.nfiles = 2;
    }
  else
    load (input_fd[0], data, size);
  fuzz_run (body, &in);
  return 0;
}
