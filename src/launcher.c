/* launcher.c -- ranks from the launchers' variables. */
#include "system.h"
#include "launcher.h"
#include "die.h"
#include "machine.h"
#include "options.h"

#include <sched.h>
#include <unistd.h>

enum field { RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE, FIELD_COUNT };

static const char *const field_names[FIELD_COUNT] = {
  "rank", "local_rank", "world_size", "local_world_size",
};

/* Each launcher's variables, in field order (NULL: it sets none), from
   launchers.def.  */
static const struct launcher_vars
{
  const char *name, *key;
  bool outer;
  const char *var[FIELD_COUNT];
} launchers[] = {
#define LAUNCHER(key, name, outer, rank, local_rank, world_size, local_world_size) \
  { name, key, outer, { rank, local_rank, world_size, local_world_size } },
#include "launchers.def"
#undef LAUNCHER
};

/* Largest rank or size taken.  */
#define LAUNCHER_MAX (1L << 24)

/* "torchrun, openmpi, mpich, slurm or none": every key there is.  */
static const char *
key_choices (void)
{
  static char text[256];
  size_t used = 0;
  for (size_t i = 0; i < ARRAY_SIZE (launchers) && used < sizeof text; i++)
    used += (size_t) snprintf (text + used, sizeof text - used, "%s, ", launchers[i].key);
  if (used < sizeof text)
    snprintf (text + used - 2, sizeof text - (used - 2), " or none");
  return text;
}

static bool
sets_any (const struct launcher_vars *l)
{
  for (int f = 0; f < FIELD_COUNT; f++)
    if (l->var[f] && getenv (l->var[f]) && *getenv (l->var[f]))
      return true;
  return false;
}

/* Which launchers to read: the one $ARENABENCH_LAUNCHER names, else
   every inner one that set a variable, else the outer ones.  */
static void
choose (bool use[ARRAY_SIZE (launchers)])
{
  const char *forced = getenv ("ARENABENCH_LAUNCHER");
  if (forced && *forced)
    {
      if (STREQ (forced, "none"))
        return;
      for (size_t i = 0; i < ARRAY_SIZE (launchers); i++)
        if (STREQ (forced, launchers[i].key))
          {
            use[i] = true;
            return;
          }
      die (EXIT_USAGE, 0, "ARENABENCH_LAUNCHER: %s is not %s", quote (forced), key_choices ());
    }
  bool inner = false;
  for (size_t i = 0; i < ARRAY_SIZE (launchers); i++)
    if (!launchers[i].outer && (use[i] = sets_any (&launchers[i])))
      inner = true;
  if (!inner)
    for (size_t i = 0; i < ARRAY_SIZE (launchers); i++)
      use[i] = launchers[i].outer && sets_any (&launchers[i]);
}

void
launcher_detect (struct launcher_rank *r)
{
  *r = (struct launcher_rank) { .launcher = "none", .key = "none",
    .rank = 0, .local_rank = 0, .world_size = 1, .local_world_size = 1 };
  bool use[ARRAY_SIZE (launchers)] = { false };
  choose (use);
  long value[FIELD_COUNT];
  const char *from[FIELD_COUNT] = { NULL };     /* the variable that set it */
  const char *who[FIELD_COUNT] = { NULL };
  for (size_t i = 0; i < ARRAY_SIZE (launchers); i++)
    {
      if (!use[i])
        continue;
      if (STREQ (r->launcher, "none"))
        {
          r->launcher = launchers[i].name;
          r->key = launchers[i].key;
        }
      for (int f = 0; f < FIELD_COUNT; f++)
        {
          const char *name = launchers[i].var[f], *text = name ? getenv (name) : NULL;
          if (!text || !*text)
            continue;
          long v = (long) options_uint (name, text, 0, LAUNCHER_MAX);
          if (from[f] && v != value[f])
            die (EXIT_USAGE, 0, "the launchers disagree on the %s: %s=%ld (%s) but %s=%ld (%s)",
                 field_names[f], from[f], value[f], who[f], name, v, launchers[i].name);
          value[f] = v;
          from[f] = name;
          who[f] = launchers[i].name;
        }
    }
  if (!STREQ (r->launcher, "none"))
    {
      long *out[FIELD_COUNT] = { &r->rank, &r->local_rank, &r->world_size, &r->local_world_size };
      for (int f = 0; f < FIELD_COUNT; f++)
        *out[f] = from[f] ? value[f] : LAUNCHER_UNKNOWN;
      /* A rank must lie below its size; a host's ranks are some of the
         world's, so the local world is no larger than the world, and a
         local rank (Slurm sets no local size) below the world too.  */
      static const enum field pairs[][2] = { { RANK, WORLD_SIZE }, { LOCAL_RANK, LOCAL_WORLD_SIZE },
                                             { LOCAL_WORLD_SIZE, WORLD_SIZE },
                                             { LOCAL_RANK, WORLD_SIZE } };
      for (size_t p = 0; p < ARRAY_SIZE (pairs); p++)
        {
          enum field a = pairs[p][0], b = pairs[p][1];
          if (from[b] && value[b] == 0)
            die (EXIT_USAGE, 0, "%s=0: no ranks", from[b]);
          if (a == LOCAL_WORLD_SIZE && from[a] && from[b] && value[a] > value[b])
            die (EXIT_USAGE, 0, "%s=%ld is above %s=%ld: a host's ranks are more than the "
                 "world's", from[a], value[a], from[b], value[b]);
          if (a != LOCAL_WORLD_SIZE && from[a] && from[b] && value[a] >= value[b])
            die (EXIT_USAGE, 0, "%s=%ld is not below %s=%ld", from[a], value[a], from[b], value[b]);
        }
    }
  if (gethostname (r->host, sizeof r->host - 1) != 0)
    snprintf (r->host, sizeof r->host, "unknown");
}

