/* clock.c -- the clocks every measurement uses. */
#include "system.h"
#include "clock.h"

#include <time.h>

static uint64_t
read_clock (clockid_t id)
{
  struct timespec ts;
  clock_gettime (id, &ts);
  return (uint64_t) ts.tv_sec * 1000000000ULL + (uint64_t) ts.tv_nsec;
}

uint64_t
clock_now_ns (void)
{
  return read_clock (CLOCK_MONOTONIC);
}

uint64_t
clock_cpu_ns (void)
{
  return read_clock (CLOCK_PROCESS_CPUTIME_ID);
}
