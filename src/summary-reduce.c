/* summary-reduce.c -- per-rank rows reduced by a named rule, every rank
   shown beside the aggregate. */
#include "system.h"
#include "summary-reduce.h"
#include "cell-parse.h"
#include "csv-reader.h"
#include "csv-writer.h"
#include "die.h"
#include "options.h"
#include "summarize.h"

#include <limits.h>
#include <math.h>

const char *const summary_reduce_names[REDUCE_RULE_COUNT + 1] = {
  "sum", "min", "mean", "max", "slowest", NULL,
};

struct entry
{
  long rank;
  char *host, *device;          /* NULL: no such column */
  long world_size;              /* -1: no such column, or empty */
  double *values;
  char *source;
  size_t line;
};

struct group
{
  char **key;                   /* the --by cells */
  struct entry *entries;
  size_t n, size;
};

struct reader
{
  const struct summary_reduce_options *o;
  /* This file's column of each name (SIZE_MAX: none).  */
  size_t rank, host, device, world, *by, *value;
  struct group *groups;
  size_t ngroups;
};

static size_t
find_column (const struct csv_record *record, const char *name)
{
  for (size_t f = 0; f < record->nfields; f++)
    if (STREQ (record->fields[f], name))
      return f;
  return SIZE_MAX;
}

static size_t
need_column (const struct csv_record *record, const char *option, const char *name)
{
  size_t f = find_column (record, name);
  if (f == SIZE_MAX)
    die (EXIT_USAGE, 0, "%s: no column %s in %s", option, quote (name), record->source);
  return f;
}

/* A file's header: where its columns are (files may order them
   differently).  */
static void
read_header (struct reader *r, const struct csv_record *record)
{
  r->rank = need_column (record, "--reduce", "rank");
  r->host = find_column (record, "host");
  r->device = find_column (record, "device");
  r->world = find_column (record, "world_size");
  for (size_t i = 0; i < r->o->nby; i++)
    r->by[i] = need_column (record, "--by", r->o->by[i]);
  for (size_t i = 0; i < r->o->nvalue; i++)
    r->value[i] = need_column (record, "--value", r->o->value[i]);
}

static struct group *
group_of (struct reader *r, const struct csv_record *record)
{
  for (size_t g = 0; g < r->ngroups; g++)
    {
      size_t i = 0;
      while (i < r->o->nby && STREQ (r->groups[g].key[i], record->fields[r->by[i]]))
        i++;
      if (i == r->o->nby)
        return &r->groups[g];
    }
  r->groups = xreallocarray (r->groups, r->ngroups + 1, sizeof *r->groups);
  struct group *g = &r->groups[r->ngroups++];
  *g = (struct group) { .key = xcalloc (r->o->nby + 1, sizeof *g->key) };
  for (size_t i = 0; i < r->o->nby; i++)
    g->key[i] = xstrdup (record->fields[r->by[i]]);
  return g;
}

/* "repeat=1, phase=together" for messages, or "the input".  */
static void
group_where (const struct summary_reduce_options *o, const struct group *g, char *buf,
             size_t size)
{
  size_t n = 0;
  snprintf (buf, size, "%s", o->nby ? "" : "the input");
  for (size_t i = 0; i < o->nby && n < size; i++)
    n += (size_t) snprintf (buf + n, size - n, "%s%s=%s", i ? ", " : "", o->by[i],
                            quotef (g->key[i]));
}

