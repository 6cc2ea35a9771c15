/* consumer-receipts.c -- the receipt columns every consumer writes: one
   table per report mode, then the sink's own columns.  */
#include "system.h"
#include "consumer-receipts.h"
#include "close-stdout.h"
#include "compute-step.h"
#include "consumer-machine.h"
#include "csv-writer.h"
#include "die.h"
#include "launcher.h"
#include "payload.h"

#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <unistd.h>

/* Receipts go out in whole lines only, gathered into writes of up to
   PIPE_BUF bytes (csv_line_batch; a line at a time to a terminal): a
   consumer killed outright (SIGKILL) leaves a last line that is whole,
   never half of one, and every other exit writes them all first
   (consumer_receipts_flush).  */
static struct csv_line batch;
static int to_terminal = -1;

void
consumer_receipts_flush (bool fatal)
{
  int err = csv_batch_flush (&batch, STDOUT_FILENO);
  if (err && fatal)
    stdout_write_error (err);
}

/* LINE, terminated, into the batch (which goes out first when full).  */
static void
put_line (struct csv_line *line)
{
  if (to_terminal < 0)
    {
      to_terminal = isatty (STDOUT_FILENO);
      /* Its full size at once: a long-lived consumer's heap must not grow
         as the first batch fills.  */
      batch.size = 2 * PIPE_BUF;
      batch.text = xmalloc (batch.size);
    }
  int err = csv_line_batch (line, &batch, STDOUT_FILENO);
  if (err)
    stdout_write_error (err);
  if (to_terminal)
    consumer_receipts_flush (true);
}


/* The configuration columns say what was achieved: a run asked to pin
   whose arena could not be page-locked is a pageable run, and its arm
   says so, unless the sink names the arm itself.  */
const char *
consumer_receipts_arm (const struct consumer_sink *sink, const struct run_config *config,
                       bool pinned)
{
  if (sink->arm)
    return sink->arm (sink->context, config);
  struct run_config achieved = *config;
  achieved.pinned = pinned;
  return run_config_arm (&achieved);
}

#define ITEM(row) ((const struct consumer_item_receipt *) (row))
#define RUN(row) ((const struct consumer_run_receipt *) (row))
/* Both receipts begin with their configuration cells.  */
#define CONFIG(row) ((const struct consumer_config_cells *) (row))

static void
put_str (struct csv_line *line, const char *value)
{
  if (value)
    csv_line_str (line, value);
  else
    csv_line_empty (line);
}

#define CONFIG_STR(name) \
  static void config_##name (struct csv_line *line, const void *row) \
  { put_str (line, CONFIG (row)->name); }
#define CONFIG_COUNT(name) \
  static void config_##name (struct csv_line *line, const void *row) \
  { csv_line_count (line, CONFIG (row)->name); }
CONFIG_STR (arm)
CONFIG_STR (backend)
CONFIG_COUNT (pinned)
CONFIG_COUNT (size_bytes)
CONFIG_STR (dtype)
CONFIG_STR (kind)
CONFIG_COUNT (workers)
CONFIG_COUNT (slots)

/* The columns every row begins with, item or run.  */
static const struct csv_column config_table[] = {
  { "arm", config_arm }, { "backend", config_backend }, { "pinned", config_pinned },
  { "size_bytes", config_size_bytes }, { "dtype", config_dtype }, { "kind", config_kind },
  { "workers", config_workers }, { "slots", config_slots },
  { NULL, NULL },
};

void
consumer_receipts_config (struct consumer_config_cells *cells, const struct run_config *config,
                          const char *arm, bool pinned)
{
  *cells = (struct consumer_config_cells) {
    .arm = arm,
    .backend = arena_backend_names[config->backend],
    .dtype = payload_dtypes[config->dtype].name,
    .kind = payload_kind_names[config->kind],
    .pinned = pinned,
    .size_bytes = config->size_bytes,
    .workers = config->workers,
    .slots = config->slots,
  };
}

#define ITEM_U64(name, expr) \
  static void item_##name (struct csv_line *line, const void *row) \
  { const struct consumer_item_receipt *r = row; csv_line_u64 (line, (expr)); }
