/* consumer.c -- the consuming half of the pipeline, shared by the CPU and
   GPU consumers: each handle row checked against its arena and handed to
   the sink, the measured window, the end-of-stream checks.  Rows come in
   through consumer-intake, arenas are tracked by consumer-sources, and
   receipts are written by consumer-receipts.  */
#include "system.h"
#include "consumer.h"
#include "clock.h"
#include "compute-step.h"
#include "consumer-intake.h"
#include "consumer-machine.h"
#include "consumer-receipts.h"
#include "consumer-sources.h"
#include "die.h"
#include "launcher.h"
#include "machine.h"
#include "producer-tally.h"
#include "work-share.h"

#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <sys/time.h>
#include <unistd.h>

const char *const report_mode_names[] = { "items", "run", NULL };

/* How long a consumer whose stream ended early waits for a producer that
   is still exiting before it gives up removing that producer's arenas.  */
#define ORPHAN_GRACE_NS (200 * 1000000ULL)

struct consumer
{
  const struct consumer_options *options;
  const struct consumer_sink *sink;
  struct handle_columns columns;
  bool have_header;
  struct sources sources;
  struct csv_line line;
  bool receipt_header_done;

  uint64_t idle_since_ns;     /* the previous row's handling ended */
  uint64_t items_seen;
  /* The measured window: warm-up epochs stay outside it.  */
  uint64_t measured_items, measured_bytes;
  uint64_t window_start_ns, window_end_ns, cpu_start_ns, cpu_end_ns;
  uint64_t mismatched_items, mismatches;
  /* For the run report, counted as arenas are attached so that nothing
     depends on an arena still being held at the end.  */
  struct run_config first_config;
  bool have_first;
  uint64_t pss_before, shm_avail_before;
  /* "After": sampled while arenas are still mapped, just before each
     finished run is let go and at the end; the highest PSS and the least
     available space of those samples.  */
  uint64_t pss_after, shm_avail_after;
  bool after_taken;
  uint64_t pin_ns, pinned_bytes, shm_bytes;
  bool all_pinned;
  bool pin_warned;
  struct trace *trace;        /* --trace, or NULL */
  unsigned in_sink;           /* a sink call is in progress (not safe to flush) */
  struct consumer_machine machine;
  uint64_t unpin_ns, unpinned_bytes;  /* runs let go before the report */
  struct producer_tally producers;    /* --report run: measured items by worker */
};

/* die() runs this: tell every producer we are gone so none waits out its
   timeout.  The names were unlinked at attach, so /dev/shm is clean.  */
static struct consumer *active_consumer;

static void
consumer_cleanup (void)
{
  struct consumer *c = active_consumer;
  if (!c)
    return;
  active_consumer = NULL;
  /* Every item handled gets its receipt, also on the way out: what the
     sink holds completes first, unless it was the sink that died (its
     state is then unknown), and the receipts are written whole.  */
  if (!c->in_sink && c->sink->flush)
    {
      c->in_sink++;
      c->sink->flush (c->sink->context, c);
    }
  consumer_receipts_flush (false);
  sources_free (&c->sources, NULL, NULL, true);
}

void
consumer_options_init (struct consumer_options *options)
{
  *options = (struct consumer_options) { .verify = true, .report = REPORT_ITEMS };
}

bool
consumer_option (int code, const char *arg, struct consumer_options *options)
{
  switch (code)
    {
    case CONSUMER_OPT_NO_VERIFY:
      options->verify = false;
      return true;
    case CONSUMER_OPT_WARMUP_EPOCHS:
      options->warmup_epochs = options_uint ("--warmup-epochs", arg, 0, 1000000);
      return true;
    case CONSUMER_OPT_REPORT:
      options->report = options_choice ("--report", arg, report_mode_names);
      options->report_given = true;
      return true;
    case CONSUMER_OPT_REQUIRE_PIN:
      options->require_pin = true;
      return true;
    case CONSUMER_OPT_TIMEOUT:
      options->timeout_s = options_double ("--timeout", arg, 0.001, 1e6);
      return true;
    case CONSUMER_OPT_TRACE:
      options->trace_path = arg;
      return true;
    case CONSUMER_OPT_COMPUTE_US:
      compute_step_set_us ((unsigned) options_uint ("--compute-us", arg, 0, COMPUTE_STEP_US_MAX));
      return true;
    case CONSUMER_OPT_PRINT_RANK:
      launcher_print (stdout, launcher_self ());
      exit (EXIT_OK);
    default:
      return false;
    }
}

