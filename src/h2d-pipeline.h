/* h2d-pipeline.h -- h2d-check's engine: copy items from host memory to
   the GPU and check every element there, K items in flight.

   Work for one item, on three streams of the current device:
     copy stream     event, one cudaMemcpyAsync per leaf (split where the
                     source crosses a registration chunk), event; items
                     take turns on the pipeline's copy streams (1 to
                     H2D_COPY_STREAMS_MAX)
     verify stream   waits for the copy; the check kernel; its result back
     host stream     waits for the copy, then calls the item's RELEASE on
                     a CUDA runtime thread (the slot goes back to the
                     producer while verification still runs); waits for the
                     verification, stamps the time, marks the item retired
   Copies of later items thus overlap the checks of earlier ones.

   Where the time goes: with $ARENABENCH_H2D_TRACE naming a file, the
   pipeline writes one CSV line per retired item there (host submit, done
   and retire times in ns, device copy and check event times in ms, both
   from one origin taken when the pipeline opened).

   Implemented by h2d-pipeline.cu; without CUDA, gpu-none.c supplies every
   function, each dying with EXIT_UNAVAILABLE.  Call gpu_require and
   gpu_select (gpu.h) first.  */
#ifndef ARENABENCH_H2D_PIPELINE_H
#define ARENABENCH_H2D_PIPELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#include "payload.h"

/* cudaHostRegister page-locks an arena in pieces of this many bytes, and a
   copy never spans two pieces.  */
#define H2D_REGISTER_CHUNK (UINT64_C (1) << 30)

/* Copy streams items may take turns on (--copy-streams), and the default:
   two copies queued on two streams may keep the link busy across each
   copy's start-up; one stream keeps copies strictly back to back.  */
#define H2D_COPY_STREAMS_MAX 4
#define H2D_COPY_STREAMS_DEFAULT 2

/* Most items in flight (--inflight).  */
#define H2D_INFLIGHT_MAX 64

struct h2d_pipeline;

/* One item to move and check.  The pipeline keeps a copy.  */
struct h2d_item
{
  const unsigned char *host;    /* the item's first byte */
  struct payload_layout layout; /* dtype and leaves */
  uint64_t sequence;            /* which pattern to expect */
  /* Called once the copy has completed, on a CUDA runtime thread: it must
     make no CUDA call and must not exit.  */
  void (*release) (void *arg);
  void *release_arg;
  void *token;                  /* handed back by h2d_pipeline_retire */
};

/* How an item turned out.  */
struct h2d_outcome
{
  void *token;
  uint64_t h2d_ns;              /* event-timed copy of all its leaves */
  uint64_t verify_ns;           /* event-timed check kernel; 0 unverified */
  uint64_t done_ns;             /* clock_now_ns when its work completed */
  struct payload_check check;   /* mismatches and the first one */
};

/* INFLIGHT items at most in flight (1..H2D_INFLIGHT_MAX), their copies
   taking turns on COPY_STREAMS streams (1..H2D_COPY_STREAMS_MAX), checking
   each unless VERIFY is false.  Device buffers grow with the items.  */
struct h2d_pipeline *h2d_pipeline_open (unsigned inflight, unsigned copy_streams, bool verify);

/* Wait for the device, then free everything (registrations too).  */
void h2d_pipeline_close (struct h2d_pipeline *pipe);

/* Page-lock BYTES at BASE with cudaHostRegister in H2D_REGISTER_CHUNK
   pieces.  On failure undoes what it did, clears the CUDA error, writes
   CUDA's reason to WHY and returns false.  */
bool h2d_pipeline_register (struct h2d_pipeline *pipe, void *base, uint64_t bytes,
                            char *why, size_t why_size);

/* Undo h2d_pipeline_register of BASE.  No copy from it may be in flight. */
void h2d_pipeline_unregister (struct h2d_pipeline *pipe, void *base);

/* Items submitted and not yet retired.  */
unsigned h2d_pipeline_pending (const struct h2d_pipeline *pipe);
unsigned h2d_pipeline_inflight (const struct h2d_pipeline *pipe);

/* Queue ITEM.  Needs h2d_pipeline_pending < h2d_pipeline_inflight; an item
   larger than any before needs nothing pending (buffers are reallocated). */
void h2d_pipeline_submit (struct h2d_pipeline *pipe, const struct h2d_item *item);

/* Retire the oldest pending item into *OUT: wait for it if WAIT, else only
   when it has finished.  Returns false when nothing was retired.  */
bool h2d_pipeline_retire (struct h2d_pipeline *pipe, bool wait, struct h2d_outcome *out);

/* Bytes one buffer holds now (0 before the first item).  */
uint64_t h2d_pipeline_capacity (const struct h2d_pipeline *pipe);

#ifdef __cplusplus
}
#endif

#endif
