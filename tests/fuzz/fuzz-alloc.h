/* fuzz-alloc.h -- forced into every library source a fuzz target compiles
   (clang -include), never into the commands.

   die() exits in the commands; a fuzz target longjmps out of its cleanup
   hook instead, so whatever the failing call had allocated is still live.
   Routing the library's allocations through fuzz-common.h's tracker lets
   the target free exactly those blocks (and any libcsv parser left
   initialised) after a die, while LeakSanitizer still sees every block
   leaked on a path that returns.  */
#ifndef ARENABENCH_FUZZ_ALLOC_H
#define ARENABENCH_FUZZ_ALLOC_H

/* First, as in every source: it sets the feature macros.  */
#include <config.h>

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <csv.h>

void *fuzz_malloc (size_t size);
void *fuzz_calloc (size_t count, size_t size);
void *fuzz_realloc (void *ptr, size_t size);
void fuzz_free (void *ptr);
int fuzz_csv_init (struct csv_parser *parser, unsigned char options);
void fuzz_csv_free (struct csv_parser *parser);

#define malloc(n) fuzz_malloc (n)
#define calloc(n, s) fuzz_calloc ((n), (s))
#define realloc(p, n) fuzz_realloc ((p), (n))
#define free(p) fuzz_free (p)
#define csv_init(p, o) fuzz_csv_init ((p), (o))
#define csv_free(p) fuzz_csv_free (p)

#endif
