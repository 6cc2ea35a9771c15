/* h2d-check -- the GPU consumer: copy every item the handle rows name from
   its arena to the GPU, release its space as soon as the copy is done,
   check every element on the GPU, print receipts. */
#include "system.h"
#include "arena.h"
#include "ceiling.h"
#include "clock.h"
#include "consumer.h"
#include "consumer-report.h"
#include "copy-choice.h"
#include "copy-idle.h"
#include "die.h"
#include "exit-statuses.h"
#include "gpu.h"
#include "h2d-pipeline.h"
#include "launcher.h"
#include "machine.h"
#include "options.h"

#include <inttypes.h>
#include <math.h>
#include <stdatomic.h>
#include <unistd.h>

/* Copies per --calibrate figure, after gpu_raw_copy_gbps's warm-up.  */
#define CALIBRATE_REPEATS 31

/* The ceiling row's warm-up and measured time, as the reference probe
   runs it (a second holds about six thousand 8 MiB copies).  */
#define CEILING_WARMUP_S 0.25
#define CEILING_SECONDS 1.0

/* --copy-path's choices: auto, then the pipeline's paths in their order. */
static const char *const copy_path_choices[] = { "auto", "engine", "batch", "sm", NULL };
#define COPY_AUTO (-1)

enum
{
  OPT_DEVICE = CONSUMER_OPT_FIRST_PRIVATE, OPT_INFLIGHT, OPT_COPY_STREAMS, OPT_CALIBRATE,
  OPT_STAGED, OPT_STAGING_THREADS, OPT_COPY_PATH, OPT_COPY_SMS,
};

static const struct option long_options[] = {
  { "device", required_argument, NULL, OPT_DEVICE },
  { "inflight", required_argument, NULL, OPT_INFLIGHT },
  { "copy-streams", required_argument, NULL, OPT_COPY_STREAMS },
  { "staged", no_argument, NULL, OPT_STAGED },
  { "staging-threads", required_argument, NULL, OPT_STAGING_THREADS },
  { "copy-path", required_argument, NULL, OPT_COPY_PATH },
  { "copy-sms", required_argument, NULL, OPT_COPY_SMS },
  CONSUMER_LONG_OPTIONS,
  { "calibrate", no_argument, NULL, OPT_CALIBRATE },
  OPTIONS_COMMON_LONG,
  { NULL, 0, NULL, 0 },
};

static _Noreturn void
usage (void)
{
  printf ("Usage: %s [OPTION]... < HANDLE-ROWS\n", program_name);
  fputs ("\
Read arena-produce's handle rows on stdin, copy every item to the GPU,\n\
release its arena space once the copy is done, check every element (and\n\
that the padding between leaves is zero) on the GPU, and print CSV receipts.\n\
\n\
  --device N            CUDA device (default: the launcher's local rank modulo\n\
                        the devices visible, else 0)\n\
  --inflight K          buffers in flight, each one item or a batch of small\n\
                        ones: copies of later batches overlap the checks of\n\
                        earlier ones (default 4)\n\
  --copy-streams N      streams the copies take turns on, 1 to 4 (default 2)\n\
  --staged              copy as pin_memory loaders do: the arena stays\n\
                        pageable (even if marked for pinning), threads copy\n\
                        items into page-locked staging buffers, and those go\n\
                        to the GPU; the arm is BACKEND-staged\n\
  --staging-threads N   threads that copy into the staging buffers, 1 to 64\n\
                        (default 1; implies --staged)\n\
  --copy-path P         how items reach the GPU: engine (a cudaMemcpyAsync per\n\
                        run of items; the default), batch (a batch's runs in\n\
                        one cudaMemcpyBatchAsync), sm (a kernel on --copy-sms\n\
                        SMs reads page-locked arenas in place, checking as it\n\
                        copies), or auto (the one measured fastest for the\n\
                        run's item size when its first row arrives)\n\
  --copy-sms N          blocks, at most one SM's worth each, of the sm path\n\
                        (default 8)\n", stdout);
  fputs (CONSUMER_OPTIONS_HELP, stdout);
  fputs ("\
  --calibrate           after the run, add rows with the raw copy bandwidth\n\
                        of one item from pinned memory, malloc'd memory and\n\
                        pageable shared memory, and two ceiling rows: the\n\
                        run's producers as threads filling page-locked\n\
                        slots while the copy engine drains them, in one\n\
                        process (1.25 s each; implies --report run)\n\
  --no-verify           copy items without checking their values\n\
", stdout);
  fputs (OPTIONS_HELP_DESCRIPTION, stdout);
  fputs ("\
\n\
", stdout);
  exit_statuses_put_help (stdout, "h2d-check");
  puts ("See h2d-check(1) and arenabench(7).");
  exit (EXIT_OK);
}

