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
#include <signal.h>
#include <sys/time.h>
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
  uint64_t items;             /* rows received: generations 1..items */
  uint64_t pin_ns;
  bool pinned;              /* page-locked: as achieved, not as asked */
  uint64_t shm_bytes;       /* what the object holds in /dev/shm */
  bool finished;              /* every item released, arena unmapped */
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
  struct source **live;       /* sources still mapped */
  size_t nlive;
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
  /* "After": sampled while arenas are still mapped, just before each
     finished one is let go and at the end; the highest PSS and the least
     available space of those samples.  */
  uint64_t pss_after, shm_avail_after;
  bool after_taken;
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
    case CONSUMER_OPT_TIMEOUT:
      options->timeout_s = options_double ("--timeout", arg, 0.001, 1e6);
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
  struct source *found = NULL;
  if (c->nsources && STREQ (c->sources[c->last_source]->arena.name, row->arena))
    found = c->sources[c->last_source];
  for (size_t i = 0; !found && i < c->nsources; i++)
    if (STREQ (c->sources[i]->arena.name, row->arena))
      {
        c->last_source = i;
        found = c->sources[i];
      }
  if (found && found->finished)
    die (EXIT_DATAERR, 0, "line %zu: arena %s: a row after every item of the arena was "
         "released (a replayed row)", line, quote (row->arena));
  if (found)
    return found;

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
                         || err == EPROTO || err == EBUSY;
      die (err == ENOENT ? EXIT_NOINPUT : about_input ? EXIT_DATAERR : EXIT_OSERR,
           about_input ? 0 : err, "line %zu: arena %s: %s", line, quote (row->arena), why);
    }
  s->shm_bytes = machine_fd_allocated_bytes (s->arena.fd);
  c->last_source = c->nsources++;
  c->live = xreallocarray (c->live, c->nlive + 1, sizeof *c->live);
  c->live[c->nlive++] = s;
  const struct arena *a = &s->arena;
  if (a->backend != row->config.backend || arena_pinned (a) != row->config.pinned
      || a->slot_count != row->config.slots)
    die (EXIT_DATAERR, 0, "line %zu: arena %s: backend, pinned or slots differ from its header",
         line, quote (row->arena));
  if (a->id.worker != row->worker || a->id.workers != row->config.workers
      || a->id.items != row->config.items || a->id.epochs != row->config.epochs)
    die (EXIT_DATAERR, 0, "line %zu: arena %s: worker, workers, items or epochs differ "
         "from its header (worker %" PRIu32 " of %" PRIu32 ", %" PRIu64 " items, %" PRIu32
         " epochs)", line, quote (row->arena), a->id.worker, a->id.workers, a->id.items,
         a->id.epochs);
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

/* ------------------------------------------------------ completeness */

/* The sequence of the item with generation GENERATION (from 1) of arena
   S: a producer publishes its items in order, epoch by epoch.  */
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
take_memory_after (struct consumer *c)
{
  uint64_t pss = machine_pss_bytes (), avail = machine_fs_avail_bytes ("/dev/shm");
  if (!c->after_taken || pss > c->pss_after)
    c->pss_after = pss;
  if (!c->after_taken || avail < c->shm_avail_after)
    c->shm_avail_after = avail;
  c->after_taken = true;
}

/* Every item of S was published and released: nothing more will come.  */
static bool
source_done (const struct source *s)
{
  return arena_finished (&s->arena)
    && atomic_load (&s->arena.released) == s->items
    && atomic_load (&s->arena.header->produced) == s->items;
}

/* Unmap the arenas of every producer run whose arenas are all done: a
   long-lived consumer keeps no finished arena (nor its /dev/shm pages, nor
   a descriptor).  A run's arenas go together, once its last item is in:
   unpinning one (cudaHostUnregister synchronizes the device) while other
   workers' items are still being copied would stall the measured window. */
static void
release_finished (struct consumer *c)
{
  for (size_t i = 0; i < c->nlive;)
    {
      struct source *s = c->live[i];
      bool run_done = source_done (s);
      for (size_t j = 0; run_done && j < c->nlive; j++)
        if (c->live[j]->arena.id.run_id == s->arena.id.run_id)
          run_done = source_done (c->live[j]);
      if (!run_done)
        {
          i++;
          continue;
        }
      take_memory_after (c);
      if (s->pinned && c->sink->unpin)
        c->sink->unpin (c->sink->context, &s->arena);
      arena_detach (&s->arena, true);
      s->finished = true;
      c->live[i] = c->live[--c->nlive];
    }
}

/* How many lines name missing items before the rest are only counted.  */
#define MISSING_LINES_MAX 20

