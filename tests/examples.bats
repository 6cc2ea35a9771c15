#!/usr/bin/env bats
# Every example of README and of the man pages runs as printed: each in a
# fresh empty directory, with only the build on PATH (as README's
# Examples say to put it), as one script under 'bash -e -o pipefail', so
# that any command of it that fails (127 for a command not found, 66 for
# a file it names from nowhere) fails its test.  tests/doc-examples.awk
# finds them; example_kind sorts them by what they need, and what this
# machine lacks (a GPU, a launcher, hyperfine, an unprivileged user for
# mpirun) skips that kind's test, saying which examples and why.

load test-helper

# split_examples DIR FILE...: each example of FILEs as DIR/N (its text)
# and DIR/N.where (FILE:LINE, the file relative to the source tree, then
# " gpu" where the page marks it); DIR/kinds has a line "N KIND" each
# (example_kind).  Done once for the file (setup_file): on a loaded
# machine every fork counts.
split_examples() {
  local dir=$1 n=0 i line
  shift
  mkdir -p "$dir"
  while IFS= read -r line; do
    if [[ $line == "== "* ]]; then
      n=$((n + 1))
      line=${line#== }
      printf '%s\n' "${line#"$top_srcdir"/}" > "$dir/$n.where"
      : > "$dir/$n"
    else
      printf '%s\n' "$line" >> "$dir/$n"
    fi
  done < <(doc_examples "$@")
  for ((i = 1; i <= n; i++)); do
    echo "$i $(example_kind "$dir/$i")"
  done > "$dir/kinds"
}

# example_kind FILE: what the example in FILE needs: launcher (srun,
# mpirun or torchrun), long (marked so: it runs for minutes, as its page
# says), gpu (a GPU command or option, or the page's mark),
# build (installs or builds: the quick start, configure's options),
# hyperfine, or cpu (nothing but this build).
example_kind() {
  local text=$1
  if grep -qE '(^|[^[:alnum:]_-])(srun|mpirun|torchrun)([^[:alnum:]_-]|$)' "$text"; then
    echo launcher
  elif grep -q ' long$' "$text.where"; then
    echo long
  elif grep -q ' gpu\( long\)\?$' "$text.where" ||
       grep -qE 'h2d-check|d2h-overlap|--calibrate|h2d-sweep|transfer-overlap|multi-gpu-h2d' "$text"; then
    echo gpu
  elif grep -qE '^(apt-get|autoreconf|\./configure|make)( |$)' "$text"; then
    echo build
  elif grep -qE '(^|[ |])hyperfine ' "$text"; then
    echo hyperfine
  else
    echo cpu
  fi
}

setup_file() {
  split_examples "$BATS_FILE_TMPDIR/readme" "$top_srcdir/README"
  split_examples "$BATS_FILE_TMPDIR/man" "$top_srcdir"/man/*.[1-9]
}

# use_examples readme|man: the examples the helpers below read.
use_examples() {
  EX=$BATS_FILE_TMPDIR/$1
}

# examples_of KIND [PAGE]: the numbers of the examples of KIND (of man
# page PAGE alone), one a line.
examples_of() {
  local i
  for i in $(awk -v kind="$1" '$2 == kind { print $1 }' "$EX/kinds"); do
    [ $# -lt 2 ] || [[ $(where "$i") == "man/$2:"* ]] || continue
    echo "$i"
  done
}

# where N: FILE:LINE of example N.
where() {
  sed 's/ .*//' "$EX/$1.where"
}

# run_example N: example N in a fresh directory; fails, saying which
# example and showing its output, unless it exits 0 (a regression gate:
# also 1, a regression, or 75, cannot decide, as README says) and the
# pipeline's own commands said nothing on stderr (but the documented
# fallback of a --pin arena that RLIMIT_MEMLOCK keeps from page-locking).
run_example() {
  local i=$1 dir=$TMP/run.$1 start=$SECONDS ok
  mkdir "$dir"
  # bench-summarize(1)'s examples run where its example data is, as the
  # page says (tests/data, or share/arenabench/examples once installed).
  case $(where "$i") in
    man/bench-summarize.1:*) cp "$top_srcdir/tests/data/h2d.csv" "$top_srcdir/tests/data/overlap.csv" "$dir/" ;;
  esac
  run bash -c 'cd "$1" && exec bash -e -o pipefail "$2" 2> "$1.err" < /dev/null' _ "$dir" "$EX/$i"
  ok=0
  [ "$status" -ne 0 ] || ok=1
  if grep -q -e '--fail-if-worse' "$EX/$i"; then
    [ "$status" -ne 1 ] || ok=1
    [ "$status" -ne 75 ] || ok=1
  fi
  sed -i -E "/^arena-consume: arena '\/arenabench\.[0-9]+\.[0-9a-f]{24}': cannot page-lock [0-9]+ bytes: mlock: Cannot allocate memory \(RLIMIT_MEMLOCK is [0-9]+ bytes; raise it with 'ulimit -l'\); reading it pageable$/d" "$dir.err"
  ! grep -qE '^(arena-produce|arena-consume): ' "$dir.err" || ok=0
  # How long each took, in the TAP log beside the test.
  echo "# $(where "$i"): exit $status, $((SECONDS - start)) s" >&3
  if [ "$ok" -ne 1 ]; then
    printf '%s: exited %s:\n%s\n--- its stdout:\n%s\n--- its stderr:\n%s\n' \
      "$(where "$i")" "$status" "$(cat "$EX/$i")" "$output" "$(cat "$dir.err")" >&2
    return 1
  fi
}

