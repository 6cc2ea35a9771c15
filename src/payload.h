/* payload.h -- the deterministic payload pattern every producer writes and
   every consumer checks.

   Leaf L of item SEQUENCE holds element J = (J + (SEQUENCE*17 + L*29) % 251) % 251,
   converted to the dtype (exact in fp32, fp16 and uint8).  A "tensor" item
   is one leaf of max(1, size/itemsize) elements; a "nested" item has three
   leaves of [max(1,e/2), max(1,e-e/2), 3] elements.  Leaves are laid out
   one after another inside the item, each starting PAYLOAD_LEAF_ALIGN-aligned;
   the bytes between them are zero.  */
#ifndef ARENABENCH_PAYLOAD_H
#define ARENABENCH_PAYLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PAYLOAD_PERIOD 251
#define PAYLOAD_MAX_LEAVES 3
#define PAYLOAD_LEAF_ALIGN 64
/* The largest item size (bytes) anything accepts: layouts are computed in
   64 bits, far from overflow at this size.  */
#define PAYLOAD_MAX_SIZE (UINT64_C (1) << 40)

enum payload_dtype { DTYPE_FP32, DTYPE_FP16, DTYPE_UINT8, DTYPE_COUNT };
enum payload_kind { KIND_TENSOR, KIND_NESTED, KIND_COUNT };

struct dtype_def
{
  const char *name;         /* "fp32" */
  const char *npy_descr;    /* "<f4" */
  size_t itemsize;
};

extern const struct dtype_def payload_dtypes[DTYPE_COUNT];
extern const char *const payload_dtype_names[DTYPE_COUNT + 1];  /* NULL-terminated */
extern const char *const payload_kind_names[KIND_COUNT + 1];

struct payload_leaf
{
  uint64_t offset;          /* bytes from the start of the item */
  uint64_t count;           /* elements */
};

struct payload_layout
{
  enum payload_dtype dtype;
  enum payload_kind kind;
  uint64_t size;            /* the requested byte budget */
  unsigned nleaves;
  struct payload_leaf leaves[PAYLOAD_MAX_LEAVES];
  uint64_t bytes;           /* end of the last leaf: what an item occupies */
};

/* Lay out an item of SIZE bytes of DTYPE and KIND.  */
void payload_layout_init (struct payload_layout *layout, uint64_t size,
                          enum payload_dtype dtype, enum payload_kind kind);

/* "offset:count;offset:count" as carried in handle rows.  */
void payload_layout_format (const struct payload_layout *layout, char *buf, size_t size);

/* The pattern's first value for SEQUENCE and LEAF: (SEQUENCE*17 + LEAF*29) % 251. */
unsigned payload_shift (uint64_t sequence, unsigned leaf);

/* Element J of the pattern with SHIFT as a number (what the dtype holds).  */
static inline unsigned
payload_value (uint64_t j, unsigned shift)
{
  return (unsigned) ((j % PAYLOAD_PERIOD + shift) % PAYLOAD_PERIOD);
}

/* How payload_fill writes memory.  Cached stores suit items that fit in the
   cache; streaming (non-temporal) stores skip the read-for-ownership a
   cached store makes, nearly halving a producer's memory traffic for large
   items, and leave the cache to the consumer.  */
enum payload_store { STORE_AUTO, STORE_CACHED, STORE_STREAMING, STORE_COUNT };
extern const char *const payload_store_names[STORE_COUNT + 1];

/* Leaves at least this long are streamed under STORE_AUTO.  */
#define PAYLOAD_STREAM_MIN_BYTES (1u << 20)

/* Write item SEQUENCE into ITEM (layout->bytes long); padding between leaves
   is zeroed.  Runs at memory speed from a precomputed period table.  */
void payload_fill_store (const struct payload_layout *layout, uint64_t sequence, void *item,
                         enum payload_store store);

/* Write bytes [FROM, TO) of item SEQUENCE, as payload_fill_store would:
   FROM must be a multiple of PAYLOAD_LEAF_ALIGN; TO past layout->bytes
   means the end.  Filling an item in consecutive parts writes the same
   bytes as filling it at once.  */
void payload_fill_part (const struct payload_layout *layout, uint64_t sequence, void *item,
                        uint64_t from, uint64_t to, enum payload_store store);

static inline void
payload_fill (const struct payload_layout *layout, uint64_t sequence, void *item)
{
  payload_fill_store (layout, sequence, item, STORE_AUTO);
}

/* Result of checking one item.  */
struct payload_check
{
  uint64_t mismatches;      /* elements that differ, over all leaves, and
                               padding bytes that are not zero */
  uint64_t padding;         /* how many of MISMATCHES are padding bytes */
  bool found;               /* the first bad element or byte in the item,
                               when mismatches > 0: */
  bool in_padding;          /* a padding byte, at byte INDEX of the item */
  unsigned leaf;            /* else element INDEX of leaf LEAF */
  uint64_t index;
  double expected, actual;
};

/* Check every byte of ITEM (layout->bytes long): every element of every
   leaf against SEQUENCE's pattern, and the padding between leaves (and
   after the last, should a layout have any) against zero.  */
void payload_verify (const struct payload_layout *layout, uint64_t sequence,
                     const void *item, struct payload_check *check);

/* Element INDEX of a leaf as a double, for messages.  */
double payload_element (enum payload_dtype dtype, const void *leaf, uint64_t index);

/* Write leaf LEAF of ITEM as a NumPy .npy (format 1.0) file at PATH, which
   must not exist (O_EXCL; a symlink there is not followed).  Returns 0 or
   an errno value.  */
int payload_save_npy (const struct payload_layout *layout, const void *item,
                      unsigned leaf, const char *path);

/* IEEE half-precision bits of VALUE, which is exactly a half (every
   element the payload stores is: integers below 2048): the one encoder,
   the payload's and the mismatch messages'.  */
uint16_t payload_half_bits (double value);

#endif
