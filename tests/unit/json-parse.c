/* json-value.c -- unit tests of the JSON reader: every rule of RFC 8259's
   grammar the reader enforces gives its own reason (a leading zero, text
   after the value, nesting at and past the limit, a \u escape cut short),
   escapes and surrogate pairs decode to the exact UTF-8, and numbers are
   strtod's.  Each case names the mutant class it stands against.  */
#include "system.h"
#include "die.h"
#include "json-value.h"
#include "tap.h"

/* The reason TEXT[0..LEN) is refused, or "ok".  */
static const char *
why_len (const char *text, size_t len)
{
  const char *why = NULL;
  size_t line = 0;
  struct json_value *v = json_value_parse (text, len, &why, &line);
  if (!v)
    return why;
  json_value_free (v);
  return "ok";
}

static const char *
why (const char *text)
{
  return why_len (text, strlen (text));
}

/* K arrays nested, innermost empty.  */
static const char *
nested (size_t k)
{
  char *text = xmalloc (2 * k + 1);
  memset (text, '[', k);
  memset (text + k, ']', k);
  const char *r = why_len (text, 2 * k);
  free (text);
  return r;
}

/* The string value of TEXT (a JSON string), or NULL.  */
static char *
string_of (const char *text)
{
  const char *w;
  size_t line;
  struct json_value *v = json_value_parse (text, strlen (text), &w, &line);
  if (!v || v->type != JSON_STRING)
    {
      json_value_free (v);
      return NULL;
    }
  char *s = xstrdup (v->string);
  json_value_free (v);
  return s;
}

static int
string_is (const char *text, const char *want)
{
  char *s = string_of (text);
  int pass = s && STREQ (s, want);
  ok (pass, "%s reads as the expected bytes", text);
  free (s);
  return pass;
}

int
main (void)
{
  /* Nesting: 65 arrays put the innermost at depth 64, the limit.  */
  ok (STREQ (nested (65), "ok"), "65 nested arrays (depth 64) are read: %s", nested (65));
  ok (STREQ (nested (66), "nested too deep"), "66 are nested too deep: %s", nested (66));
  ok (STREQ (nested (200000), "nested too deep"), "200000 are refused, no stack overflow");

  /* Numbers: the grammar, then strtod on exactly that text.  */
  ok (STREQ (why ("01"), "not a JSON value"), "a leading zero is refused: %s", why ("01"));
  ok (STREQ (why ("-01"), "not a JSON value"), "and after a minus: %s", why ("-01"));
  ok (STREQ (why ("0"), "ok") && STREQ (why ("-0.5e+2"), "ok"), "0 and -0.5e+2 are numbers");
  ok (STREQ (why ("1."), "a number with no digits after its point"), "1. : %s", why ("1."));
  ok (STREQ (why ("1e+"), "a number with no digits in its exponent"), "1e+ : %s", why ("1e+"));
  ok (STREQ (why ("-"), "not a JSON value"), "- alone: %s", why ("-"));
  {
    const char *w;
    size_t line;
    const char *text = "[0.1, 12345678901234567, -2.5e-3]";
    struct json_value *v = json_value_parse (text, strlen (text), &w, &line);
    ok (v && v->type == JSON_ARRAY && v->n == 3 && v->numbers && v->numbers[0] == 0.1
        && v->numbers[1] == 12345678901234567.0 && v->numbers[2] == -2.5e-3,
        "numbers are strtod's, exactly");
    json_value_free (v);
  }

  /* Text after the value, wherever it is.  */
  ok (STREQ (why ("{} x"), "text after the value"), "{} x: %s", why ("{} x"));
  ok (STREQ (why ("[1] [2]"), "text after the value"), "[1] [2]: %s", why ("[1] [2]"));
  ok (STREQ (why ("  {}\n\t "), "ok"), "blanks around the value are fine");
  ok (STREQ (why (""), "the text ends where a value should be"), "empty text: %s", why (""));

  /* Strings: escapes, \u, surrogate pairs, control characters.  */
  string_is ("\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\"", "a\"b\\c/d\b\f\n\r\t");
  string_is ("\"\\u00e9\\u0800\\u20ac\"", "\xc3\xa9\xe0\xa0\x80\xe2\x82\xac");
  string_is ("\"\\ud83d\\ude00\"", "\xf0\x9f\x98\x80");
  string_is ("\"\\uDBFF\\uDFFF\"", "\xf4\x8f\xbf\xbf");
  ok (STREQ (why ("\"a\tb\""), "a control character in a string"), "a tab in a string: %s",
      why ("\"a\tb\""));
  ok (STREQ (why ("\"\\x\""), "a bad escape in a string"), "\\x: %s", why ("\"\\x\""));
  ok (STREQ (why ("\"\\u12g4\""), "a bad escape in a string"), "\\u12g4: %s",
      why ("\"\\u12g4\""));
  /* A \u with three digits before the end: the bytes after the end are
     never read, even where they would complete it.  */
  ok (STREQ (why_len ("\"\\u1234\"", 6), "a bad escape in a string"),
      "\\u cut short by the end: %s", why_len ("\"\\u1234\"", 6));
  ok (STREQ (why ("\"abc"), "an unterminated string"), "unterminated: %s", why ("\"abc"));

  /* Objects: keys and members.  */
  ok (STREQ (why ("{1: 2}"), "an object key that is not a string"), "{1: 2}: %s",
      why ("{1: 2}"));
  ok (STREQ (why ("{\"a\" 2}"), "no ':' after an object key"), "{\"a\" 2}: %s",
      why ("{\"a\" 2}"));
  ok (STREQ (why ("{\"a\": 2 \"b\": 3}"), "no ',' or '}' after an object member"),
      "a missing comma: %s", why ("{\"a\": 2 \"b\": 3}"));
  ok (STREQ (why ("[1 2]"), "no ',' or ']' after an array item"), "[1 2]: %s", why ("[1 2]"));
  {
    const char *w;
    size_t line;
    const char *text = "{\"a\": true, \"b\": [null, false], \"a\": 3}";
    struct json_value *v = json_value_parse (text, strlen (text), &w, &line);
    const struct json_value *a = json_value_get (v, "a"), *b = json_value_get (v, "b");
    ok (a && a->type == JSON_BOOL && a->boolean, "the first of two equal keys");
    ok (b && b->type == JSON_ARRAY && b->n == 2 && b->items[0].type == JSON_NULL
        && b->items[1].type == JSON_BOOL && !b->items[1].boolean, "null and false in order");
    ok (!json_value_get (v, "c") && !json_value_get (b, "a") && !json_value_get (NULL, "a"),
        "a missing key, an array, NULL: no member");
    json_value_free (v);
  }
  {
    const char *w = NULL;
    size_t line = 0;
    ok (!json_value_parse ("{\n\"a\":\n[1,\n]}", 13, &w, &line) && line == 4
        && STREQ (w, "not a JSON value"), "the line of the fault is counted (%zu)", line);
  }
  tap_plan (tap_count);
  return tap_failed != 0;
}
