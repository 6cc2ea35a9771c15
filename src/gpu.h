/* gpu.h -- the GPU as arenabench's commands see it: a C interface over CUDA.

   The CUDA build implements it in gpu-cuda.cu; a build without CUDA links
   gpu-none.c instead, where every function dies with EXIT_UNAVAILABLE and
   "PROGRAM: built without CUDA support".  Commands call gpu_require() before
   anything else here, so that message (or "no CUDA device available") is the
   first and only thing a machine without a GPU sees.  */
#ifndef ARENABENCH_GPU_H
#define ARENABENCH_GPU_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Largest --device a command accepts before asking the driver.  */
#define GPU_DEVICE_MAX 1023

/* Die with EXIT_UNAVAILABLE and exactly "PROGRAM: no CUDA device available"
   unless the driver reports at least one device.  Returns the count.  */
int gpu_require (void);

/* --device's default: the local rank the launcher gave (launcher.h)
   modulo the devices visible, so that ranks beyond them share; else 0.
   Malformed or contradictory launcher variables die with EXIT_USAGE.  */
int gpu_default_device (void);

/* Make DEVICE current for the calling thread; a device the driver does not
   have dies with EXIT_UNAVAILABLE.  Every thread that issues CUDA work calls
   it (the runtime's current device is per thread).  */
void gpu_select (int device);

/* Die with EXIT_SOFTWARE and "PROGRAM: CALL: CUDA's error string" unless
   STATUS (a cudaError_t) is success.  CALL may be a whole expression: only
   the function name before its '(' is printed.  */
void gpu_check_status (int status, const char *call);

/* The same check for the last error of a kernel launch named WHAT.  */
void gpu_check_launch (const char *what);

#ifdef __CUDACC__
/* Check a CUDA runtime call where it is made.  */
# define GPU_CHECK(call) gpu_check_status ((int) (call), #call)
#endif

/* The GPU half of a machine receipt.  Strings are empty when unknown.  */
struct gpu_info
{
  int device;
  char name[256];            /* "NVIDIA H200" */
  char capability[16];       /* compute capability, "9.0" */
  char driver[64];           /* kernel module version, "580.159.04" */
  char driver_cuda[16];      /* newest CUDA the driver supports, "13.0" */
  char runtime_cuda[16];     /* CUDA runtime linked in, "13.0" */
  char pci_bus_id[32];       /* "0000:17:00.0" */
  int multiprocessors;
  size_t memory_bytes;
  /* PCIe link from sysfs (NVML-free); 0 when the system does not say.
     The current link can idle at a lower generation than the maximum.  */
  int pcie_gen, pcie_width;
  int pcie_max_gen, pcie_max_width;
  char pcie[32];             /* "gen5 x16", or "" */
};

void gpu_describe (int device, struct gpu_info *info);

enum gpu_copy_direction
{
  GPU_HOST_TO_DEVICE,
  GPU_DEVICE_TO_HOST
};

/* The host side of a raw copy: page-locked (cudaHostAlloc), pageable
   (malloc), pageable shared memory (memfd: tmpfs pages, as arenas are),
   or that shared memory page-locked with cudaHostRegister, as a pinned
   arena is.  */
enum gpu_host_memory
{
  GPU_HOST_PINNED,
  GPU_HOST_PAGEABLE,
  GPU_HOST_PAGEABLE_SHM,
  GPU_HOST_REGISTERED_SHM
};

/* Host bytes a raw measurement cycles through: more than any CPU cache,
   so each copy finds its host buffer in memory, as a pipeline finds an
   item a producer wrote, and not in the cache (which one buffer copied
   over and over would time instead).  */
#define GPU_COLD_BYTES ((size_t) 1 << 30)

/* Raw copy bandwidth of the current device in GB/s (10^9 bytes per second):
   the median of REPEATS timed loops, after a warm-up loop, each of up to
   16 cudaMemcpyAsync calls of BYTES between a device buffer and host
   memory of kind MEMORY (touched first, cycled through GPU_COLD_BYTES),
   with one pair of events around the whole loop.  As in nvbandwidth, a
   pinned loop is queued behind a spin kernel that the host releases once
   every copy is queued, so the copies run back to back.  The physical
   limit beside which a pipeline's figure is judged.  */
double gpu_raw_copy_gbps (enum gpu_copy_direction direction, enum gpu_host_memory memory,
                          size_t bytes, unsigned repeats);

/* ======================================================================
   h2d-check pipeline: declared by h2d-pipeline.cu
   (h2d-check's engineer fills this section; d2h-overlap does not use it.)
   ====================================================================== */

/* ====================================================================== */

#ifdef __cplusplus
}
#endif

#endif
