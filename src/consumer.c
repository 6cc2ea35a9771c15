/* consumer.c -- the consuming half of the pipeline, shared by the CPU and
   GPU consumers. */
#include "system.h"
#include "consumer.h"
#include "clock.h"
#include "csv-reader.h"
#include "die.h"

#include <inttypes.h>
#include <unistd.h>

const char *const report_mode_names[] = { "items", "run", NULL };

/* How long a consumer whose stream ended early waits for a producer that
   is still exiting before it gives up removing that producer's arenas.  */
#define ORPHAN_GRACE_NS (200 * 1000000ULL)

/* An arena seen in the stream, and what came through it.  */
struct source
{
  struct arena arena;
  struct run_config config;
  uint64_t items;
  uint64_t pin_ns;
  bool pinned;
};

struct consumer
{
  const struct consumer_options *options;
  const struct consumer_sink *sink;
  struct handle_columns columns;
  bool have_header;
  struct source **sources;    /* pointers: items in flight hold arenas */
  size_t nsources;
  size_t last_source;
  struct csv_line line;
  bool receipt_header_done;

  uint64_t idle_since_ns;     /* the previous row's handling ended */
  uint64_t items_seen;
  /* The measured window: warm-up epochs stay outside it.  */
  uint64_t measured_items, measured_bytes;
  uint64_t window_start_ns, window_end_ns, cpu_start_ns, cpu_end_ns;
  uint64_t mismatched_items, mismatches;
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
  for (size_t i = 0; i < c->nsources; i++)
    if (c->sources[i]->arena.header)
      arena_detach (&c->sources[i]->arena, true);
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
  run_config_header (&c->line);
  if (c->options->report == REPORT_ITEMS)
    {
      static const char *const names[] = {
        "sequence", "worker", "epoch", "bytes", "wait_ns", "verify_ns", "mismatches",
      };
      for (size_t i = 0; i < ARRAY_SIZE (names); i++)
        csv_line_str (&c->line, names[i]);
      for (const char *const *n = c->sink->item_columns; n && *n; n++)
        csv_line_str (&c->line, *n);
    }
  else
    {
      static const char *const names[] = {
        "items", "bytes", "seconds", "items_per_s", "gib_per_s", "cpu_s",
      };
      for (size_t i = 0; i < ARRAY_SIZE (names); i++)
        csv_line_str (&c->line, names[i]);
      csv_line_str (&c->line, c->sink->pin_column);
      csv_line_str (&c->line, "mismatches");
      csv_line_str (&c->line, "warmup_epochs");
      for (const char *const *n = c->sink->run_columns; n && *n; n++)
        csv_line_str (&c->line, *n);
    }
  csv_line_put (&c->line, stdout);
}

static bool
same_config (const struct run_config *a, const struct run_config *b)
{
  return a->backend == b->backend && a->pinned == b->pinned && a->size_bytes == b->size_bytes
    && a->dtype == b->dtype && a->kind == b->kind && a->workers == b->workers
    && a->slots == b->slots && a->items == b->items;
}

static struct source *
find_source (struct consumer *c, const struct handle_row *row, size_t line)
{
  if (c->nsources && STREQ (c->sources[c->last_source]->arena.name, row->arena))
    return c->sources[c->last_source];
  for (size_t i = 0; i < c->nsources; i++)
    if (STREQ (c->sources[i]->arena.name, row->arena))
      {
        c->last_source = i;
        return c->sources[i];
      }

  c->sources = xreallocarray (c->sources, c->nsources + 1, sizeof *c->sources);
  struct source *s = xcalloc (1, sizeof *s);
  c->sources[c->nsources] = s;
  const char *why;
  int err = arena_attach (&s->arena, row->arena, &why);
  if (err)
    {
      free (s);
      die (err == ENOENT ? EXIT_NOINPUT : EXIT_DATAERR, 0, "line %zu: arena '%s': %s",
         line, row->arena, why);
    }
  c->last_source = c->nsources++;
  const struct arena_header *h = s->arena.header;
  if (h->backend != row->config.backend || arena_pinned (&s->arena) != row->config.pinned
      || h->slot_count != row->config.slots)
    die (EXIT_DATAERR, 0, "line %zu: arena '%s': backend, pinned or slots differ from its header",
         line, row->arena);
  s->config = row->config;
  if (row->config.pinned && c->sink->pin)
    s->pinned = c->sink->pin (c->sink->context, &s->arena, &s->pin_ns);
  return s;
}

