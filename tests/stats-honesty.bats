#!/usr/bin/env bats
# bench-summarize: numbers that must not mislead (issue 40 items 10, 12,
# 13 and 14): the gate at unequal run counts, constants that changed,
# shape warnings where an interval falls short, and refusals where
# rounding would print a number.  Exact outputs, fixed data.

load test-helper

setup() {
  common_setup
}

teardown() {
  common_teardown
}

# One column ms, one value a line.
ms_file() {
  local file=$1
  shift
  { echo ms; printf '%s\n' "$@"; } > "$file"
}

@test "the gate: unchanged log-normal timings at 60 and 12 runs pass (Fieller's test failed them, p = 0.0044)" {
  # Both sides drawn from one log-normal (log SD 1, seed 14 of
  # doc/results/gate-unequal-runs/): the 12 baseline runs happen to lack
  # the long tail, so Welch's df and Fieller's ratio test called the
  # unchanged code 1.83x slower.  C(72, 12) splits are too many to count:
  # the permutation test now draws 20000 of them.
  ms_file "$TMP/base.csv" 72.2 50.88 73.95 82.41 39.4 94.56 168.1 22.65 49.81 115.1 45.47 177.4
  ms_file "$TMP/cand.csv" 69.06 314.6 148.2 70.39 97.07 159.6 135.1 448 201.5 20.83 9.319 15.71 217.7 135 438.1 143.2 162.7 37.1 5.865 119.1 135.3 57.6 178.8 128.7 42.35 44.81 7.652 105.5 187.4 227.3 170.1 12.14 1043 509.9 107.9 90.33 400.1 82.21 96.66 53.72 112.6 241.4 24.15 185.9 74.37 153.6 211.2 27.3 89.3 39.57 66.66 114 258.5 50.17 360.4 165.2 76.74 55.55 135.6 25.63
  run bench-summarize --baseline "$TMP/base.csv" --fail-if-worse ms:0%:lower --format csv "$TMP/cand.csv"
  assert_status 0
  [[ "$output" != *regression* ]]
}

@test "the gate: a regression at 12 and 60 runs fails by the sampled permutation test, and says so" {
  ms_file "$TMP/base.csv" $(for i in $(seq 1 12); do echo $((100 + i % 5)); done)
  ms_file "$TMP/cand.csv" $(for i in $(seq 1 60); do echo $((108 + i % 5)); done)
  run sh -c "bench-summarize --baseline '$TMP/base.csv' --fail-if-worse ms:5%:lower --format csv '$TMP/cand.csv' 2>&1 >/dev/null"
  assert_status 1
  # No split of 20000 sums as high: p = 1/20001.
  assert_output "bench-summarize: ms: regression: 1.079x [1.07, 1.089] the baseline, worse by more than 5% at 95% (lower is better; one-sided p = 5e-05 of 20000 random splits)"
  # Holm over 100 rows draws 40 * 100 / 0.025 = 160000 splits a row, so
  # its first step (0.025 / 100) can be reached.
  { echo bench,ms; for b in $(seq 1 100); do for i in $(seq 1 12); do echo $b,$((100 + i % 5)); done; done; } > "$TMP/b100.csv"
  { echo bench,ms; for i in $(seq 1 60); do echo 1,$((108 + i % 5)); done
    for b in $(seq 2 100); do for i in $(seq 1 60); do echo $b,$((100 + i % 5)); done; done; } > "$TMP/c100.csv"
  run sh -c "bench-summarize --baseline '$TMP/b100.csv' --by bench --fail-if-worse ms:5%:lower --family-wise holm --resamples 0 --format csv '$TMP/c100.csv' 2>&1 >/dev/null"
  assert_status 1
  assert_output "bench-summarize: bench=1, ms: regression: 1.079x [1.07, 1.089] the baseline, worse by more than 5% at 95% (lower is better; Holm over 100, one-sided p = 6.2e-06 of 160000 random splits)"
}

