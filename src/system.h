/* system.h -- includes and exit statuses shared by every arenabench command. */
#ifndef ARENABENCH_SYSTEM_H
#define ARENABENCH_SYSTEM_H

#include <config.h>

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Exit statuses follow sysexits(3); each command's man page lists them. */
enum exit_status
{
  EXIT_OK = 0,
  EXIT_MISMATCH = 1,      /* a payload value did not match its pattern */
  EXIT_USAGE = 64,        /* bad option or option value */
  EXIT_DATAERR = 65,      /* malformed input row or CSV, stale or foreign arena */
  EXIT_NOINPUT = 66,      /* empty input, missing file or arena */
  EXIT_UNAVAILABLE = 69,  /* no CUDA device, or built without CUDA */
  EXIT_SOFTWARE = 70,     /* internal error, CUDA error */
  EXIT_OSERR = 71,        /* the system refused: shm, mmap, fork, memory */
  EXIT_IOERR = 74,        /* a write to stdout or a file failed */
  EXIT_TEMPFAIL = 75      /* the peer stalled, vanished or truncated the stream */
};

/* A parameter that a table's signature or a stub's interface requires and
   this definition does not use (the build has -Wextra's unused-parameter).  */
#define UNUSED __attribute__ ((__unused__))

#define ARRAY_SIZE(a) (sizeof (a) / sizeof (a)[0])
#define STREQ(a, b) (strcmp ((a), (b)) == 0)

#endif