/* An item between its submission and its retirement.  RELEASE_WHY is set
   by the release callback, which runs on a CUDA thread and so must not
   die; the main thread reports it.  */
struct flight
{
  struct consumer_item item;
  const char *_Atomic release_why;
  /* For the idle accounting: its producer's previous row, and how long
     the consumer waited for a buffer before submitting it.  */
  uint64_t previous_row_ns;
  uint64_t blocked_from_ns, blocked_to_ns;
  enum copy_idle_cause blocked_on;
};

struct gpu_sink
{
  struct h2d_pipeline *pipe;
  int device;
  bool verify;
  unsigned staging_threads;     /* 0: not staged */
  bool copy_path_auto;          /* --copy-path auto chose COPY_PATH */
  int copy_path;                /* enum h2d_copy_path, or COPY_AUTO */
  unsigned copy_sms;
  bool copy_sms_given;
  /* --copy-path auto: the rates it measured (NaN: not measured).  */
  double auto_gbps[H2D_COPY_PATHS];
  struct flight *flights;       /* a ring in submission order */
  unsigned nflights, next;

  /* The measured items, for the run report.  */
  struct run_config config;
  bool have_config;
  uint64_t item_bytes;
  uint64_t items, bytes, wait_ns, h2d_ns, verify_ns;
  struct copy_idle idle;
  uint64_t *last_row_ns;        /* per worker: its latest row read */
  uint32_t workers;
  /* Why the latest wait for a buffer lasted: the retired batch's check
     or its release, whichever ended last.  */
  enum copy_idle_cause last_wait_cause;
  struct gpu_info gpu;
  struct machine_info host;
};

static bool
gpu_pin (void *context, struct arena *arena, uint64_t *pin_ns, char *why, size_t why_size)
{
  struct gpu_sink *sink = context;
  char cuda_why[200];
  uint64_t start = clock_now_ns ();
  bool ok = h2d_pipeline_register (sink->pipe, arena->base, arena->map_bytes, cuda_why,
                                   sizeof cuda_why);
  *pin_ns = ok ? clock_now_ns () - start : 0;
  if (!ok)
    snprintf (why, why_size, "cudaHostRegister: %s", cuda_why);
  return ok;
}

static void
gpu_unpin (void *context, struct arena *arena)
{
  struct gpu_sink *sink = context;
  h2d_pipeline_unregister (sink->pipe, arena->base);
}

/* Runs on a CUDA thread once the item's bytes are on the device, where
   dying is not allowed: a refusal waits for finish (see struct flight).  */
static void
release_copied (void *arg)
{
  struct flight *f = arg;
  const char *why;
  if (!consumer_try_release (&f->item, &why))
    atomic_store (&f->release_why, why);
}

static void
finish (struct gpu_sink *sink, struct consumer *consumer, const struct h2d_outcome *out)
{
  struct flight *f = out->token;
  const struct consumer_item *item = &f->item;
  const char *why = atomic_load (&f->release_why);
  if (why)
    consumer_release_failed (item, why);
  if (item->measured)
    {
      sink->items++;
      sink->bytes += item->row.handle.bytes;
      sink->wait_ns += item->wait_ns;
      sink->h2d_ns += out->h2d_ns;
      sink->verify_ns += out->verify_ns;
    }
  if (out->first_of_batch)
    {
      struct copy_idle_batch b = {
        .copy_start_ns = out->copy_start_ns, .copy_end_ns = out->copy_end_ns,
        .submit_ns = out->submit_ns, .fill_start_ns = item->row.fill_start_ns,
        .row_ns = item->row.row_ns, .read_ns = item->arrive_ns,
        .previous_row_ns = f->previous_row_ns, .blocked_from_ns = f->blocked_from_ns,
        .blocked_to_ns = f->blocked_to_ns, .blocked_on = f->blocked_on,
      };
      copy_idle_add (&sink->idle, &b, item->measured);
    }
  sink->last_wait_cause = out->release_ns > out->check_end_ns ? IDLE_RELEASE : IDLE_CHECK;
  struct consumer_result result = {
    .check = out->check, .verify_ns = out->verify_ns, .done_ns = out->done_ns, .extra = out,
  };
  if (consumer_tracing (consumer))
    {
      result.stages.copy_stream = (int) out->copy_stream;
      result.stages.at[TRACE_SUBMIT] = out->submit_ns;
      result.stages.at[TRACE_COPY_START] = out->copy_start_ns;
      result.stages.at[TRACE_COPY_END] = out->copy_end_ns;
      result.stages.at[TRACE_CHECK_START] = out->check_start_ns;
      result.stages.at[TRACE_CHECK_END] = out->check_end_ns;
      result.stages.at[TRACE_RELEASE] = out->release_ns;
    }
  consumer_complete (consumer, item, &result);
}

