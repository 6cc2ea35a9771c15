/* summarize.c -- reading benchmark rows into groups of value columns. */
#include "system.h"
#include "summarize.h"
#include "cell-parse.h"
#include "csv-reader.h"
#include "die.h"
#include "foreign-results.h"
#include "key-table.h"

#include <math.h>
#include <strings.h>

struct summarize_reader
{
  const struct summarize_options *options;
  char **header;                /* the first input's column names */
  size_t ncolumns;
  size_t *position;             /* column -> field position in this input */
  size_t *group_columns;        /* group name -> column; SIZE_MAX: source */
  const char *level;            /* --baseline: this input's source level */
  bool started;
  struct key_table groups;
  struct key_buffer key;
  size_t pair_column;           /* --paired; SIZE_MAX without */
  struct key_table pair_keys;
  /* Without group columns, per input column: the first two different
     text cells, and how many cells were numbers and text.  */
  char **texts;
  size_t *numbers, *textual;
};

static size_t
column_index (const struct summarize_reader *r, const char *name)
{
  for (size_t i = 0; i < r->ncolumns; i++)
    if (STREQ (r->header[i], name))
      return i;
  return SIZE_MAX;
}

static size_t
require_column (const struct summarize_reader *r, const char *option, const char *name)
{
  size_t i = column_index (r, name);
  if (i == SIZE_MAX)
    die (EXIT_USAGE, 0, "%s: no column %s in the input", option, quote (name));
  return i;
}

static void
add_value (struct summary_data *d, const char *name, size_t num, size_t den,
           bool ratio, bool explicit_)
{
  d->values = xreallocarray (d->values, d->nvalues + 1, sizeof *d->values);
  d->values[d->nvalues++] = (struct summary_value) {
    .name = xstrdup (name), .num = num, .den = den, .ratio = ratio,
    .explicit_ = explicit_, .numeric = true,
  };
}

static bool
is_group_column (const struct summary_data *d, const struct summarize_reader *r, size_t column)
{
  for (size_t i = 0; i < d->ngroup_names; i++)
    if (r->group_columns[i] == column)
      return true;
  return false;
}

/* Make COLUMN (SIZE_MAX: the --baseline source) the compared one, adding
   it to the group columns unless --by already has it.  */
static void
set_compared (struct summary_data *d, struct summarize_reader *r, size_t column,
              const char *name, const char *level)
{
  d->compare_level = xstrdup (level);
  d->compare_index = SIZE_MAX;
  for (size_t i = 0; i < d->ngroup_names; i++)
    if (column != SIZE_MAX && r->group_columns[i] == column)
      d->compare_index = i;
  if (d->compare_index == SIZE_MAX)
    {
      d->compare_index = d->ngroup_names;
      r->group_columns[d->ngroup_names] = column;
      d->group_names[d->ngroup_names++] = xstrdup (name);
    }
}

