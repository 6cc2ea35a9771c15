/* launcher.h -- which rank this process is, read from the variables of
   the launcher that started it (launchers.def: torchrun, Open MPI,
   MPICH's Hydra, Slurm's srun); arenabench has no launcher of its own.

   Slurm's variables are inherited by whatever runs inside a job: under
   another launcher (mpirun or torchrun inside sbatch or srun) they name
   the job step's task, not this process, and are not read.  Any two
   other launchers' variables that disagree are an error naming both.
   $ARENABENCH_LAUNCHER (a key of launchers.def, or none) reads only
   that launcher's variables.  */
#ifndef ARENABENCH_LAUNCHER_H
#define ARENABENCH_LAUNCHER_H

#include <stdbool.h>
#include <stdio.h>

/* A rank's fields; LAUNCHER_UNKNOWN where the launcher did not say.  */
#define LAUNCHER_UNKNOWN (-1L)

struct launcher_rank
{
  const char *launcher;         /* "torchrun", ..., or "none" */
  const char *key;              /* its $ARENABENCH_LAUNCHER name */
  long rank, local_rank, world_size, local_world_size;
  char host[256];
  char device[96];              /* set by the consumer: "cpu", "0" */
};

/* Read the environment into *R: with no launcher, rank 0 of 1.  Dies
   (EXIT_USAGE) on a malformed value, a rank beyond its size, or two
   launchers that disagree.  */
void launcher_detect (struct launcher_rank *r);

/* This process's rank, detected once.  */
const struct launcher_rank *launcher_self (void);

/* Whether a launcher set any of our variables.  */
bool launcher_present (const struct launcher_rank *r);

/* The device this process feeds, for the receipts and the identity line
   ("cpu", a CUDA index).  */
void launcher_set_device (const char *device);

/* With a CPU consumer: when the launcher placed several ranks on this
   host and did not bind them (our affinity is every online CPU), bind
   this process to its share of those CPUs, by local rank.  Writes the
   CPUs it runs on ("2-3") into CPUS.  */
void launcher_bind_cpus (char *cpus, size_t size);

/* The rank identity line on stderr, as nccl-tests prints one per rank:
   "PROG: rank 1 of 4 (local 1 of 4, Open MPI): host h, pid 7, device
   cpu (CPUs 2-3)"; DETAIL (or NULL) goes in the parentheses.  */
void launcher_announce (const char *detail);

/* --print-rank: "launcher=openmpi rank=1 local_rank=1 world_size=4
   local_world_size=4" on stdout (empty values unknown), for the
   drivers, which must not read the variables themselves.  */
void launcher_print (FILE *out, const struct launcher_rank *r);

/* --list-launchers: a line per launcher of launchers.def, as
   --print-rank's but naming the variable of each field
   ("launcher=slurm rank=SLURM_PROCID ... local_world_size="), for the
   tests and the man pages' lists.  */
void launcher_list (FILE *out);

#endif
