/* payload.c -- unit tests of the payload pattern: values per dtype, leaf
   layouts, fill/verify, mismatch reports and the .npy writer. */
#include "system.h"
#include "payload.h"
#include "die.h"
#include "tap.h"

#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <unistd.h>

/* IEEE binary16 bits of a small non-negative integer, computed a second
   way (frexp) so the library's bit twiddling is checked, not copied.  */
static uint16_t
reference_half (unsigned value)
{
  if (value == 0)
    return 0;
  int exponent;
  double fraction = frexp ((double) value, &exponent);  /* value = f * 2^e, f in [0.5,1) */
  unsigned mantissa = (unsigned) ((fraction * 2 - 1) * 1024);
  return (uint16_t) ((unsigned) (exponent - 1 + 15) << 10 | mantissa);
}

/* The pattern straight from its definition, in 128-bit arithmetic.  */
static unsigned
reference_value (uint64_t sequence, unsigned leaf, uint64_t j)
{
  unsigned __int128 shift = ((unsigned __int128) sequence * 17 + leaf * 29) % 251;
  return (unsigned) ((j + shift) % 251);
}

static void
test_dtype_values (void)
{
  ok (payload_dtypes[DTYPE_FP32].itemsize == 4 && STREQ (payload_dtypes[DTYPE_FP32].npy_descr, "<f4")
      && STREQ (payload_dtypes[DTYPE_FP32].name, "fp32"), "fp32: 4 bytes, '<f4'");
  ok (payload_dtypes[DTYPE_FP16].itemsize == 2 && STREQ (payload_dtypes[DTYPE_FP16].npy_descr, "<f2")
      && STREQ (payload_dtypes[DTYPE_FP16].name, "fp16"), "fp16: 2 bytes, '<f2'");
  ok (payload_dtypes[DTYPE_UINT8].itemsize == 1 && STREQ (payload_dtypes[DTYPE_UINT8].npy_descr, "|u1")
      && STREQ (payload_dtypes[DTYPE_UINT8].name, "uint8"), "uint8: 1 byte, '|u1'");

  int bad = -1;
  for (unsigned v = 0; v < PAYLOAD_PERIOD && bad < 0; v++)
    if (payload_half_bits (v) != reference_half (v))
      bad = (int) v;
  if (!ok (bad < 0, "fp16 bits of 0..250 match frexp's encoding"))
    printf ("#   value %d: got 0x%04x, want 0x%04x\n", bad, payload_half_bits ((unsigned) bad),
            reference_half ((unsigned) bad));
#ifdef __FLT16_MAX__
  bad = -1;
  for (unsigned v = 0; v < PAYLOAD_PERIOD && bad < 0; v++)
    {
      _Float16 h = (_Float16) v;
      uint16_t bits;
      memcpy (&bits, &h, sizeof bits);
      if (payload_half_bits (v) != bits)
        bad = (int) v;
    }
  ok (bad < 0, "fp16 bits of 0..250 match the compiler's _Float16");
#else
  ok (1, "# SKIP compiler has no _Float16");
#endif
  ok (payload_half_bits (0) == 0x0000, "fp16 0 is 0x0000");
  ok (payload_half_bits (1) == 0x3c00, "fp16 1 is 0x3c00");
  ok (payload_half_bits (2) == 0x4000, "fp16 2 is 0x4000");
  ok (payload_half_bits (3) == 0x4200, "fp16 3 is 0x4200");
  ok (payload_half_bits (100) == 0x5640, "fp16 100 is 0x5640");
  ok (payload_half_bits (250) == 0x5bd0, "fp16 250 is 0x5bd0");

  /* payload_element decodes what store wrote, for every value.  */
  bad = -1;
  for (unsigned v = 0; v < PAYLOAD_PERIOD && bad < 0; v++)
    {
      uint16_t h = payload_half_bits (v);
      float f = (float) v;
      unsigned char u = (unsigned char) v;
      if (payload_element (DTYPE_FP16, &h, 0) != v || payload_element (DTYPE_FP32, &f, 0) != v
          || payload_element (DTYPE_UINT8, &u, 0) != v)
        bad = (int) v;
    }
  ok (bad < 0, "payload_element decodes 0..250 in every dtype");
  uint16_t neg_two = 0xc000, half = 0x3800, inf = 0x7c00, tiny = 0x0001;
  ok (payload_element (DTYPE_FP16, &neg_two, 0) == -2.0, "fp16 0xc000 decodes to -2");
  is_double (payload_element (DTYPE_FP16, &half, 0), 0.5, 0, "fp16 0x3800 decodes to 0.5");
  ok (isinf (payload_element (DTYPE_FP16, &inf, 0)), "fp16 0x7c00 decodes to infinity");
  ok (payload_element (DTYPE_FP16, &tiny, 0) == ldexp (1, -24), "fp16 0x0001 decodes to 2^-24");

  ok (payload_shift (0, 0) == 0, "shift(0, 0) = 0");
  ok (payload_shift (1, 0) == 17, "shift(1, 0) = 17");
  ok (payload_shift (0, 1) == 29, "shift(0, 1) = 29");
  ok (payload_shift (5, 2) == (5 * 17 + 2 * 29) % 251, "shift(5, 2) = 143");
  ok (payload_shift (15, 0) == 4, "shift(15, 0) = 255 %% 251 = 4");
  bad = 0;
  static const uint64_t sequences[] = { 0, 1, 250, 251, 252, 1000003, UINT64_MAX / 17,
                                        UINT64_MAX / 17 + 1, UINT64_MAX };
  for (size_t i = 0; i < ARRAY_SIZE (sequences); i++)
    for (unsigned l = 0; l < 3; l++)
      if (payload_shift (sequences[i], l) != reference_value (sequences[i], l, 0))
        bad++;
  ok (bad == 0, "shift matches (s*17 + l*29) %% 251 in 128-bit arithmetic, up to UINT64_MAX");
  ok (payload_value (0, 0) == 0 && payload_value (250, 0) == 250 && payload_value (251, 0) == 0
      && payload_value (1, 250) == 0 && payload_value (10, 17) == 27
      && payload_value (UINT64_MAX, 3) == (unsigned) ((UINT64_MAX % 251 + 3) % 251),
      "payload_value wraps at 251");
}