/* The first header fixes the columns; resolve every option against it.  */
static void
first_header (struct summary_data *d, struct summarize_reader *r,
              const struct csv_record *record)
{
  const struct summarize_options *o = r->options;
  r->ncolumns = record->nfields;
  r->header = xcalloc (r->ncolumns, sizeof *r->header);
  r->position = xcalloc (r->ncolumns, sizeof *r->position);
  for (size_t i = 0; i < r->ncolumns; i++)
    {
      r->header[i] = xstrdup (record->fields[i]);
      r->position[i] = i;
    }

  size_t ngroups = o->nby + 1;
  d->group_names = xcalloc (ngroups, sizeof *d->group_names);
  r->group_columns = xcalloc (ngroups, sizeof *r->group_columns);
  for (size_t i = 0; i < o->nby; i++)
    {
      r->group_columns[i] = require_column (r, "--by", o->by[i]);
      d->group_names[d->ngroup_names++] = xstrdup (o->by[i]);
    }
  if (o->compare)
    {
      const char *eq = strchr (o->compare, '=');
      char *name = xstrdup (o->compare);
      name[eq - o->compare] = '\0';
      set_compared (d, r, require_column (r, "--compare", name), name, eq + 1);
      free (name);
    }
  else if (o->baseline)
    {
      if (column_index (r, SUMMARY_BASELINE_COLUMN) != SIZE_MAX)
        die (EXIT_USAGE, 0, "--baseline: the input has a column '%s' already",
             SUMMARY_BASELINE_COLUMN);
      set_compared (d, r, SIZE_MAX, SUMMARY_BASELINE_COLUMN, SUMMARY_BASELINE_LEVEL);
    }

  r->pair_column = SIZE_MAX;
  if (o->paired)
    {
      r->pair_column = require_column (r, "--paired", o->paired);
      d->paired = true;
      if (is_group_column (d, r, r->pair_column))
        die (EXIT_USAGE, 0, "--paired: %s is a group column; pairs are found within a group",
             quote (o->paired));
    }
  if (o->value)
    for (size_t i = 0; i < o->nvalue; i++)
      {
        /* A --ratio column may be named in --value too; it is added below. */
        bool is_ratio = false;
        for (size_t k = 0; k < o->nratio; k++)
          is_ratio |= STREQ (o->value[i], o->ratio[k]);
        if (!is_ratio)
          add_value (d, o->value[i], require_column (r, "--value", o->value[i]), 0,
                     false, true);
      }
  else
    for (size_t i = 0; i < r->ncolumns; i++)
      if (!is_group_column (d, r, i) && i != r->pair_column)
        {
          /* A column named as a value is a value, never an identifier. */
          bool named = false;
          for (size_t k = 0; k < o->nnamed; k++)
            named |= STREQ (o->named[k], r->header[i]);
          add_value (d, r->header[i], i, 0, false, named);
        }
  for (size_t i = 0; i < o->nratio; i++)
    {
      char *num = xstrdup (o->ratio[i]);
      char *slash = strchr (num, '/');
      *slash = '\0';
      size_t n = require_column (r, "--ratio", num);
      size_t dd = require_column (r, "--ratio", slash + 1);
      add_value (d, o->ratio[i], n, dd, true, true);
      free (num);
    }
}

/* FIELD of RECORD, less a UTF-8 byte order mark at the start of a line
   (a concatenated file's header keeps the one the reader skips only at
   the start of its input).  */
static const char *
header_field (const struct csv_record *record, size_t field)
{
  const char *s = record->fields[field];
  return field == 0 && memcmp (s, "\xef\xbb\xbf", 3) == 0 ? s + 3 : s;
}

/* Map the first input's columns to RECORD's fields by name into
   POSITION; false unless RECORD holds the same names, in any order.  */
static bool
header_map (const struct summarize_reader *r, const struct csv_record *record,
            size_t *position)
{
  if (record->nfields != r->ncolumns)
    return false;
  /* Identical headers (duplicated names included) map one to one.  */
  bool identical = true;
  for (size_t i = 0; identical && i < r->ncolumns; i++)
    identical = STREQ (header_field (record, i), r->header[i]);
  for (size_t i = 0; i < r->ncolumns; i++)
    {
      position[i] = SIZE_MAX;
      for (size_t f = 0; f < record->nfields; f++)
        if (identical ? f == i : STREQ (header_field (record, f), r->header[i]))
          {
            position[i] = f;
            break;
          }
      if (position[i] == SIZE_MAX)
        return false;
    }
  return true;
}

/* A later input's header: the same names, perhaps in another order.  */
static void
later_header (struct summarize_reader *r, const struct csv_record *record)
{
  if (!header_map (r, record, r->position))
    die (EXIT_DATAERR, 0, "%s: line 1: the columns differ from those of the first input",
         record->source);
}

/* A data line that repeats the header, as concatenated run reports
   have, in this input's order or another: the rows after it are read by
   its order.  */
static bool
is_header_again (struct summarize_reader *r, const struct csv_record *record)
{
  size_t position[r->ncolumns + 1];
  if (!header_map (r, record, position))
    return false;
  memcpy (r->position, position, r->ncolumns * sizeof *position);
  return true;
}

/* Add V, and with --paired (PAIR not SIZE_MAX) its row's key.  */
static void
cell_push (struct summary_cell *c, double v, size_t pair)
{
  if (c->n == c->size)
    {
      c->size = c->size ? 2 * c->size : 16;
      c->values = xreallocarray (c->values, c->size, sizeof *c->values);
      if (pair != SIZE_MAX)
        {
          c->pair_values = xreallocarray (c->pair_values, c->size, sizeof *c->pair_values);
          c->pair_keys = xreallocarray (c->pair_keys, c->size, sizeof *c->pair_keys);
        }
    }
  if (pair != SIZE_MAX)
    {
      c->pair_values[c->n] = v;
      c->pair_keys[c->n] = pair;
    }
  c->values[c->n++] = v;
}

