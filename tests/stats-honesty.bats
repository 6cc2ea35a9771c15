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