static bool
retire_one (struct gpu_sink *sink, struct consumer *consumer, bool wait)
{
  struct h2d_outcome out;
  if (!h2d_pipeline_retire (sink->pipe, wait, &out))
    return false;
  finish (sink, consumer, &out);
  return true;
}

/* --copy-path auto, at the first row: time every path on items of its
   size (COPY_CHOICE_ROUNDS rounds, the paths in turn, each at least
   COPY_CHOICE_ROUND_S) and take the one copy_choice_decide picks from
   the medians; batch and sm only when its arena is page-locked (a
   pageable arena's batches go by the engine on every path).  Items too
   large to gain anything from it go by the engine untimed.  One line on
   stderr says what was measured and chosen.  ARENABENCH_AUTO_RATES
   ("ENGINE,BATCH,SM" GB/s) replaces the measurement by that one round:
   a test's way to force the choice.  */
static void
choose_copy_path (struct gpu_sink *sink, const struct consumer_item *item)
{
  int best = H2D_COPY_ENGINE;
  if (item->row.layout.bytes <= H2D_CALIBRATE_MAX_BYTES)
    {
      double gbps[COPY_CHOICE_ROUNDS * H2D_COPY_PATHS];
      size_t rounds = COPY_CHOICE_ROUNDS;
      const char *forced = getenv ("ARENABENCH_AUTO_RATES");
      if (forced)
        {
          if (!copy_choice_parse_rates (forced, H2D_COPY_PATHS, gbps))
            die (EXIT_USAGE, 0, "ARENABENCH_AUTO_RATES: %s is not %d rates in GB/s "
                 "(engine,batch,sm)", quote (forced), H2D_COPY_PATHS);
          rounds = 1;
        }
      else
        h2d_pipeline_calibrate (sink->pipe, &item->row.layout, sink->workers, sink->copy_sms,
                                COPY_CHOICE_ROUND_S, COPY_CHOICE_ROUNDS, gbps);
      /* Given rates may name a path this runtime lacks: never take it.  */
      bool eligible[H2D_COPY_PATHS];
      char why[200];
      for (int p = 0; p < H2D_COPY_PATHS; p++)
        eligible[p] = (p == H2D_COPY_ENGINE || item->source_pinned)
                      && h2d_pipeline_copy_path_available (sink->pipe, (enum h2d_copy_path) p,
                                                           why, sizeof why);
      best = copy_choice_decide (gbps, rounds, H2D_COPY_PATHS, eligible, sink->auto_gbps);
      char line[300];
      copy_choice_describe (line, sizeof line, item->row.layout.bytes, rounds,
                            forced ? 0 : COPY_CHOICE_ROUND_S, copy_path_choices + 1,
                            H2D_COPY_PATHS, sink->auto_gbps, best);
      warn (0, "%s", line);
    }
  sink->copy_path = best;
  h2d_pipeline_copy_path (sink->pipe, (enum h2d_copy_path) best, sink->copy_sms);
}