static void
on_record (const struct csv_record *record, void *context)
{
  struct reader *r = context;
  if (record->line == 1)
    {
      read_header (r, record);
      return;
    }
  /* A header again (reports appended to one file): skip it.  */
  if (STREQ (record->fields[r->rank < record->nfields ? r->rank : 0], "rank"))
    return;
  size_t need = r->rank;
  for (size_t i = 0; i < r->o->nby; i++)
    need = r->by[i] > need ? r->by[i] : need;
  for (size_t i = 0; i < r->o->nvalue; i++)
    need = r->value[i] > need ? r->value[i] : need;
  if (record->nfields <= need)
    die (EXIT_DATAERR, 0, "%s: line %zu: too few fields (%zu)", record->source, record->line,
         record->nfields);
  struct entry e = { .world_size = -1, .line = record->line };
  uint64_t rank;
  if (!options_parse_uint (record->fields[r->rank], LONG_MAX, &rank))
    die (EXIT_DATAERR, 0, "%s: line %zu, column 'rank': %s is not a rank", record->source,
         record->line, quote (record->fields[r->rank]));
  e.rank = (long) rank;
  uint64_t world;
  if (r->world < record->nfields
      && options_parse_uint (record->fields[r->world], LONG_MAX, &world))
    e.world_size = (long) world;
  struct group *g = group_of (r, record);
  for (size_t i = 0; i < g->n; i++)
    if (g->entries[i].rank == e.rank)
      {
        char where[512];
        group_where (r->o, g, where, sizeof where);
        die (EXIT_DATAERR, 0, "%s: line %zu: rank %ld appears twice in %s (first at %s line %zu)",
             record->source, record->line, e.rank, where, g->entries[i].source,
             g->entries[i].line);
      }
  e.values = xcalloc (r->o->nvalue, sizeof *e.values);
  for (size_t i = 0; i < r->o->nvalue; i++)
    {
      const char *text = record->fields[r->value[i]];
      /* A missing rank's value would drop that rank from the aggregate
         unseen.  */
      if (cell_parse (text, record->lengths[r->value[i]], &e.values[i]) != CELL_NUMBER)
        {
          free (e.values);
          die (EXIT_DATAERR, 0, "%s: line %zu, column %s: %s is not a number: every rank's "
               "value is needed", record->source, record->line, quote (r->o->value[i]),
               quote (text));
        }
    }
  e.host = r->host < record->nfields ? xstrdup (record->fields[r->host]) : NULL;
  e.device = r->device < record->nfields ? xstrdup (record->fields[r->device]) : NULL;
  e.source = xstrdup (record->source);
  if (g->n == g->size)
    g->entries = xreallocarray (g->entries, g->size = 2 * g->size + 4, sizeof *g->entries);
  g->entries[g->n++] = e;
}

static int
by_rank (const void *a, const void *b)
{
  long x = ((const struct entry *) a)->rank, y = ((const struct entry *) b)->rank;
  return (x > y) - (x < y);
}

/* Which way is better for value column I: 1 higher, -1 lower, 0 unknown. */
static int
better (const struct summary_reduce_options *o, size_t i)
{
  for (size_t k = 0; k < o->nhigher; k++)
    if (STREQ (o->higher[k], o->value[i]))
      return 1;
  for (size_t k = 0; k < o->nlower; k++)
    if (STREQ (o->lower[k], o->value[i]))
      return -1;
  return summary_better_by_name (o->value[i]);
}

/* The aggregate of value I over G's ranks, and the index of the entry
   that set it (SIZE_MAX: all did).  */
static double
reduce_one (const struct summary_reduce_options *o, const struct group *g, size_t i,
            size_t *setter)
{
  enum reduce_rule rule = o->rule;
  int way = better (o, i);
  bool rate = rule == REDUCE_SLOWEST && way > 0;
  if (rule == REDUCE_SLOWEST)
    rule = rate ? REDUCE_MIN : REDUCE_MAX;
  double sum = 0, pick = g->entries[0].values[i];
  *setter = SIZE_MAX;
  if (rule == REDUCE_MIN || rule == REDUCE_MAX)
    *setter = 0;
  for (size_t k = 0; k < g->n; k++)
    {
      double v = g->entries[k].values[i];
      sum += v;
      /* Strict: a tie stays with the lower rank (sorted first).  */
      if ((rule == REDUCE_MIN && v < pick) || (rule == REDUCE_MAX && v > pick))
        {
          pick = v;
          *setter = k;
        }
    }
  switch (rule)
    {
    case REDUCE_SUM:
      return sum;
    case REDUCE_MEAN:
      return sum / (double) g->n;
    default:
      return rate ? pick * (double) g->n : pick;
    }
}

/* What the aggregate of value I is, in words, for the table's note.  */
static const char *
rule_words (const struct summary_reduce_options *o, size_t i)
{
  static const char *const words[] = {
    [REDUCE_SUM] = "the sum over the ranks", [REDUCE_MIN] = "the lowest rank's value",
    [REDUCE_MEAN] = "the mean over the ranks", [REDUCE_MAX] = "the highest rank's value",
  };
  if (o->rule != REDUCE_SLOWEST)
    return words[o->rule];
  return better (o, i) > 0 ? "the slowest rank's rate times the ranks"
    : "the slowest rank's time";
}