ITEM_U64 (sequence, r->item->row.sequence)
ITEM_U64 (worker, r->item->row.worker)
ITEM_U64 (epoch, r->item->row.epoch)
ITEM_U64 (bytes, r->item->row.handle.bytes)
ITEM_U64 (wait_ns, r->item->wait_ns)

static void
item_verify_ns (struct csv_line *line, const void *row)
{
  csv_line_count (line, ITEM (row)->verified ? ITEM (row)->result->verify_ns : CSV_NONE);
}

static void
item_mismatches (struct csv_line *line, const void *row)
{
  csv_line_count (line, ITEM (row)->verified ? ITEM (row)->result->check.mismatches : CSV_NONE);
}

/* An item's columns after the configuration.  */
static const struct csv_column item_table[] = {
  { "sequence", item_sequence }, { "worker", item_worker }, { "epoch", item_epoch },
  { "bytes", item_bytes }, { "wait_ns", item_wait_ns }, { "verify_ns", item_verify_ns },
  { "mismatches", item_mismatches },
  { NULL, NULL },
};

#define RUN_COUNT(name) \
  static void run_##name (struct csv_line *line, const void *row) \
  { csv_line_count (line, RUN (row)->name); }
#define RUN_FIXED(name, decimals) \
  static void run_##name (struct csv_line *line, const void *row) \
  { csv_line_fixed (line, RUN (row)->name, decimals); }
RUN_COUNT (items)
RUN_COUNT (bytes)
RUN_FIXED (seconds, 6)
RUN_FIXED (items_per_s, 2)
RUN_FIXED (gb_per_s, 4)
RUN_FIXED (cpu_s, 6)
RUN_FIXED (pin_ms, 3)
RUN_COUNT (mismatches)
RUN_COUNT (warmup_epochs)
RUN_COUNT (pinned_bytes)
RUN_COUNT (shm_bytes)
RUN_COUNT (shm_avail_before_bytes)
RUN_COUNT (shm_avail_after_bytes)
RUN_COUNT (pss_before_bytes)
RUN_COUNT (pss_after_bytes)
RUN_COUNT (rss_peak_bytes)
RUN_FIXED (unpin_ms, 3)
RUN_FIXED (pin_s_per_gib, 6)
RUN_FIXED (unpin_s_per_gib, 6)

/* The machine columns: empty in a row that has none (--calibrate's).  */
#define RUN_MACHINE(name) \
  static void run_##name (struct csv_line *line, const void *row) \
  { put_str (line, RUN (row)->machine ? RUN (row)->machine->name : NULL); }
RUN_MACHINE (device_pci)
RUN_MACHINE (link)
RUN_MACHINE (link_max)
RUN_MACHINE (device_numa)
RUN_MACHINE (arena_numa)
RUN_MACHINE (producer_cpus)
RUN_MACHINE (producer_numa)
RUN_MACHINE (consumer_cpus)
RUN_MACHINE (consumer_numa)
RUN_MACHINE (thp)
RUN_MACHINE (thp_shmem)
RUN_MACHINE (governor)

static void
run_share (struct csv_line *line, const void *row)
{
  put_str (line, RUN (row)->share);
}

static void
run_producer_items (struct csv_line *line, const void *row)
{
  put_str (line, RUN (row)->producer_items);
}

static void
run_producer_fill_us (struct csv_line *line, const void *row)
{
  put_str (line, RUN (row)->producer_fill_us);
}

/* A run report's columns after the configuration; the sink names the
   page-lock time column.  */
