#!/usr/bin/env bats
# Every assertion can fail: no test file holds a bats idiom whose failure
# set -e ignores (tests/lint-assertions.awk says which and why).

load test-helper

@test "no assertion in any test file is one that set -e ignores, and every run checks its status" {
  local files=("$top_srcdir"/tests/*.bats "$top_srcdir"/tests/*.bash)
  [ "${#files[@]}" -gt 10 ]
  run lint_assertions "${files[@]}"
  assert_status 0
  assert_output ""
}

@test "the lint finds each idiom: '!' and 'a && b' in the middle of a body, in a loop, over lines" {
  # '|' keeps bats from reading the sample's tests as this file's.
  sed 's/^|//' > "$TMP/idioms.bats" <<'EOF_BATS'
|@test "idioms" {
  ! valgrind_build || skip "under valgrind"
  ! kill -0 "$pid" 2> /dev/null
  [ -L "$link" ] && [ -f "$file" ]
  for f in a b; do
    ! grep -q x "$f"
  done
  [ -n "$x" ] &&
    assert_output "y"
  [ $# -gt 0 ] && shift
  if [ -e a ] && [ -e b ]; then :; fi
  run bash -c "a && [ b ]
  ! c"
  [[ -e a && -e b ]]
  [ "$before" -le 1 ] && [ "$after" -le 1 ]
}

helper() {
  ! true
  [ a ] && [ b ]
}

|@test "a last statement can fail" {
  ! kill -0 1
}
EOF_BATS
  run lint_assertions "$TMP/idioms.bats"
  assert_status 1
  assert_output "$TMP/idioms.bats:3: a command negated with '!' is ignored by set -e: use 'run ! CMD' or '! CMD || false'
$TMP/idioms.bats:4: only the last command of 'a && b' can fail a test: one assertion per line
$TMP/idioms.bats:6: a command negated with '!' is ignored by set -e: use 'run ! CMD' or '! CMD || false'
$TMP/idioms.bats:8: only the last command of 'a && b' can fail a test: one assertion per line
$TMP/idioms.bats:12: a 'run' whose \$status is never checked (assert_status, or run -N) before the next 'run' or the end
$TMP/idioms.bats:19: a command negated with '!' is ignored by set -e: use 'run ! CMD' or '! CMD || false'"
}

@test "the lint finds a run whose status is never checked, and one of ours piped into a filter" {
  sed 's/^|//' > "$TMP/runs.bats" <<'EOF_BATS'
|@test "runs" {
  run arena-produce --help
  assert_output "x"
  run -64 arena-produce --bogus
  run bench-summarize <<<"v
1"
  [ "$status" -eq 0 ]
  run sh -c "bench-summarize x.csv | cut -d, -f2"
  assert_status 0
  run bash -c "set -o pipefail; bench-summarize x.csv | columns mean"
  assert_status 0
  run bash -c "arena-produce --items 2 | arena-consume"
  assert_status 0
  run bash -c "printf 'v\n1\n' |
    bench-summarize | tail -n 1"
  assert_status 0
  run grep -c x "$f"
}

helper_for_caller() {
  run arena-consume "$@"
}

helper_unchecked() {
  run arena-consume "$@"
  assert_output ""
}
EOF_BATS
  run lint_assertions "$TMP/runs.bats"
  assert_status 1
  assert_output "$TMP/runs.bats:2: a 'run' whose \$status is never checked (assert_status, or run -N) before the next 'run' or the end
$TMP/runs.bats:8: a command under test piped into a filter: the filter's status hides its own (run it alone and filter \$output, or set -o pipefail)
$TMP/runs.bats:14: a command under test piped into a filter: the filter's status hides its own (run it alone and filter \$output, or set -o pipefail)
$TMP/runs.bats:17: a 'run' whose \$status is never checked (assert_status, or run -N) before the next 'run' or the end
$TMP/runs.bats:25: a 'run' whose \$status is never checked (assert_status, or run -N) before the next 'run' or the end"
}

@test "assert_csv compares by column name: a column more passes, a value or a column less fails" {
  output="prog: a message
a,new,b
1,x,\"2,5\"
3,y,4"
  assert_csv "prog: a message
a,b
1,\"2,5\"
3,4"
  run assert_csv "prog: a message
a,b
1,\"2,5\"
3,5"
  assert_status 1
  output="a,b
1,2"
  run assert_csv "a,c
1,2"
  assert_status 1
  [[ "$output" == "assert_csv: no column c"* ]]
}

@test "assert_csv_like matches each cell by its regular expression, by column name; a cell off, a row more or an empty cell filled fails" {
  local rows="a,new,b,c
12,x,0.500000,
3,y,7.250000,"
  output=$rows
  assert_csv_like "a,b,c
[0-9]+,[0-9]+\.[0-9]{6},
3,[0-9]+\.[0-9]{6},"
  # Each is off in one way: "1" must match whole (not a part of 12), two
  # decimals are not six, one row is not two.
  local off
  for off in "1,[0-9]+\.[0-9]{6},|3,[0-9]+\.[0-9]{6}," "[0-9]+,[0-9]+\.[0-9]{2},|3,[0-9]+\.[0-9]{6}," "[0-9]+,[0-9.]+,"; do
    output=$rows
    run assert_csv_like "a,b,c
${off//|/$'\n'}"
    assert_status 1
  done
  # An empty cell expected, a value there.
  output="a,b,c
12,0.5,full"
  run assert_csv_like "a,b,c
[0-9]+,[0-9.]+,"
  assert_status 1
}
