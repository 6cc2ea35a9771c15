/* json-value.c -- a small reader of JSON text into a tree. */
#include "system.h"
#include "json-value.h"
#include "die.h"
#include "cell-parse.h"

#include <math.h>
#include <sys/mman.h>
#include <unistd.h>

struct json_parser
{
  const char *p, *end;
  size_t line;
  const char *why;
  char *kept;                   /* the text from here on is kept; NULL: all of it */
};

/* The pages of the text behind the parser back to the system, a MiB at
   a time: the tree grows as the text read shrinks, so the two at once
   take no more than the text alone.  */
static void
give_back (struct json_parser *j)
{
  if (!j->kept || j->p - j->kept < (1 << 20))
    return;
  uintptr_t page = (uintptr_t) sysconf (_SC_PAGESIZE);
  uintptr_t from = ((uintptr_t) j->kept + page - 1) & ~(page - 1);
  uintptr_t to = (uintptr_t) j->p & ~(page - 1);
  if (to > from)
    madvise ((void *) from, to - from, MADV_DONTNEED);
  j->kept = (char *) to;
}

static void
skip_space (struct json_parser *j)
{
  give_back (j);
  while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
    j->line += *j->p++ == '\n';
}

static bool
fail (struct json_parser *j, const char *why)
{
  if (!j->why)
    j->why = why;
  return false;
}

/* The value of 4 hex digits at P, or -1.  */
static long
hex4 (const char *p, const char *end)
{
  if (end - p < 4)
    return -1;
  long v = 0;
  for (int i = 0; i < 4; i++)
    {
      int c = p[i];
      int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
        : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
      if (d < 0)
        return -1;
      v = v * 16 + d;
    }
  return v;
}

static void
put_utf8 (char *out, size_t *n, unsigned long c)
{
  if (c < 0x80)
    out[(*n)++] = (char) c;
  else if (c < 0x800)
    {
      out[(*n)++] = (char) (0xc0 | c >> 6);
      out[(*n)++] = (char) (0x80 | (c & 0x3f));
    }
  else if (c < 0x10000)
    {
      out[(*n)++] = (char) (0xe0 | c >> 12);
      out[(*n)++] = (char) (0x80 | (c >> 6 & 0x3f));
      out[(*n)++] = (char) (0x80 | (c & 0x3f));
    }
  else
    {
      out[(*n)++] = (char) (0xf0 | c >> 18);
      out[(*n)++] = (char) (0x80 | (c >> 12 & 0x3f));
      out[(*n)++] = (char) (0x80 | (c >> 6 & 0x3f));
      out[(*n)++] = (char) (0x80 | (c & 0x3f));
    }
}

/* A string at J->p (its opening quote) into *OUT (malloc'd).  Escapes
   never lengthen the text, so the string's own text up to its closing
   quote bounds the result: sized by that, never by the rest of the
   input, which made reading quadratic in time and memory.  */
static bool
parse_string (struct json_parser *j, char **out)
{
  const char *p = ++j->p;
  const char *close = p;
  while (close < j->end && *close != '"')
    close += *close == '\\' ? 2 : 1;
  if (close > j->end)
    close = j->end;
  char *s = xmalloc ((size_t) (close - p) + 1);
  size_t n = 0;
  while (p < j->end && *p != '"')
    {
      unsigned char c = (unsigned char) *p;
      if (c < 0x20)
        {
          free (s);
          return fail (j, "a control character in a string");
        }
      if (c != '\\')
        {
          s[n++] = (char) c;
          p++;
          continue;
        }
      if (++p == j->end)
        break;
      static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
      const char *e = *p ? strchr (from, *p) : NULL;
      if (e)
        {
          s[n++] = to[e - from];
          p++;
          continue;
        }
      long u = *p == 'u' ? hex4 (p + 1, j->end) : -1;
      if (u < 0)
        {
          free (s);
          return fail (j, "a bad escape in a string");
        }
      p += 5;
      if (u >= 0xd800 && u < 0xdc00 && j->end - p >= 6 && p[0] == '\\' && p[1] == 'u')
        {
          long low = hex4 (p + 2, j->end);
          if (low >= 0xdc00 && low < 0xe000)
            {
              u = 0x10000 + ((u - 0xd800) << 10) + (low - 0xdc00);
              p += 6;
            }
        }
      put_utf8 (s, &n, (unsigned long) u);
    }
  if (p == j->end)
    {
      free (s);
      return fail (j, "an unterminated string");
    }
  s[n] = '\0';
  j->p = p + 1;
  *out = s;
  return true;
}

static bool parse_value (struct json_parser *j, struct json_value *v, int depth);

