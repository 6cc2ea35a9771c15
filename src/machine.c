/* machine.c -- what every result records about the host it ran on. */
#include "system.h"
#include "machine.h"

#include "die.h"

#include <dirent.h>
#include <inttypes.h>
#include <sys/resource.h>
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

/* Descriptors open now: the entries of /proc/self/fd, less the one the
   listing itself uses; without /proc, the lowest free one as a floor.  */
static uint64_t
open_fds (void)
{
  DIR *d = opendir ("/proc/self/fd");
  if (!d)
    {
      int fd = dup (STDERR_FILENO);
      if (fd < 0)
        return 3;
      close (fd);
      return (uint64_t) fd;
    }
  uint64_t n = 0;
  for (struct dirent *e; (e = readdir (d));)
    if (e->d_name[0] != '.')
      n++;
  closedir (d);
  return n ? n - 1 : 0;
}

void
machine_require_fds (uint64_t needed, const char *what)
{
  struct rlimit r;
  if (getrlimit (RLIMIT_NOFILE, &r) != 0 || r.rlim_cur == RLIM_INFINITY)
    return;
  uint64_t open = open_fds ();
  if (open + needed > (uint64_t) r.rlim_cur)
    die (EXIT_OSERR, 0, "%s needs %" PRIu64 " more open files, but %" PRIu64
         " are open and RLIMIT_NOFILE is %" PRIu64 " (raise it with 'ulimit -n')",
         what, needed, open, (uint64_t) r.rlim_cur);
}
