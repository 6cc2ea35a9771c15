/* summary-text.c -- text as terminals and JSON take it: UTF-8 decoded,
   display widths, JSON strings. */
#include "system.h"
#include "summary-text.h"

/* The length of the valid UTF-8 sequence at S (1 to 4) with its code
   point in *CP, or 0 where S holds no valid sequence (a stray
   continuation byte, a truncated or overlong sequence, a surrogate,
   beyond U+10FFFF).  */
static size_t
utf8_decode (const unsigned char *s, unsigned long *cp)
{
  static const unsigned long least[] = { 0, 0, 0x80, 0x800, 0x10000 };
  size_t len = s[0] < 0x80 ? 1 : (s[0] & 0xe0) == 0xc0 ? 2 : (s[0] & 0xf0) == 0xe0 ? 3
    : (s[0] & 0xf8) == 0xf0 ? 4 : 0;
  if (len == 0)
    return 0;
  unsigned long c = len == 1 ? s[0] : s[0] & (0x7f >> len);
  for (size_t i = 1; i < len; i++)
    {
      if ((s[i] & 0xc0) != 0x80)
        return 0;
      c = c << 6 | (s[i] & 0x3f);
    }
  if (c < least[len] || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
    return 0;
  *cp = c;
  return len;
}

/* Columns a code point takes on a terminal: 2 for the East Asian wide
   and fullwidth ranges and emoji, 0 for combining marks, else 1.  */
static int
code_point_width (unsigned long c)
{
  static const unsigned long wide[][2] = {
    { 0x1100, 0x115f }, { 0x2e80, 0x303e }, { 0x3041, 0x33ff }, { 0x3400, 0x4dbf },
    { 0x4e00, 0x9fff }, { 0xa000, 0xa4cf }, { 0xac00, 0xd7a3 }, { 0xf900, 0xfaff },
    { 0xfe30, 0xfe4f }, { 0xff00, 0xff60 }, { 0xffe0, 0xffe6 }, { 0x1f300, 0x1f64f },
    { 0x1f900, 0x1f9ff }, { 0x20000, 0x3fffd },
  };
  if ((c >= 0x300 && c <= 0x36f) || (c >= 0x200b && c <= 0x200f))
    return 0;
  for (size_t i = 0; i < ARRAY_SIZE (wide); i++)
    if (c >= wide[i][0] && c <= wide[i][1])
      return 2;
  return 1;
}

/* The terminal columns of S: invalid bytes count one each, as the
   replacement character a terminal shows.  */
size_t
summary_text_width (const char *s)
{
  size_t width = 0;
  const unsigned char *p = (const unsigned char *) s;
  while (*p)
    {
      unsigned long c;
      size_t len = utf8_decode (p, &c);
      width += len ? (size_t) code_point_width (c) : 1;
      p += len ? len : 1;
    }
  return width;
}

/* A JSON string: valid UTF-8 as it is, control characters escaped, and
   each byte of invalid UTF-8 as U+FFFD, so the output is valid JSON
   whatever the input held.  */
void
summary_text_json (FILE *out, const char *s)
{
  putc ('"', out);
  const unsigned char *p = (const unsigned char *) s;
  while (*p)
    {
      unsigned long c;
      size_t len = utf8_decode (p, &c);
      if (len == 0)
        fputs ("\\ufffd", out);
      else if (c == '"' || c == '\\')
        fprintf (out, "\\%c", (int) c);
      else if (c == '\n')
        fputs ("\\n", out);
      else if (c < 0x20)
        fprintf (out, "\\u%04lx", c);
      else
        fwrite (p, 1, len, out);
      p += len ? len : 1;
    }
  putc ('"', out);
}
