/* consumer.c -- the consuming half of the pipeline, shared by the CPU and
   GPU consumers. */
#include "system.h"
#include "consumer.h"
#include "clock.h"
#include "csv-reader.h"
#include "die.h"
#include "machine.h"

#include <inttypes.h>
#include <math.h>
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
  bool pinned;              /* page-locked: as achieved, not as asked */
  uint64_t shm_bytes;       /* what the object holds in /dev/shm */
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
  /* For the run report, counted as arenas are attached so that nothing
     depends on an arena still being held at the end.  */
  struct run_config first_config;
  uint64_t pss_before, shm_avail_before;
  uint64_t pin_ns, pinned_bytes, shm_bytes;
  bool all_pinned;
  bool pin_warned;
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
    case CONSUMER_OPT_REQUIRE_PIN:
      options->require_pin = true;
      return true;
    default:
      return false;
    }
}

/* ---------------------------------------------------------- receipts */

/* The configuration columns say what was achieved: a run asked to pin
   whose arena could not be page-locked is a pageable run, and its arm
   says so.  */
static const char *
achieved_arm (const struct run_config *config, bool pinned)
{
  struct run_config achieved = *config;
  achieved.pinned = pinned;
  return run_config_arm (&achieved);
}

#define ITEM(row) ((const struct consumer_item_receipt *) (row))
#define ITEM_CONFIG(row) (&ITEM (row)->item->row.config)
#define RUN(row) ((const struct consumer_run_receipt *) (row))

static void
item_arm (struct csv_line *line, const void *row)
{
  csv_line_str (line, achieved_arm (ITEM_CONFIG (row), ITEM (row)->item->source_pinned));
}

static void
item_backend (struct csv_line *line, const void *row)
{
  csv_line_str (line, arena_backend_names[ITEM_CONFIG (row)->backend]);
}

static void
item_dtype (struct csv_line *line, const void *row)
{
  csv_line_str (line, payload_dtypes[ITEM_CONFIG (row)->dtype].name);
}

static void
item_kind (struct csv_line *line, const void *row)
{
  csv_line_str (line, payload_kind_names[ITEM_CONFIG (row)->kind]);
}

#define ITEM_U64(name, expr) \
  static void item_##name (struct csv_line *line, const void *row) \
  { const struct consumer_item_receipt *r = row; csv_line_u64 (line, (expr)); }
ITEM_U64 (pinned, r->item->source_pinned)
ITEM_U64 (size_bytes, r->item->row.config.size_bytes)
ITEM_U64 (workers, r->item->row.config.workers)
ITEM_U64 (slots, r->item->row.config.slots)
ITEM_U64 (sequence, r->item->row.sequence)
ITEM_U64 (worker, r->item->row.worker)
ITEM_U64 (epoch, r->item->row.epoch)
ITEM_U64 (bytes, r->item->row.handle.bytes)
ITEM_U64 (wait_ns, r->item->wait_ns)

static void
item_verify_ns (struct csv_line *line, const void *row)
{
  csv_line_count (line, ITEM (row)->verified ? ITEM (row)->result->verify_ns : CSV_NONE);
}

static void
item_mismatches (struct csv_line *line, const void *row)
{
  csv_line_count (line, ITEM (row)->verified ? ITEM (row)->result->check.mismatches : CSV_NONE);
}

static const struct csv_column item_table[] = {
  { "arm", item_arm }, { "backend", item_backend }, { "pinned", item_pinned },
  { "size_bytes", item_size_bytes }, { "dtype", item_dtype }, { "kind", item_kind },
  { "workers", item_workers }, { "slots", item_slots },
  { "sequence", item_sequence }, { "worker", item_worker }, { "epoch", item_epoch },
  { "bytes", item_bytes }, { "wait_ns", item_wait_ns }, { "verify_ns", item_verify_ns },
  { "mismatches", item_mismatches },
  { NULL, NULL },
};

