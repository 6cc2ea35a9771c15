/* machine.c -- what every result records about the host it ran on. */
#include "system.h"
#include "machine.h"

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
