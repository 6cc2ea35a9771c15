/* consumer-sources.c -- the arenas a consumer has seen.  */
#include "system.h"
#include "consumer-sources.h"
#include "die.h"
#include "key-table.h"
#include "machine.h"
#include "work-share.h"

#include <inttypes.h>

static struct source **
bucket_of (const struct sources *sources, const char *name)
{
  return &sources->buckets[key_hash (name, strlen (name)) & (sources->nbuckets - 1)];
}

static void
table_grow (struct sources *sources)
{
  size_t old = sources->nbuckets;
  struct source **buckets = sources->buckets;
  sources->nbuckets = old ? 2 * old : 64;
  sources->buckets = xcalloc (sources->nbuckets, sizeof *sources->buckets);
  for (size_t i = 0; i < old; i++)
    for (struct source *s = buckets[i], *next; s; s = next)
      {
        next = s->next;
        struct source **b = bucket_of (sources, s->arena.name);
        s->next = *b;
        *b = s;
      }
  free (buckets);
}

static bool
recently_forgotten (const struct sources *sources, const char *name)
{
  for (size_t i = 0; sources->recent && i < SOURCES_RECENT; i++)
    if (STREQ (sources->recent[i], name))
      return true;
  return false;
}

static _Noreturn void
replayed (const char *name, size_t line)
{
  die (EXIT_DATAERR, 0, "line %zu: arena %s: a row after every item of the arena was "
       "released (a replayed row)", line, quote (name));
}

struct source *
sources_find (struct sources *sources, const char *name, size_t line)
{
  struct source *found = sources->last;
  if (!found || !STREQ (found->arena.name, name))
    {
      found = NULL;
      if (sources->nbuckets)
        for (found = *bucket_of (sources, name); found; found = found->next)
          if (STREQ (found->arena.name, name))
            break;
    }
  if ((found && found->finished) || (!found && recently_forgotten (sources, name)))
    replayed (name, line);
  if (found)
    sources->last = found;
  return found;
}

struct source *
sources_attach (struct sources *sources, const struct handle_row *row, size_t line)
{
  struct source *s = xcalloc (1, sizeof *s);
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
  if (sources->count >= sources->nbuckets)
    table_grow (sources);
  struct source **b = bucket_of (sources, s->arena.name);
  s->next = *b;
  *b = s;
  sources->count++;
  if (sources->nlive == sources->live_size)
    {
      sources->live_size = sources->live_size ? 2 * sources->live_size : 16;
      sources->live = xreallocarray (sources->live, sources->live_size, sizeof *sources->live);
    }
  s->live_index = sources->nlive;
  sources->live[sources->nlive++] = s;
  sources->last = s;
  s->shm_bytes = machine_fd_allocated_bytes (s->arena.fd);

  const struct arena *a = &s->arena;
  if (a->backend != row->config.backend || arena_pinned (a) != row->config.pinned
      || a->slot_count != row->config.slots)
    die (EXIT_DATAERR, 0, "line %zu: arena %s: backend, pinned or slots differ from its header",
         line, quote (row->arena));
  if (a->id.worker != row->worker || a->id.workers != row->config.workers
      || a->id.items != row->config.items || a->id.epochs != row->config.epochs
      || a->id.share != row->config.share)
    die (EXIT_DATAERR, 0, "line %zu: arena %s: worker, workers, items, epochs or share differ "
         "from its header (worker %" PRIu32 " of %" PRIu32 ", %" PRIu64 " items, %" PRIu32
         " epochs, share %s)", line, quote (row->arena), a->id.worker, a->id.workers,
         a->id.items, a->id.epochs, work_share_names[a->id.share]);
  /* The row's leaves and bytes follow from these (handle_row_parse), so
     a row that agrees here describes every item as its producer wrote it. */
  if (a->id.size_bytes != row->config.size_bytes || a->id.dtype != row->config.dtype
      || a->id.kind != row->config.kind)
    die (EXIT_DATAERR, 0, "line %zu: arena %s: size_bytes, dtype or kind differ from its "
         "header (size_bytes %" PRIu64 ", dtype %s, kind %s)", line, quote (row->arena),
         a->id.size_bytes, payload_dtypes[a->id.dtype].name, payload_kind_names[a->id.kind]);
  s->config = row->config;
  return s;
}

/* The sequences a run announced over all its epochs.  */
static uint64_t
run_items (const struct arena_identity *id)
{
  return work_share_arena_items (ARENA_SHARE_PULL, id->workers, id->items, id->epochs);
}

