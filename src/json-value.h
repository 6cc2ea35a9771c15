/* json-value.h -- a small reader of JSON text into a tree, for the
   results other tools export (hyperfine's --export-json,
   pytest-benchmark's --benchmark-json).  RFC 8259: objects, arrays,
   strings (every escape; \u escapes, surrogate pairs too, to UTF-8),
   numbers (as strtod reads them), true, false and null; nesting up to
   JSON_VALUE_DEPTH.  Read-only: no writer, no edits.  Time and memory
   are linear in the text: a string costs its own length, an array of
   numbers 8 bytes an item.  */
#ifndef ARENABENCH_JSON_VALUE_H
#define ARENABENCH_JSON_VALUE_H

#include <stdbool.h>
#include <stddef.h>

enum { JSON_VALUE_DEPTH = 64 };
enum json_type { JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT };

struct json_value
{
  enum json_type type;
  bool boolean;
  double number;
  char *string;                 /* JSON_STRING, NUL-terminated */
  size_t n;                     /* items (and keys of an object) */
  char **keys;                  /* JSON_OBJECT */
  struct json_value *items;     /* JSON_ARRAY, JSON_OBJECT */
  double *numbers;              /* JSON_ARRAY of numbers only (then ITEMS is
                                   NULL): 8 bytes an item, not a node each */
};

/* The tree of TEXT[0..LEN), or NULL with *WHY (static) and *LINE set.  */
struct json_value *json_value_parse (const char *text, size_t len, const char **why,
                                     size_t *line);

/* The same of TEXT, malloc'd, whose pages behind the parser go back to
   the system as it reads (their bytes read as zero after): for a text
   that is freed once parsed, so that the text and its tree never both
   take memory whole.  */
struct json_value *json_value_parse_consume (char *text, size_t len, const char **why,
                                             size_t *line);

/* The member KEY of OBJECT (the first), or NULL (OBJECT NULL or not an
   object too).  */
const struct json_value *json_value_get (const struct json_value *object, const char *key);

void json_value_free (struct json_value *v);

#endif
