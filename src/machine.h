/* machine.h -- the host half of a machine receipt (the GPU half is in gpu.h). */
#ifndef ARENABENCH_MACHINE_H
#define ARENABENCH_MACHINE_H

#include <stddef.h>
#include <stdint.h>

struct machine_info
{
  char host[256];
  char cpu[256];            /* /proc/cpuinfo "model name" */
  int cores;                /* online processors */
  char kernel[256];         /* uname -sr */
  char version[64];         /* arenabench version */
};

void machine_describe (struct machine_info *info);

/* Memory measures for run reports (arenabench(7), "Memory columns").
   Each returns MACHINE_UNKNOWN when the system does not say.  */
#define MACHINE_UNKNOWN UINT64_MAX

/* This process's proportional set size: /proc/self/smaps_rollup "Pss:".
   A page shared by N processes counts 1/N.  */
uint64_t machine_pss_bytes (void);

/* This process's peak resident set so far (getrusage ru_maxrss, the
   kernel's VmHWM).  */
uint64_t machine_rss_peak_bytes (void);

/* Bytes an unprivileged writer could still allocate in the file system
   holding PATH (statvfs f_bavail * f_frsize): for /dev/shm, its tmpfs.  */
uint64_t machine_fs_avail_bytes (const char *path);

/* Bytes the file on descriptor FD occupies (st_blocks * 512): for a
   shared-memory object, the tmpfs pages it holds.  */
uint64_t machine_fd_allocated_bytes (int fd);

/* ", with RLIMIT_MEMLOCK at N bytes (see 'ulimit -l')" or, unlimited,
   nothing: the hint a refused page-lock adds to its message.  */
void machine_memlock_hint (char *buf, size_t size);

/* Die with EXIT_OSERR and a message naming 'ulimit -n' unless NEEDED more
   descriptors than those now open fit under RLIMIT_NOFILE.  WHAT says
   what needs them ("--workers 1024").  */
void machine_require_fds (uint64_t needed, const char *what);

#endif