static void
gpu_process (void *context, struct consumer *consumer, const struct consumer_item *item)
{
  struct gpu_sink *sink = context;
  struct h2d_pipeline *pipe = sink->pipe;
  if (!sink->have_config)
    {
      sink->config = item->row.config;
      sink->item_bytes = item->row.handle.bytes;
      sink->have_config = true;
      /* Items gathered into a batch hold their producers' slots: take at
         most an eighth of the run's, so the producers keep filling (on
         the H200 a quarter, with 16 MiB batches, left the copy engine
         waiting on releases: 1 MiB items fell from 41 to 35 GB/s).  */
      uint64_t share = (uint64_t) item->row.config.workers * item->row.config.slots / 8;
      h2d_pipeline_batch_items (pipe, share < H2D_BATCH_ITEMS ? (unsigned) share
                                                              : H2D_BATCH_ITEMS);
      sink->workers = item->row.config.workers;
      sink->last_row_ns = xcalloc (sink->workers, sizeof *sink->last_row_ns);
      if (sink->copy_path == COPY_AUTO)
        choose_copy_path (sink, item);
    }
  /* (Auto's choice takes a pageable arena's batches by the engine.)  */
  if (sink->copy_path == H2D_COPY_SM && !sink->copy_path_auto && !item->source_pinned)
    die (EXIT_USAGE, 0, "--copy-path sm: line %zu: arena '%s' is not page-locked "
         "(produce it with --pin, or use --copy-path auto)", item->line, item->row.arena);

  struct flight *f = &sink->flights[sink->next];
  struct h2d_item work = {
    .host = item->data,
    .layout = item->row.layout,
    .sequence = item->row.sequence,
    .release = release_copied,
    .release_arg = f,
    .token = f,
  };
  /* Report what has finished, then make room: at most K buffers in
     flight.  */
  while (retire_one (sink, consumer, false))
    continue;
  uint64_t blocked_from = 0, blocked_to = 0;
  if (!h2d_pipeline_ready (pipe, &work))
    {
      blocked_from = clock_now_ns ();
      while (!h2d_pipeline_ready (pipe, &work))
        retire_one (sink, consumer, true);
      blocked_to = clock_now_ns ();
    }

  sink->next = (sink->next + 1) % sink->nflights;
  f->item = *item;
  atomic_store (&f->release_why, NULL);
  f->blocked_from_ns = blocked_from;
  f->blocked_to_ns = blocked_to;
  f->blocked_on = sink->last_wait_cause;
  /* Rows of one run name workers below the run's count (handle-row.c).  */
  uint32_t w = item->row.worker < sink->workers ? item->row.worker : 0;
  f->previous_row_ns = sink->last_row_ns[w];
  sink->last_row_ns[w] = item->row.row_ns;
  h2d_pipeline_submit (pipe, &work);
}

/* The input paused: send the batch gathered so far, and report what has
   finished meanwhile.  */
static void
gpu_idle (void *context, struct consumer *consumer)
{
  struct gpu_sink *sink = context;
  h2d_pipeline_kick (sink->pipe);
  while (retire_one (sink, consumer, false))
    continue;
}

static const char *
gpu_staged_arm (void *context UNUSED, const struct run_config *config)
{
  return run_config_staged_arm (config);
}

static uint64_t
gpu_staging_bytes (void *context)
{
  struct gpu_sink *sink = context;
  return h2d_pipeline_staging_bytes (sink->pipe);
}

static void
gpu_flush (void *context, struct consumer *consumer)
{
  struct gpu_sink *sink = context;
  while (retire_one (sink, consumer, true))
    continue;
}

/* The item columns after the common ones.  */
static void
item_h2d_ns (struct csv_line *line, const void *row)
{
  const struct consumer_item_receipt *r = row;
  const struct h2d_outcome *out = r->result->extra;
  csv_line_u64 (line, out->h2d_ns);
}

static void
item_host_wall_ns (struct csv_line *line, const void *row)
{
  const struct consumer_item_receipt *r = row;
  const struct h2d_outcome *out = r->result->extra;
  csv_line_u64 (line, out->done_ns > r->item->arrive_ns ? out->done_ns - r->item->arrive_ns : 0);
}

static const struct csv_column item_columns[] = {
  { "h2d_ns", item_h2d_ns }, { "host_wall_ns", item_host_wall_ns }, { NULL, NULL },
};

/* The run columns after the common ones: a run report and --calibrate's
   rows fill them from one of these.  */
