/* fill-pace.h -- how fast, and where, a producer writes its items.

   Producers that write at full memory bandwidth in bursts starve the copy
   engine's reads of host memory (on an H200 host the engine drops from
   53.5 to 23 GB/s beside 8 unthrottled writers).  A pipeline only needs
   the items written as fast as they are copied, so a producer may be held
   to RATE bytes per second: it writes each item in parts of CHUNK bytes
   and waits before a part that would run ahead of the rate.  Producers
   may also be bound to CPUs, one each, round-robin over a list.  */
#ifndef ARENABENCH_FILL_PACE_H
#define ARENABENCH_FILL_PACE_H

#include <stddef.h>
#include <stdint.h>

#include "payload.h"

/* --fill-chunk's default and bounds.  */
#define FILL_PACE_CHUNK_DEFAULT (UINT64_C (256) << 10)
#define FILL_PACE_CHUNK_MIN (UINT64_C (4) << 10)
#define FILL_PACE_CHUNK_MAX (UINT64_C (1) << 30)
/* The smallest --fill-rate other than 0 (unpaced): 1 MB/s.  */
#define FILL_PACE_RATE_MIN UINT64_C (1000000)

struct fill_pace
{
  uint64_t rate;            /* bytes per second; 0: as fast as it goes */
  uint64_t chunk;           /* bytes written between two looks at the clock */
  uint64_t next_ns;         /* clock_now_ns before which the next part waits */
};

/* Parse --fill-rate (a size per second, "2GB" = 2*10^9 B/s, 0 = unpaced)
   and --fill-chunk (a multiple of 64 bytes); bad values die with
   EXIT_USAGE.  */
uint64_t fill_pace_parse_rate (const char *option, const char *text);
/* A comma-separated list of such rates into *RATES (xmalloc'd); returns
   the count.  Worker W fills at the W-th, the last for every worker past
   the list (fill_pace_rate_of): "200MB,0" slows worker 0 alone.  */
size_t fill_pace_parse_rates (const char *option, const char *text, uint64_t **rates);
uint64_t fill_pace_rate_of (const uint64_t *rates, size_t count, uint32_t worker);
uint64_t fill_pace_parse_chunk (const char *option, const char *text);

void fill_pace_init (struct fill_pace *pace, uint64_t rate, uint64_t chunk);

/* payload_fill_store, held to PACE's rate: a part of PACE->chunk bytes
   waits until the bytes before it have taken their share of time.  Time
   spent waiting for a slot is not saved up: after an idle spell the
   producer does not burst.  */
void fill_pace_fill (struct fill_pace *pace, const struct payload_layout *layout,
                     uint64_t sequence, void *item, enum payload_store store);

/* Parse a CPU list ("0-3,8,10-11") into *CPUS (xmalloc'd); every CPU must
   be one this process may run on, else die with EXIT_USAGE.  Returns the
   count.  */
size_t fill_pace_parse_cpus (const char *option, const char *text, int **cpus);

/* Bind the calling process to CPU; returns 0 or an errno value.  */
int fill_pace_bind (int cpu);

#endif