@test "a deterministic count that changed says what changed, not 'not compared: all values equal'" {
  printf 'arm,n\na,100\na,100\na,100\nb,110\nb,110\nb,110\nc,100\nc,100\nc,100\n' > "$TMP/k.csv"
  run bash -c "set -o pipefail; bench-summarize --compare arm=a --format table '$TMP/k.csv' 2>/dev/null | tail -n 2"
  assert_status 0
  assert_output "arm=b vs arm=a: n higher: constant 100 -> 110 (1.1x), every value equal on each side
arm=c vs arm=a: n unchanged: constant 100 on both sides"
  # The rank-sum test (p = 0.1 at 3 and 3) must not read "no difference
  # shown" for a count that moved by 10% in every run.
  run bash -c "set -o pipefail; bench-summarize --compare arm=a --rank --format table '$TMP/k.csv' 2>/dev/null | tail -n 2"
  assert_status 0
  assert_output "arm=b vs arm=a: n higher: constant 100 -> 110 (1.1x), every value equal on each side
arm=c vs arm=a: n unchanged: constant 100 on both sides"
  # A time column: the word is "slower"; one value a side is no constant.
  printf 'arm,ms\na,2\na,2\nb,3\nb,3\n' > "$TMP/t.csv"
  run bash -c "set -o pipefail; bench-summarize --compare arm=a --format table '$TMP/t.csv' 2>/dev/null | tail -n 1"
  assert_status 0
  assert_output "arm=b vs arm=a: ms slower: constant 2 -> 3 (1.5x), every value equal on each side"
  printf 'arm,ms\na,2\nb,3\n' > "$TMP/one.csv"
  run bash -c "set -o pipefail; bench-summarize --compare arm=a --format table '$TMP/one.csv' 2>/dev/null | tail -n 1"
  assert_status 0
  assert_output "arm=b vs arm=a: ms not compared: fewer than 2 values on a side"
}

@test "the gate: a constant count that moved from 0 fails beyond the tolerance, and says from what to what" {
  # A baseline of 0 has no ratio: it said "cannot judge ... all values
  # equal on both sides" (exit 65) for a count that went from 0 to 5.
  printf 'arm,ns\nb,7\nb,7\nc,0\nc,0\n' > "$TMP/base.csv"
  printf 'arm,ns\nb,8\nb,8\nc,5\nc,5\n' > "$TMP/cand.csv"
  run sh -c "bench-summarize --baseline '$TMP/base.csv' --by arm --value ns --fail-if-worse ns:5%:lower --format csv '$TMP/cand.csv' 2>&1 >/dev/null"
  assert_status 1
  assert_output "bench-summarize: no interval: all values equal, in 4 rows (first: arm=b, source=baseline, column 'ns', n=2)
bench-summarize: no comparison intervals: all values equal on both sides, in 2 comparisons (first: arm=b, source=candidate, column 'ns')
bench-summarize: arm=b, ns: regression: 1.143x the baseline, constant 7 -> 8, every value equal on both sides, worse by more than 5% (lower is better)
bench-summarize: arm=c, ns: regression: constant 0 -> 5, every value equal on both sides, worse by more than 5% (lower is better)"
  # Higher is better: both moved the better way.
  run bench-summarize --baseline "$TMP/base.csv" --by arm --value ns --fail-if-worse ns:5%:higher --format csv "$TMP/cand.csv"
  assert_status 0
}

@test "bootstrap-t refuses near-constant counts, saying why, where rounding gave an interval 1e7 times the data's range" {
  # 28 of 100 and 2 of 101: one resample in eight is 100 repeated, whose
  # variance of rounding (not 0) made t* 1e7: it printed [99.9997, 9981842].
  { echo v; for i in $(seq 1 28); do echo 100; done; echo 101; echo 101; } > "$TMP/c.csv"
  run bench-summarize --ci boot-t --seed 1 --format csv "$TMP/c.csv"
  assert_status 0
  assert_csv "bench-summarize: no interval: too many resamples without spread: the values are nearly all equal (bootstrap-t needs more distinct values; use --ci t), in 1 row (first: column 'v', n=30)
column,n,mean,ci_low,ci_high,ci_method
v,30,100.06666666666666,,,boot-t"
  # Values a unit in the last place apart: their SD is rounding; it
  # printed [1e+15, 1e+15].
  { echo v; for i in $(seq 1 29); do echo 1e15; done; echo 1000000000000000.125; } > "$TMP/u.csv"
  run bench-summarize --ci boot-t --seed 1 --format csv "$TMP/u.csv"
  assert_status 0
  assert_csv "bench-summarize: no interval: the values differ only by rounding (their SD is below 1e-13 of their size), in 1 row (first: column 'v', n=30)
column,n,ci_low,ci_high,ci_method
v,30,,,boot-t"
  # The t interval has no such trouble.
  run bench-summarize --ci t --format csv "$TMP/c.csv"
  assert_status 0
  assert_csv "column,n,ci_low,ci_high,ci_method
v,30,99.97193049334354,100.16140283998979,t"
}

