/* bench-summarize -- grouped statistics and bootstrap confidence
   intervals over benchmark CSV. */
#include "system.h"
#include "bootstrap.h"
#include "die.h"
#include "options.h"
#include "rng.h"
#include "summarize.h"
#include "summary-output.h"

#include <inttypes.h>
#include <unistd.h>

enum
{
  OPT_BY = OPTION_FIRST_PRIVATE, OPT_VALUE, OPT_RATIO, OPT_COMPARE, OPT_CI,
  OPT_CI_STAT, OPT_CONFIDENCE, OPT_RESAMPLES, OPT_SEED, OPT_PERCENTILES,
  OPT_FORMAT, OPT_PLOT, OPT_STRICT,
};

static const struct option long_options[] = {
  { "by", required_argument, NULL, OPT_BY },
  { "value", required_argument, NULL, OPT_VALUE },
  { "ratio", required_argument, NULL, OPT_RATIO },
  { "compare", required_argument, NULL, OPT_COMPARE },
  { "ci", required_argument, NULL, OPT_CI },
  { "ci-stat", required_argument, NULL, OPT_CI_STAT },
  { "confidence", required_argument, NULL, OPT_CONFIDENCE },
  { "resamples", required_argument, NULL, OPT_RESAMPLES },
  { "seed", required_argument, NULL, OPT_SEED },
  { "percentiles", required_argument, NULL, OPT_PERCENTILES },
  { "format", required_argument, NULL, OPT_FORMAT },
  { "plot", no_argument, NULL, OPT_PLOT },
  { "strict", no_argument, NULL, OPT_STRICT },
  OPTIONS_COMMON_LONG,
  { NULL, 0, NULL, 0 },
};

static _Noreturn void
usage (void)
{
  printf ("Usage: %s [OPTION]... [FILE]...\n", program_name);
  fputs ("\
Summarize the numeric columns of benchmark CSV (with a header) per group:\n\
count, missing cells, mean, SD, standard error, min, median, max, a\n\
bootstrap confidence interval and percentiles.  With no FILE, or FILE -,\n\
read standard input; several files with the same columns are concatenated.\n\
\n\
  --by COLS              group rows by these comma-separated columns\n\
  --value COLS           summarize these columns (default: every column that\n\
                           is numeric in all rows and not a --by column)\n\
  --ratio NUM/DEN        add the per-row ratio NUM/DEN as a column (repeatable)\n\
  --compare COL=LEVEL    compare every other level of COL with LEVEL, within\n\
                           each group: ratio of means, its CI, Welch's p\n\
  --ci percentile|bca    bootstrap interval kind (default percentile)\n\
  --ci-stat mean|median  statistic the interval is for (default mean)\n\
  --confidence C         confidence level in (0, 1) (default 0.95)\n\
  --resamples B          bootstrap resamples (default 10000; 0: no intervals)\n\
  --seed N               seed of the resampling (default: random, reported)\n\
  --percentiles LIST     percentile columns, 0 to 100 (default 5,95)\n\
  --format csv|table     output format (default: table on a terminal, else csv)\n\
  --plot                 add a ministat-style plot per column (table format)\n\
  --strict               empty, NA and nan cells are errors, not missing\n\
      --help             display this help and exit\n\
      --version          output version information and exit\n\
\n\
Exit status: 0 success, 64 bad option or a column not in the input,\n\
65 malformed input, 66 no input rows or a missing file, 74 write error.\n\
See bench-summarize(1).\n", stdout);
  exit (EXIT_OK);
}

/* "NUM/DEN" and "COL=LEVEL" must have both sides.  */
static void
check_pair (const char *option, const char *text, char separator, const char *shape)
{
  const char *at = strchr (text, separator);
  if (!at || at == text || !at[1])
    die (EXIT_USAGE, 0, "%s: expected %s, got '%s'", option, shape, text);
}

