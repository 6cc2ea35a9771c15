/* summary-reduce.c -- per-rank rows reduced by a named rule, every rank
   shown beside the aggregate. */
#include "system.h"
#include "summary-reduce.h"
#include "csv-reader.h"
#include "csv-writer.h"
#include "die.h"
#include "options.h"
#include "summarize.h"
#include "summary-text.h"

#include <limits.h>
#include <math.h>

const char *const summary_reduce_names[REDUCE_RULE_COUNT + 1] = {
  "sum", "min", "mean", "max", "slowest", NULL,
};

/* One rank's row; its values are the group's cells at ROW.  */
struct entry
{
  long rank;
  char *host, *device;          /* NULL: no such column */
  long world_size;              /* -1: no such column, or empty */
  size_t row;
  const char *source;           /* one of reader.sources */
  size_t line;
};

/* The ranks of one of the engine's groups (summary_data.groups).  */
struct group
{
  struct entry *entries;
  size_t n, size;
  long world;                   /* the first world_size given, or -1 */
  const char *world_source;     /* and where */
  size_t world_line;
};

struct reader
{
  const struct summary_reduce_options *o;
  bool resolved;
  /* The first input's column of each name (SIZE_MAX: none).  */
  size_t rank, host, device, world, *value;
  struct group *groups;         /* as many as summary_data's, in order */
  size_t ngroups;
  char **sources;               /* the inputs' names, each once */
  size_t nsources;
};

/* "repeat=1, phase=together" for messages, or "the input".  */
static void
group_where (const struct summary_data *d, size_t g, char *buf, size_t size)
{
  summary_where (d, g, SIZE_MAX, buf, size);
  size_t len = strlen (buf);
  if (len >= 2)
    buf[len - 2] = '\0';         /* the last ", " */
  else
    snprintf (buf, size, "the input");
}

static const char *
source_of (struct reader *r, const char *source)
{
  if (!r->nsources || !STREQ (r->sources[r->nsources - 1], source))
    {
      r->sources = xreallocarray (r->sources, r->nsources + 1, sizeof *r->sources);
      r->sources[r->nsources++] = xstrdup (source);
    }
  return r->sources[r->nsources - 1];
}

/* Where the rank columns are, once the engine has read the first
   header.  */
static void
resolve (struct reader *r, const struct summary_data *d, const struct csv_record *record)
{
  r->rank = summarize_column (d, "rank");
  if (r->rank == SIZE_MAX)
    die (EXIT_USAGE, 0, "--reduce: no column %s in %s", quote ("rank"), record->source);
  r->host = summarize_column (d, "host");
  r->device = summarize_column (d, "device");
  r->world = summarize_column (d, "world_size");
  for (size_t i = 0; i < r->o->nvalue; i++)
    r->value[i] = summarize_column (d, r->o->value[i]);
  r->resolved = true;
}

/* The engine's row hook: the row's rank, host and device beside its
   group's values.  */
