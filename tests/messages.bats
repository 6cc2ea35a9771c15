#!/usr/bin/env bats
# Messages and refusals every command shares: closed standard descriptors,
# names quoted when they hold newlines or escape bytes, directories given
# as input, system refusals, exact mismatch values.

load test-helper
load checks

# ------------------------------------------------ descriptors 0, 1 and 2

@test "a consumer with stdout closed: exit 74, a write error, nothing written into an arena" {
  run bash -c 'arena-produce --size 4K --items 2000 --timeout 5 2> /dev/null | arena-consume >&-'
  assert_status 74
  assert_output "arena-consume: write error: Bad file descriptor"
}

@test "a producer with stdout closed: exit 74, its rows are not written into its own arena" {
  run bash -c 'arena-produce --size 4K --items 20 >&-'
  assert_status 74
  assert_output "arena-produce: write error: Bad file descriptor"
}

# run_nonblocking CMD: run CMD with stdout a non-blocking pipe that is
# read only once its writer waits on it (or CMD has exited); print CMD's stderr, its
# status and how many lines came through.
run_nonblocking() {
  python3 - "$1" <<'PY'
import os, re, subprocess, sys, time
r, w = os.pipe()
os.set_blocking(w, False)
p = subprocess.Popen(['bash', '-c', sys.argv[1]], stdout=w, stderr=subprocess.PIPE)
os.close(w)
pipe = os.readlink('/proc/self/fd/%d' % r)
# The writer blocks once the pipe is full: a process whose stdout is it
# sleeps in poll, select or a write.
def writer_waits():
    for pid in filter(str.isdigit, os.listdir('/proc')):
        try:
            if os.readlink('/proc/%s/fd/1' % pid) == pipe and \
               re.search('poll|select|pipe_write', open('/proc/%s/wchan' % pid).read()):
                return True
        except OSError:
            pass
    return False
deadline = time.time() + 30
while p.poll() is None and not writer_waits() and time.time() < deadline:
    time.sleep(0.01)
data = b''
while True:
    chunk = os.read(r, 65536)
    if not chunk:
        break
    data += chunk
err = p.stderr.read().decode()
sys.stdout.write(err + 'status %d, %d lines\n' % (p.wait(), data.count(b'\n')))
PY
}

@test "a non-blocking stdout that fills up: the writers wait and go on, exit 0, every line" {
  command -v python3 > /dev/null || skip "python3 is needed to make a non-blocking pipe"
  # Receipts through stdio, and handle rows through write(2).
  run run_nonblocking "arena-produce --size 4K --items 3000 --slots 4 2> /dev/null | arena-consume"
  assert_status 0
  assert_output "status 0, 3001 lines"
  # The producer's stdout, the pipe to a consumer that starts reading late.
  run bash -c "set -o pipefail; python3 -c 'import os, sys; os.set_blocking(1, False); os.execvp(sys.argv[1], sys.argv[1:])' arena-produce --size 4K --items 3000 --slots 3000 | (wait_until 30 stdin_writer_waits || exit 9; arena-consume --report run) | columns items mismatches"
  assert_status 0
  assert_output "items,mismatches
3000,0"
}

@test "a consumer with stderr closed still writes its receipts, and exits 0" {
  ! valgrind_build || skip "valgrind takes the closed descriptor 2 for its own"
  run bash -c 'set -o pipefail; arena-produce --size 4K --items 20 | arena-consume --report run 2>&- | columns arm items'
  assert_status 0
  assert_output "arm,items
pool-pageable,20"
}

# ------------------------------------------- mismatches, printed exactly

@test "arena-consume prints a mismatch's values exactly: a flipped low bit, each dtype, a ragged tail" {
  check_corruptions arena-consume
}

# ------------------------------------------------------------ --save-dir

@test "--save-dir never follows a planted symlink: the target is untouched, exit 74" {
  mkdir "$TMP/npy"
  echo precious > "$TMP/target"
  ln -s "$TMP/target" "$TMP/npy/seq1_leaf0.npy"
  run bash -c "arena-produce --size 400 --items 2 2> /dev/null | arena-consume --save-dir '$TMP/npy' > /dev/null"
  assert_status 74
  assert_output "arena-consume: '$TMP/npy/seq1_leaf0.npy': File exists"
  [ "$(cat "$TMP/target")" = precious ]
  [ -L "$TMP/npy/seq1_leaf0.npy" ]
  # The first leaf was written whole; no temporary file is left.
  run ls -A "$TMP/npy"
  assert_status 0
  assert_output "seq0_leaf0.npy
seq1_leaf0.npy"
}

