/* consumer.h -- what arena-consume and h2d-check share: reading handle
   rows, attaching and checking arenas, the measured window, receipts and
   the end-of-stream checks.  A command supplies a sink that does the work
   on each item (check it on the CPU, or copy it to the GPU).  */
#ifndef ARENABENCH_CONSUMER_H
#define ARENABENCH_CONSUMER_H

#include "consumer-object.h"
#include "options.h"

extern const char *const report_mode_names[];

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
  CONSUMER_OPT_LIST_LAUNCHERS,
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
  { "print-rank", no_argument, NULL, CONSUMER_OPT_PRINT_RANK }, \
  { "list-launchers", no_argument, NULL, CONSUMER_OPT_LIST_LAUNCHERS }

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
  --print-rank          print the rank the launcher's variables give, and exit\n\
  --list-launchers      print each launcher's rank variables, and exit\n"

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

#endif
