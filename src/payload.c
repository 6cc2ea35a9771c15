/* payload.c -- fill and check the deterministic payload pattern fast.

   The pattern has period 251 in every leaf, so one table holding the
   dtype's encoding of 0..250 repeated lets both fill and check work in
   long memcpy/memcmp runs instead of per-element arithmetic.  */
#include "system.h"
#include "payload.h"
#include "close-stdout.h"
#include "die.h"

#include <fcntl.h>
#include <math.h>
#include <unistd.h>
#ifdef __SSE2__
# include <emmintrin.h>
#endif

const struct dtype_def payload_dtypes[DTYPE_COUNT] = {
  [DTYPE_FP32] = { "fp32", "<f4", 4 },
  [DTYPE_FP16] = { "fp16", "<f2", 2 },
  [DTYPE_UINT8] = { "uint8", "|u1", 1 },
};

const char *const payload_dtype_names[DTYPE_COUNT + 1] = { "fp32", "fp16", "uint8", NULL };
const char *const payload_kind_names[KIND_COUNT + 1] = { "tensor", "nested", NULL };
const char *const payload_store_names[STORE_COUNT + 1] = { "auto", "cached", "streaming", NULL };

/* Periods per table: a run of TABLE_PERIODS*251 elements is compared with
   one memcmp.  The table holds one period more so any start fits.  */
enum { TABLE_PERIODS = 16, TABLE_ELEMENTS = (TABLE_PERIODS + 1) * PAYLOAD_PERIOD };

static unsigned char *period_tables[DTYPE_COUNT];

uint16_t
payload_half_bits (double value)
{
  uint16_t sign = signbit (value) ? 0x8000 : 0;
  double a = fabs (value);
  if (isnan (value))
    return sign | 0x7e00;
  if (isinf (value) || a >= 65536)
    return sign | 0x7c00;
  if (a < 0x1p-14)                      /* zero or subnormal: a * 2^24 units */
    return sign | (uint16_t) (a * 0x1p24);
  int e;
  double m = frexp (a, &e);             /* a = m * 2^e, 0.5 <= m < 1 */
  return sign | (uint16_t) ((e + 14) << 10) | (uint16_t) ((m * 2 - 1) * 1024);
}

static void
store_element (enum payload_dtype dtype, void *dest, unsigned value)
{
  switch (dtype)
    {
    case DTYPE_FP32:
      {
        float f = (float) value;
        memcpy (dest, &f, sizeof f);
        break;
      }
    case DTYPE_FP16:
      {
        uint16_t h = payload_half_bits (value);
        memcpy (dest, &h, sizeof h);
        break;
      }
    case DTYPE_UINT8:
      *(unsigned char *) dest = (unsigned char) value;
      break;
    default:
      abort ();
    }
}

static const unsigned char *
period_table (enum payload_dtype dtype)
{
  if (!period_tables[dtype])
    {
      size_t itemsize = payload_dtypes[dtype].itemsize;
      unsigned char *table = xmalloc (TABLE_ELEMENTS * itemsize);
      for (size_t i = 0; i < TABLE_ELEMENTS; i++)
        store_element (dtype, table + i * itemsize, (unsigned) (i % PAYLOAD_PERIOD));
      period_tables[dtype] = table;
    }
  return period_tables[dtype];
}

static uint64_t
align_up (uint64_t value, uint64_t alignment)
{
  return (value + alignment - 1) / alignment * alignment;
}

void
payload_layout_init (struct payload_layout *layout, uint64_t size,
                     enum payload_dtype dtype, enum payload_kind kind)
{
  size_t itemsize = payload_dtypes[dtype].itemsize;
  uint64_t elements = size / itemsize ? size / itemsize : 1;
  uint64_t counts[PAYLOAD_MAX_LEAVES];
  unsigned n = 0;
  if (kind == KIND_NESTED)
    {
      counts[n++] = elements / 2 ? elements / 2 : 1;
      counts[n++] = elements - elements / 2 ? elements - elements / 2 : 1;
      counts[n++] = 3;
    }
  else
    counts[n++] = elements;

  *layout = (struct payload_layout) { .dtype = dtype, .kind = kind, .size = size, .nleaves = n };
  uint64_t offset = 0;
  for (unsigned l = 0; l < n; l++)
    {
      offset = align_up (offset, PAYLOAD_LEAF_ALIGN);
      layout->leaves[l] = (struct payload_leaf) { offset, counts[l] };
      offset += counts[l] * itemsize;
    }
  layout->bytes = offset;
}

