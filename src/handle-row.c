/* handle-row.c -- writing and parsing handle rows. */
#include "system.h"
#include "handle-row.h"
#include "die.h"
#include "options.h"
#include "work-share.h"

#include <inttypes.h>

/* The columns, in the order arena-produce writes them: one table for the
   header, the writer and the parser.  A plain number lives at OFFSET in
   struct handle_row, SIZE bytes wide, and is at most MAX; the other
   columns (SIZE 0) are names, the optional slot, the flag and the leaf
   layout, each written and read by name below.  */
struct handle_field
{
  const char *name;
  size_t offset;
  size_t size;
  uint64_t max;
  bool optional;            /* a row without it reads as 0 */
};

#define NUMBER_FIELD(name_, member, max_) \
  { .name = name_, .offset = offsetof (struct handle_row, member), \
    .size = sizeof ((struct handle_row *) 0)->member, .max = max_ }
#define OPTIONAL_NUMBER_FIELD(name_, member, max_) \
  { .name = name_, .offset = offsetof (struct handle_row, member), \
    .size = sizeof ((struct handle_row *) 0)->member, .max = max_, .optional = true }

static const struct handle_field handle_fields[HC_COUNT] = {
  [HC_ARENA] = { .name = "arena" },
  [HC_BACKEND] = { .name = "backend" },
  [HC_SLOT] = { .name = "slot" },
  [HC_OFFSET] = NUMBER_FIELD ("offset", handle.offset, UINT64_MAX),
  [HC_BYTES] = NUMBER_FIELD ("bytes", handle.bytes, UINT64_MAX),
  [HC_GENERATION] = NUMBER_FIELD ("generation", handle.generation, UINT64_MAX >> 1),
  [HC_SEQUENCE] = NUMBER_FIELD ("sequence", sequence, UINT64_MAX),
  [HC_WORKER] = NUMBER_FIELD ("worker", worker, UINT32_MAX),
  [HC_EPOCH] = NUMBER_FIELD ("epoch", epoch, UINT32_MAX),
  [HC_WORKERS] = NUMBER_FIELD ("workers", config.workers, UINT32_MAX),
  [HC_ITEMS] = NUMBER_FIELD ("items", config.items, UINT64_MAX),
  [HC_SIZE_BYTES] = NUMBER_FIELD ("size_bytes", config.size_bytes, UINT64_MAX),
  [HC_DTYPE] = { .name = "dtype" },
  [HC_KIND] = { .name = "kind" },
  [HC_LEAVES] = { .name = "leaves" },
  [HC_PINNED] = { .name = "pinned" },
  [HC_SLOTS] = NUMBER_FIELD ("slots", config.slots, ARENA_MAX_SLOTS),
  [HC_GEN_NS] = NUMBER_FIELD ("gen_ns", gen_ns, UINT64_MAX),
  [HC_EPOCHS] = NUMBER_FIELD ("epochs", config.epochs, ARENA_MAX_EPOCHS),
  [HC_FILL_START_NS] = OPTIONAL_NUMBER_FIELD ("fill_start_ns", fill_start_ns, UINT64_MAX),
  [HC_ROW_NS] = OPTIONAL_NUMBER_FIELD ("row_ns", row_ns, UINT64_MAX),
  [HC_SHARE] = { "share", .optional = true },
};

static uint64_t
number_get (const struct handle_row *row, const struct handle_field *f)
{
  const unsigned char *p = (const unsigned char *) row + f->offset;
  if (f->size == sizeof (uint32_t))
    {
      uint32_t v;
      memcpy (&v, p, sizeof v);
      return v;
    }
  uint64_t v;
  memcpy (&v, p, sizeof v);
  return v;
}

static void
number_set (struct handle_row *row, const struct handle_field *f, uint64_t value)
{
  unsigned char *p = (unsigned char *) row + f->offset;
  if (f->size == sizeof (uint32_t))
    {
      uint32_t v = (uint32_t) value;
      memcpy (p, &v, sizeof v);
    }
  else
    memcpy (p, &value, sizeof value);
}

void
handle_row_header (struct csv_line *line)
{
  for (int c = 0; c < HC_COUNT; c++)
    csv_line_str (line, handle_fields[c].name);
}