static const char *
cell_complaint (enum cell_kind kind)
{
  return kind == CELL_TEXT ? "is not a number"
    : kind == CELL_INFINITE ? "is infinite" : "is missing";
}

/* Remember where a bad cell of VALUE was, for the warning or error.  */
static void
note_cell (struct summary_value *value, const struct csv_record *record, const char *text)
{
  if (value->nnotes == SUMMARY_CELL_NOTES)
    return;
  value->notes[value->nnotes++] = (struct cell_note) {
    xstrdup (record->source), record->line, xstrdup (text)
  };
}

/* Count a cell of KIND in VALUE; dies at once where the column is
   known to be summarized and strictness forbids the cell.  */
static void
count_cell (struct summary_value *value, const struct summarize_reader *r,
            const struct csv_record *record, const char *column, const char *text,
            enum cell_kind kind)
{
  if (kind == CELL_NUMBER)
    {
      value->numbers++;
      return;
    }
  bool bad = kind != CELL_MISSING || r->options->strict;
  if (!bad)
    return;
  if (value->explicit_ && r->options->strict)
    die (EXIT_DATAERR, 0, "%s: line %zu, column %s: %s %s", record->source,
         record->line, quote (column), quote (text), cell_complaint (kind));
  value->texts += kind == CELL_TEXT;
  value->infinite += kind == CELL_INFINITE;

  note_cell (value, record, text);
}

/* Each column's text cells, for warn_pooled.  */
static void
note_texts (struct summarize_reader *r, const struct csv_record *record)
{
  if (!r->texts)
    {
      r->texts = xcalloc (2 * r->ncolumns + 1, sizeof *r->texts);
      r->numbers = xcalloc (r->ncolumns + 1, sizeof *r->numbers);
      r->textual = xcalloc (r->ncolumns + 1, sizeof *r->textual);
    }
  for (size_t c = 0; c < r->ncolumns; c++)
    {
      size_t f = r->position[c];
      double x;
      enum cell_kind kind = cell_parse (record->fields[f], record->lengths[f], &x);
      r->numbers[c] += kind == CELL_NUMBER;
      if (kind != CELL_TEXT)
        continue;
      r->textual[c]++;
      char **seen = &r->texts[2 * c];
      if (!seen[1] && !(seen[0] && STREQ (seen[0], record->fields[f])))
        seen[seen[0] != NULL] = xstrdup (record->fields[f]);
    }
}

