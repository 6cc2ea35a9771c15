/* bench-summarize -- grouped statistics, confidence intervals and
   comparisons over benchmark CSV. */
#include "system.h"
#include "die.h"
#include "exit-statuses.h"
#include "stats.h"
#include "options.h"
#include "regression-gate.h"
#include "rng.h"
#include "summarize.h"
#include "summary-number.h"
#include "summary-output.h"
#include "summary-reduce.h"

#include <inttypes.h>
#include <math.h>
#include <unistd.h>

enum
{
  OPT_BY = OPTION_FIRST_PRIVATE, OPT_VALUE, OPT_RATIO, OPT_COMPARE, OPT_CI,
  OPT_CI_STAT, OPT_CONFIDENCE, OPT_RESAMPLES, OPT_SEED, OPT_PERCENTILES,
  OPT_FORMAT, OPT_PLOT, OPT_STRICT, OPT_BASELINE, OPT_FAIL_IF_WORSE, OPT_LOG_SCALE,
  OPT_FAMILY_WISE, OPT_RANK, OPT_PAIRED, OPT_HIGHER, OPT_LOWER,
  OPT_COLUMNS, OPT_REDUCE,
};

static const struct option long_options[] = {
  { "by", required_argument, NULL, OPT_BY },
  { "value", required_argument, NULL, OPT_VALUE },
  { "ratio", required_argument, NULL, OPT_RATIO },
  { "compare", required_argument, NULL, OPT_COMPARE },
  { "baseline", required_argument, NULL, OPT_BASELINE },
  { "fail-if-worse", required_argument, NULL, OPT_FAIL_IF_WORSE },
  { "ci", required_argument, NULL, OPT_CI },
  { "ci-stat", required_argument, NULL, OPT_CI_STAT },
  { "confidence", required_argument, NULL, OPT_CONFIDENCE },
  { "resamples", required_argument, NULL, OPT_RESAMPLES },
  { "seed", required_argument, NULL, OPT_SEED },
  { "percentiles", required_argument, NULL, OPT_PERCENTILES },
  { "format", required_argument, NULL, OPT_FORMAT },
  { "plot", no_argument, NULL, OPT_PLOT },
  { "strict", no_argument, NULL, OPT_STRICT },
  { "log-scale", no_argument, NULL, OPT_LOG_SCALE },
  { "family-wise", required_argument, NULL, OPT_FAMILY_WISE },
  { "rank", no_argument, NULL, OPT_RANK },
  { "paired", required_argument, NULL, OPT_PAIRED },
  { "higher-is-better", required_argument, NULL, OPT_HIGHER },
  { "lower-is-better", required_argument, NULL, OPT_LOWER },
  { "columns", required_argument, NULL, OPT_COLUMNS },
  { "reduce", required_argument, NULL, OPT_REDUCE },
  OPTIONS_COMMON_LONG,
  { NULL, 0, NULL, 0 },
};