static void
run_str (struct csv_line *line, const char *value)
{
  if (value)
    csv_line_str (line, value);
  else
    csv_line_empty (line);
}

#define RUN_STR(name) \
  static void run_##name (struct csv_line *line, const void *row) \
  { run_str (line, RUN (row)->name); }
#define RUN_COUNT(name) \
  static void run_##name (struct csv_line *line, const void *row) \
  { csv_line_count (line, RUN (row)->name); }
#define RUN_FIXED(name, decimals) \
  static void run_##name (struct csv_line *line, const void *row) \
  { csv_line_fixed (line, RUN (row)->name, decimals); }
RUN_STR (arm)
RUN_STR (backend)
RUN_STR (dtype)
RUN_STR (kind)
RUN_COUNT (pinned)
RUN_COUNT (size_bytes)
RUN_COUNT (workers)
RUN_COUNT (slots)
RUN_COUNT (items)
RUN_COUNT (bytes)
RUN_FIXED (seconds, 6)
RUN_FIXED (items_per_s, 2)
RUN_FIXED (gb_per_s, 4)
RUN_FIXED (cpu_s, 6)
RUN_FIXED (pin_ms, 3)
RUN_COUNT (mismatches)
RUN_COUNT (warmup_epochs)
RUN_COUNT (pinned_bytes)
RUN_COUNT (shm_bytes)
RUN_COUNT (shm_avail_before_bytes)
RUN_COUNT (shm_avail_after_bytes)
RUN_COUNT (pss_before_bytes)
RUN_COUNT (pss_after_bytes)
RUN_COUNT (rss_peak_bytes)

/* The run report's columns; the sink names the page-lock time column.  */
static const struct csv_column run_common[] = {
  { "arm", run_arm }, { "backend", run_backend }, { "pinned", run_pinned },
  { "size_bytes", run_size_bytes }, { "dtype", run_dtype }, { "kind", run_kind },
  { "workers", run_workers }, { "slots", run_slots },
  { "items", run_items }, { "bytes", run_bytes }, { "seconds", run_seconds },
  { "items_per_s", run_items_per_s }, { "gb_per_s", run_gb_per_s }, { "cpu_s", run_cpu_s },
  { "pin_ms", run_pin_ms },
  { "mismatches", run_mismatches }, { "warmup_epochs", run_warmup_epochs },
  { "pinned_bytes", run_pinned_bytes }, { "shm_bytes", run_shm_bytes },
  { "shm_avail_before_bytes", run_shm_avail_before_bytes },
  { "shm_avail_after_bytes", run_shm_avail_after_bytes },
  { "pss_before_bytes", run_pss_before_bytes }, { "pss_after_bytes", run_pss_after_bytes },
  { "rss_peak_bytes", run_rss_peak_bytes },
};

/* One table of the common columns, then SINK's: the same for the header
   and every row.  */
static const struct csv_column *
run_table (const struct consumer_sink *sink)
{
  /* A command has one sink: build its table once.  */
  static struct csv_column *table;
  static const struct consumer_sink *table_sink;
  if (table_sink == sink)
    return table;
  size_t ncommon = ARRAY_SIZE (run_common), nextra = 0;
  while (sink->run_columns && sink->run_columns[nextra].name)
    nextra++;
  free (table);
  table = xcalloc (ncommon + nextra + 1, sizeof *table);
  memcpy (table, run_common, sizeof run_common);
  for (size_t i = 0; i < ncommon; i++)
    if (table[i].put == run_pin_ms && sink->pin_column)
      table[i].name = sink->pin_column;
  if (nextra)
    memcpy (table + ncommon, sink->run_columns, nextra * sizeof *table);
  table_sink = sink;
  return table;
}

static void
print_receipt_header (struct consumer *c)
{
  if (c->receipt_header_done)
    return;
  c->receipt_header_done = true;
  if (c->options->report == REPORT_ITEMS)
    {
      csv_columns_header (&c->line, item_table);
      if (c->sink->item_columns)
        csv_columns_header (&c->line, c->sink->item_columns);
    }
  else
    csv_columns_header (&c->line, run_table (c->sink));
  csv_line_put (&c->line, stdout);
}

