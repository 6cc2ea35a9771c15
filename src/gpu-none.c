/* gpu-none.c -- gpu.h and overlap.h for a build without CUDA: every entry
   point says so and exits with EXIT_UNAVAILABLE, before any work is done.  */
#include "system.h"
#include "die.h"
#include "gpu.h"
#include "overlap.h"

static _Noreturn void
no_cuda (void)
{
  die (EXIT_UNAVAILABLE, 0, "built without CUDA support");
}

int
gpu_require (void)
{
  no_cuda ();
}

int
gpu_default_device (void)
{
  no_cuda ();
}

void
gpu_select (int device)
{
  no_cuda ();
}

void
gpu_check_status (int status, const char *call)
{
  no_cuda ();
}

void
gpu_check_launch (const char *what)
{
  no_cuda ();
}

void
gpu_describe (int device, struct gpu_info *info)
{
  no_cuda ();
}

double
gpu_raw_copy_gbps (enum gpu_copy_direction direction, enum gpu_host_memory memory,
                   size_t bytes, unsigned repeats)
{
  no_cuda ();
}

struct overlap *
overlap_open (int device, unsigned matrix_size, uint64_t seed)
{
  no_cuda ();
}

void
overlap_close (struct overlap *ov)
{
  no_cuda ();
}

unsigned
overlap_calibrate (struct overlap *ov, double target_ms)
{
  no_cuda ();
}

void
overlap_set_iterations (struct overlap *ov, unsigned iterations)
{
  no_cuda ();
}

void
overlap_check_compute (struct overlap *ov)
{
  no_cuda ();
}

void
overlap_load (struct overlap *ov, uint64_t total_bytes, size_t num_tensors,
              uint64_t seed)
{
  no_cuda ();
}

void
overlap_validate (struct overlap *ov, enum overlap_method method)
{
  no_cuda ();
}

void
overlap_run_block (struct overlap *ov, const int *methods, size_t nmethods,
                   uint64_t shuffle_seed, struct overlap_block *block)
{
  no_cuda ();
}

/* ======================================================================
   h2d-pipeline.h without CUDA (h2d-check's section).  h2d-check calls
   gpu_require first, so none of these is reached in practice.
   ====================================================================== */
#include "h2d-pipeline.h"

struct h2d_pipeline *
h2d_pipeline_open (unsigned inflight, unsigned copy_streams, bool verify,
                   unsigned staging_threads)
{
  no_cuda ();
}

void
h2d_pipeline_close (struct h2d_pipeline *pipe)
{
  no_cuda ();
}

bool
h2d_pipeline_register (struct h2d_pipeline *pipe, void *base, uint64_t bytes,
                       char *why, size_t why_size)
{
  no_cuda ();
}

void
h2d_pipeline_unregister (struct h2d_pipeline *pipe, void *base)
{
  no_cuda ();
}

unsigned
h2d_pipeline_pending (const struct h2d_pipeline *pipe)
{
  no_cuda ();
}

unsigned
h2d_pipeline_inflight (const struct h2d_pipeline *pipe)
{
  no_cuda ();
}

void
h2d_pipeline_submit (struct h2d_pipeline *pipe, const struct h2d_item *item)
{
  no_cuda ();
}

bool
h2d_pipeline_retire (struct h2d_pipeline *pipe, bool wait, struct h2d_outcome *out)
{
  no_cuda ();
}

uint64_t
h2d_pipeline_capacity (const struct h2d_pipeline *pipe)
{
  no_cuda ();
}

bool
h2d_pipeline_ready (const struct h2d_pipeline *pipe, const struct h2d_item *item)
{
  no_cuda ();
}

void
h2d_pipeline_kick (struct h2d_pipeline *pipe)
{
  no_cuda ();
}

uint64_t
h2d_pipeline_staging_bytes (const struct h2d_pipeline *pipe)
{
  no_cuda ();
}

void
h2d_pipeline_batch_items (struct h2d_pipeline *pipe, unsigned items)
{
  no_cuda ();
}

#include "ceiling.h"

bool
ceiling_measure (const struct payload_layout *layout, enum payload_store store,
                 enum ceiling_memory memory, unsigned producers, unsigned slots,
                 double warmup_s, double seconds, struct ceiling_result *result,
                 char *why, size_t why_size)
{
  no_cuda ();
}

void
h2d_pipeline_map_arenas (struct h2d_pipeline *pipe)
{
  no_cuda ();
}

bool
h2d_pipeline_copy_path_available (const struct h2d_pipeline *pipe, enum h2d_copy_path path,
                                  char *why, size_t why_size)
{
  no_cuda ();
}

void
h2d_pipeline_copy_path (struct h2d_pipeline *pipe, enum h2d_copy_path path, unsigned blocks)
{
  no_cuda ();
}

void
h2d_pipeline_path_batches (const struct h2d_pipeline *pipe, uint64_t *counts)
{
  no_cuda ();
}

void
h2d_pipeline_calibrate (struct h2d_pipeline *pipe, const struct payload_layout *layout,
                        unsigned producers, unsigned blocks, double seconds, double *gbps)
{
  no_cuda ();
}