struct gpu_run
{
  const struct gpu_sink *sink;
  uint64_t inflight, staging_threads;
  double wait_s, h2d_s, h2d_gb_per_s, verify_s;   /* NaN: empty */
  double idle_s, idle_cause_s[IDLE_CAUSE_COUNT];  /* NaN: empty */
  /* The paths batches took, "engine" or "engine+sm" (empty: none), and
     whether auto chose; blocks of the sm path (CSV_NONE: empty); auto's
     rates (NaN: empty).  */
  char copy_path[32];
  const char *copy_path_auto;
  uint64_t copy_sms;
  double auto_gbps[H2D_COPY_PATHS];
};

#define GPU_RUN(row) ((const struct gpu_run *) ((const struct consumer_run_receipt *) (row))->extra)

static void
run_inflight (struct csv_line *line, const void *row)
{
  csv_line_u64 (line, GPU_RUN (row)->inflight);
}

static void
run_staging_threads (struct csv_line *line, const void *row)
{
  csv_line_u64 (line, GPU_RUN (row)->staging_threads);
}

#define GPU_FIXED(name, decimals) \
  static void run_##name (struct csv_line *line, const void *row) \
  { csv_line_fixed (line, GPU_RUN (row)->name, decimals); }
GPU_FIXED (wait_s, 6)
GPU_FIXED (h2d_s, 6)
GPU_FIXED (h2d_gb_per_s, 4)
GPU_FIXED (verify_s, 6)

#define GPU_STR(name, expr) \
  static void run_##name (struct csv_line *line, const void *row) \
  { const struct gpu_sink *sink = GPU_RUN (row)->sink; csv_line_str (line, (expr)); }
GPU_STR (gpu, sink->gpu.name)
GPU_STR (driver, sink->gpu.driver)
GPU_STR (cuda, sink->gpu.runtime_cuda)
GPU_STR (pcie, sink->gpu.pcie)
GPU_STR (cpu, sink->host.cpu)
GPU_STR (version, sink->host.version)

GPU_FIXED (idle_s, 6)

#define IDLE_CAUSE(cause) \
  static void run_##cause (struct csv_line *line, const void *row) \
  { csv_line_fixed (line, GPU_RUN (row)->idle_cause_s[cause], 6); }
IDLE_CAUSE (IDLE_NO_ROW)
IDLE_CAUSE (IDLE_NO_SLOT)
IDLE_CAUSE (IDLE_CHECK)
IDLE_CAUSE (IDLE_RELEASE)
IDLE_CAUSE (IDLE_OTHER)

static void
run_copy_path (struct csv_line *line, const void *row)
{
  csv_line_str (line, GPU_RUN (row)->copy_path);
}

static void
run_copy_path_auto (struct csv_line *line, const void *row)
{
  csv_line_str (line, GPU_RUN (row)->copy_path_auto);
}

static void
run_copy_sms (struct csv_line *line, const void *row)
{
  csv_line_count (line, GPU_RUN (row)->copy_sms);
}

#define AUTO_GBPS(path, name) \
  static void run_auto_##name (struct csv_line *line, const void *row) \
  { csv_line_fixed (line, GPU_RUN (row)->auto_gbps[path], 4); }
AUTO_GBPS (H2D_COPY_ENGINE, engine)
AUTO_GBPS (H2D_COPY_BATCH, batch)
AUTO_GBPS (H2D_COPY_SM, sm)

static const struct csv_column run_columns[] = {
  { "inflight", run_inflight }, { "staging_threads", run_staging_threads },
  { "wait_s", run_wait_s }, { "h2d_s", run_h2d_s },
  { "h2d_gb_per_s", run_h2d_gb_per_s }, { "verify_s", run_verify_s },
  { "gpu", run_gpu }, { "driver", run_driver }, { "cuda", run_cuda }, { "pcie", run_pcie },
  { "cpu", run_cpu }, { "version", run_version },
  { "idle_s", run_idle_s },
  { "idle_no_row_s", run_IDLE_NO_ROW }, { "idle_no_slot_s", run_IDLE_NO_SLOT },
  { "idle_check_s", run_IDLE_CHECK }, { "idle_release_s", run_IDLE_RELEASE },
  { "idle_other_s", run_IDLE_OTHER },
  { "copy_path", run_copy_path }, { "copy_path_auto", run_copy_path_auto },
  { "copy_sms", run_copy_sms },
  { "auto_engine_gb_per_s", run_auto_engine }, { "auto_batch_gb_per_s", run_auto_batch },
  { "auto_sm_gb_per_s", run_auto_sm },
  { NULL, NULL },
};