static void
on_row (const struct summary_data *d, const struct csv_record *record, const size_t *position,
        size_t gi, void *context)
{
  struct reader *r = context;
  if (!r->resolved)
    resolve (r, d, record);
  if (gi == r->ngroups)
    {
      r->groups = xreallocarray (r->groups, r->ngroups + 1, sizeof *r->groups);
      r->groups[r->ngroups++] = (struct group) { .world = -1 };
    }
  struct group *g = &r->groups[gi];
  /* The engine counts a cell that is not a number as missing: a missing
     rank's value would drop that rank from the aggregate unseen.  */
  for (size_t i = 0; i < r->o->nvalue; i++)
    if (d->groups[gi].cells[i].missing)
      die (EXIT_DATAERR, 0, "%s: line %zu, column %s: %s is not a number: every rank's "
           "value is needed", record->source, record->line, quote (r->o->value[i]),
           quote (record->fields[position[r->value[i]]]));
  const char *text = record->fields[position[r->rank]];
  uint64_t rank;
  if (!options_parse_uint (text, LONG_MAX, &rank))
    die (EXIT_DATAERR, 0, "%s: line %zu, column 'rank': %s is not a rank", record->source,
         record->line, quote (text));
  struct entry e = { .rank = (long) rank, .world_size = -1, .row = g->n, .line = record->line };
  uint64_t world;
  if (r->world != SIZE_MAX && options_parse_uint (record->fields[position[r->world]], LONG_MAX,
                                                  &world))
    e.world_size = (long) world;
  if (e.world_size >= 0 && e.rank >= e.world_size)
    die (EXIT_DATAERR, 0, "%s: line %zu: rank %ld is not below its world_size %ld",
         record->source, record->line, e.rank, e.world_size);
  if (e.world_size >= 0 && g->world >= 0 && e.world_size != g->world)
    {
      char where[512];
      group_where (d, gi, where, sizeof where);
      die (EXIT_DATAERR, 0, "%s: line %zu: world_size %ld, but %ld at %s line %zu: ranks of "
           "runs of different sizes in %s", record->source, record->line, e.world_size,
           g->world, g->world_source, g->world_line, where);
    }
  e.host = r->host != SIZE_MAX ? xstrdup (record->fields[position[r->host]]) : NULL;
  e.device = r->device != SIZE_MAX ? xstrdup (record->fields[position[r->device]]) : NULL;
  e.source = source_of (r, record->source);
  if (g->n == g->size)
    g->entries = xreallocarray (g->entries, g->size = 2 * g->size + 4, sizeof *g->entries);
  g->entries[g->n++] = e;
  if (g->world < 0 && e.world_size >= 0)
    {
      g->world = e.world_size;
      g->world_source = e.source;
      g->world_line = e.line;
    }
}

static int
by_rank (const void *a, const void *b)
{
  const struct entry *x = a, *y = b;
  if (x->rank != y->rank)
    return (x->rank > y->rank) - (x->rank < y->rank);
  return (x->row > y->row) - (x->row < y->row);
}

/* A rank twice in a group, read in the order the rows came.  */
static void
check_twice (const struct summary_data *d, size_t gi, const struct group *g)
{
  for (size_t k = 1; k < g->n; k++)
    if (g->entries[k].rank == g->entries[k - 1].rank)
      {
        const struct entry *first = &g->entries[k - 1], *again = &g->entries[k];
        char where[512];
        group_where (d, gi, where, sizeof where);
        die (EXIT_DATAERR, 0, "%s: line %zu: rank %ld appears twice in %s (first at %s line %zu)",
             again->source, again->line, again->rank, where, first->source, first->line);
      }
}

/* E's value of column I: the engine's cells keep a group's values in
   row order.  */
