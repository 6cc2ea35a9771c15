/* ceiling.h -- what this host can fill and copy at once: the limit a
   pinned arena pipeline is judged against (h2d-check --calibrate's
   "ceiling" row).

   In one process, PRODUCERS threads each fill SLOTS slots of one
   page-locked buffer with the payload arena-produce writes, in the same
   way (payload_fill_store, STORE), while this thread
   copies filled slots to the device as soon as they are ready (the
   producers in turn; slots of one producer filled back to back go in one
   copy, as h2d-check joins an arena's adjacent items, up to
   H2D_BATCH_BYTES; two streams, up to eight copies in flight) and hands
   them back when their copy completes.  No processes, no rows, no check: whatever a pipeline
   of arenas loses beyond this rate is its own.

   Implemented by ceiling.cu; without CUDA, gpu-none.c dies with
   EXIT_UNAVAILABLE.  Call gpu_require and gpu_select (gpu.h) first.  */
#ifndef ARENABENCH_CEILING_H
#define ARENABENCH_CEILING_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#include "payload.h"

/* Page-locked bytes the ceiling holds at most: slots beyond it are left
   out (two a producer at the least).  One registration holds them.  */
#define CEILING_BYTES_MAX (UINT64_C (1) << 30)

/* The buffer: cudaHostAlloc memory (as the reference probe uses), or
   shared memory (a memfd, tmpfs pages as arenas have) page-locked with
   cudaHostRegister, as a pinned arena is.  */
enum ceiling_memory { CEILING_HOST_ALLOC, CEILING_REGISTERED_SHM };

struct ceiling_result
{
  uint64_t items, bytes;        /* copied in the measured time */
  double seconds;
  unsigned slots;               /* per producer, as used */
};

/* Run for WARMUP_S, then measure for SECONDS, in MEMORY.  Returns false
   with WHY set when the buffer cannot be had (refused by CUDA or the
   system).  */
bool ceiling_measure (const struct payload_layout *layout, enum payload_store store,
                      enum ceiling_memory memory, unsigned producers, unsigned slots,
                      double warmup_s, double seconds, struct ceiling_result *result,
                      char *why, size_t why_size);

#ifdef __cplusplus
}
#endif

#endif
