/* h2d-pipeline.h -- h2d-check's engine: copy items from host memory to
   the GPU and check every element there, K buffers in flight.

   Items are gathered into batches: a batch is one item, or several small
   ones (up to h2d_pipeline_batch_items of one dtype in H2D_BATCH_BYTES),
   sent when it is full or when the caller says the input paused
   (h2d_pipeline_kick).
   Work for one batch, on three streams of the current device:
     copy stream     event, one cudaMemcpyAsync per run of items that lie
                     back to back in host memory (split where the source
                     crosses a registration chunk), event; batches take
                     turns on the pipeline's copy streams (1 to
                     H2D_COPY_STREAMS_MAX)
     verify stream   waits for the copy; the batch's descriptors over, one
                     check kernel for all its items, their results back
     release stream  waits for the copy, then calls each item's RELEASE on
                     a CUDA runtime thread (the slots go back to the
                     producer while verification still runs)
     host stream     waits for the release and the verification, stamps
                     the time, marks the batch retired
   Copies of later batches thus overlap the checks of earlier ones, and the
   per-call cost of the CUDA runtime is paid per batch, not per item.

   Copy paths (h2d_pipeline_copy_path): the engine path above; batched,
   a batch's runs go in one cudaMemcpyBatchAsync call instead of one call
   each; on the SMs, a kernel of a few blocks on the first copy stream
   reads the batch's items straight from the page-locked arenas (mapped
   into the device: h2d_pipeline_map_arenas) and writes them to the
   buffer, checking every element as it goes, so the copy and the check
   are one pass (the verify stream then only fetches the results).  A
   batch with an item of a pageable arena goes the engine's way on either
   path.

   Staged (h2d_pipeline_open's STAGING_THREADS > 0): as a pin_memory
   loader does, N host threads copy the batch's items from the pageable
   arena into the buffer's page-locked staging buffer, the items are
   released at once, and one cudaMemcpyAsync takes the staging buffer to
   the device.

   Where the time goes: every outcome carries its batch's stage times on
   the host's CLOCK_MONOTONIC (device events placed on it through one
   event whose host time was taken when the pipeline opened), for
   h2d-check's --trace and its copy-engine idle accounting.

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

/* Most buffers in flight (--inflight), and the default: while one batch
   copies and the next waits its turn, two more may be checked and
   released without the engine running dry.  */
#define H2D_INFLIGHT_MAX 64
#define H2D_INFLIGHT_DEFAULT 4

/* A batch: at most this many items, in a buffer of at least this many
   bytes (a larger item gets a buffer, and a batch, of its own).  */
#define H2D_BATCH_ITEMS 64
#define H2D_BATCH_BYTES (UINT64_C (4) << 20)

/* Items this close behind the previous one in host memory travel in its
   copy, the bytes between them too (a ring record's header, a slot's
   tail).  */
#define H2D_COALESCE_GAP 4096

/* Most --staging-threads.  */
#define H2D_STAGING_THREADS_MAX 64

/* How a batch's bytes reach the device (h2d-check --copy-path).  */
enum h2d_copy_path
{
  H2D_COPY_ENGINE,              /* one cudaMemcpyAsync per run */
  H2D_COPY_BATCH,               /* one cudaMemcpyBatchAsync per batch */
  H2D_COPY_SM,                  /* a copy-and-check kernel reads the arena */
  H2D_COPY_PATHS
};

/* Blocks of H2D_SM_THREADS threads the sm path launches (--copy-sms): a
   few SMs' worth keeps a PCIe link's worth of 16-byte loads in flight and
   leaves the rest of the GPU to compute.  */
#define H2D_SM_THREADS 256
#define H2D_COPY_SMS_DEFAULT 8
#define H2D_COPY_SMS_MAX 1024

/* Items larger than this are not calibrated (h2d_pipeline_calibrate):
   each is one copy whose per-call cost is nothing beside its bytes.  */
#define H2D_CALIBRATE_MAX_BYTES (UINT64_C (16) << 20)

struct h2d_pipeline;

/* One item to move and check.  The pipeline keeps a copy.  */
struct h2d_item
{
  const unsigned char *host;    /* the item's first byte */
  struct payload_layout layout; /* dtype and leaves */
  uint64_t sequence;            /* which pattern to expect */
  /* Called once the copy has completed, on a CUDA runtime thread (or,
     staged, on the calling thread once the bytes are staged): it must make
     no CUDA call and must not exit.  */
  void (*release) (void *arg);
  void *release_arg;
  void *token;                  /* handed back by h2d_pipeline_retire */
};

/* How an item turned out.  */
struct h2d_outcome
{
  void *token;
  /* Event-timed copy and check kernel of its batch, shared among the
     batch's items by their bytes; verify_ns 0 unverified.  */
  uint64_t h2d_ns;
  uint64_t verify_ns;
  uint64_t done_ns;             /* clock_now_ns when its work completed */
  struct payload_check check;   /* mismatches and the first one */
  /* Its batch's stages, CLOCK_MONOTONIC ns (check 0: unverified): the
     copy submitted, run (on COPY_STREAM) and the check run on the device;
     its items released (after the copy, on a CUDA runtime thread).  Event
     times are the device's, good to a microsecond or so.  */
  uint64_t submit_ns, copy_start_ns, copy_end_ns, check_start_ns, check_end_ns, release_ns;
  unsigned copy_stream;
  bool first_of_batch;          /* the first item retired of its batch */
};