void
payload_layout_format (const struct payload_layout *layout, char *buf, size_t size)
{
  size_t used = 0;
  buf[0] = '\0';
  for (unsigned l = 0; l < layout->nleaves && used < size; l++)
    {
      int n = snprintf (buf + used, size - used, "%s%llu:%llu", l ? ";" : "",
                        (unsigned long long) layout->leaves[l].offset,
                        (unsigned long long) layout->leaves[l].count);
      if (n < 0)
        break;
      used += (size_t) n;
    }
}

unsigned
payload_shift (uint64_t sequence, unsigned leaf)
{
  return (unsigned) ((sequence % PAYLOAD_PERIOD * 17 + leaf * 29) % PAYLOAD_PERIOD);
}

/* Copy COUNT elements of the pattern starting at SRC (a table position)
   to DEST with ordinary stores.  */
static void
fill_cached (unsigned char *dest, const unsigned char *src, uint64_t count, size_t itemsize)
{
  /* Element J is table[J % 251 + shift]; after RUN elements (a whole
     number of periods) the phase repeats.  */
  const size_t run = (size_t) TABLE_PERIODS * PAYLOAD_PERIOD;
  for (uint64_t j = 0; j < count; j += run)
    {
      uint64_t n = count - j < run ? count - j : run;
      memcpy (dest + j * itemsize, src, n * itemsize);
    }
}

/* The same with non-temporal stores, 64 bytes at a time: DEST must be
   16-byte aligned.  The table holds 17 periods, so a 64-byte load at any
   phase of the first period plus any shift stays inside it.  */
static bool
fill_streaming (unsigned char *dest, const unsigned char *src, uint64_t count, size_t itemsize)
{
#ifdef __SSE2__
  if ((uintptr_t) dest % 16 != 0)
    return false;
  const size_t period = (size_t) PAYLOAD_PERIOD * itemsize;
  uint64_t bytes = count * itemsize, b = 0;
  size_t phase = 0;
  for (; b + 64 <= bytes; b += 64)
    {
      const __m128i *s = (const __m128i *) (src + phase);
      __m128i v0 = _mm_loadu_si128 (s), v1 = _mm_loadu_si128 (s + 1);
      __m128i v2 = _mm_loadu_si128 (s + 2), v3 = _mm_loadu_si128 (s + 3);
      __m128i *d = (__m128i *) (dest + b);
      _mm_stream_si128 (d, v0);
      _mm_stream_si128 (d + 1, v1);
      _mm_stream_si128 (d + 2, v2);
      _mm_stream_si128 (d + 3, v3);
      phase += 64;
      if (phase >= period)
        phase -= period;
    }
  memcpy (dest + b, src + phase, bytes - b);
  return true;
#else
  return false;
#endif
}

void
payload_fill_part (const struct payload_layout *layout, uint64_t sequence, void *item,
                   uint64_t from, uint64_t to, enum payload_store store)
{
  const unsigned char *table = period_table (layout->dtype);
  size_t itemsize = payload_dtypes[layout->dtype].itemsize;
  unsigned char *base = item;
  if (to > layout->bytes)
    to = layout->bytes;
  uint64_t end = 0;
  bool streamed = false;
  for (unsigned l = 0; l < layout->nleaves && from < to; l++)
    {
      const struct payload_leaf *leaf = &layout->leaves[l];
      uint64_t leaf_end = leaf->offset + leaf->count * itemsize;
      /* Padding before the leaf, then the part of the leaf in [FROM, TO).
         Leaves start 64-aligned and FROM is a multiple of 64, so the part
         starts on an element.  */
      uint64_t pad_from = end > from ? end : from;
      uint64_t pad_to = leaf->offset < to ? leaf->offset : to;
      if (pad_from < pad_to)
        memset (base + pad_from, 0, pad_to - pad_from);
      uint64_t a = leaf->offset > from ? leaf->offset : from;
      uint64_t z = leaf_end < to ? leaf_end : to;
      end = leaf_end;
      if (a >= z)
        continue;
      uint64_t first = (a - leaf->offset) / itemsize;
      uint64_t count = (z - a + itemsize - 1) / itemsize;
      unsigned phase = (unsigned) ((first % PAYLOAD_PERIOD + payload_shift (sequence, l))
                                   % PAYLOAD_PERIOD);
      unsigned char *dest = base + a;
      const unsigned char *src = table + (size_t) phase * itemsize;
      bool stream = store == STORE_STREAMING
        || (store == STORE_AUTO && leaf->count * itemsize >= PAYLOAD_STREAM_MIN_BYTES);
      if (stream && fill_streaming (dest, src, count, itemsize))
        streamed = true;
      else
        fill_cached (dest, src, count, itemsize);
    }
#ifdef __SSE2__
  /* Non-temporal stores are weakly ordered: make them visible before the
     caller publishes the item.  */
  if (streamed)
    _mm_sfence ();
#endif
}

