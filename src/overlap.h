/* overlap.h -- d2h-overlap's engine: device-to-host copies from a background
   thread overlapping a foreground SGEMM, timed in randomized blocks.

   Implemented by overlap-cuda.cu; without CUDA, gpu-none.c supplies every
   function, each dying with EXIT_UNAVAILABLE.  */
#ifndef ARENABENCH_OVERLAP_H
#define ARENABENCH_OVERLAP_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* How the background thread moves the tensors to the host.  */
enum overlap_method
{
  OVERLAP_DIRECT,     /* one cudaMemcpyAsync per tensor into its own pinned buffer */
  OVERLAP_BATCHED,    /* one cudaMemcpyBatchAsync into a reused pinned arena */
  OVERLAP_PAGEABLE,   /* one cudaMemcpyAsync per tensor into malloc'd memory */
  OVERLAP_GATHER,     /* one copy kernel writing the arena through mapped memory */
  OVERLAP_METHODS
};

/* Names as --methods spells them, in enum order, NULL-terminated.  */
static const char *const overlap_method_names[OVERLAP_METHODS + 1] = {
  "direct", "batched", "pageable", "gather", NULL
};

/* One step of a timed block.  */
enum overlap_case
{
  OVERLAP_COMPUTE,      /* the SGEMM alone (once per block, method -1) */
  OVERLAP_TRANSFER,     /* the transfer alone */
  OVERLAP_SERIALIZED,   /* the transfer, then the SGEMM */
  OVERLAP_CONCURRENT,   /* both, started together at a barrier */
  OVERLAP_CASES
};

struct overlap_step
{
  int method;               /* enum overlap_method, or -1 for OVERLAP_COMPUTE */
  enum overlap_case what;
};

/* One method's times in one block, all host wall-clock milliseconds.  */
struct overlap_times
{
  double transfer_ms, serialized_ms, concurrent_ms;
  double launch_skew_ms;    /* |transfer start - compute start| after the barrier */
};

/* One timed block: its schedule, in the order it ran, and its times.  */
struct overlap_block
{
  struct overlap_step steps[1 + 3 * OVERLAP_METHODS];
  size_t nsteps;
  double compute_ms;
  struct overlap_times times[OVERLAP_METHODS];   /* indexed by method */
};

struct overlap;

/* Take DEVICE (made current), its compute, producer and copy streams, random
   MATRIX_SIZE x MATRIX_SIZE SGEMM inputs drawn from SEED, and start the
   persistent transfer thread.  MATRIX_SIZE is a positive multiple of 64.  */
struct overlap *overlap_open (int device, unsigned matrix_size, uint64_t seed);
void overlap_close (struct overlap *ov);

/* SGEMM repetitions whose synchronous run takes about TARGET_MS; sets and
   returns them.  overlap_set_iterations sets them as given.  */
unsigned overlap_calibrate (struct overlap *ov, double target_ms);
void overlap_set_iterations (struct overlap *ov, unsigned iterations);

/* Run the SGEMM once more and check its output: every element finite and
   sampled elements equal to a double-precision product.  Dies otherwise.  */
void overlap_check_compute (struct overlap *ov);

/* Make TOTAL_BYTES of random uint8 source tensors, split into NUM_TENSORS
   as evenly as possible, resident on the device and ready (synchronized);
   allocate every method's destination.  Replaces what was loaded before.  */
void overlap_load (struct overlap *ov, uint64_t total_bytes, size_t num_tensors,
                   uint64_t seed);

/* Transfer once with METHOD into poisoned destinations and compare every
   byte with the source; dies with EXIT_MISMATCH naming the first wrong byte.
   Also primes the method's path before timing.  */
void overlap_validate (struct overlap *ov, enum overlap_method method);

/* Time one block: compute-only once, then for each of the NMETHODS METHODS
   transfer-only, serialized and concurrent, all in an order shuffled by
   SHUFFLE_SEED.  */
void overlap_run_block (struct overlap *ov, const int *methods, size_t nmethods,
                        uint64_t shuffle_seed, struct overlap_block *block);

#ifdef __cplusplus
}
#endif

#endif