@test "--save-dir never overwrites an existing file" {
  mkdir "$TMP/npy"
  echo precious > "$TMP/npy/seq0_leaf0.npy"
  run bash -c "arena-produce --size 400 --items 1 2> /dev/null | arena-consume --save-dir '$TMP/npy' > /dev/null"
  assert_status 74
  assert_output "arena-consume: '$TMP/npy/seq0_leaf0.npy': File exists"
  [ "$(cat "$TMP/npy/seq0_leaf0.npy")" = precious ]
  run ls -A "$TMP/npy"
  assert_status 0
  assert_output "seq0_leaf0.npy"
}

@test "--save-dir: a symlink planted at the temporary name is not followed either" {
  mkdir "$TMP/npy"
  echo precious > "$TMP/target"
  # The consumer is this shell's pid after exec: plant its first temporary name.
  run bash -c "set -o pipefail; arena-produce --size 400 --items 1 2> /dev/null \
               | bash -c 'ln -s \"\$1\" \"\$2/.seq0_leaf0.npy.\$\$.0\"; exec arena-consume --save-dir \"\$2\"' \
                 sh '$TMP/target' '$TMP/npy' > /dev/null"
  assert_status 0
  [ "$(cat "$TMP/target")" = precious ]
  # The planted link and the leaf: nothing else.
  [ "$(ls -A "$TMP/npy" | wc -l)" -eq 2 ]
  [ -L "$(echo "$TMP"/npy/.seq0_leaf0.npy.*.0)" ]
  [ "$(stat -c %s "$TMP/npy/seq0_leaf0.npy")" -eq $((128 + 400)) ]
}