/* The output's rows, as text cells: CSV writes them as they come, a
   table once all are in, aligned.  */
struct sheet
{
  FILE *out;
  bool table;
  size_t ncols;
  char **cells;                 /* table: every row's, in order */
  size_t nrows;
  struct csv_line line;
  char **row;                   /* the row being filled */
  size_t at;
};

static void
cell (struct sheet *s, const char *text)
{
  s->row[s->at++] = xstrdup (text ? text : "");
}

static void
cell_number (struct sheet *s, double v)
{
  char text[48];
  if (s->table)
    snprintf (text, sizeof text, "%.6g", v);
  else
    csv_format_double (text, sizeof text, v);
  cell (s, text);
}

static void
end_row (struct sheet *s)
{
  if (s->table)
    {
      s->cells = xreallocarray (s->cells, (s->nrows + 1) * s->ncols, sizeof *s->cells);
      memcpy (s->cells + s->nrows * s->ncols, s->row, s->ncols * sizeof *s->row);
      s->nrows++;
    }
  else
    {
      csv_line_reset (&s->line);
      for (size_t c = 0; c < s->ncols; c++)
        {
          csv_line_str (&s->line, s->row[c]);
          free (s->row[c]);
        }
      csv_line_put (&s->line, s->out);
    }
  s->at = 0;
}

/* A table's rows, each column as wide as its widest cell.  */
static void
sheet_flush (struct sheet *s)
{
  size_t *width = xcalloc (s->ncols, sizeof *width);
  for (size_t r = 0; r < s->nrows; r++)
    for (size_t c = 0; c < s->ncols; c++)
      if (strlen (s->cells[r * s->ncols + c]) > width[c])
        width[c] = strlen (s->cells[r * s->ncols + c]);
  for (size_t r = 0; r < s->nrows; r++)
    {
      for (size_t c = 0; c < s->ncols; c++)
        {
          const char *t = s->cells[r * s->ncols + c];
          if (c + 1 < s->ncols)
            fprintf (s->out, "%-*s  ", (int) width[c], t);
          else
            fprintf (s->out, "%s\n", t);
        }
      for (size_t c = 0; c < s->ncols; c++)
        free (s->cells[r * s->ncols + c]);
    }
  free (width);
  free (s->cells);
}

/* CSV: the group columns, rank, host, device, column, value, reduce,
   set_by, ranks; a row per rank and value, then the aggregate's (rank,
   host and device empty, reduce the rule, set_by the rank that set it,
   empty for sum and mean).  Table: a line per rank with every value,
   then the aggregate's ("slowest of 4"), each value followed by the rank
   that set it.  */
static void
write_group (struct sheet *s, const struct summary_reduce_options *o, const struct group *g)
{
  size_t n = o->nvalue;
  double *agg = xcalloc (n, sizeof *agg);
  size_t *setter = xcalloc (n, sizeof *setter);
  for (size_t i = 0; i < n; i++)
    agg[i] = reduce_one (o, g, i, &setter[i]);
  char text[96];
  for (size_t k = 0; k <= g->n; k++)
    for (size_t i = 0; i < (s->table ? 1 : n); i++)
      {
        const struct entry *e = k < g->n ? &g->entries[k] : NULL;
        for (size_t b = 0; b < o->nby; b++)
          cell (s, g->key[b]);
        if (e)
          {
            snprintf (text, sizeof text, "%ld", e->rank);
            cell (s, text);
            cell (s, e->host);
            cell (s, e->device);
          }
        else
          {
            snprintf (text, sizeof text, "%s of %zu", summary_reduce_names[o->rule], g->n);
            cell (s, s->table ? text : NULL);
            cell (s, NULL);
            cell (s, NULL);
          }
        if (s->table)
          for (size_t v = 0; v < n; v++)
            {
              if (e || setter[v] == SIZE_MAX)
                {
                  cell_number (s, e ? e->values[v] : agg[v]);
                  continue;
                }
              snprintf (text, sizeof text, "%.6g (rank %ld)", agg[v],
                        g->entries[setter[v]].rank);
              cell (s, text);
            }
        else
          {
            cell (s, o->value[i]);
            cell_number (s, e ? e->values[i] : agg[i]);
            cell (s, e ? NULL : summary_reduce_names[o->rule]);
            if (!e && setter[i] != SIZE_MAX)
              snprintf (text, sizeof text, "%ld", g->entries[setter[i]].rank);
            else
              *text = '\0';
            cell (s, text);
            if (!e)
              snprintf (text, sizeof text, "%zu", g->n);
            cell (s, e ? NULL : text);
          }
        end_row (s);
      }
  free (agg);
  free (setter);
}

