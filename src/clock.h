/* clock.h -- monotonic wall time and process CPU time in nanoseconds. */
#ifndef ARENABENCH_CLOCK_H
#define ARENABENCH_CLOCK_H

#include <stdint.h>

uint64_t clock_now_ns (void);        /* CLOCK_MONOTONIC */
uint64_t clock_cpu_ns (void);        /* CLOCK_PROCESS_CPUTIME_ID */

#endif