# run_kind KIND [PAGE]: every example of KIND (of PAGE), at least one.
run_kind() {
  local i n=0
  for i in $(examples_of "$@"); do
    n=$((n + 1))
    run_example "$i"
  done
  [ "$n" -gt 0 ]
}

# skip_kind KIND [PAGE] WHY: skip this test, naming the examples of KIND
# (of PAGE) not run.
skip_kind() {
  local i list= why=${!#}
  for i in $(examples_of "${@:1:$#-1}"); do list+=" $(where "$i")"; done
  skip "$why:${list:- none}"
}

# require_gpu_for KIND [PAGE]: skips as require_gpu does, naming the
# examples.
require_gpu_for() {
  cuda_build || skip_kind "$@" "built without CUDA, not run"
  gpu_listed || skip_kind "$@" "no NVIDIA GPU on this machine, not run"
}

# The man pages with GPU examples, each its own test below (each has its
# own time limit).
GPU_PAGES='d2h-overlap.1 h2d-check.1 h2d-sweep.1 transfer-overlap.1'

# launcher_blockers: why each launcher example cannot run here, one a
# line ("FILE:LINE: why"); none where all can.
launcher_blockers() {
  local i text why
  for i in $(examples_of launcher); do
    text=$EX/$i
    why=
    if grep -qw mpirun "$text"; then
      command -v mpirun > /dev/null || why+=" mpirun is not installed;"
      # Open MPI refuses root unless told (README says how).
      [ "$(id -u)" -ne 0 ] || why+=" mpirun refuses to run as root (README: --allow-run-as-root);"
    fi
    if grep -qw srun "$text"; then
      command -v srun > /dev/null || why+=" srun (Slurm) is not installed;"
    fi
    if grep -qw torchrun "$text"; then
      command -v torchrun > /dev/null || why+=" torchrun is not installed;"
    fi
    if grep -qE 'h2d-check|multi-gpu-h2d' "$text"; then
      { cuda_build && gpu_listed; } || why+=" needs a GPU;"
    fi
    if grep -q '/shared/' "$text"; then
      [ -d /shared ] || why+=" no /shared folder;"
    fi
    [ -z "$why" ] || echo "$(where "$i"):${why%;}"
  done
}

MANS() {
  ls "$top_srcdir"/man/*.[1-9]
}

# ------------------------------------------------------------ the extractor

@test "doc-examples.awk: README's indented blocks, the man pages' EXAMPLES blocks, roff undone" {
  cat > "$TMP/README" <<'EOF'
Title
=====

    shown as code, not under a heading: an example too

Examples
--------

  command   a table's line
                a table's continued line, not a block

    one \
      two
    three

Results
-------

    # output, not an example
EOF
  cat > "$TMP/x.1" <<'EOF'
.SH DESCRIPTION
.EX
$ not in EXAMPLES
.EE
.SH EXAMPLES
Prompts:
.PP
.EX
$ a \e\-\-b | c \(aqd\(aq \e
    \-\-e
output shown
$ f
.EE
.PP
No prompt, in .nf:
.PP
.nf
.RS
.\" example: gpu long
g \e
  h
.RE
.fi
.SH SEE ALSO
EOF
  run doc_examples "$TMP/README" "$TMP/x.1"
  assert_status 0
  assert_output "== $TMP/README:4
shown as code, not under a heading: an example too
== $TMP/README:12
one \\
  two
three
== $TMP/x.1:8
a \\--b | c 'd' \\
    --e
f
== $TMP/x.1:17 gpu long
g \\
  h"
  run doc_commands "$TMP/x.1"
  assert_status 0
  assert_output "a \\--b | c 'd'     --e
f
g   h"
}

@test "README and every man page show examples, and README one of each kind" {
  local page
  for page in $(MANS); do
    run doc_examples "$page"
    assert_status 0
    [[ "$output" == "== "* ]] || { echo "${page##*/}: no example in EXAMPLES" >&2; return 1; }
  done
  use_examples readme
  run examples_of cpu
  assert_status 0
  [ "${#lines[@]}" -ge 5 ]
  for kind in gpu launcher build hyperfine; do
    run examples_of "$kind"
    assert_status 0
    [ -n "$output" ] || { echo "README: no example of kind $kind" >&2; return 1; }
  done
}

