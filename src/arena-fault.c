/* arena-fault.c -- bus errors in arenas: another process may truncate an
   arena's object while we read or write it. */
#include "system.h"
#include "arena.h"
#include "arena-fault.h"

#include <signal.h>

/* Mapped arenas, for the handler; changed only outside it.  */
static struct arena *mapped_arenas;
static _Thread_local sigjmp_buf *fault_env;
static char fault_name[sizeof ((struct arena *) 0)->name];

static void
on_bus_error (int sig, siginfo_t *info, void *context)
{
  (void) context;
  const unsigned char *addr = info->si_addr;
  for (const struct arena *a = mapped_arenas; a; a = a->next_mapped)
    if (addr >= a->base && addr < a->base + a->map_bytes && fault_env)
      {
        memcpy (fault_name, a->name, sizeof fault_name);
        sigjmp_buf *env = fault_env;
        fault_env = NULL;
        siglongjmp (*env, 1);
      }
  /* Not ours to explain: returning repeats the access with the default
     action.  */
  signal (sig, SIG_DFL);
}

void
arena_fault_register (struct arena *arena)
{
  static bool installed;
  if (!installed)
    {
      struct sigaction sa = { .sa_sigaction = on_bus_error, .sa_flags = SA_SIGINFO };
      sigemptyset (&sa.sa_mask);
      sigaction (SIGBUS, &sa, NULL);
      installed = true;
    }
  arena->prev_mapped = NULL;
  arena->next_mapped = mapped_arenas;
  if (mapped_arenas)
    mapped_arenas->prev_mapped = arena;
  mapped_arenas = arena;
}

/* In constant time: each of a producer's W workers drops the W - 1
   arenas of the others, and a walk of the list made that grow with the
   square of W per worker.  */
void
arena_fault_unregister (struct arena *arena)
{
  if (arena->prev_mapped)
    arena->prev_mapped->next_mapped = arena->next_mapped;
  else if (mapped_arenas == arena)
    mapped_arenas = arena->next_mapped;
  else
    return;                     /* not on the list */
  if (arena->next_mapped)
    arena->next_mapped->prev_mapped = arena->prev_mapped;
  arena->next_mapped = arena->prev_mapped = NULL;
}

void
arena_fault_catch (sigjmp_buf *env)
{
  fault_env = env;
}

const char *
arena_fault_name (void)
{
  return fault_name;
}