static void
data_row (struct summary_data *d, struct summarize_reader *r,
          const struct csv_record *record)
{
  if (record->nfields != r->ncolumns)
    die (EXIT_DATAERR, 0, "%s: line %zu: expected %zu fields, found %zu",
         record->source, record->line, r->ncolumns, record->nfields);
  if (is_header_again (r, record))
    {
      d->repeated_headers++;
      return;
    }
  d->rows++;

  r->key.used = 0;
  for (size_t i = 0; i < d->ngroup_names; i++)
    {
      size_t c = r->group_columns[i];
      if (c == SIZE_MAX)
        key_buffer_add (&r->key, r->level, strlen (r->level));
      else
        key_buffer_add (&r->key, record->fields[r->position[c]], record->lengths[r->position[c]]);
    }
  size_t g = key_table_intern (&r->groups, r->key.text, r->key.used, d->ngroups);
  if (g == d->ngroups)
    {
      d->groups = xreallocarray (d->groups, d->ngroups + 1, sizeof *d->groups);
      struct summary_group *group = &d->groups[d->ngroups++];
      group->key = xcalloc (d->ngroup_names + 1, sizeof *group->key);
      for (size_t i = 0; i < d->ngroup_names; i++)
        {
          size_t c = r->group_columns[i];
          group->key[i] = xstrdup (c == SIZE_MAX ? r->level : record->fields[r->position[c]]);
        }
      group->cells = xcalloc (d->nvalues + 1, sizeof *group->cells);
    }
  struct summary_cell *cells = d->groups[g].cells;
  size_t pair = SIZE_MAX;
  if (r->pair_column != SIZE_MAX)
    {
      size_t f = r->position[r->pair_column];
      pair = key_table_intern (&r->pair_keys, record->fields[f], record->lengths[f],
                               d->npair_keys);
      d->npair_keys += pair == d->npair_keys;
    }

  /* A hook's rows (ranks) differ by design: no pooling to warn of.  */
  if (d->ngroup_names == 0 && !r->options->row_hook)
    note_texts (r, record);
  for (size_t v = 0; v < d->nvalues; v++)
    {
      struct summary_value *value = &d->values[v];
      size_t f = r->position[value->num];
      const char *text = record->fields[f];
      double x;
      enum cell_kind kind = cell_parse (text, record->lengths[f], &x);
      if (value->ratio)
        {
          size_t fd = r->position[value->den];
          double den;
          enum cell_kind kd = cell_parse (record->fields[fd], record->lengths[fd], &den);
          if (kind == CELL_NUMBER && kd != CELL_NUMBER)
            kind = kd, text = record->fields[fd];
          else if (kind == CELL_NUMBER && (den == 0 || !isfinite (x / den)))
            {
              /* No number: a zero denominator, or a quotient past DBL_MAX. */
              if (r->options->strict)
                die (EXIT_DATAERR, 0, "%s: line %zu, column %s: %s", record->source,
                     record->line, quote (value->name),
                     den == 0 ? "division by zero" : "the ratio overflows a double");
              cells[v].missing++;
              continue;
            }
          else if (kind == CELL_NUMBER)
            x /= den;
        }
      count_cell (value, r, record, value->name, text, kind);
      if (kind == CELL_NUMBER && !(x > 0) && !value->nonpositive.source)
        {
          /* For --log-scale's error, which names it once columns are
             chosen.  */
          value->nonpositive = (struct cell_note) { xstrdup (record->source), record->line,
                                                    xstrdup (text) };
          value->nonpositive_group = g;
        }
      if (kind == CELL_NUMBER)
        cell_push (&cells[v], x, pair);
      else
        cells[v].missing++;
    }
  if (r->options->row_hook)
    r->options->row_hook (d, record, r->position, g, r->options->row_context);
}

static void
on_record (const struct csv_record *record, void *context)
{
  struct summary_data *d = context;
  struct summarize_reader *r = d->reader;
  if (record->line == 1)
    {
      if (!r->started)
        first_header (d, r, record);
      else
        later_header (r, record);
      r->started = true;
      return;
    }
  data_row (d, r, record);
}

struct summary_data *
summarize_new (const struct summarize_options *options)
{
  struct summary_data *d = xcalloc (1, sizeof *d);
  d->reader = xcalloc (1, sizeof *d->reader);
  d->reader->options = options;
  d->reader->level = SUMMARY_CANDIDATE_LEVEL;
  d->compare_index = SIZE_MAX;
  return d;
}

size_t
summarize_column (const struct summary_data *d, const char *name)
{
  return column_index (d->reader, name);
}

/* Other tools' JSON results, as rows (foreign-results.c).  */
static void
on_json (char *text, size_t len, const char *source, size_t lines, void *context)
{
  foreign_results_read (text, len, source, lines, on_record, context);
}

void
summarize_read (struct summary_data *d, const char *path)
{
  struct csv_reader *reader = csv_reader_new (on_record, d);
  csv_reader_on_json (reader, on_json);
  csv_reader_read_path (reader, path);
  csv_reader_free (reader);
}

void
summarize_read_all (struct summary_data *d, char **paths, size_t npaths)
{
  if (d->reader->options->baseline)
    {
      d->reader->level = SUMMARY_BASELINE_LEVEL;
      summarize_read (d, d->reader->options->baseline);
      d->reader->level = SUMMARY_CANDIDATE_LEVEL;
    }
  if (npaths == 0)
    summarize_read (d, "-");
  for (size_t i = 0; i < npaths; i++)
    summarize_read (d, paths[i]);
}

/* Why a default column is configuration or an identifier rather than a
   measurement, or NULL.  Constant within every group (with some group
   of two values or more), or integers that, within every group in row
   order, climb by one constant step and may wrap back to the group's
   first value (sequence numbers, slots, offsets, trials), with some
   group of three values or more.  */
