/* compute-step-cuda.cu -- h2d-check's emulated step: a kernel per item
   that keeps the device busy for the step's time, on a stream of its own
   (created on the current device at the first step). */
#include <config.h>

#include <cuda_runtime.h>

/* The C headers use C11's _Noreturn, which C++ spells differently.  */
#define _Noreturn __attribute__ ((noreturn))
extern "C" {
#include "system.h"
}
#include "compute-step.h"
#include "gpu.h"

/* Spin one thread for NS of the device's global timer: a step of fixed
   wall time on the device (ranks that share a GPU time-slice it, so each
   rank's step is NS of wall time, not NS of the GPU alone).  */
static __global__ void
step_kernel (unsigned long long ns)
{
  unsigned long long start, now;
  asm volatile ("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do
    asm volatile ("mov.u64 %0, %%globaltimer;" : "=l"(now));
  while (now - start < ns);
}

static cudaStream_t step_stream;
static cudaEvent_t stepped;

cudaEvent_t
compute_step_gpu_after (cudaEvent_t ready, unsigned items)
{
  unsigned us = compute_step_us ();
  if (!us)
    return nullptr;
  if (!step_stream)
    {
      GPU_CHECK (cudaStreamCreateWithFlags (&step_stream, cudaStreamNonBlocking));
      GPU_CHECK (cudaEventCreateWithFlags (&stepped, cudaEventDisableTiming));
    }
  /* Waits for this batch's check only: the next batch's copy runs on
     the copy streams meanwhile.  */
  GPU_CHECK (cudaStreamWaitEvent (step_stream, ready, 0));
  for (unsigned i = 0; i < items; i++)
    {
      step_kernel<<<1, 1, 0, step_stream>>> ((unsigned long long) us * 1000);
      gpu_check_launch ("step_kernel");
    }
  /* One event serves every batch: a wait takes the record made last.  */
  GPU_CHECK (cudaEventRecord (stepped, step_stream));
  return stepped;
}
