/* producer-tally.h -- what each producer worker did in the measured
   window: the items it filled and its median fill time per item, so that
   a straggler shows in the run report (and, under --share static, why the
   epoch's tail is long).  Fill times go into a log-scale histogram of
   fixed size per worker (each bucket 1/32 of an octave wide: a median
   within 1.6%), so a long run costs no more memory than a short one.  */
#ifndef ARENABENCH_PRODUCER_TALLY_H
#define ARENABENCH_PRODUCER_TALLY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct producer_tally
{
  uint32_t workers;
  uint64_t *items;              /* per worker */
  uint32_t (*fill)[1920];       /* per worker: gen_ns histogram */
};

/* Count an item of WORKER that took FILL_NS to fill.  WORKERS is the
   run's, the same for every call (the report's rows share one config).  */
void producer_tally_add (struct producer_tally *tally, uint32_t workers, uint32_t worker,
                         uint64_t fill_ns);

/* The report's cells: items per worker, and median fill time per item in
   microseconds per worker ("-" for a worker with none), space-separated in
   worker order, in a string that lives until the next call for that cell, or free.  */
const char *producer_tally_items (const struct producer_tally *tally);
const char *producer_tally_fill_us (const struct producer_tally *tally);

void producer_tally_free (struct producer_tally *tally);

#endif
