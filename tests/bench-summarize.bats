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

# The columns every summary row has, after the group columns.
H="column,n,missing,mean,sd,se,min,median,max,ci_low,ci_high,ci_stat,ci_method,ci_level,seed"

@test "hand-checked set: mean, sd, se, median, percentiles, t interval, outliers" {
  # 2,4,4,4,5,5,7,9: mean 5, sd sqrt(32/7), se sd/sqrt(8), median 4.5;
  # p5 at position 0.35: 2 + 0.35 * 2 = 2.7; p95 at 6.65: 7 + 0.65 * 2 = 8.3,
  # written 8.299999999999999 because 7 * 0.95 rounds below 6.65 (numpy agrees).
  # t interval: 5 -+ t(7, 0.975) se, t(7, 0.975) = 2.3646242515927844 (scipy):
  # [3.2125120817637893, 6.787487918236211].  Tukey: Q1 4, Q3 5.5, fences
  # 1.75 and 7.75 (mild), 1 and 10 (severe): 9 is one mild outlier.
  # Positive and leaning right, log SD 0.45 (at 75% up to 0.57, past the
  # 0.38 where t covers 0.93 of log-normal means at n = 8): the skew
  # warning.
  run sh -c 'printf "x\n2\n4\n4\n4\n5\n5\n7\n9\n" | bench-summarize --resamples 0'
  assert_status 0
  assert_csv "bench-summarize: column 'x': positive values that may be spread by a large factor (the SD of their logs is 0.45, pooled over 1 rows; first: n=8; up to 0.57 at 75% confidence, past 0.38): the 95% interval of such a mean covers less (t covered 0.82 to 0.85 at n = 3 to 10 on log-normal data of log SD 1); --log-scale or --ci-stat gmean hold better
$H,p5,p95,outliers_mild,outliers_severe
x,8,0,5,2.138089935299395,0.7559289460184544,2,4.5,9,3.2125120817637893,6.787487918236211,mean,t,0.95,,2.7,8.299999999999999,1,0"
}

@test "large offset: 1e9 + small integers keeps its SD" {
  # Deviations -2..2 about 1000000003: sd = sqrt(10/4); t(4, 0.975) =
  # 2.7764451051977987, half width 1.9632431 (scipy).
  run sh -c 'printf "t\n1000000001\n1000000002\n1000000003\n1000000004\n1000000005\n" | bench-summarize --resamples 0 --percentiles 50'
  assert_status 0
  assert_csv "$H,p50,outliers_mild,outliers_severe
t,5,0,1000000003,1.5811388300841898,0.7071067811865476,1000000001,1000000003,1000000005,1000000001.0367569,1000000004.9632431,mean,t,0.95,,1000000003,0,0"
}

@test "large offset with fractional noise: 1e12 + 0.25 steps" {
  # 1e12 + {0.25, 0.5, 0.75, 1}: exact in binary; sd = 0.25 * sqrt(5/3).
  run sh -c 'printf "t\n1000000000000.25\n1000000000000.5\n1000000000000.75\n1000000000001\n" | bench-summarize --resamples 0 --percentiles 50'
  assert_status 0
  assert_csv "$H,p50,outliers_mild,outliers_severe
t,4,0,1000000000000.625,0.3227486121839514,0.1613743060919757,1000000000000.25,1000000000000.625,1000000000001,1000000000000.1115,1000000000001.1385,mean,t,0.95,,1000000000000.625,0,0"
}

@test "median of an even count is the mean of the middle two; odd is the middle" {
  run sh -c 'printf "g,v\ne,4\no,3\ne,1\no,1\ne,3\no,2\ne,2\n" | bench-summarize --by g --resamples 0 --percentiles 50'
  assert_status 0
  assert_csv "g,$H,p50,outliers_mild,outliers_severe
e,v,4,0,2.5,1.2909944487358056,0.6454972243679028,1,2.5,4,0.4457397432394794,4.554260256760521,mean,t,0.95,,2.5,0,0
o,v,3,0,2,1,0.5773502691896258,1,2,3,-0.4841377117503294,4.484137711750329,mean,t,0.95,,2,0,0"
}

@test "percentile edge cases: p0 is the min, p100 the max, p25 interpolates" {
  # numpy.percentile([15, 20, 35, 40, 50], [0, 25, 40, 100]) = 15, 20, 29, 50.
  run sh -c 'printf "v\n50\n20\n40\n15\n35\n" | bench-summarize --resamples 0 --percentiles 0,25,40,100'
  assert_status 0
  assert_csv "$H,p0,p25,p40,p100,outliers_mild,outliers_severe
v,5,0,32,14.404860290887934,6.442049363362562,15,35,50,14.114003577649449,49.88599642235055,mean,t,0.95,,15,20,29,50,0,0"
}

@test "one value: sd, se and the CI are empty, not NaN, and stderr says why" {
  run bench-summarize --seed 3 <<<"v
7.5"
  assert_status 0
  assert_csv "bench-summarize: no interval: fewer than 2 values, in 1 row (first: column 'v', n=1)
$H,p5,p95,outliers_mild,outliers_severe
v,1,0,7.5,,,7.5,7.5,7.5,,,mean,t,0.95,,7.5,7.5,0,0"
}

@test "all values equal: sd 0 and an empty CI with a reason, whatever the method" {
  # Ten values: the bootstrap methods are refused below 10.
  for ci in t percentile bca boot-t; do
    run bench-summarize --seed 3 --ci "$ci" <<<"v$(printf '\n2%.0s' 1 2 3 4 5 6 7 8 9 10)"
    assert_status 0
    seed=$([ "$ci" = t ] || echo 3)
    assert_csv "bench-summarize: no interval: all values equal, in 1 row (first: column 'v', n=10)
$H,p5,p95,outliers_mild,outliers_severe
v,10,0,2,0,0,2,2,2,,,mean,$ci,0.95,$seed,2,2,0,0"
  done
  for ci in order bca; do
    run bench-summarize --seed 3 --ci "$ci" --ci-stat median <<<"v$(printf '\n2%.0s' 1 2 3 4 5 6 7 8 9 10)"
    assert_status 0
    seed=$([ "$ci" = order ] || echo 3)
    assert_csv "bench-summarize: no interval: all values equal, in 1 row (first: column 'v', n=10)
$H,p5,p95,outliers_mild,outliers_severe
v,10,0,2,0,0,2,2,2,,,median,$ci,0.95,$seed,2,2,0,0"
  done
}

@test "empty, NA, nan and -nan cells are missing; inf and text are missing with a warning" {
  printf 'g,v,w\na,1,x\na,,y\na,NA,z\na,NaN,z\na,-nan,z\na,3,\na,inf,z\na,-Infinity,z\na,abc,z\nb,nan,q\n' > "$TMP/m.csv"
  run bench-summarize --resamples 0 --by g "$TMP/m.csv"
  assert_status 0
  assert_csv "bench-summarize: $TMP/m.csv: line 8, column 'v': 'inf' is infinite (counted as missing)
bench-summarize: $TMP/m.csv: line 9, column 'v': '-Infinity' is infinite (counted as missing)
bench-summarize: $TMP/m.csv: line 10, column 'v': 'abc' is not a number (counted as missing)
bench-summarize: no interval: no values, in 1 row (first: g=b, column 'v', n=0)
bench-summarize: column 'v': the mean's 95% interval reaches 0 or below though every value is positive (1 row, first: g=a, n=2): too few values for their spread to say anything; more runs, or --log-scale
g,$H,p5,p95,outliers_mild,outliers_severe
a,v,2,7,2,1.4142135623730951,1,1,2,3,-10.706204736174698,14.706204736174698,mean,t,0.95,,1.1,2.9,0,0
b,v,0,1,,,,,,,,,mean,t,0.95,,,,0,0"
  # Strict: the first such cell is an error, naming file, line and column.
  run bench-summarize --resamples 0 --by g --strict "$TMP/m.csv"
  assert_status 65
  assert_output "bench-summarize: $TMP/m.csv: line 3, column 'v': '' is missing"
  run bench-summarize --resamples 0 --by g --strict --value v "$TMP/m.csv"
  assert_status 65
  assert_output "bench-summarize: $TMP/m.csv: line 3, column 'v': '' is missing"
}

@test "a text cell never makes a column vanish; past three, the rest are counted" {
  { echo "id,ms"; for i in 1 2 3 4 5 6; do echo "x$i,$i"; done; echo "7,7"; echo "oops,8"
    echo "-,9"; echo "?,10"; } > "$TMP/t.csv"
  run bench-summarize --resamples 0 --value ms,id --percentiles 50 "$TMP/t.csv"
  assert_status 0
  assert_csv "bench-summarize: $TMP/t.csv: line 2, column 'id': 'x1' is not a number (counted as missing)
bench-summarize: $TMP/t.csv: line 3, column 'id': 'x2' is not a number (counted as missing)
bench-summarize: $TMP/t.csv: line 4, column 'id': 'x3' is not a number (counted as missing)
bench-summarize: column 'id': 6 more cells that are not finite numbers (counted as missing)
bench-summarize: no interval: fewer than 2 values, in 1 row (first: column 'id', n=1)
$H,p50,outliers_mild,outliers_severe
ms,10,0,5.5,3.0276503540974917,0.9574271077563381,1,5.5,10,3.3341494103318308,7.665850589668169,mean,t,0.95,,5.5,0,0
id,1,9,7,,,7,7,7,,,mean,t,0.95,,7,0,0"
}

@test "default value columns: measurements, not text, identifiers or configuration" {
  ! valgrind_build || skip "valgrind computes long double in 64 bits: the last digits of the statistics differ"
  # 'note' is text, 'empty' has no number: not measurements, silently.
  # 'id' holds a word in one row of two: numbers are not fewer, so it
  # stays, with a warning.
  run bench-summarize --resamples 0 --by host <<<"host,id,ms,note,empty,bytes
h1,1,2.5,warm,,100
h1,x2,3.5,cold,,300"
  assert_status 0
  assert_csv "bench-summarize: stdin: line 3, column 'id': 'x2' is not a number (counted as missing)
bench-summarize: no interval: fewer than 2 values, in 1 row (first: host=h1, column 'id', n=1)
bench-summarize: column 'ms': the mean's 95% interval reaches 0 or below though every value is positive (1 row, first: host=h1, n=2): too few values for their spread to say anything; more runs, or --log-scale
bench-summarize: column 'bytes': the mean's 95% interval reaches 0 or below though every value is positive (1 row, first: host=h1, n=2): too few values for their spread to say anything; more runs, or --log-scale
host,$H,p5,p95,outliers_mild,outliers_severe
h1,id,1,1,1,,,1,1,1,,,mean,t,0.95,,1,1,0,0
h1,ms,2,0,3,0.7071067811865476,0.5,2.5,3,3.5,-3.353102368087349,9.353102368087349,mean,t,0.95,,2.55,3.45,0,0
h1,bytes,2,0,200,141.4213562373095,100,100,200,300,-1070.6204736174695,1470.6204736174695,mean,t,0.95,,110,290,0,0"
  # d2h-overlap-like rows: trial counts within each method (a key), seed and
  # matrix_size are constant (configuration), cuda is text.
  run bench-summarize --resamples 0 --by method --percentiles 50 <<<"method,trial,seed,cuda,matrix_size,serialized_ms,concurrent_ms
a,1,7,13.0x,4096,30,20
a,2,7,13.0x,4096,33,22
a,3,7,13.0x,4096,28.5,19
b,1,7,13.0x,4096,31.5,21
b,2,7,13.0x,4096,30,20
b,3,7,13.0x,4096,33,22"
  assert_status 0
  assert_csv "bench-summarize: not summarized, as identifiers or configuration (name them with --value): trial (an integer key), seed (constant within every group), matrix_size (constant within every group)
method,$H,p50,outliers_mild,outliers_severe
a,serialized_ms,3,0,30.5,2.29128784747792,1.3228756555322954,28.5,30,33,24.808125449604862,36.19187455039514,mean,t,0.95,,30,0,0
a,concurrent_ms,3,0,20.333333333333332,1.5275252316519468,0.881917103688197,19,20,22,16.538750299736574,24.12791636693009,mean,t,0.95,,20,0,0
b,serialized_ms,3,0,31.5,1.5,0.8660254037844387,30,31.5,33,27.773793432374504,35.226206567625496,mean,t,0.95,,31.5,0,0
b,concurrent_ms,3,0,21,1,0.5773502691896258,20,21,22,18.51586228824967,23.48413771175033,mean,t,0.95,,21,0,0"
  # An explicit --value still selects anything.
  run bench-summarize --resamples 0 --by method --value trial --percentiles 50 <<<"method,trial
a,1
a,2
a,3"
  assert_status 0
  assert_csv "method,$H,p50,outliers_mild,outliers_severe
a,trial,3,0,2,1,0.5773502691896258,1,2,3,-0.4841377117503294,4.484137711750329,mean,t,0.95,,2,0,0"
}

@test "repeated header lines (concatenated run reports) are skipped" {
  run bench-summarize --resamples 0 --percentiles 50 <<<"v
1
v
3
v"
  assert_status 0
  assert_csv "bench-summarize: column 'v': the mean's 95% interval reaches 0 or below though every value is positive (1 row, first: n=2): too few values for their spread to say anything; more runs, or --log-scale
$H,p50,outliers_mild,outliers_severe
v,2,0,2,1.4142135623730951,1,1,2,3,-10.706204736174698,14.706204736174698,mean,t,0.95,,2,0,0"
}

@test "a UTF-8 byte order mark is skipped; a NUL byte in a field is an error" {
  printf '\357\273\277v\n1\n3\n' > "$TMP/bom.csv"
  run bench-summarize --resamples 0 --percentiles 50 "$TMP/bom.csv"
  assert_status 0
  assert_csv "bench-summarize: column 'v': the mean's 95% interval reaches 0 or below though every value is positive (1 row, first: n=2): too few values for their spread to say anything; more runs, or --log-scale
$H,p50,outliers_mild,outliers_severe
v,2,0,2,1.4142135623730951,1,1,2,3,-10.706204736174698,14.706204736174698,mean,t,0.95,,2,0,0"
  printf 'g,v\na,1\na,2\0\n' > "$TMP/nul.csv"
  run bench-summarize --resamples 0 "$TMP/nul.csv"
  assert_status 65
  assert_output "bench-summarize: $TMP/nul.csv: line 3, column 2: a NUL byte in the field"
}

@test "groups need not be adjacent and come out in order of first appearance" {
  run bench-summarize --resamples 0 --by arm --value ms --percentiles 50 <<<"arm,ms
zeta,1
alpha,10
zeta,3
mid,5
alpha,30"
  assert_status 0
  assert_csv "bench-summarize: no interval: fewer than 2 values, in 1 row (first: arm=mid, column 'ms', n=1)
bench-summarize: column 'ms': the mean's 95% intervals reach 0 or below though every value is positive (2 rows, first: arm=zeta, n=2): too few values for their spread to say anything; more runs, or --log-scale
arm,$H,p50,outliers_mild,outliers_severe
zeta,ms,2,0,2,1.4142135623730951,1,1,2,3,-10.706204736174698,14.706204736174698,mean,t,0.95,,2,0,0
alpha,ms,2,0,20,14.142135623730951,10,10,20,30,-107.06204736174695,147.06204736174695,mean,t,0.95,,20,0,0
mid,ms,1,0,5,,,5,5,5,,,mean,t,0.95,,5,0,0"
}

