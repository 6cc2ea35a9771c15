/* consumer-object.h -- what the consumer modules share: the items a sink
   takes and gives back, the receipt rows, the sink and the options.  Types
   only: consumer.h (the interface) and the consumer modules' own headers
   build on it, and it includes none of theirs.  */
#ifndef ARENABENCH_CONSUMER_OBJECT_H
#define ARENABENCH_CONSUMER_OBJECT_H

#include "arena.h"
#include "csv-writer.h"
#include "handle-row.h"
#include "trace.h"
#include "payload.h"

struct consumer_machine_cells;

enum report_mode { REPORT_ITEMS, REPORT_RUN };

struct consumer;

/* One item handed to the sink.  The sink may copy it; DATA stays valid
   until consumer_release.  */
struct consumer_item
{
  struct handle_row row;
  struct arena *arena;
  const unsigned char *data;
  size_t line;              /* input line of its handle row */
  uint64_t wait_ns;         /* time the consumer waited for this row */
  uint64_t arrive_ns;       /* when the row was read */
  bool measured;            /* not part of a warm-up epoch */
  bool source_pinned;       /* its arena is page-locked right now */
  const char *arm;          /* its receipts' arm: "pool-pinned" */
};

/* How one item turned out, given back through consumer_complete.  */
struct consumer_result
{
  struct payload_check check;   /* zero when not verified */
  uint64_t verify_ns;
  /* clock_now_ns when the item's work completed (0: now).  A sink that
     learns of completions late (h2d-check, blocked reading rows) passes
     the true time so the window ends at the last check, not at EOF.  */
  uint64_t done_ns;
  const void *extra;            /* sink-specific, for its receipt columns */
  /* With --trace (consumer_tracing): what the sink did to it and when
     (check, release; the copy on the GPU), CLOCK_MONOTONIC ns, 0 unknown;
     the consumer adds what the row and its reading tell.  */
  struct trace_item stages;
};

/* The configuration columns that begin every receipt row, an item's or a
   run's, defined once (consumer-receipts.c).  Counts equal to CSV_NONE
   and NULL strings write empty fields (the --calibrate rows have no
   backend, workers or slots, for example).  */
struct consumer_config_cells
{
  const char *arm, *backend, *dtype, *kind;
  uint64_t pinned, size_bytes, workers, slots;
};

/* A receipt row of one item: what the item columns format.  */
struct consumer_item_receipt
{
  struct consumer_config_cells config;
  const struct consumer_item *item;
  const struct consumer_result *result;
  bool verified;
};

/* A run report row: what the run columns format.  Counts equal to
   CSV_NONE and times that are NaN write empty fields.  */
struct consumer_run_receipt
{
  struct consumer_config_cells config;
  uint64_t items, bytes;
  double seconds, items_per_s, gb_per_s, cpu_s, pin_ms;
  uint64_t mismatches, warmup_epochs;
  /* Memory (arenabench(7), "Memory columns").  */
  uint64_t pinned_bytes, shm_bytes, shm_avail_before_bytes, shm_avail_after_bytes;
  uint64_t pss_before_bytes, pss_after_bytes, rss_peak_bytes;
  /* Page-lock costs: unpin time, and both per GiB (NaN: none).  */
  double unpin_ms, pin_s_per_gib, unpin_s_per_gib;
  /* Where it ran (arenabench(7), "Machine columns"); NULL: empty cells.  */
  const struct consumer_machine_cells *machine;
  /* How the run's workers shared its epochs (work-share.h), then per
     producer worker, space-separated: items filled, median fill time per
     item in us (producer-tally.h); NULL: empty cells.  */
  const char *share, *producer_items, *producer_fill_us;
  const void *extra;            /* the sink's, for its own columns */
};

struct consumer_sink
{
  void *context;
  /* The PCI address of the device the items go to (h2d-check's GPU), for
     the run report's machine columns and placement warnings; NULL: none. */
  const char *device_pci;
  /* Receipt columns after the common ones (NULL: none).  Item columns get
     a struct consumer_item_receipt, run columns a struct
     consumer_run_receipt whose EXTRA the sink's run_extra filled.  */
  const struct csv_column *item_columns;
  const struct csv_column *run_columns;
  /* Name of the page-lock time column in run reports ("mlock_ms").  */
  const char *pin_column;
  /* First sight of an arena marked for pinning: page-lock its mapping.
     Returns true if it is locked now, with *PIN_NS the time it took; else
     false with WHY ("mlock: Cannot allocate memory"), which the consumer
     reports (or dies of, under --require-pin).  */
  bool (*pin) (void *context, struct arena *arena, uint64_t *pin_ns,
               char *why, size_t why_size);
  /* Undo pin before the arena is unmapped.  */
  void (*unpin) (void *context, struct arena *arena);
  /* Take ITEM.  Per arena, items must be released in the order given.  */
  void (*process) (void *context, struct consumer *consumer, const struct consumer_item *item);
  /* Every row read so far has been processed and the next read may
     block (NULL: nothing to do): submit what is gathered into batches.  */
  void (*idle) (void *context, struct consumer *consumer);
  /* End of input: release and complete everything still in flight.  */
  void (*flush) (void *context, struct consumer *consumer);
  /* The arm of CONFIG when the sink names it itself (h2d-check --staged:
     "pool-staged"); NULL: the backend and the page-lock achieved.  */
  const char *(*arm) (void *context, const struct run_config *config);
  /* Page-locked bytes of the sink's own, added to the run report's
     pinned_bytes (NULL: none).  */
  uint64_t (*pinned_bytes) (void *context);
  /* The run report's EXTRA for run_columns.  */
  const void *(*run_extra) (void *context);
  /* Copy-stream tracks in its --trace (0: it copies nothing).  */
  unsigned trace_copy_streams;
};

struct consumer_options
{
  bool verify;
  unsigned warmup_epochs;
  enum report_mode report;
  bool report_given;            /* --report was on the command line */
  bool require_pin;             /* a refused page-lock is fatal (71) */
  double timeout_s;             /* longest wait for a row; 0: no limit */
  const char *trace_path;       /* --trace FILE, or NULL */
};

#endif
