/* arena-backends.c -- the backends of arena-backends.def: their
   operations and names, indexed by enum arena_backend, and their code.  */
#include "system.h"
#include "arena.h"
#include "arena-layout.h"

const struct arena_backend_ops *const arena_backends[ARENA_BACKEND_COUNT] = {
#define ARENA_BACKEND(id, name) [ARENA_##id] = &arena_##name##_ops,
#include "arena-backends.def"
#undef ARENA_BACKEND
};

const char *const arena_backend_names[ARENA_BACKEND_COUNT + 1] = {
#define ARENA_BACKEND(id, name) [ARENA_##id] = #name,
#include "arena-backends.def"
#undef ARENA_BACKEND
  [ARENA_BACKEND_COUNT] = NULL,
};

const char *
arena_backend_summary (enum arena_backend backend)
{
  return arena_backends[backend]->summary;
}

bool
arena_backend_slotted (enum arena_backend backend)
{
  return arena_backends[backend]->slotted;
}

/* Each backend's own file, arena-NAME.c: make writes an #include of each
   that arena-backends.def names into arena-backends.inc, so that a new
   backend takes no line in Makefile.am.  They compile as one unit: a
   backend's static names begin with its own.  */
#include "src/arena-backends.inc"