# ------------------------------------------------------------------ README

@test "README: where the examples begin, it says how to put the commands on PATH" {
  local line
  # The first block of the Examples section is the PATH line, run in the
  # source tree (an in-tree build, as the quick start makes).
  line=$(awk '/^Examples$/ { on = 1 } on && /^    / { sub(/^ +/, ""); print; exit }' "$top_srcdir/README")
  [ "$line" = 'export PATH=$PWD/src:$PWD/contrib:$PATH' ]
  [ "$top_srcdir" = "$top_builddir" ] || skip "a build outside the source tree (the line names the source tree's src/)"
  run env -i PATH=/usr/bin:/bin HOME="$HOME" bash -c "cd '$top_srcdir' && $line && command -v arena-produce pinned-arena"
  assert_status 0
  assert_output "$top_srcdir/src/arena-produce
$top_srcdir/contrib/pinned-arena"
  # It says how to install them, too.
  grep -q "'make install'" "$top_srcdir/README"
}

@test "README: the examples that need only the CPU run as printed" {
  use_examples readme
  run_kind cpu
}

@test "README: the example that reads hyperfine's results runs as printed" {
  use_examples readme
  command -v hyperfine > /dev/null || skip_kind hyperfine "hyperfine is not installed, not run"
  run_kind hyperfine
}

@test "README: the GPU examples run as printed" {
  use_examples readme
  require_gpu_for gpu
  run_kind gpu
}

@test "README: the srun, mpirun and torchrun examples run as printed" {
  use_examples readme
  run launcher_blockers
  assert_status 0
  [ -z "$output" ] || skip "not run: $(printf '%s\n' "$output" | paste -sd ' ')"
  run_kind launcher
}

@test "README: mpirun refuses root, and README says how to let it" {
  local readme
  readme=$(tr '\n' ' ' < "$top_srcdir/README")
  [[ $readme == *"Open MPI's mpirun refuses to run as root: there, add --allow-run-as-root"* ]]
  command -v mpirun > /dev/null || skip "mpirun is not installed"
  [ "$(id -u)" -eq 0 ] || skip "not root"
  run mpirun -np 1 true
  [ "$status" -ne 0 ]
  [[ "$output" == *"mpirun has detected an attempt to run as root"* ]]
  run mpirun --allow-run-as-root -np 1 true
  assert_status 0
}

@test "README: the quick start and build commands are .ci/run's to run" {
  use_examples readme
  # They install packages and rebuild this tree: .ci/run builds a fresh
  # clone with them and runs its tests.
  skip_kind build "not run here (.ci/run runs the build)"
}

# --------------------------------------------------------------- man pages

@test "man pages: the examples that need only the CPU run as printed" {
  use_examples man
  run_kind cpu
}

@test "man pages: the GPU examples are all on the pages tested below" {
  local i page
  use_examples man
  for i in $(examples_of gpu); do
    page=$(where "$i")
    page=${page#man/}
    [[ " $GPU_PAGES " == *" ${page%%:*} "* ]] || { echo "$page: a GPU example on a page not in GPU_PAGES" >&2; return 1; }
  done
}

@test "man pages: d2h-overlap(1)'s GPU examples run as printed" {
  use_examples man
  require_gpu_for gpu d2h-overlap.1
  run_kind gpu d2h-overlap.1
}

@test "man pages: h2d-check(1)'s GPU examples run as printed" {
  use_examples man
  require_gpu_for gpu h2d-check.1
  run_kind gpu h2d-check.1
}

@test "man pages: h2d-sweep(1)'s GPU examples run as printed" {
  use_examples man
  require_gpu_for gpu h2d-sweep.1
  run_kind gpu h2d-sweep.1
}

@test "man pages: transfer-overlap(1)'s GPU examples run as printed" {
  use_examples man
  require_gpu_for gpu transfer-overlap.1
  run_kind gpu transfer-overlap.1
}

# Those that run for minutes (their pages say so) only when asked.
@test "man pages: the long GPU examples run as printed (ARENABENCH_LONG_EXAMPLES=1)" {
  use_examples man
  [ -n "${ARENABENCH_LONG_EXAMPLES:-}" ] || skip_kind long "long-running, not run unless ARENABENCH_LONG_EXAMPLES=1"
  require_gpu_for long
  run_kind long
}

@test "man pages: the srun examples run as printed" {
  use_examples man
  run launcher_blockers
  assert_status 0
  [ -z "$output" ] || skip "not run: $(printf '%s\n' "$output" | paste -sd ' ')"
  run_kind launcher
}