static bool
same_config (const struct run_config *a, const struct run_config *b)
{
  return a->backend == b->backend && a->pinned == b->pinned && a->size_bytes == b->size_bytes
    && a->dtype == b->dtype && a->kind == b->kind && a->workers == b->workers
    && a->slots == b->slots && a->items == b->items;
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
  if (c->nsources == 1)
    {
      c->first_config = s->config;
      c->all_pinned = true;
    }
  c->pin_ns += s->pin_ns;
  c->all_pinned &= s->pinned;
  if (s->pinned)
    c->pinned_bytes += s->arena.map_bytes;
  c->shm_bytes = c->shm_bytes == CSV_NONE || s->shm_bytes == MACHINE_UNKNOWN
                 ? CSV_NONE : c->shm_bytes + s->shm_bytes;
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
      /* What the object is (missing, foreign, malformed) is about the
         input; anything else is the system refusing (EACCES, EMFILE,
         ENOMEM...), and its errno says why.  */
      bool about_input = err == ENOENT || err == EINVAL || err == ELOOP || err == EPERM
                         || err == EPROTO;
      die (err == ENOENT ? EXIT_NOINPUT : about_input ? EXIT_DATAERR : EXIT_OSERR,
           about_input ? 0 : err, "line %zu: arena %s: %s", line, quote (row->arena), why);
    }
  s->shm_bytes = machine_fd_allocated_bytes (s->arena.fd);
  c->last_source = c->nsources++;
  const struct arena_header *h = s->arena.header;
  if (h->backend != row->config.backend || arena_pinned (&s->arena) != row->config.pinned
      || h->slot_count != row->config.slots)
    die (EXIT_DATAERR, 0, "line %zu: arena '%s': backend, pinned or slots differ from its header",
         line, row->arena);
  s->config = row->config;
  if (row->config.pinned && c->sink->pin)
    {
      char refusal[256];
      s->pinned = c->sink->pin (c->sink->context, &s->arena, &s->pin_ns, refusal,
                                sizeof refusal);
      if (!s->pinned)
        pin_refused (c, s, refusal);
    }
  count_source (c, s);
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

/* IEEE half-precision bits of VALUE, which is exactly a half.  */
static uint16_t
half_bits (double value)
{
  uint16_t sign = signbit (value) ? 0x8000 : 0;
  double a = fabs (value);
  if (isnan (value))
    return sign | 0x7e00;
  if (isinf (value) || a >= 65536)
    return sign | 0x7c00;
  if (a < 0x1p-14)                      /* zero or subnormal: a * 2^24 units */
    return sign | (uint16_t) (a * 0x1p24);
  int e;
  double m = frexp (a, &e);             /* a = m * 2^e, 0.5 <= m < 1 */
  return sign | (uint16_t) ((e + 14) << 10) | (uint16_t) ((m * 2 - 1) * 1024);
}

/* VALUE (an element of DTYPE, exactly a double) as a message shows it:
   the fewest digits that read back as the same element, and for the
   floating types its bits too, so a flipped low bit can never read
   "expected 71, found 71".  */