/* INFLIGHT buffers at most in flight (1..H2D_INFLIGHT_MAX), their copies
   taking turns on COPY_STREAMS streams (1..H2D_COPY_STREAMS_MAX), checking
   each item unless VERIFY is false; STAGING_THREADS threads copy through
   page-locked staging buffers (0: straight from the arena).  Buffers grow
   with the items.  */
struct h2d_pipeline *h2d_pipeline_open (unsigned inflight, unsigned copy_streams, bool verify,
                                        unsigned staging_threads);

/* Wait for the device, then free everything (registrations too).  */
void h2d_pipeline_close (struct h2d_pipeline *pipe);

/* Page-lock BYTES at BASE with cudaHostRegister in H2D_REGISTER_CHUNK
   pieces.  On failure undoes what it did, clears the CUDA error, writes
   CUDA's reason to WHY and returns false.  */
bool h2d_pipeline_register (struct h2d_pipeline *pipe, void *base, uint64_t bytes,
                            char *why, size_t why_size);

/* Undo h2d_pipeline_register of BASE.  No copy from it may be in flight. */
void h2d_pipeline_unregister (struct h2d_pipeline *pipe, void *base);

/* Items submitted and not yet retired; buffers in flight at most.  */
unsigned h2d_pipeline_pending (const struct h2d_pipeline *pipe);
unsigned h2d_pipeline_inflight (const struct h2d_pipeline *pipe);

/* Whether ITEM can be submitted now; when not, retire (waiting) first.  */
bool h2d_pipeline_ready (const struct h2d_pipeline *pipe, const struct h2d_item *item);

/* Add ITEM to the batch being gathered (sending that batch first when ITEM
   does not fit, and once full).  Needs h2d_pipeline_ready.  */
void h2d_pipeline_submit (struct h2d_pipeline *pipe, const struct h2d_item *item);

/* Send the batch being gathered now: the input paused.  */
void h2d_pipeline_kick (struct h2d_pipeline *pipe);

/* Retire the oldest pending item into *OUT: wait for it if WAIT (sending
   its batch if it is still being gathered), else only when it has
   finished.  Returns false when nothing was retired.  */
bool h2d_pipeline_retire (struct h2d_pipeline *pipe, bool wait, struct h2d_outcome *out);

/* Items one batch gathers at most (1..H2D_BATCH_ITEMS; default the
   maximum).  A consumer that holds a batch's items holds their producers'
   space: h2d-check keeps it to an eighth of the run's slots.  */
void h2d_pipeline_batch_items (struct h2d_pipeline *pipe, unsigned items);

/* Register arenas from now on mapped into the device's address space
   (cudaHostRegisterMapped), so that the sm path can read them in place.  */
void h2d_pipeline_map_arenas (struct h2d_pipeline *pipe);

/* Whether PATH can run here; when not, WHY says why ("cudaMemcpyBatchAsync
   needs CUDA runtime 12.8 or later; this build has 12.4").  */
bool h2d_pipeline_copy_path_available (const struct h2d_pipeline *pipe,
                                       enum h2d_copy_path path, char *why, size_t why_size);

/* Send batches by PATH from now on (default H2D_COPY_ENGINE); the sm path
   launches BLOCKS blocks (1..H2D_COPY_SMS_MAX).  Needs
   h2d_pipeline_copy_path_available.  */
void h2d_pipeline_copy_path (struct h2d_pipeline *pipe, enum h2d_copy_path path,
                             unsigned blocks);

/* Batches sent by each path so far, into COUNTS[H2D_COPY_PATHS].  */
void h2d_pipeline_path_batches (const struct h2d_pipeline *pipe, uint64_t *counts);

/* Time each available path (the sm one with BLOCKS blocks) on a scratch
   page-locked buffer of items of LAYOUT, laid out as PRODUCERS pool
   arenas would interleave them, through this pipeline as it is set up
   (buffers in flight, batch items, checking): a warm-up round, then
   ROUNDS rounds in which the paths take turns, each path at least
   SECONDS: GBPS[ROUND * H2D_COPY_PATHS + PATH] the rate of each timed
   round in GB/s, 0 for a path not available (every path, when no
   page-locked scratch could be had).  The pipeline must be idle; it is
   left on the path it was on.  Dies if a scratch item fails its check.  */
void h2d_pipeline_calibrate (struct h2d_pipeline *pipe, const struct payload_layout *layout,
                             unsigned producers, unsigned blocks, double seconds,
                             unsigned rounds, double *gbps);

/* Page-locked staging bytes held (0 unless staged).  */
uint64_t h2d_pipeline_staging_bytes (const struct h2d_pipeline *pipe);

/* Bytes one buffer holds now (0 before the first item).  */
uint64_t h2d_pipeline_capacity (const struct h2d_pipeline *pipe);

#ifdef __cplusplus
}
#endif

#endif
