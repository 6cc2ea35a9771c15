/* summary-verdicts.c -- one line in words per comparison, from the test
   the design calls for. */
#include "system.h"
#include "summary-output.h"
#include "stats.h"
#include "summary-number.h"

#include <math.h>

/* Who a compared row is: "KEY=VALUE, ..., COL=LEVEL vs COL=BASE".  */
static void
row_label (const struct summary_data *d, const struct summary_row *row, char *buf, size_t size)
{
  size_t used = 0;
  buf[0] = '\0';
  char **key = d->groups[row->group].key;
  for (size_t i = 0; i < d->ngroup_names && used < size; i++)
    if (i != d->compare_index)
      used += (size_t) snprintf (buf + used, size - used, "%s=%s, ", d->group_names[i], key[i]);
  const char *col = d->group_names[d->compare_index];
  if (used < size)
    snprintf (buf + used, size - used, "%s=%s vs %s=%s", col, key[d->compare_index], col,
              d->compare_level);
}

/* The word for a shown change of VALUE upward (UP) or downward: by its
   unit faster or slower, by --higher/lower-is-better better or worse,
   else higher or lower.  */
static const char *
change_word (const struct summary_value *value, bool up)
{
  switch (value->better)
    {
    case 1:
      return up ? "faster" : "slower";
    case -1:
      return up ? "slower" : "faster";
    case 2:
      return up ? "better" : "worse";
    case -2:
      return up ? "worse" : "better";
    default:
      return up ? "higher" : "lower";
    }
}

/* The numbers a verdict reads: the estimate with its interval, the p of
   the same test, and the test's name.  */
struct verdict_numbers
{
  double x, low, high, p, nul;
  bool ratio;
  bool low_open, high_open;     /* an end outside the interval (rank-sum with ties) */
  const char *test;
  const char *why;              /* no test: why */
  const char *no_ratio;         /* a difference shown for want of a ratio: why */
};

/* The test the design calls for: paired with --paired, rank-sum with
   --rank, Welch's otherwise.  */
static struct verdict_numbers
verdict_numbers (const struct summary_data *d, const struct summary_row *row,
                 const struct summary_config *config)
{
  struct verdict_numbers v = { .x = NAN, .low = NAN, .high = NAN, .p = NAN };
  if (d->paired)
    {
      const struct paired *p = &row->paired;
      v.test = "paired t";
      if (!p->ratio_why)
        v = (struct verdict_numbers) { p->ratio, p->ratio_low, p->ratio_high, p->ratio_p, 1,
                                       true, false, false, "paired t of log ratios", NULL,
                                       NULL };
      else if (!p->diff_why)
        v = (struct verdict_numbers) { p->diff, p->diff_low, p->diff_high, p->p, 0, false,
                                       false, false, "paired t", NULL, p->ratio_why };
      else
        v.why = p->diff_why;
      return v;
    }
  if (config->rank)
    {
      const struct rank_test *r = &row->rank;
      v = (struct verdict_numbers) { r->shift, r->shift_low, r->shift_high, r->p, 0, false,
                                     r->low_open, r->high_open,
                                     r->tied ? "rank-sum, exact given ties"
                                     : r->exact ? "rank-sum, exact"
                                     : "rank-sum, normal approximation", r->why, NULL };
      return v;
    }
  const struct welch *w = &row->welch;
  if (w->diff_why)
    v.why = w->diff_why;
  else if (!w->ratio_why)
    v = (struct verdict_numbers) { w->ratio, w->ratio_low, w->ratio_high, w->ratio_p, 1,
                                   true, false, false,
                                   config->log_scale
                                   ? "Welch on the logs, ratio of geometric means" : "Welch",
                                   NULL, NULL };
  else
    v = (struct verdict_numbers) { w->diff, w->diff_low, w->diff_high, w->p, 0, false,
                                   false, false, "Welch", NULL, w->ratio_why };
  return v;
}