@test "several group columns, in --by order" {
  run bench-summarize --resamples 0 --by size,arm --value ms --percentiles 50 <<<"arm,size,ms
a,8,1
b,8,2
a,8,3"
  assert_status 0
  assert_csv "bench-summarize: no interval: fewer than 2 values, in 1 row (first: size=8, arm=b, column 'ms', n=1)
bench-summarize: column 'ms': the mean's 95% interval reaches 0 or below though every value is positive (1 row, first: size=8, arm=a, n=2): too few values for their spread to say anything; more runs, or --log-scale
size,arm,$H,p50,outliers_mild,outliers_severe
8,a,ms,2,0,2,1.4142135623730951,1,1,2,3,-10.706204736174698,14.706204736174698,mean,t,0.95,,2,0,0
8,b,ms,1,0,2,,,2,2,2,,,mean,t,0.95,,2,0,0"
}

@test "CRLF line ends and quoted fields with commas, quotes and newlines" {
  printf 'arm,"m""s"\r\n"pinned, 4 MiB",1\r\n"pinned, 4 MiB",3\r\n"two\nlines",5\r\n' > "$TMP/crlf.csv"
  run bench-summarize --resamples 0 --by arm --percentiles 50 "$TMP/crlf.csv"
  assert_status 0
  assert_output "bench-summarize: no interval: fewer than 2 values, in 1 row (first: arm='two'\$'\\n''lines', column 'm\"s', n=1)
bench-summarize: column 'm\"s': the mean's 95% interval reaches 0 or below though every value is positive (1 row, first: arm='pinned, 4 MiB', n=2): too few values for their spread to say anything; more runs, or --log-scale
arm,$H,p50,outliers_mild,outliers_severe
\"pinned, 4 MiB\",\"m\"\"s\",2,0,2,1.4142135623730951,1,1,2,3,-10.706204736174698,14.706204736174698,mean,t,0.95,,2,0,0
\"two
lines\",\"m\"\"s\",1,0,5,,,5,5,5,,,mean,t,0.95,,5,0,0"
}

@test "several files are concatenated, columns matched by name" {
  printf 'arm,ms\na,1\nb,2\n' > "$TMP/one.csv"
  printf 'ms,arm\n3,a\n4,b\n' > "$TMP/two.csv"
  want="arm,$H,p50,outliers_mild,outliers_severe
a,ms,2,0,2,1.4142135623730951,1,1,2,3,-10.706204736174698,14.706204736174698,mean,t,0.95,,2,0,0
b,ms,2,0,3,1.4142135623730951,1,2,3,4,-9.706204736174698,15.706204736174698,mean,t,0.95,,3,0,0"
  run bench-summarize --resamples 0 --by arm --percentiles 50 "$TMP/one.csv" "$TMP/two.csv"
  assert_status 0
  assert_csv "bench-summarize: column 'ms': the mean's 95% intervals reach 0 or below though every value is positive (2 rows, first: arm=a, n=2): too few values for their spread to say anything; more runs, or --log-scale
$want"
  # stdin as '-' among files.
  run sh -c "bench-summarize --resamples 0 --by arm --percentiles 50 '$TMP/one.csv' - < '$TMP/two.csv'"
  assert_status 0
  assert_csv "bench-summarize: column 'ms': the mean's 95% intervals reach 0 or below though every value is positive (2 rows, first: arm=a, n=2): too few values for their spread to say anything; more runs, or --log-scale
$want"
}

@test "--ratio: a zero or missing denominator is missing; the geometric mean with a log-scale t interval" {
  ! valgrind_build || skip "valgrind computes long double in 64 bits: the last digits of the statistics differ"
  # a/b = 2, 3, 3: gmean 18^(1/3) = 2.620741394208897; logs' mean and sd,
  # t(2, 0.975) = 4.302652729749461 (scipy): [1.4651125535682827, 4.687889294643116].
  run bench-summarize --resamples 0 --ratio a/b --value a --percentiles 50 <<<"a,b
2,1
6,2
9,3
5,0
4,NA"
  assert_status 0
  # a/b's logs 0.69, 1.10, 1.10: the largest gap 1.732 SDs, past 1.727.
  assert_csv "bench-summarize: column 'a/b': 1 of 1 rows look bimodal or skewed (first: n=3, a gap of 1.732 SDs between neighbours on the log scale, above 1.727, the 1% level for normal data); below 30 values its 95% intervals may cover far less, in any row
bench-summarize: column 'a': positive values that may be spread by a large factor (the SD of their logs is 0.56, pooled over 1 rows; first: n=5; up to 0.80 at 75% confidence, past 0.38): the 95% interval of such a mean covers less (t covered 0.82 to 0.85 at n = 3 to 10 on log-normal data of log SD 1); --log-scale or --ci-stat gmean hold better
column,n,missing,mean,sd,se,min,median,max,gmean,ci_low,ci_high,ci_stat,ci_method,ci_level,seed,p50,outliers_mild,outliers_severe
a,5,0,5.2,2.588435821108957,1.1575836902790224,2,5,9,4.6439843790034585,1.9860324292680094,8.413967570731991,mean,t,0.95,,5,0,0
a/b,3,2,2.6666666666666665,0.5773502691896257,0.3333333333333333,2,3,3,2.620741394208897,1.4651125535682827,4.687889294643116,gmean,t,0.95,,3,0,0"
}

@test "--ratio a/b and b/a give reciprocal geometric means and intervals" {
  # The arithmetic mean of ratios gave 2.125 both ways for {1,4},{4,1}.
  run sh -c 'printf "a,b\n1,4\n4,1\n2,1\n" | bench-summarize --resamples 0 --ratio a/b --ratio b/a --value a/b,b/a --format csv'
  assert_status 0
  run awk -F, 'NR == 2 { g = $1; lo = $2; hi = $3 } NR == 3 { G = $1; LO = $2; HI = $3 }
    END { e = 1e-12; ok = (g * G - 1) ^ 2 < e && (lo * HI - 1) ^ 2 < e && (hi * LO - 1) ^ 2 < e
          print (ok ? "ok" : "not reciprocal: " g " " lo " " hi " / " G " " LO " " HI) }' <<<"$(columns gmean ci_low ci_high <<<"$output")"
  assert_status 0
  assert_output "ok"
}

@test "--compare: Welch's t, df and p; the difference; Fieller's ratio interval" {
  # {1..5} against {2,4,...,12}: ratio 3/7; Welch t = -2.3763541, df 6.9722557,
  # two-sided p = 0.049284338206730520766 by mpmath.  p < 0.05, so both
  # intervals exclude no difference.  Base rows have empty comparison columns.
  run bench-summarize --resamples 0 --compare arm=base --percentiles 50 <<<"arm,v
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
  assert_csv "arm,$H,p50,outliers_mild,outliers_severe,vs,ratio,ratio_ci_low,ratio_ci_high,diff,diff_ci_low,diff_ci_high,diff_pct,diff_pct_ci_low,diff_pct_ci_high,t,df,p_welch
new,v,5,0,3,1.5811388300841898,0.7071067811865476,1,3,5,1.0367568385224428,4.963243161477557,mean,t,0.95,,3,0,0,base,0.42857142857142855,0.1733104577152313,0.9955570410819267,-4,-7.983468695628831,-0.01653130437116923,-57.14285714285714,-82.66895422847686,-0.44429589180733364,-2.3763541031440183,6.9722557297949335,0.04928433820673052
base,v,6,0,7,3.7416573867739413,1.5275252316519468,2,7,12,3.0733713860393537,10.926628613960647,mean,t,0.95,,7,0,0,,,,,,,,,,,,,"
}

@test "--compare against scipy: summaries, t, df, p, difference and Fieller intervals" {
  # tests/data/reference/compare-expected.csv came from make-reference.py.
  ref="$DATA/reference"
  bench-summarize --resamples 0 --compare arm=base --value ms --ratio ms/scale \
    --format csv "$ref/compare.csv" > "$TMP/got.csv"
  bench-summarize --resamples 0 --ci-stat median --value ms --by arm \
    --format csv "$ref/compare.csv" > "$TMP/median.csv"
  run awk -F, '
    FILENAME ~ /expected/ { if (FNR > 1) want[$1, $2] = $3; next }
    FNR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    FILENAME ~ /median/ { got[$1, "median_ci_low"] = $(c["ci_low"]); got[$1, "median_ci_high"] = $(c["ci_high"]); next }
    $(c["column"]) == "ms" {
      split("mean sd se median ci_low ci_high t df p_welch diff diff_ci_low diff_ci_high ratio ratio_ci_low ratio_ci_high", s, " ")
      for (k in s) got[$1, s[k]] = $(c[s[k]]) }
    $(c["column"]) == "ms/scale" { got[$1, "gmean"] = $(c["gmean"]); got[$1, "gmean_ci_low"] = $(c["ci_low"]); got[$1, "gmean_ci_high"] = $(c["ci_high"]) }
    END {
      for (key in want) {
        n++; split(key, part, SUBSEP); w = want[key]; g = got[key]
        if (w == "" && g == "") continue
        if (w == "" || g == "" || (g - w) ^ 2 > (1e-12 * (w < 0 ? -w : w)) ^ 2) { print "differ " part[1] " " part[2] ": got " g ", want " w; bad++ }
      }
      print (bad ? bad " of " n " differ" : n " values agree") }' \
    "$ref/compare-expected.csv" "$TMP/median.csv" "$TMP/got.csv"
  assert_status 0
  assert_output "48 values agree"
}

@test "Welch's p keeps its accuracy in the far tail" {
  # 0..200 against 60..260: t = 10.3407, df = 400, p = 2.274525332198423e-22
  # (scipy); the old code gave 0.
  awk 'BEGIN { print "g,v"; for (i = 0; i <= 200; i++) { print "a," i; print "b," i + 60 } }' > "$TMP/far.csv"
  run bash -c "set -o pipefail; bench-summarize --resamples 0 --compare g=a --value v '$TMP/far.csv' | awk -F, 'NR == 3 { print \$NF }'"
  assert_status 0
  assert_output "2.2745253321986343e-22"
}

@test "Fieller's interval is empty, and says so, when the base mean is not clearly away from 0" {
  run bench-summarize --resamples 0 --compare arm=zero --value ms --format csv "$DATA/reference/compare.csv"
  assert_status 0
  [ "${lines[0]}" = "bench-summarize: no interval of the ratio: the base mean is not clearly away from 0: Fieller's interval is unbounded, in 2 comparisons (first: arm=base, column 'ms')" ]
  [[ "${lines[2]}" == base,ms,12,0,*,zero,269.94*,,,99.085654761904*,* ]]
}

@test "--compare works within the other groups, and a group without base gets no comparison" {
  run bench-summarize --resamples 0 --by host --compare arm=b --value v --percentiles 50 <<<"host,arm,v
h1,a,2
h1,b,1
h2,a,9
h2,b,3
h3,a,4"
  assert_status 0
  assert_csv "bench-summarize: no interval: fewer than 2 values, in 5 rows (first: host=h1, arm=a, column 'v', n=1)
bench-summarize: no comparison intervals: fewer than 2 values on a side, in 2 comparisons (first: host=h1, arm=a, column 'v')
host,arm,$H,p50,outliers_mild,outliers_severe,vs,ratio,ratio_ci_low,ratio_ci_high,diff,diff_ci_low,diff_ci_high,diff_pct,diff_pct_ci_low,diff_pct_ci_high,t,df,p_welch
h1,a,v,1,0,2,,,2,2,2,,,mean,t,0.95,,2,0,0,b,2,,,1,,,100,,,,,
h1,b,v,1,0,1,,,1,1,1,,,mean,t,0.95,,1,0,0,,,,,,,,,,,,,
h2,a,v,1,0,9,,,9,9,9,,,mean,t,0.95,,9,0,0,b,3,,,6,,,200,,,,,
h2,b,v,1,0,3,,,3,3,3,,,mean,t,0.95,,3,0,0,,,,,,,,,,,,,
h3,a,v,1,0,4,,,4,4,4,,,mean,t,0.95,,4,0,0,,,,,,,,,,,,,"
}

@test "--format table: enough digits to tell values apart, and a verdict per comparison" {
  # The issue's example: p = 0.14, so no difference shown, and the ratio
  # interval holds 1.  Each statistic with an interval (the mean, the
  # ratio, the difference) carries the digits of that interval: rounded at
  # the second significant digit of its shorter half; near 1e9 the table
  # keeps the digits that differ.
  run bench-summarize --resamples 0 --compare arm=base --format table --percentiles 50 <<<"arm,x
base,10
base,11
base,12
new,11.5
new,12.5
new,13.5"
  assert_status 0
  assert_output "arm   column  n  missing  mean  sd       se   min  median   max  ci_low  ci_high  ci_stat  ci_method  ci_level  seed   p50  outliers_mild  outliers_severe  vs    ratio  ratio_ci_low  ratio_ci_high  diff  diff_ci_low  diff_ci_high  diff_pct  diff_pct_ci_low  diff_pct_ci_high        t  df  p_welch
base  x       3        0  11.0   1  0.57735    10      11    12     8.5     13.5  mean     t              0.95  -       11              0                0  -         -             -              -     -            -             -         -                -                 -        -   -        -
new   x       3        0  12.5   1  0.57735  11.5    12.5  13.5    10.0     15.0  mean     t              0.95  -     12.5              0                0  base   1.14          0.93           1.39   1.5         -0.8           3.8        14               -7                39  1.83712   4     0.14

arm=new vs arm=base: x no difference shown at 95% (1.14x [0.93, 1.39], p = 0.14, Welch)"
  run bench-summarize --resamples 0 --format table --value t --percentiles 50 <<<"t
1000000001
1000000002
1000000003"
  assert_status 0
  assert_output "column  n  missing          mean  sd       se         min      median         max       ci_low       ci_high  ci_stat  ci_method  ci_level  seed         p50  outliers_mild  outliers_severe
t       3        0  1000000002.0   1  0.57735  1000000001  1000000002  1000000003  999999999.5  1000000004.5  mean     t              0.95  -     1000000002              0                0"
}

@test "a ratio near 1 with a tiny p keeps the digits that tell it from its interval's ends" {
  # The 6-digit table printed such a ratio as 1 [1, 1] beside p = 3e-6; the
  # digits are those of the interval: two significant ones of its half width.
  # A column in ns is a time: higher is slower.
  run bash -c "set -o pipefail; printf 'arm,ns\nb,1000000.0\nb,1000000.1\nb,999999.9\nb,1000000.05\nn,1000001.0\nn,1000001.1\nn,1000000.9\nn,1000001.05\n' \
    | bench-summarize --compare arm=b --resamples 0 --format table | tail -n 1"
  assert_status 0
  assert_output "arm=n vs arm=b: ns 1.00000100x [1.00000085, 1.00000115] slower (p = 3.1e-6, Welch)"
}

@test "--format json: numbers as numbers, unknowns as null" {
  run bench-summarize --resamples 0 --format json --by g --percentiles 50 <<<"g,v
a,1
a,3
\"b\"\"q\",5"
  assert_status 0
  assert_output 'bench-summarize: no interval: fewer than 2 values, in 1 row (first: g='"'"'b"q'"'"', column '"'v'"', n=1)
bench-summarize: column '"'"'v'"'"': the mean'"'"'s 95% interval reaches 0 or below though every value is positive (1 row, first: g=a, n=2): too few values for their spread to say anything; more runs, or --log-scale
[
 {"g": "a", "column": "v", "n": 2, "missing": 0, "mean": 2, "sd": 1.4142135623730951, "se": 1, "min": 1, "median": 2, "max": 3, "ci_low": -10.706204736174698, "ci_high": 14.706204736174698, "ci_stat": "mean", "ci_method": "t", "ci_level": 0.95, "seed": null, "p50": 2, "outliers_mild": 0, "outliers_severe": 0},
 {"g": "b\"q", "column": "v", "n": 1, "missing": 0, "mean": 5, "sd": null, "se": null, "min": 5, "median": 5, "max": 5, "ci_low": null, "ci_high": null, "ci_stat": "mean", "ci_method": "t", "ci_level": 0.95, "seed": null, "p50": 5, "outliers_mild": 0, "outliers_severe": 0}
]'
  # The seed is a string: a JSON number would round 2^64 - 1.  The
  # percentile bootstrap of ten equal values draws, and has no interval.
  run sh -c 'printf "v\n1\n1\n1\n1\n1\n1\n1\n1\n1\n1\n" | bench-summarize --ci percentile --seed 18446744073709551615 --format json 2> /dev/null'
  assert_status 0
  assert_output '[
 {"column": "v", "n": 10, "missing": 0, "mean": 1, "sd": 0, "se": 0, "min": 1, "median": 1, "max": 1, "ci_low": null, "ci_high": null, "ci_stat": "mean", "ci_method": "percentile", "ci_level": 0.95, "seed": "18446744073709551615", "p5": 1, "p95": 1, "outliers_mild": 0, "outliers_severe": 0}
]'
}

