/* machine.c -- what every result records about the host it ran on. */
#include "system.h"
#include "machine.h"

#include "die.h"

#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/utsname.h>
#include <unistd.h>

static void
read_cpu_model (char *buf, size_t size)
{
  snprintf (buf, size, "unknown");
  FILE *f = fopen ("/proc/cpuinfo", "r");
  if (!f)
    return;
  char line[512];
  while (fgets (line, sizeof line, f))
    if (strncmp (line, "model name", 10) == 0)
      {
        char *colon = strchr (line, ':');
        if (colon)
          {
            colon++;
            colon += strspn (colon, " \t");
            colon[strcspn (colon, "\n")] = '\0';
            snprintf (buf, size, "%s", colon);
          }
        break;
      }
  fclose (f);
}

void
machine_describe (struct machine_info *info)
{
  memset (info, 0, sizeof *info);
  if (gethostname (info->host, sizeof info->host - 1) != 0)
    snprintf (info->host, sizeof info->host, "unknown");
  read_cpu_model (info->cpu, sizeof info->cpu);
  info->cores = (int) sysconf (_SC_NPROCESSORS_ONLN);
  struct utsname u;
  if (uname (&u) == 0)
    snprintf (info->kernel, sizeof info->kernel, "%s %s", u.sysname, u.release);
  snprintf (info->version, sizeof info->version, "%s", PACKAGE_VERSION);
}

uint64_t
machine_pss_bytes (void)
{
  FILE *f = fopen ("/proc/self/smaps_rollup", "r");
  if (!f)
    return MACHINE_UNKNOWN;
  uint64_t bytes = MACHINE_UNKNOWN;
  char line[256];
  while (fgets (line, sizeof line, f))
    {
      uint64_t kib;
      if (sscanf (line, "Pss: %" SCNu64 " kB", &kib) == 1)
        {
          bytes = kib * 1024;
          break;
        }
    }
  fclose (f);
  return bytes;
}

uint64_t
machine_rss_peak_bytes (void)
{
  struct rusage u;
  if (getrusage (RUSAGE_SELF, &u) != 0 || u.ru_maxrss <= 0)
    return MACHINE_UNKNOWN;
  return (uint64_t) u.ru_maxrss * 1024;     /* Linux counts KiB */
}

uint64_t
machine_fs_avail_bytes (const char *path)
{
  struct statvfs v;
  if (statvfs (path, &v) != 0)
    return MACHINE_UNKNOWN;
  return (uint64_t) v.f_bavail * v.f_frsize;
}

uint64_t
machine_fd_allocated_bytes (int fd)
{
  struct stat st;
  if (fd < 0 || fstat (fd, &st) != 0)
    return MACHINE_UNKNOWN;
  return (uint64_t) st.st_blocks * 512;
}

void
machine_memlock_hint (char *buf, size_t size)
{
  struct rlimit r;
  if (getrlimit (RLIMIT_MEMLOCK, &r) != 0 || r.rlim_cur == RLIM_INFINITY)
    snprintf (buf, size, "%s", "");
  else
    snprintf (buf, size, " (RLIMIT_MEMLOCK is %" PRIu64 " bytes; raise it with 'ulimit -l')",
              (uint64_t) r.rlim_cur);
}

/* ------------------------------------------------------------ placement */

long
machine_read_file (const char *path, char *buf, size_t size)
{
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  size_t used = 0;
  while (used < size - 1)
    {
      ssize_t n = read (fd, buf + used, size - 1 - used);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      used += (size_t) n;
    }
  close (fd);
  buf[used] = '\0';
  return (long) used;
}