static const char *
identifier_reason (const struct summary_data *d, size_t v)
{
  bool constant = true, key = true, pairs = false, triples = false;
  for (size_t g = 0; g < d->ngroups; g++)
    {
      const struct summary_cell *c = &d->groups[g].cells[v];
      pairs |= c->n >= 2;
      triples |= c->n >= 3;
      double step = 0;
      for (size_t i = 0; i < c->n; i++)
        {
          double x = c->values[i];
          constant &= x == c->values[0];
          key &= x == floor (x) && fabs (x) < 9007199254740992.0;
          if (i == 0 || x == c->values[0])
            continue;
          if (step == 0)
            step = x - c->values[i - 1];
          key &= step != 0 && x == c->values[i - 1] + step;
        }
    }
  if (constant && pairs)
    return "constant within every group";
  if (key && triples && !constant)
    return "an integer key";
  return NULL;
}

static void
warn_cells (const struct summary_value *value, bool strict)
{
  for (size_t i = 0; i < value->nnotes; i++)
    {
      const struct cell_note *note = &value->notes[i];
      enum cell_kind kind = cell_parse (note->text, strlen (note->text), &(double) { 0 });
      if (strict)
        die (EXIT_DATAERR, 0, "%s: line %zu, column %s: %s %s", note->source,
             note->line, quote (value->name), quote (note->text), cell_complaint (kind));
      warn (0, "%s: line %zu, column %s: %s %s (counted as missing)", note->source,
            note->line, quote (value->name), quote (note->text), cell_complaint (kind));
    }
  size_t more = value->texts + value->infinite - value->nnotes;
  if (value->texts + value->infinite > value->nnotes)
    warn (0, "column %s: %zu more cells that are not finite numbers (counted as missing)",
          quote (value->name), more);
}

/* --log-scale: every summarized value above 0, or an error naming the
   first that is not, where it is and its group.  */
static void
require_positive (const struct summary_data *d)
{
  for (size_t v = 0; v < d->nvalues; v++)
    {
      const struct summary_value *value = &d->values[v];
      if (!value->numeric || !value->nonpositive.source)
        continue;
      char where[512];
      summary_where (d, value->nonpositive_group, SIZE_MAX, where, sizeof where);
      die (EXIT_DATAERR, 0, "%s: line %zu, column %s: --log-scale needs values above 0, "
           "got %s (%sin every row)", value->nonpositive.source, value->nonpositive.line,
           quote (value->name), quote (value->nonpositive.text), where);
    }
}

void
summary_where (const struct summary_data *d, size_t group, size_t skip, char *where,
               size_t size)
{
  size_t used = 0;
  where[0] = '\0';
  for (size_t i = 0; i < d->ngroup_names && used < size; i++)
    if (i != skip)
      used += (size_t) snprintf (where + used, size - used, "%s=%s, ",
                                 quotef (d->group_names[i]), quotef (d->groups[group].key[i]));
}

/* Which way is better for a column, from its unit: the longest suffix
   that matches.  Rates (a count or size per time) are better higher,
   times better lower (1 and -1: faster, slower); efficiencies higher and
   error counts lower (2 and -2: better, worse); "_bytes", "_items" and
   the like say neither.  */
static const struct
{
  const char *suffix;
  int better;
} better_suffixes[] = {
  { "_per_s", 1 }, { "_per_sec", 1 }, { "per_second", 1 }, { "_per_ms", 1 }, { "_per_us", 1 },
  { "_per_ns", 1 }, { "gb_s", 1 }, { "gib_s", 1 }, { "mb_s", 1 }, { "mib_s", 1 },
  { "kb_s", 1 }, { "kib_s", 1 }, { "tb_s", 1 }, { "gbps", 1 }, { "mbps", 1 }, { "kbps", 1 },
  { "gbit_s", 1 }, { "_ops", 1 }, { "iops", 1 }, { "flops", 1 }, { "_hz", 1 },
  { "throughput", 1 }, { "bandwidth", 1 }, { "speedup", 1 },
  { "_s", -1 }, { "_sec", -1 }, { "_secs", -1 }, { "seconds", -1 }, { "_ms", -1 },
  { "_us", -1 }, { "_ns", -1 }, { "_ps", -1 }, { "_time", -1 }, { "latency", -1 },
  { "elapsed", -1 }, { "duration", -1 }, { "_cycles", -1 },
  /* Better or worse, neither faster nor slower.  */
  { "efficiency", 2 }, { "mismatches", -2 }, { "_errors", -2 },
};
/* Whole names: a suffix with its underscore dropped.  */
static const struct
{
  const char *name;
  int better;
} better_names[] = {
  { "s", -1 }, { "sec", -1 }, { "ms", -1 }, { "us", -1 }, { "ns", -1 }, { "time", -1 },
  { "ops", 1 }, { "hz", 1 }, { "rate", 1 },
  /* d2h-overlap's transfer time hidden behind compute: more is better.  */
  { "hidden_ms", 2 },
};