void
summary_output_verdicts (FILE *out, const struct summary_data *d,
                         const struct summary_row *rows, size_t nrows,
                         const struct summary_config *config, const char *prefix)
{
  double level = 100 * config->confidence, alpha = stats_alpha (config->confidence);
  for (size_t r = 0; r < nrows; r++)
    {
      const struct summary_row *row = &rows[r];
      if (!row->compared)
        continue;
      const struct summary_value *value = &d->values[row->value];
      const char *column = value->name;
      char who[512], p[32], x[64], lo[64], hi[64];
      row_label (d, row, who, sizeof who);
      fputs (prefix, out);
      const struct welch *w = &row->welch;
      if (w->v1 == 0 && w->v2 == 0 && w->df1 >= 1 && w->df2 >= 1)
        {
          /* Every value equal on each side (a deterministic count): no
             test is needed, and "not compared" would hide a change.  */
          char now[32], was[32], ratio[72] = "";
          summary_number_shortest (w->mean1, now, sizeof now);
          summary_number_shortest (w->mean2, was, sizeof was);
          if (w->mean1 == w->mean2)
            fprintf (out, "%s: %s unchanged: constant %s on both sides\n", who, column, now);
          else
            {
              if (isfinite (w->ratio))
                {
                  summary_number_digits (w->ratio, 4, x, sizeof x);
                  snprintf (ratio, sizeof ratio, " (%sx)", x);
                }
              fprintf (out, "%s: %s %s: constant %s -> %s%s, every value equal on each side\n",
                       who, column, change_word (value, w->mean1 > w->mean2), was, now, ratio);
            }
          continue;
        }
      struct verdict_numbers v = verdict_numbers (d, row, config);
      if (!v.why && isfinite (v.p) && !isfinite (v.x))
        {
          /* A test without an estimate (the rank test past 10^7 pairs).  */
          summary_number_p_against (v.p, alpha, p, sizeof p);
          fprintf (out, "%s: %s %s at %g%% (p = %s, %s)\n", who, column,
                   v.p < alpha ? "a difference shown" : "no difference shown", level, p,
                   v.test);
          continue;
        }
      if (v.why || !isfinite (v.p) || !isfinite (v.x))
        {
          fprintf (out, "%s: %s not compared: %s\n", who, column,
                   v.why ? v.why : "no test of these values");
          continue;
        }
      summary_number_p_against (v.p, alpha, p, sizeof p);
      bool bounded = isfinite (v.low) && isfinite (v.high);
      /* The word follows the p; an interval on the other side of the
         null (approximations that part at the edge) is said.  */
      bool shown = v.p < alpha;
      bool excludes = bounded && (v.low > v.nul || v.high < v.nul
                                  || (v.low == v.nul && v.low_open)
                                  || (v.high == v.nul && v.high_open));
      const char *times = v.ratio ? "x" : "";
      if (bounded)
        summary_number_interval (v.x, v.low, v.high, v.nul, x, lo, hi, sizeof x);
      else
        summary_number_digits (v.x, 3, x, sizeof x);
      char interval[160] = "";
      if (bounded)
        snprintf (interval, sizeof interval, " %c%s, %s%c", v.low_open ? '(' : '[', lo, hi,
                  v.high_open ? ')' : ']');
      if (!shown || (bounded && !excludes))
        fprintf (out, "%s: %s no difference shown at %g%% (%s%s%s, p = %s, %s%s)\n",
                 who, column, level, x, times, interval, p, v.test,
                 shown ? "; its interval holds the null" : "");
      else if (v.ratio)
        fprintf (out, "%s: %s %s%s%s %s (p = %s, %s)\n", who, column, x, times, interval,
                 change_word (value, v.x > v.nul), p, v.test);
      else if (v.no_ratio)
        fprintf (out, "%s: %s %s by %s%s (p = %s, %s; no ratio: %s)\n", who, column,
                 change_word (value, v.x > v.nul), x, interval, p, v.test, v.no_ratio);
      else
        fprintf (out, "%s: %s %s by %s%s (p = %s, %s)\n", who, column,
                 change_word (value, v.x > v.nul), x, interval, p, v.test);
    }
}
