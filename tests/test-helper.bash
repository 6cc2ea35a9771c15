# Shared by every .bats file: load it with `load test-helper`.

# Our arenas are /dev/shm/arenabench.PID.*.  Each test notes those there
# before it, and must end with no new one of ours whose creator has exited:
# an arena of a live process may belong to a test running beside this one,
# and one of another user to another benchmark (tests/run-bats gives the
# suite a private /dev/shm where it can, and shares it otherwise).
common_setup() {
  TMP=$(mktemp -d "${BATS_TMPDIR:-/tmp}/arenabench-test.XXXXXX")
  ls /dev/shm 2> /dev/null | grep '^arenabench\.' > "$TMP/shm.before" || true
}

common_teardown() {
  rm -rf "$TMP"
}

# The usual fixture of a .bats file: a fresh $TMP per test, and no arena of
# ours left behind after it.  A file that needs more defines its own setup
# or teardown after `load test-helper`, calling common_setup and
# arena_teardown.
setup() {
  common_setup
}

teardown() {
  arena_teardown
}

# $TMP goes even when an arena was left (the test fails all the same).
arena_teardown() {
  local left=0
  assert_no_arena_left || left=1
  common_teardown
  return "$left"
}

# wait_rows FILE N: until FILE has N lines, a background writer's output
# (at most 30 s: on a loaded machine only a failing test waits that long).
wait_rows() {
  local i
  for i in $(seq 600); do
    [ "$(wc -l < "$1" 2> /dev/null || echo 0)" -lt "$2" ] || return 0
    sleep 0.05
  done
  echo "no $2 lines in $1 after 30 s" >&2
  return 1
}

# produce_in_background ROWS ARGS...: arena-produce ARGS in the background
# (bats' descriptor 3 closed, so that bats need not wait for it), its
# handle rows in $TMP/rows.csv and its errors in $TMP/rows.err; sets
# PRODUCER and returns once the header and ROWS rows are there.
produce_in_background() {
  local rows=$1
  shift
  arena-produce "$@" > "$TMP/rows.csv" 2> "$TMP/rows.err" 3>&- &
  PRODUCER=$!
  wait_rows "$TMP/rows.csv" $((rows + 1)) || { cat "$TMP/rows.err" >&2; return 1; }
}

assert_no_arena_left() {
  local name pid left=
  for name in $(ls /dev/shm 2> /dev/null | grep '^arenabench\.'); do
    grep -qxF "$name" "$TMP/shm.before" && continue
    [ -O "/dev/shm/$name" ] || continue
    pid=${name#arenabench.}
    pid=${pid%%.*}
    kill -0 "$pid" 2> /dev/null && continue
    left+=" $name"
  done
  if [ -n "$left" ]; then
    echo "arenas left in /dev/shm:$left" >&2
    return 1
  fi
}

# True when this process may page-lock BYTES: RLIMIT_MEMLOCK allows it, or
# root's CAP_IPC_LOCK overrides the limit.
can_lock() {
  local limit
  limit=$(ulimit -l)
  [ "$limit" = unlimited ] || [ "$(id -u)" -eq 0 ] || [ $((limit * 1024)) -ge "$1" ]
}

# configure found CUDA (the GPU commands are built with it).
cuda_build() {
  [ "${ARENABENCH_HAVE_CUDA:-no}" = yes ]
}

# nvidia-smi lists a GPU on this machine.
gpu_listed() {
  command -v nvidia-smi > /dev/null 2>&1 && nvidia-smi -L 2> /dev/null | grep -q '^GPU'
}

# GPU tests skip visibly unless this is a CUDA build on a machine with a GPU.
require_cuda_build() {
  cuda_build || skip "built without CUDA"
}

require_gpu() {
  require_cuda_build
  gpu_listed || skip "no NVIDIA GPU on this machine"
}

# Compare $output with an expected text, showing both on failure.
assert_output() {
  if [ "$output" != "$1" ]; then
    printf 'expected output:\n%s\nactual output:\n%s\n' "$1" "$output" >&2
    return 1
  fi
}

assert_status() {
  if [ "$status" -ne "$1" ]; then
    printf 'expected exit status %s, got %s; output:\n%s\n' "$1" "$status" "$output" >&2
    return 1
  fi
}

# configure --enable-valgrind: every CPU command a test runs goes through
# valgrind memcheck, and any error it finds fails the command (exit 99).
if [ -n "${VALGRIND:-}" ] && [ -n "${BATS_RUN_TMPDIR:-}" ]; then
  ARENABENCH_VALGRIND_DIR=$BATS_RUN_TMPDIR/valgrind-bin
  mkdir -p "$ARENABENCH_VALGRIND_DIR"
  for cmd in arena-produce arena-consume bench-summarize; do
    [ -x "$ARENABENCH_VALGRIND_DIR/$cmd" ] && continue
    real=$(command -v "$cmd")
    cat > "$ARENABENCH_VALGRIND_DIR/$cmd" <<WRAP
#!/bin/sh
exec "$VALGRIND" -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite --trace-children=no "$real" "\$@"
WRAP
    chmod +x "$ARENABENCH_VALGRIND_DIR/$cmd"
  done
  case ":$PATH:" in
    *":$ARENABENCH_VALGRIND_DIR:"*) ;;
    *) PATH=$ARENABENCH_VALGRIND_DIR:$PATH; export PATH ;;
  esac
fi

# configure --enable-valgrind: what valgrind changes skips there, visibly:
# it keeps descriptors of its own (closed 0-2 and low RLIMIT_NOFILE
# misbehave), maps no more than its address space (a 1 TiB arena fails
# with EINVAL), computes long double in 64 bits (last digits differ), and
# runs everything far slower (short --timeout races).
valgrind_build() {
  [ -n "${VALGRIND:-}" ]
}

# AddressSanitizer builds intercept mlock (it locks nothing and succeeds)
# and take SIGBUS for themselves: tests of those skip there, visibly.
asan_build() {
  ldd "$(command -v arena-consume)" 2> /dev/null | grep -q libasan
}