bool
machine_each_entry (const char *path, void (*fn) (const char *name, void *context),
                    void *context)
{
  int fd = open (path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    return false;
  /* struct linux_dirent64: d_ino, d_off, d_reclen, d_type, d_name.  */
  char buf[4096] __attribute__ ((aligned (8)));
  for (;;)
    {
      long n = syscall (SYS_getdents64, fd, buf, sizeof buf);
      if (n <= 0)
        break;
      for (long off = 0; off < n;)
        {
          unsigned short reclen;
          memcpy (&reclen, buf + off + 16, sizeof reclen);
          const char *name = buf + off + 19;
          if (!(name[0] == '.' && (!name[1] || (name[1] == '.' && !name[2]))))
            fn (name, context);
          off += reclen;
        }
    }
  close (fd);
  return true;
}

const char *
machine_sysfs_root (void)
{
  const char *fake = getenv ("ARENABENCH_TEST_SYSFS");
  return fake && *fake ? fake : "/sys";
}

/* The first line of sysfs file PATH (under the root), without its newline;
   false when it cannot be read or is empty.  */
static bool
read_sysfs (const char *path, char *buf, size_t size)
{
  char full[PATH_MAX];
  snprintf (full, sizeof full, "%s/%s", machine_sysfs_root (), path);
  if (machine_read_file (full, buf, size) <= 0)
    return false;
  buf[strcspn (buf, "\n")] = '\0';
  return *buf != '\0';
}

void
machine_cpus_add (struct machine_cpus *set, int cpu)
{
  if (cpu >= 0 && cpu < MACHINE_CPUS_MAX)
    set->bits[cpu / 64] |= UINT64_C (1) << (cpu % 64);
}

static bool
bits_has (const uint64_t *bits, size_t n, int i)
{
  return i >= 0 && (size_t) i < n * 64 && (bits[i / 64] >> (i % 64)) & 1;
}

static bool
bits_empty (const uint64_t *bits, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if (bits[i])
      return false;
  return true;
}

/* "0-3;8", or "unknown" when empty.  */
static void
bits_format (const uint64_t *bits, size_t n, char *buf, size_t size)
{
  size_t used = 0;
  buf[0] = '\0';
  for (int i = 0; (size_t) i < n * 64; i++)
    {
      if (!bits_has (bits, n, i))
        continue;
      int j = i;
      while (bits_has (bits, n, j + 1))
        j++;
      int w = j > i ? snprintf (buf + used, size - used, "%s%d-%d", used ? ";" : "", i, j)
                    : snprintf (buf + used, size - used, "%s%d", used ? ";" : "", i);
      if (w < 0 || (size_t) w >= size - used)
        break;
      used += (size_t) w;
      i = j;
    }
  if (!used)
    snprintf (buf, size, "unknown");
}

bool
machine_cpus_empty (const struct machine_cpus *set)
{
  return bits_empty (set->bits, ARRAY_SIZE (set->bits));
}

void
machine_nodes_add (struct machine_nodes *set, int node)
{
  if (node >= 0 && node < MACHINE_NODES_MAX)
    set->bits[node / 64] |= UINT64_C (1) << (node % 64);
}

bool
machine_nodes_has (const struct machine_nodes *set, int node)
{
  return bits_has (set->bits, ARRAY_SIZE (set->bits), node);
}

void
machine_cpus_format (const struct machine_cpus *set, char *buf, size_t size)
{
  bits_format (set->bits, ARRAY_SIZE (set->bits), buf, size);
}

void
machine_nodes_format (const struct machine_nodes *set, char *buf, size_t size)
{
  bits_format (set->bits, ARRAY_SIZE (set->bits), buf, size);
}

/* A kernel CPU list ("0-3,8-11") into SET; false when malformed.  */
static bool
parse_cpulist (const char *text, struct machine_cpus *set)
{
  const char *p = text;
  while (*p)
    {
      char *end;
      long lo = strtol (p, &end, 10), hi = lo;
      if (end == p || lo < 0)
        return false;
      if (*end == '-')
        {
          p = end + 1;
          hi = strtol (p, &end, 10);
          if (end == p || hi < lo)
            return false;
        }
      for (long c = lo; c <= hi && c < MACHINE_CPUS_MAX; c++)
        machine_cpus_add (set, (int) c);
      p = end;
      if (*p == ',')
        p++;
      else if (*p)
        return false;
    }
  return true;
}

bool
machine_node_exists (int node)
{
  char path[PATH_MAX];
  snprintf (path, sizeof path, "%s/devices/system/node/node%d", machine_sysfs_root (), node);
  struct stat st;
  return node >= 0 && stat (path, &st) == 0 && S_ISDIR (st.st_mode);
}

bool
machine_node_cpus (int node, struct machine_cpus *cpus)
{
  char path[64], list[4096];
  memset (cpus, 0, sizeof *cpus);
  snprintf (path, sizeof path, "devices/system/node/node%d/cpulist", node);
  return read_sysfs (path, list, sizeof list) && parse_cpulist (list, cpus)
         && !machine_cpus_empty (cpus);
}

struct nodes_of_cpus
{
  const struct machine_cpus *cpus;
  struct machine_nodes *nodes;
};

/* For an entry "nodeN" of sysfs's node directory: add N when it has a
   CPU of the set.  */
static void
add_node_of_cpus (const char *name, void *context)
{
  const struct nodes_of_cpus *ctx = context;
  int node;
  char tail;
  struct machine_cpus on;
  if (sscanf (name, "node%d%c", &node, &tail) != 1 || !machine_node_cpus (node, &on))
    return;
  for (size_t i = 0; i < ARRAY_SIZE (on.bits); i++)
    if (on.bits[i] & ctx->cpus->bits[i])
      {
        machine_nodes_add (ctx->nodes, node);
        return;
      }
}

void
machine_nodes_of_cpus (const struct machine_cpus *cpus, struct machine_nodes *nodes)
{
  memset (nodes, 0, sizeof *nodes);
  if (machine_cpus_empty (cpus))
    return;
  char path[PATH_MAX];
  snprintf (path, sizeof path, "%s/devices/system/node", machine_sysfs_root ());
  struct nodes_of_cpus ctx = { cpus, nodes };
  machine_each_entry (path, add_node_of_cpus, &ctx);
}

int
machine_cpu_now (void)
{
  return sched_getcpu ();
}

int
machine_cpu_of_pid (int pid)
{
  char path[64], line[1024];
  snprintf (path, sizeof path, "/proc/%d/stat", pid);
  if (machine_read_file (path, line, sizeof line) <= 0)
    return -1;
  /* The command name, in parentheses, may hold spaces: count fields
     after its closing one.  Field 39 is "processor".  */
  char *p = strrchr (line, ')');
  if (!p)
    return -1;
  int field = 2, cpu = -1;
  char *save;
  for (char *tok = strtok_r (p + 1, " ", &save); tok; tok = strtok_r (NULL, " ", &save))
    if (++field == 39)
      {
        cpu = atoi (tok);
        break;
      }
  return cpu;
}

void
machine_pci_describe (const char *address, struct machine_pci *pci)
{
  static const struct
  {
    const char *file;
    size_t offset, size;
  } attrs[] = {
    { "current_link_speed", offsetof (struct machine_pci, speed), sizeof pci->speed },
    { "max_link_speed", offsetof (struct machine_pci, max_speed), sizeof pci->max_speed },
    { "current_link_width", offsetof (struct machine_pci, width), sizeof pci->width },
    { "max_link_width", offsetof (struct machine_pci, max_width), sizeof pci->max_width },
    { "numa_node", offsetof (struct machine_pci, node), sizeof pci->node },
  };
  memset (pci, 0, sizeof *pci);
  snprintf (pci->address, sizeof pci->address, "%s", address && *address ? address : "unknown");
  for (size_t i = 0; i < ARRAY_SIZE (attrs); i++)
    {
      char *value = (char *) pci + attrs[i].offset, path[PATH_MAX];
      snprintf (path, sizeof path, "bus/pci/devices/%s/%s", pci->address, attrs[i].file);
      /* "Unknown" is what sysfs itself says of a link it cannot read.  */
      if (!address || !*address || !read_sysfs (path, value, attrs[i].size)
          || strncmp (value, "Unknown", 7) == 0)
        snprintf (value, attrs[i].size, "unknown");
    }
}

/* GT/s of a sysfs speed ("32.0 GT/s PCIe"), 0 when unknown.  */
static double
link_gts (const char *speed)
{
  char *end;
  double v = strtod (speed, &end);
  return end != speed && strncmp (end, " GT/s", 5) == 0 ? v : 0;
}

static long
link_width (const char *width)
{
  char *end;
  long v = strtol (width, &end, 10);
  return end != width && *end == '\0' ? v : 0;
}

void
machine_pci_link (const struct machine_pci *pci, bool max, char *buf, size_t size)
{
  double gts = link_gts (max ? pci->max_speed : pci->speed);
  long width = link_width (max ? pci->max_width : pci->width);
  if (gts > 0 && width > 0)
    snprintf (buf, size, "%.1f GT/s x%ld", gts, width);
  else
    snprintf (buf, size, "unknown");
}

bool
machine_pci_degraded (const struct machine_pci *pci)
{
  double gts = link_gts (pci->speed), max_gts = link_gts (pci->max_speed);
  long width = link_width (pci->width), max_width = link_width (pci->max_width);
  return (gts > 0 && max_gts > 0 && gts < max_gts - 0.05)
         || (width > 0 && max_width > 0 && width < max_width);
}

int
machine_pci_node (const struct machine_pci *pci)
{
  char *end;
  long node = strtol (pci->node, &end, 10);
  return end != pci->node && *end == '\0' && node >= 0 && node < MACHINE_NODES_MAX
         ? (int) node : -1;
}

/* move_pages(2), mbind(2): called through syscall(2) because glibc does
   not wrap them (libnuma does, but is a dependency we do not want for two
   system calls).  */
uint64_t
machine_page_nodes (const void *base, size_t bytes, struct machine_nodes *nodes)
{
  long page = sysconf (_SC_PAGESIZE);
  if (!base || !bytes || page <= 0)
    return 0;
  uint64_t npages = (bytes + (size_t) page - 1) / (size_t) page;
  uint64_t n = npages < MACHINE_PAGE_SAMPLES ? npages : MACHINE_PAGE_SAMPLES;
  void *pages[MACHINE_PAGE_SAMPLES];
  int status[MACHINE_PAGE_SAMPLES];
  uintptr_t first = (uintptr_t) base & ~((uintptr_t) page - 1);
  for (uint64_t i = 0; i < n; i++)
    pages[i] = (void *) (first + (uintptr_t) (i * npages / n) * (uintptr_t) page);
  if (syscall (SYS_move_pages, 0, (unsigned long) n, pages, NULL, status, 0) != 0)
    return 0;
  uint64_t found = 0;
  for (uint64_t i = 0; i < n; i++)
    if (status[i] >= 0)
      {
        machine_nodes_add (nodes, status[i]);
        found++;
      }
  return found;
}

int
machine_bind_memory (void *base, size_t bytes, int node)
{
  enum { MPOL_BIND_ = 2 };                       /* <numaif.h>, from libnuma */
  const unsigned MPOL_MF_MOVE_ = 1u << 1;
  unsigned long mask[MACHINE_NODES_MAX / (8 * sizeof (unsigned long))] = { 0 };
  if (node < 0 || node >= MACHINE_NODES_MAX)
    return EINVAL;
  mask[node / (8 * sizeof (unsigned long))] |= 1UL << (node % (8 * sizeof (unsigned long)));
  long page = sysconf (_SC_PAGESIZE);
  uintptr_t start = (uintptr_t) base & ~((uintptr_t) page - 1);
  size_t len = bytes + ((uintptr_t) base - start);
  if (syscall (SYS_mbind, (void *) start, len, MPOL_BIND_, mask,
               (unsigned long) MACHINE_NODES_MAX, MPOL_MF_MOVE_) != 0)
    return errno;
  return 0;
}

/* The bracketed choice of a sysfs setting ("always [madvise] never").  */
static void
read_choice (const char *path, char *buf, size_t size)
{
  char line[256];
  char *open, *close;
  if (read_sysfs (path, line, sizeof line) && (open = strchr (line, '['))
      && (close = strchr (open, ']')))
    snprintf (buf, size, "%.*s", (int) (close - open - 1), open + 1);
  else
    snprintf (buf, size, "unknown");
}

void
machine_thp (char *enabled, size_t enabled_size, char *shmem, size_t shmem_size)
{
  read_choice ("kernel/mm/transparent_hugepage/enabled", enabled, enabled_size);
  read_choice ("kernel/mm/transparent_hugepage/shmem_enabled", shmem, shmem_size);
}

void
machine_governors (const struct machine_cpus *cpus, char *buf, size_t size)
{
  size_t used = 0;
  buf[0] = '\0';
  for (int c = 0; c < MACHINE_CPUS_MAX; c++)
    {
      char path[96], gov[64];
      if (!bits_has (cpus->bits, ARRAY_SIZE (cpus->bits), c))
        continue;
      snprintf (path, sizeof path, "devices/system/cpu/cpu%d/cpufreq/scaling_governor", c);
      if (!read_sysfs (path, gov, sizeof gov))
        continue;
      /* Distinct values only: "performance", "performance;powersave".  */
      bool seen = false;
      for (const char *p = buf; !seen && (p = strstr (p, gov)); p += strlen (gov))
        seen = (p == buf || p[-1] == ';') && (p[strlen (gov)] == ';' || !p[strlen (gov)]);
      if (seen)
        continue;
      int w = snprintf (buf + used, size - used, "%s%s", used ? ";" : "", gov);
      if (w < 0 || (size_t) w >= size - used)
        break;
      used += (size_t) w;
    }
  if (!used)
    snprintf (buf, size, "unknown");
}

int
machine_bind_cpus (const struct machine_cpus *cpus)
{
  cpu_set_t allowed, set;
  CPU_ZERO (&set);
  if (sched_getaffinity (0, sizeof allowed, &allowed) != 0)
    return errno;
  for (int c = 0; c < MACHINE_CPUS_MAX && c < CPU_SETSIZE; c++)
    if (bits_has (cpus->bits, ARRAY_SIZE (cpus->bits), c) && CPU_ISSET (c, &allowed))
      CPU_SET (c, &set);
  if (CPU_COUNT (&set) == 0)
    return EINVAL;
  return sched_setaffinity (0, sizeof set, &set) == 0 ? 0 : errno;
}

void
machine_nodes_online (char *buf, size_t size)
{
  if (!read_sysfs ("devices/system/node/online", buf, size))
    snprintf (buf, size, "unknown");
}