static _Noreturn void
usage (void)
{
  printf ("Usage: %s [OPTION]... [FILE]...\n", program_name);
  fputs ("\
Summarize the measurement columns of benchmark CSV (with a header) per\n\
group: count, missing cells, mean, SD, standard error, min, median, max, a\n\
confidence interval, percentiles and outlier counts.  With no FILE, or\n\
FILE -, read standard input; several files with the same columns are\n\
concatenated.\n\
\n\
  --by COLS              group rows by these comma-separated columns\n\
  --value COLS           summarize these columns (default: the measurement\n\
                           columns; see bench-summarize(1))\n\
  --ratio NUM/DEN        add the per-row ratio NUM/DEN as a column, summarized\n\
                           by its geometric mean (repeatable)\n\
  --compare COL=LEVEL    compare every other level of COL with LEVEL, within\n\
                           each group: ratio of means (Fieller), difference,\n\
                           difference in percent, t, df and Welch's p\n\
  --rank                 comparisons add the Wilcoxon-Mann-Whitney rank-sum\n\
                           test (u, p_rank) and the Hodges-Lehmann shift\n\
                           with its interval (shift, shift_ci_low/high)\n\
  --paired KEY           comparisons also pair rows by column KEY (a run or\n\
                           block): the mean paired difference and the\n\
                           geometric mean of paired ratios, with t intervals\n\
  --higher-is-better COLS, --lower-is-better COLS\n\
                         which way is better for these columns, in verdicts\n\
                           (default: by unit; rates such as _per_s, gb_s,\n\
                           gbps are better higher, times such as _s, _ms, _ns\n\
                           lower; other columns read higher or lower)\n\
  --baseline FILE        compare the FILEs (candidate) with this one\n\
  --fail-if-worse COL:TOL%:higher|lower\n\
                         with --baseline, exit 1 when COL got worse than the\n\
                           baseline by more than TOL% at the confidence level\n\
                           (repeatable); a column named here is summarized\n\
  --family-wise none|holm  with --fail-if-worse: holm keeps the chance that any\n\
                           unchanged benchmark fails at (1-C)/2 (default none)\n\
  --ci METHOD            auto, t, boot-t, percentile, bca or order (default\n\
                           auto: t for a mean, order statistics for the\n\
                           median); the bootstrap methods need 10 values\n\
  --ci-stat STAT         auto, mean, median or gmean (default auto: the mean,\n\
                           the geometric mean of --ratio columns)\n\
  --log-scale            values must be > 0; the mean's t and boot-t intervals\n\
                           are found on the log scale (log-t, log-boot-t),\n\
                           so they stay positive (for rates and times)\n\
  --confidence C         confidence level in (0, 1) (default 0.95)\n\
  --resamples B          bootstrap resamples (default 10000; 0: no bootstrap)\n\
  --seed N               seed of the resampling (default: random, reported)\n\
  --percentiles LIST     percentile columns, 0 to 100 (default 5,95)\n\
  --format FORMAT        csv, table, json or markdown (default: table on a\n\
                           terminal, else csv)\n\
  --columns COLS         output only these columns, in this order (group\n\
                           columns too: e.g. arm,column,n,mean,ci_low,ci_high)\n\
  --plot                 add a ministat-style plot per column (table format)\n\
  --strict               missing, infinite and text cells are errors\n\
  --reduce RULE          per-rank rows (a 'rank' column) to one value per\n\
                           group and --value column: sum, min, mean, max or\n\
                           slowest (a rate: the slowest rank's x ranks; a\n\
                           time: the slowest rank's), beside every rank's\n\
                           line and the rank that set it\n"
         OPTIONS_HELP_DESCRIPTION "\
\n\
", stdout);
  exit_statuses_put_help (stdout, "bench-summarize");
  puts ("See bench-summarize(1).");
  exit (EXIT_OK);
}

/* "NUM/DEN" and "COL=LEVEL" must have both sides.  */
static void
check_pair (const char *option, const char *text, char separator, const char *shape)
{
  const char *at = strchr (text, separator);
  if (!at || at == text || !at[1])
    die (EXIT_USAGE, 0, "%s: expected %s, got %s", option, shape, quote (text));
}

/* --reduce: its own output (summary-reduce.h); the statistics' options
   (OTHERS) do not apply.  */
static int
reduce_main (int rule, struct summarize_options *options, int format, bool others,
             char **paths, size_t npaths)
{
  if (others || options->nratio || options->compare || options->baseline || options->paired
      || options->strict || options->log_scale || (format >= 0 && format != SUMMARY_CSV
                                                    && format != SUMMARY_TABLE))
    die (EXIT_USAGE, 0, "--reduce: takes --by, --value, --higher-is-better, "
         "--lower-is-better and --format csv or table only");
  struct summary_reduce_options o = {
    .rule = rule, .by = options->by, .nby = options->nby,
    .value = options->value, .nvalue = options->nvalue,
    .higher = options->higher, .nhigher = options->nhigher,
    .lower = options->lower, .nlower = options->nlower,
    .table = format < 0 ? isatty (STDOUT_FILENO) : format == SUMMARY_TABLE,
  };
  int status = summary_reduce_run (stdout, &o, paths, npaths);
  options_list_free (options->by, options->nby);
  options_list_free (options->value, options->nvalue);
  options_list_free (options->higher, options->nhigher);
  options_list_free (options->lower, options->nlower);
  return status;
}

