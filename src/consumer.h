/* consumer.h -- what arena-consume and h2d-check share: reading handle
   rows, attaching and checking arenas, the measured window, receipts and
   the end-of-stream checks.  A command supplies a sink that does the work
   on each item (check it on the CPU, or copy it to the GPU).  */
#ifndef ARENABENCH_CONSUMER_H
#define ARENABENCH_CONSUMER_H

#include "arena.h"
#include "csv-writer.h"
#include "handle-row.h"
#include "options.h"
#include "trace.h"
#include "payload.h"

struct consumer_machine_cells;

enum report_mode { REPORT_ITEMS, REPORT_RUN };
extern const char *const report_mode_names[];

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

/* Options every consumer takes; a command numbers its own from
   CONSUMER_OPT_FIRST_PRIVATE.  */
enum
{
  CONSUMER_OPT_NO_VERIFY = OPTION_FIRST_PRIVATE,
  CONSUMER_OPT_WARMUP_EPOCHS,
  CONSUMER_OPT_REPORT,
  CONSUMER_OPT_REQUIRE_PIN,
  CONSUMER_OPT_TIMEOUT,
  CONSUMER_OPT_TRACE,
  CONSUMER_OPT_COMPUTE_US,
  CONSUMER_OPT_PRINT_RANK,
  CONSUMER_OPT_FIRST_PRIVATE
};

#define CONSUMER_LONG_OPTIONS \
  { "no-verify", no_argument, NULL, CONSUMER_OPT_NO_VERIFY }, \
  { "warmup-epochs", required_argument, NULL, CONSUMER_OPT_WARMUP_EPOCHS }, \
  { "report", required_argument, NULL, CONSUMER_OPT_REPORT }, \
  { "require-pin", no_argument, NULL, CONSUMER_OPT_REQUIRE_PIN }, \
  { "timeout", required_argument, NULL, CONSUMER_OPT_TIMEOUT }, \
  { "trace", required_argument, NULL, CONSUMER_OPT_TRACE }, \
  { "compute-us", required_argument, NULL, CONSUMER_OPT_COMPUTE_US }, \
  { "print-rank", no_argument, NULL, CONSUMER_OPT_PRINT_RANK }

/* --help lines of --warmup-epochs, --report and --require-pin.  */
#define CONSUMER_OPTIONS_HELP "\
  --warmup-epochs N     leave items of the first N epochs out of the receipts\n\
                        and the measured window (default 0)\n\
  --report items|run    a receipt per item (default), or one row per run\n\
  --require-pin         fail (71) when an arena marked for pinning cannot be\n\
                        page-locked, instead of using it pageable\n\
  --timeout SECONDS     give up (exit 75) when no row arrives for SECONDS\n\
                        (default: wait for as long as the input is open)\n\
  --trace FILE          write every item's stages (fill, row, read, copy,\n\
                        check, release) to FILE as Chrome trace-event JSON,\n\
                        for Perfetto or chrome://tracing\n\
  --compute-us N        an emulated training step of N microseconds per item\n\
                        after its check; the run report gives AU, the share\n\
                        of the measured time spent in steps\n\
  --print-rank          print the rank the launcher's variables give, and exit\n"

/* Defaults: verify, no warm-up, a receipt per item.  */
void consumer_options_init (struct consumer_options *options);

/* Apply option CODE (from getopt_long) if it is a consumer option; false
   when it is not.  */
bool consumer_option (int code, const char *arg, struct consumer_options *options);

/* Read handle rows from stdin to the end and feed them to SINK; writes
   receipts to stdout.  Returns the exit status (EXIT_OK, or EXIT_MISMATCH
   when any value differed); dies on bad input with the line and why, and
   with EXIT_TEMPFAIL when an item announced by the rows (every sequence of
   every worker and epoch) was not received and released exactly once.  */
int consumer_run (const struct consumer_options *options, const struct consumer_sink *sink);

/* The sink is done reading ITEM's bytes: give the space back.  */
void consumer_release (const struct consumer_item *item);

/* The same for a thread that must not exit (a CUDA host callback): false
   with WHY set when the release was refused; report it later with
   consumer_release_failed from the main thread.  */
bool consumer_try_release (const struct consumer_item *item, const char **why);
_Noreturn void consumer_release_failed (const struct consumer_item *item, const char *why);

/* Whether --trace asked for the items' stages (consumer_result.stages). */
bool consumer_tracing (const struct consumer *consumer);

/* The sink has finished ITEM: record it and print its receipt.  */
void consumer_complete (struct consumer *consumer, const struct consumer_item *item,
                        const struct consumer_result *result);

/* Write R as a run report row of SINK's columns to stdout, after the run
   report (h2d-check's --calibrate rows).  */
void consumer_put_run_receipt (const struct consumer_sink *sink,
                               const struct consumer_run_receipt *r);


#endif
