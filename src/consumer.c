/* consumer.c -- the consuming half of the pipeline, shared by the CPU and
   GPU consumers: each handle row checked against its arena and handed to
   the sink, the end-of-stream checks.  Rows come in through
   consumer-intake, arenas are tracked by consumer-sources, --timeout and
   the stop signals are consumer-signals', the run report is
   consumer-report's, and receipts are written by consumer-receipts.  */
#include "system.h"
#include "consumer.h"
#include "clock.h"
#include "compute-step.h"
#include "consumer-intake.h"
#include "consumer-machine.h"
#include "consumer-receipts.h"
#include "consumer-report.h"
#include "consumer-signals.h"
#include "consumer-sources.h"
#include "die.h"
#include "launcher.h"
#include "machine.h"

#include <inttypes.h>
#include <signal.h>
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
  uint64_t mismatched_items;
  struct consumer_report *report;
  bool pin_warned;
  struct trace *trace;        /* --trace, or NULL */
  unsigned in_sink;           /* a sink call is in progress (not safe to flush) */
  struct consumer_machine machine;
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
  if (c->trace)
    trace_discard (c->trace);
  c->trace = NULL;
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
    case CONSUMER_OPT_LIST_LAUNCHERS:
      launcher_list (stdout);
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
  consumer_report_source (c->report, s);
  return s;
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
    consumer_report_unpinned (c->report, clock_now_ns () - start, s->arena.map_bytes);
}

/* The run report's "after" memory, sampled while arenas are still
   mapped.  */
static void
memory_after (void *context)
{
  struct consumer *c = context;
  consumer_report_memory_after (c->report);
}

/* Unmap the arenas of every producer run whose arenas are all done: a
   long-lived consumer keeps no finished arena (nor its /dev/shm pages, nor
   a descriptor, nor its bookkeeping once the run is complete).  */
static void
release_finished (struct consumer *c)
{
  sources_let_go (&c->sources, memory_after, unpin_for_consumer, c);
}

/* The first record: the handle rows' header.  */
static void
read_header (struct consumer *c, const struct csv_record *record)
{
  char why[256];
  if (!handle_columns_parse (&c->columns, record, why, sizeof why))
    die (EXIT_DATAERR, 0, "line %zu: %s", record->line, why);
  c->have_header = true;
  c->idle_since_ns = clock_now_ns ();
  consumer_signals_waiting (c->idle_since_ns);
}

/* ROW, read at input line LINE, against its arena and the rows before it;
   counted as its arena's next item.  */
static struct source *
check_row (struct consumer *c, const struct handle_row *row, size_t line)
{
  struct source *s = find_source (c, row, line);
  /* The first row was checked against the header (sources_attach); the
     rest must repeat it, epochs too (a run receipt may mix epochs).  */
  sources_check_config (s, row, line);
  if (c->options->report == REPORT_RUN)
    consumer_report_check_config (c->report, row, line);
  sources_check_item (s, row, line);
  sources_count_item (&c->sources, s, row, line);
  s->items++;
  c->items_seen++;
  consumer_machine_item (&c->machine, &s->arena, s->items, &s->worker_pid);
  return s;
}

static void
on_record (const struct csv_record *record, void *context)
{
  struct consumer *c = context;
  if (consumer_signals_stopped ())
    return;                     /* the input was cut short: rows left unread */
  uint64_t arrive = clock_now_ns ();
  consumer_signals_row_read ();
  if (!c->have_header)
    {
      read_header (c, record);
      return;
    }

  char why[256];
  struct consumer_item item = { .line = record->line, .arrive_ns = arrive };
  if (!handle_row_parse (&item.row, &c->columns, record, why, sizeof why))
    die (EXIT_DATAERR, 0, "line %zu: %s", record->line, why);
  struct source *s = check_row (c, &item.row, record->line);

  item.arena = &s->arena;
  item.data = s->arena.base + item.row.handle.offset;
  item.wait_ns = arrive - c->idle_since_ns;
  item.measured = item.row.epoch >= c->options->warmup_epochs;
  item.source_pinned = s->pinned;
  item.arm = consumer_receipts_arm (c->sink, &s->config, s->pinned);
  /* The window opens when we began waiting for the first measured row.  */
  if (item.measured)
    consumer_report_window_open (c->report, c->idle_since_ns);
  c->in_sink++;
  c->sink->process (c->sink->context, c, &item);
  c->in_sink--;
  release_finished (c);
  c->idle_since_ns = clock_now_ns ();
  consumer_signals_waiting (c->idle_since_ns);
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
      consumer_warn_mismatch (item, check);
    }
  consumer_report_item (c->report, item, result);
  if (!item->measured || c->options->report != REPORT_ITEMS)
    return;

  print_receipt_header (c);
  struct consumer_item_receipt r = {
    .item = item, .result = result, .verified = c->options->verify,
  };
  consumer_receipts_config (&r.config, &item->row.config, item->arm, item->source_pinned);
  consumer_receipts_item (&c->line, c->sink, &r);
}

