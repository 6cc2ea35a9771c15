/* arena-fault.h -- bus errors in mapped arenas (arena_fault_catch and
   arena_fault_name, in arena.h, are the callers' side).  */
#ifndef ARENABENCH_ARENA_FAULT_H
#define ARENABENCH_ARENA_FAULT_H

#include "arena-object.h"

/* ARENA's mapping is live: a bus error inside it is reported under its
   name.  The first call installs the SIGBUS handler.  */
void arena_fault_register (struct arena *arena);

/* Before unmapping ARENA.  */
void arena_fault_unregister (struct arena *arena);

#endif