struct layout_case
{
  uint64_t size;
  enum payload_dtype dtype;
  enum payload_kind kind;
  const char *format;
  uint64_t bytes;
};

static const struct layout_case layouts[] = {
  { 4096, DTYPE_FP32, KIND_TENSOR, "0:1024", 4096 },
  { 4096, DTYPE_FP16, KIND_TENSOR, "0:2048", 4096 },
  { 4096, DTYPE_UINT8, KIND_TENSOR, "0:4096", 4096 },
  { 8 << 20, DTYPE_FP32, KIND_TENSOR, "0:2097152", 8 << 20 },
  { 4098, DTYPE_FP32, KIND_TENSOR, "0:1024", 4096 },       /* rounds down */
  { 3, DTYPE_FP32, KIND_TENSOR, "0:1", 4 },                /* smaller than itemsize */
  { 1, DTYPE_FP16, KIND_TENSOR, "0:1", 2 },
  { 1, DTYPE_UINT8, KIND_TENSOR, "0:1", 1 },
  { 4096, DTYPE_FP32, KIND_NESTED, "0:512;2048:512;4096:3", 4108 },
  { 4096, DTYPE_FP16, KIND_NESTED, "0:1024;2048:1024;4096:3", 4102 },
  { 4096, DTYPE_UINT8, KIND_NESTED, "0:2048;2048:2048;4096:3", 4099 },
  { 101, DTYPE_UINT8, KIND_NESTED, "0:50;64:51;128:3", 131 },
  { 100, DTYPE_FP16, KIND_NESTED, "0:25;64:25;128:3", 134 },
  { 12, DTYPE_FP32, KIND_NESTED, "0:1;64:2;128:3", 140 },  /* e = 3: 1 and 2 */
  { 4, DTYPE_FP32, KIND_NESTED, "0:1;64:1;128:3", 140 },   /* e = 1: max(1, 0) and 1 */
  { 1, DTYPE_FP32, KIND_NESTED, "0:1;64:1;128:3", 140 },   /* smaller than itemsize */
  { 1, DTYPE_FP16, KIND_NESTED, "0:1;64:1;128:3", 134 },
  { 1, DTYPE_UINT8, KIND_NESTED, "0:1;64:1;128:3", 131 },
};