static double
gb_per_s (uint64_t bytes, uint64_t ns)
{
  return ns ? (double) bytes / (double) ns : 0;
}

static const void *
gpu_run_extra (void *context)
{
  struct gpu_sink *sink = context;
  copy_idle_finish (&sink->idle);
  static struct gpu_run run;
  run = (struct gpu_run) {
    .sink = sink,
    .inflight = h2d_pipeline_inflight (sink->pipe),
    .staging_threads = sink->staging_threads,
    .wait_s = (double) sink->wait_ns / 1e9,
    .h2d_s = (double) sink->h2d_ns / 1e9,
    .h2d_gb_per_s = gb_per_s (sink->bytes, sink->h2d_ns),
    .verify_s = sink->verify ? (double) sink->verify_ns / 1e9 : NAN,
    .idle_s = (double) copy_idle_total_ns (&sink->idle) / 1e9,
  };
  for (int c = 0; c < IDLE_CAUSE_COUNT; c++)
    run.idle_cause_s[c] = (double) sink->idle.idle_ns[c] / 1e9;
  uint64_t batches[H2D_COPY_PATHS];
  h2d_pipeline_path_batches (sink->pipe, batches);
  for (int p = 0; p < H2D_COPY_PATHS; p++)
    if (batches[p])
      {
        size_t at = strlen (run.copy_path);
        snprintf (run.copy_path + at, sizeof run.copy_path - at, "%s%s", at ? "+" : "",
                  copy_path_choices[p + 1]);
      }
  run.copy_path_auto = sink->copy_path_auto ? "yes" : "no";
  run.copy_sms = batches[H2D_COPY_SM] ? sink->copy_sms : 0;
  for (int p = 0; p < H2D_COPY_PATHS; p++)
    run.auto_gbps[p] = sink->auto_gbps[p];
  return &run;
}

/* One --calibrate row in the run report's columns: the configuration
   with the arm named ARM, WORKERS and SLOTS (CSV_NONE: empty) and no
   backend; ITEMS of the run's size moved in SECONDS.  Memory columns do
   not apply: the copies use buffers of their own.  */
static void
put_calibration (const struct gpu_sink *sink, const struct consumer_sink *consumer_sink,
                 const char *arm, bool pinned, uint64_t items, double seconds,
                 uint64_t workers, uint64_t slots)
{
  uint64_t total = sink->item_bytes * items;
  double rate = seconds > 0 ? (double) total / seconds / 1e9 : 0;
  const struct run_config *config = &sink->config;
  struct gpu_run run = {
    .sink = sink, .inflight = 1, .wait_s = NAN, .h2d_s = seconds, .h2d_gb_per_s = rate,
    .verify_s = NAN, .idle_s = NAN,
  };
  for (int c = 0; c < IDLE_CAUSE_COUNT; c++)
    run.idle_cause_s[c] = NAN;
  run.copy_path_auto = "";
  run.copy_sms = CSV_NONE;
  for (int p = 0; p < H2D_COPY_PATHS; p++)
    run.auto_gbps[p] = NAN;
  struct consumer_run_receipt r = {
    .config = {
      .arm = arm, .backend = NULL, .pinned = pinned, .size_bytes = config->size_bytes,
      .dtype = payload_dtypes[config->dtype].name, .kind = payload_kind_names[config->kind],
      .workers = workers, .slots = slots,
    },
    .items = items, .bytes = total, .seconds = seconds,
    .items_per_s = seconds > 0 ? (double) items / seconds : 0, .gb_per_s = rate,
    .cpu_s = NAN, .pin_ms = NAN, .mismatches = CSV_NONE, .warmup_epochs = CSV_NONE,
    .pinned_bytes = CSV_NONE, .shm_bytes = CSV_NONE,
    .shm_avail_before_bytes = CSV_NONE, .shm_avail_after_bytes = CSV_NONE,
    .pss_before_bytes = CSV_NONE, .pss_after_bytes = CSV_NONE, .rss_peak_bytes = CSV_NONE,
    .extra = &run,
  };
  consumer_report_put (consumer_sink, &r);
}

/* A ceiling row: the run's producers, size and slots in one process,
   filling page-locked slots of MEMORY while the copy engine drains them
   (ceiling.h).  */