@test "'the runs may have been disturbed' does not fire on clean log-normal timings, and still fires on disturbed ones" {
  # 100 log-normal quantiles (log SD 1): a clean sample of skewed
  # timings.  8 lie beyond the linear fences (the limit for clean normal
  # data is 6), so it warned; on the log scale they are normal, and none
  # is beyond them.
  ms_file "$TMP/ln.csv" 7.609 11.42 14.09 16.33 18.35 20.23 22 23.7 25.35 26.97 28.55 30.11 31.65 33.19 34.71 36.23 37.75 39.27 40.8 42.33 43.87 45.42 46.98 48.55 50.14 51.75 53.37 55 56.66 58.34 60.05 61.77 63.52 65.3 67.11 68.95 70.81 72.71 74.65 76.62 78.63 80.68 82.77 84.9 87.08 89.31 91.59 93.92 96.31 98.75 101.3 103.8 106.5 109.2 112 114.8 117.8 120.8 123.9 127.2 130.5 134 137.5 141.2 145 149 153.1 157.4 161.9 166.5 171.4 176.5 181.8 187.4 193.3 199.4 206 212.8 220.2 227.9 236.2 245.1 254.6 264.9 276 288.1 301.3 315.9 332.1 350.3 370.8 394.4 421.9 454.5 494.4 544.9 612.2 709.9 875.9 1314
  run sh -c "bench-summarize --value ms --resamples 0 --format csv '$TMP/ln.csv' 2>&1 >/dev/null"
  assert_status 0
  assert_output "bench-summarize: column 'ms': positive values that may be spread by a large factor (the SD of their logs is 1.00, pooled over 1 rows; first: n=100; up to 1.05 at 75% confidence, past 0.55): the 95% interval of such a mean covers less (t covered 0.82 to 0.85 at n = 3 to 10 on log-normal data of log SD 1); --log-scale or --ci-stat gmean hold better"
  # Tight timings (log SD 0.05) with every 12th run 3 times slower: beyond
  # the fences on both scales.
  ms_file "$TMP/t.csv" $(for v in 87.92 89.72 90.67 91.34 91.87 92.32 92.71 93.06 93.37 93.66 93.92 94.17 94.41 94.63 94.85 95.05 95.25 95.43 95.62 95.79 95.96 96.13 96.29 96.45 96.61 96.76 96.91 97.06 97.2 97.34 97.48 97.62 97.76 97.89 98.03 98.16 98.29 98.42 98.55 98.68 98.81 98.93 99.06 99.19 99.31 99.44 99.56 99.69 99.81 99.94 100.1 100.2 100.3 100.4 100.6 100.7 100.8 101 101.1 101.2 101.3 101.5 101.6 101.7 101.9 102 102.2 102.3 102.4 102.6 102.7 102.9 103 103.2 103.3 103.5 103.7 103.8 104 104.2 104.4 104.6 104.8 105 105.2 105.4 105.7 105.9 106.2 106.5 106.8 107.1 107.5 107.9 108.3 108.8 109.5 110.3 111.5 113.7; do echo $v; done | awk 'NR % 12 == 0 { $1 *= 3 } 1')
  run sh -c "bench-summarize --value ms --resamples 0 --format csv '$TMP/t.csv' 2>&1 >/dev/null"
  assert_status 0
  assert_output "bench-summarize: column 'ms': 8 of 100 values lie beyond Tukey's fences (1.5 IQR past the quartiles; 8 of them past 3 IQR), where clean normal data of 100 values have 6 or more less than 1% of the time: the runs may have been disturbed"
}

