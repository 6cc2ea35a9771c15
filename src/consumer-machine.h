/* consumer-machine.h -- where a consumer's run happened: the link and NUMA
   node of the device it feeds, the nodes holding the arenas' pages, the
   CPUs it and its producers ran on; the run report's machine columns and
   the warnings of a placement that costs bandwidth (arenabench(7),
   "Machine columns").  */
#ifndef ARENABENCH_CONSUMER_MACHINE_H
#define ARENABENCH_CONSUMER_MACHINE_H

#include "arena.h"
#include "machine.h"

#include <sys/types.h>

struct consumer_machine
{
  bool have_device;
  struct machine_pci device;
  struct machine_cpus consumer_cpus, producer_cpus;
  struct machine_nodes arena_nodes;
  uint64_t arena_pages;         /* sampled pages whose node the kernel gave */
  /* The workers of the producer last looked at: which arena each holds
     open, by the object's device and inode (one scan of its children
     serves all its arenas; an arena created unnamed and linked later is
     "/dev/shm/#INODE" in /proc, so its name cannot tell).  */
  int scanned_producer;
  struct consumer_worker { dev_t dev; ino_t ino; int pid; } *workers;
  size_t nworkers, workers_size;
};

/* Start a run feeding the PCI device DEVICE_PCI (h2d-check's GPU), or
   none (NULL): then, for tests only and only with $ARENABENCH_TEST_SYSFS
   set, the device $ARENABENCH_TEST_PCI names.  */
void consumer_machine_init (struct consumer_machine *m, const char *device_pci);

/* The run is over: read the device's link and node now, after the
   copies (a GPU may lower an idle link's speed, so a link read before
   them would look degraded).  */
void consumer_machine_end (struct consumer_machine *m);

/* An item of ARENA arrived, the ITEMS-th of it: note the CPU we run on;
   at its 1st, 2nd, 4th, 8th... item also the CPU its producer worker
   (*WORKER_PID, kept there once found; 0 or -1: not yet, looked for
   again at the next such item) last ran on and the nodes of the arena's
   pages.  */
void consumer_machine_item (struct consumer_machine *m, const struct arena *arena,
                            uint64_t items, int *worker_pid);

/* Free what M holds.  */
void consumer_machine_free (struct consumer_machine *m);

/* The run report's machine cells.  */
struct consumer_machine_cells
{
  char device_pci[32], link[40], link_max[40], device_numa[16];
  char arena_numa[64], producer_cpus[256], producer_numa[64];
  char consumer_cpus[256], consumer_numa[64];
  char thp[32], thp_shmem[32], governor[128];
};
void consumer_machine_cells (const struct consumer_machine *m, struct consumer_machine_cells *cells);

/* Warn, in words, of a device link running below its maximum, arena pages
   on another node than the device's, and producers that ran on another
   node's CPUs.  Returns how many warnings it gave.  */
unsigned consumer_machine_warn (const struct consumer_machine *m);

#endif
