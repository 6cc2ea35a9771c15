/* summary-number.h -- numbers as bench-summarize prints them.  Every
   writer (summary-output.c) and the verdicts (summary-verdicts.c) take
   their digits from here, so a number prints one way whatever the
   format.  BUF of SIZE gets the text; 48 bytes hold any of them.  */
#ifndef ARENABENCH_SUMMARY_NUMBER_H
#define ARENABENCH_SUMMARY_NUMBER_H

#include <stdbool.h>
#include <stddef.h>

/* Half the shorter side of the interval [LOW, HIGH] about X, or NaN.  */
double summary_number_half (double x, double low, double high);

/* The shortest %g text that reads back as X (CSV and JSON).  */
void summary_number_shortest (double x, char *buf, size_t size);

/* %g with P digits, the exponent without padding ("2e-7").  */
void summary_number_digits (double x, int p, char *buf, size_t size);

/* X at the precision of an interval of half width HALF (the second
   significant digit of HALF), outward for an interval's end (DIR -1 the
   low end, 1 the high end, 0 a point); never 0 or the other sign for a
   number that is not; exponent form past 1e17 and below 1e-4.  False
   where HALF is no width or more than 17 digits would be needed.  */
bool summary_number_rounded (double x, double half, int dir, char *buf, size_t size);

/* The significant digits summary_number_rounded gives X, or 0.  */
int summary_number_rounded_digits (double x, double half);

/* The fewest digits, at least LEAST, that print the different values of
   X[0..N) differently (within 1e-12 relative counts as equal).  Sorts X. */
int summary_number_distinct (double *x, size_t n, int least);

/* A p-value in two digits; "< 1e-300" below what a double holds.  */
void summary_number_p (double p, char *buf, size_t size);

/* The same with the digits that keep it on its side of ALPHA.  */
void summary_number_p_against (double p, double alpha, char *buf, size_t size);

/* X, LOW and HIGH at the interval's precision, the ends outward, with
   digits until each prints on its side of NUL and of 0: the printed
   interval excludes NUL exactly when the interval does.  */
void summary_number_interval (double x, double low, double high, double nul, char *tx,
                              char *tl, char *th, size_t size);

#endif
