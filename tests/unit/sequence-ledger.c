/* sequence-ledger.c -- unit tests of the ledger that counts each sequence
   of a pull run once: duplicates refused wherever they fall (in the solid
   prefix, the window, its first and last bits), the prefix advancing by
   whole words, and the gaps reported exactly.  */
#include "system.h"
#include "sequence-ledger.h"
#include "tap.h"

#include <inttypes.h>

/* The gaps of L in [FROM, END) as "a-b c d-e", or "none".  */
static const char *
gaps (const struct sequence_ledger *l, uint64_t from, uint64_t end)
{
  static char text[256];
  size_t used = 0;
  uint64_t first, last;
  text[0] = '\0';
  while (used < sizeof text - 48 && sequence_ledger_gap (l, from, end, &first, &last))
    {
      if (first == last)
        used += (size_t) snprintf (text + used, sizeof text - used, "%s%" PRIu64,
                                   used ? " " : "", first);
      else
        used += (size_t) snprintf (text + used, sizeof text - used, "%s%" PRIu64 "-%" PRIu64,
                                   used ? " " : "", first, last);
      from = last + 1;
    }
  return used ? text : "none";
}

int
main (void)
{
  struct sequence_ledger l = { 0 };
  ok (STREQ (gaps (&l, 0, 10), "0-9"), "empty: every sequence missing (%s)", gaps (&l, 0, 10));
  ok (sequence_ledger_mark (&l, 5), "a first sequence is new");
  ok (!sequence_ledger_mark (&l, 5), "the same again is refused");
  ok (l.count == 1 && l.base == 0, "counted once, prefix still at 0");
  ok (STREQ (gaps (&l, 0, 10), "0-4 6-9"), "gaps around it: %s", gaps (&l, 0, 10));
  for (uint64_t s = 0; s < 64; s++)
    if (s != 5)
      sequence_ledger_mark (&l, s);
  ok (l.base == 64 && l.words == 0 && l.count == 64,
      "a full first word moves into the prefix (base %" PRIu64 ", %zu words)", l.base, l.words);
  ok (!sequence_ledger_mark (&l, 0) && !sequence_ledger_mark (&l, 63),
      "sequences in the prefix are refused");
  ok (sequence_ledger_mark (&l, 64 + 200) && l.words == 4,
      "a straggler's gap grows the window (%zu words)", l.words);
  ok (!sequence_ledger_mark (&l, 264), "and a duplicate beyond the prefix is refused");
  ok (STREQ (gaps (&l, 0, 300), "64-263 265-299"), "gaps: %s", gaps (&l, 0, 300));
  ok (STREQ (gaps (&l, 0, 64), "none"), "none missing below the prefix");
  ok (STREQ (gaps (&l, 260, 266), "260-263 265"), "a range that starts in the window: %s",
      gaps (&l, 260, 266));
  for (uint64_t s = 64; s < 264; s++)
    sequence_ledger_mark (&l, s);
  ok (l.base == 256 && l.count == 265, "the prefix follows once the gap fills (base %"
      PRIu64 ", count %" PRIu64 ")", l.base, l.count);
  ok (STREQ (gaps (&l, 0, 300), "265-299"), "only what never came is missing: %s",
      gaps (&l, 0, 300));
  ok (STREQ (gaps (&l, 0, 265), "none"), "the ledger's end at the range's end: none");
  /* 1,000,000 sequences in order, one held back to the end: the window
     stays one straggler wide, not a million bits.  */
  struct sequence_ledger m = { 0 };
  bool fresh = true;
  for (uint64_t s = 1; s < 1000000; s++)
    fresh &= sequence_ledger_mark (&m, s);
  ok (fresh && m.base == 0 && m.count == 999999, "a straggler at 0 holds the prefix");
  ok (STREQ (gaps (&m, 0, 1000000), "0"), "and is the one gap: %s", gaps (&m, 0, 1000000));
  fresh = sequence_ledger_mark (&m, 0);
  ok (fresh && m.base == 1000000 && m.words == 0,
      "once it comes the prefix jumps (base %" PRIu64 ", %zu words)", m.base, m.words);
  sequence_ledger_free (&l);
  sequence_ledger_free (&m);
  ok (l.bits == NULL && l.count == 0, "free empties the ledger");
  tap_plan (tap_count);
  return tap_failed != 0;
}
