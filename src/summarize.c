/* summarize.c -- grouping benchmark rows and computing their summaries. */
#include "system.h"
#include "summarize.h"
#include "csv-reader.h"
#include "die.h"
#include "rng.h"
#include "stats.h"

#include <math.h>
#include <strings.h>

/* Open-addressing hash table from byte strings to indexes.  The key bytes
   live back to back in one buffer, so a new group costs no malloc.  */
struct key_entry
{
  uint64_t hash;
  size_t start, len, value;
};

struct key_table
{
  size_t *slots;                /* entry index + 1; 0 is empty */
  size_t mask;
  struct key_entry *entries;
  size_t count, capacity;
  char *bytes;
  size_t used, size;
};

static uint64_t
hash_bytes (const char *key, size_t len)
{
  /* FNV-1a, then a multiply-xorshift so the low bits used as the slot
     depend on every byte.  */
  uint64_t h = 0xcbf29ce484222325ULL;
  for (size_t i = 0; i < len; i++)
    h = (h ^ (unsigned char) key[i]) * 0x100000001b3ULL;
  h ^= h >> 32;
  h *= 0xd6e8feb86659fd93ULL;
  return h ^ (h >> 32);
}

static void
table_grow (struct key_table *t)
{
  size_t size = t->slots ? 2 * (t->mask + 1) : 64;
  free (t->slots);
  t->slots = xcalloc (size, sizeof *t->slots);
  t->mask = size - 1;
  for (size_t e = 0; e < t->count; e++)
    {
      size_t s = t->entries[e].hash & t->mask;
      while (t->slots[s])
        s = (s + 1) & t->mask;
      t->slots[s] = e + 1;
    }
}

/* The value stored for KEY, or NEXT after storing it there.  With NEXT
   SIZE_MAX, only look.  */
static size_t
table_intern (struct key_table *t, const char *key, size_t len, size_t next)
{
  if (!t->slots)
    table_grow (t);
  uint64_t h = hash_bytes (key, len);
  size_t s = h & t->mask;
  for (; t->slots[s]; s = (s + 1) & t->mask)
    {
      const struct key_entry *e = &t->entries[t->slots[s] - 1];
      if (e->hash == h && e->len == len
          && (len == 0 || memcmp (t->bytes + e->start, key, len) == 0))
        return e->value;
    }
  if (next == SIZE_MAX)
    return SIZE_MAX;
  if (t->count == t->capacity)
    {
      t->capacity = t->capacity ? 2 * t->capacity : 64;
      t->entries = xreallocarray (t->entries, t->capacity, sizeof *t->entries);
    }
  if (t->used + len > t->size)
    {
      while (t->used + len > t->size)
        t->size = t->size ? 2 * t->size : 4096;
      t->bytes = xrealloc (t->bytes, t->size);
    }
  if (len)                      /* no --by: the one key is empty */
    memcpy (t->bytes + t->used, key, len);
  t->entries[t->count] = (struct key_entry) { h, t->used, len, next };
  t->used += len;
  t->slots[s] = ++t->count;
  /* Keep the load under one half.  */
  if (2 * t->count > t->mask + 1)
    table_grow (t);
  return next;
}

static void
table_free (struct key_table *t)
{
  free (t->slots);
  free (t->entries);
  free (t->bytes);
}

/* A key made of several strings, each preceded by its length so that
   ("a,b", "c") and ("a", "b,c") differ.  */
struct key_buffer
{
  char *text;
  size_t used, size;
};

static void
key_add (struct key_buffer *k, const char *field, size_t len)
{
  size_t need = k->used + sizeof len + len;
  if (need > k->size)
    {
      while (need > k->size)
        k->size = k->size ? 2 * k->size : 256;
      k->text = xrealloc (k->text, k->size);
    }
  memcpy (k->text + k->used, &len, sizeof len);
  memcpy (k->text + k->used + sizeof len, field, len);
  k->used = need;
}

