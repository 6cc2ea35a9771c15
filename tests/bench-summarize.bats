#!/usr/bin/env bats
# bench-summarize: exact answers, statistical properties, determinism,
# every error message, and the man page's examples.

load test-helper

setup() {
  common_setup
  DATA="$top_srcdir/tests/data"
}

teardown() {
  common_teardown
}

# Summarize stdin without resampling (empty CI columns, no seed message).
summarize() {
  bench-summarize --resamples 0 "$@"
}

# --- exact answers -----------------------------------------------------------

@test "hand-checked set: mean, sd, se, median, percentiles" {
  # 2,4,4,4,5,5,7,9: mean 5, sd sqrt(32/7), se sd/sqrt(8), median 4.5;
  # p5 at position 0.35: 2 + 0.35 * 2 = 2.7; p95 at 6.65: 7 + 0.65 * 2 = 8.3,
  # written 8.299999999999999 because 7 * 0.95 rounds below 6.65 (numpy agrees).
  run sh -c 'printf "x\n2\n4\n4\n4\n5\n5\n7\n9\n" | bench-summarize --resamples 0'
  assert_status 0
  assert_output "column,n,missing,mean,sd,se,min,median,max,ci_low,ci_high,p5,p95
x,8,0,5,2.138089935299395,0.7559289460184544,2,4.5,9,,,2.7,8.299999999999999"
}

@test "large offset: 1e9 + small integers keeps its SD" {
  # Deviations -2..2 about 1000000003: sd = sqrt(10/4).
  run sh -c 'printf "t\n1000000001\n1000000002\n1000000003\n1000000004\n1000000005\n" | bench-summarize --resamples 0 --percentiles 50'
  assert_status 0
  assert_output "column,n,missing,mean,sd,se,min,median,max,ci_low,ci_high,p50
t,5,0,1000000003,1.5811388300841898,0.7071067811865476,1000000001,1000000003,1000000005,,,1000000003"
}

@test "large offset with fractional noise: 1e12 + 0.25 steps" {
  # 1e12 + {0.25, 0.5, 0.75, 1}: exact in binary; sd = 0.25 * sqrt(5/3).
  run sh -c 'printf "t\n1000000000000.25\n1000000000000.5\n1000000000000.75\n1000000000001\n" | bench-summarize --resamples 0 --percentiles 50'
  assert_status 0
  assert_output "column,n,missing,mean,sd,se,min,median,max,ci_low,ci_high,p50
t,4,0,1000000000000.625,0.3227486121839514,0.1613743060919757,1000000000000.25,1000000000000.625,1000000000001,,,1000000000000.625"
}

@test "median of an even count is the mean of the middle two; odd is the middle" {
  run sh -c 'printf "g,v\ne,4\no,3\ne,1\no,1\ne,3\no,2\ne,2\n" | bench-summarize --by g --resamples 0 --percentiles 50'
  assert_status 0
  assert_output "g,column,n,missing,mean,sd,se,min,median,max,ci_low,ci_high,p50
e,v,4,0,2.5,1.2909944487358056,0.6454972243679028,1,2.5,4,,,2.5
o,v,3,0,2,1,0.5773502691896258,1,2,3,,,2"
}

@test "percentile edge cases: p0 is the min, p100 the max, p25 interpolates" {
  # numpy.percentile([15, 20, 35, 40, 50], [0, 25, 40, 100]) = 15, 20, 29, 50.
  run sh -c 'printf "v\n50\n20\n40\n15\n35\n" | bench-summarize --resamples 0 --percentiles 0,25,40,100'
  assert_status 0
  assert_output "column,n,missing,mean,sd,se,min,median,max,ci_low,ci_high,p0,p25,p40,p100
v,5,0,32,14.404860290887934,6.442049363362562,15,35,50,,,15,20,29,50"
}

@test "one value: sd, se and the CI are empty, not NaN" {
  run bench-summarize --seed 3 <<<"v
7.5"
  assert_status 0
  assert_output "column,n,missing,mean,sd,se,min,median,max,ci_low,ci_high,p5,p95
v,1,0,7.5,,,7.5,7.5,7.5,,,7.5,7.5"
}

@test "all values equal: sd 0 and an empty CI, with either method" {
  for ci in percentile bca; do
    run bench-summarize --seed 3 --ci "$ci" --ci-stat median <<<"v
2
2
2"
    assert_status 0
    assert_output "column,n,missing,mean,sd,se,min,median,max,ci_low,ci_high,p5,p95
v,3,0,2,0,0,2,2,2,,,2,2"
  done
}