static void
print_receipt_header (struct consumer *c)
{
  if (c->receipt_header_done)
    return;
  c->receipt_header_done = true;
  consumer_receipts_header (&c->line, c->sink, c->options->report);
}

/* The arm of a configuration as achieved, or the sink's own.  */
static const char *
arm_of (const struct consumer *c, const struct run_config *config, bool pinned)
{
  if (c->sink->arm)
    return c->sink->arm (c->sink->context, config);
  return consumer_achieved_arm (config, pinned);
}

static bool
same_config (const struct run_config *a, const struct run_config *b)
{
  return a->backend == b->backend && a->pinned == b->pinned && a->size_bytes == b->size_bytes
    && a->dtype == b->dtype && a->kind == b->kind && a->workers == b->workers
    && a->slots == b->slots && a->items == b->items && a->share == b->share;
}

/* An arena marked for pinning that could not be page-locked: the
   receipts say pageable; the message says why and what limit to raise.  */
static void
pin_refused (struct consumer *c, const struct source *s, const char *why)
{
  char hint[128];
  machine_memlock_hint (hint, sizeof hint);
  if (c->options->require_pin)
    die (EXIT_OSERR, 0, "arena %s: cannot page-lock %" PRIu64 " bytes: %s%s",
         quote (s->arena.name), s->arena.map_bytes, why, hint);
  if (!c->pin_warned)
    warn (0, "arena %s: cannot page-lock %" PRIu64 " bytes: %s%s; reading it pageable",
          quote (s->arena.name), s->arena.map_bytes, why, hint);
  c->pin_warned = true;
}

/* What a run report says of the memory of the arenas seen: page-locked as
   achieved, and held in /dev/shm.  */
static void
count_source (struct consumer *c, const struct source *s)
{
  if (!c->have_first)
    {
      c->first_config = s->config;
      c->all_pinned = true;
      c->have_first = true;
    }
  c->pin_ns += s->pin_ns;
  c->all_pinned &= s->pinned;
  if (s->pinned)
    c->pinned_bytes += s->arena.map_bytes;
  c->shm_bytes = c->shm_bytes == CSV_NONE || s->shm_bytes == MACHINE_UNKNOWN
                 ? CSV_NONE : c->shm_bytes + s->shm_bytes;
}

/* The source of ROW's arena: attached, page-locked when marked and the
   sink can, and counted on first sight.  */
static struct source *
find_source (struct consumer *c, const struct handle_row *row, size_t line)
{
  struct source *s = sources_find (&c->sources, row->arena, line);
  if (s)
    return s;
  s = sources_attach (&c->sources, row, line);
  if (row->config.pinned && c->sink->pin)
    {
      char refusal[256];
      c->in_sink++;
      s->pinned = c->sink->pin (c->sink->context, &s->arena, &s->pin_ns, refusal,
                                sizeof refusal);
      c->in_sink--;
      if (!s->pinned)
        pin_refused (c, s, refusal);
    }
  count_source (c, s);
  return s;
}

/* The sequence of the item with generation GENERATION (from 1) of arena
   S of a static run: a producer publishes its items in order, epoch by
   epoch.  */
static uint64_t
sequence_of (const struct source *s, uint64_t generation, uint32_t *epoch)
{
  const struct arena_identity *id = &s->arena.id;
  uint64_t n = generation - 1;
  *epoch = (uint32_t) (n / id->items);
  return ((uint64_t) *epoch * id->workers + id->worker) * id->items + n % id->items;
}