/* Report the items of worker W, epochs from FIRST (its items from INDEX
   on), that never came; returns how many.  */
static uint64_t
report_missing (const struct arena_identity *id, uint32_t worker, uint64_t received,
                const char *why, unsigned *lines)
{
  uint64_t total = (uint64_t) id->epochs * id->items;
  if (received >= total)
    return 0;
  for (uint32_t e = (uint32_t) (received / id->items); e < id->epochs; e++)
    {
      if (*lines >= MISSING_LINES_MAX)
        break;
      (*lines)++;
      uint64_t from = e == received / id->items ? received % id->items : 0;
      uint64_t base = ((uint64_t) e * id->workers + worker) * id->items;
      if (from + 1 == id->items)
        warn (0, "worker %" PRIu32 " epoch %" PRIu32 ": sequence %" PRIu64 " missing (1 of %"
              PRIu64 " items%s)", worker, e, base + from, id->items, why);
      else
        warn (0, "worker %" PRIu32 " epoch %" PRIu32 ": sequences %" PRIu64 "-%" PRIu64
              " missing (%" PRIu64 " of %" PRIu64 " items%s)", worker, e, base + from,
              base + id->items - 1, id->items - from, id->items, why);
    }
  return total - received;
}

static int
by_run_and_worker (const void *a, const void *b)
{
  const struct source *x = *(struct source *const *) a, *y = *(struct source *const *) b;
  if (x->arena.id.run_id != y->arena.id.run_id)
    return x->arena.id.run_id < y->arena.id.run_id ? -1 : 1;
  return (x->arena.id.worker > y->arena.id.worker) - (x->arena.id.worker < y->arena.id.worker);
}

/* End of input: every item of every worker and epoch that the arenas of
   each run announced must have been received and released exactly once.
   A worker with no arena among the rows (killed before its first row, or
   its rows filtered out) is missing too.  */
static void
check_streams_complete (struct consumer *c)
{
  uint64_t missing = 0, announced = 0;
  unsigned lines = 0;
  for (size_t i = 0; i < c->nsources; i++)
    {
      struct source *s = c->sources[i];
      if (atomic_load (&s->arena.released) != s->items)
        die (EXIT_SOFTWARE, 0, "arena %s: %" PRIu64 " items received but %" PRIu64
             " released", quote (s->arena.name), s->items,
             (uint64_t) atomic_load (&s->arena.released));
      if (s->finished)
        continue;
      const struct arena_header *h = s->arena.header;
      uint64_t produced = atomic_load (&h->produced);
      bool done = atomic_load (&h->state) & ARENA_PRODUCER_DONE;
      if (!done || produced != s->items)
        warn (0, "arena %s: truncated stream: producer (pid %d) %s after %" PRIu64
              " items, %" PRIu64 " rows received",
              quote (s->arena.name), (int) h->producer_pid, done ? "finished" : "stopped",
              produced, s->items);
    }
  struct source **sorted = xreallocarray (NULL, c->nsources, sizeof *sorted);
  memcpy (sorted, c->sources, c->nsources * sizeof *sorted);
  qsort (sorted, c->nsources, sizeof *sorted, by_run_and_worker);
  for (size_t i = 0; i < c->nsources;)
    {
      const struct arena_identity *id = &sorted[i]->arena.id;
      announced += (uint64_t) id->workers * id->epochs * id->items;
      /* Walk the run's workers; arenas of it lie at [i, end).  */
      size_t end = i;
      while (end < c->nsources && sorted[end]->arena.id.run_id == id->run_id)
        end++;
      size_t k = i;
      for (uint32_t w = 0; w < id->workers; w++)
        {
          if (k < end && sorted[k]->arena.id.worker == w)
            {
              missing += report_missing (id, w, sorted[k]->items, "", &lines);
              k++;
            }
          else
            missing += report_missing (id, w, 0, "; no row of this worker arrived", &lines);
        }
      /* Two arenas claiming one worker of a run: the second one's items
         count against the total as well.  */
      for (; k < end; k++)
        announced += (uint64_t) id->epochs * id->items;
      i = end;
    }
  free (sorted);
  if (missing)
    die (EXIT_TEMPFAIL, 0, "%" PRIu64 " of %" PRIu64 " announced items missing%s", missing,
         announced, lines >= MISSING_LINES_MAX ? " (the first ranges are listed above)" : "");
}

/* ------------------------------------------------------ --timeout */

/* The time we started waiting for the next row (0 while busy), read by
   the timer's handler.  */
static _Atomic uint64_t waiting_since_ns;
static _Atomic uint64_t rows_read;
static uint64_t row_timeout_ns;