@test "--format markdown: a pipe table and the verdicts as a list" {
  run bench-summarize --resamples 0 --format markdown --compare arm=base --value x --percentiles 50 <<<"arm,x
base,10
base,11
base,12
new,21.5
new,22.5
new,23.5"
  assert_status 0
  assert_output "| arm  | column |   n | missing | mean |  sd |      se |  min | median |  max | ci_low | ci_high | ci_stat | ci_method | ci_level | seed |  p50 | outliers_mild | outliers_severe | vs   | ratio | ratio_ci_low | ratio_ci_high | diff | diff_ci_low | diff_ci_high | diff_pct | diff_pct_ci_low | diff_pct_ci_high |       t |  df | p_welch |
|:---- |:------ | ---:| -------:| ----:| ---:| -------:| ----:| ------:| ----:| ------:| -------:|:------- |:--------- | --------:|:---- | ----:| -------------:| ---------------:|:---- | -----:| ------------:| -------------:| ----:| -----------:| ------------:| --------:| ---------------:| ----------------:| -------:| ---:| -------:|
| base | x      |   3 |       0 | 11.0 |   1 | 0.57735 |   10 |     11 |   12 |    8.5 |    13.5 | mean    | t         |     0.95 | -    |   11 |             0 |               0 | -    |     - |            - |             - |    - |           - |            - |        - |               - |                - |       - |   - |       - |
| new  | x      |   3 |       0 | 22.5 |   1 | 0.57735 | 21.5 |   22.5 | 23.5 |   20.0 |    25.0 | mean    | t         |     0.95 | -    | 22.5 |             0 |               0 | base |  2.05 |         1.75 |          2.43 | 11.5 |         9.2 |         13.8 |      105 |              75 |              143 | 14.0846 |   4 | 0.00015 |

- arm=new vs arm=base: x 2.05x [1.75, 2.43] higher (p = 0.00015, Welch)"
}

@test "the median's interval: order statistics, none below 6 values at 95%, said once" {
  # n = 6: [x(1), x(6)] covers 1 - 2/64; n = 20: [x(6), x(15)] (binomial).
  { echo "g,v"; for i in 1 2 3 4 5; do echo "five,$i"; echo "four,$i"; done; for i in $(seq 1 6); do echo "six,$i"; done
    for i in $(seq 1 20); do echo "twenty,$i"; done; } | grep -v 'four,5' > "$TMP/med.csv"
  run bench-summarize --ci-stat median --by g --percentiles 50 "$TMP/med.csv"
  assert_status 0
  assert_csv "bench-summarize: no distribution-free 95% interval of the median from fewer than 6 values, in 2 rows (first: g=five, column 'v', n=5)
g,$H,p50,outliers_mild,outliers_severe
five,v,5,0,3,1.5811388300841898,0.7071067811865476,1,3,5,,,median,order,0.95,,3,0,0
four,v,4,0,2.5,1.2909944487358056,0.6454972243679028,1,2.5,4,,,median,order,0.95,,2.5,0,0
six,v,6,0,3.5,1.8708286933869707,0.7637626158259734,1,3.5,6,1,6,median,order,0.95,,3.5,0,0
twenty,v,20,0,10.5,5.916079783099616,1.3228756555322954,1,10.5,20,6,15,median,order,0.95,,10.5,0,0"
}

@test "Tukey outliers are counted per group and column, with a warning when many" {
  { echo "v"; for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16; do echo "$((100 + i % 4))"; done; echo 107; echo 111; echo 200; } > "$TMP/out.csv"
  run bench-summarize --resamples 0 --percentiles 50 "$TMP/out.csv"
  assert_status 0
  # 100..103 four times each, 107, 111, 200: Q1 101, Q3 103 (type 7 at
  # 4.5 and 13.5 of 18), fences 98 and 106 (mild), 95 and 109 (severe):
  # 107 is mild, 111 and 200 severe: 3 of 19, which clean normal data of
  # 19 reach 3.5% of the time, so no outlier warning (it asks for 5).
  # The gap from 111 to 200 is 3.944 SDs: the shape warning.
  assert_csv "bench-summarize: column 'v': 1 of 1 rows look bimodal or skewed (first: n=19, a gap of 3.944 SDs between neighbours, above 1.930, the 1% level for normal data); below 30 values its 95% intervals may cover far less, in any row
$H,p50,outliers_mild,outliers_severe
v,19,0,107.47368421052632,22.564397771348247,5.176627874061126,100,102,200,96.59799261578519,118.34937580526744,mean,t,0.95,,102,1,2"
}

@test "the outlier warning asks for as many values beyond Tukey's fences as clean normal data give under 1% of the time, and names its rule" {
  # 9.0 and 11.2 among 10 values near 10.1: Q1 10.0, Q3 10.2, fences 9.7
  # and 10.5: 2 of 10 outside, which clean normal groups of 10 reach 2.5%
  # of the time (the old rule, more than 10% of a row, warned: 9% of
  # clean groups of 10).
  run sh -c "printf 'v\n9.0\n9.9\n10.0\n10.0\n10.1\n10.1\n10.2\n10.2\n10.3\n11.2\n' | bench-summarize --resamples 0 2>&1 >/dev/null"
  assert_status 0
  assert_output ""
  # 0, 1, 10 and 11 about 5.0 to 5.5: Q1 5.025, Q3 5.475, all four past 3
  # IQR; 4 of 10, under 1% of clean groups (0.4%, simulated).
  run sh -c "printf 'v\n0\n1\n5\n5.1\n5.2\n5.3\n5.4\n5.5\n10\n11\n' | bench-summarize --resamples 0 2>&1 >/dev/null"
  assert_status 0
  [ "${lines[0]}" = "bench-summarize: column 'v': 4 of 10 values lie beyond Tukey's fences (1.5 IQR past the quartiles; 4 of them past 3 IQR), where clean normal data of 10 values have 4 or more less than 1% of the time: the runs may have been disturbed" ]
}

@test "two positive values whose interval reaches 0 or below get a line that says it tells nothing" {
  # 1 and 9 against 10 and 11: the mean's t interval is [-46, 56] and
  # Fieller's ratio 0.5x [-4.8, 6.2], for times that cannot be negative.
  run sh -c "printf 'arm,ms\na,10\na,11\nb,1\nb,9\n' | bench-summarize --compare arm=a --format table 2>&1 >/dev/null"
  assert_status 0
  assert_output "bench-summarize: column 'ms': the mean's 95% interval reaches 0 or below though every value is positive (1 row, first: arm=b, n=2): too few values for their spread to say anything; more runs, or --log-scale
bench-summarize: column 'ms': the ratio's 95% interval reaches 0 or below though every value is positive (1 row, first: arm=b, n=2): too few values for their spread to say anything; more runs, or --log-scale"
  # On the log scale both stay positive: no line.
  run sh -c "printf 'arm,ms\na,10\na,11\nb,1\nb,9\n' | bench-summarize --compare arm=a --log-scale --format table 2>&1 >/dev/null"
  assert_status 0
  assert_output ""
}

@test "rows whose text columns differ, pooled with no --by, get a line naming the column (hyperfine's CSV)" {
  # hyperfine --export-csv: one row per command; averaged together, the
  # two commands were one mean without a word.
  printf 'command,mean,stddev,median,user,system,min,max\nsleep 0.1,0.1012,0.0008,0.1011,0.0005,0.0006,0.1002,0.1030\nsleep 0.2,0.2011,0.0007,0.2010,0.0005,0.0006,0.2001,0.2027\n' > "$TMP/hf.csv"
  run sh -c "bench-summarize --value mean '$TMP/hf.csv' 2>&1 >/dev/null"
  assert_status 0
  assert_output "bench-summarize: column 'command' differs between rows ('sleep 0.1', 'sleep 0.2', ...) but no --by names it: their numbers are pooled into one summary (--by command keeps them apart)
bench-summarize: column 'mean': the mean's 95% interval reaches 0 or below though every value is positive (1 row, first: n=2): too few values for their spread to say anything; more runs, or --log-scale"
  run sh -c "bench-summarize --by command --value mean '$TMP/hf.csv' 2>&1 >/dev/null"
  assert_status 0
  assert_output "bench-summarize: no interval: fewer than 2 values, in 2 rows (first: command='sleep 0.1', column 'mean', n=1)"
}

@test "hyperfine's and pytest-benchmark's JSON are read as rows of their runs, so --compare tests them" {
  # hyperfine --export-json: per-run times per command, a quote escaped.
  printf '{\n "results": [\n  {"command": "sleep 0.1", "mean": 0.1012, "times": [0.1011, 0.1020, 0.1005, 0.1009, 0.1015], "exit_codes": [0, 0, 0, 0, 0]},\n  {"command": "sleep \\"0.12\\"", "times": [0.1211, 0.1220, 0.1205, 0.1209, 0.1215]}\n ]\n}\n' > "$TMP/hf.json"
  run bash -c "set -o pipefail; bench-summarize --compare 'command=sleep 0.1' --format table '$TMP/hf.json' | tail -n 1"
  assert_status 0
  assert_output "command=sleep \"0.12\" vs command=sleep 0.1: time_s 1.1976x [1.1885, 1.2069] slower (p = 1.3e-11, Welch)"
  # pytest-benchmark --benchmark-json with --benchmark-save-data: rounds.
  printf '{"benchmarks": [{"name": "test_fast", "stats": {"mean": 0.0012, "data": [0.0011, 0.0012, 0.0013, 0.0012]}}, {"name": "test_slow", "stats": {"data": [0.0021, 0.0022, 0.0023, 0.0022]}}]}' > "$TMP/pb.json"
  run sh -c "bench-summarize --by name --columns name,column,n,mean --format csv '$TMP/pb.json'"
  assert_status 0
  assert_output "name,column,n,mean
test_fast,time_s,4,0.0012
test_slow,time_s,4,0.0022"
  # Without the rounds: refused, saying why.
  printf '{"benchmarks": [{"name": "test_fast", "stats": {"mean": 0.0012, "rounds": 4}}]}' > "$TMP/pb-stats.json"
  run bench-summarize "$TMP/pb-stats.json"
  assert_status 65
  assert_output "bench-summarize: $TMP/pb-stats.json: pytest-benchmark's JSON has only summary statistics, no per-round times (benchmarks[].stats.data), and no interval can come from those: run it with --benchmark-save-data"
  run bench-summarize <<<'{"results": [1, ]}'
  assert_status 65
  assert_output "bench-summarize: stdin: line 1: malformed JSON: not a JSON value"
  run bench-summarize <<<'{"rows": []}'
  assert_status 65
  assert_output "bench-summarize: stdin: JSON, but neither hyperfine's (\"results\") nor pytest-benchmark's (\"benchmarks\"); give bench-summarize CSV"
}

@test "a regression gate: exit 1 when worse beyond the tolerance, 0 within it, 65 when it cannot judge" {
  { echo "arm,ms"; for v in 10.0 10.1 9.9 10.0 10.2 9.8; do echo "a,$v"; echo "b,$v"; done; } > "$TMP/base.csv"
  { echo "arm,ms"; for v in 11.0 11.1 10.9 11.0 11.2 10.8; do echo "a,$v"; done
    for v in 10.1 10.2 10.0 10.1 10.3 9.9; do echo "b,$v"; done; } > "$TMP/cand.csv"
  run bench-summarize --baseline "$TMP/base.csv" --by arm --value ms --fail-if-worse ms:5%:lower \
    --format csv "$TMP/cand.csv"
  assert_status 1
  # a: 1.1x, Fieller [1.081, 1.119]: all of it beyond 1.05 (mpmath at 50 digits:
  # 1.08105565931160285, 1.11930847181515043).  b: 1.01x.
  [ "${#lines[@]}" -eq 6 ]
  [[ "${lines[3]}" == a,candidate,ms,6,0,11,*,baseline,1.1,1.081055659311603,1.1193084718151503,* ]]
  # The exact permutation test: every one of the C(12, 6) = 924 ways but
  # the observed one puts less time on the candidate's side.
  [ "${lines[5]}" = "bench-summarize: arm=a, ms: regression: 1.1x [1.081, 1.119] the baseline, worse by more than 5% at 95% (lower is better; one-sided p = 0.0011)" ]
  # b is 1% slower: within 5%.  And where higher is better, a is better.
  run bench-summarize --baseline "$TMP/base.csv" --by arm --value ms --fail-if-worse ms:5%:higher \
    --format csv "$TMP/cand.csv"
  assert_status 0
  [ "${#lines[@]}" -eq 5 ]
  # One value a side: no interval, no verdict.
  printf 'arm,ms\na,10\n' > "$TMP/one.csv"
  run bench-summarize --baseline "$TMP/one.csv" --value ms --fail-if-worse ms:5%:lower --format csv "$TMP/one.csv"
  assert_status 65
  [ "${lines[0]}" = "bench-summarize: no interval: fewer than 2 values, in 2 rows (first: source=baseline, column 'ms', n=1)" ]
  [ "${lines[1]}" = "bench-summarize: no comparison intervals: fewer than 2 values on a side, in 1 comparison (first: source=candidate, column 'ms')" ]
  [ "${lines[5]}" = "bench-summarize: ms: cannot judge against the baseline: fewer than 2 values on a side" ]
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

@test "10,000 normal values: the bootstrap-t interval of the mean is mean +- 1.96 se within 4%" {
  normal_values 10000 1 > "$TMP/normal.csv"
  bench-summarize --ci boot-t --seed 11 "$TMP/normal.csv" > "$TMP/out.csv"
  columns mean se ci_low ci_high < "$TMP/out.csv" > "$TMP/ci.csv"
  run awk -F, 'NR == 2 {
      half = ($4 - $3) / 2; want = 1.959964 * $2
      centre = ($4 + $3) / 2
      ok = half > 0.96 * want && half < 1.04 * want && (centre - $1) ^ 2 < (0.1 * $2) ^ 2
      print (ok ? "ok" : "bad: mean " $1 " se " $2 " ci " $3 " " $4) }' "$TMP/ci.csv"
  assert_status 0
  assert_output "ok"
}

@test "the CI narrows as n grows: 100 values against 10,000" {
  normal_values 10000 2 > "$TMP/big.csv"
  head -n 101 "$TMP/big.csv" > "$TMP/small.csv"
  # Each summary a statement of its own: set -e fails the test on its status.
  bench-summarize --seed 5 "$TMP/big.csv" > "$TMP/big.out"
  bench-summarize --seed 5 "$TMP/small.csv" > "$TMP/small.out"
  big=$(columns ci_high ci_low < "$TMP/big.out" | awk -F, 'NR == 2 { print $1 - $2 }')
  small=$(columns ci_high ci_low < "$TMP/small.out" | awk -F, 'NR == 2 { print $1 - $2 }')
  # Widths shrink like 1/sqrt(n): expect a ratio near 10.
  run awk "BEGIN { r = ($small) / ($big); print (r > 7 && r < 13 ? \"ok\" : \"ratio \" r) }"
  assert_status 0
  assert_output "ok"
}