/* The leaf layout of the last configuration seen, and its leaves column,
   made once for the rows of a run: they repeat it, and laying it out and
   formatting it anew cost a dozen snprintf calls a row.  */
struct layout_cache
{
  bool have;
  uint64_t size;
  enum payload_dtype dtype;
  enum payload_kind kind;
  struct payload_layout layout;
  char text[128];
};

static const struct layout_cache *
cached_layout (uint64_t size, enum payload_dtype dtype, enum payload_kind kind)
{
  static struct layout_cache cache;
  if (!cache.have || cache.size != size || cache.dtype != dtype || cache.kind != kind)
    {
      cache = (struct layout_cache) { .have = true, .size = size, .dtype = dtype, .kind = kind };
      payload_layout_init (&cache.layout, size, dtype, kind);
      payload_layout_format (&cache.layout, cache.text, sizeof cache.text);
    }
  return &cache;
}

void
handle_row_format (struct csv_line *line, const struct handle_row *row)
{
  for (int c = 0; c < HC_COUNT; c++)
    switch (c)
      {
      case HC_ARENA:
        csv_line_str (line, row->arena);
        break;
      case HC_BACKEND:
        csv_line_str (line, arena_backend_names[row->config.backend]);
        break;
      case HC_SLOT:
        if (row->handle.slot >= 0)
          csv_line_i64 (line, row->handle.slot);
        else
          csv_line_empty (line);
        break;
      case HC_DTYPE:
        csv_line_str (line, payload_dtypes[row->config.dtype].name);
        break;
      case HC_KIND:
        csv_line_str (line, payload_kind_names[row->config.kind]);
        break;
      case HC_LEAVES:
        csv_line_str (line, cached_layout (row->layout.size, row->layout.dtype,
                                           row->layout.kind)->text);
        break;
      case HC_PINNED:
        csv_line_u64 (line, row->config.pinned);
        break;
      case HC_SHARE:
        csv_line_str (line, work_share_names[row->config.share]);
        break;
      default:
        csv_line_u64 (line, number_get (row, &handle_fields[c]));
      }
}

bool
handle_columns_parse (struct handle_columns *columns, const struct csv_record *record,
                      char *why, size_t why_size)
{
  for (int c = 0; c < HC_COUNT; c++)
    columns->index[c] = -1;
  columns->nfields = record->nfields;
  for (size_t f = 0; f < record->nfields; f++)
    {
      int c = 0;
      while (c < HC_COUNT && !STREQ (record->fields[f], handle_fields[c].name))
        c++;
      if (c == HC_COUNT)
        {
          snprintf (why, why_size, "unknown column %s (not a handle row header)",
                    quote (record->fields[f]));
          return false;
        }
      if (columns->index[c] >= 0)
        {
          snprintf (why, why_size, "column %s appears twice", quote (record->fields[f]));
          return false;
        }
      columns->index[c] = (int) f;
    }
  for (int c = 0; c < HC_COUNT; c++)
    if (columns->index[c] < 0 && !handle_fields[c].optional)
      {
        snprintf (why, why_size, "missing column '%s'", handle_fields[c].name);
        return false;
      }
  return true;
}

/* Field parsers: each returns false with WHY naming the column.  */

/* Eight ASCII digits at P as their value in *VALUE; false when one is
   not a digit.  Eight at once: a row's numbers are mostly long (the
   nanosecond stamps have 13 digits).  */
static inline bool
eight_digits (const char *p, uint64_t *value)
{
#if defined __BYTE_ORDER__ && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  const uint64_t zeros = 0x3030303030303030ULL, high = 0xf0f0f0f0f0f0f0f0ULL;
  uint64_t v;
  memcpy (&v, p, 8);
  /* Each byte 0x30..0x3f, and still below 0x40 with 6 added.  */
  if ((v & high) != zeros || ((v + 0x0606060606060606ULL) & high) != zeros)
    return false;
  v -= zeros;
  v = v * 10 + (v >> 8);          /* pairs of digits in every other byte */
  const uint64_t mask = 0x000000ff000000ffULL;
  v = ((v & mask) * (100 + (1000000ULL << 32))
       + ((v >> 16) & mask) * (1 + (10000ULL << 32))) >> 32;
  *value = v;
  return true;
#else
  uint64_t number = 0;
  for (int i = 0; i < 8; i++)
    {
      unsigned digit = (unsigned) (unsigned char) p[i] - '0';
      if (digit > 9)
        return false;
      number = number * 10 + digit;
    }
  *value = number;
  return true;
#endif
}