static double
value_at (const struct summary_data *d, size_t gi, const struct entry *e, size_t i)
{
  return d->groups[gi].cells[i].values[e->row];
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

/* The aggregate of value I over the ranks of group GI, and the index of
   the entry that set it (SIZE_MAX: all did).  */
static double
reduce_one (const struct summary_reduce_options *o, const struct summary_data *d, size_t gi,
            const struct group *g, size_t i, size_t *setter)
{
  enum reduce_rule rule = o->rule;
  int way = better (o, i);
  bool rate = rule == REDUCE_SLOWEST && way > 0;
  if (rule == REDUCE_SLOWEST)
    rule = rate ? REDUCE_MIN : REDUCE_MAX;
  double sum = 0, pick = value_at (d, gi, &g->entries[0], i);
  *setter = SIZE_MAX;
  if (rule == REDUCE_MIN || rule == REDUCE_MAX)
    *setter = 0;
  for (size_t k = 0; k < g->n; k++)
    {
      double v = value_at (d, gi, &g->entries[k], i);
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
      if (isfinite (sum))
        return sum / (double) g->n;
      {
        /* The sum passed the largest double; the mean of finite values
           cannot.  Sum them scaled by a power of two past twice the
           count (exact, where dividing by the count would round up to
           infinity at the largest double), and scale the mean back.  */
        int e;
        frexp ((double) g->n, &e);
        sum = 0;
        for (size_t k = 0; k < g->n; k++)
          sum += ldexp (value_at (d, gi, &g->entries[k], i), -(e + 1));
        return ldexp (sum / (double) g->n, e + 1);
      }
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
  size_t nrows, size;           /* rows in CELLS, and room */
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
      if (s->nrows == s->size)
        s->cells = xreallocarray (s->cells, (s->size = 2 * s->size + 16) * s->ncols,
                                  sizeof *s->cells);
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
  /* Widths in terminal columns, not bytes: a UTF-8 key lines up.  */
  size_t *width = xcalloc (s->ncols, sizeof *width);
  for (size_t r = 0; r < s->nrows; r++)
    for (size_t c = 0; c < s->ncols; c++)
      {
        size_t w = summary_text_width (s->cells[r * s->ncols + c]);
        width[c] = w > width[c] ? w : width[c];
      }
  for (size_t r = 0; r < s->nrows; r++)
    {
      for (size_t c = 0; c < s->ncols; c++)
        {
          const char *t = s->cells[r * s->ncols + c];
          fputs (t, s->out);
          if (c + 1 < s->ncols)
            fprintf (s->out, "%*s", (int) (width[c] - summary_text_width (t) + 2), "");
          else
            fputc ('\n', s->out);
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
write_group (struct sheet *s, const struct summary_reduce_options *o,
             const struct summary_data *d, size_t gi, const struct group *g)
{
  size_t n = o->nvalue;
  double *agg = xcalloc (n, sizeof *agg);
  size_t *setter = xcalloc (n, sizeof *setter);
  for (size_t i = 0; i < n; i++)
    agg[i] = reduce_one (o, d, gi, g, i, &setter[i]);
  char text[96];
  for (size_t k = 0; k <= g->n; k++)
    for (size_t i = 0; i < (s->table ? 1 : n); i++)
      {
        const struct entry *e = k < g->n ? &g->entries[k] : NULL;
        for (size_t b = 0; b < o->nby; b++)
          cell (s, d->groups[gi].key[b]);
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
                  cell_number (s, e ? value_at (d, gi, e, v) : agg[v]);
                  continue;
                }
              snprintf (text, sizeof text, "%.6g (rank %ld)", agg[v],
                        g->entries[setter[v]].rank);
              cell (s, text);
            }
        else
          {
            cell (s, o->value[i]);
            cell_number (s, e ? value_at (d, gi, e, i) : agg[i]);
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
warn_missing_ranks (const struct summary_reduce_options *o, const struct summary_data *d,
                    size_t gi, const struct group *g)
{
  long world = -1;
  for (size_t k = 0; k < g->n; k++)
    world = g->entries[k].world_size > world ? g->entries[k].world_size : world;
  if (world > 0 && (size_t) world != g->n)
    {
      char where[512];
      group_where (d, gi, where, sizeof where);
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
  /* The main engine reads and groups (summarize.c); the hook keeps
     each row's rank beside its group's values.  */
  struct reader r = { .o = o };
  r.value = xcalloc (o->nvalue, sizeof *r.value);
  struct summarize_options so = {
    .by = o->by, .nby = o->nby, .value = o->value, .nvalue = o->nvalue,
    .row_hook = on_row, .row_context = &r,
  };
  struct summary_data *d = summarize_new (&so);
  summarize_read_all (d, paths, npaths);
  if (!r.ngroups)
    die (EXIT_NOINPUT, 0, "no rows to reduce");
  for (size_t g = 0; g < r.ngroups; g++)
    {
      qsort (r.groups[g].entries, r.groups[g].n, sizeof *r.groups[g].entries, by_rank);
      check_twice (d, g, &r.groups[g]);
    }

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
      warn_missing_ranks (o, d, g, &r.groups[g]);
      write_group (&sheet, o, d, g, &r.groups[g]);
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
          free (grp->entries[k].host);
          free (grp->entries[k].device);
        }
      free (grp->entries);
    }
  free (r.groups);
  for (size_t i = 0; i < r.nsources; i++)
    free (r.sources[i]);
  free (r.sources);
  free (r.value);
  summarize_free (d, NULL, 0);
  return EXIT_OK;
}