@test "BCa equals percentile for symmetric data within Monte-Carlo error" {
  normal_values 2000 3 > "$TMP/sym.csv"
  for stat in mean median; do
    bench-summarize --seed 8 --ci-stat "$stat" --ci percentile "$TMP/sym.csv" > "$TMP/pct.out"
    bench-summarize --seed 8 --ci-stat "$stat" --ci bca "$TMP/sym.csv" > "$TMP/bca.out"
    columns ci_low ci_high < "$TMP/pct.out" > "$TMP/pct.csv"
    columns ci_low ci_high < "$TMP/bca.out" > "$TMP/bca.csv"
    run awk -F, 'FNR == 2 { lo[FILENAME] = $1; hi[FILENAME] = $2 }
      END { p = ARGV[1]; b = ARGV[2]; w = hi[p] - lo[p]
            d1 = lo[b] - lo[p]; d2 = hi[b] - hi[p]
            print (w > 0 && d1 * d1 < (0.1 * w) ^ 2 && d2 * d2 < (0.1 * w) ^ 2 ? "ok" : "differ " lo[p] " " hi[p] " " lo[b] " " hi[b]) }' \
      "$TMP/pct.csv" "$TMP/bca.csv"
    assert_status 0
    assert_output "ok"
  done
}

@test "BCa moves a right-skewed mean's interval to the right" {
  awk 'BEGIN { srand(4); print "v"; for (i = 0; i < 300; i++) printf "%.9f\n", -log(1 - rand()) }' > "$TMP/exp.csv"
  bench-summarize --seed 2 --ci percentile "$TMP/exp.csv" > "$TMP/pct.out"
  bench-summarize --seed 2 --ci bca "$TMP/exp.csv" > "$TMP/bca.out"
  pct=$(column ci_high < "$TMP/pct.out")
  bca=$(column ci_high < "$TMP/bca.out")
  run awk "BEGIN { print ($bca > $pct ? \"ok\" : \"bca $bca <= percentile $pct\") }"
  assert_status 0
  assert_output "ok"
}

@test "BCa, bootstrap-t and percentile at n = 12, skewed and tied: a 400,000-resample reference's ends" {
  # The reference: numpy, 400,000 resamples, the textbook formulas (BCa's
  # z0 counting ties at the estimate as half, acceleration from the
  # jackknife over 6; bootstrap-t's se* with n - 1, low end mean - t(0.975)
  # se): BCa [2.8333, 7.6667], bootstrap-t [2.5561, 9.7376], percentile
  # [2.5833, 6.9167].  Ours draws 10,000 (seed 1): each low end within 1%,
  # each high end within 3% (its tail is thin).  Ties at z0 moved BCa's
  # ends 3%, twice the acceleration 6-10%, se* with n 3%, the other
  # quantile at the low end 30%.
  printf 'v\n1\n1\n2\n2\n2\n3\n3\n4\n5\n7\n9\n15\n' > "$TMP/s.csv"
  local ci want
  while read -r ci want; do
    bench-summarize --ci "$ci" --seed 1 --format csv "$TMP/s.csv" > "$TMP/$ci.out"
    run bash -c "set -o pipefail; columns ci_low ci_high < '$TMP/$ci.out' | awk -F, -v want='$want' 'NR == 2 {
      split(want, w, \" \"); lo = (\$1 - w[1]) / w[1]; hi = (\$2 - w[2]) / w[2]
      print (lo * lo <= 1e-4 && hi * hi <= 9e-4 ? \"near\" : \"[\" \$1 \", \" \$2 \"]\") }'"
    assert_status 0
    assert_output near || { echo "--ci $ci, reference [$want]" >&2; return 1; }
  done <<'EOF'
bca 2.8333 7.6667
boot-t 2.5561 9.7376
percentile 2.5833 6.9167
EOF
}

@test "--confidence 0.5 gives a narrower interval than 0.99" {
  normal_values 500 6 > "$TMP/n.csv"
  bench-summarize --seed 1 --confidence 0.5 "$TMP/n.csv" > "$TMP/50.out"
  bench-summarize --seed 1 --confidence 0.99 "$TMP/n.csv" > "$TMP/99.out"
  w50=$(columns ci_high ci_low < "$TMP/50.out" | awk -F, 'NR == 2 { print $1 - $2 }')
  w99=$(columns ci_high ci_low < "$TMP/99.out" | awk -F, 'NR == 2 { print $1 - $2 }')
  # Normal theory: 2.576 / 0.674 = 3.8.
  run awk "BEGIN { r = $w99 / $w50; print (r > 3.3 && r < 4.4 ? \"ok\" : \"ratio \" r) }"
  assert_status 0
  assert_output "ok"
}

@test "coverage: the default 95% interval of the mean holds the true mean >= 93% of the time at n = 3..10" {
  # 2,000 normal samples of each size, each a group of one input (fixed
  # seed); the true mean is 0.  Student t covers 95% exactly; the old
  # percentile bootstrap covered 75% at n = 3 and 89% at n = 10.
  failed=0
  for n in 3 4 5 6 7 8 9 10; do
    awk -v n="$n" 'BEGIN { srand(n); print "rep,v"
      for (r = 0; r < 2000; r++) for (i = 0; i < n; i++) {
        u = 1 - rand(); w = rand(); printf "%d,%.12g\n", r, sqrt(-2 * log(u)) * cos(6.283185307179586 * w) } }' > "$TMP/c.csv"
    bench-summarize --by rep --value v --seed 1 "$TMP/c.csv" > "$TMP/c.out"
    cover=$(columns ci_low ci_high < "$TMP/c.out" \
      | awk -F, 'NR > 1 && $1 != "" && $1 <= 0 && 0 <= $2 { hit++ } END { printf "%.4f", hit / (NR - 1) }')
    echo "n = $n: coverage $cover" >&2
    awk -v c="$cover" 'BEGIN { exit !(c >= 0.93) }' || failed=1
  done
  [ "$failed" -eq 0 ]
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
  bench-summarize --ci boot-t "$TMP/d.csv" > "$TMP/first.csv" 2> "$TMP/err"
  run grep -c '^bench-summarize: seed [0-9][0-9]*$' "$TMP/err"
  assert_status 0
  assert_output "1"
  seed=$(sed 's/.*seed //' "$TMP/err")
  run bench-summarize --ci boot-t --seed "$seed" "$TMP/d.csv"
  assert_status 0
  assert_output "$(cat "$TMP/first.csv")"
  # No resampling, no seed to report.
  run bench-summarize --resamples 0 "$TMP/d.csv"
  assert_status 0
  [[ "${lines[0]}" == column,* ]]
  # The seed is a column of every row that drew from it; Student t draws
  # nothing: no seed to report, and an empty seed column.
  run sh -c "bench-summarize --ci boot-t '$TMP/d.csv' 2> /dev/null"
  assert_status 0
  [[ "${lines[1]}" == v,200,0,*,mean,boot-t,0.95,[0-9]*,* ]]
  # The default is t at any n: nothing drawn, no seed.
  run sh -c "bench-summarize '$TMP/d.csv' 2> /dev/null"
  assert_status 0
  [[ "${lines[1]}" == v,200,0,*,mean,t,0.95,,* ]]
  head -n 20 "$TMP/d.csv" > "$TMP/small.csv"
  # (stderr apart: awk's random numbers differ between awks, and with them
  # any note on outliers.)
  run sh -c "bench-summarize '$TMP/small.csv' 2> /dev/null"
  assert_status 0
  [[ "${lines[1]}" == v,19,0,*,mean,t,0.95,,* ]]
}

@test "a group's interval does not depend on other groups or on row order" {
  awk 'BEGIN { srand(9); print "g,v"
               for (i = 0; i < 100; i++) { printf "a,%.6f\n", rand(); printf "b,%.6f\n", 10 * rand() } }' > "$TMP/ab.csv"
  { echo "g,v"; grep '^b,' "$TMP/ab.csv" | sort -t, -k2 -r; } > "$TMP/b.csv"
  bench-summarize --seed 5 --by g --ci bca "$TMP/ab.csv" > "$TMP/ab.out"
  bench-summarize --seed 5 --by g --ci bca "$TMP/b.csv" > "$TMP/b.out"
  with_a=$(grep '^b,' "$TMP/ab.out")
  alone=$(grep '^b,' "$TMP/b.out")
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
65|--strict --value h2d_ns bad.csv|bench-summarize: bad.csv: line 12, column 'h2d_ns': 'abc' is not a number
65|text.csv|bench-summarize: no numeric column to summarize (name one with --value)
65|ragged.csv|bench-summarize: ragged.csv: line 3: expected 2 fields, found 3
65|< ragged.csv|bench-summarize: stdin: line 3: expected 2 fields, found 3
65|quote.csv|bench-summarize: quote.csv: line 2: malformed CSV (unterminated or misplaced quote)
65|good.csv other.csv|bench-summarize: other.csv: line 1: the columns differ from those of the first input
65|--strict --value h2d_ns na.csv|bench-summarize: na.csv: line 2, column 'h2d_ns': 'NA' is missing
65|--strict na.csv|bench-summarize: na.csv: line 2, column 'h2d_ns': 'NA' is missing
65|--strict --ratio a/b zero.csv|bench-summarize: zero.csv: line 2, column 'a/b': division by zero
64|--by xyz good.csv|bench-summarize: --by: no column 'xyz' in the input
64|--value xyz good.csv|bench-summarize: --value: no column 'xyz' in the input
64|--ratio h2d_ns/xyz good.csv|bench-summarize: --ratio: no column 'xyz' in the input
64|--compare xyz=1 good.csv|bench-summarize: --compare: no column 'xyz' in the input
64|--compare host=zz good.csv|bench-summarize: --compare: no row has host=zz
64|--compare host good.csv|bench-summarize: --compare: expected COL=LEVEL, got 'host'
64|--ratio h2d_ns good.csv|bench-summarize: --ratio: expected NUM/DEN, got 'h2d_ns'
64|--ratio /x good.csv|bench-summarize: --ratio: expected NUM/DEN, got '/x'
64|--ci foo good.csv|bench-summarize: --ci: invalid choice 'foo' (choose from 'auto', 't', 'boot-t', 'percentile', 'bca', 'order')
64|--ci-stat mode good.csv|bench-summarize: --ci-stat: invalid choice 'mode' (choose from 'auto', 'mean', 'median', 'gmean')
64|--ci t --ci-stat median good.csv|bench-summarize: --ci t: is for a mean; the median's intervals are order, percentile and bca
64|--ci order --ci-stat mean good.csv|bench-summarize: --ci order: is for the median (--ci-stat median)
64|--ci bca --resamples 0 good.csv|bench-summarize: --ci bca: needs --resamples above 0
64|--resamples 100 good.csv|bench-summarize: --resamples: 100 are too few for a 95% interval (at least 400, or 0 for none)
64|--resamples 10000 --confidence 0.999 good.csv|bench-summarize: --resamples: 10000 are too few for a 99.9% interval (at least 20000, or 0 for none)
64|--confidence 1 good.csv|bench-summarize: --confidence: '1' out of range (0, 1)
64|--confidence 0 good.csv|bench-summarize: --confidence: '0' out of range (0, 1)
64|--confidence x good.csv|bench-summarize: --confidence: invalid number 'x'
64|--resamples -1 good.csv|bench-summarize: --resamples: invalid number '-1'
64|--resamples 100000001 good.csv|bench-summarize: --resamples: '100000001' out of range [0, 100000000]
64|--seed abc good.csv|bench-summarize: --seed: invalid number 'abc'
64|--percentiles 101 good.csv|bench-summarize: --percentiles: '101' out of range [0, 100]
64|--percentiles 5,,95 good.csv|bench-summarize: --percentiles: empty item in list '5,,95'
64|--format yaml good.csv|bench-summarize: --format: invalid choice 'yaml' (choose from 'csv', 'table', 'json', 'markdown')
64|--plot --format csv good.csv|bench-summarize: --plot: needs --format table
64|--baseline good.csv --compare host=a good.csv|bench-summarize: --baseline: compares with the baseline file; not with --compare
64|--fail-if-worse h2d_ns:5%:lower good.csv|bench-summarize: --fail-if-worse: needs --baseline
64|--baseline good.csv --fail-if-worse h2d_ns:5% good.csv|bench-summarize: --fail-if-worse: expected COLUMN:TOLERANCE%:higher|lower, got 'h2d_ns:5%'
64|--baseline good.csv --fail-if-worse h2d_ns:5%:up good.csv|bench-summarize: --fail-if-worse: 'h2d_ns:5%:up': say which is better, 'higher' or 'lower'
64|--baseline good.csv --fail-if-worse h2d_ns:x:lower good.csv|bench-summarize: --fail-if-worse: 'h2d_ns:x:lower': the tolerance is a percentage in [0, 100)
64|--baseline good.csv --fail-if-worse nope:5%:lower good.csv|bench-summarize: --fail-if-worse: column 'nope' is not summarized
66|--baseline empty.csv good.csv|bench-summarize: --baseline: no baseline rows
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
  assert_output "bench-summarize: column 'v': the mean's 95% interval reaches 0 or below though every value is positive (1 row, first: n=2): too few values for their spread to say anything; more runs, or --log-scale
bench-summarize: write error: No space left on device"
}

@test "--help and --version" {
  run bench-summarize --help
  assert_status 0
  [ "${lines[0]}" = "Usage: bench-summarize [OPTION]... [FILE]..." ]
  [[ "$output" == *"--fail-if-worse COL:TOL%:higher|lower"* ]]
  run bench-summarize --version
  assert_status 0
  [ "${lines[0]}" = "bench-summarize (arenabench) $ARENABENCH_VERSION" ]
}

# --- the man page's examples ------------------------------------------------------

# The commands of man/bench-summarize.1's EXAMPLES, one a line, with roff
# escapes undone and continuation lines joined.
man_examples() {
  doc_commands "$top_srcdir/man/bench-summarize.1"
}

example_output() {
  case $1 in
  1) cat <<'EOF'
arm,size_mib,column,n,missing,mean,sd,se,min,median,max,ci_low,ci_high,ci_stat,ci_method,ci_level,seed,p5,p95,outliers_mild,outliers_severe
pinned,8,h2d_ms,4,0,1.15,0.12909944487358058,0.06454972243679029,1,1.15,1.3,0.9445739743239479,1.355426025676052,mean,t,0.95,,1.0150000000000001,1.285,0,0
pageable,8,h2d_ms,4,0,1.6,0.16329931618554527,0.08164965809277264,1.4,1.6,1.8,1.3401543472749777,1.8598456527250224,mean,t,0.95,,1.43,1.77,0,0
pinned,64,h2d_ms,4,0,8.05,0.1290994448735801,0.06454972243679005,7.9,8.05,8.2,7.844573974323949,8.255426025676051,mean,t,0.95,,7.915,8.184999999999999,0,0
pageable,64,h2d_ms,4,0,10.5,0.3366501646120695,0.16832508230603474,10.1,10.5,10.9,9.964314463728584,11.035685536271416,mean,t,0.95,,10.145,10.855,0,0
EOF
  ;;
  2) cat <<'EOF'
bench-summarize: column 'serialized_ms/concurrent_ms': 1 of 1 rows look bimodal or skewed (first: n=6, a gap of 2.449 SDs between neighbours on the log scale, above 2.042, the 1% level for normal data); below 30 values its 95% intervals may cover far less, in any row
column,n,missing,mean,sd,se,min,median,max,gmean,ci_low,ci_high,ci_stat,ci_method,ci_level,seed,p5,p95,outliers_mild,outliers_severe
serialized_ms/concurrent_ms,6,0,1.475,0.061237243569579415,0.024999999999999988,1.35,1.5,1.5,1.473889790779035,1.4088381874617921,1.5419450826190653,gmean,t,0.95,,1.3875000000000002,1.5,0,1
EOF
  ;;
  3) cat <<'EOF'