struct summarize_reader
{
  const struct summarize_options *options;
  char **header;                /* the first input's column names */
  size_t ncolumns;
  size_t *position;             /* column -> field position in this input */
  size_t *group_columns;        /* group name -> column */
  bool started;
  struct key_table groups;
  struct key_buffer key;
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
    die (EXIT_USAGE, 0, "%s: no column '%s' in the input", option, name);
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
      size_t column = require_column (r, "--compare", name);
      d->compare_level = xstrdup (eq + 1);
      /* Compared levels are groups of their own: add the column to the
         group columns unless --by already has it.  */
      d->compare_index = SIZE_MAX;
      for (size_t i = 0; i < d->ngroup_names; i++)
        if (r->group_columns[i] == column)
          d->compare_index = i;
      if (d->compare_index == SIZE_MAX)
        {
          d->compare_index = d->ngroup_names;
          r->group_columns[d->ngroup_names] = column;
          d->group_names[d->ngroup_names++] = xstrdup (name);
        }
      free (name);
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
      if (!is_group_column (d, r, i))
        add_value (d, r->header[i], i, 0, false, false);
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

/* A later input's header: the same names, perhaps in another order.  */
static void
later_header (struct summarize_reader *r, const struct csv_record *record)
{
  bool same = record->nfields == r->ncolumns;
  for (size_t i = 0; same && i < r->ncolumns; i++)
    {
      r->position[i] = SIZE_MAX;
      for (size_t f = 0; f < record->nfields; f++)
        if (STREQ (record->fields[f], r->header[i]))
          {
            r->position[i] = f;
            break;
          }
      same = r->position[i] != SIZE_MAX;
    }
  if (!same)
    die (EXIT_DATAERR, 0, "%s: line 1: the columns differ from those of the first input",
         record->source);
  /* Identical headers (duplicated names included) map one to one.  */
  bool identical = true;
  for (size_t i = 0; identical && i < r->ncolumns; i++)
    identical = STREQ (record->fields[i], r->header[i]);
  if (identical)
    for (size_t i = 0; i < r->ncolumns; i++)
      r->position[i] = i;
}

enum cell_kind { CELL_NUMBER, CELL_MISSING, CELL_BAD };

static const double powers_of_ten[] = {
  1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
  1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22
};

static bool
is_missing (const char *s, size_t len)
{
  return len == 0 || (len == 2 && s[0] == 'N' && s[1] == 'A')
    || (len == 3 && strcasecmp (s, "nan") == 0);
}

/* Parse a cell.  Plain decimals with at most 2^53 as mantissa and a
   power of ten up to 22 are exact in one multiply or divide (Clinger's
   fast path), which covers timings; anything else goes to strtod.  */
static enum cell_kind
parse_cell (const char *s, size_t len, double *value)
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
  char *stop;
  errno = 0;
  double d = strtod (s, &stop);
  while (stop < end && (*stop == ' ' || *stop == '\t'))
    stop++;
  if (stop == s || stop != end || !isfinite (d))
    return CELL_BAD;
  *value = d;
  return CELL_NUMBER;
}

static void
cell_push (struct summary_cell *c, double v)
{
  if (c->n == c->size)
    {
      c->size = c->size ? 2 * c->size : 16;
      c->values = xreallocarray (c->values, c->size, sizeof *c->values);
    }
  c->values[c->n++] = v;
}

static _Noreturn void
not_a_number (const struct csv_record *record, const char *column, const char *text)
{
  die (EXIT_DATAERR, 0, "line %zu, column '%s': '%s' is not a number",
       record->line, column, text);
}

/* An explicitly named column: anything but a number or a tolerated
   missing cell is an error.  */
static enum cell_kind
parse_named (const struct summarize_reader *r, const struct csv_record *record,
             size_t column, double *v)
{
  const char *text = record->fields[r->position[column]];
  size_t len = record->lengths[r->position[column]];
  enum cell_kind kind = parse_cell (text, len, v);
  if (kind == CELL_BAD || (kind == CELL_MISSING && r->options->strict))
    not_a_number (record, r->header[column], text);
  return kind;
}

static void
data_row (struct summary_data *d, struct summarize_reader *r,
          const struct csv_record *record)
{
  if (record->nfields != r->ncolumns)
    die (EXIT_DATAERR, 0, "%s: line %zu: expected %zu fields, found %zu",
         record->source, record->line, r->ncolumns, record->nfields);
  d->rows++;

  r->key.used = 0;
  for (size_t i = 0; i < d->ngroup_names; i++)
    {
      size_t f = r->position[r->group_columns[i]];
      key_add (&r->key, record->fields[f], record->lengths[f]);
    }
  size_t g = table_intern (&r->groups, r->key.text, r->key.used, d->ngroups);
  if (g == d->ngroups)
    {
      d->groups = xreallocarray (d->groups, d->ngroups + 1, sizeof *d->groups);
      struct summary_group *group = &d->groups[d->ngroups++];
      group->key = xcalloc (d->ngroup_names + 1, sizeof *group->key);
      for (size_t i = 0; i < d->ngroup_names; i++)
        group->key[i] = xstrdup (record->fields[r->position[r->group_columns[i]]]);
      group->cells = xcalloc (d->nvalues + 1, sizeof *group->cells);
    }
  struct summary_cell *cells = d->groups[g].cells;

  for (size_t v = 0; v < d->nvalues; v++)
    {
      struct summary_value *value = &d->values[v];
      double x;
      if (!value->numeric)
        continue;
      if (value->ratio)
        {
          double num, den;
          enum cell_kind kn = parse_named (r, record, value->num, &num);
          enum cell_kind kd = parse_named (r, record, value->den, &den);
          if (kn == CELL_MISSING || kd == CELL_MISSING)
            cells[v].missing++;
          else if (den == 0 || !isfinite (num / den))
            {
              /* No number: a zero denominator, or a quotient past DBL_MAX. */
              if (r->options->strict)
                die (EXIT_DATAERR, 0, "line %zu, column '%s': %s", record->line, value->name,
                     den == 0 ? "division by zero" : "the ratio overflows a double");
              cells[v].missing++;
            }
          else
            cell_push (&cells[v], num / den);
          continue;
        }
      if (value->explicit_)
        {
          if (parse_named (r, record, value->num, &x) == CELL_NUMBER)
            cell_push (&cells[v], x);
          else
            cells[v].missing++;
          continue;
        }
      /* Found by looking: one non-number and the column is not numeric.  */
      size_t f = r->position[value->num];
      switch (parse_cell (record->fields[f], record->lengths[f], &x))
        {
        case CELL_NUMBER:
          cell_push (&cells[v], x);
          break;
        case CELL_MISSING:
          if (r->options->strict)
            value->numeric = false;
          else
            cells[v].missing++;
          break;
        case CELL_BAD:
          value->numeric = false;
          break;
        }
    }
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
  d->compare_index = SIZE_MAX;
  return d;
}