int
main (int argc, char **argv)
{
  options_init (argv);

  struct summarize_options options = { 0 };
  struct summary_config config = {
    .method = CI_AUTO, .stat = CI_STAT_AUTO, .confidence = 0.95, .resamples = 10000,
  };
  bool seeded = false, plot = false;
  int format = -1;
  char **percentile_items = NULL;
  size_t npercentiles = 0;
  bool percentiles_given = false;
  struct gate *gates = NULL;
  size_t ngates = 0;
  enum gate_family family = GATE_FAMILY_NONE;
  int reduce = -1;

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
      case OPT_BASELINE:
        options.baseline = optarg;
        break;
      case OPT_FAIL_IF_WORSE:
        gates = xreallocarray (gates, ngates + 1, sizeof *gates);
        gates[ngates++] = gate_parse ("--fail-if-worse", optarg);
        options.named = xreallocarray (options.named, ngates, sizeof *options.named);
        options.named[ngates - 1] = gates[ngates - 1].column;
        options.nnamed = ngates;
        break;
      case OPT_CI:
        config.method = options_choice ("--ci", optarg, ci_method_names);
        break;
      case OPT_CI_STAT:
        config.stat = options_choice ("--ci-stat", optarg, ci_stat_names);
        break;
      case OPT_CONFIDENCE:
        config.confidence = options_double ("--confidence", optarg, 0, 1);
        if (config.confidence <= 0 || config.confidence >= 1)
          die (EXIT_USAGE, 0, "--confidence: %s out of range (0, 1)", quote (optarg));
        break;
      case OPT_RESAMPLES:
        config.resamples = options_uint ("--resamples", optarg, 0, 100000000);
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
      case OPT_PAIRED:
        options.paired = optarg;
        break;
      case OPT_RANK:
        config.rank = true;
        break;
      case OPT_HIGHER:
        options_list_free (options.higher, options.nhigher);
        options.nhigher = options_list ("--higher-is-better", optarg, &options.higher);
        break;
      case OPT_COLUMNS:
        options_list_free (config.columns, config.ncolumns);
        config.ncolumns = options_list ("--columns", optarg, &config.columns);
        break;
      case OPT_LOWER:
        options_list_free (options.lower, options.nlower);
        options.nlower = options_list ("--lower-is-better", optarg, &options.lower);
        break;
      case OPT_FAMILY_WISE:
        family = options_choice ("--family-wise", optarg, gate_family_names);
        break;
      case OPT_REDUCE:
        reduce = options_choice ("--reduce", optarg, summary_reduce_names);
        break;
      case OPT_LOG_SCALE:
        options.log_scale = config.log_scale = true;
        break;
      default:
        options_common (c, usage);
      }

  if (reduce >= 0)
    return reduce_main (reduce, &options, format, plot || ngates || config.columns
                        || percentiles_given || family != GATE_FAMILY_NONE
                        || config.rank, argv + optind, (size_t) (argc - optind));

  if (!percentiles_given)
    npercentiles = options_list ("--percentiles", "5,95", &percentile_items);
  double *percentiles = xcalloc (npercentiles + 1, sizeof *percentiles);
  /* Static as config is: what an exit in the checks below leaves is
     still reachable, not a leak to LeakSanitizer.  */
  static char **labels;
  labels = xcalloc (npercentiles + 1, sizeof *labels);
  for (size_t i = 0; i < npercentiles; i++)
    {
      percentiles[i] = options_double ("--percentiles", percentile_items[i], 0, 100);
      /* Named exactly (99.99995 is not p100), and once each.  */
      for (size_t j = 0; j < i; j++)
        if (percentiles[j] == percentiles[i])
          die (EXIT_USAGE, 0, "--percentiles: %s and %s are one percentile: one column "
               "each", quote (percentile_items[j]), quote (percentile_items[i]));
      char label[48] = "p";
      summary_number_shortest (percentiles[i], label + 1, sizeof label - 1);
      labels[i] = xstrdup (label);
    }
  config.percentiles = percentiles;
  config.npercentiles = npercentiles;

  /* Methods and statistics that do not go together.  */
  bool median = config.stat == CI_STAT_MEDIAN;
  if (median && (config.method == CI_T || config.method == CI_BOOT_T))
    die (EXIT_USAGE, 0, "--ci %s: is for a mean; the median's intervals are order, "
         "percentile and bca", ci_method_names[config.method]);
  if (config.method == CI_ORDER && config.stat != CI_STAT_AUTO && !median)
    die (EXIT_USAGE, 0, "--ci order: is for the median (--ci-stat median)");
  /* auto may take boot-t for a mean.  */
  bool bootstrap = summary_ci_resamples (config.method) || (config.method == CI_AUTO && !median);
  /* A tail quantile needs some resamples beyond it to mean anything.  */
  double need = ceil (20 / stats_alpha (config.confidence) - 1e-9);
  if (bootstrap && config.resamples > 0 && (double) config.resamples < need)
    die (EXIT_USAGE, 0, "--resamples: %zu are too few for a %g%% interval (at least %.0f, "
         "or 0 for none)", config.resamples, 100 * config.confidence, need);
  if (bootstrap && config.resamples == 0 && config.method != CI_AUTO)
    die (EXIT_USAGE, 0, "--ci %s: needs --resamples above 0", ci_method_names[config.method]);

  if (options.baseline && options.compare)
    die (EXIT_USAGE, 0, "--baseline: compares with the baseline file; not with --compare");
  if (config.rank && !options.baseline && !options.compare)
    die (EXIT_USAGE, 0, "--rank: needs --compare or --baseline");
  if (options.paired && !options.baseline && !options.compare)
    die (EXIT_USAGE, 0, "--paired: needs --compare or --baseline");
  if (ngates && !options.baseline)
    die (EXIT_USAGE, 0, "--fail-if-worse: needs --baseline");
  if (plot && format >= 0 && format != SUMMARY_TABLE)
    die (EXIT_USAGE, 0, "--plot: needs --format table");
  if (format < 0)
    format = plot || isatty (STDOUT_FILENO) ? SUMMARY_TABLE : SUMMARY_CSV;
  config.progress = isatty (STDERR_FILENO);

  if (!seeded && bootstrap && config.resamples > 0)
    config.seed = rng_entropy_seed ();

  struct summary_data *data = summarize_new (&options);
  summarize_read_all (data, argv + optind, (size_t) (argc - optind));
  summarize_finish (data);
  gate_require (gates, ngates, data);

  size_t nrows;
  struct summary_row *rows = summarize_compute (data, &config, &nrows);
  /* A drawn seed is worth reporting only where something drew from it.  */
  bool drew = false;
  for (size_t r = 0; r < nrows; r++)
    drew |= rows[r].seeded && !rows[r].ci_why;
  if (!seeded && drew)
    warn (0, "seed %" PRIu64, config.seed);
  summary_output (stdout, format, data, rows, nrows, &config, labels);
  if (plot)
    summary_output_plot (stdout, data, rows, nrows);
  int status = EXIT_OK;
  if (ngates)
    {
      /* The output first, so a failed gate still shows its numbers.  */
      fflush (stdout);
      status = gate_check (gates, ngates, data, rows, nrows, config.confidence, family,
                           seeded ? config.seed : 0);
    }

  summarize_free (data, rows, nrows);
  for (size_t i = 0; i < ngates; i++)
    free (gates[i].column);
  free (gates);
  free (options.named);
  options_list_free (options.by, options.nby);
  options_list_free (options.value, options.nvalue);
  options_list_free (options.ratio, options.nratio);
  options_list_free (options.higher, options.nhigher);
  options_list_free (config.columns, config.ncolumns);
  options_list_free (options.lower, options.nlower);
  options_list_free (percentile_items, npercentiles);
  options_list_free (labels, npercentiles);
  free (percentiles);
  return status;
}