static void
on_record (const struct csv_record *record, void *context)
{
  struct consumer *c = context;
  uint64_t arrive = clock_now_ns ();
  char why[256];
  if (!c->have_header)
    {
      if (!handle_columns_parse (&c->columns, record, why, sizeof why))
        die (EXIT_DATAERR, 0, "line %zu: %s", record->line, why);
      c->have_header = true;
      c->idle_since_ns = clock_now_ns ();
      return;
    }

  struct consumer_item item = { .line = record->line, .arrive_ns = arrive };
  if (!handle_row_parse (&item.row, &c->columns, record, why, sizeof why))
    die (EXIT_DATAERR, 0, "line %zu: %s", record->line, why);
  struct source *s = find_source (c, &item.row, record->line);
  if (s->items && !same_config (&s->config, &item.row.config))
    die (EXIT_DATAERR, 0, "line %zu: configuration differs from earlier rows of arena '%s'",
         record->line, item.row.arena);
  if (c->options->report == REPORT_RUN && !same_config (&c->sources[0]->config, &item.row.config))
    die (EXIT_DATAERR, 0, "line %zu: rows mix configurations; --report run needs one",
         record->line);

  const char *reason;
  if (arena_check (&s->arena, &item.row.handle, &reason) != ARENA_OK)
    die (EXIT_DATAERR, 0, "line %zu: arena '%s': %s", record->line, item.row.arena, reason);
  s->items++;
  c->items_seen++;

  item.arena = &s->arena;
  item.slot = (unsigned) c->last_source;
  item.data = s->arena.base + item.row.handle.offset;
  item.wait_ns = arrive - c->idle_since_ns;
  item.measured = item.row.epoch >= c->options->warmup_epochs;
  item.source_pinned = s->pinned;
  if (item.measured && c->measured_items == 0 && c->window_start_ns == 0)
    {
      /* The window opens when we began waiting for the first measured row. */
      c->window_start_ns = c->idle_since_ns;
      c->cpu_start_ns = clock_cpu_ns ();
    }
  c->sink->process (c->sink->context, c, &item);
  c->idle_since_ns = clock_now_ns ();
}

bool
consumer_try_release (const struct consumer_item *item, const char **why)
{
  return arena_release (item->arena, &item->row.handle, why) == ARENA_OK;
}

void
consumer_release_failed (const struct consumer_item *item, const char *why)
{
  die (EXIT_DATAERR, 0, "line %zu: arena '%s': %s", item->line, item->row.arena, why);
}

void
consumer_release (struct consumer *c, const struct consumer_item *item)
{
  const char *why;
  if (!consumer_try_release (item, &why))
    consumer_release_failed (item, why);
}

void
consumer_complete (struct consumer *c, const struct consumer_item *item,
                   const struct consumer_result *result)
{
  const struct payload_check *check = &result->check;
  if (check->mismatches)
    {
      c->mismatched_items++;
      c->mismatches += check->mismatches;
      warn (0, "line %zu: sequence %" PRIu64 " leaf %u index %" PRIu64
            ": expected %g, found %g (%" PRIu64 " mismatched element%s in the item)",
            item->line, item->row.sequence, check->leaf, check->index, check->expected,
            check->actual, check->mismatches, check->mismatches == 1 ? "" : "s");
    }
  if (!item->measured)
    return;
  c->measured_items++;
  c->measured_bytes += item->row.handle.bytes;
  c->window_end_ns = clock_now_ns ();
  c->cpu_end_ns = clock_cpu_ns ();
  if (c->options->report != REPORT_ITEMS)
    return;

  print_receipt_header (c);
  run_config_format (&c->line, &item->row.config);
  csv_line_u64 (&c->line, item->row.sequence);
  csv_line_u64 (&c->line, item->row.worker);
  csv_line_u64 (&c->line, item->row.epoch);
  csv_line_u64 (&c->line, item->row.handle.bytes);
  csv_line_u64 (&c->line, item->wait_ns);
  if (c->options->verify)
    {
      csv_line_u64 (&c->line, result->verify_ns);
      csv_line_u64 (&c->line, check->mismatches);
    }
  else
    {
      csv_line_empty (&c->line);
      csv_line_empty (&c->line);
    }
  if (c->sink->item_extra)
    c->sink->item_extra (c->sink->context, item, result, &c->line);
  csv_line_put (&c->line, stdout);
}