void
summarize_read (struct summary_data *d, const char *path)
{
  struct csv_reader *reader = csv_reader_new (on_record, d);
  csv_reader_read_path (reader, path);
  csv_reader_free (reader);
}

void
summarize_finish (struct summary_data *d)
{
  if (d->rows == 0)
    die (EXIT_NOINPUT, 0, "no input rows");
  if (d->compare_level)
    {
      bool seen = false;
      for (size_t g = 0; g < d->ngroups && !seen; g++)
        seen = STREQ (d->groups[g].key[d->compare_index], d->compare_level);
      if (!seen)
        die (EXIT_USAGE, 0, "--compare: no row has %s=%s",
             d->group_names[d->compare_index], d->compare_level);
    }
  size_t numeric = 0;
  for (size_t v = 0; v < d->nvalues; v++)
    {
      struct summary_value *value = &d->values[v];
      if (value->numeric && !value->explicit_)
        {
          /* A column with no number at all is not numeric either.  */
          size_t n = 0;
          for (size_t g = 0; g < d->ngroups; g++)
            n += d->groups[g].cells[v].n;
          value->numeric = n > 0;
        }
      if (!value->numeric)
        for (size_t g = 0; g < d->ngroups; g++)
          {
            free (d->groups[g].cells[v].values);
            d->groups[g].cells[v] = (struct summary_cell) { 0 };
          }
      numeric += value->numeric;
    }
  if (numeric == 0)
    die (EXIT_DATAERR, 0, "no numeric column to summarize (name one with --value)");
  table_free (&d->reader->groups);
  d->reader->groups = (struct key_table) { 0 };
}

/* The seed of the stream for one group, column and purpose: every group
   draws the same numbers whatever else the input holds.  */
static uint64_t
stream_seed (uint64_t seed, const struct summary_data *d, size_t g,
             const char *column, char purpose)
{
  struct key_buffer k = { 0 };
  key_add (&k, &purpose, 1);
  key_add (&k, column, strlen (column));
  for (size_t i = 0; i < d->ngroup_names; i++)
    key_add (&k, d->groups[g].key[i], strlen (d->groups[g].key[i]));
  uint64_t h = hash_bytes (k.text, k.used);
  free (k.text);
  return h ^ (seed * 0x9e3779b97f4a7c15ULL + 0x632be59bd9b4e019ULL);
}

static double
median_sorted (const double *x, size_t n)
{
  size_t k = (n - 1) / 2;
  if (n % 2)
    return x[k];
  double m = (x[k] + x[k + 1]) / 2;
  return isfinite (m) ? m : x[k] / 2 + x[k + 1] / 2;
}

