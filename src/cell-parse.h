/* cell-parse.h -- what a CSV cell of a value column holds.

   A number: decimal, with an optional sign, fraction and exponent, as
   strtod reads it (leading blanks and trailing blanks or tabs allowed),
   finite; never hexadecimal ("0x10" and "0x1p3" are text: benchmark
   reports write decimals, and a hex cell is more likely a pointer or an
   ID than a measurement).  A missing value: empty, NA, or nan/-nan/+nan
   in any case (glibc prints -nan); an infinity: inf/-inf/infinity in any
   case; or text.  */
#ifndef ARENABENCH_CELL_PARSE_H
#define ARENABENCH_CELL_PARSE_H

#include <stddef.h>

enum cell_kind { CELL_NUMBER, CELL_MISSING, CELL_INFINITE, CELL_TEXT };

/* Classify S[0..LEN) (NUL-terminated at LEN); *VALUE gets a number.  */
enum cell_kind cell_parse (const char *s, size_t len, double *value);

#endif
