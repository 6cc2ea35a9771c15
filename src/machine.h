/* machine.h -- the host half of a machine receipt (the GPU half is in gpu.h). */
#ifndef ARENABENCH_MACHINE_H
#define ARENABENCH_MACHINE_H

struct machine_info
{
  char host[256];
  char cpu[256];            /* /proc/cpuinfo "model name" */
  int cores;                /* online processors */
  char kernel[256];         /* uname -sr */
  char version[64];         /* arenabench version */
};

void machine_describe (struct machine_info *info);

#endif
