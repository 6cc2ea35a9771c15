#!/usr/bin/env bats
# What a packager sees of the build: the archiver's flags, the host flags
# nvcc objects get, and the drivers run from a staged install (DESTDIR).

load test-helper   # its setup and teardown: a fresh $TMP, no arena left

# make_var NAME: the value of NAME in the build tree's Makefile.
make_var() {
  printf 'ab-print-var:\n\t@echo $(%s)\n' "$1" \
    | make -s --no-print-directory -C "$top_builddir" -f Makefile -f - ab-print-var
}

@test "the archiver's flags make ar say nothing (no \"'u' modifier ignored\")" {
  cp "$top_builddir/src/die.o" "$TMP/die.o"
  run bash -c "cd '$TMP' && $(make_var AR) $(make_var ARFLAGS) t.a die.o 2>&1"
  [ "$status" -eq 0 ]
  assert_output ""
  [ -s "$TMP/t.a" ]
}

@test "a comma in CFLAGS reaches nvcc's host compiler as one flag" {
  [ "${ARENABENCH_HAVE_CUDA:-no}" = yes ] || skip "a build without CUDA has no nvcc objects"
  # The Makefile's .cu rule on a file of our own (a suffix rule takes any
  # path); -dryrun: nvcc lists the host compiler's commands, writes nothing.
  echo 'int main () { return 0; }' > "$TMP/probe.cu"
  run make -s --no-print-directory -C "$top_builddir" "$TMP/probe.o" \
    CFLAGS='-O2 -fsanitize=address,undefined -Wp,-D_FORTIFY_SOURCE=2' \
    NVCC="$(make_var NVCC) -dryrun"
  [ "$status" -eq 0 ]
  # The host compilations (cudafe1's C++ pass and the final one) get both whole.
  [ "$(grep -c -e ' "*-fsanitize=address,undefined"* ' <<<"$output")" -ge 2 ]
  [ "$(grep -c -e ' "*-Wp,-D_FORTIFY_SOURCE=2"* ' <<<"$output")" -ge 2 ]
  ! grep -q -e ' "*-fsanitize=address"* ' -e ' "*undefined"* ' <<<"$output"
}

@test "drivers installed under DESTDIR answer --help and --version, and make installcheck runs them there" {
  local stage=$TMP/stage prefix=/nonexistent/arenabench-test
  run make -s --no-print-directory -C "$top_builddir" install DESTDIR="$stage" prefix="$prefix"
  [ "$status" -eq 0 ]
  for d in pinned-arena multi-gpu-h2d h2d-sweep transfer-overlap; do
    run "$stage$prefix/bin/$d" --version
    [ "$status" -eq 0 ]
    assert_output "$d (arenabench) $ARENABENCH_VERSION"
    run "$stage$prefix/bin/$d" --help
    [ "$status" -eq 0 ]
    [[ ${lines[0]} == "Usage: $d [OPTION]..."* ]]
  done
  run make -s --no-print-directory -C "$top_builddir" installcheck DESTDIR="$stage" prefix="$prefix"
  [ "$status" -eq 0 ]
}

# configure_copy ARGS...: configure ARGS run in a copy of what configure
# reads (the source tree is configured in place: no second build there);
# its summary in $output.
configure_copy() {
  rm -rf "$TMP/c"
  mkdir -p "$TMP/c/src"
  cp -r "$top_srcdir/configure" "$top_srcdir/Makefile.in" "$top_srcdir/config.h.in" "$top_srcdir/build-aux" "$TMP/c/"
  cp "$top_srcdir/src/arena.c" "$TMP/c/src/"
  # The outer configure's preprocessor and linker flags: where libcsv
  # lives in a prefix (-I/-L), configure cannot find it without them.
  run bash -c "cd '$TMP/c' && ./configure CPPFLAGS='$(make_var CPPFLAGS)' LDFLAGS='$(make_var LDFLAGS)' $* 2>&1 | sed -n '/^  arenabench /,\$p'"
}

@test "configure without CUDA: its summary says so, with no nvcc, CUDA code or runtime line" {
  configure_copy --without-cuda
  assert_status 0
  grep -qx '  CUDA:              no' <<<"$output"
  grep -qx '  GPU commands:      h2d-check and d2h-overlap built without CUDA: they exit 69' <<<"$output"
  ! grep -qE 'nvcc|gencode|CUDA code|CUDA runtime' <<<"$output" || false
}

@test "configure --enable-cudart-shared links the shared CUDA runtime (static by default), and --help says so" {
  run "$top_srcdir/configure" --help
  assert_status 0
  grep -qE '^  --enable-cudart-shared +link the CUDA runtime shared \(libcudart.so\), as$' <<<"$output"
  [ "${ARENABENCH_HAVE_CUDA:-no}" = yes ] || skip "no CUDA toolkit here to link either runtime"
  configure_copy --enable-cudart-shared
  assert_status 0
  grep -qx '  CUDA runtime:      libcudart.so' <<<"$output"
  grep -qE '^CUDA_LIBS = -L[^ ]+ -lcudart -lstdc\+\+$' "$TMP/c/Makefile"
  configure_copy
  assert_status 0
  grep -qx '  CUDA runtime:      libcudart_static.a' <<<"$output"
  grep -qE '^CUDA_LIBS = -L[^ ]+ -lcudart_static ' "$TMP/c/Makefile"
}
