#!/usr/bin/env bats
# The extension points are one list each: a new arena backend is its file
# and a line of src/arena-backends.def, a new launcher a line of
# src/launchers.def.  Proved on a copy of the built tree with a stub of
# each: it builds, and the tests of "every backend" and "every launcher"
# pass unchanged; only the man pages' checks ask for their documentation.

load test-helper

# copy_built_tree: this build into $TMP/tree, as tests/mutation copies
# it (an in-tree build: the copy rebuilds where it lies).
copy_built_tree() {
  [ -f "$top_builddir/Makefile" ] && grep -q '^srcdir = \.$' "$top_builddir/Makefile" ||
    skip "needs an in-tree build (the copy is rebuilt where it lies, as make mutation's)"
  mkdir "$TMP/tree"
  (cd "$top_builddir" && tar --exclude=./.git --exclude=./tests/fuzz/build -cf - .) |
    (cd "$TMP/tree" && tar -xf -)
}

# in_copy CMD...: CMD in the copy, with the environment make check gives
# a test file and nothing of this one's (a bats run inside bats must not
# see the outer run's variables).
in_copy() {
  (cd "$TMP/tree" && env -i PATH="$TMP/tree/src:$TMP/tree/contrib:$PATH" HOME="$HOME" \
     TMPDIR="${TMPDIR:-/tmp}" BATS="${BATS:-bats}" VALGRIND= \
     top_srcdir="$TMP/tree" top_builddir="$TMP/tree" ARENABENCH_VERSION="$ARENABENCH_VERSION" \
     ARENABENCH_HAVE_CUDA="${ARENABENCH_HAVE_CUDA:-no}" ARENABENCH_SHM="${ARENABENCH_SHM:-}" \
     ARENABENCH_TEST_LOADAVG=/dev/null "$@")
}

@test "a stub backend and a stub launcher: their file and a line each; every backend's and launcher's tests pass unchanged" {
  command -v "${BATS:-bats}" > /dev/null || skip "bats is not on PATH"
  copy_built_tree
  local t=$TMP/tree
  # The backend: the pool's code under another name, in its own file.
  sed -e 's/\bpool_/stub_/g' -e 's/arena_pool_ops/arena_stub_ops/' \
      -e 's/"fixed slots, released in any order"/"a stub: the pool under another name"/' \
      "$t/src/arena-pool.c" > "$t/src/arena-stub.c"
  echo 'ARENA_BACKEND (STUB, stub)' >> "$t/src/arena-backends.def"
  echo 'LAUNCHER ("stub", "Stub", false, "STUB_RANK", "STUB_LOCAL_RANK", "STUB_SIZE", NULL)' \
    >> "$t/src/launchers.def"
  run in_copy make -s -j2 all
  assert_status 0
  run in_copy arena-produce --list-backends
  assert_status 0
  assert_output "$(backends; echo stub)"
  run in_copy arena-consume --list-launchers
  assert_status 0
  output=${lines[-1]}
  assert_output "launcher=stub rank=STUB_RANK local_rank=STUB_LOCAL_RANK world_size=STUB_SIZE local_world_size="
  # The tests that mean every backend or launcher, as they are.
  local file filter
  while IFS='|' read -r file filter; do
    run in_copy tests/run-bats -f "$filter" "tests/$file"
    assert_status 0 || { echo "$file: $filter" >&2; return 1; }
    [[ "$output" =~ (^|$'\n')ok\  ]]
  done <<'EOF'
arena-produce.bats|--list-backends
arena-consume.bats|every backend|bad field values|forged objects
pipeline.bats|every backend
drivers.bats|every backend|one run report per arm|fixed shares beside pulling|GPU arms \(stand-in h2d-check\): pinned|on SIGTERM: exit 130|without a ceiling row
launcher.bats|^every launcher of|each launcher's variables
EOF
  # What the stubs leave undone is their documentation, and the checks
  # of the man pages say so.
  run in_copy tests/run-bats -f 'list every backend' tests/help.bats
  assert_status 1
  [[ "$output" == *"arena-produce(1) --backend does not describe stub"* ]]
  run in_copy tests/run-bats -f 'lists every launcher' tests/launcher.bats
  assert_status 1
  [[ "$output" == *"not ok 1 arenabench(7) lists every launcher"* ]]
}