size_mib  arm       column  n  missing   mean        sd         se   min  median   max  ci_low  ci_high  ci_stat  ci_method  ci_level  seed      p5     p95  outliers_mild  outliers_severe  vs        ratio  ratio_ci_low  ratio_ci_high   diff  diff_ci_low  diff_ci_high  diff_pct  diff_pct_ci_low  diff_pct_ci_high         t       df  p_welch
8         pinned    h2d_ms  4        0   1.15  0.129099  0.0645497     1    1.15   1.3    0.94     1.36  mean     t              0.95  -      1.015   1.285              0                0  pageable   0.72          0.59           0.87  -0.45        -0.71         -0.19       -28              -41               -13  -4.32346  5.69663   0.0056
8         pageable  h2d_ms  4        0   1.60  0.163299  0.0816497   1.4     1.6   1.8    1.34     1.86  mean     t              0.95  -       1.43    1.77              0                0  -             -             -              -      -            -             -         -                -                 -         -        -        -
64        pinned    h2d_ms  4        0   8.05  0.129099  0.0645497   7.9    8.05   8.2    7.84     8.26  mean     t              0.95  -      7.915   8.185              0                0  pageable  0.767         0.729          0.807  -2.45        -2.96         -1.94     -23.3            -27.1             -19.3  -13.5902  3.86367  0.00021
64        pageable  h2d_ms  4        0  10.50   0.33665   0.168325  10.1    10.5  10.9    9.96    11.04  mean     t              0.95  -     10.145  10.855              0                0  -             -             -              -      -            -             -         -                -                 -         -        -        -

size_mib=8, arm=pinned vs arm=pageable: h2d_ms 0.72x [0.59, 0.87] faster (p = 0.0056, Welch)
size_mib=64, arm=pinned vs arm=pageable: h2d_ms 0.767x [0.729, 0.807] faster (p = 0.00021, Welch)
EOF
  ;;
  4) cat <<'EOF'
arm       column  n  missing  mean       sd       se  min  median   max  ci_low  ci_high  ci_stat  ci_method  ci_level  seed     p5     p95  outliers_mild  outliers_severe
pinned    h2d_ms  8        0   4.6  3.69014  1.30466    1     4.6   8.2     1.5      7.7  mean     t              0.95  -     1.035   8.165              0                0
pageable  h2d_ms  8        0   6.0  4.76355  1.68417  1.4    5.95  10.9     2.0     10.1  mean     t              0.95  -      1.47  10.795              0                0

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
arm,column,n,missing,mean,sd,se,min,median,max,ci_low,ci_high,ci_stat,ci_method,ci_level,seed,p0,p25,p75,p100,outliers_mild,outliers_severe
pinned,h2d_ms,16,0,4.6,3.565015193983517,0.8912537984958793,1,4.6000000000000005,8.2,2.7003374962175353,6.499662503782464,mean,t,0.95,,1,1.175,8.025,8.2,0,0
pageable,h2d_ms,16,0,6.05,4.602028538228187,1.1505071345570468,1.4,5.95,10.9,3.5977520908851046,8.502247909114896,mean,t,0.95,,1.4,1.6,10.45,10.9,0,0
EOF
  ;;
  6) cat <<'EOF'
arm       size_mib  source     column  n  missing   mean        sd         se   min  median   max  ci_low  ci_high  ci_stat  ci_method  ci_level  seed      p5     p95  outliers_mild  outliers_severe  vs        ratio  ratio_ci_low  ratio_ci_high  diff  diff_ci_low  diff_ci_high  diff_pct  diff_pct_ci_low  diff_pct_ci_high  t  df  p_welch
pinned    8         baseline   h2d_ms  4        0   1.15  0.129099  0.0645497     1    1.15   1.3    0.94     1.36  mean     t              0.95  -      1.015   1.285              0                0  -             -             -              -     -            -             -         -                -                 -  -   -        -
pageable  8         baseline   h2d_ms  4        0   1.60  0.163299  0.0816497   1.4     1.6   1.8    1.34     1.86  mean     t              0.95  -       1.43    1.77              0                0  -             -             -              -     -            -             -         -                -                 -  -   -        -
pinned    64        baseline   h2d_ms  4        0   8.05  0.129099  0.0645497   7.9    8.05   8.2    7.84     8.26  mean     t              0.95  -      7.915   8.185              0                0  -             -             -              -     -            -             -         -                -                 -  -   -        -
pageable  64        baseline   h2d_ms  4        0  10.50   0.33665   0.168325  10.1    10.5  10.9    9.96    11.04  mean     t              0.95  -     10.145  10.855              0                0  -             -             -              -     -            -             -         -                -                 -  -   -        -
pinned    8         candidate  h2d_ms  4        0   1.15  0.129099  0.0645497     1    1.15   1.3    0.94     1.36  mean     t              0.95  -      1.015   1.285              0                0  baseline   1.00          0.82           1.22  0.00        -0.23          0.23         0              -18                22  0   6        1
pageable  8         candidate  h2d_ms  4        0   1.60  0.163299  0.0816497   1.4     1.6   1.8    1.34     1.86  mean     t              0.95  -       1.43    1.77              0                0  baseline   1.00          0.83           1.20  0.00        -0.29          0.29         0              -17                20  0   6        1
pinned    64        candidate  h2d_ms  4        0   8.05  0.129099  0.0645497   7.9    8.05   8.2    7.84     8.26  mean     t              0.95  -      7.915   8.185              0                0  baseline  1.000         0.972          1.029  0.00        -0.23          0.23       0.0             -2.8               2.9  0   6        1
pageable  64        candidate  h2d_ms  4        0  10.50   0.33665   0.168325  10.1    10.5  10.9    9.96    11.04  mean     t              0.95  -     10.145  10.855              0                0  baseline  1.000         0.946          1.058  0.00        -0.59          0.59       0.0             -5.4               5.8  0   6        1

arm=pinned, size_mib=8, source=candidate vs source=baseline: h2d_ms no difference shown at 95% (1.00x [0.82, 1.22], p = 1, Welch)
arm=pageable, size_mib=8, source=candidate vs source=baseline: h2d_ms no difference shown at 95% (1.00x [0.83, 1.20], p = 1, Welch)
arm=pinned, size_mib=64, source=candidate vs source=baseline: h2d_ms no difference shown at 95% (1.000x [0.972, 1.029], p = 1, Welch)
arm=pageable, size_mib=64, source=candidate vs source=baseline: h2d_ms no difference shown at 95% (1.000x [0.946, 1.058], p = 1, Welch)
EOF
  ;;
  esac
}

@test "every example in bench-summarize(1) runs and gives its known output" {
  ! valgrind_build || skip "valgrind computes long double in 64 bits: the last digits of the statistics differ"
  # Hand checks of example 1: pinned 8 MiB is 1.0,1.2,1.1,1.3, mean 1.15,
  # sd sqrt(0.05/3), t(3, 0.975) = 3.182446305284263 (scipy); example 2:
  # the ratios are 1.5 five times and 1.35, gmean (1.5^5 1.35)^(1/6).
  man_examples > "$TMP/examples"
  run wc -l < "$TMP/examples"
  assert_status 0
  assert_output "6"
  cd "$DATA"
  i=0
  while read -r command; do
    i=$((i + 1))
    run sh -c "$command"
    assert_status 0
    assert_output "$(example_output $i)"
  done < "$TMP/examples"
}

@test "--value may name a --ratio column, which is then summarized alone" {
  ! valgrind_build || skip "valgrind computes long double in 64 bits: the last digits of the statistics differ"
  # Five ratios of 1.5 and one of 1.35: one value far from the rest, on
  # the log scale its geometric mean's interval rests on.
  run sh -c "bench-summarize --format csv --resamples 0 --ratio serialized_ms/concurrent_ms \
    --value serialized_ms/concurrent_ms '$top_srcdir/tests/data/overlap.csv' 2>&1 >/dev/null"
  assert_status 0
  [[ "$output" == "bench-summarize: column 'serialized_ms/concurrent_ms': 1 of 1 rows look bimodal or skewed"* ]]
  run sh -c "bench-summarize --format csv --resamples 0 --ratio serialized_ms/concurrent_ms \
    --value serialized_ms/concurrent_ms '$top_srcdir/tests/data/overlap.csv' 2>/dev/null"
  assert_status 0
  [ "${#lines[@]}" -eq 2 ]
  run columns column n missing mean gmean <<<"$output"
  assert_status 0
  [[ "${lines[1]}" == serialized_ms/concurrent_ms,6,0,1.475,* ]]
}

@test "README's d2h-overlap example: the ratio and the timings, not the configuration" {
  # tests/data/overlap-d2h.csv has d2h-overlap's columns: 2 methods x 2
  # tensor counts x 4 trials.
  run sh -c "bench-summarize --by method,num_tensors --ratio serialized_ms/concurrent_ms \
    --format csv '$DATA/overlap-d2h.csv' 2>&1 >/dev/null"
  assert_status 0
  assert_output "bench-summarize: not summarized, as identifiers or configuration (name them with --value): trial (an integer key), total_bytes (constant within every group), raw_pinned_gbps (constant within every group), compute_iterations (constant within every group), matrix_size (constant within every group), compute_target_ms (constant within every group), seed (constant within every group), compute_capability (constant within every group), driver (constant within every group), cuda (constant within every group), cuda_driver (constant within every group)
bench-summarize: column 'cpu_launch_skew_ms': positive values that may be spread by a large factor (the SD of their logs is 1.01, pooled over 4 rows; first: method=event, num_tensors=1, n=4; up to 1.20 at 75% confidence, past 0.38): the 95% interval of such a mean covers less (t covered 0.82 to 0.85 at n = 3 to 10 on log-normal data of log SD 1); --log-scale or --ci-stat gmean hold better"
  run bash -c "set -o pipefail; bench-summarize --by method,num_tensors --ratio serialized_ms/concurrent_ms \
    --format csv '$DATA/overlap-d2h.csv' 2> /dev/null | columns method num_tensors column n ci_stat | awk -F, '
      \$1 == \"event\" && \$2 == 1 { print \$3, \$4, \$5 }'"
  assert_status 0
  assert_output "compute_only_ms 4 mean
transfer_only_ms 4 mean
serialized_ms 4 mean
concurrent_ms 4 mean
speedup 4 mean
hidden_ms 4 mean
overlap_efficiency 4 mean
cpu_launch_skew_ms 4 mean
transfer_gbps 4 mean
serialized_ms/concurrent_ms 4 gmean"
}

# --- issue 21 --------------------------------------------------------------------

@test "Fieller's interval keeps its digits when the standard errors are 1e-13 of the means" {
  # 1e12 + quarter steps, b one quarter above a: b^2 - a c cancelled to
  # nothing and gave [1.00000000000025, 1.00000000000025], the point at both
  # ends.  References by mpmath at 50 digits (df 6, t = 2.4469118511449693):
  # 0.99999999999969157, 1.00000000000080843.
  printf 'g,v\na,1000000000000.25\na,1000000000000.5\na,1000000000000.75\na,1000000000001\nb,1000000000000.5\nb,1000000000000.75\nb,1000000000001\nb,1000000000001.25\n' > "$TMP/f.csv"
  run bash -c "set -o pipefail; bench-summarize --by g --compare g=a --resamples 0 '$TMP/f.csv' | columns g ratio ratio_ci_low ratio_ci_high"
  assert_status 0
  assert_output "g,ratio,ratio_ci_low,ratio_ci_high
a,,,
b,1.00000000000025,0.9999999999996916,1.0000000000008085"
  run bench-summarize --by g --compare g=a --resamples 0 --format table "$TMP/f.csv"
  assert_status 0
  [ "${lines[3]}" = "g=b vs g=a: v no difference shown at 95% (1.00000000000025x [0.99999999999969, 1.00000000000081], p = 0.32, Welch)" ]
}

@test "--log-scale: a rate's interval at n=3 stays positive, as log-t" {
  # 10, 100, 1000: t gives [-989.9, 1729.9].  log-t: mean 370, sd
  # 547.4486277268397, t(2, 0.975) = 4.302652729911275 (scipy):
  # 370 exp(-+ 4.3027 * 547.45 / (370 sqrt 3)) = [9.3745211, 14603.413].
  printf 'items_per_s\n10\n100\n1000\n' > "$TMP/r.csv"
  run bash -c "set -o pipefail; bench-summarize --resamples 0 '$TMP/r.csv' 2> /dev/null | columns mean ci_low ci_high ci_method"
  assert_status 0
  assert_output "mean,ci_low,ci_high,ci_method
370,-989.9377813822098,1729.9377813822098,t"
  # (Its skew warning, on stderr, is the subject of another test.)
  run bash -c "set -o pipefail; bench-summarize --resamples 0 --log-scale '$TMP/r.csv' 2> /dev/null | columns mean ci_low ci_high ci_method"
  assert_status 0
  assert_output "mean,ci_low,ci_high,ci_method
370,9.374521104724863,14603.41264056687,log-t"
  # Bootstrap-t runs on the log scale too.
  awk 'BEGIN { srand(2); print "v"; for (i = 0; i < 100; i++) print exp(3 * rand()) }' > "$TMP/skew.csv"
  run bash -c "set -o pipefail; bench-summarize --ci boot-t --log-scale --seed 1 '$TMP/skew.csv' | columns ci_method"
  assert_status 0
  assert_output "ci_method
log-boot-t"
  # Below 30 values the default at n=3 across many samples: never negative.
  awk 'BEGIN { srand(5); print "g,v"; for (r = 0; r < 500; r++) for (i = 0; i < 3; i++) print r "," exp(2 * rand()) }' > "$TMP/many.csv"
  # (awk's rand differs between awks: whether this data draws the skew
  # warning on stderr does too; only the intervals are asserted.)
  run bash -c "set -o pipefail; bench-summarize --by g --log-scale --seed 1 '$TMP/many.csv' 2> /dev/null | columns ci_low | awk -F, 'NR > 1 && !(\$1 > 0) { bad++ } END { print bad + 0 }'"
  assert_status 0
  assert_output "0"
}

@test "--log-scale: a value not above 0 is an error naming the column" {
  run bench-summarize --resamples 0 --log-scale <<<"g,gb_per_s
a,1
a,0"
  assert_status 65
  assert_output "bench-summarize: stdin: line 3, column 'gb_per_s': --log-scale needs values above 0, got '0' (in every row)"
  run bench-summarize --resamples 0 --log-scale <<<"g,gb_per_s
a,1
a,-2.5"
  assert_status 65
  assert_output "bench-summarize: stdin: line 3, column 'gb_per_s': --log-scale needs values above 0, got '-2.5' (in every row)"
}

@test "verdicts in words: faster or slower by the column's unit, higher or lower otherwise" {
  printf 'pinned,items_per_s,run_ms,bytes\n0,10,10,10\n0,11,11,11\n0,12,12,12\n1,50,50,50\n1,52,52,52\n1,55,55,55\n' > "$TMP/v.csv"
  run bash -c "set -o pipefail; bench-summarize --compare pinned=0 --resamples 0 --format table '$TMP/v.csv' | tail -n 3"
  assert_status 0
  assert_output "pinned=1 vs pinned=0: items_per_s 4.76x [3.91, 5.93] faster (p = 0.0003, Welch)
pinned=1 vs pinned=0: run_ms 4.76x [3.91, 5.93] slower (p = 0.0003, Welch)
pinned=1 vs pinned=0: bytes 4.76x [3.91, 5.93] higher (p = 0.0003, Welch)"
  printf 'pinned,gb_per_s,seconds\n0,50,50\n0,52,52\n0,55,55\n1,10,10\n1,11,11\n1,12,12\n' > "$TMP/w.csv"
  run bash -c "set -o pipefail; bench-summarize --compare pinned=0 --resamples 0 --format table '$TMP/w.csv' | tail -n 2"
  assert_status 0
  assert_output "pinned=1 vs pinned=0: gb_per_s 0.210x [0.168, 0.256] slower (p = 0.0003, Welch)
pinned=1 vs pinned=0: seconds 0.210x [0.168, 0.256] faster (p = 0.0003, Welch)"
}

