#!/usr/bin/env bats
# Every assertion can fail: no test file holds a bats idiom whose failure
# set -e ignores (tests/lint-assertions.awk says which and why).

load test-helper

@test "no assertion in any test file is one that set -e ignores" {
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
$TMP/idioms.bats:19: a command negated with '!' is ignored by set -e: use 'run ! CMD' or '! CMD || false'"
}
