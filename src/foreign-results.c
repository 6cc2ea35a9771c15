/* foreign-results.c -- hyperfine's and pytest-benchmark's JSON results
   as CSV records. */
#include "system.h"
#include "foreign-results.h"
#include "die.h"
#include "json-value.h"

/* One tool's shape: the array of entries, each entry's name and where
   its per-run times are, what else tells two entries of one name apart,
   and what to say where the times are missing.  */
struct foreign_format
{
  const char *tool;
  const char *list;             /* the root's array of entries */
  const char *name;             /* an entry's name (string) */
  const char *holder;           /* the object holding the times, or NULL: the entry */
  const char *times;            /* the array of times, in seconds */
  const char *identity;         /* the rest of an entry's identity: a string
                                   (pytest's fullname: module and test) or an
                                   object (hyperfine's parameters) */
  const char *missing;          /* why there is nothing to summarize without them */
};

static const struct foreign_format formats[] = {
  { "hyperfine", "results", "command", NULL, "times", "parameters",
    "hyperfine's JSON has no per-run times (results[].times): export it with "
    "hyperfine 1.2 or later" },
  { "pytest-benchmark", "benchmarks", "name", "stats", "data", "fullname",
    "pytest-benchmark's JSON has only summary statistics, no per-round times "
    "(benchmarks[].stats.data), and no interval can come from those: run it with "
    "--benchmark-save-data" },
};

/* An entry with runs: its label (the name, or the name with the rest of
   its identity where the name is shared), that rest, and its times.  */
struct foreign_entry
{
  size_t index;                 /* in the tool's list */
  const char *name;
  char *rest;                   /* NULL: none */
  char *label;
  const struct json_value *times;
};

/* One record of NFIELDS fields to FN.  */
static void
emit (csv_record_fn fn, void *context, const char *source, size_t line, char **fields,
      size_t nfields)
{
  size_t lengths[8];
  for (size_t i = 0; i < nfields; i++)
    lengths[i] = strlen (fields[i]);
  struct csv_record record = { source, line, nfields, fields, lengths };
  fn (&record, context);
}

/* The rest of an entry's identity as text (malloc'd), or NULL: a string
   as it is, an object as "key=value, ..." (hyperfine's parameters).  */
static char *
identity_text (const struct json_value *v)
{
  if (v && v->type == JSON_STRING && *v->string)
    return xstrdup (v->string);
  if (!v || v->type != JSON_OBJECT || v->n == 0)
    return NULL;
  size_t size = 1;
  for (size_t i = 0; i < v->n; i++)
    size += strlen (v->keys[i]) + 3 + 32
      + (v->items[i].type == JSON_STRING ? strlen (v->items[i].string) : 0);
  char *text = xmalloc (size), *p = text;
  for (size_t i = 0; i < v->n; i++)
    {
      const struct json_value *x = &v->items[i];
      p += sprintf (p, "%s%s=", i ? ", " : "", v->keys[i]);
      if (x->type == JSON_STRING)
        p += sprintf (p, "%s", x->string);
      else if (x->type == JSON_NUMBER)
        p += sprintf (p, "%.17g", x->number);
      else
        p += sprintf (p, "%s", x->type == JSON_BOOL ? (x->boolean ? "true" : "false")
                      : x->type == JSON_NULL ? "null" : "...");
    }
  return text;
}

static int
by_name (const void *a, const void *b)
{
  const struct foreign_entry *x = a, *y = b;
  int c = strcmp (x->name, y->name);
  return c ? c : (x->index > y->index) - (x->index < y->index);
}

static int
by_label (const void *a, const void *b)
{
  const struct foreign_entry *x = a, *y = b;
  int c = strcmp (x->label, y->label);
  return c ? c : (x->index > y->index) - (x->index < y->index);
}

/* Each entry's label: its name where no other entry has it; where some
   do, the name with the rest of its identity, said on stderr (pooled,
   their runs would read as one benchmark's).  Entries that still cannot
   be told apart are refused.  */