static const struct csv_column run_common[] = {
  { "items", run_items }, { "bytes", run_bytes }, { "seconds", run_seconds },
  { "items_per_s", run_items_per_s }, { "gb_per_s", run_gb_per_s }, { "cpu_s", run_cpu_s },
  { "pin_ms", run_pin_ms },
  { "mismatches", run_mismatches }, { "warmup_epochs", run_warmup_epochs },
  { "pinned_bytes", run_pinned_bytes }, { "shm_bytes", run_shm_bytes },
  { "shm_avail_before_bytes", run_shm_avail_before_bytes },
  { "shm_avail_after_bytes", run_shm_avail_after_bytes },
  { "pss_before_bytes", run_pss_before_bytes }, { "pss_after_bytes", run_pss_after_bytes },
  { "rss_peak_bytes", run_rss_peak_bytes },
  { "unpin_ms", run_unpin_ms }, { "pin_s_per_gib", run_pin_s_per_gib },
  { "unpin_s_per_gib", run_unpin_s_per_gib },
  { "device_pci", run_device_pci }, { "link", run_link }, { "link_max", run_link_max },
  { "device_numa", run_device_numa }, { "arena_numa", run_arena_numa },
  { "producer_cpus", run_producer_cpus }, { "producer_numa", run_producer_numa },
  { "consumer_cpus", run_consumer_cpus }, { "consumer_numa", run_consumer_numa },
  { "thp", run_thp }, { "thp_shmem", run_thp_shmem }, { "governor", run_governor },
  { "share", run_share },
  { "producer_items", run_producer_items }, { "producer_fill_us", run_producer_fill_us },
};

/* Who wrote the row, at the end of every row, an item's or a run's:
   the rank the launcher gave (empty: it did not say), the host and the
   device fed.  */
static void
put_rank_field (struct csv_line *line, long value)
{
  csv_line_count (line, value == LAUNCHER_UNKNOWN ? CSV_NONE : (uint64_t) value);
}

#define RANK_FIELD(name) \
  static void rank_##name (struct csv_line *line, const void *row UNUSED) \
  { put_rank_field (line, launcher_self ()->name); }
RANK_FIELD (rank)
RANK_FIELD (local_rank)
RANK_FIELD (world_size)

static void
rank_host (struct csv_line *line, const void *row UNUSED)
{
  csv_line_str (line, launcher_self ()->host);
}

static void
rank_device (struct csv_line *line, const void *row UNUSED)
{
  put_str (line, *launcher_self ()->device ? launcher_self ()->device : NULL);
}

static const struct csv_column rank_table[] = {
  { "rank", rank_rank }, { "local_rank", rank_local_rank }, { "world_size", rank_world_size },
  { "host", rank_host }, { "device", rank_device },
  { NULL, NULL },
};

/* --compute-us and AU (compute-step.h): empty without a step, and in
   rows that are no pipeline's run (--calibrate's, without a machine).  */
static bool
stepped (const void *row)
{
  return compute_step_us () && RUN (row)->machine;
}

static void
run_compute_us (struct csv_line *line, const void *row)
{
  csv_line_count (line, stepped (row) ? compute_step_us () : CSV_NONE);
}

static void
run_compute_s (struct csv_line *line, const void *row)
{
  csv_line_fixed (line, stepped (row) ? (double) RUN (row)->items * compute_step_us () / 1e6
                  : NAN, 6);
}

static void
run_au (struct csv_line *line, const void *row)
{
  csv_line_fixed (line, stepped (row) ? compute_step_au (RUN (row)->items, RUN (row)->seconds)
                  : NAN, 4);
}

static const struct csv_column run_tail[] = {
  { "compute_us", run_compute_us }, { "compute_s", run_compute_s }, { "au", run_au },
};

/* One table of the common columns, then SINK's, then the rank's and AU:
   the same for the header and every row.  */
static const struct csv_column *
run_table (const struct consumer_sink *sink)
{
  /* A command has one sink: build its table once.  */
  static struct csv_column *table;
  static const struct consumer_sink *table_sink;
  if (table_sink == sink)
    return table;
  size_t nconfig = ARRAY_SIZE (config_table) - 1, ncommon = ARRAY_SIZE (run_common), nextra = 0;
  size_t nrank = ARRAY_SIZE (rank_table) - 1, ntail = ARRAY_SIZE (run_tail);
  while (sink->run_columns && sink->run_columns[nextra].name)
    nextra++;
  free (table);
  table = xcalloc (nconfig + ncommon + nextra + nrank + ntail + 1, sizeof *table);
  memcpy (table, config_table, nconfig * sizeof *table);
  memcpy (table + nconfig, run_common, sizeof run_common);
  for (size_t i = nconfig; i < nconfig + ncommon; i++)
    if (table[i].put == run_pin_ms && sink->pin_column)
      table[i].name = sink->pin_column;
  if (nextra)
    memcpy (table + nconfig + ncommon, sink->run_columns, nextra * sizeof *table);
  memcpy (table + nconfig + ncommon + nextra, rank_table, nrank * sizeof *table);
  memcpy (table + nconfig + ncommon + nextra + nrank, run_tail, sizeof run_tail);
  table_sink = sink;
  return table;
}

