/* consumer-sources.h -- the arenas a consumer has seen: found by name in a
   hash table, attached and cross-checked on first sight, let go a run at a
   time once done, and forgotten once every item of their run is in, so a
   long-lived consumer's memory and lookups stay flat however many arenas
   pass through it.  */
#ifndef ARENABENCH_CONSUMER_SOURCES_H
#define ARENABENCH_CONSUMER_SOURCES_H

#include "arena.h"
#include "handle-row.h"
#include "sequence-ledger.h"

/* An arena seen in the stream, and what came through it.  */
struct source
{
  struct arena arena;
  struct run_config config;
  uint64_t items;             /* rows received: generations 1..items */
  uint64_t last_sequence;     /* the latest row's: a worker's only grow */
  uint64_t pin_ns;
  bool pinned;                /* page-locked: as achieved, not as asked */
  uint64_t shm_bytes;         /* what the object holds in /dev/shm */
  bool finished;              /* every item released, arena unmapped */
  int worker_pid;             /* its producer worker (consumer-machine.h) */
  struct source *next;        /* hash chain */
  size_t live_index;          /* in the live list, while mapped */
};

/* A pull run (work-share.h): which of its sequences arrived, through
   whichever of its arenas.  */
struct pull_run
{
  uint64_t run_id;
  struct arena_identity id;
  struct sequence_ledger ledger;
};

/* How many names of forgotten arenas are kept, so that a row replayed
   after its arena was let go is still called a replay.  */
#define SOURCES_RECENT 256

struct sources
{
  struct source **buckets;
  size_t nbuckets, count;
  struct source **live;         /* sources still mapped */
  size_t nlive, live_size;
  struct source *last;          /* the previous row's */
  /* Forgotten runs: complete, so only their item count is kept.  */
  uint64_t forgotten_items;
  char (*recent)[sizeof ((struct arena *) 0)->name];
  size_t recent_next;
  struct pull_run *pull_runs;   /* pull runs not yet forgotten */
  size_t npull, pull_size;
};

/* The source of arena NAME, or NULL when it is new.  Dies (65) when NAME
   was finished already: a replayed row, at input line LINE.  */
struct source *sources_find (struct sources *sources, const char *name, size_t line);

/* Attach the arena ROW names and check its header against ROW; dies on
   failure with LINE.  */
struct source *sources_attach (struct sources *sources, const struct handle_row *row,
                               size_t line);

/* ROW, of S at input line LINE, must repeat the configuration of S's
   earlier rows, epochs too; dies (65) otherwise.  */
void sources_check_config (const struct source *s, const struct handle_row *row, size_t line);

/* ROW's item must be in S's arena as ROW says (65) and the next of S's
   items (75: a row was lost on the way).  */
void sources_check_item (struct source *s, const struct handle_row *row, size_t line);

/* Count ROW, the next item of S at input line LINE: its sequence must
   come after the arena's previous one, and, in a pull run, must not have
   come through another arena of the run; dies (65) otherwise.  */
void sources_count_item (struct sources *sources, struct source *s,
                         const struct handle_row *row, size_t line);

/* Whether every item of S was published and released.  */
bool source_done (const struct source *s);

/* Unmap the arenas of every producer run whose arenas are all done,
   calling BEFORE first (once per run) and UNPIN for each pinned one; a
   complete run is then forgotten.  */
void sources_let_go (struct sources *sources, void (*before) (void *context),
                     void (*unpin) (void *context, struct source *s), void *context);

/* End of input: are the producers of every arena still held done?  */
bool sources_producers_done (const struct sources *sources);

/* End of input: every item of every worker and epoch that the arenas of
   each run announced must have been received and released exactly once
   (in a pull run, every sequence of every epoch, whichever worker filled
   it); dies with EXIT_TEMPFAIL naming what is missing.  */
void sources_check_complete (const struct sources *sources);

/* Unmap and free everything: UNPIN (may be NULL) for each pinned arena
   still mapped.  With ABANDON (dying), only say we are gone.  */
void sources_free (struct sources *sources, void (*unpin) (void *context, struct source *s),
                   void *context, bool abandon);

#endif