/* ITEMS of an array or members of an object, opening bracket at J->p.  */
static bool
parse_list (struct json_parser *j, struct json_value *v, int depth, bool object)
{
  char close = object ? '}' : ']';
  j->p++;
  size_t size = 0;
  skip_space (j);
  if (j->p < j->end && *j->p == close)
    {
      j->p++;
      return true;
    }
  for (;;)
    {
      if (v->n == size)
        {
          size = size ? 2 * size : 4;
          if (v->numbers)
            v->numbers = xreallocarray (v->numbers, size, sizeof *v->numbers);
          else
            v->items = xreallocarray (v->items, size, sizeof *v->items);
          if (object)
            v->keys = xreallocarray (v->keys, size, sizeof *v->keys);
        }
      skip_space (j);
      if (object)
        {
          if (j->p == j->end || *j->p != '"')
            return fail (j, "an object key that is not a string");
          if (!parse_string (j, &v->keys[v->n]))
            return false;
          skip_space (j);
          if (j->p == j->end || *j->p != ':')
            {
              free (v->keys[v->n]);
              return fail (j, "no ':' after an object key");
            }
          j->p++;
        }
      struct json_value item = { JSON_NULL, false, 0, NULL, 0, NULL, NULL, NULL };
      bool ok = parse_value (j, &item, depth + 1);
      if (!object && v->n == 0 && ok && item.type == JSON_NUMBER)
        {
          free (v->items);
          v->items = NULL;
          v->numbers = xreallocarray (NULL, size, sizeof *v->numbers);
        }
      if (v->numbers && item.type != JSON_NUMBER)
        {
          /* Numbers no more: the ones so far as items.  */
          v->items = xreallocarray (NULL, size, sizeof *v->items);
          for (size_t i = 0; i < v->n; i++)
            v->items[i] = (struct json_value) { .type = JSON_NUMBER, .number = v->numbers[i] };
          free (v->numbers);
          v->numbers = NULL;
        }
      if (v->numbers)
        v->numbers[v->n] = item.number;
      else
        v->items[v->n] = item;
      v->n++;
      if (!ok)
        return false;
      skip_space (j);
      if (j->p < j->end && *j->p == ',')
        {
          j->p++;
          continue;
        }
      if (j->p < j->end && *j->p == close)
        {
          j->p++;
          return true;
        }
      return fail (j, object ? "no ',' or '}' after an object member"
                   : "no ',' or ']' after an array item");
    }
}

static bool
parse_value (struct json_parser *j, struct json_value *v, int depth)
{
  if (depth > JSON_VALUE_DEPTH)
    return fail (j, "nested too deep");
  skip_space (j);
  if (j->p == j->end)
    return fail (j, "the text ends where a value should be");
  static const struct { const char *word; enum json_type type; bool value; } words[] = {
    { "true", JSON_BOOL, true }, { "false", JSON_BOOL, false }, { "null", JSON_NULL, false },
  };
  for (size_t i = 0; i < ARRAY_SIZE (words); i++)
    {
      size_t len = strlen (words[i].word);
      if ((size_t) (j->end - j->p) >= len && memcmp (j->p, words[i].word, len) == 0)
        {
          v->type = words[i].type;
          v->boolean = words[i].value;
          j->p += len;
          return true;
        }
    }
  switch (*j->p)
    {
    case '"':
      v->type = JSON_STRING;
      return parse_string (j, &v->string);
    case '[':
    case '{':
      v->type = *j->p == '{' ? JSON_OBJECT : JSON_ARRAY;
      return parse_list (j, v, depth, v->type == JSON_OBJECT);
    default:
      {
        /* JSON's number grammar, then strtod on exactly that text.  */
        const char *p = j->p;
        if (p < j->end && *p == '-')
          p++;
        const char *digits = p;
        while (p < j->end && *p >= '0' && *p <= '9')
          p++;
        if (p == digits || (*digits == '0' && p - digits > 1))
          return fail (j, "not a JSON value");
        if (p < j->end && *p == '.')
          {
            const char *f = ++p;
            while (p < j->end && *p >= '0' && *p <= '9')
              p++;
            if (p == f)
              return fail (j, "a number with no digits after its point");
          }
        if (p < j->end && (*p == 'e' || *p == 'E'))
          {
            p++;
            if (p < j->end && (*p == '+' || *p == '-'))
              p++;
            const char *e = p;
            while (p < j->end && *p >= '0' && *p <= '9')
              p++;
            if (p == e)
              return fail (j, "a number with no digits in its exponent");
          }
        char buf[512];
        if ((size_t) (p - j->p) >= sizeof buf)
          return fail (j, "a number too long");
        memcpy (buf, j->p, (size_t) (p - j->p));
        buf[p - j->p] = '\0';
        v->type = JSON_NUMBER;
        /* cell_parse gives strtod's bits, faster; strtod past DBL_MAX.  */
        if (cell_parse (buf, (size_t) (p - j->p), &v->number) != CELL_NUMBER)
          v->number = strtod (buf, NULL);
        j->p = p;
        return true;
      }
    }
}

static struct json_value *
parse (const char *text, size_t len, char *kept, const char **why, size_t *line)
{
  struct json_parser j = { text, text + len, 1, NULL, kept };
  struct json_value *v = xcalloc (1, sizeof *v);
  bool ok = parse_value (&j, v, 0);
  skip_space (&j);
  if (ok && j.p != j.end)
    ok = fail (&j, "text after the value");
  if (ok)
    return v;
  *why = j.why;
  *line = j.line;
  json_value_free (v);
  return NULL;
}

struct json_value *
json_value_parse (const char *text, size_t len, const char **why, size_t *line)
{
  return parse (text, len, NULL, why, line);
}

struct json_value *
json_value_parse_consume (char *text, size_t len, const char **why, size_t *line)
{
  /* Never the first page: malloc keeps its own words just before TEXT.  */
  long page = sysconf (_SC_PAGESIZE);
  return parse (text, len, page > 0 && len > (size_t) page ? text + page : NULL, why, line);
}

const struct json_value *
json_value_get (const struct json_value *object, const char *key)
{
  if (!object || object->type != JSON_OBJECT)
    return NULL;
  for (size_t i = 0; i < object->n; i++)
    if (STREQ (object->keys[i], key))
      return &object->items[i];
  return NULL;
}

static void
free_tree (struct json_value *v)
{
  for (size_t i = 0; i < v->n && v->items; i++)
    {
      free_tree (&v->items[i]);
      if (v->keys)
        free (v->keys[i]);
    }
  free (v->items);
  free (v->numbers);
  free (v->keys);
  free (v->string);
}

void
json_value_free (struct json_value *v)
{
  if (!v)
    return;
  free_tree (v);
  free (v);
}