static void
compute_cell (struct summary_data *d, const struct summary_config *config,
              size_t g, size_t v, struct summary_row *row)
{
  struct summary_cell *cell = &d->groups[g].cells[v];
  double *x = cell->values;
  size_t n = cell->n;
  row->group = g;
  row->value = v;
  row->n = n;
  row->missing = cell->missing;
  row->percentiles = xcalloc (config->npercentiles + 1, sizeof *row->percentiles);
  row->mean = row->sd = row->se = row->min = row->median = row->max = NAN;
  row->ci_low = row->ci_high = NAN;
  row->ratio = row->ratio_low = row->ratio_high = row->p_welch = NAN;
  for (size_t i = 0; i < config->npercentiles; i++)
    row->percentiles[i] = NAN;
  if (n == 0)
    return;

  row->mean = stats_mean (x, n);
  row->sd = stats_sd (x, n, row->mean);
  row->se = row->sd / sqrt ((double) n);
  row->min = row->max = x[0];
  for (size_t i = 1; i < n; i++)
    {
      if (x[i] < row->min)
        row->min = x[i];
      if (x[i] > row->max)
        row->max = x[i];
    }

  double p[config->npercentiles + 1];
  for (size_t i = 0; i < config->npercentiles; i++)
    p[i] = config->percentiles[i] / 100;
  bool resample = config->bootstrap.resamples > 0 && n >= 2 && row->min < row->max;
  if (resample)
    {
      /* The bootstrap costs far more than a sort; sorted data also makes
         the interval independent of the order of rows within a group.  */
      stats_sort (x, n);
      row->median = median_sorted (x, n);
      for (size_t i = 0; i < config->npercentiles; i++)
        row->percentiles[i] = stats_quantile_sorted (x, n, p[i]);
      struct rng rng;
      rng_seed (&rng, stream_seed (config->seed, d, g, d->values[v].name, 'c'));
      bootstrap_ci (&config->bootstrap, config->ci_stat, x, n, &rng,
                    &row->ci_low, &row->ci_high);
    }
  else
    {
      row->median = stats_median (x, n);
      if (config->npercentiles)
        stats_quantiles (x, n, p, config->npercentiles, row->percentiles);
    }
}

/* Compare each group with the group that differs from it only by having
   the base level in the compared column.  */
static void
compare (struct summary_data *d, const struct summary_config *config,
         struct summary_row *rows, const size_t *row_of)
{
  struct key_table bases = { 0 };
  struct key_buffer k = { 0 };
  size_t ci = d->compare_index;
  for (int pass = 0; pass < 2; pass++)
    for (size_t g = 0; g < d->ngroups; g++)
      {
        char **key = d->groups[g].key;
        bool base = STREQ (key[ci], d->compare_level);
        if (base != (pass == 0))
          continue;
        k.used = 0;
        for (size_t i = 0; i < d->ngroup_names; i++)
          if (i != ci)
            key_add (&k, key[i], strlen (key[i]));
        if (pass == 0)
          {
            table_intern (&bases, k.text, k.used, g);
            continue;
          }
        size_t b = table_intern (&bases, k.text, k.used, SIZE_MAX);
        if (b == SIZE_MAX)
          continue;
        for (size_t v = 0; v < d->nvalues; v++)
          {
            if (!d->values[v].numeric)
              continue;
            struct summary_row *row = &rows[row_of[g * d->nvalues + v]];
            const struct summary_row *base_row = &rows[row_of[b * d->nvalues + v]];
            const struct summary_cell *cg = &d->groups[g].cells[v];
            const struct summary_cell *cb = &d->groups[b].cells[v];
            row->compared = true;
            if (cg->n && cb->n && base_row->mean != 0)
              row->ratio = row->mean / base_row->mean;
            row->p_welch = stats_welch_p (row->mean, row->sd, row->n,
                                          base_row->mean, base_row->sd, base_row->n);
            if (config->bootstrap.resamples && isfinite (row->ratio))
              {
                struct rng rng;
                rng_seed (&rng, stream_seed (config->seed, d, g, d->values[v].name, 'r'));
                bootstrap_ratio_ci (&config->bootstrap, cg->values, cg->n,
                                    cb->values, cb->n, &rng,
                                    &row->ratio_low, &row->ratio_high);
              }
          }
      }
  table_free (&bases);
  free (k.text);
}

struct summary_row *
summarize_compute (struct summary_data *d, const struct summary_config *config,
                   size_t *nrows)
{
  size_t count = 0;
  for (size_t v = 0; v < d->nvalues; v++)
    count += d->values[v].numeric;
  count *= d->ngroups;
  struct summary_row *rows = xcalloc (count + 1, sizeof *rows);
  size_t *row_of = xcalloc (d->ngroups * d->nvalues + 1, sizeof *row_of);
  size_t r = 0;
  for (size_t g = 0; g < d->ngroups; g++)
    for (size_t v = 0; v < d->nvalues; v++)
      if (d->values[v].numeric)
        {
          row_of[g * d->nvalues + v] = r;
          compute_cell (d, config, g, v, &rows[r++]);
        }
  if (d->compare_level)
    compare (d, config, rows, row_of);
  free (row_of);
  *nrows = count;
  return rows;
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
        free (d->groups[g].cells[v].values);
      free (d->groups[g].cells);
    }
  free (d->groups);
  for (size_t v = 0; v < d->nvalues; v++)
    free (d->values[v].name);
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
  table_free (&r->groups);
  free (r->key.text);
  free (r);
  free (d);
}
