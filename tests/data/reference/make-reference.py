#!/usr/bin/python3
"""Reference values for bench-summarize's tests, computed once with
scipy and numpy (Debian python3-scipy, python3-numpy) and committed:

  ./make-reference.py     (in tests/data/reference; rewrites the .csv files)

distributions.csv  Student-t quantiles and two-sided tails, far tails too,
                   and binomial(n, 1/2) CDFs, for tests/unit/stats.c.
compare.csv        the input of the summary and comparison test.
compare-expected.csv  per group and column: mean, sd, se, median, the t
                   interval of the mean, the order-statistic interval of
                   the median (exact binomial), the geometric mean with
                   its t interval on the log scale, and against the base
                   level: Welch's t, df and p, the difference with its
                   interval, and Fieller's interval of the ratio of means.
"""
import csv
import math

import numpy as np
from scipy import stats

LEVEL = 0.95


def t_ppf(p, df):
    """scipy's t.ppf is off by up to 1e-9 relative (cephes stdtrit in
    this scipy), while its sf and pdf are accurate: polish by Newton."""
    t = float(stats.t.ppf(p, df))
    for _ in range(5):
        f = (stats.t.sf(-t, df) - p) if p < 0.5 else (1 - p) - stats.t.sf(t, df)
        t = t - f / stats.t.pdf(t, df) if p < 0.5 else t - f / stats.t.pdf(t, df)
    return t

with open("distributions.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["kind", "x", "df", "value"])
    for p, df in [(0.975, 1), (0.975, 2), (0.975, 4), (0.975, 9), (0.975, 29),
                  (0.995, 3), (0.9995, 7.5), (0.6, 12), (0.025, 5), (1e-10, 3),
                  (0.975, 1e4), (0.999999, 2.5)]:
        w.writerow(["t_quantile", repr(p), repr(df), repr(float(t_ppf(p, df)))])
    for t, df in [(0.5, 2), (2.0, 10), (10.34072981318567, 400), (40, 5), (-40, 5),
                  (300, 3), (1e3, 60), (38, 400), (1e5, 60), (1e10, 30), (0.001, 7)]:
        w.writerow(["t_two_sided", repr(t), repr(df),
                    repr(float(2 * stats.t.sf(abs(t), df)))])
    for k, n in [(0, 5), (0, 6), (1, 10), (5, 20), (39, 100), (450, 1000), (2, 3)]:
        w.writerow(["binomial_half_cdf", repr(k), repr(n),
                    repr(float(stats.binom.cdf(k, n, 0.5)))])

# Two arms and a ratio; base and new differ clearly; "zero" has a mean
# near 0, so Fieller's interval against it is unbounded.
rng = np.random.default_rng(20261203)
data = {
    "base": np.round(rng.normal(100, 4, 12), 3),
    "new": np.round(rng.normal(92, 6, 9), 3),
    "zero": np.round(rng.normal(0.5, 3, 7), 3),
}
with open("compare.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["arm", "ms", "scale"])
    for arm, xs in data.items():
        for i, x in enumerate(xs):
            w.writerow([arm, repr(float(x)), repr(float(np.round(1 + 0.25 * i, 2)))])


def order_interval(x, level):
    x = np.sort(x)
    n = len(x)
    alpha = (1 - level) / 2
    best = None
    for j in range(1, (n + 1) // 2 + 1):
        if stats.binom.cdf(j - 1, n, 0.5) <= alpha:
            best = j
    if best is None:
        return (None, None)
    return (x[best - 1], x[n - best])


def t_interval(x, level):
    n = len(x)
    m = np.mean(x)
    se = np.std(x, ddof=1) / math.sqrt(n)
    q = t_ppf((1 + level) / 2, n - 1)
    return (m - q * se, m + q * se)


rows = []
with open("compare.csv") as f:
    r = csv.DictReader(f)
    table = list(r)
for arm in data:
    ms = np.array([float(t["ms"]) for t in table if t["arm"] == arm])
    ratio = np.array([float(t["ms"]) / float(t["scale"]) for t in table if t["arm"] == arm])
    out = {"arm": arm, "mean": np.mean(ms), "sd": np.std(ms, ddof=1),
           "se": np.std(ms, ddof=1) / math.sqrt(len(ms)), "median": np.median(ms)}
    out["ci_low"], out["ci_high"] = t_interval(ms, LEVEL)
    out["median_ci_low"], out["median_ci_high"] = order_interval(ms, LEVEL)
    if (ratio > 0).all():
        logs = np.log(ratio)
        out["gmean"] = float(stats.gmean(ratio))
        lo, hi = t_interval(logs, LEVEL)
        out["gmean_ci_low"], out["gmean_ci_high"] = math.exp(lo), math.exp(hi)
    if arm != "base":
        base = np.array([float(t["ms"]) for t in table if t["arm"] == "base"])
        res = stats.ttest_ind(ms, base, equal_var=False)
        v1, v2 = np.var(ms, ddof=1) / len(ms), np.var(base, ddof=1) / len(base)
        df = (v1 + v2) ** 2 / (v1 ** 2 / (len(ms) - 1) + v2 ** 2 / (len(base) - 1))
        q = t_ppf((1 + LEVEL) / 2, df)
        m1, m2 = np.mean(ms), np.mean(base)
        out.update(t=res.statistic, df=df, p_welch=res.pvalue, diff=m1 - m2,
                   diff_ci_low=m1 - m2 - q * math.sqrt(v1 + v2),
                   diff_ci_high=m1 - m2 + q * math.sqrt(v1 + v2), ratio=m1 / m2)
        # Fieller: a r^2 - 2 b r + c <= 0.
        a, b, c = m2 ** 2 - q * q * v2, m1 * m2, m1 ** 2 - q * q * v1
        if a > 0:
            root = math.sqrt(b * b - a * c)
            out["ratio_ci_low"], out["ratio_ci_high"] = (b - root) / a, (b + root) / a
    rows.append(out)

with open("compare-expected.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["arm", "stat", "value"])
    for out in rows:
        for k, v in out.items():
            if k != "arm":
                w.writerow([out["arm"], k, "" if v is None else repr(float(v))])
