/* summary-number.c -- numbers as bench-summarize prints them: shortest
   round trip, significant digits, an interval's precision rounded
   outward, p-values on their side of the level. */
#include "system.h"
#include "summary-number.h"

#include <math.h>

/* Half the shorter side of an interval about X, or NaN.  */
double
summary_number_half (double x, double low, double high)
{
  double half = fmin (x - low, high - x);
  return half > 0 && isfinite (half) ? half : NAN;
}

/* Whether "%.*g" of X with P digits reads back as X, into TRY.  */
static bool
round_trips (double x, int p, char *try, size_t size)
{
  if (p < 1 || p > 17)
    return false;
  snprintf (try, size, "%.*g", p, x);
  return strtod (try, NULL) == x;
}

/* The shortest %g text that reads back as X: of the digits that do,
   the one that prints fewest characters ("50", not "5e+01"; "1e-323",
   not "9.88131e-324").  Trying all 17 precisions was three quarters of
   the time of 10,000 groups: the fewest digits that read back are found
   by bisection (more digits round nearer, so once some do, more do), and
   more digits can print shorter only where %g leaves the exponent form,
   at P = the decimal exponent + 1.  */
void
summary_number_shortest (double x, char *buf, size_t size)
{
  char try[48];
  buf[0] = '\0';
  if (!isfinite (x) || x == 0)
    {
      snprintf (buf, size, "%.17g", x);
      return;
    }
  /* Computed statistics need 16 or 17 digits, data 15 or fewer: try 15
     first, then bisect below it or step up.  */
  int bad = 0, good = 15;
  if (!round_trips (x, 15, try, sizeof try))
    {
      bad = 15;
      good = round_trips (x, 16, try, sizeof try) ? 16 : 17;
    }
  while (good - bad > 1)
    {
      int mid = (bad + good) / 2;
      if (round_trips (x, mid, try, sizeof try))
        good = mid;
      else
        bad = mid;
    }
  /* Below the bisection's answer a precision may still read back where
     the decimal rounding is uneven (near a power of 2): step down while
     it does.  */
  while (good > 1 && good <= 15 && round_trips (x, good - 1, try, sizeof try))
    good--;
  round_trips (x, good, try, sizeof try);
  snprintf (buf, size, "%s", try);
  int fixed = (int) floor (log10 (fabs (x))) + 1;
  for (int p = fixed; p <= fixed + 1; p++)
    if (p > good && p <= 17 && round_trips (x, p, try, sizeof try) && strlen (try) < strlen (buf))
      snprintf (buf, size, "%s", try);
}

/* The exponent of BUF without "+" or padding: "1.25e300", "2e-7".  */
static void
strip_exponent (char *buf)
{
  char *e = strchr (buf, 'e');
  if (!e)
    return;
  char *from = e + 1;
  if (*from == '+')
    memmove (from, from + 1, strlen (from));
  if (*from == '-')
    from++;
  char *to = from;
  while (to[0] == '0' && to[1])
    to++;
  memmove (from, to, strlen (to) + 1);
}

/* %g with P digits, the exponent without padding ("2e-7", not "2e-07"). */
void
summary_number_digits (double x, int p, char *buf, size_t size)
{
  snprintf (buf, size, "%.*g", p, x);
  strip_exponent (buf);
}

/* X rounded to a multiple of 10^PLACE: to nearest (DIR 0), down (DIR
   < 0) or up (DIR > 0).  Fixed decimals between 1e-4 and 1e17 (where
   %.17g turns too), else the exponent form with the same digits, so neither a 300-digit number nor
   a row of zeros stands for 1.2e300 or 2e-70.  */
static void
place_text (double x, int place, int dir, char *buf, size_t size)
{
  for (int pass = 0; pass < 2; pass++)
    {
      int lead = x != 0 ? (int) floor (log10 (fabs (x))) : place;
      if (x != 0 && (lead >= 17 || lead < -4))
        {
          int sig = lead - place + 1;
          if (sig < 1)
            sig = 1;
          snprintf (buf, size, "%.*e", sig - 1, x);
          strip_exponent (buf);
        }
      else
        {
          int decimals = place < 0 ? -place : 0;
          /* %.*f rounds to the decimals; above the units, round first.  */
          double unit = place > 0 ? pow (10, place) : 0;
          snprintf (buf, size, "%.*f", decimals, unit ? round (x / unit) * unit : x);
        }
      /* Outward: a nearest text on the wrong side moves one unit.  */
      double back = strtod (buf, NULL);
      if (pass == 0 && ((dir < 0 && back > x) || (dir > 0 && back < x)))
        {
          x = back + (dir < 0 ? -1 : 1) * pow (10, place);
          continue;
        }
      break;
    }
  /* No "-0.00": a value that rounds to zero is zero.  */
  if (buf[0] == '-' && strspn (buf + 1, "0.") == strlen (buf + 1))
    memmove (buf, buf + 1, strlen (buf));
}

