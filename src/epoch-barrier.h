/* epoch-barrier.h -- a producer's workers begin each epoch together.

   A consumer times its measured epochs from the first measured row.  If
   one worker ran ahead into epoch E+1 while another still wrote epoch E
   (the consumer page-locks arenas one at a time as their first rows come,
   so workers start apart), the window would hold warm-up items and fewer
   producers than the run has.  So at the end of each epoch every worker
   waits until its consumer has released the epoch's items, and then until
   every other worker has done the same: an epoch is a pass that ends
   before the next begins, as a training loop's does.  */
#ifndef ARENABENCH_EPOCH_BARRIER_H
#define ARENABENCH_EPOCH_BARRIER_H

#include <stdbool.h>
#include <stdint.h>

struct epoch_barrier;

/* A barrier for WORKERS processes, in memory that fork(2) shares; NULL
   with errno set if it cannot be mapped.  */
struct epoch_barrier *epoch_barrier_create (uint32_t workers);

/* Arrive at the end of epoch EPOCH and wait, until DEADLINE_NS
   (clock_now_ns), for every worker to arrive there.  False at the
   deadline.  */
bool epoch_barrier_wait (struct epoch_barrier *barrier, uint32_t epoch, uint64_t deadline_ns);

#endif