static struct pull_run *
pull_run_find (const struct sources *sources, uint64_t run_id)
{
  for (size_t i = 0; i < sources->npull; i++)
    if (sources->pull_runs[i].run_id == run_id)
      return &sources->pull_runs[i];
  return NULL;
}

static struct pull_run *
pull_run_of (struct sources *sources, const struct arena_identity *id)
{
  struct pull_run *r = pull_run_find (sources, id->run_id);
  if (r)
    return r;
  if (sources->npull == sources->pull_size)
    {
      sources->pull_size = sources->pull_size ? 2 * sources->pull_size : 4;
      sources->pull_runs = xreallocarray (sources->pull_runs, sources->pull_size,
                                          sizeof *sources->pull_runs);
    }
  r = &sources->pull_runs[sources->npull++];
  *r = (struct pull_run) { .run_id = id->run_id, .id = *id };
  return r;
}

static void
pull_run_forget (struct sources *sources, uint64_t run_id)
{
  struct pull_run *r = pull_run_find (sources, run_id);
  if (!r)
    return;
  sequence_ledger_free (&r->ledger);
  *r = sources->pull_runs[--sources->npull];
}

void
sources_count_item (struct sources *sources, struct source *s, const struct handle_row *row,
                    size_t line)
{
  /* A worker fills its items in sequence order, static or pulling: a
     sequence again or going back is a replayed or forged row.  */
  if (s->items && row->sequence <= s->last_sequence)
    die (EXIT_DATAERR, 0, "line %zu: arena %s: sequence %" PRIu64 " after sequence %" PRIu64
         ": a worker's sequences only grow (a replayed or forged row)", line,
         quote (row->arena), row->sequence, s->last_sequence);
  s->last_sequence = row->sequence;
  if (s->arena.id.share != ARENA_SHARE_PULL)
    return;
  struct pull_run *r = pull_run_of (sources, &s->arena.id);
  if (!sequence_ledger_mark (&r->ledger, row->sequence))
    die (EXIT_DATAERR, 0, "line %zu: arena %s: sequence %" PRIu64 " arrived before through "
         "another arena of its run (an item filled twice, or a replayed row)", line,
         quote (row->arena), row->sequence);
}

