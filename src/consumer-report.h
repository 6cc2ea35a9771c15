/* consumer-report.h -- a consumer's run report (--report run): the
   measured window, and what the arenas seen cost in memory and
   page-locking, summed as the run goes so that nothing depends on an
   arena still being held at the end; one row when the input ends.  */
#ifndef ARENABENCH_CONSUMER_REPORT_H
#define ARENABENCH_CONSUMER_REPORT_H

#include "consumer-object.h"

struct consumer_machine;
struct consumer_report;
struct source;

/* A run's report: the memory figures before the first arena is mapped.
   RUN: --report run (the producers' tally is kept only then).  */
struct consumer_report *consumer_report_new (bool run);

/* An arena seen for the first time, S: its configuration (the first
   one's is the run's), page-lock and /dev/shm.  */
void consumer_report_source (struct consumer_report *r, const struct source *s);

/* ROW's configuration must be the run's: dies (65) at input line LINE.  */
void consumer_report_check_config (const struct consumer_report *r,
                                   const struct handle_row *row, size_t line);

/* Sample the "after" memory figures while the arenas are still mapped.  */
void consumer_report_memory_after (struct consumer_report *r);

/* An arena of BYTES page-locked bytes was unlocked in NS.  */
void consumer_report_unpinned (struct consumer_report *r, uint64_t ns, uint64_t bytes);

/* The measured window opens when the wait for its first item began, at
   SINCE_NS; ITEM is done with RESULT (counted when measured); the input
   ended (the window's CPU time stops).  */
void consumer_report_window_open (struct consumer_report *r, uint64_t since_ns);
void consumer_report_item (struct consumer_report *r, const struct consumer_item *item,
                           const struct consumer_result *result);
void consumer_report_window_close (struct consumer_report *r);

/* Measured items so far.  */
uint64_t consumer_report_measured_items (const struct consumer_report *r);

/* R's row, in SINK's columns, through LINE; the header is written.  */
void consumer_report_write (const struct consumer_report *r,
                            const struct consumer_options *options,
                            const struct consumer_sink *sink,
                            const struct consumer_machine *machine, struct csv_line *line);

/* Write RECEIPT as a run report row of SINK's columns to stdout, after
   the run report (h2d-check's --calibrate rows).  */
void consumer_report_put (const struct consumer_sink *sink,
                          const struct consumer_run_receipt *receipt);

void consumer_report_free (struct consumer_report *r);

#endif