/* ASCII digits only, at least one, no sign or space: what
   options_parse_uint accepts, without a division per digit (a row has
   fourteen numbers, and a consumer reads a million rows a second).
   LENGTH is the field's (the reader's, NUL at TEXT[LENGTH]): nineteen
   digits cannot overflow, so only a twentieth is checked; eight digits
   go at a time (numbers were a sixth of a 4 KiB item's handling).  */
static inline bool
parse_u64 (const char *text, size_t length, uint64_t max, uint64_t *value)
{
  uint64_t number = 0, eight;
  size_t plain = length < 19 ? length : 19, i = 0;
  if (length == 0)
    return false;
  for (; i + 8 <= plain; i += 8)
    {
      if (!eight_digits (text + i, &eight))
        return false;
      number = number * 100000000 + eight;
    }
  for (; i < plain; i++)
    {
      unsigned digit = (unsigned) (unsigned char) text[i] - '0';
      if (digit > 9)
        return false;
      number = number * 10 + digit;
    }
  for (; i < length; i++)
    {
      unsigned digit = (unsigned) (unsigned char) text[i] - '0';
      if (digit > 9 || __builtin_mul_overflow (number, 10, &number)
          || __builtin_add_overflow (number, (uint64_t) digit, &number))
        return false;
    }
  if (number > max)
    return false;
  *value = number;
  return true;
}

/* "is not 'pool' or 'ring'": every backend's name.  */
static const char *
backend_choices (void)
{
  static _Thread_local char text[128];
  if (!text[0])
    {
      size_t used = (size_t) snprintf (text, sizeof text, "is not");
      for (int b = 0; b < ARENA_BACKEND_COUNT && used < sizeof text; b++)
        used += (size_t) snprintf (text + used, sizeof text - used, "%s '%s'",
                                   b == 0 ? "" : b + 1 == ARENA_BACKEND_COUNT ? " or" : ",",
                                   arena_backend_names[b]);
    }
  return text;
}

static int
find_name (const char *text, const char *const *names)
{
  /* The first byte first: a row has four names, and strcmp's call was
     4% of a small item's handling.  */
  for (int i = 0; names[i]; i++)
    if (text[0] == names[i][0] && STREQ (text, names[i]))
      return i;
  return -1;
}

