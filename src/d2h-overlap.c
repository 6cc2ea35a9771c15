/* d2h-overlap -- device-to-host copies from a background thread overlapping
   foreground CUDA compute: one CSV row per timed block and method.  */
#include "system.h"
#include "close-stdout.h"
#include "csv-writer.h"
#include "die.h"
#include "exit-statuses.h"
#include "gpu.h"
#include "machine.h"
#include "options.h"
#include "overlap.h"
#include "rng.h"

#include <math.h>

enum
{
  OPT_DEVICE = OPTION_FIRST_PRIVATE,
  OPT_TOTAL_MIB,
  OPT_NUM_TENSORS,
  OPT_MATRIX_SIZE,
  OPT_COMPUTE_MS,
  OPT_COMPUTE_ITERATIONS,
  OPT_WARMUP,
  OPT_RUNS,
  OPT_METHODS,
  OPT_SEED
};

static const struct option long_options[] = {
  { "device", required_argument, NULL, OPT_DEVICE },
  { "total-mib", required_argument, NULL, OPT_TOTAL_MIB },
  { "num-tensors", required_argument, NULL, OPT_NUM_TENSORS },
  { "matrix-size", required_argument, NULL, OPT_MATRIX_SIZE },
  { "compute-ms", required_argument, NULL, OPT_COMPUTE_MS },
  { "compute-iterations", required_argument, NULL, OPT_COMPUTE_ITERATIONS },
  { "warmup", required_argument, NULL, OPT_WARMUP },
  { "runs", required_argument, NULL, OPT_RUNS },
  { "methods", required_argument, NULL, OPT_METHODS },
  { "seed", required_argument, NULL, OPT_SEED },
  OPTIONS_COMMON_LONG,
  { NULL, 0, NULL, 0 }
};

static const char *const case_names[OVERLAP_CASES] = {
  "compute", "transfer", "serialized", "concurrent"
};

#define MATRIX_TILE 64
#define RAW_REPEATS 20

struct config
{
  int device;               /* -1: the launcher's local rank, else 0 */
  uint64_t *total_mib;
  size_t ntotals;
  uint64_t *num_tensors;
  size_t ncounts;
  unsigned matrix_size;
  double compute_ms;
  unsigned compute_iterations;   /* 0: calibrate to compute_ms */
  unsigned warmup, runs;
  int methods[OVERLAP_METHODS];
  size_t nmethods;
  uint64_t seed;
};

/* What every row repeats about the run and the machine.  */
struct receipt
{
  struct gpu_info gpu;
  struct machine_info host;
  unsigned iterations;
};

static _Noreturn void
usage (void)
{
  printf ("Usage: %s [OPTION]...\n", program_name);
  fputs ("\
Measure how much of a device-to-host copy, issued from a background thread\n\
on its own stream, hides behind foreground CUDA compute (a tiled SGEMM) on\n\
one GPU.  Each timed block runs compute-only and, per method, transfer-only,\n\
serialized and concurrent cases in a random order; one CSV row per block\n\
and method goes to standard output.\n\
\n\
      --device N              GPU to use (default: the launcher's local rank\n\
                                modulo the GPUs visible, else 0)\n\
      --total-mib LIST        payload sizes in MiB, comma-separated\n\
                                (default: 64)\n\
      --num-tensors LIST      tensors each payload is split into\n\
                                (default: 1,32,256)\n\
      --matrix-size N         SGEMM order, a multiple of 64 (default: 2048)\n\
      --compute-ms MS         calibrate the SGEMM repetitions to about MS\n\
                                milliseconds (default: 8)\n\
      --compute-iterations N  run N SGEMMs per compute step; no calibration\n\
      --warmup N              untimed blocks per case before timing (default: 5)\n\
      --runs N                timed blocks per case (default: 30)\n\
      --methods LIST          transfer methods: direct, batched, pageable,\n\
                                gather (default: direct,batched,pageable)\n\
      --seed N                seed of the data and the schedules (default: drawn\n\
                                from the system; every row records it)\n", stdout);
  fputs (OPTIONS_HELP_DESCRIPTION, stdout);
  fputs ("\n\
", stdout);
  exit_statuses_put_help (stdout, "d2h-overlap");
  exit (EXIT_OK);
}