static void
ceiling_row (const struct gpu_sink *sink, const struct consumer_sink *consumer_sink,
             const char *arm, enum ceiling_memory memory)
{
  const struct run_config *config = &sink->config;
  struct payload_layout layout;
  payload_layout_init (&layout, config->size_bytes, config->dtype, config->kind);
  struct ceiling_result c;
  char why[200];
  if (!ceiling_measure (&layout, STORE_AUTO, memory, config->workers, config->slots,
                        CEILING_WARMUP_S, CEILING_SECONDS, &c, why, sizeof why))
    {
      warn (0, "--calibrate: no %s row: %s", arm, why);
      return;
    }
  put_calibration (sink, consumer_sink, arm, true, c.items, c.seconds, config->workers,
                   c.slots);
}

static void
calibrate_rows (const struct gpu_sink *sink, const struct consumer_sink *consumer_sink)
{
  uint64_t bytes = sink->item_bytes;
  static const struct
  {
    const char *arm;
    enum gpu_host_memory memory;
  } raws[] = {
    { "raw-pinned", GPU_HOST_PINNED },
    { "raw-pageable", GPU_HOST_PAGEABLE },
    { "raw-pageable-shm", GPU_HOST_PAGEABLE_SHM },
    { "raw-registered-shm", GPU_HOST_REGISTERED_SHM },
  };
  for (size_t i = 0; i < ARRAY_SIZE (raws); i++)
    {
      double gbps = gpu_raw_copy_gbps (GPU_HOST_TO_DEVICE, raws[i].memory, bytes,
                                       CALIBRATE_REPEATS);
      /* The median copy's rate, as if CALIBRATE_REPEATS copies ran at it. */
      double seconds = gbps > 0 ? (double) (bytes * CALIBRATE_REPEATS) / (gbps * 1e9) : 0;
      put_calibration (sink, consumer_sink, raws[i].arm,
                       raws[i].memory == GPU_HOST_PINNED
                       || raws[i].memory == GPU_HOST_REGISTERED_SHM,
                       CALIBRATE_REPEATS, seconds, CSV_NONE, CSV_NONE);
    }
  ceiling_row (sink, consumer_sink, "ceiling", CEILING_HOST_ALLOC);
  ceiling_row (sink, consumer_sink, "ceiling-registered-shm", CEILING_REGISTERED_SHM);
}

/* Check --copy-sms against the device and --copy-path against the build,
   and set the pipeline up for it (before any arena is registered: the sm
   path reads arenas registered mapped).  */
static void
setup_copy_path (struct gpu_sink *sink)
{
  /* The default fits any device; a given value must.  */
  unsigned sms = (unsigned) (sink->gpu.multiprocessors > 0 ? sink->gpu.multiprocessors : 1);
  if (sink->copy_sms > sms && sink->copy_sms_given)
    die (EXIT_USAGE, 0, "--copy-sms: '%u' exceeds the device's %u SMs", sink->copy_sms, sms);
  if (sink->copy_sms > sms)
    sink->copy_sms = sms;
  if (sink->copy_path == H2D_COPY_SM || sink->copy_path == COPY_AUTO)
    h2d_pipeline_map_arenas (sink->pipe);
  if (sink->copy_path == COPY_AUTO)
    return;
  char why[200];
  enum h2d_copy_path path = (enum h2d_copy_path) sink->copy_path;
  if (!h2d_pipeline_copy_path_available (sink->pipe, path, why, sizeof why))
    die (EXIT_UNAVAILABLE, 0, "--copy-path %s: %s", copy_path_choices[path + 1], why);
  h2d_pipeline_copy_path (sink->pipe, path, sink->copy_sms);
}