static size_t
format_u64 (char *out, uint64_t v)
{
  char digits[24];
  size_t n = 0;
  do
    digits[n++] = (char) ('0' + v % 10);
  while (v /= 10);
  for (size_t i = 0; i < n; i++)
    out[i] = digits[n - 1 - i];
  return n;
}

/* The timer: no row for --timeout seconds.  Only write(2) and _exit(2)
   here; the producer notices our lock is gone, and nothing of ours is
   left in /dev/shm (names are unlinked at attach).  */
static void
on_row_timer (int sig)
{
  (void) sig;
  uint64_t since = atomic_load (&waiting_since_ns);
  if (!since || clock_now_ns () - since < row_timeout_ns)
    return;
  char text[512];
  size_t n = 0;
  const char *parts[] = { program_name, ": stdin: no handle row for ", NULL };
  for (const char **p = parts; *p; p++)
    for (const char *q = *p; *q && n < 200; q++)
      text[n++] = *q;
  n += format_u64 (text + n, row_timeout_ns / 1000000000ULL);
  uint64_t ms = row_timeout_ns / 1000000ULL % 1000;
  if (ms)
    {
      text[n++] = '.';
      text[n++] = (char) ('0' + ms / 100);
      if (ms % 100)
        text[n++] = (char) ('0' + ms / 10 % 10);
      if (ms % 10)
        text[n++] = (char) ('0' + ms % 10);
    }
  const char *mid = " s after ";
  for (const char *q = mid; *q; q++)
    text[n++] = *q;
  uint64_t rows = atomic_load (&rows_read);
  n += format_u64 (text + n, rows);
  const char *tail = rows == 1 ? " line: the producer stalled, or a filter in the pipe holds the rows\n"
    : " lines: the producer stalled, or a filter in the pipe holds the rows\n";
  for (const char *q = tail; *q; q++)
    text[n++] = *q;
  ssize_t ignored = write (STDERR_FILENO, text, n);
  (void) ignored;
  _exit (EXIT_TEMPFAIL);
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
  if (s->items && !same_config (&s->config, &item.row.config))
    die (EXIT_DATAERR, 0, "line %zu: configuration differs from earlier rows of arena %s",
         record->line, quote (item.row.arena));
  if (c->options->report == REPORT_RUN && !same_config (&c->sources[0]->config, &item.row.config))
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
  release_finished (c);
  c->idle_since_ns = clock_now_ns ();
  waiting_since_ns = c->idle_since_ns;
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
  take_memory_after (c);
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
    .shm_avail_after_bytes = c->shm_avail_after,
    .pss_before_bytes = c->pss_before,
    .pss_after_bytes = c->pss_after,
    .rss_peak_bytes = machine_rss_peak_bytes (),
    .extra = c->sink->run_extra ? c->sink->run_extra (c->sink->context) : NULL,
  };
  csv_columns_row (&c->line, run_table (c->sink), &r);
  csv_line_put (&c->line, stdout);
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
  /* Another process may truncate an arena under us: say so, do not die
     of SIGBUS.  */
  static sigjmp_buf truncated;
  if (sigsetjmp (truncated, 1))
    die (EXIT_DATAERR, 0, "arena %s: truncated by another process while in use",
         quote (arena_fault_name ()));
  arena_fault_catch (&truncated);
  waiting_since_ns = c.idle_since_ns;
  start_row_timer (options->timeout_s);

  struct csv_reader *reader = csv_reader_new (on_record, &c);
  csv_reader_read_fd (reader, STDIN_FILENO, "stdin");
  csv_reader_free (reader);
  stop_row_timer ();
  if (sink->flush)
    sink->flush (sink->context, &c);
  /* A producer killed before its first row left an arena nobody named to
     us: remove such orphans, waiting a little for one still exiting when
     the stream ended early.  */
  bool complete = c.items_seen > 0;
  for (size_t i = 0; complete && i < c.nsources; i++)
    complete = c.sources[i]->finished
      || atomic_load (&c.sources[i]->arena.header->state) & ARENA_PRODUCER_DONE;
  arena_sweep_orphans (complete ? 0 : ORPHAN_GRACE_NS, NULL);

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
      if (c.sources[i]->pinned && !c.sources[i]->finished && sink->unpin)
        sink->unpin (sink->context, &c.sources[i]->arena);
      arena_detach (&c.sources[i]->arena, true);
      free (c.sources[i]);
    }
  arena_fault_catch (NULL);
  active_consumer = NULL;
  die_set_cleanup (NULL);
  free (c.sources);
  free (c.live);
  csv_line_free (&c.line);
  return c.mismatched_items ? EXIT_MISMATCH : EXIT_OK;
}