int
summary_better_by_name (const char *name)
{
  size_t len = strlen (name), best = 0;
  int better = 0;
  for (size_t i = 0; i < ARRAY_SIZE (better_names); i++)
    if (strcasecmp (name, better_names[i].name) == 0)
      return better_names[i].better;
  for (size_t i = 0; i < ARRAY_SIZE (better_suffixes); i++)
    {
      size_t k = strlen (better_suffixes[i].suffix);
      if (len >= k && k > best && strcasecmp (name + len - k, better_suffixes[i].suffix) == 0)
        best = k, better = better_suffixes[i].better;
    }
  return better;
}

/* Each column's way of better: --higher-is-better and
   --lower-is-better first, else its unit.  A name given that is no
   column is an error.  */
static void
choose_better (struct summary_data *d)
{
  const struct summarize_options *o = d->reader->options;
  for (size_t v = 0; v < d->nvalues; v++)
    {
      struct summary_value *value = &d->values[v];
      if (!value->ratio)
        {
          value->better = summary_better_by_name (value->name);
          continue;
        }
      /* NUM/DEN is better higher where NUM is or DEN is not: a time
         over a time (serialized_ms/concurrent_ms) says neither.  */
      char *num = xstrdup (value->name), *den = strchr (num, '/');
      *den++ = '\0';
      int bn = summary_better_by_name (num), bd = summary_better_by_name (den);
      value->better = bn == -bd ? bn : bd == 0 ? bn : bn == 0 ? -bd : 0;
      free (num);
    }
  for (int way = 0; way < 2; way++)
    {
      char **names = way ? o->lower : o->higher;
      size_t n = way ? o->nlower : o->nhigher;
      for (size_t i = 0; i < n; i++)
        {
          bool found = false;
          for (size_t v = 0; v < d->nvalues; v++)
            if (STREQ (d->values[v].name, names[i]))
              {
                d->values[v].better = way ? -2 : 2;
                found = true;
              }
          if (!found)
            die (EXIT_USAGE, 0, "%s: no column %s in the input",
                 way ? "--lower-is-better" : "--higher-is-better", quote (names[i]));
        }
    }
}

/* Without group columns every row is pooled: a text column whose rows
   differ (hyperfine's and pytest-benchmark's CSV name a command or a
   test in each row) would have different things averaged together
   without a word.  */
static void
warn_pooled (struct summary_data *d)
{
  struct summarize_reader *r = d->reader;
  if (d->ngroup_names > 0 || !r->texts)
    return;
  for (size_t c = 0; c < r->ncolumns; c++)
    {
      /* A column summarized is a measurement, its text cells missing.  */
      bool summarized = false;
      for (size_t v = 0; v < d->nvalues; v++)
        summarized |= d->values[v].numeric && d->values[v].num == c;
      char *const *seen = &r->texts[2 * c];
      if (summarized || !seen[1] || r->textual[c] < r->numbers[c])
        continue;
      warn (0, "column %s differs between rows (%s, %s, ...) but no --by names it: their "
            "numbers are pooled into one summary (--by %s keeps them apart)",
            quote (r->header[c]), quote (seen[0]), quote (seen[1]), quotef (r->header[c]));
    }
  for (size_t c = 0; c < 2 * r->ncolumns; c++)
    free (r->texts[c]);
  free (r->texts);
  free (r->numbers);
  free (r->textual);
  r->texts = NULL;
}

