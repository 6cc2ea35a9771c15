/* producer-tally.c -- items and median fill time per producer worker.  */
#include "system.h"
#include "producer-tally.h"
#include "die.h"

#include <inttypes.h>
#include <math.h>

enum { SUB_BITS = 5, SUB = 1 << SUB_BITS, BUCKETS = 1920 };

/* Values below SUB are their own bucket; above, SUB buckets per octave.  */
static unsigned
bucket_of (uint64_t v)
{
  if (v < SUB)
    return (unsigned) v;
  unsigned e = 63 - (unsigned) __builtin_clzll (v);
  return SUB + (e - SUB_BITS) * SUB + (unsigned) ((v >> (e - SUB_BITS)) & (SUB - 1));
}

/* The middle of bucket B.  */
static double
bucket_value (unsigned b)
{
  if (b < SUB)
    return b;
  unsigned e = (b - SUB) / SUB + SUB_BITS, sub = (b - SUB) % SUB;
  double width = ldexp (1, (int) (e - SUB_BITS));
  return (SUB + sub) * width + width / 2;
}

void
producer_tally_add (struct producer_tally *t, uint32_t workers, uint32_t worker, uint64_t fill_ns)
{
  if (!t->workers)
    {
      t->workers = workers;
      t->items = xcalloc (workers, sizeof *t->items);
      t->fill = xcalloc (workers, sizeof *t->fill);
    }
  if (worker >= t->workers)
    return;
  t->items[worker]++;
  t->fill[worker][bucket_of (fill_ns)]++;
}

/* Median fill time of worker W in ns; NAN with no items.  */
static double
median_ns (const struct producer_tally *t, uint32_t w)
{
  if (!t->items[w])
    return NAN;
  uint64_t half = (t->items[w] + 1) / 2, seen = 0;
  for (unsigned b = 0; b < BUCKETS; b++)
    if ((seen += t->fill[w][b]) >= half)
      return bucket_value (b);
  return NAN;
}

/* The two cells' text: items [1], fill times [0].  */
static char *cells_text[2];

static const char *
format_cells (const struct producer_tally *t, bool items)
{
  char **text = &cells_text[items];
  free (*text);
  size_t size = (size_t) t->workers * 24 + 1, used = 0;
  char *cells = *text = xmalloc (size);
  cells[0] = '\0';
  for (uint32_t w = 0; w < t->workers; w++)
    {
      const char *sep = w ? " " : "";
      double m = items ? 0 : median_ns (t, w);
      if (items)
        used += (size_t) snprintf (cells + used, size - used, "%s%" PRIu64, sep, t->items[w]);
      else if (isnan (m))
        used += (size_t) snprintf (cells + used, size - used, "%s-", sep);
      else
        used += (size_t) snprintf (cells + used, size - used, "%s%.1f", sep, m / 1e3);
    }
  return cells;
}

const char *
producer_tally_items (const struct producer_tally *t)
{
  return format_cells (t, true);
}

const char *
producer_tally_fill_us (const struct producer_tally *t)
{
  return format_cells (t, false);
}

void
producer_tally_free (struct producer_tally *t)
{
  free (t->items);
  free (t->fill);
  for (int i = 0; i < 2; i++)
    {
      free (cells_text[i]);
      cells_text[i] = NULL;
    }
  *t = (struct producer_tally) { 0 };
}
