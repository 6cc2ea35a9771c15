/* compute-step.c -- the step's time, the CPU's step and AU. */
#include "system.h"
#include "compute-step.h"
#include "clock.h"

#include <math.h>

static unsigned step_us;

void
compute_step_set_us (unsigned us)
{
  step_us = us;
}

unsigned
compute_step_us (void)
{
  return step_us;
}

void
compute_step_spin (void)
{
  if (!step_us)
    return;
  uint64_t end = clock_now_ns () + (uint64_t) step_us * 1000;
  /* Busy, as compute is: a sleep would free the CPU for the producers.  */
  while (clock_now_ns () < end)
    continue;
}

double
compute_step_au (uint64_t items, double seconds)
{
  if (!step_us || !(seconds > 0))
    return NAN;
  return (double) items * step_us / 1e6 / seconds;
}
