/* fuzz-handle-row.c -- libFuzzer target: CSV bytes through csv-reader into
   handle_columns_parse and handle_row_parse, as arena-consume reads them,
   and every accepted row through arena_check against real arenas held in
   heap buffers, so AddressSanitizer sees any read outside "the mapping".

   Invariants checked on every accepted row: it formats back to a row that
   parses to the same fields; bytes equals the layout's size; worker is
   below workers; the sequence lies in its worker's and epoch's range; a
   row arena_check accepts lies wholly inside the arena's data region.  */
#include "fuzz-common.h"

#include <sys/mman.h>
#include <unistd.h>

#include "arena.h"
#include "csv-reader.h"
#include "csv-writer.h"
#include "handle-row.h"
#include "payload.h"

/* Two arenas as a producer leaves them: 4 items of a 4096-byte fp32
   tensor published into a pool of 4 slots and a ring of 4 records.  */
enum { FAKE_ITEMS = 4 };
static struct arena fake[ARENA_BACKEND_COUNT];
static int input_fd = -1;
static int reparse_fd = -1;     /* open while a formatted row is read back */

static void
fake_arena (enum arena_backend backend)
{
  struct arena *a = &fake[backend];
  uint64_t hb, cap, sb;
  uint64_t total = arena_size (backend, 4096, FAKE_ITEMS, &hb, &cap, &sb);
  memset (a, 0, sizeof *a);
  a->fd = -1;
  snprintf (a->name, sizeof a->name, "/arenabench.1.%x", (unsigned) backend);
  /* Exactly TOTAL bytes: one byte past the end is a heap overflow.  */
  const struct arena_identity id = { .run_id = 1, .worker = 0, .workers = 1, .epochs = 1,
                                     .items = FAKE_ITEMS, .size_bytes = 4096,
                                     .dtype = DTYPE_FP32, .kind = KIND_TENSOR };
  arena_format (a, calloc (1, total), total, backend, 4096, FAKE_ITEMS, false, &id);
  struct payload_layout layout;
  payload_layout_init (&layout, 4096, DTYPE_FP32, KIND_TENSOR);
  for (uint64_t s = 0; s < FAKE_ITEMS; s++)
    {
      struct arena_handle handle;
      if (arena_reserve (a, layout.bytes, 0, -1, &handle) != ARENA_OK)
        abort ();
      payload_fill (&layout, s, a->base + handle.offset);
      struct arena_item item = { .sequence = s, .epoch = 0 };
      arena_publish (a, &handle, &item, s + 1 == FAKE_ITEMS);
    }
}

int LLVMFuzzerInitialize (int *argc, char ***argv);

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  (void) argc;
  (void) argv;
  fuzz_init ();
  for (int b = 0; b < ARENA_BACKEND_COUNT; b++)
    fake_arena ((enum arena_backend) b);
  /* Warm payload.c's per-dtype tables outside any input.  */
  unsigned char item[256];
  for (int d = 0; d < DTYPE_COUNT; d++)
    {
      struct payload_layout layout;
      struct payload_check check;
      payload_layout_init (&layout, 64, (enum payload_dtype) d, KIND_TENSOR);
      payload_fill (&layout, 0, item);
      payload_verify (&layout, 0, item, &check);
    }
  input_fd = memfd_create ("fuzz-input", 0);
  if (input_fd < 0)
    abort ();
  return 0;
}

struct state
{
  struct handle_columns columns;
  bool have_header;
  uint64_t ring_expect[ARENA_BACKEND_COUNT];
  const struct csv_record *again;   /* a formatted row read back */
  struct handle_row reparsed;
  bool reparsed_ok;
};

static void
same_row (const struct handle_row *a, const struct handle_row *b)
{
  FUZZ_ASSERT (STREQ (a->arena, b->arena), "arena '%s' came back as '%s'", a->arena, b->arena);
  FUZZ_ASSERT (a->handle.slot == b->handle.slot && a->handle.offset == b->handle.offset
               && a->handle.bytes == b->handle.bytes
               && a->handle.generation == b->handle.generation, "handle changed in a round trip");
  FUZZ_ASSERT (a->sequence == b->sequence && a->worker == b->worker && a->epoch == b->epoch
               && a->gen_ns == b->gen_ns, "sequence, worker, epoch or gen_ns changed");
  FUZZ_ASSERT (memcmp (&a->config, &b->config, sizeof a->config) == 0
               && memcmp (&a->layout, &b->layout, sizeof a->layout) == 0,
               "configuration or layout changed in a round trip");
}

static void
on_reparse (const struct csv_record *record, void *context)
{
  struct state *s = context;
  static struct handle_columns canonical;
  for (int c = 0; c < HC_COUNT; c++)
    canonical.index[c] = c;
  canonical.nfields = HC_COUNT;
  char why[256];
  s->reparsed_ok = handle_row_parse (&s->reparsed, &canonical, record, why, sizeof why);
  FUZZ_ASSERT (s->reparsed_ok, "a formatted row does not parse: %s", why);
}