/* The side of NUL that X is on: -1, 0 or 1.  */
static int
side (double x, double nul)
{
  return (x > nul) - (x < nul);
}

/* The place of the second significant digit of HALF, EXTRA places
   finer, or false where HALF is no width or X would need more than 17
   digits there.  */
static bool
half_place (double x, double half, int extra, int *place)
{
  if (!(half > 0) || !isfinite (half) || !isfinite (x))
    return false;
  *place = (int) floor (log10 (half)) - 1 - extra;
  int lead = x != 0 ? (int) floor (log10 (fabs (x))) : *place;
  return lead - *place < 17;
}

/* X at the precision of an interval of half width HALF: rounded at the
   second significant digit of HALF, outward for an interval's end (DIR
   -1 its low end, 1 its high end).  False where HALF is no width or
   that would ask for more than 17 digits.  */
bool
summary_number_rounded (double x, double half, int dir, char *buf, size_t size)
{
  int place;
  if (!half_place (x, half, 0, &place))
    return false;
  place_text (x, place, dir, buf, size);
  /* A number that is not 0 does not print as 0, nor change sign (a
     positive ratio's low end, 0.0025, is not "0.00").  */
  for (int extra = 1; extra < 17 && side (strtod (buf, NULL), 0) != side (x, 0)
         && half_place (x, half, extra, &place); extra++)
    place_text (x, place, dir, buf, size);
  return true;
}

/* The significant digits rounded_text gives X, or 0.  */
int
summary_number_rounded_digits (double x, double half)
{
  int place;
  if (!half_place (x, half, 0, &place))
    return 0;
  int lead = x != 0 ? (int) floor (log10 (fabs (x))) : place;
  return lead - place + 1;
}

static int
double_order (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

/* The fewest digits, at least LEAST, that print the different values
   among X[0..N) differently.  Values within 1e-12 relative of each other
   (rounding in the last bits, as 4.6 against 4.600000000000001) count
   as equal; 1e9 against 1e9 + 1 do not.  Sorts X.  */
int
summary_number_distinct (double *x, size_t n, int least)
{
  qsort (x, n, sizeof *x, double_order);
  int p = least;
  char a[48], b[48];
  for (size_t i = 1; i < n; i++)
    while (p < 17 && fabs (x[i] - x[i - 1]) > 1e-12 * fmax (fabs (x[i]), fabs (x[i - 1])))
      {
        summary_number_digits (x[i - 1], p, a, sizeof a);
        summary_number_digits (x[i], p, b, sizeof b);
        if (!STREQ (a, b))
          break;
        p++;
      }
  return p;
}

/* A p-value in two digits; below what a double holds, say so.  */
void
summary_number_p (double p, char *buf, size_t size)
{
  if (p == 0)
    snprintf (buf, size, "< 1e-300");
  else
    summary_number_digits (p, 2, buf, size);
}

/* X, LOW and HIGH at the interval's precision (two significant digits of
   its shorter half), the ends rounded outward, with digits added until
   each printed number lies on the same side of NUL (1 for a ratio, 0 for
   a difference) as the number itself: the printed interval excludes NUL
   exactly when the interval does.  Without a usable width, the fewest
   summary_number_digits (at least 3) that tell the three apart.  */
void
summary_number_interval (double x, double low, double high, double nul, char *tx, char *tl, char *th,
          size_t size)
{
  double half = summary_number_half (x, low, high);
  if (isnan (half))
    half = (high - low) / 2;
  int place;
  for (int extra = 0; extra < 17 && half_place (x, half, extra, &place)
         && half_place (low, half, extra, &place) && half_place (high, half, extra, &place);
       extra++)
    {
      place_text (x, place, 0, tx, size);
      place_text (low, place, -1, tl, size);
      place_text (high, place, 1, th, size);
      if (side (strtod (tx, NULL), nul) == side (x, nul)
          && side (strtod (tl, NULL), nul) == side (low, nul)
          && side (strtod (th, NULL), nul) == side (high, nul)
          && side (strtod (tl, NULL), 0) == side (low, 0)
          && side (strtod (th, NULL), 0) == side (high, 0))
        return;
    }
  double v[3] = { x, low, high };
  int k = summary_number_distinct (v, 3, 3);
  summary_number_digits (x, k, tx, size);
  summary_number_digits (low, k, tl, size);
  summary_number_digits (high, k, th, size);
}

/* P in two digits, more where two would put it on the other side of
   ALPHA (0.0499 is not "0.05" beside "shown at 95%").  */
void
summary_number_p_against (double p, double alpha, char *buf, size_t size)
{
  summary_number_p (p, buf, size);
  for (int k = 3; k <= 17 && p != 0 && (strtod (buf, NULL) < alpha) != (p < alpha); k++)
    summary_number_digits (p, k, buf, size);
}