void
consumer_receipts_header (struct csv_line *line, const struct consumer_sink *sink,
                          enum report_mode report)
{
  if (report == REPORT_ITEMS)
    {
      csv_columns_header (line, config_table);
      csv_columns_header (line, item_table);
      if (sink->item_columns)
        csv_columns_header (line, sink->item_columns);
      csv_columns_header (line, rank_table);
    }
  else
    csv_columns_header (line, run_table (sink));
  put_line (line);
}

void
consumer_receipts_item (struct csv_line *line, const struct consumer_sink *sink,
                        const struct consumer_item_receipt *r)
{
  csv_columns_row (line, config_table, r);
  csv_columns_row (line, item_table, r);
  if (sink->item_columns)
    csv_columns_row (line, sink->item_columns, r);
  csv_columns_row (line, rank_table, r);
  put_line (line);
}

void
consumer_receipts_run (struct csv_line *line, const struct consumer_sink *sink,
                       const struct consumer_run_receipt *r)
{
  csv_columns_row (line, run_table (sink), r);
  put_line (line);
}


/* VALUE (an element of DTYPE, exactly a double) as a message shows it:
   the fewest digits that read back as the same element, and for the
   floating types its bits too, so a flipped low bit can never read
   "expected 71, found 71".  */
static void
format_element (enum payload_dtype dtype, double value, char *buf, size_t size)
{
  char digits[40];
  if (value == trunc (value) && fabs (value) < 1e15)
    snprintf (digits, sizeof digits, "%.0f", value);      /* not "2e+01" */
  else
    csv_format_shortest (digits, sizeof digits, value, 1, dtype == DTYPE_FP32);
  if (dtype == DTYPE_FP32)
    {
      float f = (float) value;
      uint32_t bits;
      memcpy (&bits, &f, sizeof bits);
      snprintf (buf, size, "%s (0x%08" PRIx32 ")", digits, bits);
    }
  else if (dtype == DTYPE_FP16)
    snprintf (buf, size, "%s (0x%04x)", digits, (unsigned) payload_half_bits (value));
  else
    snprintf (buf, size, "%s", digits);
}


void
consumer_warn_mismatch (const struct consumer_item *item, const struct payload_check *check)
{
  char where[64], expected[64], actual[64], count[96];
  if (check->in_padding)
    {
      /* Padding holds bytes, not elements of the dtype.  */
      snprintf (where, sizeof where, "padding byte %" PRIu64, check->index);
      snprintf (expected, sizeof expected, "%.0f", check->expected);
      snprintf (actual, sizeof actual, "%.0f", check->actual);
    }
  else
    {
      snprintf (where, sizeof where, "leaf %u index %" PRIu64, check->leaf, check->index);
      format_element (item->row.config.dtype, check->expected, expected, sizeof expected);
      format_element (item->row.config.dtype, check->actual, actual, sizeof actual);
    }
  uint64_t elements = check->mismatches - check->padding;
  int n = 0;
  if (elements || !check->padding)
    n = snprintf (count, sizeof count, "%" PRIu64 " mismatched element%s", elements,
                  elements == 1 ? "" : "s");
  if (check->padding)
    snprintf (count + n, sizeof count - (size_t) n, "%s%" PRIu64 " nonzero padding byte%s",
              n ? " and " : "", check->padding, check->padding == 1 ? "" : "s");
  warn (0, "line %zu: sequence %" PRIu64 " %s: expected %s, found %s (%s in the item)",
        item->line, item->row.sequence, where, expected, actual, count);
}