@test "empty, NA and nan cells are counted as missing" {
  run summarize --by g <<<"g,v,w
a,1,x
a,,y
a,NA,z
a,NaN,z
a,3,
b,nan,q"
  assert_status 0
  assert_output "g,column,n,missing,mean,sd,se,min,median,max,ci_low,ci_high,p5,p95
a,v,2,3,2,1.4142135623730951,1,1,2,3,,,1.1,2.9
b,v,0,1,,,,,,,,,,"
}

@test "default value columns: numeric in every row, not a --by column" {
  # 'id' holds a word in one row, 'note' is all text, 'empty' has no number.
  run summarize --by host <<<"host,id,ms,note,empty,bytes
h1,1,2.5,warm,,100
h1,x2,3.5,cold,,300"
  assert_status 0
  assert_output "host,column,n,missing,mean,sd,se,min,median,max,ci_low,ci_high,p5,p95
h1,ms,2,0,3,0.7071067811865476,0.5,2.5,3,3.5,,,2.55,3.45
h1,bytes,2,0,200,141.4213562373095,100,100,200,300,,,110,290"
}

@test "groups need not be adjacent and come out in order of first appearance" {
  run summarize --by arm --value ms --percentiles 50 <<<"arm,ms
zeta,1
alpha,10
zeta,3
mid,5
alpha,30"
  assert_status 0
  assert_output "arm,column,n,missing,mean,sd,se,min,median,max,ci_low,ci_high,p50
zeta,ms,2,0,2,1.4142135623730951,1,1,2,3,,,2
alpha,ms,2,0,20,14.142135623730951,10,10,20,30,,,20
mid,ms,1,0,5,,,5,5,5,,,5"
}

@test "several group columns, in --by order" {
  run summarize --by size,arm --value ms --percentiles 50 <<<"arm,size,ms
a,8,1
b,8,2
a,8,3"
  assert_status 0
  assert_output "size,arm,column,n,missing,mean,sd,se,min,median,max,ci_low,ci_high,p50
8,a,ms,2,0,2,1.4142135623730951,1,1,2,3,,,2
8,b,ms,1,0,2,,,2,2,2,,,2"
}

@test "CRLF line ends and quoted fields with commas, quotes and newlines" {
  printf 'arm,"m""s"\r\n"pinned, 4 MiB",1\r\n"pinned, 4 MiB",3\r\n"two\nlines",5\r\n' > "$TMP/crlf.csv"
  run summarize --by arm --percentiles 50 "$TMP/crlf.csv"
  assert_status 0
  assert_output "arm,column,n,missing,mean,sd,se,min,median,max,ci_low,ci_high,p50
\"pinned, 4 MiB\",\"m\"\"s\",2,0,2,1.4142135623730951,1,1,2,3,,,2
\"two
lines\",\"m\"\"s\",1,0,5,,,5,5,5,,,5"
}

@test "several files are concatenated, columns matched by name" {
  printf 'arm,ms\na,1\nb,2\n' > "$TMP/one.csv"
  printf 'ms,arm\n3,a\n4,b\n' > "$TMP/two.csv"
  run summarize --by arm --percentiles 50 "$TMP/one.csv" "$TMP/two.csv"
  assert_status 0
  assert_output "arm,column,n,missing,mean,sd,se,min,median,max,ci_low,ci_high,p50
a,ms,2,0,2,1.4142135623730951,1,1,2,3,,,2
b,ms,2,0,3,1.4142135623730951,1,2,3,4,,,3"
  # stdin as '-' among files.
  run sh -c "bench-summarize --resamples 0 --by arm --percentiles 50 '$TMP/one.csv' - < '$TMP/two.csv'"
  assert_status 0
  assert_output "arm,column,n,missing,mean,sd,se,min,median,max,ci_low,ci_high,p50
a,ms,2,0,2,1.4142135623730951,1,1,2,3,,,2
b,ms,2,0,3,1.4142135623730951,1,2,3,4,,,3"
}

