#!/usr/bin/env bats
# bench-summarize --reduce (summary-reduce.c): per-rank rows to one value
# per group and column by a named rule, every rank beside the aggregate.

load test-helper

setup() {
  common_setup
  cat > "$TMP/ranks.csv" <<'CSV'
repeat,rank,host,device,world_size,items_per_s,seconds
1,0,h1,0,3,1000,2.0
1,2,h2,0,3,900.5,2.5
1,1,h1,1,3,1100,1.9
CSV
}

@test "--reduce: each rule's aggregate and the rank that set it, after every rank's row" {
  while IFS='|' read -r rule rate rate_by time time_by; do
    run bash -c "set -o pipefail; bench-summarize --reduce $rule --value items_per_s,seconds --format csv '$TMP/ranks.csv' | columns rank column value reduce set_by ranks"
    assert_status 0
    assert_output "rank,column,value,reduce,set_by,ranks
0,items_per_s,1000,,,
0,seconds,2,,,
1,items_per_s,1100,,,
1,seconds,1.9,,,
2,items_per_s,900.5,,,
2,seconds,2.5,,,
,items_per_s,$rate,$rule,$rate_by,3
,seconds,$time,$rule,$time_by,3" || { echo "rule $rule" >&2; return 1; }
  done <<'TABLE'
sum|3000.5||6.4|
mean|1000.1666666666666||2.1333333333333333|
min|900.5|2|1.9|1
max|1100|1|2.5|2
slowest|2701.5|2|2.5|2
TABLE
}

@test "--reduce table: one line per rank with host and device, the rule's line, and what the rule is" {
  run bench-summarize --reduce slowest --value items_per_s,seconds --format table "$TMP/ranks.csv"
  assert_status 0
  assert_output "# --reduce slowest over the ranks of each group: items_per_s: the slowest rank's rate times the ranks; seconds: the slowest rank's time
# (rank N): the rank that set it
rank          host  device  items_per_s      seconds
0             h1    0       1000             2
1             h1    1       1100             1.9
2             h2    0       900.5            2.5
slowest of 3                2701.5 (rank 2)  2.5 (rank 2)"
}

@test "--reduce per group of --by, files concatenated (columns in another order), a tie goes to the lower rank" {
  printf 'rank,repeat,seconds,items_per_s,world_size,device,host\n0,2,1,5,2,0,a\n1,2,1,5,2,1,a\n' > "$TMP/more.csv"
  run bash -c "set -o pipefail; bench-summarize --reduce min --by repeat --value items_per_s --format csv '$TMP/ranks.csv' '$TMP/more.csv' | columns repeat rank value reduce set_by"
  assert_status 0
  assert_output "repeat,rank,value,reduce,set_by
1,0,1000,,
1,1,1100,,
1,2,900.5,,
1,,900.5,min,2
2,0,5,,
2,1,5,,
2,,5,min,0"
}

@test "--reduce warns when fewer ranks than world_size reported" {
  head -n 3 "$TMP/ranks.csv" > "$TMP/two.csv"
  run bash -c "bench-summarize --reduce sum --value seconds --format csv '$TMP/two.csv' 2>&1 >/dev/null"
  assert_status 0
  assert_output "bench-summarize: the input: 2 ranks of world_size 3: the sum is of the ranks present only"
}

@test "--reduce refuses what would hide a rank, and options it does not take" {
  printf 'rank,v\n0,1\n1,\n' > "$TMP/missing.csv"
  printf 'rank,v\n0,1\n0,2\n' > "$TMP/twice.csv"
  printf 'v\n1\n' > "$TMP/norank.csv"
  run bench-summarize --reduce sum --value v "$TMP/missing.csv"
  assert_status 65
  assert_output "bench-summarize: $TMP/missing.csv: line 3, column 'v': '' is not a number: every rank's value is needed"
  run bench-summarize --reduce sum --value v "$TMP/twice.csv"
  assert_status 65
  assert_output "bench-summarize: $TMP/twice.csv: line 3: rank 0 appears twice in the input (first at $TMP/twice.csv line 2)"
  usage_errors <<'TABLE'
bench-summarize --reduce sum --value v @TMP@/norank.csv|bench-summarize: --reduce: no column 'rank' in @TMP@/norank.csv
bench-summarize --reduce sum @TMP@/missing.csv|bench-summarize: --reduce: needs --value (the columns to reduce)
bench-summarize --reduce slowest --value v @TMP@/missing.csv|bench-summarize: --reduce slowest: 'v' is neither a rate nor a time by its name; say which with --higher-is-better or --lower-is-better
bench-summarize --reduce median --value v @TMP@/missing.csv|bench-summarize: --reduce: invalid choice 'median' (choose from 'sum', 'min', 'mean', 'max', 'slowest')
bench-summarize --reduce sum --value v --compare rank=0 @TMP@/missing.csv|bench-summarize: --reduce: takes --by, --value, --higher-is-better, --lower-is-better and --format csv or table only
bench-summarize --reduce sum --value v --format json @TMP@/missing.csv|bench-summarize: --reduce: takes --by, --value, --higher-is-better, --lower-is-better and --format csv or table only
TABLE
}