/* A comma list of numbers in [MIN, MAX].  */
static size_t
parse_uint_list (const char *option, const char *text, uint64_t min, uint64_t max,
                 uint64_t **values)
{
  char **items;
  size_t count = options_list (option, text, &items);
  uint64_t *v = xreallocarray (NULL, count, sizeof *v);
  for (size_t i = 0; i < count; i++)
    v[i] = options_uint (option, items[i], min, max);
  options_list_free (items, count);
  free (*values);
  *values = v;
  return count;
}

static size_t
parse_methods (const char *text, int *methods)
{
  char **items;
  size_t count = options_list ("--methods", text, &items);
  bool seen[OVERLAP_METHODS] = { false };
  for (size_t i = 0; i < count; i++)
    {
      int m = options_choice ("--methods", items[i], overlap_method_names);
      if (seen[m])
        die (EXIT_USAGE, 0, "--methods: %s given twice", quote (items[i]));
      seen[m] = true;
      methods[i] = m;
    }
  options_list_free (items, count);
  return count;
}

static void
parse_options (int argc, char **argv, struct config *cfg)
{
  *cfg = (struct config) {
    .device = -1, .matrix_size = 2048, .compute_ms = 8, .warmup = 5, .runs = 30,
  };
  cfg->ntotals = parse_uint_list ("--total-mib", "64", 1, 16384, &cfg->total_mib);
  cfg->ncounts = parse_uint_list ("--num-tensors", "1,32,256", 1, 65536,
                                  &cfg->num_tensors);
  cfg->nmethods = parse_methods ("direct,batched,pageable", cfg->methods);
  bool seeded = false;

  int c;
  while ((c = getopt_long (argc, argv, "", long_options, NULL)) != -1)
    switch (c)
      {
      case OPT_DEVICE:
        cfg->device = (int) options_uint ("--device", optarg, 0, GPU_DEVICE_MAX);
        break;
      case OPT_TOTAL_MIB:
        cfg->ntotals = parse_uint_list ("--total-mib", optarg, 1, 16384, &cfg->total_mib);
        break;
      case OPT_NUM_TENSORS:
        cfg->ncounts = parse_uint_list ("--num-tensors", optarg, 1, 65536,
                                        &cfg->num_tensors);
        break;
      case OPT_MATRIX_SIZE:
        cfg->matrix_size = (unsigned) options_uint ("--matrix-size", optarg,
                                                    MATRIX_TILE, 16384);
        if (cfg->matrix_size % MATRIX_TILE)
          die (EXIT_USAGE, 0, "--matrix-size: %s is not a multiple of %d",
               quote (optarg), MATRIX_TILE);
        break;
      case OPT_COMPUTE_MS:
        cfg->compute_ms = options_double ("--compute-ms", optarg, 0.01, 60000);
        break;
      case OPT_COMPUTE_ITERATIONS:
        cfg->compute_iterations = (unsigned) options_uint ("--compute-iterations",
                                                           optarg, 1, 100000);
        break;
      case OPT_WARMUP:
        cfg->warmup = (unsigned) options_uint ("--warmup", optarg, 0, 100000);
        break;
      case OPT_RUNS:
        cfg->runs = (unsigned) options_uint ("--runs", optarg, 1, 100000);
        break;
      case OPT_METHODS:
        cfg->nmethods = parse_methods (optarg, cfg->methods);
        break;
      case OPT_SEED:
        cfg->seed = options_uint ("--seed", optarg, 0, UINT64_MAX);
        seeded = true;
        break;
      default:
        options_common (c, usage);
      }
  options_no_operands (argc, argv);
  if (!seeded)
    cfg->seed = rng_entropy_seed ();
}

static void
schedule_label (const struct overlap_block *block, char *buf, size_t size)
{
  size_t used = 0;
  buf[0] = '\0';
  for (size_t i = 0; i < block->nsteps && used < size; i++)
    {
      const struct overlap_step *s = &block->steps[i];
      int n = s->method < 0
        ? snprintf (buf + used, size - used, "%s%s", i ? "|" : "", case_names[s->what])
        : snprintf (buf + used, size - used, "%s%s:%s", i ? "|" : "",
                    overlap_method_names[s->method], case_names[s->what]);
      if (n < 0)
        break;
      used += (size_t) n;
    }
}