@test "--ratio adds the per-row ratio; a zero or missing denominator is missing" {
  run summarize --ratio a/b --value a --percentiles 50 <<<"a,b
2,1
6,2
9,3
5,0
4,NA"
  assert_status 0
  assert_output "column,n,missing,mean,sd,se,min,median,max,ci_low,ci_high,p50
a,5,0,5.2,2.588435821108957,1.1575836902790224,2,5,9,,,5
a/b,3,2,2.6666666666666665,0.5773502691896257,0.3333333333333333,2,3,3,,,3"
}

@test "--compare: ratio of means and Welch's p against the base level" {
  # {1..5} against {2,4,...,12}: ratio 3/7; Welch t = -2.3763541, df 6.9722557,
  # two-sided p = 0.04928433820673052 by mpmath; ours is 1.5e-17 off.  Base
  # rows have empty comparison columns.
  run summarize --compare arm=base --percentiles 50 <<<"arm,v
new,1
new,2
new,3
new,4
new,5
base,2
base,4
base,6
base,8
base,10
base,12"
  assert_status 0
  assert_output "arm,column,n,missing,mean,sd,se,min,median,max,ci_low,ci_high,p50,vs,ratio,ratio_ci_low,ratio_ci_high,p_welch
new,v,5,0,3,1.5811388300841898,0.7071067811865476,1,3,5,,,3,base,0.42857142857142855,,,0.049284338206730505
base,v,6,0,7,3.7416573867739413,1.5275252316519468,2,7,12,,,7,,,,,"
}

@test "--compare works within the other groups, and a group without base gets no comparison" {
  run summarize --by host --compare arm=b --value v --percentiles 50 <<<"host,arm,v
h1,a,2
h1,b,1
h2,a,9
h2,b,3
h3,a,4"
  assert_status 0
  assert_output "host,arm,column,n,missing,mean,sd,se,min,median,max,ci_low,ci_high,p50,vs,ratio,ratio_ci_low,ratio_ci_high,p_welch
h1,a,v,1,0,2,,,2,2,2,,,2,b,2,,,
h1,b,v,1,0,1,,,1,1,1,,,1,,,,,
h2,a,v,1,0,9,,,9,9,9,,,9,b,3,,,
h2,b,v,1,0,3,,,3,3,3,,,3,,,,,
h3,a,v,1,0,4,,,4,4,4,,,4,,,,,"
}

@test "--format table aligns columns and rounds to 6 digits" {
  run summarize --by arm --format table --percentiles 50 <<<"arm,ms
pinned,1
pinned,2
pageable-long,10"
  assert_status 0
  assert_output "arm            column  n  missing  mean        sd   se  min  median  max  ci_low  ci_high  p50
pinned         ms      2        0   1.5  0.707107  0.5    1     1.5    2       -        -  1.5
pageable-long  ms      1        0    10         -    -   10      10   10       -        -   10"
}

@test "--plot draws a ministat-style plot after the table" {
  # Columns are (v - 0) / 10 * 73 rounded: 1 -> 7, 2 -> 15, 8 -> 58.  b's
  # mean + sd (10.41) is past the right end, so its bar has no '|' there.
  run summarize --by g --plot --percentiles 50 <<<"g,v
a,0
a,1
a,2
b,8
b,10"
  assert_status 0
  assert_output "g  column  n  missing  mean       sd       se  min  median  max  ci_low  ci_high  p50
a  v       3        0     1        1  0.57735    0       1    2       -        -    1
b  v       2        0     9  1.41421        1    8       9   10       -        -    9

v
    x g=a (n=3)
    + g=b (n=2)
+--------------------------------------------------------------------------+
|x      x       x                                          +              +|
||______A_______|                                                          |
|                                                       |__________A_______|
+--------------------------------------------------------------------------+
 0                                                                        10"
}

# --- statistical properties ----------------------------------------------------

# N normal values, mean 100, sd 5, by Box-Muller in awk.
normal_values() {
  awk -v n="$1" -v seed="$2" 'BEGIN {
    srand(seed); print "v"
    for (i = 0; i < n; i++) {
      u = 1 - rand(); w = rand()
      printf "%.9f\n", 100 + 5 * sqrt(-2 * log(u)) * cos(6.283185307179586 * w)
    }
  }'
}

# Field NAME of the single data row of CSV on stdin.
field() {
  awk -F, -v name="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i; next }
                        { print $c }'
}