static void
print_run_report (struct consumer *c)
{
  print_receipt_header (c);
  double seconds = (double) (c->window_end_ns - c->window_start_ns) / 1e9;
  uint64_t pin_ns = 0;
  for (size_t i = 0; i < c->nsources; i++)
    pin_ns += c->sources[i]->pin_ns;
  bool any_pinned = false;
  for (size_t i = 0; i < c->nsources; i++)
    any_pinned |= c->sources[i]->pinned;
  run_config_format (&c->line, &c->sources[0]->config);
  csv_line_u64 (&c->line, c->measured_items);
  csv_line_u64 (&c->line, c->measured_bytes);
  csv_line_fixed (&c->line, seconds, 6);
  csv_line_fixed (&c->line, seconds > 0 ? (double) c->measured_items / seconds : 0, 2);
  csv_line_fixed (&c->line, seconds > 0 ? (double) c->measured_bytes / seconds / (1 << 30) : 0, 4);
  csv_line_fixed (&c->line, (double) (c->cpu_end_ns - c->cpu_start_ns) / 1e9, 6);
  if (any_pinned)
    csv_line_fixed (&c->line, (double) pin_ns / 1e6, 3);
  else
    csv_line_empty (&c->line);
  if (c->options->verify)
    csv_line_u64 (&c->line, c->mismatches);
  else
    csv_line_empty (&c->line);
  csv_line_u64 (&c->line, c->options->warmup_epochs);
  if (c->sink->run_extra)
    c->sink->run_extra (c->sink->context, &c->line);
  csv_line_put (&c->line, stdout);
}

/* Every arena's producer must have finished and every item it published
   must have come through: otherwise the stream was cut short.  */
static void
check_streams_complete (struct consumer *c)
{
  for (size_t i = 0; i < c->nsources; i++)
    {
      struct source *s = c->sources[i];
      const struct arena_header *h = s->arena.header;
      uint64_t produced = atomic_load (&h->produced);
      bool done = atomic_load (&h->state) & ARENA_PRODUCER_DONE;
      if (!done || produced != s->items)
        die (EXIT_TEMPFAIL, 0,
             "arena '%s': truncated stream: producer (pid %d) %s after %" PRIu64
             " items, %" PRIu64 " rows received",
             s->arena.name, (int) h->producer_pid, done ? "finished" : "stopped",
             produced, s->items);
    }
}

int
consumer_run (const struct consumer_options *options, const struct consumer_sink *sink)
{
  struct consumer c = { .options = options, .sink = sink };
  active_consumer = &c;
  die_set_cleanup (consumer_cleanup);
  c.idle_since_ns = clock_now_ns ();

  struct csv_reader *reader = csv_reader_new (on_record, &c);
  csv_reader_read_fd (reader, STDIN_FILENO, "stdin");
  csv_reader_free (reader);
  if (sink->flush)
    sink->flush (sink->context, &c);
  /* A producer killed before its first row left an arena nobody named to
     us: remove such orphans, waiting a little for one still exiting when
     the stream ended early.  */
  bool complete = c.items_seen > 0;
  for (size_t i = 0; complete && i < c.nsources; i++)
    complete = atomic_load (&c.sources[i]->arena.header->state) & ARENA_PRODUCER_DONE;
  arena_sweep_orphans (complete ? 0 : ORPHAN_GRACE_NS);

  if (!c.have_header)
    die (EXIT_NOINPUT, 0, "stdin: no handle rows (empty input)");
  if (c.items_seen == 0)
    die (EXIT_NOINPUT, 0, "stdin: a header but no handle rows");
  check_streams_complete (&c);
  if (c.measured_items == 0)
    die (EXIT_NOINPUT, 0, "no measured items: every row belongs to the %u warm-up epoch%s",
         options->warmup_epochs, options->warmup_epochs == 1 ? "" : "s");

  if (options->report == REPORT_RUN)
    print_run_report (&c);
  for (size_t i = 0; i < c.nsources; i++)
    {
      if (c.sources[i]->pinned && sink->unpin)
        sink->unpin (sink->context, &c.sources[i]->arena);
      arena_detach (&c.sources[i]->arena, true);
      free (c.sources[i]);
    }
  active_consumer = NULL;
  die_set_cleanup (NULL);
  free (c.sources);
  csv_line_free (&c.line);
  return c.mismatched_items ? EXIT_MISMATCH : EXIT_OK;
}