static void
test_layouts (void)
{
  for (size_t i = 0; i < ARRAY_SIZE (layouts); i++)
    {
      const struct layout_case *c = &layouts[i];
      struct payload_layout layout;
      char text[128];
      payload_layout_init (&layout, c->size, c->dtype, c->kind);
      payload_layout_format (&layout, text, sizeof text);
      if (!ok (STREQ (text, c->format) && layout.bytes == c->bytes
               && layout.nleaves == (c->kind == KIND_NESTED ? 3u : 1u)
               && layout.size == c->size && layout.dtype == c->dtype && layout.kind == c->kind,
               "layout of %" PRIu64 " bytes %s %s is %s, %" PRIu64 " bytes", c->size,
               payload_dtypes[c->dtype].name, payload_kind_names[c->kind], c->format, c->bytes))
        printf ("#   got '%s', %" PRIu64 " bytes, %u leaves\n", text, layout.bytes, layout.nleaves);
    }
  struct payload_layout layout;
  payload_layout_init (&layout, 12345, DTYPE_FP16, KIND_NESTED);
  bool aligned = true;
  for (unsigned l = 0; l < layout.nleaves; l++)
    aligned &= layout.leaves[l].offset % PAYLOAD_LEAF_ALIGN == 0;
  ok (aligned, "every leaf starts %d-byte aligned", PAYLOAD_LEAF_ALIGN);
}

/* Fill an item with each way of storing, check every element against the
   definition, then verify.  */
static void
test_round_trip (void)
{
  static const uint64_t sizes[] = { 1, 7, 100, 4096, 4016 * 4 + 12, 70000, (1 << 20) + 36 };
  static const uint64_t sequences[] = { 0, 1, 5, 250, 251, 123456789, UINT64_MAX };
  for (int st = 0; st < STORE_COUNT; st++)
  for (int d = 0; d < DTYPE_COUNT; d++)
    for (int k = 0; k < KIND_COUNT; k++)
      {
        uint64_t bad_value = 0, failed_verify = 0, dirty_padding = 0, checked = 0;
        for (size_t s = 0; s < ARRAY_SIZE (sizes); s++)
          for (size_t q = 0; q < ARRAY_SIZE (sequences); q++)
            {
              struct payload_layout layout;
              payload_layout_init (&layout, sizes[s], (enum payload_dtype) d,
                                   (enum payload_kind) k);
              unsigned char *item = xmalloc (layout.bytes + 16);
              memset (item, 0xa5, layout.bytes + 16);
              payload_fill_store (&layout, sequences[q], item, (enum payload_store) st);
              uint64_t end = 0;
              for (unsigned l = 0; l < layout.nleaves; l++)
                {
                  const struct payload_leaf *leaf = &layout.leaves[l];
                  for (uint64_t b = end; b < leaf->offset; b++)
                    dirty_padding += item[b] != 0;
                  for (uint64_t j = 0; j < leaf->count; j++)
                    {
                      checked++;
                      if (payload_element ((enum payload_dtype) d, item + leaf->offset, j)
                          != reference_value (sequences[q], l, j))
                        bad_value++;
                    }
                  end = leaf->offset + leaf->count * payload_dtypes[d].itemsize;
                }
              /* Nothing written past the item.  */
              for (uint64_t b = layout.bytes; b < layout.bytes + 16; b++)
                dirty_padding += item[b] != 0xa5;
              struct payload_check check;
              payload_verify (&layout, sequences[q], item, &check);
              failed_verify += check.mismatches != 0 || check.found;
              /* The neighbouring sequence must not pass (shift differs).  */
              payload_verify (&layout, sequences[q] + 1, item, &check);
              failed_verify += check.mismatches == 0;
              free (item);
            }
        if (!ok (bad_value == 0 && failed_verify == 0 && dirty_padding == 0,
                 "%s %s, %s stores: fill writes the pattern (%" PRIu64 " elements), verify "
                 "accepts it and refuses the next sequence", payload_dtypes[d].name,
                 payload_kind_names[k], payload_store_names[st], checked))
          printf ("#   %" PRIu64 " bad values, %" PRIu64 " verify failures, %" PRIu64
                  " dirty padding bytes\n", bad_value, failed_verify, dirty_padding);
      }
}