void
payload_fill_store (const struct payload_layout *layout, uint64_t sequence, void *item,
                    enum payload_store store)
{
  payload_fill_part (layout, sequence, item, 0, layout->bytes, store);
}

double
payload_element (enum payload_dtype dtype, const void *leaf, uint64_t index)
{
  const unsigned char *p = (const unsigned char *) leaf + index * payload_dtypes[dtype].itemsize;
  switch (dtype)
    {
    case DTYPE_FP32:
      {
        float f;
        memcpy (&f, p, sizeof f);
        return f;
      }
    case DTYPE_FP16:
      {
        uint16_t h;
        memcpy (&h, p, sizeof h);
        int exponent = (h >> 10) & 0x1f;
        double mantissa = h & 0x3ff;
        double value = exponent == 0 ? mantissa / 1024.0 * 0x1p-14
          : exponent == 31 ? (mantissa ? NAN : INFINITY)
          : (1.0 + mantissa / 1024.0) * ldexp (1.0, exponent - 15);
        return (h & 0x8000) ? -value : value;
      }
    case DTYPE_UINT8:
      return *p;
    default:
      abort ();
    }
}

/* Bytes [FROM, TO) of ITEM are padding: each must be zero.  Padding is
   less than PAYLOAD_LEAF_ALIGN bytes a gap, so a plain loop will do.  */
static void
verify_padding (const unsigned char *item, uint64_t from, uint64_t to,
                struct payload_check *check)
{
  for (uint64_t b = from; b < to; b++)
    if (item[b] != 0)
      {
        if (!check->found)
          {
            check->found = true;
            check->in_padding = true;
            check->index = b;
            check->expected = 0;
            check->actual = item[b];
          }
        check->mismatches++;
        check->padding++;
      }
}

void
payload_verify (const struct payload_layout *layout, uint64_t sequence,
                const void *item, struct payload_check *check)
{
  const unsigned char *table = period_table (layout->dtype);
  size_t itemsize = payload_dtypes[layout->dtype].itemsize;
  const size_t run = (size_t) TABLE_PERIODS * PAYLOAD_PERIOD;
  *check = (struct payload_check) { 0 };
  /* In item order, so the first bad byte found is the first in the item. */
  uint64_t end = 0;
  for (unsigned l = 0; l < layout->nleaves; l++)
    {
      const struct payload_leaf *leaf = &layout->leaves[l];
      verify_padding (item, end, leaf->offset, check);
      end = leaf->offset + leaf->count * itemsize;
      const unsigned char *data = (const unsigned char *) item + leaf->offset;
      unsigned shift = payload_shift (sequence, l);
      const unsigned char *expected = table + (size_t) shift * itemsize;
      for (uint64_t j = 0; j < leaf->count; j += run)
        {
          uint64_t n = leaf->count - j < run ? leaf->count - j : run;
          if (memcmp (data + j * itemsize, expected, n * itemsize) == 0)
            continue;
          /* Slow path only where a run differs: count and locate.  */
          for (uint64_t k = 0; k < n; k++)
            if (memcmp (data + (j + k) * itemsize, expected + k * itemsize, itemsize) != 0)
              {
                if (!check->found)
                  {
                    check->found = true;
                    check->leaf = l;
                    check->index = j + k;
                    check->expected = payload_value (j + k, shift);
                    check->actual = payload_element (layout->dtype, data, j + k);
                  }
                check->mismatches++;
              }
        }
    }
  verify_padding (item, end, layout->bytes, check);
}

int
payload_save_npy (const struct payload_layout *layout, const void *item,
                  unsigned leaf, const char *path)
{
  const struct payload_leaf *lf = &layout->leaves[leaf];
  char header[128];
  int dict = snprintf (header + 10, sizeof header - 10,
                       "{'descr': '%s', 'fortran_order': False, 'shape': (%llu,), }",
                       payload_dtypes[layout->dtype].npy_descr,
                       (unsigned long long) lf->count);
  /* NPY 1.0: magic, version, little-endian header length, then the dict
     padded with spaces and a newline so the data starts 64-aligned.  */
  size_t total = (10 + (size_t) dict + 1 + 63) / 64 * 64;
  memcpy (header, "\x93NUMPY\x01\x00", 8);
  header[8] = (char) ((total - 10) & 0xff);
  header[9] = (char) ((total - 10) >> 8);
  memset (header + 10 + dict, ' ', total - 10 - (size_t) dict - 1);
  header[total - 1] = '\n';

  /* Never through a symlink, never over a file: a new file or nothing.  */
  int fd = open (path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0)
    return errno;
  int err = write_fully (fd, header, total);
  if (!err)
    err = write_fully (fd, (const char *) item + lf->offset,
                     lf->count * payload_dtypes[layout->dtype].itemsize);
  if (close (fd) != 0 && !err)
    err = errno;
  return err;
}