# long_dir LENGTH: make a directory whose absolute name has LENGTH bytes.
long_dir() {
  local p=$TMP/long
  while [ ${#p} -lt "$1" ]; do p=$p/$(printf 'd%.0s' $(seq 200)); done
  p=${p:0:$1}
  [ "${p: -1}" != / ] || p=${p:0:$(($1 - 1))}x
  mkdir -p "$p"
  LONG_DIR=$p
}

# The longest name written in the directory is a temporary one of 76
# bytes with its '/': a directory of up to PATH_MAX - 77 bytes works, a
# longer one is refused before anything is read, never cut short.
@test "--save-dir near PATH_MAX: 4019 bytes works, 4020 is refused with exit 64" {
  long_dir 4019
  run bash -c "arena-produce --size 400 --items 1 2> /dev/null | arena-consume --save-dir '$LONG_DIR' > /dev/null"
  assert_status 0
  [ "$(stat -c %s "$LONG_DIR/seq0_leaf0.npy")" -eq $((128 + 400)) ]
  long_dir 4020
  run bash -c "arena-produce --size 400 --items 1 2> /dev/null | arena-consume --save-dir '$LONG_DIR' > /dev/null"
  assert_status 64
  # A name quoted in a message is cut after 1018 bytes.
  assert_output "arena-consume: --save-dir: '${LONG_DIR:0:1018}...: too long: the names of the files in it would exceed PATH_MAX (4096 bytes)"
  [ -z "$(ls -A "$LONG_DIR")" ]
}

# ------------------------------------------------------ names and inputs

@test "newlines and escape bytes in names and operands are quoted, shell-escape style" {
  run arena-consume "$(printf 'x\ny')"
  assert_status 64
  assert_output "arena-consume: unexpected argument 'x'\$'\\n''y'
Try 'arena-consume --help' for more information."
  run arena-produce --size "$(printf '8\033[2JM')"
  assert_status 64
  assert_output "arena-produce: --size: invalid size '8'\$'\\033''[2JM' (use bytes or a suffix such as 64K, 8MiB, 1G)"
  run bench-summarize --seed 1 --value x "$TMP/$(printf 'a\tb')" "$TMP/it's"
  assert_status 66
  assert_output "bench-summarize: '$TMP/a'\$'\\t''b': No such file or directory"
  run arena-consume --save-dir "$TMP/it's"
  assert_status 64
  assert_output "arena-consume: --save-dir: '$TMP/it'\\''s': No such file or directory"
}

@test "bench-summarize quotes column names, cells and option values with escape bytes or newlines" {
  printf 'g,"v\033[2J"\na,1\na,"x\ny"\n' > "$TMP/q.csv"
  run bash -c "bench-summarize --resamples 0 --percentiles 50 --format csv '$TMP/q.csv' 2>&1 > /dev/null"
  assert_status 0
  assert_output "bench-summarize: $TMP/q.csv: line 3, column 'v'\$'\\033''[2J': 'x'\$'\\n''y' is not a number (counted as missing)
bench-summarize: no interval: fewer than 2 values, in 1 row (first: column 'v'\$'\\033''[2J', n=1)"
  run bench-summarize --strict "$TMP/q.csv"
  assert_status 65
  assert_output "bench-summarize: $TMP/q.csv: line 3, column 'v'\$'\\033''[2J': 'x'\$'\\n''y' is not a number"
  run bench-summarize --value "$(printf 'w\033[2J')" "$TMP/q.csv"
  assert_status 64
  assert_output "bench-summarize: --value: no column 'w'\$'\\033''[2J' in the input"
  run bench-summarize --compare "$(printf 'g\033[2J')" "$TMP/q.csv"
  assert_status 64
  assert_output "bench-summarize: --compare: expected COL=LEVEL, got 'g'\$'\\033''[2J'"
  run bench-summarize --fail-if-worse "$(printf 'v\033:5%%:hi')" "$TMP/q.csv"
  assert_status 64
  assert_output "bench-summarize: --fail-if-worse: 'v'\$'\\033'':5%:hi': say which is better, 'higher' or 'lower'"
}

@test "arena-produce and arena-consume quote option values and header names with escape bytes" {
  run arena-produce --fill-rate "$(printf '1\033[2J')"
  assert_status 64
  assert_output "arena-produce: --fill-rate: invalid size '1'\$'\\033''[2J' (use bytes or a suffix such as 64K, 8MiB, 1G)"
  run arena-produce --cpu-list "$(printf '0\n1')"
  assert_status 64
  assert_output "arena-produce: --cpu-list: '0'\$'\\n''1': not a CPU list such as 0-3,8"
  run bash -c "printf 'arena\033[2J,x\n' | arena-consume"
  assert_status 65
  assert_output "arena-consume: line 1: unknown column 'arena'\$'\\033''[2J' (not a handle row header)"
}

@test "a directory given as input exits 66" {
  run bench-summarize --seed 1 --value x "$TMP"
  assert_status 66
  assert_output "bench-summarize: $TMP: Is a directory"
  run arena-consume < "$TMP"
  assert_status 66
  assert_output "arena-consume: stdin: Is a directory"
}

# ------------------------------------------------------- system refusals

@test "an arena the system will not open: exit 71 with the errno text" {
  ! valgrind_build || skip "valgrind keeps descriptors of its own: under 'ulimit -n 5' it cannot start the consumer"
  # Out of descriptors: 4 workers of 8 items through 4 slots write their
  # first 4 rows each and wait for space, so none of the 4 arenas can
  # finish while the consumer reads those 16 rows: it needs all 4 open at
  # once, and under 'ulimit -n 5' the third one fails.
  produce_in_background 16 --workers 4 --size 4K --items 8 --timeout 10
  run bash -c '(exec > /dev/null 3>&- 4>&- 5>&- 6>&- 7>&- 8>&- 9>&-; ulimit -n 5; exec arena-consume) < "$1"' _ "$TMP/rows.csv"
  wait "$PRODUCER" || true
  assert_status 71
  [[ "$output" =~ ^arena-consume:\ line\ [0-9]+:\ arena\ \'/arenabench\.[0-9]+\.[0-9a-f]+\':\ cannot\ open\ arena:\ Too\ many\ open\ files$ ]]
}

@test "an arena the system will not map: exit 71 with the errno text" {
  # A 32 MiB arena under a 16 MiB address-space limit, which sanitizers
  # and valgrind cannot start under.
  ! valgrind_build || skip "valgrind needs more address space"
  ! asan_build || skip "AddressSanitizer needs more address space"
  run bash -c 'set -o pipefail; arena-produce --size 8MiB --items 4 --timeout 5 2> /dev/null \
               | (ulimit -v 16384; exec arena-consume > /dev/null)'
  assert_status 71
  [[ "$output" =~ ^arena-consume:\ line\ 2:\ arena\ \'/arenabench\.[0-9]+\.[0-9a-f]+\':\ cannot\ map\ arena:\ Cannot\ allocate\ memory$ ]]
}

@test "--workers beyond RLIMIT_NOFILE: the producer holds one arena at a time, the run completes" {
  ! valgrind_build || skip "valgrind keeps descriptors below RLIMIT_NOFILE for itself and shows the program a lower limit"
  run bash -c "set -o pipefail; (ulimit -n 64; exec arena-produce --workers 100 --size 4K --items 1) | arena-consume --report run | column items"
  assert_status 0
  assert_output 100
}

@test "a handle row's field with a newline or escape bytes is quoted in the message" {
  printf '%s\n/arenabench.1.dead,pool,0,4096,"40\n9\033[2J6",1,0,0,0,1,2,4096,fp32,tensor,0:1024,0,4,1000,1\n' "$HANDLE_HEADER" \
    > "$TMP/rows.csv"
  run arena-consume < "$TMP/rows.csv"
  assert_status 65
  assert_output "arena-consume: line 2: column 'bytes': '40'\$'\\n''9'\$'\\033''[2J6' is not a number in range"
}
