/* handle-row.h -- the CSV row arena-produce prints for each item, and its
   parser, shared by every consumer.  arenabench(7) documents the columns. */
#ifndef ARENABENCH_HANDLE_ROW_H
#define ARENABENCH_HANDLE_ROW_H

#include "arena.h"
#include "csv-reader.h"
#include "csv-writer.h"
#include "payload.h"

/* The columns, in the order arena-produce writes them (handle-row.c's
   table gives each its name and, for numbers, where it lives).  */
enum handle_column
{
  HC_ARENA, HC_BACKEND, HC_SLOT, HC_OFFSET, HC_BYTES, HC_GENERATION,
  HC_SEQUENCE, HC_WORKER, HC_EPOCH, HC_WORKERS, HC_ITEMS, HC_SIZE_BYTES,
  HC_DTYPE, HC_KIND, HC_LEAVES, HC_PINNED, HC_SLOTS, HC_GEN_NS, HC_EPOCHS,
  HC_FILL_START_NS, HC_ROW_NS, HC_SHARE,
  HC_COUNT
};

/* The run's configuration, repeated in every row so receipts can carry it. */
struct run_config
{
  enum arena_backend backend;
  bool pinned;
  uint64_t size_bytes;
  enum payload_dtype dtype;
  enum payload_kind kind;
  uint32_t workers;
  uint32_t slots;
  uint64_t items;           /* per worker per epoch */
  uint32_t epochs;
  enum arena_share share;   /* how the workers divide an epoch's items */
};

struct handle_row
{
  char arena[64];
  struct arena_handle handle;
  uint64_t sequence;
  uint32_t worker;
  uint32_t epoch;
  struct run_config config;
  struct payload_layout layout;
  uint64_t gen_ns;
  /* For the consumers' --trace: when the fill began and when the row was
     handed to the writer, CLOCK_MONOTONIC ns (one clock for every process
     of the host); 0 when the row does not carry them.  */
  uint64_t fill_start_ns, row_ns;
};

/* Header line and one row, as arena-produce writes them.  */
void handle_row_header (struct csv_line *line);
void handle_row_format (struct csv_line *line, const struct handle_row *row);

/* Column positions learned from a header record.  */
struct handle_columns
{
  int index[HC_COUNT];      /* field number of each column */
  size_t nfields;
};

/* Learn the column order from RECORD (any order; none unknown, none
   missing but fill_start_ns, row_ns and share, which earlier versions did
   not write: a row without share is static).  Returns false with WHY set ("missing column 'arena'").  */
bool handle_columns_parse (struct handle_columns *columns, const struct csv_record *record,
                           char *why, size_t why_size);

/* Parse and cross-check a data record (numbers, names, the leaf layout
   against size/dtype/kind, the sequence against worker/epoch/items/share,
   the epoch against epochs).
   Returns false with WHY set ("column 'bytes': 'x' is not a number").  */
bool handle_row_parse (struct handle_row *row, const struct handle_columns *columns,
                       const struct csv_record *record, char *why, size_t why_size);

/* "pool-pinned", "ring-pageable": the arm a configuration belongs to.  */
const char *run_config_arm (const struct run_config *config);

/* "pool-staged": the arm of a configuration whose items h2d-check copies
   into its own pinned staging first.  */
const char *run_config_staged_arm (const struct run_config *config);

/* Whether A and B are one configuration (their epochs aside).  */
bool run_config_same (const struct run_config *a, const struct run_config *b);

#endif