static void
format_element (enum payload_dtype dtype, double value, char *buf, size_t size)
{
  char digits[40];
  if (value == trunc (value) && fabs (value) < 1e15)
    snprintf (digits, sizeof digits, "%.0f", value);      /* not "2e+01" */
  else
    for (int n = 1; n <= 17; n++)
      {
        snprintf (digits, sizeof digits, "%.*g", n, value);
        double back = strtod (digits, NULL);
        if (dtype == DTYPE_FP32 ? (float) back == (float) value : back == value)
          break;
      }
  if (dtype == DTYPE_FP32)
    {
      float f = (float) value;
      uint32_t bits;
      memcpy (&bits, &f, sizeof bits);
      snprintf (buf, size, "%s (0x%08" PRIx32 ")", digits, bits);
    }
  else if (dtype == DTYPE_FP16)
    snprintf (buf, size, "%s (0x%04x)", digits, (unsigned) half_bits (value));
  else
    snprintf (buf, size, "%s", digits);
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
      char expected[64], actual[64];
      format_element (item->row.config.dtype, check->expected, expected, sizeof expected);
      format_element (item->row.config.dtype, check->actual, actual, sizeof actual);
      warn (0, "line %zu: sequence %" PRIu64 " leaf %u index %" PRIu64
            ": expected %s, found %s (%" PRIu64 " mismatched element%s in the item)",
            item->line, item->row.sequence, check->leaf, check->index, expected,
            actual, check->mismatches, check->mismatches == 1 ? "" : "s");
    }
  if (!item->measured)
    return;
  c->measured_items++;
  c->measured_bytes += item->row.handle.bytes;
  uint64_t done = result->done_ns ? result->done_ns : clock_now_ns ();
  if (done > c->window_end_ns)
    c->window_end_ns = done;
  c->cpu_end_ns = clock_cpu_ns ();
  if (c->options->report != REPORT_ITEMS)
    return;

  print_receipt_header (c);
  struct consumer_item_receipt r = {
    .item = item, .result = result, .verified = c->options->verify,
  };
  csv_columns_row (&c->line, item_table, &r);
  if (c->sink->item_columns)
    csv_columns_row (&c->line, c->sink->item_columns, &r);
  csv_line_put (&c->line, stdout);
}

void
consumer_put_run_receipt (const struct consumer_sink *sink, const struct consumer_run_receipt *r)
{
  struct csv_line line = { 0 };
  csv_columns_row (&line, run_table (sink), r);
  csv_line_put (&line, stdout);
  csv_line_free (&line);
}

static void
print_run_report (struct consumer *c)
{
  print_receipt_header (c);
  double seconds = (double) (c->window_end_ns - c->window_start_ns) / 1e9;
  const struct run_config *config = &c->first_config;
  struct consumer_run_receipt r = {
    .arm = achieved_arm (config, c->all_pinned),
    .backend = arena_backend_names[config->backend],
    .pinned = c->all_pinned,
    .size_bytes = config->size_bytes,
    .dtype = payload_dtypes[config->dtype].name,
    .kind = payload_kind_names[config->kind],
    .workers = config->workers,
    .slots = config->slots,
    .items = c->measured_items,
    .bytes = c->measured_bytes,
    .seconds = seconds,
    .items_per_s = seconds > 0 ? (double) c->measured_items / seconds : 0,
    .gb_per_s = seconds > 0 ? (double) c->measured_bytes / seconds / 1e9 : 0,
    .cpu_s = (double) (c->cpu_end_ns - c->cpu_start_ns) / 1e9,
    .pin_ms = c->pinned_bytes ? (double) c->pin_ns / 1e6 : NAN,
    .mismatches = c->options->verify ? c->mismatches : CSV_NONE,
    .warmup_epochs = c->options->warmup_epochs,
    .pinned_bytes = c->pinned_bytes,
    .shm_bytes = c->shm_bytes,
    .shm_avail_before_bytes = c->shm_avail_before,
    .shm_avail_after_bytes = machine_fs_avail_bytes ("/dev/shm"),
    .pss_before_bytes = c->pss_before,
    .pss_after_bytes = machine_pss_bytes (),
    .rss_peak_bytes = machine_rss_peak_bytes (),
    .extra = c->sink->run_extra ? c->sink->run_extra (c->sink->context) : NULL,
  };
  csv_columns_row (&c->line, run_table (c->sink), &r);
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
  /* Before the first arena is mapped.  */
  c.pss_before = machine_pss_bytes ();
  c.shm_avail_before = machine_fs_avail_bytes ("/dev/shm");
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