static struct launcher_rank self;
static bool detected;

const struct launcher_rank *
launcher_self (void)
{
  if (!detected)
    {
      launcher_detect (&self);
      detected = true;
    }
  return &self;
}

bool
launcher_present (const struct launcher_rank *r)
{
  return !STREQ (r->key, "none");
}

void
launcher_set_device (const char *device)
{
  launcher_self ();
  snprintf (self.device, sizeof self.device, "%s", device);
}

void
launcher_bind_cpus (char *cpus, size_t size)
{
  const struct launcher_rank *r = launcher_self ();
  cpu_set_t allowed;
  struct machine_cpus now = { { 0 } };
  *cpus = '\0';
  if (sched_getaffinity (0, sizeof allowed, &allowed) != 0)
    return;
  int list[CPU_SETSIZE], n = 0;
  for (int c = 0; c < CPU_SETSIZE && c < MACHINE_CPUS_MAX; c++)
    if (CPU_ISSET (c, &allowed))
      list[n++] = c;
  long online = sysconf (_SC_NPROCESSORS_ONLN);
  long l = r->local_world_size, k = r->local_rank;
  /* A launcher that bound us already placed us: keep its choice.  */
  if (l > 1 && k >= 0 && n == online && n > 0)
    {
      /* The K-th of L even shares of the N CPUs; with fewer CPUs than
         ranks, ranks share a CPU.  */
      long first = k * n / l, last = (k + 1) * n / l;
      if (last <= first)
        last = first + 1;
      struct machine_cpus share = { { 0 } };
      for (long c = first; c < last; c++)
        machine_cpus_add (&share, list[c]);
      if (machine_bind_cpus (&share) == 0)
        {
          machine_cpus_format (&share, cpus, size);
          return;
        }
    }
  for (int i = 0; i < n; i++)
    machine_cpus_add (&now, list[i]);
  machine_cpus_format (&now, cpus, size);
}

/* "4", or "?" when the launcher did not say.  */
static const char *
number (long v, char *buf, size_t size)
{
  if (v == LAUNCHER_UNKNOWN)
    return "?";
  snprintf (buf, size, "%ld", v);
  return buf;
}

void
launcher_announce (const char *detail)
{
  const struct launcher_rank *r = launcher_self ();
  char a[24], b[24], c[24], d[24];
  fprintf (stderr, "%s: rank %s of %s (local %s of %s, %s): host %s, pid %ld, device %s%s%s%s\n",
           program_name, number (r->rank, a, sizeof a), number (r->world_size, b, sizeof b),
           number (r->local_rank, c, sizeof c), number (r->local_world_size, d, sizeof d),
           r->launcher, r->host, (long) getpid (), *r->device ? r->device : "unknown",
           detail ? " (" : "", detail ? detail : "", detail ? ")" : "");
}

void
launcher_print (FILE *out, const struct launcher_rank *r)
{
  long v[FIELD_COUNT] = { r->rank, r->local_rank, r->world_size, r->local_world_size };
  fprintf (out, "launcher=%s", r->key);
  for (int f = 0; f < FIELD_COUNT; f++)
    {
      fprintf (out, " %s=", field_names[f]);
      if (v[f] != LAUNCHER_UNKNOWN)
        fprintf (out, "%ld", v[f]);
    }
  fputc ('\n', out);
}

void
launcher_list (FILE *out)
{
  for (size_t i = 0; i < ARRAY_SIZE (launchers); i++)
    {
      fprintf (out, "launcher=%s", launchers[i].key);
      for (int f = 0; f < FIELD_COUNT; f++)
        fprintf (out, " %s=%s", field_names[f], launchers[i].var[f] ? launchers[i].var[f] : "");
      fputc ('\n', out);
    }
}