/* The input was cut short (consumer_signals_stopped): the items in flight complete,
   every receipt is written whole, the producers are told (die's cleanup,
   consumer_cleanup), and we exit 75 for --timeout or die of the signal
   that came.  A run report is not written: it would pass for a whole
   run's.  */
static _Noreturn void
stop_early (struct consumer *c)
{
  int sig = consumer_signals_stopped ();
  if (sig == SIGALRM)
    {
      uint64_t rows = consumer_signals_rows_read ();
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

/* Start C: its machine, the report's memory before the first arena, die's
   cleanup, --trace.  */
static void
consumer_start (struct consumer *c)
{
  consumer_machine_init (&c->machine, c->sink->device_pci);
  c->report = consumer_report_new (c->options->report == REPORT_RUN);
  active_consumer = c;
  die_set_cleanup (consumer_cleanup);
  if (c->options->trace_path)
    c->trace = trace_open (c->options->trace_path, program_name, c->sink->trace_copy_streams);
  c->idle_since_ns = clock_now_ns ();
}

/* The input ended: what is in flight completes, finished arenas and
   orphans go, and the stream must have held every item announced.  */
static void
end_of_input (struct consumer *c)
{
  consumer_signals_stop_timer ();
  if (consumer_signals_stopped ())
    stop_early (c);
  if (c->sink->flush)
    {
      c->in_sink++;
      c->sink->flush (c->sink->context, c);
      c->in_sink--;
    }
  consumer_report_window_close (c->report);
  release_finished (c);
  /* A producer killed before its first row left an arena nobody named to
     us: remove such orphans, waiting a little for one still exiting when
     the stream ended early.  */
  bool complete = c->items_seen > 0 && sources_producers_done (&c->sources);
  arena_sweep_orphans (complete ? 0 : ORPHAN_GRACE_NS, NULL);

  if (!c->have_header)
    die (EXIT_NOINPUT, 0, "stdin: no handle rows (empty input)");
  if (c->items_seen == 0)
    die (EXIT_NOINPUT, 0, "stdin: a header but no handle rows");
  sources_check_complete (&c->sources);
  if (consumer_report_measured_items (c->report) == 0)
    die (EXIT_NOINPUT, 0, "no measured items: every row belongs to the %u warm-up epoch%s",
         c->options->warmup_epochs, c->options->warmup_epochs == 1 ? "" : "s");
}

int
consumer_run (const struct consumer_options *options, const struct consumer_sink *sink)
{
  struct consumer c = { .options = options, .sink = sink };
  consumer_start (&c);
  /* Another process may truncate an arena under us: say so, do not die
     of SIGBUS.  Here, in the frame that reads the input, not in one that
     returns before a fault could jump to it.  */
  static sigjmp_buf truncated;
  if (sigsetjmp (truncated, 1))
    die (EXIT_DATAERR, 0, "arena %s: truncated by another process while in use",
         quote (arena_fault_name ()));
  arena_fault_catch (&truncated);
  consumer_signals_waiting (c.idle_since_ns);
  consumer_signals_catch ();
  consumer_signals_start_timer (options->timeout_s);

  consumer_intake_read (STDIN_FILENO, "stdin", on_record, sink->idle ? on_idle : NULL, &c);
  end_of_input (&c);

  consumer_machine_end (&c.machine);
  consumer_machine_warn (&c.machine);
  if (options->report == REPORT_RUN)
    {
      consumer_report_memory_after (c.report);
      print_receipt_header (&c);
      consumer_report_write (c.report, options, sink, &c.machine, &c.line);
    }
  if (c.trace)
    trace_close (c.trace);
  consumer_receipts_flush (true);
  sources_free (&c.sources, unpin_source, (void *) sink, false);
  arena_fault_catch (NULL);
  active_consumer = NULL;
  die_set_cleanup (NULL);
  csv_line_free (&c.line);
  consumer_machine_free (&c.machine);
  consumer_report_free (c.report);
  return c.mismatched_items ? EXIT_MISMATCH : EXIT_OK;
}
