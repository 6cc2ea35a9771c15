/* consumer-report.c -- the run report: the measured window and the
   arenas' memory, summed as the run goes, and its one row.  */
#include "system.h"
#include "consumer-report.h"
#include "clock.h"
#include "consumer-machine.h"
#include "consumer-receipts.h"
#include "consumer-sources.h"
#include "die.h"
#include "machine.h"
#include "producer-tally.h"
#include "work-share.h"

#include <math.h>

struct consumer_report
{
  bool run;                     /* --report run */
  /* The measured window: warm-up epochs stay outside it.  */
  uint64_t measured_items, measured_bytes, mismatches;
  uint64_t window_start_ns, window_end_ns, cpu_start_ns, cpu_end_ns;
  struct run_config first_config;
  bool have_first;
  uint64_t pss_before, shm_avail_before;
  /* "After": sampled while arenas are still mapped, just before each
     finished run is let go and at the end; the highest PSS and the least
     available space of those samples.  */
  uint64_t pss_after, shm_avail_after;
  bool after_taken;
  uint64_t pin_ns, pinned_bytes, shm_bytes;
  bool all_pinned;
  uint64_t unpin_ns, unpinned_bytes;  /* runs let go before the report */
  struct producer_tally producers;    /* measured items by worker */
};

struct consumer_report *
consumer_report_new (bool run)
{
  struct consumer_report *r = xcalloc (1, sizeof *r);
  r->run = run;
  r->pss_before = machine_pss_bytes ();
  r->shm_avail_before = machine_fs_avail_bytes ("/dev/shm");
  return r;
}

/* What a run report says of the memory of the arenas seen: page-locked as
   achieved, and held in /dev/shm.  */
void
consumer_report_source (struct consumer_report *r, const struct source *s)
{
  if (!r->have_first)
    {
      r->first_config = s->config;
      r->all_pinned = true;
      r->have_first = true;
    }
  r->pin_ns += s->pin_ns;
  r->all_pinned &= s->pinned;
  if (s->pinned)
    r->pinned_bytes += s->arena.map_bytes;
  r->shm_bytes = r->shm_bytes == CSV_NONE || s->shm_bytes == MACHINE_UNKNOWN
                 ? CSV_NONE : r->shm_bytes + s->shm_bytes;
}

void
consumer_report_check_config (const struct consumer_report *r, const struct handle_row *row,
                              size_t line)
{
  if (!run_config_same (&r->first_config, &row->config))
    die (EXIT_DATAERR, 0, "line %zu: rows mix configurations; --report run needs one", line);
}

/* An unknown PSS, MACHINE_UNKNOWN, wins the maximum: it stays unknown.  */
void
consumer_report_memory_after (struct consumer_report *r)
{
  uint64_t pss = machine_pss_bytes (), avail = machine_fs_avail_bytes ("/dev/shm");
  if (!r->after_taken || pss > r->pss_after)
    r->pss_after = pss;
  if (!r->after_taken || avail < r->shm_avail_after)
    r->shm_avail_after = avail;
  r->after_taken = true;
}

void
consumer_report_unpinned (struct consumer_report *r, uint64_t ns, uint64_t bytes)
{
  r->unpin_ns += ns;
  r->unpinned_bytes += bytes;
}

void
consumer_report_window_open (struct consumer_report *r, uint64_t since_ns)
{
  if (r->measured_items == 0 && r->window_start_ns == 0)
    {
      r->window_start_ns = since_ns;
      r->cpu_start_ns = clock_cpu_ns ();
    }
}

/* Mismatches count in every item, the rest in measured ones only.  */
void
consumer_report_item (struct consumer_report *r, const struct consumer_item *item,
                      const struct consumer_result *result)
{
  r->mismatches += result->check.mismatches;
  if (!item->measured)
    return;
  r->measured_items++;
  r->measured_bytes += item->row.handle.bytes;
  uint64_t done = result->done_ns ? result->done_ns : clock_now_ns ();
  if (done > r->window_end_ns)
    r->window_end_ns = done;
  if (r->run)
    producer_tally_add (&r->producers, item->row.config.workers, item->row.worker,
                        item->row.gen_ns);
}

uint64_t
consumer_report_measured_items (const struct consumer_report *r)
{
  return r->measured_items;
}

/* Sampled once here rather than after every item (a system call each).  */
void
consumer_report_window_close (struct consumer_report *r)
{
  r->cpu_end_ns = clock_cpu_ns ();
}

/* Seconds per GiB of a page-lock or unlock that took NS for BYTES; NaN
   when there were none.  */
static double
per_gib (uint64_t ns, uint64_t bytes)
{
  const double gib = 1024.0 * 1024 * 1024;
  return bytes ? (double) ns / 1e9 / ((double) bytes / gib) : NAN;
}

void
consumer_report_write (const struct consumer_report *r, const struct consumer_options *options,
                       const struct consumer_sink *sink, const struct consumer_machine *machine,
                       struct csv_line *line)
{
  double seconds = (double) (r->window_end_ns - r->window_start_ns) / 1e9;
  const struct run_config *config = &r->first_config;
  uint64_t sink_pinned = sink->pinned_bytes ? sink->pinned_bytes (sink->context) : 0;
  static struct consumer_machine_cells cells;
  consumer_machine_cells (machine, &cells);
  struct consumer_run_receipt receipt = {
    .items = r->measured_items,
    .bytes = r->measured_bytes,
    .seconds = seconds,
    .items_per_s = seconds > 0 ? (double) r->measured_items / seconds : 0,
    .gb_per_s = seconds > 0 ? (double) r->measured_bytes / seconds / 1e9 : 0,
    .cpu_s = (double) (r->cpu_end_ns - r->cpu_start_ns) / 1e9,
    .pin_ms = r->pinned_bytes ? (double) r->pin_ns / 1e6 : NAN,
    .mismatches = options->verify ? r->mismatches : CSV_NONE,
    .warmup_epochs = options->warmup_epochs,
    .pinned_bytes = r->pinned_bytes + sink_pinned,
    .shm_bytes = r->shm_bytes,
    .shm_avail_before_bytes = r->shm_avail_before,
    .shm_avail_after_bytes = r->shm_avail_after,
    .pss_before_bytes = r->pss_before,
    .pss_after_bytes = r->pss_after,
    .rss_peak_bytes = machine_rss_peak_bytes (),
    .unpin_ms = r->unpinned_bytes ? (double) r->unpin_ns / 1e6 : NAN,
    .pin_s_per_gib = per_gib (r->pin_ns, r->pinned_bytes),
    .unpin_s_per_gib = per_gib (r->unpin_ns, r->unpinned_bytes),
    .machine = &cells,
    .share = work_share_names[config->share],
    .producer_items = producer_tally_items (&r->producers),
    .producer_fill_us = producer_tally_fill_us (&r->producers),
    .extra = sink->run_extra ? sink->run_extra (sink->context) : NULL,
  };
  consumer_receipts_config (&receipt.config, config,
                            consumer_receipts_arm (sink, config, r->all_pinned), r->all_pinned);
  consumer_receipts_run (line, sink, &receipt);
}

void
consumer_report_put (const struct consumer_sink *sink, const struct consumer_run_receipt *receipt)
{
  struct csv_line line = { 0 };
  consumer_receipts_run (&line, sink, receipt);
  consumer_receipts_flush (true);
  csv_line_free (&line);
}

void
consumer_report_free (struct consumer_report *r)
{
  producer_tally_free (&r->producers);
  free (r);
}