void
summarize_finish (struct summary_data *d)
{
  if (d->rows == 0)
    die (EXIT_NOINPUT, 0, "no input rows");
  if (d->compare_level && !d->reader->options->baseline)
    {
      bool seen = false;
      for (size_t g = 0; g < d->ngroups && !seen; g++)
        seen = STREQ (d->groups[g].key[d->compare_index], d->compare_level);
      if (!seen)
        die (EXIT_USAGE, 0, "--compare: no row has %s=%s",
             d->group_names[d->compare_index], d->compare_level);
    }

  /* A default column is a measurement when most of its cells are
     numbers; all-text columns (names, notes) are not.  */
  size_t numeric = 0, measured = 0;
  for (size_t v = 0; v < d->nvalues; v++)
    {
      struct summary_value *value = &d->values[v];
      if (!value->explicit_)
        value->numeric = value->numbers > 0 && value->numbers >= value->texts;
      if (value->numeric && !value->explicit_)
        value->left_out = identifier_reason (d, v);
      numeric += value->numeric;
      measured += value->numeric && !value->left_out;
    }
  if (numeric == 0)
    die (EXIT_DATAERR, 0, "no numeric column to summarize (name one with --value)");
  /* Left out only when something else is left to summarize.  */
  char *list = NULL;
  size_t used = 0;
  for (size_t v = 0; v < d->nvalues; v++)
    {
      struct summary_value *value = &d->values[v];
      if (!value->left_out)
        continue;
      if (measured == 0)
        {
          value->left_out = NULL;
          continue;
        }
      value->numeric = false;
      size_t add = strlen (value->name) + strlen (value->left_out) + 8;
      list = xrealloc (list, used + add);
      used += (size_t) sprintf (list + used, "%s%s (%s)", used ? ", " : "", value->name,
                                value->left_out);
    }
  if (list)
    warn (0, "not summarized, as identifiers or configuration (name them with --value): %s",
          list);
  free (list);
  for (size_t v = 0; v < d->nvalues; v++)
    {
      struct summary_value *value = &d->values[v];
      if (value->numeric)
        warn_cells (value, d->reader->options->strict);
      else
        for (size_t g = 0; g < d->ngroups; g++)
          {
            free (d->groups[g].cells[v].values);
            free (d->groups[g].cells[v].pair_values);
            free (d->groups[g].cells[v].pair_keys);
            d->groups[g].cells[v] = (struct summary_cell) { 0 };
          }
    }
  warn_pooled (d);
  if (d->reader->options->log_scale)
    require_positive (d);
  choose_better (d);
  if (d->reader->options->baseline)
    {
      bool base = false, candidate = false;
      for (size_t g = 0; g < d->ngroups; g++)
        {
          bool b = STREQ (d->groups[g].key[d->compare_index], SUMMARY_BASELINE_LEVEL);
          base |= b;
          candidate |= !b;
        }
      if (!base || !candidate)
        die (EXIT_NOINPUT, 0, "--baseline: no %s rows", base ? "candidate" : "baseline");
    }
  key_table_free (&d->reader->groups);
}

void
summarize_free (struct summary_data *d, struct summary_row *rows, size_t nrows)
{
  for (size_t i = 0; i < nrows; i++)
    free (rows[i].percentiles);
  free (rows);
  if (!d)
    return;
  for (size_t g = 0; g < d->ngroups; g++)
    {
      for (size_t i = 0; i < d->ngroup_names; i++)
        free (d->groups[g].key[i]);
      free (d->groups[g].key);
      for (size_t v = 0; v < d->nvalues; v++)
        {
          free (d->groups[g].cells[v].values);
          free (d->groups[g].cells[v].pair_values);
          free (d->groups[g].cells[v].pair_keys);
        }
      free (d->groups[g].cells);
    }
  free (d->groups);
  for (size_t v = 0; v < d->nvalues; v++)
    {
      free (d->values[v].name);
      for (size_t i = 0; i < d->values[v].nnotes; i++)
        {
          free (d->values[v].notes[i].source);
          free (d->values[v].notes[i].text);
        }
      free (d->values[v].nonpositive.source);
      free (d->values[v].nonpositive.text);
    }
  free (d->values);
  for (size_t i = 0; i < d->ngroup_names; i++)
    free (d->group_names[i]);
  free (d->group_names);
  free (d->compare_level);
  struct summarize_reader *r = d->reader;
  for (size_t i = 0; i < r->ncolumns; i++)
    free (r->header[i]);
  free (r->header);
  free (r->position);
  free (r->group_columns);
  key_table_free (&r->groups);
  key_table_free (&r->pair_keys);
  free (r->key.text);
  free (r);
  free (d);
}