/* One row: a timed block's figures for one method.  */
struct row
{
  const struct config *cfg;
  const struct receipt *r;
  unsigned trial;
  const char *order;
  int method;
  const struct overlap_times *t;
  double compute_ms;
  uint64_t total_bytes, num_tensors;
  double raw_gbps;
};

#define ROW(p) ((const struct row *) (p))
#define COUNT(name, expr) \
  static void put_##name (struct csv_line *line, const void *p) \
  { const struct row *w = p; csv_line_u64 (line, (expr)); }
#define FIXED(name, decimals, expr) \
  static void put_##name (struct csv_line *line, const void *p) \
  { const struct row *w = p; csv_line_fixed (line, (expr), decimals); }
#define STR(name, expr) \
  static void put_##name (struct csv_line *line, const void *p) \
  { const struct row *w = p; csv_line_str (line, (expr)); }

/* The most a perfect overlap could save is the shorter of the two.  */
static double
potential_ms (const struct row *w)
{
  return fmin (w->compute_ms, w->t->transfer_ms);
}

COUNT (trial, w->trial)
STR (schedule_order, w->order)
STR (method, overlap_method_names[w->method])
COUNT (total_bytes, w->total_bytes)
COUNT (num_tensors, w->num_tensors)
FIXED (compute_only_ms, 4, w->compute_ms)
FIXED (transfer_only_ms, 4, w->t->transfer_ms)
FIXED (serialized_ms, 4, w->t->serialized_ms)
FIXED (concurrent_ms, 4, w->t->concurrent_ms)
FIXED (speedup, 4, w->t->serialized_ms / w->t->concurrent_ms)
FIXED (hidden_ms, 4, w->t->serialized_ms - w->t->concurrent_ms)
FIXED (overlap_efficiency, 4, potential_ms (w) > 0
       ? (w->t->serialized_ms - w->t->concurrent_ms) / potential_ms (w) : 0)
FIXED (cpu_launch_skew_ms, 4, w->t->launch_skew_ms)
FIXED (transfer_gbps, 2, (double) w->total_bytes / (w->t->transfer_ms * 1e6))
FIXED (raw_pinned_gbps, 2, w->raw_gbps)
COUNT (compute_iterations, w->r->iterations)
COUNT (matrix_size, w->cfg->matrix_size)
COUNT (seed, w->cfg->seed)
STR (gpu, w->r->gpu.name)
STR (compute_capability, w->r->gpu.capability)
STR (driver, w->r->gpu.driver)
STR (cuda, w->r->gpu.runtime_cuda)
STR (cuda_driver, w->r->gpu.driver_cuda)
STR (pcie, w->r->gpu.pcie)
STR (cpu, w->r->host.cpu)
STR (arenabench, w->r->host.version)

/* Calibrated runs record their target; fixed iteration counts have none. */
static void
put_compute_target_ms (struct csv_line *line, const void *p)
{
  if (ROW (p)->cfg->compute_iterations)
    csv_line_empty (line);
  else
    csv_line_double (line, ROW (p)->cfg->compute_ms);
}

#define COLUMN(name) { #name, put_##name }
static const struct csv_column columns[] = {
  COLUMN (trial), COLUMN (schedule_order), COLUMN (method), COLUMN (total_bytes),
  COLUMN (num_tensors), COLUMN (compute_only_ms), COLUMN (transfer_only_ms),
  COLUMN (serialized_ms), COLUMN (concurrent_ms), COLUMN (speedup), COLUMN (hidden_ms),
  COLUMN (overlap_efficiency), COLUMN (cpu_launch_skew_ms), COLUMN (transfer_gbps),
  COLUMN (raw_pinned_gbps), COLUMN (compute_iterations), COLUMN (matrix_size),
  COLUMN (compute_target_ms), COLUMN (seed), COLUMN (gpu), COLUMN (compute_capability),
  COLUMN (driver), COLUMN (cuda), COLUMN (cuda_driver), COLUMN (pcie), COLUMN (cpu),
  COLUMN (arenabench),
  { NULL, NULL }
};