/* Filling an item in consecutive parts of any multiple of 64 bytes (as a
   paced producer does) writes exactly the bytes of one whole fill.  */
static void
test_fill_parts (void)
{
  static const uint64_t sizes[] = { 1, 100, 4016 * 4 + 12, 70000, (1 << 20) + 36 };
  static const uint64_t parts[] = { 64, 192, 4096, 65536 + 64, 1 << 20 };
  for (int st = 0; st < STORE_COUNT; st++)
    for (int d = 0; d < DTYPE_COUNT; d++)
      for (int k = 0; k < KIND_COUNT; k++)
        {
          uint64_t differ = 0, runs = 0;
          for (size_t s = 0; s < ARRAY_SIZE (sizes); s++)
            for (size_t p = 0; p < ARRAY_SIZE (parts); p++)
              {
                struct payload_layout layout;
                payload_layout_init (&layout, sizes[s], (enum payload_dtype) d,
                                     (enum payload_kind) k);
                unsigned char *whole = xmalloc (layout.bytes + 16);
                unsigned char *pieces = xmalloc (layout.bytes + 16);
                memset (whole, 0xa5, layout.bytes + 16);
                memset (pieces, 0x5a, layout.bytes + 16);
                uint64_t sequence = 1000 + s * 7 + p;
                payload_fill_store (&layout, sequence, whole, (enum payload_store) st);
                for (uint64_t from = 0; from < layout.bytes; from += parts[p])
                  payload_fill_part (&layout, sequence, pieces, from, from + parts[p],
                                     (enum payload_store) st);
                differ += memcmp (whole, pieces, layout.bytes) != 0;
                differ += pieces[layout.bytes] != 0x5a;
                runs++;
                free (whole);
                free (pieces);
              }
          ok (differ == 0, "%s %s, %s stores: %" PRIu64 " fills in parts equal whole fills",
              payload_dtypes[d].name, payload_kind_names[k], payload_store_names[st], runs);
        }
}