/* Ranks the launcher started but no row has: the aggregate is of fewer
   ranks than ran, and the user is told.  */
static void
warn_missing_ranks (const struct summary_reduce_options *o, const struct group *g)
{
  long world = -1;
  for (size_t k = 0; k < g->n; k++)
    world = g->entries[k].world_size > world ? g->entries[k].world_size : world;
  if (world > 0 && (size_t) world != g->n)
    {
      char where[512];
      group_where (o, g, where, sizeof where);
      warn (0, "%s: %zu rank%s of world_size %ld: the %s is of the ranks present only", where,
            g->n, g->n == 1 ? "" : "s", world, summary_reduce_names[o->rule]);
    }
}

int
summary_reduce_run (FILE *out, const struct summary_reduce_options *o, char **paths,
                    size_t npaths)
{
  if (!o->nvalue)
    die (EXIT_USAGE, 0, "--reduce: needs --value (the columns to reduce)");
  if (o->rule == REDUCE_SLOWEST)
    for (size_t i = 0; i < o->nvalue; i++)
      if (!better (o, i))
        die (EXIT_USAGE, 0, "--reduce slowest: %s is neither a rate nor a time by its name; "
             "say which with --higher-is-better or --lower-is-better", quote (o->value[i]));
  struct reader r = { .o = o };
  r.by = xcalloc (o->nby + 1, sizeof *r.by);
  r.value = xcalloc (o->nvalue, sizeof *r.value);
  struct csv_reader *reader = csv_reader_new (on_record, &r);
  static char *stdin_path[] = { "-" };
  if (!npaths)
    {
      paths = stdin_path;
      npaths = 1;
    }
  for (size_t p = 0; p < npaths; p++)
    csv_reader_read_path (reader, paths[p]);
  csv_reader_free (reader);
  if (!r.ngroups)
    die (EXIT_NOINPUT, 0, "no rows to reduce");

  struct sheet sheet = { .out = out, .table = o->table };
  sheet.ncols = o->nby + 3 + (o->table ? o->nvalue : 5);
  sheet.row = xcalloc (sheet.ncols, sizeof *sheet.row);
  if (o->table)
    {
      fprintf (out, "# --reduce %s over the ranks of each group:", summary_reduce_names[o->rule]);
      for (size_t i = 0; i < o->nvalue; i++)
        fprintf (out, "%s %s: %s", i ? ";" : "", o->value[i], rule_words (o, i));
      fprintf (out, "\n");
      if (o->rule != REDUCE_SUM && o->rule != REDUCE_MEAN)
        fprintf (out, "# (rank N): the rank that set it\n");
    }
  for (size_t b = 0; b < o->nby; b++)
    cell (&sheet, o->by[b]);
  static const char *const names[] = { "rank", "host", "device" };
  for (size_t i = 0; i < ARRAY_SIZE (names); i++)
    cell (&sheet, names[i]);
  static const char *const tail[] = { "column", "value", "reduce", "set_by", "ranks" };
  for (size_t i = 0; i < (o->table ? o->nvalue : ARRAY_SIZE (tail)); i++)
    cell (&sheet, o->table ? o->value[i] : tail[i]);
  end_row (&sheet);
  for (size_t g = 0; g < r.ngroups; g++)
    {
      struct group *grp = &r.groups[g];
      qsort (grp->entries, grp->n, sizeof *grp->entries, by_rank);
      warn_missing_ranks (o, grp);
      write_group (&sheet, o, grp);
    }
  if (o->table)
    sheet_flush (&sheet);
  csv_line_free (&sheet.line);
  free (sheet.row);

  for (size_t g = 0; g < r.ngroups; g++)
    {
      struct group *grp = &r.groups[g];
      for (size_t k = 0; k < grp->n; k++)
        {
          free (grp->entries[k].values);
          free (grp->entries[k].host);
          free (grp->entries[k].device);
          free (grp->entries[k].source);
        }
      for (size_t b = 0; b < o->nby; b++)
        free (grp->key[b]);
      free (grp->key);
      free (grp->entries);
    }
  free (r.groups);
  free (r.by);
  free (r.value);
  return EXIT_OK;
}
