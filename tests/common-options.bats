#!/usr/bin/env bats
# Options every arenabench command shares: --help, --version, an unknown
# option, and a failed write of stdout.  One table row per command.

load test-helper

# command|first line of --help
COMMANDS='arena-produce|Usage: arena-produce [OPTION]...
arena-consume|Usage: arena-consume [OPTION]... < HANDLE-ROWS
bench-summarize|Usage: bench-summarize [OPTION]...
h2d-check|Usage: h2d-check [OPTION]...
d2h-overlap|Usage: d2h-overlap [OPTION]...'

# Run CHECK for every command of the table; report every failure, not
# just the first.
for_each_command() {
  local prog usage failed=0
  while IFS='|' read -r prog usage; do
    "$@" "$prog" "$usage" || { echo "  ... failed for $prog" >&2; failed=1; }
  done <<< "$COMMANDS"
  return "$failed"
}

check_help() {
  local prog=$1 usage=$2
  run "$prog" --help < /dev/null
  assert_status 0 || return 1
  # Ours are exact; others' usage lines may add operands after [OPTION]...
  case $prog in
    arena-produce|arena-consume) [ "${lines[0]}" = "$usage" ] ;;
    *) [[ "${lines[0]}" == "$usage"* ]] ;;
  esac || { echo "first line: '${lines[0]}', want '$usage'" >&2; return 1; }
  [ "${#lines[@]}" -ge 5 ] || { echo "--help of $prog is ${#lines[@]} lines" >&2; return 1; }
}

check_version() {
  local prog=$1 cuda="not built in"
  [ "${ARENABENCH_HAVE_CUDA:-no}" = yes ] && cuda="built in"
  run "$prog" --version < /dev/null
  assert_status 0 || return 1
  assert_output "$prog (arenabench) $ARENABENCH_VERSION
Copyright (c) 2026 the arenabench authors.  BSD-3-Clause licence.
CUDA support: $cuda"
}

check_unknown_option() {
  local prog=$1
  run "$prog" --no-such-option < /dev/null
  assert_status 64 || return 1
  assert_output "$prog: unrecognized option '--no-such-option'
Try '$prog --help' for more information."
}

check_dev_full() {
  local prog=$1 option
  for option in --help --version; do
    run bash -c "'$prog' $option > /dev/full < /dev/null"
    assert_status 74 || return 1
    assert_output "$prog: write error: No space left on device" || return 1
  done
}

# Descriptors 0-2 closed at start are opened on /dev/null before anything
# else: a closed stdout is a write error, and the others change nothing.
check_closed_fds() {
  local prog=$1
  run bash -c "'$prog' --version >&- < /dev/null"
  assert_status 74 || return 1
  assert_output "$prog: write error: Bad file descriptor" || return 1
  run bash -c "'$prog' --version <&- 2>&- | head -n 1"
  assert_status 0 || return 1
  assert_output "$prog (arenabench) $ARENABENCH_VERSION" || return 1
  run bash -c "'$prog' --no-such-option <&- >&-"
  assert_status 64 || return 1
  assert_output "$prog: unrecognized option '--no-such-option'
Try '$prog --help' for more information."
}

@test "--help: exit 0, usage on stdout" {
  for_each_command check_help
}

@test "--version: 'PROG (arenabench) VERSION', the licence line and CUDA support" {
  [ -n "$ARENABENCH_VERSION" ] || skip "run through 'make check' (ARENABENCH_VERSION unset)"
  for_each_command check_version
}

@test "an unknown option: exit 64 and the --help hint" {
  for_each_command check_unknown_option
}

@test "stdout is /dev/full: exit 74 with a write error" {
  [ -w /dev/full ] || skip "no /dev/full on this system"
  for_each_command check_dev_full
}

@test "descriptors 0-2 closed: stdout closed is a write error (74), the rest work" {
  ! valgrind_build || skip "valgrind takes the closed descriptors 0-2 for its own"
  [ -n "$ARENABENCH_VERSION" ] || skip "run through 'make check' (ARENABENCH_VERSION unset)"
  for_each_command check_closed_fds
}

# ------------------------------------------------ numbers in option values

# Integers, decimals and sizes each have one strict parser: no blanks,
# signs, hex, hex floats, inf or nan, whatever strtod or strtoul would take.
suffix_hint() {
  [ "$1" = size ] && echo ' (use bytes or a suffix such as 64K, 8MiB, 1G)'
}

@test "option values: ' 5', '5 ', '+5', 0x10, 0x1p3, inf and nan are refused with exit 64 and one line" {
  local prog option value kind failed=0
  while IFS='|' read -r prog option kind; do
    for value in ' 5' '5 ' '+5' 0x10 0x1p3 inf nan '' 5e; do
      run "$prog" "$option" "$value" < /dev/null
      if [ "$status" -ne 64 ] || [ "$output" != "$prog: $option: invalid $kind '$value'$(suffix_hint "$kind")" ]; then
        echo "$prog $option '$value': status $status, output: $output" >&2
        failed=1
      fi
    done
  done <<'EOF2'
arena-produce|--items|number
arena-produce|--timeout|number
arena-produce|--size|size
arena-produce|--fill-chunk|size
arena-consume|--timeout|number
arena-consume|--warmup-epochs|number
bench-summarize|--confidence|number
bench-summarize|--resamples|number
h2d-check|--inflight|number
d2h-overlap|--compute-ms|number
EOF2
  [ "$failed" -eq 0 ]
}