@test "10,000 normal values: percentile CI of the mean is mean +- 1.96 se within 4%" {
  normal_values 10000 1 > "$TMP/normal.csv"
  bench-summarize --seed 11 "$TMP/normal.csv" > "$TMP/out.csv"
  run awk -F, 'NR == 2 {
      half = ($11 - $10) / 2; want = 1.959964 * $6
      centre = ($11 + $10) / 2
      ok = half > 0.96 * want && half < 1.04 * want && (centre - $4) ^ 2 < (0.1 * $6) ^ 2
      print (ok ? "ok" : "bad: mean " $4 " se " $6 " ci " $10 " " $11) }' "$TMP/out.csv"
  assert_output "ok"
}

@test "the CI narrows as n grows: 100 values against 10,000" {
  normal_values 10000 2 > "$TMP/big.csv"
  head -n 101 "$TMP/big.csv" > "$TMP/small.csv"
  big=$(bench-summarize --seed 5 "$TMP/big.csv" | field ci_high)-$(bench-summarize --seed 5 "$TMP/big.csv" | field ci_low)
  small=$(bench-summarize --seed 5 "$TMP/small.csv" | field ci_high)-$(bench-summarize --seed 5 "$TMP/small.csv" | field ci_low)
  # Widths shrink like 1/sqrt(n): expect a ratio near 10.
  run awk "BEGIN { r = ($small) / ($big); print (r > 7 && r < 13 ? \"ok\" : \"ratio \" r) }"
  assert_output "ok"
}

@test "BCa equals percentile for symmetric data within Monte-Carlo error" {
  normal_values 2000 3 > "$TMP/sym.csv"
  for stat in mean median; do
    bench-summarize --seed 8 --ci-stat "$stat" "$TMP/sym.csv" > "$TMP/pct.csv"
    bench-summarize --seed 8 --ci-stat "$stat" --ci bca "$TMP/sym.csv" > "$TMP/bca.csv"
    run awk -F, 'FNR == 2 { lo[FILENAME] = $10; hi[FILENAME] = $11 }
      END { p = ARGV[1]; b = ARGV[2]; w = hi[p] - lo[p]
            d1 = lo[b] - lo[p]; d2 = hi[b] - hi[p]
            print (w > 0 && d1 * d1 < (0.1 * w) ^ 2 && d2 * d2 < (0.1 * w) ^ 2 ? "ok" : "differ " lo[p] " " hi[p] " " lo[b] " " hi[b]) }' \
      "$TMP/pct.csv" "$TMP/bca.csv"
    assert_output "ok"
  done
}

@test "BCa moves a right-skewed mean's interval to the right" {
  awk 'BEGIN { srand(4); print "v"; for (i = 0; i < 300; i++) printf "%.9f\n", -log(1 - rand()) }' > "$TMP/exp.csv"
  pct=$(bench-summarize --seed 2 "$TMP/exp.csv" | field ci_high)
  bca=$(bench-summarize --seed 2 --ci bca "$TMP/exp.csv" | field ci_high)
  run awk "BEGIN { print ($bca > $pct ? \"ok\" : \"bca $bca <= percentile $pct\") }"
  assert_output "ok"
}

@test "--confidence 0.5 gives a narrower interval than 0.99" {
  normal_values 500 6 > "$TMP/n.csv"
  w50=$(bench-summarize --seed 1 --confidence 0.5 "$TMP/n.csv" | awk -F, 'NR == 2 { print $11 - $10 }')
  w99=$(bench-summarize --seed 1 --confidence 0.99 "$TMP/n.csv" | awk -F, 'NR == 2 { print $11 - $10 }')
  # Normal theory: 2.576 / 0.674 = 3.8.
  run awk "BEGIN { r = $w99 / $w50; print (r > 3.3 && r < 4.4 ? \"ok\" : \"ratio \" r) }"
  assert_output "ok"
}

# --- determinism -------------------------------------------------------------------

@test "the same --seed gives byte-identical output; another seed another CI" {
  normal_values 300 7 > "$TMP/d.csv"
  a=$(bench-summarize --seed 42 --ci bca "$TMP/d.csv")
  b=$(bench-summarize --seed 42 --ci bca "$TMP/d.csv")
  c=$(bench-summarize --seed 43 --ci bca "$TMP/d.csv")
  [ "$a" = "$b" ]
  [ "$a" != "$c" ]
}