static void
label_entries (const struct foreign_format *f, const char *source, struct foreign_entry *e,
               size_t n)
{
  qsort (e, n, sizeof *e, by_name);
  for (size_t i = 0, j; i < n; i = j)
    {
      for (j = i + 1; j < n && STREQ (e[j].name, e[i].name); j++)
        continue;
      if (j - i == 1)
        {
          e[i].label = xstrdup (e[i].name);
          continue;
        }
      for (size_t k = i; k < j; k++)
        {
          if (!e[k].rest)
            die (EXIT_DATAERR, 0, "%s: %s's JSON: %s[%zu] and %s[%zu] are both %s, and "
                 "%s[%zu] has no \"%s\" to tell it apart: their runs would be pooled",
                 source, f->tool, f->list, e[i].index, f->list, e[i + 1].index,
                 quote (e[i].name), f->list, e[k].index, f->identity);
          /* pytest's fullname holds the name; hyperfine's parameters not.  */
          if (f->holder)
            e[k].label = xstrdup (e[k].rest);
          else
            {
              e[k].label = xmalloc (strlen (e[k].name) + strlen (e[k].rest) + 4);
              sprintf (e[k].label, "%s (%s)", e[k].name, e[k].rest);
            }
        }
      for (size_t k = i; k < j; k++)
        for (size_t m = k + 1; m < j; m++)
          if (STREQ (e[k].rest, e[m].rest))
            die (EXIT_DATAERR, 0, "%s: %s's JSON: %s[%zu] and %s[%zu] are both %s, of the "
                 "same \"%s\" (%s): their runs would be pooled", source, f->tool, f->list,
                 e[k].index, f->list, e[m].index, quote (e[k].name), f->identity,
                 quote (e[k].rest));
      warn (0, "%s: %s's JSON: %zu entries named %s, told apart by their \"%s\" (%s, %s%s)",
            source, f->tool, j - i, quote (e[i].name), f->identity, quote (e[i].label),
            quote (e[i + 1].label), j - i > 2 ? ", ..." : "");
    }
  qsort (e, n, sizeof *e, by_label);
  for (size_t i = 1; i < n; i++)
    if (STREQ (e[i].label, e[i - 1].label))
      die (EXIT_DATAERR, 0, "%s: %s's JSON: %s[%zu] and %s[%zu] are both %s: their runs "
           "would be pooled as one benchmark's", source, f->tool, f->list,
           e[i - 1].index, f->list, e[i].index, quote (e[i].label));
}

static int
by_index (const void *a, const void *b)
{
  const struct foreign_entry *x = a, *y = b;
  return (x->index > y->index) - (x->index < y->index);
}

void
foreign_results_read (char *text, size_t len, const char *source, size_t lines,
                      csv_record_fn fn, void *context)
{
  const char *why;
  size_t line;
  struct json_value *root = json_value_parse_consume (text, len, &why, &line);
  free (text);
  if (!root)
    die (EXIT_DATAERR, 0, "%s: line %zu: malformed JSON: %s", source, lines + line, why);
  const struct foreign_format *f = NULL;
  const struct json_value *list = NULL;
  for (size_t i = 0; i < ARRAY_SIZE (formats) && !f; i++)
    {
      list = json_value_get (root, formats[i].list);
      if (list && list->type == JSON_ARRAY)
        f = &formats[i];
    }
  if (!f)
    die (EXIT_DATAERR, 0, "%s: JSON, but neither hyperfine's (\"results\") nor "
         "pytest-benchmark's (\"benchmarks\"); give bench-summarize CSV", source);
  struct foreign_entry *entries = xreallocarray (NULL, list->n + 1, sizeof *entries);
  size_t n = 0;
  for (size_t e = 0; e < list->n; e++)
    {
      const struct json_value *entry = list->numbers ? NULL : &list->items[e];
      const struct json_value *name = json_value_get (entry, f->name);
      const struct json_value *holder = f->holder ? json_value_get (entry, f->holder) : entry;
      const struct json_value *times = json_value_get (holder, f->times);
      if (!name || name->type != JSON_STRING)
        die (EXIT_DATAERR, 0, "%s: %s's JSON: %s[%zu] has no \"%s\" string", source, f->tool,
             f->list, e, f->name);
      if (!times)
        {
          /* Nothing at all, or 0 rounds: an entry without runs, not a
             file of summary statistics.  */
          const struct json_value *rounds = json_value_get (holder, "rounds");
          bool none = !holder || holder->type == JSON_NULL
            || (holder->type == JSON_OBJECT && holder->n == 0)
            || (rounds && rounds->type == JSON_NUMBER && rounds->number == 0);
          if (!none)
            die (EXIT_DATAERR, 0, "%s: %s", source, f->missing);
        }
      else if (times->type != JSON_ARRAY)
        die (EXIT_DATAERR, 0, "%s: %s's JSON: %s[%zu] (%s): \"%s\" is not an array", source,
             f->tool, f->list, e, quote (name->string), f->times);
      if (!times || times->n == 0)
        {
          warn (0, "%s: %s's JSON: %s[%zu] (%s) has no runs: left out", source, f->tool,
                f->list, e, quote (name->string));
          continue;
        }
      for (size_t t = 0; !times->numbers && t < times->n; t++)
        if (times->items[t].type != JSON_NUMBER)
          die (EXIT_DATAERR, 0, "%s: %s's JSON: %s[%zu] (%s): time %zu is not a number",
               source, f->tool, f->list, e, quote (name->string), t);
      entries[n++] = (struct foreign_entry) {
        e, name->string, identity_text (json_value_get (entry, f->identity)), NULL, times };
    }
  label_entries (f, source, entries, n);
  qsort (entries, n, sizeof *entries, by_index);
  char *header[] = { (char *) f->name, (char *) "time_s" };
  emit (fn, context, source, 1, header, 2);
  size_t row = 1;
  for (size_t e = 0; e < n; e++)
    {
      const struct json_value *times = entries[e].times;
      for (size_t t = 0; t < times->n; t++)
        {
          char number[32];
          snprintf (number, sizeof number, "%.17g",
                    times->numbers ? times->numbers[t] : times->items[t].number);
          char *fields[] = { entries[e].label, number };
          emit (fn, context, source, ++row, fields, 2);
        }
      free (entries[e].rest);
      free (entries[e].label);
    }
  free (entries);
  json_value_free (root);
}