int
main (int argc, char **argv)
{
  options_init (argv);
  struct consumer_options options;
  consumer_options_init (&options);
  struct gpu_sink gpu = {
    .device = -1, .copy_path = H2D_COPY_ENGINE, .copy_sms = H2D_COPY_SMS_DEFAULT,
    .auto_gbps = { NAN, NAN, NAN },
  };
  unsigned inflight = H2D_INFLIGHT_DEFAULT, copy_streams = H2D_COPY_STREAMS_DEFAULT;
  bool calibrate = false, staged = false;
  int c;
  while ((c = getopt_long (argc, argv, "", long_options, NULL)) != -1)
    switch (c)
      {
      case OPT_DEVICE:
        gpu.device = (int) options_uint ("--device", optarg, 0, GPU_DEVICE_MAX);
        break;
      case OPT_INFLIGHT:
        inflight = options_uint ("--inflight", optarg, 1, H2D_INFLIGHT_MAX);
        break;
      case OPT_COPY_STREAMS:
        copy_streams = options_uint ("--copy-streams", optarg, 1, H2D_COPY_STREAMS_MAX);
        break;
      case OPT_CALIBRATE:
        calibrate = true;
        break;
      case OPT_STAGED:
        staged = true;
        break;
      case OPT_STAGING_THREADS:
        gpu.staging_threads = options_uint ("--staging-threads", optarg, 1,
                                            H2D_STAGING_THREADS_MAX);
        break;
      case OPT_COPY_PATH:
        gpu.copy_path = options_choice ("--copy-path", optarg, copy_path_choices) - 1;
        break;
      case OPT_COPY_SMS:
        gpu.copy_sms = options_uint ("--copy-sms", optarg, 1, H2D_COPY_SMS_MAX);
        gpu.copy_sms_given = true;
        break;
      default:
        if (!consumer_option (c, optarg, &options))
          options_common (c, usage);
      }
  options_stdin_operand (argc, argv);
  gpu.verify = options.verify;
  if (staged && !gpu.staging_threads)
    gpu.staging_threads = 1;
  if (gpu.staging_threads && options.require_pin)
    die (EXIT_USAGE, 0, "--staged keeps the arena pageable: it cannot take --require-pin");
  /* Staged, a batch is one copy of one staging buffer: nothing to choose. */
  if (gpu.staging_threads && gpu.copy_path != H2D_COPY_ENGINE && gpu.copy_path != COPY_AUTO)
    die (EXIT_USAGE, 0, "--staged sends each batch as one copy: it cannot take --copy-path %s",
         copy_path_choices[gpu.copy_path + 1]);
  if (gpu.staging_threads)
    gpu.copy_path = H2D_COPY_ENGINE;
  gpu.copy_path_auto = gpu.copy_path == COPY_AUTO;
  if (calibrate)
    {
      if (options.report_given && options.report != REPORT_RUN)
        die (EXIT_USAGE, 0, "--calibrate writes run-report rows: it needs --report run");
      options.report = REPORT_RUN;
    }

  /* Before reading a byte of input: a machine without a GPU says so and
     leaves stdin to whoever comes next.  */
  if (gpu.device < 0)
    gpu.device = gpu_default_device ();
  gpu_require ();
  gpu_select (gpu.device);
  gpu_describe (gpu.device, &gpu.gpu);
  char device[16], detail[300];
  snprintf (device, sizeof device, "%d", gpu.device);
  launcher_set_device (device);
  snprintf (detail, sizeof detail, "%s, %s", gpu.gpu.name, gpu.gpu.pci_bus_id);
  if (launcher_present (launcher_self ()))
    launcher_announce (detail);
  machine_describe (&gpu.host);
  copy_idle_init (&gpu.idle);
  gpu.pipe = h2d_pipeline_open (inflight, copy_streams, gpu.verify, gpu.staging_threads);
  setup_copy_path (&gpu);
  gpu.nflights = inflight * H2D_BATCH_ITEMS;
  gpu.flights = xcalloc (gpu.nflights, sizeof *gpu.flights);

  const struct consumer_sink sink = {
    .context = &gpu,
    .device_pci = gpu.gpu.pci_bus_id,
    .item_columns = item_columns,
    .run_columns = run_columns,
    .pin_column = "register_ms",
    .pin = gpu.staging_threads ? NULL : gpu_pin,
    .unpin = gpu_unpin,
    .process = gpu_process,
    .idle = gpu_idle,
    .flush = gpu_flush,
    .arm = gpu.staging_threads ? gpu_staged_arm : NULL,
    .pinned_bytes = gpu_staging_bytes,
    .run_extra = gpu_run_extra,
    .trace_copy_streams = copy_streams,
  };
  int status = consumer_run (&options, &sink);
  if (calibrate)
    calibrate_rows (&gpu, &sink);
  h2d_pipeline_close (gpu.pipe);
  free (gpu.flights);
  free (gpu.last_row_ns);
  copy_idle_free (&gpu.idle);
  return status;
}