@test "without --seed the seed is reported, and reusing it reproduces the run" {
  normal_values 200 8 > "$TMP/d.csv"
  bench-summarize "$TMP/d.csv" > "$TMP/first.csv" 2> "$TMP/err"
  run grep -c '^bench-summarize: seed [0-9][0-9]*$' "$TMP/err"
  assert_output "1"
  seed=$(sed 's/.*seed //' "$TMP/err")
  run bench-summarize --seed "$seed" "$TMP/d.csv"
  assert_status 0
  assert_output "$(cat "$TMP/first.csv")"
  # No resampling, no seed to report.
  run bench-summarize --resamples 0 "$TMP/d.csv"
  assert_status 0
  [ "${lines[0]}" = "column,n,missing,mean,sd,se,min,median,max,ci_low,ci_high,p5,p95" ]
}

@test "a group's interval does not depend on other groups or on row order" {
  awk 'BEGIN { srand(9); print "g,v"
               for (i = 0; i < 100; i++) { printf "a,%.6f\n", rand(); printf "b,%.6f\n", 10 * rand() } }' > "$TMP/ab.csv"
  { echo "g,v"; grep '^b,' "$TMP/ab.csv" | sort -t, -k2 -r; } > "$TMP/b.csv"
  with_a=$(bench-summarize --seed 5 --by g --ci bca "$TMP/ab.csv" | grep '^b,')
  alone=$(bench-summarize --seed 5 --by g --ci bca "$TMP/b.csv" | grep '^b,')
  [ -n "$alone" ]
  [ "$with_a" = "$alone" ]
}

# --- errors --------------------------------------------------------------------------

make_error_inputs() {
  cd "$TMP"
  { echo "host,h2d_ns"; for i in 2 3 4 5 6 7 8 9 10 11; do echo "a,$i"; done; echo "a,abc"; } > bad.csv
  printf 'host,h2d_ns\na,1\na,2,3\n' > ragged.csv
  printf 'host,h2d_ns\n"a,1\na,2\n' > quote.csv
  : > empty.csv
  printf 'host,h2d_ns\n' > header.csv
  printf 'host,h2d_ns\na,1\nb,2\n' > good.csv
  printf 'host,other\na,1\n' > other.csv
  printf 'host,h2d_ns\na,NA\na,1\n' > na.csv
  printf 'host,a,b\nx,1,0\nx,2,1\n' > zero.csv
  printf 'host,name\nx,foo\n' > text.csv
}

@test "every error: one line and its exit status" {
  make_error_inputs
  failed=0
  # status | arguments (run in $TMP, with --seed 1) | message
  while IFS='|' read -r want args message; do
    run sh -c "bench-summarize --seed 1 $args"
    if [ "$status" -ne "$want" ] || [ "$output" != "$message" ]; then
      printf 'args: %s\n  want %s: %s\n  got  %s: %s\n' "$args" "$want" "$message" "$status" "$output" >&2
      failed=1
    fi
  done <<'EOF'
65|--value h2d_ns bad.csv|bench-summarize: line 12, column 'h2d_ns': 'abc' is not a number
65|bad.csv|bench-summarize: no numeric column to summarize (name one with --value)
65|text.csv|bench-summarize: no numeric column to summarize (name one with --value)
65|ragged.csv|bench-summarize: ragged.csv: line 3: expected 2 fields, found 3
65|< ragged.csv|bench-summarize: stdin: line 3: expected 2 fields, found 3
65|quote.csv|bench-summarize: quote.csv: line 2: malformed CSV (unterminated or misplaced quote)
65|good.csv other.csv|bench-summarize: other.csv: line 1: the columns differ from those of the first input
65|--strict --value h2d_ns na.csv|bench-summarize: line 2, column 'h2d_ns': 'NA' is not a number
65|--strict na.csv|bench-summarize: no numeric column to summarize (name one with --value)
65|--strict --ratio a/b zero.csv|bench-summarize: line 2, column 'a/b': division by zero
64|--by xyz good.csv|bench-summarize: --by: no column 'xyz' in the input
64|--value xyz good.csv|bench-summarize: --value: no column 'xyz' in the input
64|--ratio h2d_ns/xyz good.csv|bench-summarize: --ratio: no column 'xyz' in the input
64|--compare xyz=1 good.csv|bench-summarize: --compare: no column 'xyz' in the input
64|--compare host=zz good.csv|bench-summarize: --compare: no row has host=zz
64|--compare host good.csv|bench-summarize: --compare: expected COL=LEVEL, got 'host'
64|--ratio h2d_ns good.csv|bench-summarize: --ratio: expected NUM/DEN, got 'h2d_ns'
64|--ratio /x good.csv|bench-summarize: --ratio: expected NUM/DEN, got '/x'
64|--ci foo good.csv|bench-summarize: --ci: invalid choice 'foo' (choose from 'percentile', 'bca')
64|--ci-stat mode good.csv|bench-summarize: --ci-stat: invalid choice 'mode' (choose from 'mean', 'median')
64|--confidence 1 good.csv|bench-summarize: --confidence: '1' out of range (0, 1)
64|--confidence 0 good.csv|bench-summarize: --confidence: '0' out of range (0, 1)
64|--confidence x good.csv|bench-summarize: --confidence: invalid number 'x'
64|--resamples -1 good.csv|bench-summarize: --resamples: invalid number '-1'
64|--resamples 100000001 good.csv|bench-summarize: --resamples: '100000001' out of range [0, 100000000]
64|--seed abc good.csv|bench-summarize: --seed: invalid number 'abc'
64|--percentiles 101 good.csv|bench-summarize: --percentiles: '101' out of range [0, 100]
64|--percentiles 5,,95 good.csv|bench-summarize: --percentiles: empty item in list '5,,95'
64|--format json good.csv|bench-summarize: --format: invalid choice 'json' (choose from 'csv', 'table')
64|--plot --format csv good.csv|bench-summarize: --plot: needs --format table
66|empty.csv|bench-summarize: no input rows
66|header.csv|bench-summarize: no input rows
66|< /dev/null|bench-summarize: no input rows
66|nosuch.csv|bench-summarize: nosuch.csv: No such file or directory
EOF
  [ "$failed" -eq 0 ]
}