bool
handle_row_parse (struct handle_row *row, const struct handle_columns *columns,
                  const struct csv_record *record, char *why, size_t why_size)
{
  if (record->nfields != columns->nfields)
    {
      snprintf (why, why_size, "expected %zu fields, found %zu", columns->nfields,
                record->nfields);
      return false;
    }
#define FIELD(c) (record->fields[columns->index[c]])
#define LENGTH(c) (record->lengths[columns->index[c]])
#define BAD(c, what) \
  do { snprintf (why, why_size, "column '%s': %s %s", handle_fields[c].name, \
                 quote (FIELD (c)), what); return false; } while (0)
#define NUMBER(c, max, dest) \
  do { \
      uint64_t v_; \
      if (!parse_u64 (FIELD (c), LENGTH (c), (max), &v_)) \
        { BAD (c, "is not a number in range"); } \
      (dest) = v_; \
  } while (0)

  memset (row, 0, sizeof *row);
  const char *name = FIELD (HC_ARENA);
  if (strlen (name) >= sizeof row->arena || name[0] != '/')
    BAD (HC_ARENA, "is not an arena name");
  strcpy (row->arena, name);

  int backend = find_name (FIELD (HC_BACKEND), arena_backend_names);
  if (backend < 0)
    BAD (HC_BACKEND, backend_choices ());
  row->config.backend = (enum arena_backend) backend;

  if (arena_backend_slotted (row->config.backend))
    {
      uint64_t slot;
      NUMBER (HC_SLOT, ARENA_MAX_SLOTS - 1, slot);
      row->handle.slot = (int64_t) slot;
    }
  else if (*FIELD (HC_SLOT))
    {
      static _Thread_local char no_slot[64];
      snprintf (no_slot, sizeof no_slot, "must be empty for a %s item", arena_backend_names[backend]);
      BAD (HC_SLOT, no_slot);
    }
  else
    row->handle.slot = -1;

  for (int c = 0; c < HC_COUNT; c++)
    if (handle_fields[c].size && columns->index[c] >= 0)
      {
        uint64_t v;
        if (!parse_u64 (FIELD (c), LENGTH (c), handle_fields[c].max, &v))
          BAD (c, "is not a number in range");
        number_set (row, &handle_fields[c], v);
      }
  if (row->handle.generation == 0)
    BAD (HC_GENERATION, "is not a generation (they start at 1)");
  uint64_t pinned;
  NUMBER (HC_PINNED, 1, pinned);
  row->config.pinned = pinned;

  int dtype = find_name (FIELD (HC_DTYPE), payload_dtype_names);
  if (dtype < 0)
    BAD (HC_DTYPE, "is not fp32, fp16 or uint8");
  row->config.dtype = (enum payload_dtype) dtype;
  int kind = find_name (FIELD (HC_KIND), payload_kind_names);
  if (kind < 0)
    BAD (HC_KIND, "is not 'tensor' or 'nested'");
  row->config.kind = (enum payload_kind) kind;

  if (row->config.size_bytes == 0 || row->config.size_bytes > PAYLOAD_MAX_SIZE)
    BAD (HC_SIZE_BYTES, "is not a size from 1 byte to 1 TiB");
  if (row->config.workers == 0 || row->worker >= row->config.workers)
    BAD (HC_WORKER, "is not below the workers column");
  if (row->config.items == 0)
    BAD (HC_ITEMS, "is not a positive count");
  if (row->epoch >= row->config.epochs)
    BAD (HC_EPOCH, "is not below the epochs column");
  if (columns->index[HC_SHARE] >= 0)
    {
      int share = find_name (FIELD (HC_SHARE), work_share_names);
      if (share < 0)
        BAD (HC_SHARE, "is not 'static' or 'pull'");
      row->config.share = (enum arena_share) share;
    }
  uint64_t first, count;
  if (!work_share_range (row->config.share, row->config.workers, row->config.items,
                         row->worker, row->epoch, &first, &count)
      || row->sequence < first || row->sequence - first >= count)
    BAD (HC_SEQUENCE, row->config.share == ARENA_SHARE_PULL
         ? "does not belong to this epoch" : "does not belong to this worker and epoch");

  const struct layout_cache *layout = cached_layout (row->config.size_bytes, row->config.dtype,
                                                     row->config.kind);
  row->layout = layout->layout;
  if (!STREQ (layout->text, FIELD (HC_LEAVES)))
    BAD (HC_LEAVES, "does not match size_bytes, dtype and kind");
  if (row->handle.bytes != row->layout.bytes)
    BAD (HC_BYTES, "does not match size_bytes, dtype and kind");
  return true;
#undef NUMBER
#undef BAD
#undef LENGTH
#undef FIELD
}

/* "pool-pageable", "ring-pinned", "pool-staged": the backend's name and
   where its items sit (pageable, locked pages, or staged by h2d-check),
   for every backend there is.  */
static const char *
arm_name (const struct run_config *config, int memory)
{
  static const char *const memories[] = { "pageable", "pinned", "staged" };
  static _Thread_local char arms[ARENA_BACKEND_COUNT][ARRAY_SIZE (memories)][32];
  char *arm = arms[config->backend][memory];
  if (!arm[0])
    snprintf (arm, sizeof arms[0][0], "%s-%s", arena_backend_names[config->backend],
              memories[memory]);
  return arm;
}

const char *
run_config_arm (const struct run_config *config)
{
  return arm_name (config, config->pinned ? 1 : 0);
}

const char *
run_config_staged_arm (const struct run_config *config)
{
  return arm_name (config, 2);
}

bool
run_config_same (const struct run_config *a, const struct run_config *b)
{
  return a->backend == b->backend && a->pinned == b->pinned && a->size_bytes == b->size_bytes
    && a->dtype == b->dtype && a->kind == b->kind && a->workers == b->workers
    && a->slots == b->slots && a->items == b->items && a->share == b->share;
}