void
sources_check_config (const struct source *s, const struct handle_row *row, size_t line)
{
  if (s->items && (!run_config_same (&s->config, &row->config)
                   || s->config.epochs != row->config.epochs))
    die (EXIT_DATAERR, 0, "line %zu: configuration differs from earlier rows of arena %s",
         line, quote (row->arena));
  /* Every row, not only the first: a pulled item's sequence says nothing
     of its worker, and the receipts would credit the one the row names. */
  if (row->worker != s->arena.id.worker)
    die (EXIT_DATAERR, 0, "line %zu: arena %s: worker %" PRIu32 " differs from its header "
         "(worker %" PRIu32 ")", line, quote (row->arena), row->worker, s->arena.id.worker);
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

void
sources_check_item (struct source *s, const struct handle_row *row, size_t line)
{
  const char *reason;
  struct arena_item id = { .sequence = row->sequence, .epoch = row->epoch };
  enum arena_status st = arena_check (&s->arena, &row->handle, &id, &reason);
  /* A ring item that is truly there but later than the next one: the
     rows between were lost on the way, as in a pool.  */
  if (st == ARENA_ORDER && row->handle.generation > s->items + 1)
    check_in_order (s, row, line);
  if (st != ARENA_OK)
    die (EXIT_DATAERR, 0, "line %zu: arena %s: %s", line, quote (row->arena), reason);
  check_in_order (s, row, line);
}

bool
source_done (const struct source *s)
{
  return arena_finished (&s->arena)
    && atomic_load (&s->arena.released) == s->items
    && atomic_load (&s->arena.header->produced) == s->items;
}

static void
live_remove (struct sources *sources, struct source *s)
{
  struct source *moved = sources->live[--sources->nlive];
  sources->live[s->live_index] = moved;
  moved->live_index = s->live_index;
}

static void
table_remove (struct sources *sources, struct source *s)
{
  struct source **p = bucket_of (sources, s->arena.name);
  while (*p != s)
    p = &(*p)->next;
  *p = s->next;
  sources->count--;
  if (sources->last == s)
    sources->last = NULL;
}

static uint64_t
announced_per_worker (const struct arena_identity *id)
{
  return (uint64_t) id->epochs * id->items;
}

/* Drop the sources of RUN (finished, one per worker, every item in),
   keeping their names for replays and their count for the total.  */
static void
forget_run (struct sources *sources, struct source **run, size_t n)
{
  if (!sources->recent)
    sources->recent = xcalloc (SOURCES_RECENT, sizeof *sources->recent);
  for (size_t i = 0; i < n; i++)
    {
      struct source *s = run[i];
      sources->forgotten_items += s->items;
      snprintf (sources->recent[sources->recent_next], sizeof *sources->recent, "%s",
                s->arena.name);
      sources->recent_next = (sources->recent_next + 1) % SOURCES_RECENT;
      table_remove (sources, s);
      free (s);
    }
}

static int
by_run_and_worker (const void *a, const void *b)
{
  const struct source *x = *(struct source *const *) a, *y = *(struct source *const *) b;
  if (x->arena.id.run_id != y->arena.id.run_id)
    return x->arena.id.run_id < y->arena.id.run_id ? -1 : 1;
  return (x->arena.id.worker > y->arena.id.worker) - (x->arena.id.worker < y->arena.id.worker);
}

/* Every worker of S's run has its source here, each with every item.  */
static bool
run_complete (const struct sources *sources, const struct source *s, struct source **run,
              size_t *n)
{
  const struct arena_identity *id = &s->arena.id;
  bool pull = id->share == ARENA_SHARE_PULL;
  *n = 0;
  for (size_t i = 0; i < sources->nbuckets; i++)
    for (struct source *t = sources->buckets[i]; t; t = t->next)
      if (t->arena.id.run_id == id->run_id)
        {
          if (!t->finished || (!pull && t->items != announced_per_worker (id))
              || *n == id->workers)
            return false;
          run[(*n)++] = t;
        }
  /* A pulling worker may have filled nothing, and named no arena.  */
  if (pull)
    {
      const struct pull_run *r = pull_run_find (sources, id->run_id);
      return r && r->ledger.count == run_items (id);
    }
  if (*n != id->workers)
    return false;
  /* One arena per worker: two claiming one worker leave another missing. */
  qsort (run, *n, sizeof *run, by_run_and_worker);
  for (size_t i = 0; i < *n; i++)
    if (run[i]->arena.id.worker != i)
      return false;
  return true;
}

/* A run's arenas go together, once its last item is in: unpinning one
   (cudaHostUnregister synchronizes the device) while other workers' items
   are still being copied would stall the measured window.  */
void
sources_let_go (struct sources *sources, void (*before) (void *context),
                void (*unpin) (void *context, struct source *s), void *context)
{
  for (size_t i = 0; i < sources->nlive;)
    {
      struct source *s = sources->live[i];
      bool run_done = source_done (s);
      for (size_t j = 0; run_done && j < sources->nlive; j++)
        if (sources->live[j]->arena.id.run_id == s->arena.id.run_id)
          run_done = source_done (sources->live[j]);
      if (!run_done)
        {
          i++;
          continue;
        }
      before (context);
      uint64_t run_id = s->arena.id.run_id;
      /* Every live arena of the run, this one included, from the end of
         the list so that removals do not skip any.  */
      for (size_t j = sources->nlive; j-- > 0;)
        {
          struct source *t = sources->live[j];
          if (t->arena.id.run_id != run_id)
            continue;
          if (t->pinned && unpin)
            unpin (context, t);
          arena_detach (&t->arena, true);
          t->finished = true;
          live_remove (sources, t);
        }
      struct source **run = xreallocarray (NULL, s->arena.id.workers, sizeof *run);
      size_t n;
      if (run_complete (sources, s, run, &n))
        {
          forget_run (sources, run, n);
          pull_run_forget (sources, run_id);
        }
      free (run);
      i = 0;
    }
}

bool
sources_producers_done (const struct sources *sources)
{
  for (size_t i = 0; i < sources->nlive; i++)
    if (!(atomic_load (&sources->live[i]->arena.header->state) & ARENA_PRODUCER_DONE))
      return false;
  return true;
}

/* How many lines name missing items before the rest are only counted.  */
#define MISSING_LINES_MAX 20

/* Report the items of worker W, epochs from FIRST (its items from INDEX
   on), that never came; returns how many.  */
static uint64_t
report_missing (const struct arena_identity *id, uint32_t worker, uint64_t received,
                const char *why, unsigned *lines)
{
  uint64_t total = announced_per_worker (id);
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

/* Report the sequences of a pull run that never came, by epoch; returns
   how many.  LEDGER is NULL when none of its rows came.  */
static uint64_t
report_missing_pulled (const struct pull_run *run, const struct arena_identity *id,
                       unsigned *lines)
{
  static const struct sequence_ledger none;
  const struct sequence_ledger *ledger = run ? &run->ledger : &none;
  uint64_t per_epoch = id->items * id->workers;
  for (uint32_t e = 0; e < id->epochs && *lines < MISSING_LINES_MAX; e++)
    {
      uint64_t from = per_epoch * e, end = from + per_epoch, first, last;
      while (*lines < MISSING_LINES_MAX && sequence_ledger_gap (ledger, from, end, &first, &last))
        {
          (*lines)++;
          if (first == last)
            warn (0, "epoch %" PRIu32 ": sequence %" PRIu64 " missing (1 of the epoch's %"
                  PRIu64 " items, which any worker could fill)", e, first, per_epoch);
          else
            warn (0, "epoch %" PRIu32 ": sequences %" PRIu64 "-%" PRIu64 " missing (%" PRIu64
                  " of the epoch's %" PRIu64 " items, which any worker could fill)", e, first,
                  last, last - first + 1, per_epoch);
          from = last + 1;
        }
    }
  return run_items (id) - ledger->count;
}

/* A worker with no arena among the rows (killed before its first row, or
   its rows filtered out) is missing too.  */
void
sources_check_complete (const struct sources *sources)
{
  uint64_t missing = 0, announced = sources->forgotten_items;
  unsigned lines = 0;
  size_t n = 0;
  struct source **sorted = xreallocarray (NULL, sources->count + 1, sizeof *sorted);
  for (size_t b = 0; b < sources->nbuckets; b++)
    for (struct source *s = sources->buckets[b]; s; s = s->next)
      sorted[n++] = s;
  for (size_t i = 0; i < n; i++)
    {
      struct source *s = sorted[i];
      if (atomic_load (&s->arena.released) != s->items)
        die (EXIT_SOFTWARE, 0, "arena %s: %" PRIu64 " items received but %" PRIu64
             " released", quote (s->arena.name), s->items,
             (uint64_t) atomic_load (&s->arena.released));
      if (s->finished)
        continue;
      const struct arena_header *h = s->arena.header;
      uint64_t produced = arena_produced_count (&s->arena);
      bool done = atomic_load (&h->state) & ARENA_PRODUCER_DONE;
      if (!done || produced != s->items)
        warn (0, "arena %s: truncated stream: producer (pid %d) %s after %" PRIu64
              " items, %" PRIu64 " rows received",
              quote (s->arena.name), (int) s->arena.producer_pid, done ? "finished" : "stopped",
              produced, s->items);
    }
  qsort (sorted, n, sizeof *sorted, by_run_and_worker);
  for (size_t i = 0; i < n;)
    {
      const struct arena_identity *id = &sorted[i]->arena.id;
      announced += (uint64_t) id->workers * announced_per_worker (id);
      /* Walk the run's workers; arenas of it lie at [i, end).  */
      size_t end = i;
      while (end < n && sorted[end]->arena.id.run_id == id->run_id)
        end++;
      if (id->share == ARENA_SHARE_PULL)
        {
          missing += report_missing_pulled (pull_run_find (sources, id->run_id), id, &lines);
          i = end;
          continue;
        }
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
        announced += announced_per_worker (id);
      i = end;
    }
  free (sorted);
  if (missing)
    die (EXIT_TEMPFAIL, 0, "%" PRIu64 " of %" PRIu64 " announced items missing%s", missing,
         announced, lines >= MISSING_LINES_MAX ? " (the first ranges are listed above)" : "");
}

void
sources_free (struct sources *sources, void (*unpin) (void *context, struct source *s),
              void *context, bool abandon)
{
  for (size_t b = 0; b < sources->nbuckets; b++)
    for (struct source *s = sources->buckets[b], *next; s; s = next)
      {
        next = s->next;
        if (s->finished)
          {
            if (!abandon)
              free (s);
            continue;
          }
        if (s->pinned && unpin && !abandon)
          unpin (context, s);
        arena_detach (&s->arena, true);
        if (!abandon)
          free (s);
      }
  if (abandon)
    return;
  while (sources->npull)
    pull_run_forget (sources, sources->pull_runs[0].run_id);
  free (sources->pull_runs);
  free (sources->buckets);
  free (sources->live);
  free (sources->recent);
  *sources = (struct sources) { 0 };
}
