/* compute-step.h -- an emulated training step per item (--compute-us N),
   so that a run can say how busy the data path keeps the accelerator:
   AU, the measured items' compute time (items x N us) over the measured
   window's wall time (arenabench(7), "Accelerator utilization").

   arena-consume spins the CPU for N us per item once it is checked and
   released; h2d-check runs a kernel of N us per item on a compute stream
   of its own, after the item's check and never waiting for a later copy,
   and a buffer is reused only once its steps ran, as a trainer frees a
   batch (compute-step-cuda.cu).  */
#ifndef ARENABENCH_COMPUTE_STEP_H
#define ARENABENCH_COMPUTE_STEP_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Most --compute-us: one second a step.  */
#define COMPUTE_STEP_US_MAX 1000000

/* --compute-us: the step of every item from now on (0: none).  */
void compute_step_set_us (unsigned us);
unsigned compute_step_us (void);

/* The CPU's step: spin for the step's time.  */
void compute_step_spin (void);

/* AU of a window of SECONDS in which ITEMS were stepped; NaN when no
   step is set or the window is empty.  */
double compute_step_au (uint64_t items, double seconds);

#ifdef __CUDACC__
/* The GPU's step for ITEMS items once READY has happened, on the
   current device's compute stream: an event recorded after them, or
   NULL when no step is set.  */
cudaEvent_t compute_step_gpu_after (cudaEvent_t ready, unsigned items);
#endif

#ifdef __cplusplus
}
#endif

#endif
