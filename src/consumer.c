/* consumer.c -- the consuming half of the pipeline, shared by the CPU and
   GPU consumers. */
#include "system.h"
#include "consumer.h"
#include "clock.h"
#include "csv-reader.h"
#include "die.h"

#include <inttypes.h>
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
  bool pinned;
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
    case CONSUMER_OPT_TIMEOUT:
      options->timeout_s = options_double ("--timeout", arg, 0.001, 1e6);
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
    die (EXIT_DATAERR, 0, "line %zu: arena '%s': a row after every item of the arena was "
         "released (a replayed row)", line, row->arena);
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
      die (err == ENOENT ? EXIT_NOINPUT : EXIT_DATAERR, 0, "line %zu: arena '%s': %s",
         line, row->arena, why);
    }
  c->last_source = c->nsources++;
  c->live = xreallocarray (c->live, c->nlive + 1, sizeof *c->live);
  c->live[c->nlive++] = s;
  const struct arena *a = &s->arena;
  if (a->backend != row->config.backend || arena_pinned (a) != row->config.pinned
      || a->slot_count != row->config.slots)
    die (EXIT_DATAERR, 0, "line %zu: arena '%s': backend, pinned or slots differ from its header",
         line, row->arena);
  if (a->id.worker != row->worker || a->id.workers != row->config.workers
      || a->id.items != row->config.items || a->id.epochs != row->config.epochs)
    die (EXIT_DATAERR, 0, "line %zu: arena '%s': worker, workers, items or epochs differ "
         "from its header (worker %" PRIu32 " of %" PRIu32 ", %" PRIu64 " items, %" PRIu32
         " epochs)", line, row->arena, a->id.worker, a->id.workers, a->id.items, a->id.epochs);
  s->config = row->config;
  if (row->config.pinned && c->sink->pin)
    s->pinned = c->sink->pin (c->sink->context, &s->arena, &s->pin_ns);
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

/* Unmap every arena whose producer has published its last item and whose
   items have all been released: a long-lived consumer keeps no finished
   arena (nor its /dev/shm pages, nor a descriptor).  */
static void
release_finished (struct consumer *c)
{
  for (size_t i = 0; i < c->nlive;)
    {
      struct source *s = c->live[i];
      if (!arena_finished (&s->arena)
          || atomic_load (&s->arena.released) != s->items
          || atomic_load (&s->arena.header->produced) != s->items)
        {
          i++;
          continue;
        }
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
        die (EXIT_SOFTWARE, 0, "arena '%s': %" PRIu64 " items received but %" PRIu64
             " released", s->arena.name, s->items, (uint64_t) atomic_load (&s->arena.released));
      if (s->finished)
        continue;
      const struct arena_header *h = s->arena.header;
      uint64_t produced = atomic_load (&h->produced);
      bool done = atomic_load (&h->state) & ARENA_PRODUCER_DONE;
      if (!done || produced != s->items)
        warn (0, "arena '%s': truncated stream: producer (pid %d) %s after %" PRIu64
              " items, %" PRIu64 " rows received",
              s->arena.name, (int) h->producer_pid, done ? "finished" : "stopped",
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
    die (EXIT_DATAERR, 0, "line %zu: configuration differs from earlier rows of arena '%s'",
         record->line, item.row.arena);
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
    die (EXIT_DATAERR, 0, "line %zu: arena '%s': %s", record->line, item.row.arena, reason);
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

int
consumer_run (const struct consumer_options *options, const struct consumer_sink *sink)
{
  struct consumer c = { .options = options, .sink = sink };
  active_consumer = &c;
  die_set_cleanup (consumer_cleanup);
  c.idle_since_ns = clock_now_ns ();
  /* Another process may truncate an arena under us: say so, do not die
     of SIGBUS.  */
  static sigjmp_buf truncated;
  if (sigsetjmp (truncated, 1))
    die (EXIT_DATAERR, 0, "arena '%s': truncated by another process while in use",
         arena_fault_name ());
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