@test "the gate: a benchmark missing from the candidate exits 66 and is named" {
  printf 'arm,ns\na,100\na,101\na,102\na,103\nb,100\nb,101\nb,102\nb,103\n' > "$TMP/base.csv"
  printf 'arm,ns\na,100\na,101\na,102\na,103\n' > "$TMP/cand.csv"
  run sh -c "bench-summarize --baseline '$TMP/base.csv' --by arm --fail-if-worse ns:0%:lower --format csv '$TMP/cand.csv' 2>&1 >/dev/null"
  assert_status 66
  assert_output "bench-summarize: arm=b, ns: in the baseline but not in the candidate"
}

@test "the gate: an integer timing column named by --fail-if-worse is summarized, not an integer key" {
  # 100 .. 103 climb by one: without --value a default column like it is
  # left out as an integer key, which made --fail-if-worse exit 64.
  printf 'arm,ns\na,100\na,101\na,102\na,103\n' > "$TMP/base.csv"
  printf 'arm,ns\na,100\na,101\na,102\na,103\n' > "$TMP/cand.csv"
  run bash -c "set -o pipefail; bench-summarize --baseline '$TMP/base.csv' --by arm --fail-if-worse ns:0%:lower --format csv '$TMP/cand.csv' | columns arm source column n ratio"
  assert_status 0
  assert_output "arm,source,column,n,ratio
a,baseline,ns,4,
a,candidate,ns,4,1"
}

@test "the gate: deterministic values are judged exactly, equal passes and worse fails, either way round" {
  printf 'arm,ns\na,10\na,10\nb,7\nb,7\n' > "$TMP/base.csv"
  printf 'arm,ns\na,10\na,10\nb,8\nb,8\n' > "$TMP/cand.csv"
  run sh -c "bench-summarize --baseline '$TMP/base.csv' --by arm --value ns --fail-if-worse ns:5%:lower --format csv '$TMP/cand.csv' 2>&1 >/dev/null"
  assert_status 1
  assert_output "bench-summarize: no interval: all values equal, in 4 rows (first: arm=a, source=baseline, column 'ns', n=2)
bench-summarize: no comparison intervals: all values equal on both sides, in 2 comparisons (first: arm=a, source=candidate, column 'ns')
bench-summarize: arm=b, ns: regression: 1.143x the baseline, constant 7 -> 8, every value equal on both sides, worse by more than 5% (lower is better)"
  # Higher is better: 8 against 7 is better, 10 against 10 equal.
  run sh -c "bench-summarize --baseline '$TMP/base.csv' --by arm --value ns --fail-if-worse ns:5%:higher --format csv '$TMP/cand.csv' 2>/dev/null >/dev/null"
  assert_status 0
  # Within the tolerance: 8/7 is 14% worse, under 15%.
  run sh -c "bench-summarize --baseline '$TMP/base.csv' --by arm --value ns --fail-if-worse ns:15%:lower --format csv '$TMP/cand.csv' 2>/dev/null >/dev/null"
  assert_status 0
}

@test "the gate: higher is better fails a throughput that fell" {
  # The candidate's throughput is half the baseline's: every value of it
  # below 0.95 times every baseline value, so of the C(8, 4) = 70 splits
  # only the observed one sums as low: one-sided p = 1/70 = 0.014 < 0.025.
  # Where lower is better the same data pass.
  printf 'arm,gb_per_s\na,20\na,21\na,19\na,20.5\n' > "$TMP/base.csv"
  printf 'arm,gb_per_s\na,10\na,10.5\na,9.5\na,10.2\n' > "$TMP/cand.csv"
  run sh -c "bench-summarize --baseline '$TMP/base.csv' --by arm --fail-if-worse gb_per_s:5%:higher --format csv '$TMP/cand.csv' 2>&1 >/dev/null"
  assert_status 1
  assert_output "bench-summarize: arm=a, gb_per_s: regression: 0.4994x [0.461, 0.5411] the baseline, worse by more than 5% at 95% (higher is better; one-sided p = 0.014)"
  run sh -c "bench-summarize --baseline '$TMP/base.csv' --by arm --fail-if-worse gb_per_s:5%:lower --format csv '$TMP/cand.csv' 2>&1 >/dev/null"
  assert_status 0
  assert_output ""
}

@test "the gate: 3 and 3 values cannot show a regression at 95%: it cannot decide, exit 75, and says so" {
  # The exact test's smallest p is 1/C(6, 3) = 0.05: not below 0.025, so
  # even a doubling can neither pass nor fail (it passed, exit 0).
  printf 'arm,ms\na,10\na,11\na,12\n' > "$TMP/base.csv"
  printf 'arm,ms\na,20\na,21\na,22\n' > "$TMP/cand.csv"
  run sh -c "bench-summarize --baseline '$TMP/base.csv' --by arm --fail-if-worse ms:5%:lower --format csv '$TMP/cand.csv' 2>&1 >/dev/null"
  assert_status 75
  assert_output "bench-summarize: arm=a, ms: cannot decide: with 3 candidate and 3 baseline values no regression can be shown at 95% (the exact test's smallest p is 0.05, not below 0.025): more runs are needed (1 row)"
  # At 90% one side is 0.05: p = 0.05 is not below it either.
  run sh -c "bench-summarize --baseline '$TMP/base.csv' --by arm --fail-if-worse ms:5%:lower --confidence 0.9 --format csv '$TMP/cand.csv' 2>&1 >/dev/null"
  assert_status 75
  assert_output "bench-summarize: arm=a, ms: cannot decide: with 3 candidate and 3 baseline values no regression can be shown at 90% (the exact test's smallest p is 0.05, not below 0.05): more runs are needed (1 row)"
  # At 80% (one side 0.1) it can.
  run sh -c "bench-summarize --baseline '$TMP/base.csv' --by arm --fail-if-worse ms:5%:lower --confidence 0.8 --format csv '$TMP/cand.csv' 2>&1 >/dev/null"
  assert_status 1
  # So can 89% (one side 0.055, just above the smallest p).
  run sh -c "bench-summarize --baseline '$TMP/base.csv' --by arm --fail-if-worse ms:5%:lower --confidence 0.89 --format csv '$TMP/cand.csv' 2>&1 >/dev/null"
  assert_status 1
}

@test "the gate: --family-wise holm says when no row can reach its first step" {
  # 5 runs a side: the exact test's smallest p is 1/252 = 0.004, under
  # 0.025 alone and over three (0.0083), above 0.025/20 = 0.00125.
  { echo bench,ms; for b in 1 2 3; do for v in 10 11 12 13 14; do echo $b,$v; done; done; } > "$TMP/h3.csv"
  run sh -c "bench-summarize --baseline '$TMP/h3.csv' --by bench --fail-if-worse ms:0%:lower --family-wise holm --format csv '$TMP/h3.csv' 2>&1 >/dev/null"
  assert_status 0
  assert_output ""
  { echo bench,ms; for b in $(seq 1 20); do for v in 10 11 12 13 14; do echo $b,$v; done; done; } > "$TMP/h20.csv"
  run sh -c "bench-summarize --baseline '$TMP/h20.csv' --by bench --fail-if-worse ms:0%:lower --family-wise holm --format csv '$TMP/h20.csv' 2>&1 >/dev/null"
  assert_status 75
  assert_output "bench-summarize: cannot decide: --family-wise holm: over 20 rows the first step asks p < 0.0013, below the smallest p the exact test gives any of them (0.004): no regression can be shown; more runs are needed"
}

@test "the gate: a Fieller interval that is unbounded does not stop the one-sided test" {
  # One slow run in four: the base mean is 1 SE from 0, Fieller's set is
  # unbounded (it exited 65, "cannot judge"), yet the exact test judges,
  # and passes, the unchanged job.
  printf 'arm,ms\na,1\na,1\na,1\na,197\n' > "$TMP/base.csv"
  printf 'arm,ms\na,1\na,2\na,1\na,196\n' > "$TMP/cand.csv"
  run bash -c "set -o pipefail; bench-summarize --baseline '$TMP/base.csv' --by arm --fail-if-worse ms:5%:lower --format csv '$TMP/cand.csv' 2>/dev/null | columns ratio ratio_ci_low ratio_ci_high"
  assert_status 0
  assert_output "ratio,ratio_ci_low,ratio_ci_high
,,
1,,"
}

@test "the gate: --family-wise holm passes what only chance among several would fail" {
  # a: {3,5,6,7,8,10} against {1..5}: 8 of the C(11, 6) = 462 splits sum
  # as high, one-sided p = 0.017 < 0.025 fails alone; Holm over two asks
  # 0.0125 of the smallest.  b is unchanged.
  { echo arm,ms; for v in 1 2 3 4 5; do echo a,$v; done; for v in 1 2 3 4; do echo b,$v; done; } > "$TMP/base.csv"
  { echo arm,ms; for v in 3 5 6 7 8 10; do echo a,$v; done; for v in 1 2 3 4; do echo b,$v; done; } > "$TMP/cand.csv"
  run sh -c "bench-summarize --baseline '$TMP/base.csv' --by arm --fail-if-worse ms:0%:lower --format csv '$TMP/cand.csv' 2>&1 >/dev/null"
  assert_status 1
  assert_output "bench-summarize: arm=a, ms: regression: 2.167x [1.182, 4.908] the baseline, worse by more than 0% at 95% (lower is better; one-sided p = 0.017)"
  run sh -c "bench-summarize --baseline '$TMP/base.csv' --by arm --fail-if-worse ms:0%:lower --family-wise holm --format csv '$TMP/cand.csv' 2>&1 >/dev/null"
  assert_status 0
  assert_output ""
  # A clear regression still fails under Holm: only the observed split of
  # 462 sums as high, p = 0.0022.
  { echo arm,ms; for v in 20 21 22 23 24 25; do echo a,$v; done; for v in 1 2 3 4; do echo b,$v; done; } > "$TMP/cand.csv"
  run sh -c "bench-summarize --baseline '$TMP/base.csv' --by arm --fail-if-worse ms:0%:lower --family-wise holm --format csv '$TMP/cand.csv' 2>&1 >/dev/null"
  assert_status 1
  assert_output "bench-summarize: arm=a, ms: regression: 7.5x [4.85, 16.11] the baseline, worse by more than 0% at 95% (lower is better; Holm over 2, one-sided p = 0.0022)"
  run bench-summarize --family-wise bonferroni --baseline "$TMP/base.csv" "$TMP/cand.csv"
  assert_status 64
}

@test "small-n shape: values that look bimodal or skewed get one warning for their column" {
  ! valgrind_build || skip "valgrind computes long double in 64 bits: the last digits of the statistics differ"
  # 5, 5.01, 9: the gap 3.99 is 1.730 SDs, above 1.727, the 99th percentile
  # of the largest gap of 3 normal values (200000 simulated samples).
  run bench-summarize --resamples 0 --by g --value v <<<"g,v
a,5.0
a,5.01
a,9"
  assert_status 0
  assert_csv "bench-summarize: column 'v': 1 of 1 rows look bimodal or skewed (first: g=a, n=3, a gap of 1.730 SDs between neighbours, above 1.727, the 1% level for normal data); below 30 values its 95% intervals may cover far less, in any row
bench-summarize: column 'v': positive values that may be spread by a large factor (the SD of their logs is 0.34, pooled over 1 rows; first: g=a, n=3; up to 0.63 at 75% confidence, past 0.38): the 95% interval of such a mean covers less (t covered 0.82 to 0.85 at n = 3 to 10 on log-normal data of log SD 1); --log-scale or --ci-stat gmean hold better
g,$H,p5,p95,outliers_mild,outliers_severe
a,v,3,0,6.336666666666667,2.306519744839253,1.33166979557413,5,5.01,9,0.6069539856147301,12.066379347718604,mean,t,0.95,,5.001,8.600999999999999,0,0"
  # Evenly spread values, and one flagged row among two, are not flagged
  # for their shape; the pooled skew (0.35, log SD up to 0.66) is.
  run sh -c 'printf "g,v\na,1\na,2\na,3\nb,5.0\nb,5.01\nb,9\n" | bench-summarize --resamples 0 --by g 2>&1 >/dev/null'
  assert_status 0
  assert_output "bench-summarize: column 'v': positive values that may be spread by a large factor (the SD of their logs is 0.46, pooled over 2 rows; first: g=a, n=3; up to 0.66 at 75% confidence, past 0.38): the 95% interval of such a mean covers less (t covered 0.82 to 0.85 at n = 3 to 10 on log-normal data of log SD 1); --log-scale or --ci-stat gmean hold better"
}

@test "hygiene: a byte order mark on a repeated header is a header, not a group" {
  printf 'g,v\na,1\na,2\n' > "$TMP/one.csv"
  printf '\357\273\277g,v\na,3\n' > "$TMP/two.csv"
  run sh -c "cat '$TMP/one.csv' '$TMP/two.csv' | bench-summarize --resamples 0 --by g --percentiles 50 2>&1"
  assert_status 0
  assert_csv "g,$H,p50,outliers_mild,outliers_severe
a,v,3,0,2,1,0.5773502691896258,1,2,3,-0.4841377117503294,4.484137711750329,mean,t,0.95,,2,0,0"
}

@test "hygiene: a repeated header in another order is read by name" {
  # Rows after \"v,g\" are read by its order, not glued into groups named 4 and 5.
  run sh -c "printf 'g,v\na,1\na,2\nv,g\n3,a\n5,b\n6,b\n' | bench-summarize --resamples 0 --by g --percentiles 50 2>&1"
  assert_status 0
  assert_csv "bench-summarize: column 'v': the mean's 95% interval reaches 0 or below though every value is positive (1 row, first: g=b, n=2): too few values for their spread to say anything; more runs, or --log-scale
g,$H,p50,outliers_mild,outliers_severe
a,v,3,0,2,1,0.5773502691896258,1,2,3,-0.4841377117503294,4.484137711750329,mean,t,0.95,,2,0,0
b,v,2,0,5.5,0.7071067811865476,0.5,5,5.5,6,-0.8531023680873489,11.853102368087349,mean,t,0.95,,5.5,0,0"
  # A line with other names is data as before: its text cells are said.
  run sh -c "printf 'g,v\na,1\na,2\nw,h\n' | bench-summarize --resamples 0 --by g --strict --value v"
  assert_status 65
  assert_output "bench-summarize: stdin: line 4, column 'v': 'h' is not a number"
}

@test "hygiene: hexadecimal is text, never 16: an error with --strict, missing without" {
  run bench-summarize --resamples 0 --strict <<<"v
1
0x10"
  assert_status 65
  assert_output "bench-summarize: stdin: line 3, column 'v': '0x10' is not a number"
  run sh -c "printf 'v\n1\n0x1p3\n3\n' | bench-summarize --resamples 0 2>&1"
  assert_status 0
  assert_csv "bench-summarize: stdin: line 3, column 'v': '0x1p3' is not a number (counted as missing)
bench-summarize: column 'v': the mean's 95% interval reaches 0 or below though every value is positive (1 row, first: n=2): too few values for their spread to say anything; more runs, or --log-scale
column,n,missing,mean
v,2,1,2"
}

