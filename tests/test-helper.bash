# A suite started under a launcher (make check inside sbatch or mpirun)
# must not see its variables: every command would be that rank.  Tests
# of ranks set them on the command they run (launcher.bats).  The
# variables are every launcher's of the one list of them
# (src/launchers.def, through arena-consume --list-launchers).
launcher_vars() {
  arena-consume --list-launchers | tr ' ' '\n' | sed -n 's/^[a-z_]*=\([A-Z_][A-Z0-9_]*\)$/\1/p'
}
LAUNCHER_VARS="$(launcher_vars 2> /dev/null | tr '\n' ' ')ARENABENCH_LAUNCHER"
# shellcheck disable=SC2086
unset $LAUNCHER_VARS

# Our arenas are /dev/shm/arenabench.PID.*, PID that of the arena-produce
# that made them.  Every arena-produce a test starts by name goes through a
# shim (below) that notes its PID in $ARENABENCH_PRODUCERS, this test's
# list, before it execs the command (which keeps the PID).  A test must end
# with no arena of a PID of its list whose creator has exited: whatever
# else is in /dev/shm (a test running beside this one, another user's
# benchmark) is not its business.  tests/run-bats checks the same for the
# whole file, through $ARENABENCH_RUN_PRODUCERS.
common_setup() {
  TMP=$(mktemp -d "${BATS_TMPDIR:-/tmp}/arenabench-test.XXXXXX")
  ls /dev/shm 2> /dev/null | grep '^arenabench\.' > "$TMP/shm.before" || true
  ARENABENCH_PRODUCERS=$TMP/producers
  : > "$ARENABENCH_PRODUCERS"
  export ARENABENCH_PRODUCERS
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

# pids_teardown: end every process a test put in PIDS (stopped ones
# too), then arena_teardown.
pids_teardown() {
  local pid
  for pid in "${PIDS[@]}"; do
    kill -CONT "$pid" 2> /dev/null || true
    kill -KILL "$pid" 2> /dev/null || true
    wait "$pid" 2> /dev/null || true
  done
  arena_teardown
}

# load_factor: how many times slower than an idle machine this one may
# run a test now (tests/load-factor).  Limits that bound how long
# something may take (a test's time limit, a --timeout that is the
# subject of a test) are multiplied by it.
load_factor() {
  "$BATS_TEST_DIRNAME/load-factor"
}

# This test's time limit: the idle machine's (tests/run-bats) times the
# load as the test starts (bats reads BATS_TEST_TIMEOUT after this file
# loads).
if [ -n "${ARENABENCH_TEST_LIMIT:-}" ]; then
  BATS_TEST_TIMEOUT=$((ARENABENCH_TEST_LIMIT * $(load_factor)))
fi

# wait_until SECONDS CMD...: until CMD succeeds, looked at every 50 ms
# for at most SECONDS.  Tests wait on the event itself this way, never
# for a fixed time (on a loaded machine only a failing test waits long).
wait_until() {
  local limit=$1 i
  shift
  for i in $(seq $((limit * 20))); do
    "$@" && return 0
    sleep 0.05
  done
  echo "not within $limit s: $*" >&2
  return 1
}

# has_lines FILE N: FILE has at least N lines.
has_lines() {
  [ "$(wc -l < "$1" 2> /dev/null || echo 0)" -ge "$2" ]
}

# wait_rows FILE N: until FILE has N lines, a background writer's output
# (at most 30 s).
wait_rows() {
  wait_until 30 has_lines "$1" "$2" || { echo "no $2 lines in $1" >&2; return 1; }
}

# in_kernel_wait PID REGEX: PID sleeps in a kernel function matching REGEX
# (its /proc wchan): pipe_read, blocked reading a pipe or FIFO; futex, a
# producer waiting for space.
in_kernel_wait() {
  grep -qE "$2" "/proc/$1/wchan" 2> /dev/null
}

# maps_arena PID: PID has an arena mapped (a consumer that attached).
maps_arena() {
  grep -q '/dev/shm/arenabench\.' "/proc/$1/maps" 2> /dev/null
}

# stdin_writer_waits: a process writing to this shell's stdin, a pipe, is
# blocked on it (the pipe is full: it sleeps in poll, select or a write).
stdin_writer_waits() {
  local pipe fd pid
  pipe=$(readlink "/proc/$BASHPID/fd/0") || return 1
  case $pipe in pipe:*) ;; *) return 1 ;; esac
  for fd in /proc/[0-9]*/fd/1; do
    [ "$(readlink "$fd" 2> /dev/null)" = "$pipe" ] || continue
    pid=${fd#/proc/}
    pid=${pid%%/*}
    [ "$pid" != "$BASHPID" ] || continue
    in_kernel_wait "$pid" 'poll|select|pipe_write' && return 0
  done
  return 1
}
export -f wait_until has_lines wait_rows in_kernel_wait maps_arena stdin_writer_waits

# produce_in_background ROWS ARGS...: arena-produce ARGS in the background
# (bats' descriptor 3 closed, so that bats need not wait for it), its
# handle rows in $TMP/rows.csv and its errors in $TMP/rows.err; sets
# PRODUCER and returns once the header and ROWS rows are there.
produce_in_background() {
  local rows=$1
  shift
  : > "$TMP/rows.csv"   # emptied first: the background redirection truncates it only once it runs
  arena-produce "$@" > "$TMP/rows.csv" 2> "$TMP/rows.err" 3>&- &
  PRODUCER=$!
  wait_rows "$TMP/rows.csv" $((rows + 1)) || { cat "$TMP/rows.err" >&2; return 1; }
}

# pid_reused_beside PID: in a shared /dev/shm, a producer of another test
# file running beside this one had PID too (the kernel reuses PIDs within
# minutes while the suite runs), so an object named with it may be
# theirs (tests/run-bats leaves those to their file too).
pid_reused_beside() {
  [ "${ARENABENCH_SHM:-}" != private ] || return 1
  local other
  for other in "${TMPDIR:-/tmp}"/arenabench-producers.*; do
    [ "$other" != "${ARENABENCH_RUN_PRODUCERS:-}" ] && grep -qxF "$1" "$other" 2> /dev/null && return 0
  done
  return 1
}

# An arena of ours: its creator's PID is on this test's list, it is new
# since the test began, owned by us, and its creator has exited (and no
# producer of a file beside this one had that PID too).
assert_no_arena_left() {
  local name pid left=
  for name in $(ls /dev/shm 2> /dev/null | grep '^arenabench\.'); do
    pid=${name#arenabench.}
    pid=${pid%%.*}
    grep -qxF "$pid" "$ARENABENCH_PRODUCERS" 2> /dev/null || continue
    grep -qxF "$name" "$TMP/shm.before" && continue
    [ -O "/dev/shm/$name" ] || continue
    kill -0 "$pid" 2> /dev/null && continue
    pid_reused_beside "$pid" && continue
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

# require_nobody [CMD...]: this test may run commands as nobody (root,
# setpriv), and nobody can reach this build's CMDs (arena-produce and
# arena-consume) and run them as PATH finds them; else it skips, saying why.  A build under a private directory
# (root's 0700 home) is out of nobody's reach, and a command run as nobody
# would fail, or find another install of it further down PATH; so would
# one that PATH finds in a private wrapper directory (valgrind's).
require_nobody() {
  local cmd path cmds=("$@")
  [ $# -gt 0 ] || cmds=(arena-produce arena-consume)
  [ "$(id -u)" -eq 0 ] || skip "needs root to run a command as nobody"
  command -v setpriv > /dev/null || skip "setpriv(1) is not installed"
  for cmd in "${cmds[@]}"; do
    path=${top_builddir:+$top_builddir/src/}$cmd
    [ -n "${top_builddir:-}" ] || path=$(command -v "$cmd")
    setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$path" ||
      skip "nobody cannot run $path (a directory above it is private to its owner)"
    setpriv --reuid=65534 --regid=65534 --clear-groups "$cmd" --version > /dev/null 2>&1 ||
      skip "nobody cannot run $cmd as PATH finds it ($(command -v "$cmd"))"
  done
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

# The headers the commands write, in one place: a new column is one edit
# here (and in the command's column table).
HANDLE_HEADER='arena,backend,slot,offset,bytes,generation,sequence,worker,epoch,workers,items,size_bytes,dtype,kind,leaves,pinned,slots,gen_ns,epochs'
ITEM_HEADER='arm,backend,pinned,size_bytes,dtype,kind,workers,slots,sequence,worker,epoch,bytes,wait_ns,verify_ns,mismatches,rank,local_rank,world_size,host,device'
RUN_HEADER='arm,backend,pinned,size_bytes,dtype,kind,workers,slots,items,bytes,seconds,items_per_s,gb_per_s,cpu_s,mlock_ms,mismatches,warmup_epochs,pinned_bytes,shm_bytes,shm_avail_before_bytes,shm_avail_after_bytes,pss_before_bytes,pss_after_bytes,rss_peak_bytes,unpin_ms,pin_s_per_gib,unpin_s_per_gib,device_pci,link,link_max,device_numa,arena_numa,producer_cpus,producer_numa,consumer_cpus,consumer_numa,thp,thp_shmem,governor,share,producer_items,producer_fill_us,rank,local_rank,world_size,host,device,compute_us,compute_s,au'
H2D_ITEM_HEADER='arm,backend,pinned,size_bytes,dtype,kind,workers,slots,sequence,worker,epoch,bytes,wait_ns,verify_ns,mismatches,h2d_ns,host_wall_ns,rank,local_rank,world_size,host,device'
H2D_RUN_HEADER='arm,backend,pinned,size_bytes,dtype,kind,workers,slots,items,bytes,seconds,items_per_s,gb_per_s,cpu_s,register_ms,mismatches,warmup_epochs,pinned_bytes,shm_bytes,shm_avail_before_bytes,shm_avail_after_bytes,pss_before_bytes,pss_after_bytes,rss_peak_bytes,unpin_ms,pin_s_per_gib,unpin_s_per_gib,device_pci,link,link_max,device_numa,arena_numa,producer_cpus,producer_numa,consumer_cpus,consumer_numa,thp,thp_shmem,governor,share,producer_items,producer_fill_us,inflight,staging_threads,wait_s,h2d_s,h2d_gb_per_s,verify_s,gpu,driver,cuda,pcie,cpu,version,idle_s,idle_no_row_s,idle_no_slot_s,idle_check_s,idle_release_s,idle_other_s,copy_path,copy_path_auto,copy_sms,auto_engine_gb_per_s,auto_batch_gb_per_s,auto_sm_gb_per_s,rank,local_rank,world_size,host,device,compute_us,compute_s,au'

# columns NAME...: the named columns of the CSV on stdin, header line and
# rows, joined by commas in the order named: tests read receipts and rows
# by column name, so that a new column moves no assertion.  An unknown
# name fails (exit 2), saying which.  Exported: `run bash -c` pipelines
# use it too.
columns() {
  awk -F, -v names="$*" '
    NR == 1 {
      n = split(names, want, " ")
      for (i = 1; i <= NF; i++) at[$i] = i
      for (k = 1; k <= n; k++)
        if (!(want[k] in at)) { print "columns: no column " want[k] > "/dev/stderr"; bad = 1; exit 2 }
    }
    { line = $(at[want[1]]); for (k = 2; k <= n; k++) line = line "," $(at[want[k]]); print line }'
}

# column NAME: the values of column NAME, one per data row.
column() {
  columns "$1" | tail -n +2
}

# drivers: the installed benchmark drivers, one a line, from the one list
# of them (DRIVERS in Makefile.am, which installs them).
drivers() {
  sed -n 's/^DRIVERS = //p' "$top_srcdir/Makefile.am" | tr ' ' '\n' | sed -n 's|^contrib/||p'
}

# backends: the arena backends, one a line, from the one list of them
# (src/arena-backends.def, through arena-produce --list-backends).  A test
# of "every backend" loops over this, so that a new backend reaches it.
backends() {
  arena-produce --list-backends
}

# backend_pattern: an extended regular expression matching any backend's
# name, "(pool|ring)".
backend_pattern() {
  echo "($(backends | paste -sd'|'))"
}

# backends_quoted LAST: the backends quoted and listed, "'pool', 'ring'"
# (LAST ","), "'pool' or 'ring'" (LAST " or"): the lists of the messages
# naming the choices.
backends_quoted() {
  backends | awk -v last="$1" '{ a[++n] = "'\''" $0 "'\''" }
    END { for (i = 1; i <= n; i++) printf "%s%s", (i == 1 ? "" : i == n ? last " " : ", "), a[i]; print "" }'
}

# first_arena FILE: the arena of the first handle row of FILE.
first_arena() {
  column arena < "$1" | head -n 1
}
export -f columns column first_arena backends backend_pattern

# doc_examples FILE...: the examples README and the man pages show, each
# a line "== FILE:LINE[ gpu]" and its commands (tests/doc-examples.awk);
# doc_commands FILE...: one command a line, continuation lines joined.
doc_examples() {
  awk -f "$top_srcdir/tests/doc-examples.awk" "$@"
}

doc_commands() {
  awk -v join=1 -f "$top_srcdir/tests/doc-examples.awk" "$@"
}

# lint_assertions FILE...: assertions that set -e ignores (a '!' command,
# the first half of 'a && b', anywhere but last), as FILE:LINE: WHY;
# tests/assertions.bats runs it over every test file.
lint_assertions() {
  awk -f "$top_srcdir/tests/lint-assertions.awk" "$@"
}

# Compare $output with an expected text, showing both on failure.
assert_output() {
  if [ "$output" != "$1" ]; then
    printf 'expected output:\n%s\nactual output:\n%s\n' "$1" "$output" >&2
    return 1
  fi
}

# assert_csv EXPECTED: $output is EXPECTED, the CSV in it read by column
# name.  Lines "COMMAND: ..." (messages) are compared as they are; the
# first other line of EXPECTED is its header, and $output's CSV (from its
# first line that is not a message) is compared on those columns only, in
# that order: a column a command gains later moves no assertion.  Fields
# may be quoted (without a newline in them).
assert_csv() {
  local got
  got=$(csv_columns_of "$1") || return 1
  if [ "$got" != "$1" ]; then
    printf 'expected (by column name):\n%s\nactual, those columns:\n%s\nactual output:\n%s\n' "$1" "$got" "$output" >&2
    return 1
  fi
}

# assert_csv_like EXPECTED: as assert_csv, but each cell of EXPECTED
# after its header is an extended regular expression that the field must
# match whole: 4096, [0-9]+, [0-9]+\.[0-9]{6}, or empty for an empty
# field.  No cell may hold a comma, and no line may be a message.
assert_csv_like() {
  local got i k ok=1 g w gc wc
  got=$(csv_columns_of "$1") || return 1
  mapfile -t g <<< "$got"
  mapfile -t w <<< "$1"
  [ "${#g[@]}" -eq "${#w[@]}" ] && [ "${g[0]}" = "${w[0]}" ] || ok=0
  # bash's =~ (POSIX ERE, intervals too); ",x" keeps a last empty cell.
  for ((i = 1; ok && i < ${#w[@]}; i++)); do
    IFS=, read -r -a wc <<< "${w[i]},x"
    IFS=, read -r -a gc <<< "${g[i]},x"
    [ "${#gc[@]}" -eq "${#wc[@]}" ] || { ok=0; break; }
    for ((k = 0; k < ${#wc[@]} - 1; k++)); do
      [[ "${gc[k]}" =~ ^(${wc[k]})$ ]] || { ok=0; break; }
    done
  done
  [ "$ok" -eq 1 ] && return 0
  printf 'expected (by column name, each cell a regular expression):\n%s\nactual, those columns:\n%s\nactual output:\n%s\n' "$1" "$got" "$output" >&2
  return 1
}

# csv_columns_of EXPECTED: $output's messages and CSV on EXPECTED's
# columns (see assert_csv).
csv_columns_of() {
  printf '%s\n' "$output" | EXPECTED=$1 awk '
    function split_csv(line, f,   n, i, c, q, cur) {
      n = 0; cur = ""; q = 0
      for (i = 1; i <= length(line); i++) {
        c = substr(line, i, 1)
        if (c == "\"") q = !q
        if (c == "," && !q) { f[++n] = cur; cur = "" } else cur = cur c
      }
      f[++n] = cur
      return n
    }
    function message(line) { return line ~ /^[a-z][a-z0-9-]*: / }
    BEGIN {
      m = split(ENVIRON["EXPECTED"], e, "\n")
      for (i = 1; i <= m; i++) if (!message(e[i])) { header = e[i]; break }
      nw = split_csv(header, want)
    }
    message($0) { print; next }
    !seen++ {
      nf = split_csv($0, name)
      for (i = 1; i <= nf; i++) at[name[i]] = i
      for (k = 1; k <= nw; k++)
        if (!(want[k] in at)) { print "assert_csv: no column " want[k] > "/dev/stderr"; exit 2 }
      print header
      next
    }
    {
      split_csv($0, field)
      line = field[at[want[1]]]
      for (k = 2; k <= nw; k++) line = line "," field[at[want[k]]]
      print line
    }'
}

assert_status() {
  if [ "$status" -ne "$1" ]; then
    printf 'expected exit status %s, got %s; output:\n%s\n' "$1" "$status" "$output" >&2
    return 1
  fi
}

# usage_errors [COMMAND] < TABLE: each line "ARGS|MESSAGE" of the table,
# run as the shell words "COMMAND ARGS" with @TMP@ standing for $TMP,
# exits 64 printing exactly MESSAGE.
usage_errors() {
  local args message
  while IFS='|' read -r args message; do
    run bash -c "${1:+$1 }${args//@TMP@/$TMP} < /dev/null"
    assert_status 64 && assert_output "${message//@TMP@/$TMP}" ||
      { echo "from: ${1:+$1 }$args" >&2; return 1; }
  done
}

# The drivers warn of a load average at or above the online CPUs; the
# test machine's own load (make -j, neighbours) is not what a test checks:
# they see none unless a test names its own fake /proc/loadavg.
export ARENABENCH_TEST_LOADAVG=/dev/null

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

# The shim that puts each arena-produce's PID on the lists above: it runs
# the arena-produce that PATH finds after its own directory (under
# valgrind, the wrapper above; as nobody, who cannot read that, the
# command itself) with exec, so the PID is the one in the
# arena's name, and signals and exit status are the command's own.
# tests/run-bats gives it a directory that nobody can read too (tests run
# commands as nobody); bats' own is private.  Commands run with another
# PATH (contrib drivers put ../src first in an in-tree build) pass it by,
# and their arenas are not counted.
if [ -n "${BATS_RUN_TMPDIR:-}" ]; then
  ARENABENCH_SHIM_DIR=${ARENABENCH_SHIM_DIR:-$BATS_RUN_TMPDIR/producer-bin}
  if [ ! -x "$ARENABENCH_SHIM_DIR/arena-produce" ]; then
    mkdir -p "$ARENABENCH_SHIM_DIR"
    cat > "$ARENABENCH_SHIM_DIR/arena-produce.$$" <<'SHIM'
#!/bin/sh
for list in "${ARENABENCH_PRODUCERS:-}" "${ARENABENCH_RUN_PRODUCERS:-}"; do
  [ -z "$list" ] || { echo $$ >> "$list"; } 2> /dev/null || :
done
# The next arena-produce on PATH that this user can read: a run as
# nobody passes by bats' private directories (valgrind's wrapper).
here=${0%/*}
IFS=:
for dir in $PATH; do
  [ "$dir" != "$here" ] && [ -r "$dir/arena-produce" ] && [ -x "$dir/arena-produce" ] &&
    exec "$dir/arena-produce" "$@"
done
echo "arena-produce: not found on PATH after $here" >&2
exit 127
SHIM
    chmod 755 "$ARENABENCH_SHIM_DIR/arena-produce.$$"
    mv -f "$ARENABENCH_SHIM_DIR/arena-produce.$$" "$ARENABENCH_SHIM_DIR/arena-produce"
  fi
  case ":$PATH:" in
    *":$ARENABENCH_SHIM_DIR:"*) ;;
    *) PATH=$ARENABENCH_SHIM_DIR:$PATH; export PATH ;;
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