/* Rows of one arena arrive complete and in order: generation 1, 2, 3...
   A gap is a row lost on the way (a filter dropped it).  */
static void
check_in_order (const struct source *s, const struct handle_row *row, size_t line)
{
  if (row->handle.generation == s->items + 1)
    return;
  if (s->arena.id.share == ARENA_SHARE_PULL)
    die (EXIT_TEMPFAIL, 0, "line %zu: arena %s: item %" PRIu64 " of worker %" PRIu32
         " is missing: its item %" PRIu64 " (sequence %" PRIu64 ") came in its place (a row "
         "was dropped or reordered on the way)", line, quote (row->arena), s->items + 1,
         row->worker, row->handle.generation, row->sequence);
  uint32_t epoch;
  uint64_t missing = sequence_of (s, s->items + 1, &epoch);
  die (EXIT_TEMPFAIL, 0, "line %zu: worker %" PRIu32 " epoch %" PRIu32 ": sequence %" PRIu64
       " is missing: the row of sequence %" PRIu64 " came in its place (a row was dropped "
       "or reordered on the way)", line, row->worker, epoch, missing, row->sequence);
}

/* Sample the run report's "after" memory figures while arenas are still
   mapped (an unknown PSS, MACHINE_UNKNOWN, wins the maximum: it stays
   unknown).  */
static void
take_memory_after (void *context)
{
  struct consumer *c = context;
  uint64_t pss = machine_pss_bytes (), avail = machine_fs_avail_bytes ("/dev/shm");
  if (!c->after_taken || pss > c->pss_after)
    c->pss_after = pss;
  if (!c->after_taken || avail < c->shm_avail_after)
    c->shm_avail_after = avail;
  c->after_taken = true;
}

static void
unpin_source (void *context, struct source *s)
{
  const struct consumer_sink *sink = context;
  if (sink->unpin)
    sink->unpin (sink->context, &s->arena);
}

/* Unpinning is timed: a run report gives its cost per GiB.  */
static void
unpin_for_consumer (void *context, struct source *s)
{
  struct consumer *c = context;
  uint64_t start = clock_now_ns ();
  unpin_source ((void *) c->sink, s);
  if (c->sink->unpin && s->pinned)
    {
      c->unpin_ns += clock_now_ns () - start;
      c->unpinned_bytes += s->arena.map_bytes;
    }
}

/* Unmap the arenas of every producer run whose arenas are all done: a
   long-lived consumer keeps no finished arena (nor its /dev/shm pages, nor
   a descriptor, nor its bookkeeping once the run is complete).  */
static void
release_finished (struct consumer *c)
{
  sources_let_go (&c->sources, take_memory_after, unpin_for_consumer, c);
}

/* ------------------------------------------ --timeout and signals */

/* The time we started waiting for the next row (0 while busy), read by
   the timer's handler.  */
static _Atomic uint64_t waiting_since_ns;
static _Atomic uint64_t rows_read;
static uint64_t row_timeout_ns;
/* Why the input was cut short: SIGALRM for --timeout, or the SIGTERM,
   SIGINT or SIGHUP that came; 0 while it goes on.  */
static volatile sig_atomic_t stop_signal;
/* The read end of a pipe whose write end is closed: at a stop it replaces
   stdin, so the read in progress (restarted after the handler) and every
   later one ends the input at once, with no race between a check of
   stop_signal and a read that blocks.  */
static int eof_fd = -1;

/* Handlers only set stop_signal and dup2(2) (async-signal-safe): the
   receipts are written, and the producers told, on the main path.  */
