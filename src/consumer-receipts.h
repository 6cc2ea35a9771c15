/* consumer-receipts.h -- receipt rows: an item's, a run's, and the
   message of a mismatched item.  arenabench(7) documents the columns.  */
#ifndef ARENABENCH_CONSUMER_RECEIPTS_H
#define ARENABENCH_CONSUMER_RECEIPTS_H

#include "consumer-object.h"

/* The arm of CONFIG as SINK names it, or as achieved: asked to pin, but
   pageable when the page-lock was refused (PINNED false).  */
const char *consumer_receipts_arm (const struct consumer_sink *sink,
                                   const struct run_config *config, bool pinned);

/* The configuration cells of a receipt of CONFIG: its ARM, and PINNED as
   achieved.  */
void consumer_receipts_config (struct consumer_config_cells *cells,
                               const struct run_config *config, const char *arm, bool pinned);

/* The header of REPORT's rows, then SINK's columns, to stdout.  */
void consumer_receipts_header (struct csv_line *line, const struct consumer_sink *sink,
                               enum report_mode report);

/* One item's receipt, and one run report row, to stdout.  */
void consumer_receipts_item (struct csv_line *line, const struct consumer_sink *sink,
                             const struct consumer_item_receipt *r);
void consumer_receipts_run (struct csv_line *line, const struct consumer_sink *sink,
                            const struct consumer_run_receipt *r);

/* Write the receipts not yet written to stdout.  FATAL: a write error
   dies (EXIT_IOERR); else it is left for whoever is already dying.  */
void consumer_receipts_flush (bool fatal);

/* Warn of ITEM's mismatches: the first one, exactly, and how many.  */
void consumer_warn_mismatch (const struct consumer_item *item, const struct payload_check *check);

#endif
