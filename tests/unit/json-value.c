/* json-value.c -- unit tests of the JSON reader: escapes to UTF-8,
   arrays of numbers held as doubles (and turned back into items when a
   non-number follows), malformed text with its line, and a string's
   memory bounded by its own length.  */
#include "system.h"
#include "json-value.h"
#include "die.h"
#include "tap.h"

#ifdef __GLIBC__
# include <malloc.h>
#endif

/* Bytes malloc has handed out and not had back (0 where unknown).  */
static size_t
allocated (void)
{
#ifdef __GLIBC__
  struct mallinfo2 m = mallinfo2 ();
  return m.uordblks + m.hblkhd;
#else
  return 0;
#endif
}

static struct json_value *
parse (const char *text, const char **why, size_t *line)
{
  *why = NULL;
  *line = 0;
  return json_value_parse (text, strlen (text), why, line);
}

int
main (void)
{
  const char *why;
  size_t line;

  struct json_value *v = parse (" {\"a\\\"b\": \"x\\u00e9\\ud83d\\ude00\\n\\/\", \"n\": [1, 2.5, -3e2]} ",
                                &why, &line);
  const struct json_value *s = json_value_get (v, "a\"b");
  ok (s && s->type == JSON_STRING && STREQ (s->string, "x\xc3\xa9\xf0\x9f\x98\x80\n/"),
      "escapes, a surrogate pair to UTF-8");
  const struct json_value *n = json_value_get (v, "n");
  ok (n && n->type == JSON_ARRAY && n->n == 3 && n->numbers && !n->items
      && n->numbers[0] == 1 && n->numbers[1] == 2.5 && n->numbers[2] == -300,
      "an array of numbers held as doubles");
  json_value_free (v);

  /* Many numbers, past every growth of the array.  */
  char big[8192] = "[";
  for (int i = 0; i < 1000; i++)
    snprintf (big + strlen (big), sizeof big - strlen (big), "%s%d", i ? "," : "", i);
  strcat (big, "]");
  v = parse (big, &why, &line);
  bool all = v && v->n == 1000 && v->numbers;
  for (int i = 0; all && i < 1000; i++)
    all = v->numbers[i] == i;
  ok (all, "1000 numbers in order");
  json_value_free (v);

  v = parse ("[1, 2, \"three\", 4, null]", &why, &line);
  ok (v && v->n == 5 && !v->numbers && v->items[0].type == JSON_NUMBER
      && v->items[1].number == 2 && v->items[2].type == JSON_STRING
      && v->items[3].number == 4 && v->items[4].type == JSON_NULL,
      "numbers then a string: every item a node");
  json_value_free (v);

  v = parse ("[\"a\", 1]", &why, &line);
  ok (v && v->n == 2 && !v->numbers && v->items[1].type == JSON_NUMBER, "a string then a number");
  json_value_free (v);

  v = parse ("[]", &why, &line);
  ok (v && v->type == JSON_ARRAY && v->n == 0, "an empty array");
  json_value_free (v);

  v = parse ("[1e999]", &why, &line);
  ok (v && v->numbers && isinf (v->numbers[0]), "a number past DBL_MAX is inf, as strtod");
  json_value_free (v);

  ok (!parse ("{\"a\":\n[1, 2,\n x]}", &why, &line) && line == 3 && STREQ (why, "not a JSON value"),
      "malformed: the line and why");
  ok (!parse ("[1, 2", &why, &line) && STREQ (why, "no ',' or ']' after an array item"),
      "an array not closed");
  ok (!parse ("[1, \"ab", &why, &line) && STREQ (why, "an unterminated string"),
      "an unterminated string");
  ok (!parse ("[\"ab\\", &why, &line) && STREQ (why, "an unterminated string"),
      "a string ending in a backslash");
  ok (!parse ("[\"\\u12\"]", &why, &line) && STREQ (why, "a bad escape in a string"),
      "a short \\u escape");

  /* 20000 strings in a text of 200 KB: a string that took the rest of
     the text took 2 GB in all; the tree is under 4 MB.  */
  size_t count = 20000, size = count * 10 + 3;
  char *text = xmalloc (size);
  size_t used = 0;
  text[used++] = '[';
  for (size_t i = 0; i < count; i++)
    used += (size_t) snprintf (text + used, size - used, "%s\"s%06zu\"", i ? "," : "", i);
  text[used++] = ']';
  size_t before = allocated ();
  v = json_value_parse (text, used, &why, &line);
  size_t grew = allocated () - before;
  ok (v && v->n == count && STREQ (v->items[count - 1].string, "s019999"), "20000 strings");
  ok (grew < (4u << 20), "their tree took %zu bytes (under 4 MB)", grew);
  json_value_free (v);
  free (text);

  tap_plan (tap_count);
  return tap_failed != 0;
}
