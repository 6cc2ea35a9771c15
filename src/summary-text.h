/* summary-text.h -- the width of text on a terminal and its JSON form,
   for bench-summarize's writers. */
#ifndef ARENABENCH_SUMMARY_TEXT_H
#define ARENABENCH_SUMMARY_TEXT_H

#include <stddef.h>
#include <stdio.h>

/* The terminal columns of S: East Asian wide characters and emoji 2,
   combining marks 0, each byte of invalid UTF-8 1 (its replacement
   character).  */
size_t summary_text_width (const char *s);

/* S as a JSON string on OUT: valid UTF-8 as it is, control characters
   escaped, each byte of invalid UTF-8 as U+FFFD.  */
void summary_text_json (FILE *out, const char *s);

#endif
