/* fill-pace.c -- producer pacing (a token bucket on bytes written) and
   CPU binding.  */
#include "system.h"
#include "fill-pace.h"
#include "clock.h"
#include "die.h"
#include "options.h"

#include <sched.h>
#include <sys/prctl.h>
#include <time.h>

uint64_t
fill_pace_parse_rate (const char *option, const char *text)
{
  uint64_t rate = options_size (option, text, 0, UINT64_C (1) << 50);
  if (rate && rate < FILL_PACE_RATE_MIN)
    die (EXIT_USAGE, 0, "%s: %s is below 1MB (bytes per second; 0 means no limit)",
         option, quote (text));
  return rate;
}

size_t
fill_pace_parse_rates (const char *option, const char *text, uint64_t **rates)
{
  size_t count = 1;
  for (const char *p = text; *p; p++)
    count += *p == ',';
  char *copy = xstrdup (text);
  *rates = xcalloc (count, sizeof **rates);
  size_t n = 0;
  /* strtok_r would merge ",," into one comma: every field counts.  */
  for (char *field = copy, *end; n < count; field = end + 1, n++)
    {
      end = strchr (field, ',');
      if (end)
        *end = '\0';
      (*rates)[n] = fill_pace_parse_rate (option, field);
      if (!end)
        break;
    }
  free (copy);
  return count;
}

uint64_t
fill_pace_rate_of (const uint64_t *rates, size_t count, uint32_t worker)
{
  if (!count)
    return 0;
  return rates[worker < count ? worker : count - 1];
}

uint64_t
fill_pace_parse_chunk (const char *option, const char *text)
{
  uint64_t chunk = options_size (option, text, FILL_PACE_CHUNK_MIN, FILL_PACE_CHUNK_MAX);
  /* Parts must start on a leaf's alignment (payload_fill_part).  */
  if (chunk % PAYLOAD_LEAF_ALIGN)
    die (EXIT_USAGE, 0, "%s: %s is not a multiple of %d bytes", option, quote (text),
         PAYLOAD_LEAF_ALIGN);
  return chunk;
}

void
fill_pace_init (struct fill_pace *pace, uint64_t rate, uint64_t chunk)
{
  *pace = (struct fill_pace) { .rate = rate, .chunk = chunk ? chunk : FILL_PACE_CHUNK_DEFAULT };
  /* A part at 2 GB/s lasts about 130 us: the default 50 us of timer slack
     would be a large share of it.  */
  if (rate)
    prctl (PR_SET_TIMERSLACK, 1000UL);
}

static void
sleep_until (uint64_t ns)
{
  struct timespec ts = { .tv_sec = (time_t) (ns / 1000000000u),
                         .tv_nsec = (long) (ns % 1000000000u) };
  /* clock_now_ns is CLOCK_MONOTONIC; an interrupted sleep just resumes. */
  while (clock_nanosleep (CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
    continue;
}

void
fill_pace_fill (struct fill_pace *pace, const struct payload_layout *layout,
                uint64_t sequence, void *item, enum payload_store store)
{
  if (!pace->rate)
    {
      payload_fill_store (layout, sequence, item, store);
      return;
    }
  for (uint64_t from = 0; from < layout->bytes; from += pace->chunk)
    {
      uint64_t n = layout->bytes - from < pace->chunk ? layout->bytes - from : pace->chunk;
      uint64_t now = clock_now_ns ();
      if (pace->next_ns > now)
        sleep_until (pace->next_ns);
      else
        pace->next_ns = now;
      pace->next_ns += (uint64_t) ((double) n * 1e9 / (double) pace->rate);
      payload_fill_part (layout, sequence, item, from, from + n, store);
    }
}

static _Noreturn void
bad_cpus (const char *option, const char *text, const char *why)
{
  die (EXIT_USAGE, 0, "%s: %s: %s", option, quote (text), why);
}

size_t
fill_pace_parse_cpus (const char *option, const char *text, int **cpus)
{
  cpu_set_t allowed;
  CPU_ZERO (&allowed);
  if (sched_getaffinity (0, sizeof allowed, &allowed) != 0)
    die (EXIT_OSERR, errno, "sched_getaffinity");
  size_t count = 0, cap = 16;
  /* Static, so that a usage error halfway leaves no leak for a sanitizer
     to report at exit.  */
  static int *list;
  list = xmalloc (cap * sizeof *list);
  const char *p = text;
  for (;;)
    {
      char *end;
      if (*p < '0' || *p > '9')
        bad_cpus (option, text, "not a CPU list such as 0-3,8");
      errno = 0;
      unsigned long lo = strtoul (p, &end, 10), hi = lo;
      if (*end == '-')
        {
          p = end + 1;
          if (*p < '0' || *p > '9')
            bad_cpus (option, text, "not a CPU list such as 0-3,8");
          hi = strtoul (p, &end, 10);
        }
      if (errno || hi < lo || hi >= CPU_SETSIZE)
        bad_cpus (option, text, "not a CPU range this system can have");
      for (unsigned long c = lo; c <= hi; c++)
        {
          if (!CPU_ISSET (c, &allowed))
            {
              char why[64];
              snprintf (why, sizeof why, "CPU %lu is not one this process may use", c);
              bad_cpus (option, text, why);
            }
          if (count == cap)
            list = xrealloc (list, (cap *= 2) * sizeof *list);
          list[count++] = (int) c;
        }
      if (*end == '\0')
        break;
      if (*end != ',')
        bad_cpus (option, text, "not a CPU list such as 0-3,8");
      p = end + 1;
    }
  *cpus = list;
  return count;
}

int
fill_pace_bind (int cpu)
{
  cpu_set_t set;
  CPU_ZERO (&set);
  CPU_SET (cpu, &set);
  return sched_setaffinity (0, sizeof set, &set) == 0 ? 0 : errno;
}