/* Read TEXT back through a second reader, as a consumer would.  */
static void
reparse (struct state *s, const char *text, size_t len)
{
  int fd = memfd_create ("fuzz-reparse", 0);
  if (fd < 0 || write (fd, text, len) != (ssize_t) len || write (fd, "\n", 1) != 1
      || lseek (fd, 0, SEEK_SET) != 0)
    abort ();
  struct csv_reader *r = csv_reader_new (on_reparse, s);
  s->reparsed_ok = false;
  reparse_fd = fd;
  csv_reader_read_fd (r, fd, "reparse");
  reparse_fd = -1;
  csv_reader_free (r);
  close (fd);
  FUZZ_ASSERT (s->reparsed_ok, "a formatted row was not read back");
}

static void
check_row (struct state *s, const struct handle_row *row)
{
  const struct payload_layout *l = &row->layout;
  FUZZ_ASSERT (row->handle.bytes == l->bytes, "bytes %llu, layout %llu",
               (unsigned long long) row->handle.bytes, (unsigned long long) l->bytes);
  FUZZ_ASSERT (row->handle.generation >= 1, "generation 0 accepted");
  FUZZ_ASSERT (row->worker < row->config.workers, "worker not below workers");
  FUZZ_ASSERT (row->config.items > 0 && row->config.size_bytes > 0, "zero items or size");
  FUZZ_ASSERT (l->nleaves >= 1 && l->nleaves <= PAYLOAD_MAX_LEAVES, "leaf count");
  size_t itemsize = payload_dtypes[l->dtype].itemsize;
  bool inside = true;
  for (unsigned i = 0; i < l->nleaves; i++)
    {
      unsigned __int128 end = (unsigned __int128) l->leaves[i].count * itemsize
                              + l->leaves[i].offset;
      FUZZ_ASSERT (l->leaves[i].offset % PAYLOAD_LEAF_ALIGN == 0 && l->leaves[i].count >= 1,
                   "leaf %u misaligned or empty", i);
      inside &= end <= l->bytes;
    }
  /* Sizes above PAYLOAD_MAX_SIZE are refused, so no layout wraps 2^64
     (a nested item near it once did, and verifying it read outside the
     arena).  */
  FUZZ_ASSERT (inside, "a leaf lies outside the item's %llu bytes", (unsigned long long) l->bytes);

  /* Round trip: format, read back, parse, compare.  */
  struct csv_line line = { 0 };
  handle_row_format (&line, row);
  reparse (s, line.text, line.used);
  csv_line_free (&line);
  same_row (row, &s->reparsed);

  /* The arena check: whatever it accepts must be inside the data region,
     and reading it all (the consumer's verify) must stay in the buffer.  */
  struct arena *a = &fake[row->config.backend];
  uint64_t saved = a->ring_expect;
  a->ring_expect = s->ring_expect[row->config.backend];
  const char *why = NULL;
  struct arena_item item = { .sequence = row->sequence, .epoch = row->epoch };
  enum arena_status st = arena_check (a, &row->handle, &item, &why);
  s->ring_expect[row->config.backend] = a->ring_expect;
  a->ring_expect = saved;
  if (st != ARENA_OK)
    {
      FUZZ_ASSERT (why && *why, "arena_check refused without a reason");
      return;
    }
  FUZZ_ASSERT (row->handle.offset >= a->header_bytes
               && row->handle.offset <= a->map_bytes
               && row->handle.bytes <= a->map_bytes - row->handle.offset,
               "arena_check accepted [%llu, +%llu) outside the data region",
               (unsigned long long) row->handle.offset, (unsigned long long) row->handle.bytes);
  struct payload_check check;
  payload_verify (l, row->sequence, a->base + row->handle.offset, &check);
}

static void
on_record (const struct csv_record *record, void *context)
{
  struct state *s = context;
  char why[256];
  why[0] = '\0';
  if (!s->have_header)
    {
      s->have_header = true;
      if (handle_columns_parse (&s->columns, record, why, sizeof why))
        return;
      FUZZ_ASSERT (why[0], "a header refused without a reason");
      /* Keep going with arena-produce's order so the rows still get
         parsed; this record is then data.  */
      for (int c = 0; c < HC_COUNT; c++)
        s->columns.index[c] = c;
      s->columns.nfields = HC_COUNT;
    }
  struct handle_row row;
  if (handle_row_parse (&row, &s->columns, record, why, sizeof why))
    check_row (s, &row);
  else
    FUZZ_ASSERT (why[0] && strlen (why) < sizeof why, "a row refused without a reason");
}

static void
body (void *context)
{
  struct state s = { 0 };
  (void) context;
  for (int b = 0; b < ARENA_BACKEND_COUNT; b++)
    s.ring_expect[b] = 0;
  struct csv_reader *r = csv_reader_new (on_record, &s);
  csv_reader_read_fd (r, input_fd, "fuzz");
  csv_reader_free (r);
}

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  if (ftruncate (input_fd, 0) != 0
      || (size && pwrite (input_fd, data, size, 0) != (ssize_t) size)
      || lseek (input_fd, 0, SEEK_SET) != 0)
    abort ();
  if (!fuzz_run (body, NULL) && reparse_fd >= 0)
    FUZZ_ASSERT (false, "a row handle_row_format wrote could not be read back as CSV");
  return 0;
}
