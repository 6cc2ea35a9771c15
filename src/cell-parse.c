/* cell-parse.c -- numbers, missing values, infinities and text in cells. */
#include "system.h"
#include "cell-parse.h"

#include <math.h>
#include <strings.h>

static const double powers_of_ten[] = {
  1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
  1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22
};

static bool
is_missing (const char *s, size_t len)
{
  if (len > 1 && (s[0] == '-' || s[0] == '+'))
    s++, len--;
  return len == 0 || (len == 2 && s[0] == 'N' && s[1] == 'A')
    || (len == 3 && strncasecmp (s, "nan", 3) == 0);
}

static bool
is_infinity (const char *s, size_t len)
{
  if (len && (s[0] == '-' || s[0] == '+'))
    s++, len--;
  return (len == 3 && strncasecmp (s, "inf", 3) == 0)
    || (len == 8 && strncasecmp (s, "infinity", 8) == 0);
}

/* Plain decimals with at most 2^53 as mantissa and a power of ten up to
   22 are exact in one multiply or divide (Clinger's fast path), which
   covers timings; anything else goes to strtod.  */
enum cell_kind
cell_parse (const char *s, size_t len, double *value)
{
  const char *p = s, *end = s + len;
  bool negative = false;
  if (p < end && (*p == '-' || *p == '+'))
    negative = *p++ == '-';
  uint64_t mantissa = 0;
  int exponent = 0;
  bool digits = false;
  for (; p < end && (unsigned) (*p - '0') < 10; p++, digits = true)
    {
      if (mantissa >= 100000000000000000ULL)
        goto slow;
      mantissa = mantissa * 10 + (unsigned) (*p - '0');
    }
  if (p < end && *p == '.')
    for (p++; p < end && (unsigned) (*p - '0') < 10; p++, digits = true)
      {
        if (mantissa >= 100000000000000000ULL)
          goto slow;
        mantissa = mantissa * 10 + (unsigned) (*p - '0');
        exponent--;
      }
  if (!digits)
    goto slow;
  if (p < end && (*p == 'e' || *p == 'E'))
    {
      p++;
      bool minus = false;
      if (p < end && (*p == '-' || *p == '+'))
        minus = *p++ == '-';
      if (p == end || (unsigned) (*p - '0') >= 10)
        goto slow;
      int e = 0;
      for (; p < end && (unsigned) (*p - '0') < 10; p++)
        {
          if (e > 10000)
            goto slow;
          e = e * 10 + (*p - '0');
        }
      exponent += minus ? -e : e;
    }
  if (p != end || mantissa > (1ULL << 53) || exponent < -22 || exponent > 22)
    goto slow;
  double v = (double) mantissa;
  v = exponent < 0 ? v / powers_of_ten[-exponent] : v * powers_of_ten[exponent];
  *value = negative ? -v : v;
  return CELL_NUMBER;

slow:
  if (is_missing (s, len))
    return CELL_MISSING;
  if (is_infinity (s, len))
    return CELL_INFINITE;
  /* strtod reads hexadecimal too; no decimal holds an x.  */
  if (memchr (s, 'x', len) || memchr (s, 'X', len))
    return CELL_TEXT;
  char *stop;
  errno = 0;
  double d = strtod (s, &stop);
  while (stop < end && (*stop == ' ' || *stop == '\t'))
    stop++;
  if (stop == s || stop != end)
    return CELL_TEXT;
  if (isnan (d))
    return CELL_MISSING;      /* nan(chars) */
  if (!isfinite (d))
    return CELL_INFINITE;     /* 1e999 and the like: past DBL_MAX */
  *value = d;
  return CELL_NUMBER;
}