static void
test_mismatch_reports (void)
{
  struct payload_layout layout;
  struct payload_check check;

  /* fp32 tensor, 70000 bytes = 17500 elements: several 4016-element runs. */
  payload_layout_init (&layout, 70000, DTYPE_FP32, KIND_TENSOR);
  unsigned char *item = xmalloc (layout.bytes);
  payload_fill (&layout, 5, item);
  item[300 * 4 + 2] ^= 0x60;   /* 5*17 = 85: element 300 is 385 % 251 = 134 */
  payload_verify (&layout, 5, item, &check);
  float changed;
  memcpy (&changed, item + 300 * 4, sizeof changed);
  if (!ok (check.mismatches == 1 && check.found && check.leaf == 0 && check.index == 300
           && check.expected == 134 && check.actual == changed && changed != 134,
           "fp32: a flipped byte of element 300 is found with leaf 0, expected 134, actual %g",
           changed))
    printf ("#   mismatches %" PRIu64 " leaf %u index %" PRIu64 " expected %g actual %g\n",
            check.mismatches, check.leaf, check.index, check.expected, check.actual);

  /* A second bad element in a later run: counted, first one still reported. */
  float forty = 40;
  memcpy (item + 17000 * 4, &forty, sizeof forty);
  payload_verify (&layout, 5, item, &check);
  ok (check.mismatches == 2 && check.leaf == 0 && check.index == 300 && check.expected == 134,
      "fp32: two bad elements counted, the first reported");
  free (item);

  /* Element 17000 alone, far into the item.  */
  item = xmalloc (layout.bytes);
  payload_fill (&layout, 5, item);
  memcpy (item + 17000 * 4, &forty, sizeof forty);
  payload_verify (&layout, 5, item, &check);
  ok (check.mismatches == 1 && check.index == 17000
      && check.expected == (17000 + 85) % 251 && check.actual == 40,
      "fp32: element 17000 set to 40 reported with expected %d", (17000 + 85) % 251);
  free (item);

  /* uint8 nested: the last leaf (3 elements) of sequence 7.  */
  payload_layout_init (&layout, 101, DTYPE_UINT8, KIND_NESTED);
  item = xmalloc (layout.bytes);
  payload_fill (&layout, 7, item);
  item[layout.leaves[2].offset + 1] = 255;
  payload_verify (&layout, 7, item, &check);
  unsigned want = (1 + 7 * 17 + 2 * 29) % 251;
  ok (check.mismatches == 1 && check.leaf == 2 && check.index == 1 && check.expected == want
      && check.actual == 255, "uint8 nested: leaf 2 index 1 expected %u actual 255", want);
  free (item);

  /* fp16 nested, middle leaf: actual decoded from half bits.  */
  payload_layout_init (&layout, 1000, DTYPE_FP16, KIND_NESTED);
  item = xmalloc (layout.bytes);
  payload_fill (&layout, 3, item);
  uint16_t h = payload_half_bits (200);
  memcpy (item + layout.leaves[1].offset + 10 * 2, &h, sizeof h);
  payload_verify (&layout, 3, item, &check);
  want = (10 + 3 * 17 + 29) % 251;
  ok (check.mismatches == 1 && check.leaf == 1 && check.index == 10 && check.expected == want
      && check.actual == 200, "fp16 nested: leaf 1 index 10 expected %u actual 200", want);

  /* Padding between leaves must be zero: every byte of an item is checked. */
  payload_fill (&layout, 3, item);
  uint64_t gap = layout.leaves[1].offset - 1;
  item[gap] = 0x77;
  payload_verify (&layout, 3, item, &check);
  ok (check.mismatches == 1 && check.padding == 1 && check.found && check.in_padding
      && check.index == gap && check.expected == 0 && check.actual == 0x77,
      "fp16 nested: padding byte %" PRIu64 " before leaf 1 reported, expected 0, actual 119",
      gap);

  /* The first bad byte in item order is reported; both kinds counted.  */
  memcpy (item + layout.leaves[1].offset + 10 * 2, &h, sizeof h);
  item[layout.leaves[2].offset - 2] = 1;
  payload_verify (&layout, 3, item, &check);
  ok (check.mismatches == 3 && check.padding == 2 && check.in_padding && check.index == gap,
      "fp16 nested: an element and two padding bytes counted, the first padding byte reported");
  item[gap] = 0;
  payload_verify (&layout, 3, item, &check);
  ok (check.mismatches == 2 && check.padding == 1 && !check.in_padding && check.leaf == 1
      && check.index == 10, "fp16 nested: a bad element before bad padding is reported first");
  free (item);

  /* Every gap of every dtype: a byte set in it is found, its neighbours
     are leaf bytes.  */
  unsigned gaps = 0, found = 0;
  for (int d = 0; d < DTYPE_COUNT; d++)
    for (uint64_t size = 1; size < 300; size += 7)
      {
        payload_layout_init (&layout, size, d, KIND_NESTED);
        item = xmalloc (layout.bytes);
        for (unsigned l = 1; l < layout.nleaves; l++)
          {
            uint64_t from = layout.leaves[l - 1].offset
                            + layout.leaves[l - 1].count * payload_dtypes[d].itemsize;
            for (uint64_t b = from; b < layout.leaves[l].offset; b++)
              {
                payload_fill (&layout, size, item);
                item[b] = 0x80;
                payload_verify (&layout, size, item, &check);
                gaps++;
                found += check.mismatches == 1 && check.padding == 1 && check.in_padding
                         && check.index == b && check.actual == 0x80;
              }
          }
        free (item);
      }
  ok (gaps > 1000 && found == gaps, "a nonzero byte anywhere in padding is found (%u of %u)",
      found, gaps);
}

static char *
read_file (const char *path, size_t *len)
{
  FILE *f = fopen (path, "rb");
  *len = 0;
  if (!f)
    return NULL;
  size_t size = 1 << 16;
  char *buf = xmalloc (size);
  size_t n;
  while ((n = fread (buf + *len, 1, size - *len, f)) > 0)
    {
      *len += n;
      if (*len == size)
        buf = xrealloc (buf, size *= 2);
    }
  fclose (f);
  return buf;
}