static void
put_rows (struct csv_line *line, const struct config *cfg, const struct receipt *r,
          unsigned trial, const struct overlap_block *block, uint64_t total_bytes,
          uint64_t num_tensors, double raw_gbps)
{
  char order[1024];
  schedule_label (block, order, sizeof order);
  for (size_t m = 0; m < cfg->nmethods; m++)
    {
      struct row w = {
        .cfg = cfg, .r = r, .trial = trial, .order = order, .method = cfg->methods[m],
        .t = &block->times[cfg->methods[m]], .compute_ms = block->compute_ms,
        .total_bytes = total_bytes, .num_tensors = num_tensors, .raw_gbps = raw_gbps,
      };
      csv_columns_row (line, columns, &w);
      csv_line_put (line, stdout);
    }
}

/* One payload size and tensor count: load, validate, warm up, time.  */
static void
run_case (struct overlap *ov, const struct config *cfg, const struct receipt *r,
          struct csv_line *line, uint64_t total_bytes, uint64_t num_tensors,
          double raw_gbps, struct rng *rng)
{
  overlap_load (ov, total_bytes, num_tensors, rng_next (rng));
  for (size_t m = 0; m < cfg->nmethods; m++)
    overlap_validate (ov, cfg->methods[m]);

  struct overlap_block block;
  for (unsigned w = 0; w < cfg->warmup; w++)
    overlap_run_block (ov, cfg->methods, cfg->nmethods, rng_next (rng), &block);
  for (unsigned trial = 0; trial < cfg->runs; trial++)
    {
      overlap_run_block (ov, cfg->methods, cfg->nmethods, rng_next (rng), &block);
      put_rows (line, cfg, r, trial, &block, total_bytes, num_tensors, raw_gbps);
    }

  /* Whatever the timed blocks did, the bytes must still arrive intact.  */
  for (size_t m = 0; m < cfg->nmethods; m++)
    overlap_validate (ov, cfg->methods[m]);
  flush_stdout ();
}

int
main (int argc, char **argv)
{
  options_init (argv);

  struct config cfg;
  parse_options (argc, argv, &cfg);

  gpu_require ();
  int device = cfg.device >= 0 ? cfg.device : gpu_default_device ();
  struct overlap *ov = overlap_open (device, cfg.matrix_size, cfg.seed);

  struct receipt r;
  if (cfg.compute_iterations)
    overlap_set_iterations (ov, cfg.compute_iterations);
  r.iterations = cfg.compute_iterations
    ? cfg.compute_iterations : overlap_calibrate (ov, cfg.compute_ms);
  overlap_check_compute (ov);
  machine_describe (&r.host);

  struct csv_line line = { 0 };
  csv_columns_header (&line, columns);
  csv_line_put (&line, stdout);

  /* Cases in a random order too, so drift over the run favours none.  */
  size_t ncases = cfg.ntotals * cfg.ncounts;
  size_t *order = xcalloc (ncases, sizeof *order);
  struct rng rng;
  rng_seed (&rng, cfg.seed);
  for (size_t i = 0; i < ncases; i++)
    order[i] = i;
  for (size_t i = ncases - 1; i > 0; i--)
    {
      size_t j = rng_below (&rng, i + 1), tmp = order[i];
      order[i] = order[j];
      order[j] = tmp;
    }

  double *raw = xcalloc (cfg.ntotals, sizeof *raw);
  for (size_t k = 0; k < ncases; k++)
    {
      size_t ti = order[k] / cfg.ncounts, ci = order[k] % cfg.ncounts;
      uint64_t total_bytes = cfg.total_mib[ti] << 20;
      if (raw[ti] == 0)
        raw[ti] = gpu_raw_copy_gbps (GPU_DEVICE_TO_HOST, GPU_HOST_PINNED, total_bytes, RAW_REPEATS);
      /* After copies have run, so an idle link has trained up to speed.  */
      gpu_describe (device, &r.gpu);
      run_case (ov, &cfg, &r, &line, total_bytes, cfg.num_tensors[ci], raw[ti], &rng);
    }

  overlap_close (ov);
  csv_line_free (&line);
  free (raw);
  free (order);
  free (cfg.total_mib);
  free (cfg.num_tensors);
  return EXIT_OK;
}
