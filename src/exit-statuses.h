/* exit-statuses.h -- what each command's exit statuses mean. */
#ifndef ARENABENCH_EXIT_STATUSES_H
#define ARENABENCH_EXIT_STATUSES_H

#include "system.h"

/* Write PROGRAM's "Exit status: 0 success, ..." paragraph, wrapped to
   the --help width, to OUT.  */
void exit_statuses_put_help (FILE *out, const char *program);

#endif