static void
check_npy (const char *dir, uint64_t size, enum payload_dtype dtype, enum payload_kind kind,
           unsigned leaf, const char *dict)
{
  char path[512];
  snprintf (path, sizeof path, "%s/leaf.npy", dir);
  struct payload_layout layout;
  payload_layout_init (&layout, size, dtype, kind);
  unsigned char *item = xmalloc (layout.bytes);
  payload_fill (&layout, 9, item);
  int err = payload_save_npy (&layout, item, leaf, path);
  size_t len;
  char *file = read_file (path, &len);
  size_t data = layout.leaves[leaf].count * payload_dtypes[dtype].itemsize;
  size_t dict_len = strlen (dict);
  size_t header = (10 + dict_len + 1 + 63) / 64 * 64;
  bool good = err == 0 && file && len == header + data
    && memcmp (file, "\x93NUMPY\x01\x00", 8) == 0
    && (unsigned char) file[8] == ((header - 10) & 0xff)
    && (unsigned char) file[9] == ((header - 10) >> 8)
    && memcmp (file + 10, dict, dict_len) == 0
    && file[header - 1] == '\n'
    && memcmp (file + header, item + layout.leaves[leaf].offset, data) == 0;
  for (size_t i = 10 + dict_len; good && i < header - 1; i++)
    good = file[i] == ' ';
  if (!ok (good, "npy of %s %s leaf %u: %zu-byte header %s, then the leaf's bytes",
           payload_dtypes[dtype].name, payload_kind_names[kind], leaf, header, dict))
    printf ("#   err %d, file length %zu, want %zu\n", err, len, header + data);
  free (file);
  free (item);
  unlink (path);
}

static void
test_npy (void)
{
  char dir[] = "/tmp/arenabench-payload.XXXXXX";
  if (!mkdtemp (dir))
    {
      ok (0, "mkdtemp");
      return;
    }
  check_npy (dir, 4096, DTYPE_FP32, KIND_TENSOR, 0,
             "{'descr': '<f4', 'fortran_order': False, 'shape': (1024,), }");
  check_npy (dir, 4096, DTYPE_FP16, KIND_NESTED, 1,
             "{'descr': '<f2', 'fortran_order': False, 'shape': (1024,), }");
  check_npy (dir, 4096, DTYPE_FP16, KIND_NESTED, 2,
             "{'descr': '<f2', 'fortran_order': False, 'shape': (3,), }");
  check_npy (dir, 1, DTYPE_UINT8, KIND_TENSOR, 0,
             "{'descr': '|u1', 'fortran_order': False, 'shape': (1,), }");
  check_npy (dir, 8 << 20, DTYPE_UINT8, KIND_NESTED, 0,
             "{'descr': '|u1', 'fortran_order': False, 'shape': (4194304,), }");

  /* One file spelt out byte for byte: 10 + 57 dict bytes + newline round
     up to a 128-byte header (length field 118), then the data 0 1 2 3.  */
  char path[512];
  snprintf (path, sizeof path, "%s/leaf.npy", dir);
  struct payload_layout layout;
  payload_layout_init (&layout, 4, DTYPE_UINT8, KIND_TENSOR);
  unsigned char item[4] = { 0 };
  payload_fill (&layout, 0, item);
  payload_save_npy (&layout, item, 0, path);
  size_t len;
  char *file = read_file (path, &len);
  static const char want[] =
    "\x93NUMPY\x01\x00\x76\x00{'descr': '|u1', 'fortran_order': False, 'shape': (4,), }"
    "                                                            \n\x00\x01\x02\x03";
  ok (file && len == sizeof want - 1 && len == 132 && memcmp (file, want, len) == 0,
      "npy of a 4-element uint8 leaf is exactly 128 header bytes and 0 1 2 3");
  free (file);
  unlink (path);

  snprintf (path, sizeof path, "%s/missing/leaf.npy", dir);
  ok (payload_save_npy (&layout, item, 0, path) == ENOENT, "npy into a missing directory: ENOENT");
  rmdir (dir);
}

int
main (int argc, char **argv)
{
  die_set_program_name (argv[0]);
  (void) argc;
  test_dtype_values ();
  test_layouts ();
  test_round_trip ();
  test_fill_parts ();
  test_mismatch_reports ();
  test_npy ();
  tap_plan (tap_count);
  return done_testing ();
}
