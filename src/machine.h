/* machine.h -- the host half of a machine receipt (the GPU half is in gpu.h). */
#ifndef ARENABENCH_MACHINE_H
#define ARENABENCH_MACHINE_H

#include <stdbool.h>
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


/* --- placement: PCIe links, NUMA nodes, CPUs (arenabench(7), "Machine
   columns").  Every value is as sysfs, /proc or the kernel gives it, and
   "unknown" where they do not: never a guess.  */

/* Read up to SIZE - 1 bytes of file PATH into BUF, NUL-terminated, with
   no allocation (a long-lived consumer samples /proc and sysfs often, and
   must not grow): the bytes read, or -1.  */
long machine_read_file (const char *path, char *buf, size_t size);

/* Call FN with each name in directory PATH but . and .., again without
   allocating (getdents64); false when PATH cannot be opened.  */
bool machine_each_entry (const char *path, void (*fn) (const char *name, void *context),
                         void *context);

/* The root of the sysfs tree read: /sys, or for tests only the directory
   $ARENABENCH_TEST_SYSFS names (a fake tree, so every placement warning
   can be exercised without the hardware).  */
const char *machine_sysfs_root (void);

#define MACHINE_CPUS_MAX 4096
#define MACHINE_NODES_MAX 1024

/* A set of CPUs or of NUMA nodes.  */
struct machine_cpus { uint64_t bits[MACHINE_CPUS_MAX / 64]; };
struct machine_nodes { uint64_t bits[MACHINE_NODES_MAX / 64]; };

void machine_cpus_add (struct machine_cpus *set, int cpu);
bool machine_cpus_empty (const struct machine_cpus *set);
void machine_nodes_add (struct machine_nodes *set, int node);
bool machine_nodes_has (const struct machine_nodes *set, int node);
/* As a list, "0-3;8" (';' keeps a CSV cell free of commas), or
   "unknown" for an empty set.  */
void machine_cpus_format (const struct machine_cpus *set, char *buf, size_t size);
void machine_nodes_format (const struct machine_nodes *set, char *buf, size_t size);

/* Whether sysfs lists NUMA node NODE (devices/system/node/nodeNODE), and
   the CPUs it lists for it (false when it lists none or cannot be read).  */
bool machine_node_exists (int node);
bool machine_node_cpus (int node, struct machine_cpus *cpus);
/* The NUMA nodes of the CPUs of CPUS; empty where sysfs does not say.  */
void machine_nodes_of_cpus (const struct machine_cpus *cpus, struct machine_nodes *nodes);

/* The CPU the caller runs on now, and the one process PID last ran on
   (/proc/PID/stat); -1 when unknown.  */
int machine_cpu_now (void);
int machine_cpu_of_pid (int pid);

/* A PCI device's link and NUMA node from sysfs (bus/pci/devices/ADDRESS):
   speeds as the kernel writes them ("32.0 GT/s PCIe"), widths ("16"),
   the node ("-1": the kernel ties it to none); each "unknown" when it
   cannot be read.  */
struct machine_pci
{
  char address[32];
  char speed[40], max_speed[40];
  char width[16], max_width[16];
  char node[16];
};
void machine_pci_describe (const char *address, struct machine_pci *pci);
/* "16.0 GT/s x8": the current link, "unknown" when either half is.  */
void machine_pci_link (const struct machine_pci *pci, bool max, char *buf, size_t size);
/* The link runs slower or narrower than its maximum (false when unknown). */
bool machine_pci_degraded (const struct machine_pci *pci);
/* The device's node, or -1 when none or unknown.  */
int machine_pci_node (const struct machine_pci *pci);

/* Where the kernel keeps the pages of [BASE, BASE+BYTES) that this
   process has mapped (move_pages(2) with no target: a query), at most
   MACHINE_PAGE_SAMPLES pages evenly spread; pages not mapped here are
   left out.  Adds their nodes to NODES; returns the pages found.  */
#define MACHINE_PAGE_SAMPLES 1024
uint64_t machine_page_nodes (const void *base, size_t bytes, struct machine_nodes *nodes);

/* Run the caller on those CPUs of CPUS that it may use; 0, or an errno
   value (EINVAL: none of them).  */
int machine_bind_cpus (const struct machine_cpus *cpus);

/* The NUMA nodes sysfs says are online ("0-1"), or "unknown".  */
void machine_nodes_online (char *buf, size_t size);

/* Bind [BASE, BASE+BYTES) to NUMA node NODE (mbind(2) MPOL_BIND, moving
   pages already there): pages touched from now on are allocated there.
   Returns 0 or an errno value.  */
int machine_bind_memory (void *base, size_t bytes, int node);

/* Transparent huge pages: the setting in force ("madvise") of
   kernel/mm/transparent_hugepage/enabled and of shmem_enabled (which
   rules the tmpfs pages of /dev/shm); "unknown" when unreadable.  */
void machine_thp (char *enabled, size_t enabled_size, char *shmem, size_t shmem_size);

/* The cpufreq scaling governors of the CPUs of CPUS, distinct ones joined
   by ';' ("performance"), or "unknown".  */
void machine_governors (const struct machine_cpus *cpus, char *buf, size_t size);

#endif