int
main (int argc, char **argv)
{
  options_init (argv);

  struct summarize_options options = { 0 };
  struct summary_config config = {
    .bootstrap = { .method = BOOTSTRAP_PERCENTILE, .confidence = 0.95, .resamples = 10000 },
    .ci_stat = BOOTSTRAP_MEAN,
  };
  bool seeded = false, plot = false;
  int format = -1;
  char **percentile_items = NULL;
  size_t npercentiles = 0;
  bool percentiles_given = false;

  int c;
  while ((c = getopt_long (argc, argv, "", long_options, NULL)) != -1)
    switch (c)
      {
      case OPT_BY:
        options_list_free (options.by, options.nby);
        options.nby = options_list ("--by", optarg, &options.by);
        break;
      case OPT_VALUE:
        options_list_free (options.value, options.nvalue);
        options.nvalue = options_list ("--value", optarg, &options.value);
        break;
      case OPT_RATIO:
        check_pair ("--ratio", optarg, '/', "NUM/DEN");
        options.ratio = xreallocarray (options.ratio, options.nratio + 1, sizeof *options.ratio);
        options.ratio[options.nratio++] = xstrdup (optarg);
        break;
      case OPT_COMPARE:
        check_pair ("--compare", optarg, '=', "COL=LEVEL");
        options.compare = optarg;
        break;
      case OPT_CI:
        config.bootstrap.method = options_choice ("--ci", optarg, bootstrap_method_names);
        break;
      case OPT_CI_STAT:
        config.ci_stat = options_choice ("--ci-stat", optarg, bootstrap_stat_names);
        break;
      case OPT_CONFIDENCE:
        config.bootstrap.confidence = options_double ("--confidence", optarg, 0, 1);
        if (config.bootstrap.confidence <= 0 || config.bootstrap.confidence >= 1)
          die (EXIT_USAGE, 0, "--confidence: '%s' out of range (0, 1)", optarg);
        break;
      case OPT_RESAMPLES:
        config.bootstrap.resamples = options_uint ("--resamples", optarg, 0, 100000000);
        break;
      case OPT_SEED:
        config.seed = options_uint ("--seed", optarg, 0, UINT64_MAX);
        seeded = true;
        break;
      case OPT_PERCENTILES:
        options_list_free (percentile_items, npercentiles);
        npercentiles = options_list ("--percentiles", optarg, &percentile_items);
        percentiles_given = true;
        break;
      case OPT_FORMAT:
        format = options_choice ("--format", optarg, summary_format_names);
        break;
      case OPT_PLOT:
        plot = true;
        break;
      case OPT_STRICT:
        options.strict = true;
        break;
      default:
        options_common (c, usage);
      }

  if (!percentiles_given)
    npercentiles = options_list ("--percentiles", "5,95", &percentile_items);
  double *percentiles = xcalloc (npercentiles + 1, sizeof *percentiles);
  char **labels = xcalloc (npercentiles + 1, sizeof *labels);
  for (size_t i = 0; i < npercentiles; i++)
    {
      percentiles[i] = options_double ("--percentiles", percentile_items[i], 0, 100);
      char label[48];
      snprintf (label, sizeof label, "p%g", percentiles[i]);
      labels[i] = xstrdup (label);
    }
  config.percentiles = percentiles;
  config.npercentiles = npercentiles;

  if (plot && format == SUMMARY_CSV)
    die (EXIT_USAGE, 0, "--plot: needs --format table");
  if (format < 0)
    format = plot || isatty (STDOUT_FILENO) ? SUMMARY_TABLE : SUMMARY_CSV;

  if (!seeded && config.bootstrap.resamples > 0)
    {
      config.seed = rng_entropy_seed ();
      warn (0, "seed %" PRIu64, config.seed);
    }

  struct summary_data *data = summarize_new (&options);
  if (optind == argc)
    summarize_read (data, "-");
  for (int i = optind; i < argc; i++)
    summarize_read (data, argv[i]);
  summarize_finish (data);

  size_t nrows;
  struct summary_row *rows = summarize_compute (data, &config, &nrows);
  summary_output (stdout, format, data, rows, nrows, &config, labels);
  if (plot)
    summary_output_plot (stdout, data, rows, nrows);

  summarize_free (data, rows, nrows);
  options_list_free (options.by, options.nby);
  options_list_free (options.value, options.nvalue);
  options_list_free (options.ratio, options.nratio);
  options_list_free (percentile_items, npercentiles);
  options_list_free (labels, npercentiles);
  free (percentiles);
  return EXIT_OK;
}