@test "--reduce slowest takes the way a column named by neither unit is better from the options" {
  printf 'rank,score\n0,3\n1,2\n' > "$TMP/score.csv"
  run bash -c "set -o pipefail; bench-summarize --reduce slowest --higher-is-better score --value score --format csv '$TMP/score.csv' | columns value set_by | tail -n 1"
  assert_status 0
  assert_output "4,1"
  run bash -c "set -o pipefail; bench-summarize --reduce slowest --lower-is-better score --value score --format csv '$TMP/score.csv' | columns value set_by | tail -n 1"
  assert_status 0
  assert_output "3,0"
}

@test "--reduce table: a UTF-8 key and host are padded by their terminal columns, not their bytes" {
  printf 'phase,rank,host,v\nαβγ,0,東京,1\nx,0,h,2\n' > "$TMP/utf8.csv"
  run bench-summarize --reduce max --by phase --value v --format table "$TMP/utf8.csv"
  assert_status 0
  assert_output "# --reduce max over the ranks of each group: v: the highest rank's value
# (rank N): the rank that set it
phase  rank      host  device  v
αβγ    0         東京          1
αβγ    max of 1                1 (rank 0)
x      0         h             2
x      max of 1                2 (rank 0)"
}

@test "--reduce reads as --by does: a header repeated in another order (reports concatenated) maps the rows after it" {
  { printf 'rank,v,w\n0,1,10\n'; printf 'w,v,rank\n20,2,1\n'; } > "$TMP/cat.csv"
  run bash -c "set -o pipefail; bench-summarize --reduce sum --value v,w --format csv '$TMP/cat.csv' | columns rank column value reduce"
  assert_status 0
  assert_output "rank,column,value,reduce
0,v,1,
0,w,10,
1,v,2,
1,w,20,
,v,3,sum
,w,30,sum"
}

@test "--reduce refuses ranks of runs of different world_size in a group, and a rank not below its world_size" {
  printf 'rank,world_size,v\n0,2,1\n1,2,1\n' > "$TMP/two.csv"
  printf 'rank,world_size,v\n2,3,1\n' > "$TMP/three.csv"
  printf 'rank,world_size,v\n0,2,1\n2,2,1\n' > "$TMP/beyond.csv"
  run bench-summarize --reduce sum --value v "$TMP/two.csv" "$TMP/three.csv"
  assert_status 65
  assert_output "bench-summarize: $TMP/three.csv: line 2: world_size 3, but 2 at $TMP/two.csv line 2: ranks of runs of different sizes in the input"
  run bench-summarize --reduce sum --value v "$TMP/beyond.csv"
  assert_status 65
  assert_output "bench-summarize: $TMP/beyond.csv: line 3: rank 2 is not below its world_size 2"
  # Groups of different sizes, each one run: reduced.
  printf 'repeat,rank,world_size,v\n1,0,2,1\n1,1,2,1\n2,0,1,5\n' > "$TMP/groups.csv"
  run bash -c "set -o pipefail; bench-summarize --reduce sum --by repeat --value v --format csv '$TMP/groups.csv' | columns repeat value reduce ranks | grep sum"
  assert_status 0
  assert_output "1,2,sum,2
2,5,sum,1"
}

@test "--reduce mean of values near the largest double is their mean, not inf; their sum is inf" {
  printf 'rank,v\n0,1e308\n1,1e308\n2,1e308\n3,1e308\n4,1e308\n' > "$TMP/e308.csv"
  printf 'rank,v\n0,1.7976931348623157e308\n1,1.7976931348623157e308\n2,1.7976931348623157e308\n' > "$TMP/max.csv"
  printf 'rank,v\n0,1.7e308\n1,1.5e308\n2,-1e308\n' > "$TMP/mixed.csv"
  while IFS='|' read -r rule file expected; do
    run bash -c "set -o pipefail; bench-summarize --reduce $rule --value v --format csv '$TMP/$file' | columns value reduce | tail -n 1"
    assert_status 0
    assert_output "$expected" || { echo "$rule $file" >&2; return 1; }
  done <<'TABLE'
mean|e308.csv|1e+308,mean
mean|max.csv|1.7976931348623157e+308,mean
mean|mixed.csv|7.333333333333333e+307,mean
sum|e308.csv|inf,sum
TABLE
}