@test "the skew warning judges each group too: one skewed group among 40 tight ones is named" {
  # Pooled over 41 rows the SD of the logs is small, and nothing was
  # said, though group s (10 to 1000) gets an interval that covers less.
  { echo g,ms; for g in $(seq 1 40); do for v in 100 101 102 103 99 98 100.5 101.5 99.5 100.2; do echo "g$g,$v"; done; done
    for v in 10 100 1000 30 300 50 20 500 70 200; do echo "s,$v"; done; } > "$TMP/sk.csv"
  run sh -c "bench-summarize --by g --resamples 0 --format csv '$TMP/sk.csv' 2>&1 >/dev/null"
  assert_status 0
  assert_output "bench-summarize: column 'ms': positive values that may be spread by a large factor in 1 of 41 rows (first: g=s, n=10, the SD of its logs is 1.47, up to 1.82 at 75% confidence, past 0.40): the 95% interval of such a mean covers less (t covered 0.82 to 0.85 at n = 3 to 10 on log-normal data of log SD 1); --log-scale or --ci-stat gmean hold better"
  # The tight groups alone: nothing.
  run sh -c "grep -v '^s,' '$TMP/sk.csv' | bench-summarize --by g --resamples 0 --format csv 2>&1 >/dev/null"
  assert_status 0
  assert_output ""
}

@test "geometric-mean and --ratio columns get the shape warning, judged on the logs their interval rests on" {
  # 1, 1.01 and 8: on the log scale a gap of 1.728 SDs, past 1.727.
  printf 'g,v\na,1\na,1.01\na,8\n' > "$TMP/gm.csv"
  run sh -c "bench-summarize --by g --ci-stat gmean --resamples 0 --format csv '$TMP/gm.csv' 2>&1 >/dev/null"
  assert_status 0
  assert_output "bench-summarize: column 'v': 1 of 1 rows look bimodal or skewed (first: g=a, n=3, a gap of 1.728 SDs between neighbours on the log scale, above 1.727, the 1% level for normal data); below 30 values its 95% intervals may cover far less, in any row"
  printf 'g,a,b\nx,1,1\nx,1.01,1\nx,8,1\n' > "$TMP/rt.csv"
  run sh -c "bench-summarize --by g --value a --ratio a/b --resamples 0 --format csv '$TMP/rt.csv' 2>&1 >/dev/null"
  assert_status 0
  [[ "$output" == *"column 'a/b': 1 of 1 rows look bimodal or skewed (first: g=x, n=3, a gap of 1.728 SDs between neighbours on the log scale, above 1.727"* ]]
}

@test "--log-scale keeps the skew warning, by log-t's own limit: its interval falls short too" {
  # 10 log-normal quantiles of log SD 1 (100 exp(z)): log-t's 95% interval of such a
  # mean covers 0.885 at n = 10 (doc/results/log-scale-skew); it said
  # nothing.
  printf 'ms\n19.3\n35.5\n50.9\n68\n88.2\n113.4\n147\n196.3\n281.9\n518\n' > "$TMP/l.csv"
  run sh -c "bench-summarize --log-scale --resamples 0 --format csv '$TMP/l.csv' 2>&1 >/dev/null"
  assert_status 0
  assert_output "bench-summarize: column 'ms': positive values that may be spread by a large factor (the SD of their logs is 0.99, pooled over 1 rows; first: n=10; up to 1.22 at 75% confidence, past 0.55): the 95% interval of such a mean covers less (log-t covered 0.89 to 0.92 at n = 3 to 30 on log-normal data of log SD 1); --ci-stat gmean holds, or more runs"
  # A log SD of 0.25, where log-t holds: nothing.
  printf 'ms\n66\n77\n84\n91\n97\n103\n110\n118\n130\n151\n' > "$TMP/t.csv"
  run sh -c "bench-summarize --log-scale --resamples 0 --format csv '$TMP/t.csv' 2>&1 >/dev/null"
  assert_status 0
  assert_output ""
}