@test "an unknown option says so and how to get help" {
  run bench-summarize --bogus
  assert_status 64
  assert_output "bench-summarize: unrecognized option '--bogus'
Try 'bench-summarize --help' for more information."
  run bench-summarize good.csv --by
  assert_status 64
  assert_output "bench-summarize: option '--by' requires an argument
Try 'bench-summarize --help' for more information."
}

@test "output to a full disk fails with exit 74" {
  run sh -c 'printf "v\n1\n2\n" | bench-summarize --seed 1 > /dev/full'
  assert_status 74
  assert_output "bench-summarize: write error: No space left on device"
}

@test "--help and --version" {
  run bench-summarize --help
  assert_status 0
  [ "${lines[0]}" = "Usage: bench-summarize [OPTION]... [FILE]..." ]
  [[ "$output" == *"--ci percentile|bca"* ]]
  run bench-summarize --version
  assert_status 0
  [ "${lines[0]}" = "bench-summarize (arenabench) $ARENABENCH_VERSION" ]
}

# --- the man page's examples ------------------------------------------------------

# The commands of man/bench-summarize.1's EXAMPLES, one a line, with roff
# escapes undone and continuation lines joined.
man_examples() {
  awk '/^\.SH EXAMPLES/ { on = 1 } /^\.SH SEE ALSO/ { on = 0 }
       on && /^\.fi/ { inex = 0; print cmd; cmd = "" }
       on && inex { l = $0; gsub(/\\-/, "-", l); if (sub(/ *\\e$/, "", l)) cmd = cmd l " "; else cmd = cmd l }
       on && /^\.nf/ { inex = 1 }' "$top_srcdir/man/bench-summarize.1"
}

example_output() {
  case $1 in
  1) cat <<'EOF'
arm,size_mib,column,n,missing,mean,sd,se,min,median,max,ci_low,ci_high,p5,p95
pinned,8,h2d_ms,4,0,1.15,0.12909944487358058,0.06454972243679029,1,1.15,1.3,1.05,1.25,1.0150000000000001,1.285
pageable,8,h2d_ms,4,0,1.6,0.16329931618554527,0.08164965809277264,1.4,1.6,1.8,1.45,1.75,1.43,1.77
pinned,64,h2d_ms,4,0,8.05,0.1290994448735801,0.06454972243679005,7.9,8.05,8.2,7.95,8.149999999999999,7.915,8.184999999999999
pageable,64,h2d_ms,4,0,10.5,0.3366501646120695,0.16832508230603474,10.1,10.5,10.9,10.225,10.775,10.145,10.855
EOF
  ;;
  2) cat <<'EOF'
