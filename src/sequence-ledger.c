/* sequence-ledger.c -- which sequences of a run have arrived.  */
#include "system.h"
#include "sequence-ledger.h"
#include "die.h"

static bool
has (const struct sequence_ledger *l, uint64_t sequence)
{
  if (sequence < l->base)
    return true;
  uint64_t i = sequence - l->base;
  return i / 64 < l->words && (l->bits[i / 64] >> (i % 64) & 1);
}

bool
sequence_ledger_mark (struct sequence_ledger *l, uint64_t sequence)
{
  if (has (l, sequence))
    return false;
  uint64_t i = sequence - l->base;
  if (i / 64 >= l->words)
    {
      size_t need = (size_t) (i / 64) + 1;
      if (need > l->size)
        {
          l->size = need > 2 * l->size ? need : 2 * l->size;
          l->bits = xreallocarray (l->bits, l->size, sizeof *l->bits);
        }
      memset (l->bits + l->words, 0, (need - l->words) * sizeof *l->bits);
      l->words = need;
    }
  l->bits[i / 64] |= UINT64_C (1) << (i % 64);
  l->count++;
  /* Full words leave the window for the prefix.  */
  size_t full = 0;
  while (full < l->words && l->bits[full] == UINT64_MAX)
    full++;
  if (full)
    {
      memmove (l->bits, l->bits + full, (l->words - full) * sizeof *l->bits);
      l->words -= full;
      l->base += 64 * (uint64_t) full;
    }
  return true;
}

bool
sequence_ledger_gap (const struct sequence_ledger *l, uint64_t from, uint64_t end,
                     uint64_t *first, uint64_t *last)
{
  uint64_t s = from > l->base ? from : l->base;
  while (s < end && has (l, s))
    s++;
  if (s >= end)
    return false;
  *first = s;
  /* Past the window nothing has arrived.  */
  uint64_t window_end = l->base + 64 * (uint64_t) l->words;
  while (s + 1 < end && s + 1 < window_end && !has (l, s + 1))
    s++;
  *last = s + 1 >= window_end ? end - 1 : s;
  return true;
}

void
sequence_ledger_free (struct sequence_ledger *l)
{
  free (l->bits);
  *l = (struct sequence_ledger) { 0 };
}