@test "hygiene: invalid UTF-8 in a key gives valid JSON (U+FFFD), valid UTF-8 passes through" {
  run bash -c "set -o pipefail; printf 'g,v\n\303\274,1\n\377x\\\\,5\n' | bench-summarize --resamples 0 --by g --format json --percentiles 50 2>/dev/null | cut -d, -f1"
  assert_status 0
  assert_output "[
 {\"g\": \"ü\"
 {\"g\": \"\\ufffdx\\\\\"
]"
}

@test "hygiene: tables pad by display width, not bytes" {
  # ü is 2 bytes and 1 column, 日本 6 bytes and 4 columns: the next column
  # starts at the same place on every line.
  run sh -c "printf 'g,v\n\303\274,1\n\303\274,1\n\346\227\245\346\234\254,3\n\346\227\245\346\234\254,3\nab,5\nab,5\n' | bench-summarize --resamples 0 --by g --format table --percentiles 50 2>/dev/null"
  assert_status 0
  assert_output "g     column  n  missing  mean  sd  se  min  median  max  ci_low  ci_high  ci_stat  ci_method  ci_level  seed  p50  outliers_mild  outliers_severe
ü     v       2        0     1   0   0    1       1    1       -        -  mean     t              0.95  -       1              0                0
日本  v       2        0     3   0   0    3       3    3       -        -  mean     t              0.95  -       3              0                0
ab    v       2        0     5   0   0    5       5    5       -        -  mean     t              0.95  -       5              0                0"
}

@test "cells of more than 16 digits read as the nearest double" {
  # Python's float() gives the same: 1.2345678901234567e+19,
  # 0.12345678901234568, 3.141592653589793, 1e+26, and 2^53 + 1 rounds to
  # even, 9007199254740992.
  run bash -c "set -o pipefail; printf 'g,v\na,12345678901234567890\nb,0.12345678901234567890123\nc,3.141592653589793238462643\nd,100000000000000000000000001\ne,9007199254740993\n' | bench-summarize --by g --resamples 0 --value v 2>/dev/null | columns g mean"
  assert_status 0
  assert_output "g,mean
a,1.2345678901234567e+19
b,0.12345678901234568
c,3.141592653589793
d,1e+26
e,9007199254740992"
}

@test "the geometric mean with a zero: empty, and said once" {
  run bench-summarize --ci-stat gmean --resamples 0 <<<"v
0
2
8"
  assert_status 0
  assert_csv "bench-summarize: no interval: a value is not positive (no geometric mean), in 1 row (first: column 'v', n=3)
column,n,missing,mean,sd,se,min,median,max,gmean,ci_low,ci_high,ci_stat,ci_method,ci_level,seed,p5,p95,outliers_mild,outliers_severe
v,3,0,3.3333333333333335,4.163331998932265,2.4037008503093262,0,2,8,,,,gmean,t,0.95,,0.2,7.3999999999999995,0,0"
}

@test "--rank: Mann-Whitney U, p and the Hodges-Lehmann shift interval, exact and normal" {
  # References from tests/data/reference/mann-whitney.py (exact by
  # enumerating subsets of ranks; normal in mpmath).  Without ties, 13
  # values: exact, U 32, p 0.13752913752913754, shift 1.45 [-0.9, 4.1].
  run bash -c "set -o pipefail; printf 'arm,x\nb,1.1\nb,1.9\nb,2.2\nb,3.3\nb,4.0\nb,4.4\nb,5.9\nn,2.5\nn,3.1\nn,4.7\nn,5.2\nn,6.8\nn,7.4\n' | bench-summarize --compare arm=b --rank --resamples 0 2>/dev/null | columns arm column u p_rank shift shift_ci_low shift_ci_high"
  assert_status 0
  assert_output "arm,column,u,p_rank,shift,shift_ci_low,shift_ci_high
b,x,,,,,
n,x,32,0.13752913752913754,1.4500000000000002,-0.8999999999999999,4.1000000000000005"
  # Ties (3 and 5 on both sides): exact given the ties, U 22, 16 of the
  # 252 splits of the midranks as far out, p 0.06349206349206349
  # (enumerated in Python; the normal approximation with the tie
  # correction gave 0.05855263015682664), shift 4 [0, 8].
  run bash -c "set -o pipefail; printf 'arm,x\nb,1\nb,2\nb,3\nb,4\nb,5\nn,3\nn,5\nn,7\nn,9\nn,11\n' | bench-summarize --compare arm=b --rank --resamples 0 2>/dev/null | columns arm column u p_rank shift shift_ci_low shift_ci_high"
  assert_status 0
  assert_output "arm,column,u,p_rank,shift,shift_ci_low,shift_ci_high
b,x,,,,,
n,x,22,0.06349206349206349,4,0,8"
  # 60 values: normal, U 617, p 0.013831619802975434, shift 3.715 [0.84, 6.78].
  awk 'BEGIN { print "arm,x"; for (i = 0; i < 30; i++) { print "b," (i * 1.37) % 17; print "n," (i * 2.11) % 19 + 1.5 } }' > "$TMP/big.csv"
  run bash -c "set -o pipefail; bench-summarize --compare arm=b --rank --resamples 0 '$TMP/big.csv' 2>/dev/null | columns arm column u p_rank shift shift_ci_low shift_ci_high"
  assert_status 0
  assert_output "arm,column,u,p_rank,shift,shift_ci_low,shift_ci_high
b,x,,,,,
n,x,617,0.013831619802975412,3.715,0.8399999999999999,6.780000000000001"
  run bench-summarize --rank --resamples 0 <<<"v
1"
  assert_status 64
  assert_output "bench-summarize: --rank: needs --compare or --baseline"
  # 3 and 3 at 90%: P(U <= 0) = 1/20 is one side's 0.05 exactly, so the
  # extreme differences (order statistics 1 and 9) bound the shift.
  run bash -c "set -o pipefail; printf 'arm,x\nb,1\nb,2\nb,4\nn,3\nn,7\nn,8\n' | bench-summarize --compare arm=b --rank --resamples 0 --confidence 0.9 --format csv 2> /dev/null | columns arm u p_rank shift shift_ci_low shift_ci_high"
  assert_status 0
  assert_output "arm,u,p_rank,shift,shift_ci_low,shift_ci_high
b,,,,,
n,8,0.2,4,-1,7"
}

@test "--paired: the paired difference and ratio of rows that share a run" {
  # Runs drift 10..40 on both arms, so Welch sees no difference (p 0.52);
  # paired, the differences 1, 1.5, 2, 2.5 give 1.75 [0.72287, 2.77713],
  # p 0.012307551821486286, and the ratios' geometric mean 1.0759441
  # [1.0496949, 1.1028496] (mpmath).  Run 5 has no pair and is left out.
  run bash -c "set -o pipefail; printf 'run,arm,ms\n1,b,10\n2,b,20\n3,b,30\n4,b,40\n1,n,11\n2,n,21.5\n3,n,32\n4,n,42.5\n5,n,50\n' | bench-summarize --compare arm=b --paired run --resamples 0 2>/dev/null | columns arm column p_welch pairs paired_diff paired_diff_ci_low paired_diff_ci_high paired_ratio paired_ratio_ci_low paired_ratio_ci_high p_paired"
  assert_status 0
  assert_output "arm,column,p_welch,pairs,paired_diff,paired_diff_ci_low,paired_diff_ci_high,paired_ratio,paired_ratio_ci_low,paired_ratio_ci_high,p_paired
b,ms,,,,,,,,,
n,ms,0.5235434938870541,4,1.75,0.7228698716197397,2.7771301283802603,1.0759440864079146,1.04969492939049,1.1028496419891822,0.012307551821486273"
  run bench-summarize --paired run --resamples 0 <<<"run,v
1,1"
  assert_status 64
  assert_output "bench-summarize: --paired: needs --compare or --baseline"
  run bench-summarize --paired arm --compare arm=b --resamples 0 <<<"arm,v
b,1"
  assert_status 64
  assert_output "bench-summarize: --paired: 'arm' is a group column; pairs are found within a group"
  run bench-summarize --paired nope --compare arm=b --resamples 0 <<<"arm,v
b,1"
  assert_status 64
  assert_output "bench-summarize: --paired: no column 'nope' in the input"
}

@test "warnings go to stderr only: the table on stdout holds none" {
  # A text cell, a one-value group and a bimodal-looking group all warn.
  run sh -c "printf 'g,v\na,5.0\na,5.01\na,9\nb,1\nb,x\n' | bench-summarize --by g --resamples 0 --format table --percentiles 50 --columns g,column,n,missing,mean,sd,ci_low,ci_high,p50 2>/dev/null"
  assert_status 0
  assert_output "g  column  n  missing  mean       sd  ci_low  ci_high   p50
a  v       3        0   6.3  2.30652     0.6     12.1  5.01
b  v       1        1     1        -       -        -     1"
  run bash -c "set -o pipefail; printf 'g,v\na,5.0\na,5.01\na,9\nb,1\nb,x\n' | bench-summarize --by g --resamples 0 --format table 2>&1 >/dev/null | cut -c1-40"
  assert_status 0
  assert_output "bench-summarize: stdin: line 6, column '
bench-summarize: no interval: fewer than
bench-summarize: column 'v': 1 of 1 rows
bench-summarize: column 'v': positive va"
}

# --- issue 29: intervals, verdicts, the gate and numbers that keep their word -----

@test "the bootstrap below 10 values is refused with the method that holds; from 10 to 29 percentile and BCa are warned" {
  run sh -c "seq 1 5 | sed 1iv | bench-summarize --ci boot-t --seed 1 --format csv"
  assert_status 0
  assert_csv "bench-summarize: no interval: bootstrap-t below 10 values gives almost no interval, or one far wider than the data (use --ci t), in 1 row (first: column 'v', n=5)
$H,p5,p95,outliers_mild,outliers_severe
v,5,0,3,1.5811388300841898,0.7071067811865476,1,3,5,,,mean,boot-t,0.95,,1.2,4.8,0,0"
  for ci in percentile bca; do
    run sh -c "seq 1 9 | sed 1iv | bench-summarize --ci $ci --seed 1 --format csv 2>&1 >/dev/null"
    assert_status 0
    assert_output "bench-summarize: no interval: percentile and BCa intervals below 10 values covered 0.71 to 0.83 of a 95% interval on normal data at n = 3 and 5, less on skewed (use --ci t), in 1 row (first: column 'v', n=9)"
    run sh -c "seq 1 5 | sed 1iv | bench-summarize --ci $ci --ci-stat median --seed 1 --format csv 2>&1 >/dev/null"
    assert_status 0
    assert_output "bench-summarize: no interval: percentile and BCa intervals of a median below 10 values rest on a few distinct resampled medians (use --ci order), in 1 row (first: column 'v', n=5)"
    # Ten values: printed, with the shortfall said once for the column.
    run sh -c "printf 'g,v\n' > '$TMP/t.csv'; for g in a b; do seq 1 12 | sed 's/^/'\$g,'/'; done >> '$TMP/t.csv'; bench-summarize --by g --ci $ci --seed 1 --format csv '$TMP/t.csv' 2>&1 >/dev/null"
    assert_status 0
    assert_output "bench-summarize: column 'v': $ci intervals from 10 to 29 values fall short of their level: at 95%, 0.91 (n = 10) to 0.94 (n = 30) on normal data, 0.81 to 0.92 on log-normal; --ci t holds for normal data (2 rows, first: g=a, n=12, at 95%)"
    # The warning's last n is 29; at 30 nothing is said.
    run bash -c "seq 1 29 | sed 1iv | bench-summarize --ci $ci --seed 1 --format csv 2>&1 >/dev/null"
    assert_status 0
    [[ "$output" == "bench-summarize: column 'v': $ci intervals from 10 to 29 values fall short of their level: "* ]]
    run bash -c "seq 1 30 | sed 1iv | bench-summarize --ci $ci --seed 1 --format csv 2>&1 >/dev/null"
    assert_status 0
    assert_output ""
  done
  # The default is t at every n: it never draws.
  run bash -c "set -o pipefail; seq 1 40 | sed 1iv | bench-summarize --format csv | columns ci_method seed"
  assert_status 0
  assert_output "ci_method,seed
t,"
}

@test "a skew warning points positive, widely spread values at --log-scale and the geometric mean" {
  printf 'items_per_s\n10\n100\n1000\n' > "$TMP/r.csv"
  run sh -c "bench-summarize --resamples 0 '$TMP/r.csv' 2>&1 >/dev/null"
  assert_status 0
  assert_output "bench-summarize: column 'items_per_s': positive values that may be spread by a large factor (the SD of their logs is 2.30, pooled over 1 rows; first: n=3; up to 4.26 at 75% confidence, past 0.38): the 95% interval of such a mean covers less (t covered 0.82 to 0.85 at n = 3 to 10 on log-normal data of log SD 1); --log-scale or --ci-stat gmean hold better"
  # On the log scale already, by log-t's own limit and words (it said
  # nothing, and log-t too falls short); values not all positive: no word.
  run sh -c "bench-summarize --resamples 0 --log-scale '$TMP/r.csv' 2>&1 >/dev/null"
  assert_status 0
  assert_output "bench-summarize: column 'items_per_s': positive values that may be spread by a large factor (the SD of their logs is 2.30, pooled over 1 rows; first: n=3; up to 4.26 at 75% confidence, past 0.55): the 95% interval of such a mean covers less (log-t covered 0.89 to 0.92 at n = 3 to 30 on log-normal data of log SD 1); --ci-stat gmean holds, or more runs"
  run sh -c "printf 'v\n-1\n10\n100\n1000\n' | bench-summarize --resamples 0 2>&1 >/dev/null"
  assert_status 0
  assert_output ""
  # A spread of a factor 3 (1, 2, 3: log SD 0.55) is not skew enough.
  run sh -c "printf 'v\n1\n2\n3\n' | bench-summarize --resamples 0 2>&1 >/dev/null"
  assert_status 0
  assert_output ""
}

@test "verdicts: the word, the interval and p agree in every printed digit at the 5% edge" {
  # Ratio 0.98225, Fieller's high end 0.99997 and Welch's p 0.0497: it
  # printed "0.982x [0.965, 1.000] lower (p = 0.05)", an end and a p that
  # read as the edge itself.  The ends now round outward with digits until
  # they are on their side of 1, and p has the digits that put it below 0.05.
  printf 'arm,v\na,102.458134\nb,99.713916\na,102.240766\nb,98.428164\na,99.312368\nb,98.074849\na,100.648624\nb,99.019327\na,100.399458\nb,100.860400\n' > "$TMP/e.csv"
  run bash -c "set -o pipefail; bench-summarize --compare arm=a --format table '$TMP/e.csv' 2>/dev/null | tail -n 1"
  assert_status 0
  assert_output "arm=b vs arm=a: v 0.98225x [0.96490, 0.99997] lower (p = 0.0497, Welch)"
  # The table's p_welch column, beside it, says the same.
  run bash -c "set -o pipefail; bench-summarize --compare arm=a --format table --columns arm,p_welch '$TMP/e.csv' 2>/dev/null | awk 'NR == 3 { print \$2 }'"
  assert_status 0
  assert_output "0.0497"
  # The table's interval columns round outward too: 1.14x [0.935.., 1.39]
  # shows its low end as 0.93, not 0.94.
  run bash -c "set -o pipefail; printf 'arm,x\nbase,10\nbase,11\nbase,12\nnew,11.5\nnew,12.5\nnew,13.5\n' | bench-summarize --compare arm=base --format table --percentiles 50 --columns arm,ratio,ratio_ci_low,ratio_ci_high | awk 'NR == 3 { print \$2, \$3, \$4 }'"
  assert_status 0
  assert_output "1.14 0.93 1.39"
}

@test "verdicts: paired with --paired, rank-sum with --rank, Welch otherwise, each named" {
  printf 'rep,arm,v\n' > "$TMP/p.csv"
  for r in 1 2 3 4 5 6; do echo "$r,a,$((100 + r * 10))" >> "$TMP/p.csv"; echo "$r,b,$((102 + r * 10)).$r" >> "$TMP/p.csv"; done
  # Runs 10 apart, each b 2.1 to 2.6 above its a: the paired test sees it
  # (p 1.7e-7) where Welch's, blind to the pairing, does not (p 0.83).
  run bash -c "set -o pipefail; bench-summarize --value v --compare arm=a --paired rep --format table '$TMP/p.csv' | tail -n 1"
  assert_status 0
  assert_output "arm=b vs arm=a: v 1.0175x [1.0164, 1.0187] higher (p = 1.7e-7, paired t of log ratios)"
  run bash -c "set -o pipefail; bench-summarize --value v --compare arm=a --format table '$TMP/p.csv' | tail -n 1"
  assert_status 0
  assert_output "arm=b vs arm=a: v no difference shown at 95% (1.02x [0.85, 1.22], p = 0.83, Welch)"
  # 1..5 against 6..10: the exact rank-sum p is 2/252.
  run bash -c "set -o pipefail; printf 'arm,v\na,1\na,2\na,3\na,4\na,5\nb,6\nb,7\nb,8\nb,9\nb,10\n' | bench-summarize --compare arm=a --rank --format table | tail -n 1"
  assert_status 0
  assert_output "arm=b vs arm=a: v higher by 5.0 [2.0, 8.0] (p = 0.0079, rank-sum, exact)"
  # With ties at 3 and 3: exact given the ties, 0.1 (R's wilcox.test
  # warns and gives the normal approximation's 0.047... in its place).
  run bash -c "set -o pipefail; printf 'arm,v\na,1\na,2\na,2\nb,3\nb,3\nb,4\n' | bench-summarize --compare arm=a --rank --format csv 2>/dev/null | columns u p_rank"
  assert_status 0
  assert_output "u,p_rank
,
9,0.1"
}

@test "--rank with ties: the shift's interval is the shifts the test accepts, so it holds 0 exactly when p does not reject" {
  # 1 2 2 3 3 against 3 3 4 4 5: exact given the ties p = 0.0476 at a
  # shift of 0, 0.111 at 0.5, 0.0794 at 3 and below 0.05 past it
  # (enumerated in Python over the 252 splits of the midranks at each
  # shift).  The order statistics said [0.0, 3.0] and "no difference
  # shown ... its interval holds the null" beside p = 0.048.
  run bash -c "set -o pipefail; printf 'arm,v\na,1\na,2\na,2\na,3\na,3\nb,3\nb,3\nb,4\nb,4\nb,5\n' | bench-summarize --compare arm=a --rank --format table 2>/dev/null | tail -n 1"
  assert_status 0
  assert_output "arm=b vs arm=a: v higher by 2.0 (0.0, 3.0] (p = 0.048, rank-sum, exact given ties)"
  # 1 2 2 2 3 3 against 3 3 4 4 4 5: p = 0.013, accepted from 1 to 2.5,
  # rejected at 3 (0.037): the upper end is open.
  run bash -c "set -o pipefail; printf 'arm,v\na,1\na,2\na,2\na,2\na,3\na,3\nb,3\nb,3\nb,4\nb,4\nb,4\nb,5\n' | bench-summarize --compare arm=a --rank --format table 2>/dev/null | tail -n 1"
  assert_status 0
  assert_output "arm=b vs arm=a: v higher by 2.0 [1.0, 3.0) (p = 0.013, rank-sum, exact given ties)"
}

@test "verdicts: means near 1e200 are scaled, never nan: t 20 as scipy gives" {
  # Valgrind computes long double at double precision: the last digits differ.
  ! valgrind_build || skip "valgrind computes long double at double precision"
  printf 'arm,v\na,1e200\na,1.01e200\na,0.99e200\na,1.02e200\na,0.98e200\nb,1.2e200\nb,1.21e200\nb,1.19e200\nb,1.22e200\nb,1.18e200\n' > "$TMP/big.csv"
  run bash -c "set -o pipefail; bench-summarize --compare arm=a --format table '$TMP/big.csv' | tail -n 1"
  assert_status 0
  assert_output "arm=b vs arm=a: v 1.200x [1.174, 1.226] higher (p = 4.1e-8, Welch)"
  run bash -c "set -o pipefail; bench-summarize --compare arm=a --format csv '$TMP/big.csv' | columns t df | awk -F, 'NR == 3 { printf \"%.10g %.10g\\n\", \$1, \$2 }'"
  assert_status 0
  assert_output "20 8"
  # The bootstrap scales too: its squared deviations overflowed to "too
  # many resamples without spread" and "the jackknife is degenerate".
  awk 'BEGIN { print "v"; for (i = 1; i <= 12; i++) printf "%.6ge200\n", 1 + i / 1000 }' > "$TMP/b12.csv"
  for ci in boot-t bca; do
    run bash -c "set -o pipefail; bench-summarize --ci $ci --seed 1 --format csv '$TMP/b12.csv' 2> /dev/null | columns ci_low ci_high | awk -F, 'NR == 2 { print (\$1 > 1.001e200 && \$1 < 1.0065e200 && \$2 > 1.0065e200 && \$2 < 1.012e200) }'"
    assert_status 0
    assert_output "1"
  done
  # Past DBL_MAX an interval is reported as overflow, not nan.
  run sh -c "printf 'v\n1.7e308\n1.79e308\n1.75e308\n' | bench-summarize --format csv 2>&1 >/dev/null"
  assert_status 0
  assert_output "bench-summarize: no interval: the interval overflows a double, in 1 row (first: column 'v', n=3)"
}

@test "numbers print right from subnormals to 1e308: exponent form at the ends, consistent tables, shortest CSV" {
  # Valgrind computes long double at double precision: the last digits differ.
  ! valgrind_build || skip "valgrind computes long double at double precision"
  run bash -c "set -o pipefail; printf 'v\n1.2e300\n1.3e300\n1.25e300\n' | bench-summarize --format table --percentiles 50 --columns column,mean,sd,min,max,ci_low,ci_high | awk 'NR == 2 { print \$2, \$3, \$4, \$5, \$6, \$7 }'"
  assert_status 0
  assert_output "1.25e300 5e298 1.2e300 1.3e300 1.12e300 1.38e300"
  run bash -c "set -o pipefail; printf 'v\n2e-70\n3e-70\n2.5e-70\n' | bench-summarize --format table --percentiles 50 --columns column,mean,min,max,ci_low,ci_high | awk 'NR == 2 { print \$2, \$3, \$4, \$5, \$6 }'"
  assert_status 0
  assert_output "2.5e-70 2e-70 3e-70 1.2e-70 3.8e-70"
  # Below 1e-4 the exponent form starts: 1.6e-5, not 0.000016.
  run bash -c "set -o pipefail; printf 'v\n0.000015\n0.000016\n0.000017\n' | bench-summarize --format table --percentiles 50 --columns column,mean,ci_low,ci_high | awk 'NR == 2 { print \$2, \$3, \$4 }'"
  assert_status 0
  assert_output "1.60e-5 1.35e-5 1.85e-5"
  # 1e15 + 0..9: min and max had 6 digits (1e15) beside a mean of 17.
  run bash -c "set -o pipefail; awk 'BEGIN { print \"v\"; for (i = 0; i < 10; i++) printf \"100000000000000%d\\n\", i }' | bench-summarize --format table --percentiles 50 --columns column,mean,min,max | awk 'NR == 2 { print \$2, \$3, \$4; print (\$3 <= \$2 && \$2 <= \$4) }'"
  assert_status 0
  assert_output "1000000000000004.5 1000000000000000 1000000000000009
1"
  # CSV writes the shortest text that reads back, as JSON does.
  run bash -c "set -o pipefail; printf 'v\n1e-323\n1e-323\n' | bench-summarize --format csv --percentiles 50 2>/dev/null | columns mean min"
  assert_status 0
  assert_output "mean,min
1e-323,1e-323"
}

@test "which way is better: by unit (gb_s and mb_s are rates), by --higher/--lower-is-better, else neutral" {
  printf 'arm,gb_s,throughput_mb_s,t_ms,score,latency\n' > "$TMP/d.csv"
  for i in 1 2 3 4 5; do echo "a,$((100+i)),$((100+i)),$((100+i)),$((100+i)),$((100+i))" >> "$TMP/d.csv"; echo "b,$((92+i)),$((92+i)),$((92+i)),$((92+i)),$((92+i))" >> "$TMP/d.csv"; done
  run bash -c "set -o pipefail; bench-summarize --compare arm=a --format table '$TMP/d.csv' | tail -n 5"
  assert_status 0
  assert_output "arm=b vs arm=a: gb_s 0.922x [0.901, 0.945] slower (p = 4.4e-5, Welch)
arm=b vs arm=a: throughput_mb_s 0.922x [0.901, 0.945] slower (p = 4.4e-5, Welch)
arm=b vs arm=a: t_ms 0.922x [0.901, 0.945] faster (p = 4.4e-5, Welch)
arm=b vs arm=a: score 0.922x [0.901, 0.945] lower (p = 4.4e-5, Welch)
arm=b vs arm=a: latency 0.922x [0.901, 0.945] faster (p = 4.4e-5, Welch)"
  run bash -c "set -o pipefail; bench-summarize --compare arm=a --format table --higher-is-better score --lower-is-better gb_s '$TMP/d.csv' | tail -n 5 | cut -d' ' -f4,8"
  assert_status 0
  assert_output "gb_s better
throughput_mb_s slower
t_ms faster
score worse
latency faster"
  # A --ratio takes its numerator's way, or the opposite of its
  # denominator's: a time over a time (d2h-overlap's speed-up) is neutral.
  run bash -c "set -o pipefail; printf 'arm,serialized_ms,concurrent_ms,items\na,10,5,100\na,11,5,100\na,10,6,100\nb,10,8,100\nb,11,8,100\nb,10,9,100\n' | bench-summarize --compare arm=a --ratio serialized_ms/concurrent_ms --ratio items/concurrent_ms --value serialized_ms/concurrent_ms,items/concurrent_ms --format table 2>/dev/null | tail -n 2"
  assert_status 0
  assert_output "arm=b vs arm=a: serialized_ms/concurrent_ms 0.64x [0.46, 0.91] lower (p = 0.028, Welch)
arm=b vs arm=a: items/concurrent_ms 0.64x [0.50, 0.83] slower (p = 0.015, Welch)"
  # d2h-overlap's hidden_ms (time hidden behind compute) and efficiency
  # are better higher, a count of mismatches lower.
  printf 'arm,hidden_ms,overlap_efficiency,mismatches\n' > "$TMP/o.csv"
  for i in 1 2 3 4 5; do echo "a,$((100+i)),$((100+i)),$((100+i))" >> "$TMP/o.csv"; echo "b,$((92+i)),$((92+i)),$((92+i))" >> "$TMP/o.csv"; done
  run bash -c "set -o pipefail; bench-summarize --compare arm=a --format table '$TMP/o.csv' 2>/dev/null | tail -n 3 | cut -d' ' -f4,8"
  assert_status 0
  assert_output "hidden_ms worse
overlap_efficiency worse
mismatches better"
  run bench-summarize --compare arm=a --higher-is-better nope "$TMP/d.csv"
  assert_status 64
  assert_output "bench-summarize: --higher-is-better: no column 'nope' in the input"
}

@test "--ci order on a --ratio column is the median's interval, unseeded; --log-scale ratios of means stay positive" {
  run bash -c "set -o pipefail; printf 'a,b\n1,2\n2,3\n3,4\n4,6\n5,5\n6,7\n' | bench-summarize --ratio a/b --value a/b --ci order --seed 1 --format csv | columns ci_low ci_high ci_stat ci_method ci_level seed"
  assert_status 0
  assert_output "ci_low,ci_high,ci_stat,ci_method,ci_level,seed
0.5,1,median,order,0.95,"
  # Fieller's ratio of these is 0.13x [-0.11, 0.38]; on the log scale it
  # is the ratio of geometric means, Welch's t of the logs: t = -3.884,
  # df = 2.069, exp(-2.4985) = 0.0822 (numpy).  The delta method's test
  # of log(m1/m2) said 0.126x [0.008, 1.971], p = 0.084.
  run bash -c "set -o pipefail; printf 'arm,ms\na,1\na,1.2\na,0.9\nb,0.05\nb,0.3\nb,0.04\n' | bench-summarize --compare arm=a --log-scale --format table 2>/dev/null | tail -n 1"
  assert_status 0
  assert_output "arm=b vs arm=a: ms no difference shown at 95% (0.082x [0.005, 1.200], p = 0.057, Welch on the logs, ratio of geometric means)"
}

@test "the seeded validation suite: every promise it checks holds (contrib/bench-summarize-coverage check)" {
  ! valgrind_build || skip "thousands of runs of the command: too slow under valgrind"
  run "$top_srcdir/contrib/bench-summarize-coverage" check
  assert_status 0
  run grep -c '^BROKEN' <<< "$output"
  assert_status 1
  assert_output "0"
}

@test "--columns: only the named output columns, in their order, in every format; an unknown one exits 64" {
  # Valgrind computes long double at double precision: the last digits differ.
  ! valgrind_build || skip "valgrind computes long double at double precision"
  cd "$DATA"
  run sh -c "bench-summarize --by arm,size_mib --compare arm=pageable --columns size_mib,arm,n,mean,ci_low,ci_high,ratio,p_welch --format markdown h2d.csv 2>/dev/null"
  assert_status 0
  assert_output "| size_mib | arm      |   n |  mean | ci_low | ci_high | ratio | p_welch |
|:-------- |:-------- | ---:| -----:| ------:| -------:| -----:| -------:|
| 8        | pinned   |   4 |  1.15 |   0.94 |    1.36 |  0.72 |  0.0056 |
| 8        | pageable |   4 |  1.60 |   1.34 |    1.86 |     - |       - |
| 64       | pinned   |   4 |  8.05 |   7.84 |    8.26 | 0.767 | 0.00021 |
| 64       | pageable |   4 | 10.50 |   9.96 |   11.04 |     - |       - |

- size_mib=8, arm=pinned vs arm=pageable: h2d_ms 0.72x [0.59, 0.87] faster (p = 0.0056, Welch)
- size_mib=64, arm=pinned vs arm=pageable: h2d_ms 0.767x [0.729, 0.807] faster (p = 0.00021, Welch)"
  run sh -c "bench-summarize --by arm,size_mib --value h2d_ms --columns mean,arm,p5 --format csv h2d.csv"
  assert_status 0
  assert_output "mean,arm,p5
1.15,pinned,1.0150000000000001
1.6,pageable,1.43
8.05,pinned,7.915
10.5,pageable,10.145"
  run bash -c "set -o pipefail; bench-summarize --by arm,size_mib --value h2d_ms --columns arm,mean --lower-is-better h2d_ms --higher-is-better h2d_ms --format json h2d.csv | sed -n 1,2p"
  assert_status 0
  assert_output '[
 {"arm": "pinned", "mean": 1.15},'
  run bench-summarize --columns bogus h2d.csv
  assert_status 64
  assert_output "bench-summarize: column 'arm' differs between rows ('pinned', 'pageable', ...) but no --by names it: their numbers are pooled into one summary (--by arm keeps them apart)
bench-summarize: column 'note' differs between rows ('warm', 'slow', ...) but no --by names it: their numbers are pooled into one summary (--by note keeps them apart)
bench-summarize: --columns: no column 'bogus' in this output (its header names them)"
}
