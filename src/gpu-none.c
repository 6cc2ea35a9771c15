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
gpu_select (int device UNUSED)
{
  no_cuda ();
}

void
gpu_check_status (int status UNUSED, const char *call UNUSED)
{
  no_cuda ();
}

void
gpu_check_launch (const char *what UNUSED)
{
  no_cuda ();
}

void
gpu_describe (int device UNUSED, struct gpu_info *info UNUSED)
{
  no_cuda ();
}

double
gpu_raw_copy_gbps (enum gpu_copy_direction direction UNUSED,
                   enum gpu_host_memory memory UNUSED, size_t bytes UNUSED,
                   unsigned repeats UNUSED)
{
  no_cuda ();
}

struct overlap *
overlap_open (int device UNUSED, unsigned matrix_size UNUSED, uint64_t seed UNUSED)
{
  no_cuda ();
}

void
overlap_close (struct overlap *ov UNUSED)
{
  no_cuda ();
}

unsigned
overlap_calibrate (struct overlap *ov UNUSED, double target_ms UNUSED)
{
  no_cuda ();
}

void
overlap_set_iterations (struct overlap *ov UNUSED, unsigned iterations UNUSED)
{
  no_cuda ();
}

void
overlap_check_compute (struct overlap *ov UNUSED)
{
  no_cuda ();
}

void
overlap_load (struct overlap *ov UNUSED, uint64_t total_bytes UNUSED, size_t num_tensors UNUSED,
              uint64_t seed UNUSED)
{
  no_cuda ();
}

void
overlap_validate (struct overlap *ov UNUSED, enum overlap_method method UNUSED)
{
  no_cuda ();
}

void
overlap_run_block (struct overlap *ov UNUSED, const int *methods UNUSED, size_t nmethods UNUSED,
                   uint64_t shuffle_seed UNUSED, struct overlap_block *block UNUSED)
{
  no_cuda ();
}

/* ======================================================================
   h2d-pipeline.h without CUDA (h2d-check's section).  h2d-check calls
   gpu_require first, so none of these is reached in practice.
   ====================================================================== */
#include "h2d-pipeline.h"

struct h2d_pipeline *
h2d_pipeline_open (unsigned inflight UNUSED, unsigned copy_streams UNUSED, bool verify UNUSED,
                   unsigned staging_threads UNUSED)
{
  no_cuda ();
}

void
h2d_pipeline_close (struct h2d_pipeline *pipe UNUSED)
{
  no_cuda ();
}

bool
h2d_pipeline_register (struct h2d_pipeline *pipe UNUSED, void *base UNUSED, uint64_t bytes UNUSED,
                       char *why UNUSED, size_t why_size UNUSED)
{
  no_cuda ();
}

void
h2d_pipeline_unregister (struct h2d_pipeline *pipe UNUSED, void *base UNUSED)
{
  no_cuda ();
}

unsigned
h2d_pipeline_pending (const struct h2d_pipeline *pipe UNUSED)
{
  no_cuda ();
}

unsigned
h2d_pipeline_inflight (const struct h2d_pipeline *pipe UNUSED)
{
  no_cuda ();
}

void
h2d_pipeline_submit (struct h2d_pipeline *pipe UNUSED, const struct h2d_item *item UNUSED)
{
  no_cuda ();
}

bool
h2d_pipeline_retire (struct h2d_pipeline *pipe UNUSED, bool wait UNUSED,
                     struct h2d_outcome *out UNUSED)
{
  no_cuda ();
}

uint64_t
h2d_pipeline_capacity (const struct h2d_pipeline *pipe UNUSED)
{
  no_cuda ();
}

bool
h2d_pipeline_ready (const struct h2d_pipeline *pipe UNUSED, const struct h2d_item *item UNUSED)
{
  no_cuda ();
}

void
h2d_pipeline_kick (struct h2d_pipeline *pipe UNUSED)
{
  no_cuda ();
}

uint64_t
h2d_pipeline_staging_bytes (const struct h2d_pipeline *pipe UNUSED)
{
  no_cuda ();
}

void
h2d_pipeline_batch_items (struct h2d_pipeline *pipe UNUSED, unsigned items UNUSED)
{
  no_cuda ();
}

#include "ceiling.h"

bool
ceiling_measure (const struct payload_layout *layout UNUSED, enum payload_store store UNUSED,
                 enum ceiling_memory memory UNUSED, unsigned producers UNUSED,
                 unsigned slots UNUSED, double warmup_s UNUSED, double seconds UNUSED,
                 struct ceiling_result *result UNUSED, char *why UNUSED,
                 size_t why_size UNUSED)
{
  no_cuda ();
}

void
h2d_pipeline_map_arenas (struct h2d_pipeline *pipe UNUSED)
{
  no_cuda ();
}

bool
h2d_pipeline_copy_path_available (const struct h2d_pipeline *pipe UNUSED,
                                  enum h2d_copy_path path UNUSED, char *why UNUSED,
                                  size_t why_size UNUSED)
{
  no_cuda ();
}

void
h2d_pipeline_copy_path (struct h2d_pipeline *pipe UNUSED, enum h2d_copy_path path UNUSED,
                        unsigned blocks UNUSED)
{
  no_cuda ();
}

void
h2d_pipeline_path_batches (const struct h2d_pipeline *pipe UNUSED, uint64_t *counts UNUSED)
{
  no_cuda ();
}

void
h2d_pipeline_calibrate (struct h2d_pipeline *pipe UNUSED,
                        const struct payload_layout *layout UNUSED, unsigned producers UNUSED,
                        unsigned blocks UNUSED, double seconds UNUSED, unsigned rounds UNUSED,
                        double *gbps UNUSED)
{
  no_cuda ();
}