column,n,missing,mean,sd,se,min,median,max,ci_low,ci_high,p5,p95
serialized_ms,6,0,31,3.24037034920393,1.3228756555322954,27,30.75,36,27.75,34.5,27.375,35.25
serialized_ms/concurrent_ms,6,0,1.475,0.061237243569579415,0.024999999999999988,1.35,1.5,1.5,1.425,1.5,1.3875000000000002,1.5
EOF
  ;;
  3) cat <<'EOF'
size_mib  arm       column  n  missing  mean        sd         se   min  median   max  ci_low  ci_high      p5     p95  vs           ratio  ratio_ci_low  ratio_ci_high      p_welch
8         pinned    h2d_ms  4        0  1.15  0.129099  0.0645497     1    1.15   1.3    1.05     1.25   1.015   1.285  pageable   0.71875      0.632353       0.816667   0.00559701
8         pageable  h2d_ms  4        0   1.6  0.163299  0.0816497   1.4     1.6   1.8    1.45     1.75    1.43    1.77                   -             -              -            -
64        pinned    h2d_ms  4        0  8.05  0.129099  0.0645497   7.9    8.05   8.2    7.95     8.15   7.915   8.185  pageable  0.766667      0.743649       0.789855  0.000209795
64        pageable  h2d_ms  4        0  10.5   0.33665   0.168325  10.1    10.5  10.9  10.225   10.775  10.145  10.855                   -             -              -            -
EOF
  ;;
  4) cat <<'EOF'
arm       column  n  missing  mean       sd       se  min  median   max  ci_low  ci_high     p5     p95
pinned    h2d_ms  8        0   4.6  3.69014  1.30466    1     4.6   8.2       -        -  1.035   8.165
pageable  h2d_ms  8        0  6.05  4.76355  1.68417  1.4    5.95  10.9       -        -   1.47  10.795

h2d_ms
    x arm=pinned (n=8)
    + arm=pageable (n=8)
+--------------------------------------------------------------------------+
| x  +                                               x                     |
|xxx++ +                                            xxx             + + + +|
|___________________________A__________________________|                   |
|  |__________________________________A__________________________________| |
+--------------------------------------------------------------------------+
 1                                                                      10.9
EOF
  ;;
  5) cat <<'EOF'
arm,column,n,missing,mean,sd,se,min,median,max,ci_low,ci_high,p0,p25,p75,p100
pinned,h2d_ms,16,0,4.6,3.565015193983517,0.8912537984958793,1,4.6000000000000005,8.2,,,1,1.175,8.025,8.2
pageable,h2d_ms,16,0,6.05,4.602028538228187,1.1505071345570468,1.4,5.95,10.9,,,1.4,1.6,10.45,10.9
EOF
  ;;
  esac
}

@test "every example in bench-summarize(1) runs and gives its known output" {
  # Hand checks of example 1: pinned 8 MiB is 1.0,1.2,1.1,1.3, mean 1.15,
  # sd sqrt(0.05/3); example 2: the ratios are 1.5 five times and 1.35.
  man_examples > "$TMP/examples"
  run wc -l < "$TMP/examples"
  assert_output "5"
  cd "$DATA"
  i=0
  while read -r command; do
    i=$((i + 1))
    run sh -c "$command"
    assert_status 0
    assert_output "$(example_output $i)"
  done < "$TMP/examples"
}

@test "BCa with 10,000 resamples of 1,000 values takes well under a second" {
  awk 'BEGIN { srand(12); print "v"; for (i = 0; i < 1000; i++) printf "%.6f\n", -log(1 - rand()) }' > "$TMP/k.csv"
  start=$(date +%s%N)
  bench-summarize --seed 1 --ci bca --ci-stat median "$TMP/k.csv" > /dev/null
  end=$(date +%s%N)
  ms=$(( (end - start) / 1000000 ))
  echo "BCa median, 10,000 resamples of 1,000 values: ${ms} ms" >&2
  [ "$ms" -lt 1000 ]
}

@test "--value may name a --ratio column, which is then summarized alone" {
  run bench-summarize --format csv --resamples 0 --ratio serialized_ms/concurrent_ms \
    --value serialized_ms/concurrent_ms "$top_srcdir/tests/data/overlap.csv"
  assert_status 0
  [ "${lines[0]}" = "column,n,missing,mean,sd,se,min,median,max,ci_low,ci_high,p5,p95" ]
  [ "${#lines[@]}" -eq 2 ]
  [[ "${lines[1]}" == serialized_ms/concurrent_ms,6,0,1.475,* ]]
}
