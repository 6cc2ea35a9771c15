/* foreign-results.c -- hyperfine's and pytest-benchmark's JSON results
   as CSV records. */
#include "system.h"
#include "foreign-results.h"
#include "die.h"
#include "json-value.h"

/* One tool's shape: the array of entries, each entry's name and where
   its per-run times are, and what to say where they are missing.  */
struct foreign_format
{
  const char *tool;
  const char *list;             /* the root's array of entries */
  const char *name;             /* an entry's name (string) */
  const char *holder;           /* the object holding the times, or NULL: the entry */
  const char *times;            /* the array of times, in seconds */
  const char *missing;          /* why there is nothing to summarize without them */
};

static const struct foreign_format formats[] = {
  { "hyperfine", "results", "command", NULL, "times",
    "hyperfine's JSON has no per-run times (results[].times): export it with "
    "hyperfine 1.2 or later" },
  { "pytest-benchmark", "benchmarks", "name", "stats", "data",
    "pytest-benchmark's JSON has only summary statistics, no per-round times "
    "(benchmarks[].stats.data), and no interval can come from those: run it with "
    "--benchmark-save-data" },
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

void
foreign_results_read (char *text, size_t len, const char *source, size_t lines,
                      csv_record_fn fn, void *context)
{
  const char *why;
  size_t line;
  struct json_value *root = json_value_parse (text, len, &why, &line);
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
  char *header[] = { (char *) f->name, (char *) "time_s" };
  emit (fn, context, source, 1, header, 2);
  size_t row = 1;
  for (size_t e = 0; e < list->n; e++)
    {
      const struct json_value *entry = &list->items[e];
      const struct json_value *name = json_value_get (entry, f->name);
      const struct json_value *holder = f->holder ? json_value_get (entry, f->holder) : entry;
      const struct json_value *times = json_value_get (holder, f->times);
      if (!name || name->type != JSON_STRING)
        die (EXIT_DATAERR, 0, "%s: %s's JSON: %s[%zu] has no \"%s\" string", source, f->tool,
             f->list, e, f->name);
      if (!times || times->type != JSON_ARRAY)
        die (EXIT_DATAERR, 0, "%s: %s", source, f->missing);
      for (size_t t = 0; t < times->n; t++)
        {
          if (!times->numbers && times->items[t].type != JSON_NUMBER)
            die (EXIT_DATAERR, 0, "%s: %s's JSON: %s[%zu] (%s): time %zu is not a number",
                 source, f->tool, f->list, e, quote (name->string), t);
          char number[32];
          snprintf (number, sizeof number, "%.17g",
                    times->numbers ? times->numbers[t] : times->items[t].number);
          char *fields[] = { name->string, number };
          emit (fn, context, source, ++row, fields, 2);
        }
    }
  json_value_free (root);
}