static void
stop_input (int sig)
{
  stop_signal = sig;
  if (eof_fd >= 0)
    {
      dup2 (eof_fd, STDIN_FILENO);
      return;
    }
  /* No pipe to end the input with (no descriptor was left): the old way,
     without the receipts still held.  */
  static const char text[] = ": input cut short; receipts not yet written are lost\n";
  ssize_t ignored = write (STDERR_FILENO, program_name, strlen (program_name));
  ignored = write (STDERR_FILENO, text, sizeof text - 1);
  (void) ignored;
  _exit (sig == SIGALRM ? EXIT_TEMPFAIL : 128 + sig);
}

/* The timer: no row for --timeout seconds.  */
static void
on_row_timer (int sig)
{
  uint64_t since = atomic_load (&waiting_since_ns);
  if (!stop_signal && since && clock_now_ns () - since >= row_timeout_ns)
    stop_input (sig);
}

/* SIGTERM, SIGINT, SIGHUP: stop reading and finish as for --timeout; a
   second one (a consumer stuck in its sink) ends the process at once.  */
static void
on_stop_signal (int sig)
{
  if (stop_signal)
    {
      signal (sig, SIG_DFL);
      raise (sig);
      return;
    }
  stop_input (sig);
}

static void
catch_stop_signals (void)
{
  int p[2];
  if (eof_fd < 0 && pipe (p) == 0)
    {
      close (p[1]);
      eof_fd = p[0];
    }
  static const int stops[] = { SIGTERM, SIGINT, SIGHUP };
  struct sigaction sa = { .sa_handler = on_stop_signal, .sa_flags = SA_RESTART };
  sigemptyset (&sa.sa_mask);
  for (size_t i = 0; i < ARRAY_SIZE (stops); i++)
    {
      struct sigaction old;
      /* An ignored signal (nohup, a background job's SIGINT) stays so.  */
      if (sigaction (stops[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
        sigaction (stops[i], &sa, NULL);
    }
}

static void
start_row_timer (double timeout_s)
{
  if (timeout_s <= 0)
    return;
  row_timeout_ns = (uint64_t) (timeout_s * 1e9);
  struct sigaction sa = { .sa_handler = on_row_timer, .sa_flags = SA_RESTART };
  sigemptyset (&sa.sa_mask);
  sigaction (SIGALRM, &sa, NULL);
  /* Look four times per timeout, at most every second.  */
  uint64_t tick = row_timeout_ns / 4;
  if (tick > 1000000000ULL)
    tick = 1000000000ULL;
  if (tick < 1000000ULL)
    tick = 1000000ULL;
  struct itimerval it = {
    .it_interval = { (time_t) (tick / 1000000000ULL), (suseconds_t) (tick % 1000000000ULL / 1000) },
  };
  it.it_value = it.it_interval;
  setitimer (ITIMER_REAL, &it, NULL);
}

static void
stop_row_timer (void)
{
  struct itimerval off = { 0 };
  setitimer (ITIMER_REAL, &off, NULL);
  waiting_since_ns = 0;
}


static void
on_record (const struct csv_record *record, void *context)
{
  struct consumer *c = context;
  if (stop_signal)
    return;                     /* the input was cut short: rows left unread */
  uint64_t arrive = clock_now_ns ();
  waiting_since_ns = 0;
  rows_read++;
  char why[256];
  if (!c->have_header)
    {
      if (!handle_columns_parse (&c->columns, record, why, sizeof why))
        die (EXIT_DATAERR, 0, "line %zu: %s", record->line, why);
      c->have_header = true;
      c->idle_since_ns = clock_now_ns ();
      waiting_since_ns = c->idle_since_ns;
      return;
    }

  struct consumer_item item = { .line = record->line, .arrive_ns = arrive };
  if (!handle_row_parse (&item.row, &c->columns, record, why, sizeof why))
    die (EXIT_DATAERR, 0, "line %zu: %s", record->line, why);
  struct source *s = find_source (c, &item.row, record->line);
  /* The first row was checked against the header (sources_attach); the
     rest must repeat it, epochs too (a run receipt may mix epochs).  */
  if (s->items && (!same_config (&s->config, &item.row.config)
                   || s->config.epochs != item.row.config.epochs))
    die (EXIT_DATAERR, 0, "line %zu: configuration differs from earlier rows of arena %s",
         record->line, quote (item.row.arena));
  if (c->options->report == REPORT_RUN && !same_config (&c->first_config, &item.row.config))
    die (EXIT_DATAERR, 0, "line %zu: rows mix configurations; --report run needs one",
         record->line);

  const char *reason;
  struct arena_item id = { .sequence = item.row.sequence, .epoch = item.row.epoch };
  enum arena_status st = arena_check (&s->arena, &item.row.handle, &id, &reason);
  /* A ring item that is truly there but later than the next one: the
     rows between were lost on the way, as in a pool.  */
  if (st == ARENA_ORDER && item.row.handle.generation > s->items + 1)
    check_in_order (s, &item.row, record->line);
  if (st != ARENA_OK)
    die (EXIT_DATAERR, 0, "line %zu: arena %s: %s", record->line, quote (item.row.arena), reason);
  check_in_order (s, &item.row, record->line);
  sources_count_item (&c->sources, s, &item.row, record->line);
  s->items++;
  c->items_seen++;
  consumer_machine_item (&c->machine, &s->arena, s->items, &s->worker_pid);

  item.arena = &s->arena;
  item.data = s->arena.base + item.row.handle.offset;
  item.wait_ns = arrive - c->idle_since_ns;
  item.measured = item.row.epoch >= c->options->warmup_epochs;
  item.source_pinned = s->pinned;
  item.arm = arm_of (c, &s->config, s->pinned);
  if (item.measured && c->measured_items == 0 && c->window_start_ns == 0)
    {
      /* The window opens when we began waiting for the first measured row. */
      c->window_start_ns = c->idle_since_ns;
      c->cpu_start_ns = clock_cpu_ns ();
    }
  c->in_sink++;
  c->sink->process (c->sink->context, c, &item);
  c->in_sink--;
  release_finished (c);
  c->idle_since_ns = clock_now_ns ();
  waiting_since_ns = c->idle_since_ns;
}

/* Every row read so far is handled and the next read may block.  */
static void
on_idle (void *context)
{
  struct consumer *c = context;
  c->in_sink++;
  c->sink->idle (c->sink->context, c);
  c->in_sink--;
  release_finished (c);
}

bool
consumer_try_release (const struct consumer_item *item, const char **why)
{
  return arena_release (item->arena, &item->row.handle, why) == ARENA_OK;
}

void
consumer_release_failed (const struct consumer_item *item, const char *why)
{
  die (EXIT_DATAERR, 0, "line %zu: arena %s: %s", item->line, quote (item->row.arena), why);
}

void
consumer_release (const struct consumer_item *item)
{
  const char *why;
  if (!consumer_try_release (item, &why))
    consumer_release_failed (item, why);
}

bool
consumer_tracing (const struct consumer *c)
{
  return c->trace != NULL;
}

/* ITEM's stages: the sink's, and the producer's and ours from its row.  */
static void
trace_item (struct consumer *c, const struct consumer_item *item,
            const struct consumer_result *result)
{
  struct trace_item t = result->stages;
  const struct handle_row *row = &item->row;
  t.sequence = row->sequence;
  t.bytes = row->handle.bytes;
  t.worker = row->worker;
  t.epoch = row->epoch;
  t.at[TRACE_FILL_START] = row->fill_start_ns;
  t.at[TRACE_FILL_END] = row->fill_start_ns ? row->fill_start_ns + row->gen_ns : 0;
  t.at[TRACE_ROW] = row->row_ns;
  t.at[TRACE_WAIT_START] = item->arrive_ns - item->wait_ns;
  t.at[TRACE_READ] = item->arrive_ns;
  trace_add (c->trace, &t);
}

void
consumer_complete (struct consumer *c, const struct consumer_item *item,
                   const struct consumer_result *result)
{
  if (c->trace)
    trace_item (c, item, result);
  const struct payload_check *check = &result->check;
  if (check->mismatches)
    {
      c->mismatched_items++;
      c->mismatches += check->mismatches;
      consumer_warn_mismatch (item, check);
    }
  if (!item->measured)
    return;
  c->measured_items++;
  c->measured_bytes += item->row.handle.bytes;
  uint64_t done = result->done_ns ? result->done_ns : clock_now_ns ();
  if (done > c->window_end_ns)
    c->window_end_ns = done;
  if (c->options->report != REPORT_ITEMS)
    {
      producer_tally_add (&c->producers, item->row.config.workers, item->row.worker,
                          item->row.gen_ns);
      return;
    }

  print_receipt_header (c);
  struct consumer_item_receipt r = {
    .item = item, .result = result, .verified = c->options->verify,
  };
  consumer_config_of_item (&r.config, item);
  consumer_receipts_item (&c->line, c->sink, &r);
}

void
consumer_put_run_receipt (const struct consumer_sink *sink, const struct consumer_run_receipt *r)
{
  struct csv_line line = { 0 };
  consumer_receipts_run (&line, sink, r);
  consumer_receipts_flush (true);
  csv_line_free (&line);
}

static void
print_run_report (struct consumer *c)
{
  take_memory_after (c);
  print_receipt_header (c);
  double seconds = (double) (c->window_end_ns - c->window_start_ns) / 1e9;
  const struct run_config *config = &c->first_config;
  uint64_t sink_pinned = c->sink->pinned_bytes ? c->sink->pinned_bytes (c->sink->context) : 0;
  static struct consumer_machine_cells machine;
  consumer_machine_cells (&c->machine, &machine);
  const double gib = 1024.0 * 1024 * 1024;
  struct consumer_run_receipt r = {
    .config = {
      .arm = arm_of (c, config, c->all_pinned),
      .backend = arena_backend_names[config->backend],
      .pinned = c->all_pinned,
      .size_bytes = config->size_bytes,
      .dtype = payload_dtypes[config->dtype].name,
      .kind = payload_kind_names[config->kind],
      .workers = config->workers,
      .slots = config->slots,
    },
    .items = c->measured_items,
    .bytes = c->measured_bytes,
    .seconds = seconds,
    .items_per_s = seconds > 0 ? (double) c->measured_items / seconds : 0,
    .gb_per_s = seconds > 0 ? (double) c->measured_bytes / seconds / 1e9 : 0,
    .cpu_s = (double) (c->cpu_end_ns - c->cpu_start_ns) / 1e9,
    .pin_ms = c->pinned_bytes ? (double) c->pin_ns / 1e6 : NAN,
    .mismatches = c->options->verify ? c->mismatches : CSV_NONE,
    .warmup_epochs = c->options->warmup_epochs,
    .pinned_bytes = c->pinned_bytes + sink_pinned,
    .shm_bytes = c->shm_bytes,
    .shm_avail_before_bytes = c->shm_avail_before,
    .shm_avail_after_bytes = c->shm_avail_after,
    .pss_before_bytes = c->pss_before,
    .pss_after_bytes = c->pss_after,
    .rss_peak_bytes = machine_rss_peak_bytes (),
    .unpin_ms = c->unpinned_bytes ? (double) c->unpin_ns / 1e6 : NAN,
    .pin_s_per_gib = c->pinned_bytes ? (double) c->pin_ns / 1e9 / ((double) c->pinned_bytes / gib)
                                     : NAN,
    .unpin_s_per_gib = c->unpinned_bytes
                       ? (double) c->unpin_ns / 1e9 / ((double) c->unpinned_bytes / gib) : NAN,
    .machine = &machine,
    .share = work_share_names[config->share],
    .producer_items = producer_tally_items (&c->producers),
    .producer_fill_us = producer_tally_fill_us (&c->producers),
    .extra = c->sink->run_extra ? c->sink->run_extra (c->sink->context) : NULL,
  };
  consumer_receipts_run (&c->line, c->sink, &r);
}

/* The input was cut short (stop_signal): the items in flight complete,
   every receipt is written whole, the producers are told (die's cleanup,
   consumer_cleanup), and we exit 75 for --timeout or die of the signal
   that came.  A run report is not written: it would pass for a whole
   run's.  */
static _Noreturn void
stop_early (struct consumer *c)
{
  int sig = stop_signal;
  if (sig == SIGALRM)
    {
      uint64_t rows = atomic_load (&rows_read);
      die (EXIT_TEMPFAIL, 0, "stdin: no handle row for %g s after %" PRIu64 " line%s: the producer "
           "stalled, or a filter in the pipe holds the rows", c->options->timeout_s, rows,
           rows == 1 ? "" : "s");
    }
  consumer_cleanup ();
  fflush (stdout);
  signal (sig, SIG_DFL);
  raise (sig);
  _exit (128 + sig);
}

int
consumer_run (const struct consumer_options *options, const struct consumer_sink *sink)
{
  struct consumer c = { .options = options, .sink = sink };
  consumer_machine_init (&c.machine, sink->device_pci);
  /* Before the first arena is mapped.  */
  c.pss_before = machine_pss_bytes ();
  c.shm_avail_before = machine_fs_avail_bytes ("/dev/shm");
  active_consumer = &c;
  die_set_cleanup (consumer_cleanup);
  if (options->trace_path)
    c.trace = trace_open (options->trace_path, program_name, sink->trace_copy_streams);
  c.idle_since_ns = clock_now_ns ();
  /* Another process may truncate an arena under us: say so, do not die
     of SIGBUS.  */
  static sigjmp_buf truncated;
  if (sigsetjmp (truncated, 1))
    die (EXIT_DATAERR, 0, "arena %s: truncated by another process while in use",
         quote (arena_fault_name ()));
  arena_fault_catch (&truncated);
  waiting_since_ns = c.idle_since_ns;
  catch_stop_signals ();
  start_row_timer (options->timeout_s);

  consumer_intake_read (STDIN_FILENO, "stdin", on_record, sink->idle ? on_idle : NULL, &c);
  stop_row_timer ();
  if (stop_signal)
    stop_early (&c);
  if (sink->flush)
    {
      c.in_sink++;
      sink->flush (sink->context, &c);
      c.in_sink--;
    }
  /* The CPU time of the measured window, sampled once here rather than
     after every item (a system call each).  */
  c.cpu_end_ns = clock_cpu_ns ();
  release_finished (&c);
  /* A producer killed before its first row left an arena nobody named to
     us: remove such orphans, waiting a little for one still exiting when
     the stream ended early.  */
  bool complete = c.items_seen > 0 && sources_producers_done (&c.sources);
  arena_sweep_orphans (complete ? 0 : ORPHAN_GRACE_NS, NULL);

  if (!c.have_header)
    die (EXIT_NOINPUT, 0, "stdin: no handle rows (empty input)");
  if (c.items_seen == 0)
    die (EXIT_NOINPUT, 0, "stdin: a header but no handle rows");
  sources_check_complete (&c.sources);
  if (c.measured_items == 0)
    die (EXIT_NOINPUT, 0, "no measured items: every row belongs to the %u warm-up epoch%s",
         options->warmup_epochs, options->warmup_epochs == 1 ? "" : "s");

  consumer_machine_end (&c.machine);
  consumer_machine_warn (&c.machine);
  if (options->report == REPORT_RUN)
    print_run_report (&c);
  if (c.trace)
    trace_close (c.trace);
  consumer_receipts_flush (true);
  sources_free (&c.sources, unpin_source, (void *) sink, false);
  arena_fault_catch (NULL);
  active_consumer = NULL;
  die_set_cleanup (NULL);
  csv_line_free (&c.line);
  consumer_machine_free (&c.machine);
  producer_tally_free (&c.producers);
  return c.mismatched_items ? EXIT_MISMATCH : EXIT_OK;
}
