#!/usr/bin/env bats
# Fault injection and hostile input: processes killed at random moments, a
# /dev/shm too small for the arena, arenas and rows an attacker controls,
# and signals to bench-summarize while it waits for input.  Every test is
# bounded in time and stops what it started.  doc/reliability.md has the
# table of outcomes, from these tests and from contrib/fault-soak.

load test-helper

NAME_RE='/arenabench\.[0-9]+\.[0-9a-f]{24}'
ROUNDS=${ARENABENCH_FAULT_ROUNDS:-3}

setup() {
  common_setup
  BACKGROUND=()
  PLANTED=()
}

teardown() {
  local pid path
  # What the test planted goes first, whatever happens below.
  for path in "${PLANTED[@]}"; do rm -f "$path"; done
  # SIGTERM first: a producer's handler removes its arenas.
  for pid in "${BACKGROUND[@]}"; do kill -TERM "$pid" 2> /dev/null || true; done
  for pid in "${BACKGROUND[@]}"; do
    finish "$pid" 30
  done
  arena_teardown
}

# background CMD...: start CMD with bats' descriptors closed, remember it.
background() {
  "$@" 3>&- &
  BACKGROUND+=("$!")
  LAST=$!
}

# finish PID LIMIT_S: wait for PID at most LIMIT_S seconds; $status gets
# its exit status (KILLed and 999 when it overran).  Limits are generous:
# a process that does its job exits long before, and only a hang waits.
finish() {
  local i
  for i in $(seq $(( $2 * 20 ))); do
    kill -0 "$1" 2> /dev/null || break
    sleep 0.05
  done
  if kill -0 "$1" 2> /dev/null; then
    kill -KILL "$1"
    wait "$1" 2> /dev/null || true
    status=999
    return
  fi
  status=0
  wait "$1" || status=$?
}

# ------------------------------------------- SIGKILL at a random moment

# soak VICTIM: $ROUNDS rounds of contrib/fault-soak; rows in $TMP/rows.tsv.
# The survivor's limit (its --timeout, and how long it may take to exit
# after the kill) is 5 s on an idle machine, times the load.
soak() {
  SOAK_LIMIT=$((5 * $(load_factor)))
  run fault-soak --rounds "$ROUNDS" --victim "$1" --max-delay 300 --timeout "$SOAK_LIMIT" \
      --rows "$TMP/rows.tsv"
  assert_status 0
  cat "$TMP/rows.tsv" >&2
  [ "$(wc -l < "$TMP/rows.tsv")" -ge "$ROUNDS" ]
}

# check_round SURVIVOR STATUS EXIT_MS LEFT MESSAGE: one survivor as documented.
check_survivor() {
  local who=$1 st=$2 ms=$3 left=$4 msg=$5
  [ "$left" -eq 0 ] || { echo "round left $left arenas in /dev/shm" >&2; return 1; }
  [ "$ms" -ge 0 ] && [ "$ms" -le $((SOAK_LIMIT * 1000)) ] || { echo "$who took $ms ms to exit" >&2; return 1; }
  case $who:$st in
    producer:75)
      [ "$msg" = "arena-produce: writing the header: the consumer went away" ] ||
      [[ $msg =~ ^arena-produce:\ worker\ 0:\ (waiting\ for\ space|writing\ a\ handle\ row|waiting\ for\ the\ consumer\ to\ release\ every\ item):\ the\ consumer\ went\ away\ \(arena\ \'$NAME_RE\'\)$ ]] ;;
    worker-producer:75) [ "$msg" = "arena-produce: a worker was killed by signal 9" ] ;;
    consumer:75)
      [[ $msg =~ ^arena-consume:\ arena\ \'$NAME_RE\':\ truncated\ stream:\ producer\ \(pid\ [0-9]+\)\ stopped\ after\ [0-9]+\ items,\ [0-9]+\ rows\ received$ ]] ;;
    consumer:66)
      [ "$msg" = "arena-consume: stdin: no handle rows (empty input)" ] ||
      [ "$msg" = "arena-consume: stdin: a header but no handle rows" ] ||
      # (With two workers the arena gone first may be named by any row.)
      [[ $msg =~ ^arena-consume:\ line\ [0-9]+:\ arena\ \'$NAME_RE\':\ no\ such\ arena\ \(its\ producer\ exited\ or\ it\ was\ consumed\ already\)$ ]] ;;
    *) false ;;
  esac || { echo "unexpected: $who exit $st: $msg" >&2; return 1; }
}

check_rounds() {
  local round victim backend delay side st ms left verdict msg rows=0
  while IFS=$'\t' read -r round victim backend delay side st ms left verdict msg; do
    rows=$((rows + 1))
    [ "$victim:$side" != worker:producer ] || side=worker-producer
    check_survivor "$side" "$st" "$ms" "$left" "$msg"
    [ "$verdict" = ok ]
  done < "$TMP/rows.tsv"
  [ "$rows" -gt 0 ]
}

@test "consumer SIGKILLed at a random moment: the producer exits 75 saying so, in time, nothing left" {
  soak consumer
  check_rounds
  assert_status 0
}

@test "producer SIGKILLed at a random moment: the consumer reports a truncated stream (75) or no input (66), nothing left" {
  soak producer
  check_rounds
  assert_status 0
}

@test "one of two workers SIGKILLed: the producer stops the other (75), the consumer reports it, nothing left" {
  soak worker
  check_rounds
  assert_status 0
}

# A producer SIGKILLed between shm_open and its first row runs no handler,
# and the consumer never learns the arena's name (here 1 GiB; the window is
# as long as posix_fallocate takes): the consumer sweeps such orphans.
@test "producer SIGKILLed while it reserves its arena: nothing left in /dev/shm" {
  # Under valgrind the worker that dies with its parent can outlive the
  # consumer's 200 ms grace for a producer still exiting (seen in CI).
  ! valgrind_build || skip "valgrind slows the worker's death past the consumer's sweep grace"
  mkfifo "$TMP/pipe"
  # Redirections inside the jobs: each opens its end of the FIFO itself.
  arena-consume < "$TMP/pipe" > /dev/null 2> "$TMP/consumer.err" 3>&- &
  local consumer=$!
  arena-produce --size 256MiB --slots 4 --items 1 --timeout 2 > "$TMP/pipe" 3>&- &
  local producer=$! i
  BACKGROUND+=("$consumer" "$producer")
  for i in $(seq 400); do
    ! ls /dev/shm | grep -q "^arenabench\.$producer\." || break
    sleep 0.005
  done
  kill -KILL "$producer"
  finish "$consumer" 30
  local consumer_status=$status left
  left=$(ls /dev/shm | grep -c "^arenabench\.$producer\." || true)
  rm -f /dev/shm/arenabench."$producer".*
  [ "$consumer_status" -eq 66 ]
  [ "$(cat "$TMP/consumer.err")" = "arena-consume: stdin: no handle rows (empty input)" ]
  [ "$left" -eq 0 ] || { echo "the killed producer left $left arena(s) in /dev/shm" >&2; false; }
}

# strace(1) kills the producer as it enters ftruncate: its arena was
# created (and locked) but has no size.  Such an object, fresh, cannot be
# told from a live producer's a moment after shm_open, and the consumer's
# sweep left it; the arena now has no name until its header is whole.
@test "producer SIGKILLed between creating its arena and sizing it: nothing left once the consumer has exited" {
  command -v strace > /dev/null || skip "strace(1) is needed to kill the producer at its ftruncate"
  ! valgrind_build || skip "strace would trace valgrind, not the producer"
  strace -f -o /dev/null -e inject=ftruncate:error=EIO:signal=SIGKILL true 2> /dev/null ||
    skip "strace cannot trace here (ptrace refused)"
  run bash -c "strace -f -o /dev/null -e inject=ftruncate:error=EIO:signal=SIGKILL arena-produce --size 4K --items 2 --timeout 60 | arena-consume > /dev/null; echo \"status \${PIPESTATUS[*]}\""
  assert_status 0
  assert_output "arena-consume: stdin: no handle rows (empty input)
status 137 66"
  local producer
  producer=$(cat "$ARENABENCH_PRODUCERS")
  run bash -c "ls /dev/shm | grep -c '^arenabench\.$producer\.'"
  assert_status 1
  assert_output 0
}

# ------------------------------------------------- /dev/shm too small

# in_tiny_shm SCRIPT: run SCRIPT with a 256 KiB tmpfs over /dev/shm, in a
# mount namespace of its own; what it prints last is `ls /dev/shm` there.
# In a chroot, unshare -m cannot make / private (it is no mount point
# there): then the namespace keeps the propagation it has, and makes
# /dev/shm alone private before mounting over it, so nothing reaches the
# host's mounts.  require_tiny_shm picks the way that works (tiny_shm_ns).
in_tiny_shm() {
  "${tiny_shm_ns[@]}" bash -c "$tiny_shm_private mount -t tmpfs -o size=256k arenabench-test /dev/shm || exit 99
$1
echo \"left: \$(ls /dev/shm | wc -l)\"" 3>&-
}

require_tiny_shm() {
  command -v unshare > /dev/null || skip "unshare(1) is not installed"
  local why
  tiny_shm_ns=(unshare -m) tiny_shm_private=
  why=$("${tiny_shm_ns[@]}" sh -c 'mount -t tmpfs -o size=256k arenabench-test /dev/shm' 2>&1) && return 0
  tiny_shm_ns=(unshare -m --propagation unchanged) tiny_shm_private='mount --make-private /dev/shm &&'
  "${tiny_shm_ns[@]}" sh -c "$tiny_shm_private mount -t tmpfs -o size=256k arenabench-test /dev/shm" 2> /dev/null && return 0
  skip "cannot mount a tmpfs over /dev/shm in a new mount namespace as $(id -un) (uid $(id -u)): $(printf '%s' "$why" | head -n 1)"
}

@test "/dev/shm too small: exit 71 at creation with the size, never SIGBUS, nothing left" {
  require_tiny_shm
  local args bytes backend
  while IFS='|' read -r args backend bytes; do
    run in_tiny_shm "arena-produce $args --items 2 > /dev/null; echo \"status \$?\""
    assert_status 0
    assert_output "arena-produce: cannot create a $backend arena of $bytes bytes in /dev/shm: No space left on device
status 71
left: 0"
  done <<'EOF'
--size 1MiB --slots 4|pool|4198400
--backend ring --size 1MiB --slots 4|ring|4202496
--size 300K --slots 1|pool|311296
EOF
}

@test "/dev/shm fills up at the third worker: exit 71, the first two arenas removed" {
  require_tiny_shm
  # 4096 + 102400 bytes each: two fit in 256 KiB, the third does not.
  run in_tiny_shm "arena-produce --size 100K --slots 1 --items 1 --workers 3 > /dev/null; echo \"status \$?\""
  assert_status 0
  assert_output "arena-produce: cannot create a pool arena of 106496 bytes in /dev/shm: No space left on device
status 71
left: 0"
}

@test "a run that fits the small /dev/shm completes: the limit, not the mount, made the errors above" {
  require_tiny_shm
  run in_tiny_shm "arena-produce --size 100K --slots 2 --items 20 --timeout 60 | arena-consume --report run | columns items bytes"
  assert_status 0
  assert_output "items,bytes
20,2048000
left: 0"
}

# ------------------------------------------------ arenas and rows under attack

HEADER=$HANDLE_HEADER

# produce ROWS ARGS...: arena-produce ARGS in the background into $TMP/rows.csv,
# returning once it has written ROWS rows after the header.  Its --timeout
# is long: it waits for the consumers the test runs however slowly a loaded
# machine starts them, and stop_producer ends it.
produce() {
  local want=$1
  shift
  : > "$TMP/rows.csv"   # emptied first: the background redirection truncates it only once it runs
  background arena-produce --timeout 60 "$@" > "$TMP/rows.csv" 2> "$TMP/producer.err"
  PRODUCER=$LAST
  wait_rows "$TMP/rows.csv" $((want + 1))
  ARENA=$(first_arena "$TMP/rows.csv")
}

# stop_producer: end $PRODUCER, still waiting for a consumer of $ARENA, by
# SIGTERM (never by racing its --timeout): it removes its arena, exit 143.
stop_producer() {
  kill -TERM "$PRODUCER"
  finish "$PRODUCER" 30
  [ "$status" -eq 143 ] || { echo "the producer exited $status, not 143 (SIGTERM)" >&2; return 1; }
  [ ! -e "/dev/shm$ARENA" ] || { echo "the producer left $ARENA in /dev/shm" >&2; return 1; }
}

@test "an arena made by another user (a producer run as nobody): refused, exit 65, left to its owner" {
  as_nobody arena-produce
  : > "$TMP/rows.csv"   # emptied first: the background redirection truncates it only once it runs
  background "${NOBODY[@]}" arena-produce --size 4096 --items 1 --slots 1 --timeout 60 > "$TMP/rows.csv" 2> "$TMP/producer.err"
  PRODUCER=$LAST
  wait_rows "$TMP/rows.csv" 2
  ARENA=$(first_arena "$TMP/rows.csv")
  [ "$(stat -c %U:%a "/dev/shm$ARENA")" = nobody:600 ]
  run arena-consume < "$TMP/rows.csv"
  assert_status 65
  assert_output "arena-consume: line 2: arena '$ARENA': owned by another user"
  [ -e "/dev/shm$ARENA" ]
  # Its owner removes it when it ends.
  stop_producer
}

@test "a symbolic link under an arena name, to a live arena: refused (65), the arena untouched and still usable" {
  produce 1 --size 4096 --items 1 --slots 1
  local link=/dev/shm/arenabench.$$.5a5a
  ln -s "/dev/shm$ARENA" "$link"
  PLANTED+=("$link")
  sed "2s|^$ARENA,|${link#/dev/shm},|" "$TMP/rows.csv" > "$TMP/link.csv"
  run arena-consume < "$TMP/link.csv"
  assert_status 65
  assert_output "arena-consume: line 2: arena '${link#/dev/shm}': is a symbolic link"
  [ -L "$link" ]
  [ -f "/dev/shm$ARENA" ]
  # The real rows still go through: nothing was read or changed by the refusal.
  run bash -c "set -o pipefail; arena-consume < '$TMP/rows.csv' | columns sequence worker epoch bytes wait_ns verify_ns mismatches"
  assert_status 0
  [ "${#lines[@]}" -eq 2 ]
  [ "${lines[0]}" = "sequence,worker,epoch,bytes,wait_ns,verify_ns,mismatches" ]
  [[ ${lines[1]} =~ ^0,0,0,4096,[0-9]+,[0-9]+,0$ ]]
  finish "$PRODUCER" 30
  [ "$status" -eq 0 ]
}

@test "a live arena whose header is overwritten (magic, version): refused (65), left for its producer" {
  local offset bytes why
  while IFS='|' read -r offset bytes why; do
    produce 1 --size 4096 --items 1 --slots 1
    printf "$bytes" | dd of="/dev/shm$ARENA" bs=1 seek="$offset" conv=notrunc status=none
    run arena-consume < "$TMP/rows.csv"
    assert_status 65
    assert_output "arena-consume: line 2: arena '$ARENA': $why"
    [ -e "/dev/shm$ARENA" ]
    stop_producer
  done <<'EOF'
0|ABAREN02|wrong magic number (not an arenabench arena)
0|\0\0\0\0\0\0\0\0|wrong magic number (not an arenabench arena)
8|\1\0\0\0|unsupported arena layout version 1 (this program reads version 4)
8|\2\0\0\0|unsupported arena layout version 2 (this program reads version 4)
8|\377\377\377\377|unsupported arena layout version 4294967295 (this program reads version 4)
EOF
}

@test "offsets at and past the end of a live arena, and ones that wrap 2^64: refused (65)" {
  local backend field value why
  while IFS='|' read -r backend field value why; do
    produce 1 --backend "$backend" --size 4096 --items 1 --slots 2
    awk -F, -v OFS=, -v f="$field" -v v="$value" 'NR == 2 { $f = v } { print }' \
      "$TMP/rows.csv" > "$TMP/bad.csv"
    run arena-consume < "$TMP/bad.csv"
    assert_status 65
    assert_output "arena-consume: line 2: arena '$ARENA': $why"
    # The consumer attached before it read the row: its producer saw it go.
    finish "$PRODUCER" 30
    [ "$status" -eq 75 ]
    grep -q "the consumer went away (arena '$ARENA')\$" "$TMP/producer.err"
  done <<'EOF'
pool|4|12288|offset and length reach outside the arena
pool|4|8192|offset or length does not match the slot
pool|4|18446744073709547520|offset and length reach outside the arena
pool|4|18446744073709551615|offset and length reach outside the arena
ring|4|16384|offset and length reach outside the arena
ring|4|16320|offset and length reach outside the arena
ring|4|18446744073709551552|offset and length reach outside the arena
EOF
}

# A nested item of size_bytes 2^64-1 would wrap the 64-bit layout to 3
# bytes with a first leaf of 2^63-1 elements, and verifying it would read
# past the mapping; sizes above 1 TiB are refused.
@test "a leaf layout that would wrap 2^64 is refused (65), never read past the arena" {
  produce 1 --size 4096 --items 1 --slots 1 --dtype uint8
  awk -F, -v OFS=, 'NR == 2 { $5 = 3; $12 = "18446744073709551615"; $14 = "nested";
      $15 = "0:9223372036854775807;9223372036854775808:9223372036854775808;0:3" } { print }' \
    "$TMP/rows.csv" > "$TMP/bad.csv"
  run arena-consume < "$TMP/bad.csv"
  local consumer_status=$status consumer_output=$output
  stop_producer
  status=$consumer_status output=$consumer_output
  assert_status 65
  [[ $output =~ ^arena-consume:\ line\ 2:\ [^$'\n']+$ ]]
}

# ------------------------------------------ signals to bench-summarize

# A FIFO whose writer sent a header and one row and then stays open, so
# bench-summarize is blocked reading when the signal comes.
@test "bench-summarize blocked on an open FIFO: SIGINT, SIGTERM, SIGPIPE end it at once, silently" {
  local sig code
  mkfifo "$TMP/fifo"
  while IFS='|' read -r sig code; do
    # The redirection opens the FIFO in the child, which waits for the reader.
    bash -c "printf 'g,t\na,1\n'; exec sleep 30" > "$TMP/fifo" 3>&- &
    local writer=$!
    BACKGROUND+=("$writer")
    # A background job starts with SIGINT ignored; give it the default.
    background env --default-signal=INT bench-summarize --by g --resamples 1000 --seed 1 "$TMP/fifo" > "$TMP/out" 2> "$TMP/err"
    local reader=$LAST
    wait_until 10 in_kernel_wait "$reader" pipe_read
    kill -0 "$reader"            # still waiting for the rest of its input
    kill -"$sig" "$reader"
    finish "$reader" 30
    [ "$status" -eq "$code" ]
    [ ! -s "$TMP/out" ]
    [ ! -s "$TMP/err" ]
    # The writer's sleep has no more to do; it may be gone already.
    kill -KILL "$writer" 2> /dev/null || true
    wait "$writer" 2> /dev/null || true
  done <<'EOF'
INT|130
TERM|143
PIPE|141
EOF
}

@test "a reader gone before any output, SIGPIPE ignored: exit 74 with no message (the pipeline's own end)" {
  command -v python3 > /dev/null || skip "python3 is needed for a pipe whose reader is closed"
  printf 'v\n1\n2\n3\n' > "$TMP/in.csv"
  # The pipe's read end is closed before the command starts, and SIGPIPE
  # stays ignored in it: its one write, at exit, fails with EPIPE.
  run python3 -c '
import os, subprocess, sys
r, w = os.pipe()
os.close(r)
p = subprocess.run(sys.argv[1:], stdout=w, stderr=subprocess.PIPE, restore_signals=False)
print(p.returncode, repr(p.stderr.decode()))' bench-summarize --resamples 0 "$TMP/in.csv"
  assert_status 0
  assert_output "74 ''"
}

@test "bench-summarize | head -n 3: the summarizer ends by SIGPIPE, with no message" {
  awk 'BEGIN { print "g,t"; for (i = 0; i < 20000; i++) print "group" i "," i % 7 }' > "$TMP/many.csv"
  run bash -c "bench-summarize --by g --resamples 0 --format csv '$TMP/many.csv' 2> '$TMP/err' | head -n 3 > /dev/null; echo \${PIPESTATUS[0]}"
  assert_status 0
  assert_output 141
  # Only why the one-value groups have no interval, said before any output.
  [ "$(cat "$TMP/err")" = "bench-summarize: no interval: fewer than 2 values, in 20000 rows (first: g=group0, column 't', n=1)" ]
}

# ------------------------------------------- signals the caller ignored

# nohup ignores SIGHUP, a script's background job SIGINT and SIGQUIT: the
# producer and its workers keep them ignored (they were ended at once, 129).
@test "arena-produce with SIGHUP, SIGINT or SIGQUIT ignored (nohup): that signal leaves it running, the run completes" {
  local sig
  for sig in HUP INT QUIT; do
    : > "$TMP/rows.csv"   # emptied first: the background redirection truncates it only once it runs
    background bash -c "trap '' $sig; exec arena-produce --size 4096 --items 2 --slots 2 --timeout 60" > "$TMP/rows.csv" 2> "$TMP/producer.err"
    PRODUCER=$LAST
    wait_rows "$TMP/rows.csv" 3
    # The parent and its worker, as a hangup signals the whole group.
    kill -"$sig" "$PRODUCER" $(pgrep -P "$PRODUCER")
    run arena-consume --report run < "$TMP/rows.csv"
    assert_status 0
    finish "$PRODUCER" 30
    [ "$status" -eq 0 ]
    [ ! -s "$TMP/producer.err" ]
  done
}

# ------------------------------------ bugs the fuzz targets found (reported)

# libcsv trims spaces and tabs from unquoted fields, so a written key
# with either at an end must be quoted to read back the same
# (tests/fuzz/fuzz-handle-row.c found it through the arena column).
@test "keys with a trailing space or a tab are quoted, so the CSV reads back the same" {
  run bash -c "set -o pipefail; printf 'g,t\n\"a \",1\na,2\n\"\tb\",3\n' | bench-summarize --by g --resamples 0 --percentiles 50 --format csv 2> /dev/null | columns g column n mean p50"
  assert_status 0
  assert_output "$(printf 'g,column,n,mean,p50\n"a ",t,1,1,1\na,t,1,2,2\n"\tb",t,1,3,3')"
}

# Order statistics more than DBL_MAX apart overflowed hi - lo
# (tests/fuzz/fuzz-summarize.c checks percentiles against min and max).
@test "percentiles of finite data wider than DBL_MAX are finite" {
  run bash -c "set -o pipefail; printf 'x\n-1.7e308\n1.7e308\n' | bench-summarize --percentiles 25,50 --resamples 0 --format csv 2> '$TMP/err' | columns column n mean min median max ci_low ci_high p25 p50"
  assert_status 0
  assert_output "column,n,mean,min,median,max,ci_low,ci_high,p25,p50
x,2,0,-1.7e+308,0,1.7e+308,,,-8.5e+307,0"
  run cat "$TMP/err"
  assert_status 0
  assert_output "bench-summarize: no interval: the interval overflows a double, in 1 row (first: column 'x', n=2)"
}

# Found by tests/fuzz/fuzz-summarize.c (its input, less the mode byte):
# resamples whose base mean is 0 made an inverted interval, [1.333, 1.067].
@test "a ratio CI is never inverted when a resampled base mean can be 0: it is empty" {
  printf 'g,h,a=,b\n1,x,0,2\n1,y,0,3\n1,x,3,2\n1,y,4,1\n' > "$TMP/in.csv"
  run bash -c "set -o pipefail; bench-summarize --by g --compare h=x --resamples 200 --confidence 0.9 --seed 42 --percentiles 50 --format csv '$TMP/in.csv' 2> /dev/null | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[\$i] = i } \$3 == \"a=\" && \$2 == \"y\" { print \$(c[\"ratio\"]), \$(c[\"ratio_ci_low\"]), \$(c[\"ratio_ci_high\"]) }'"
  assert_status 0
  local ratio low high
  read -r ratio low high <<< "$output"
  [ "$ratio" = 1.3333333333333333 ]
  [ -z "$low$high" ]
}

# A --ratio of two finite cells can overflow (12 / -1e-320 is -inf): it
# counts as missing, as a zero denominator does (tests/fuzz/fuzz-summarize.c
# found it: p5 NaN outside [-inf, 2.7e26]).
@test "a ratio that overflows a double is missing, not -inf in the statistics" {
  run bash -c "set -o pipefail; printf 'a,b\n12,-1e-320\n1,1\n3,2\n' | bench-summarize --ratio a/b --value a --resamples 0 --percentiles 50 --format csv 2> /dev/null | columns column n missing mean min max gmean ci_low ci_high ci_stat | sed -n '1p;3p'"
  assert_status 0
  assert_output "column,n,missing,mean,min,max,gmean,ci_low,ci_high,ci_stat
a/b,2,1,1.25,1,1.5,1.224744871391589,0.09317938390974166,16.09798151759597,gmean"
}

# ------------------------------------------------ containers (PID namespaces)

# exited PID: PID has exited (gone, or a zombie whose files are closed).
exited() {
  local state
  state=$(ps -o stat= -p "$1" 2> /dev/null)
  [ -z "$state" ] || [ "${state:0:1}" = Z ]
}

# kill_producer PID: SIGKILL to a producer and its workers at once, and
# wait until every one has exited: a worker dies after its parent is
# reaped, and holds its arena's lock until then.
kill_producer() {
  local pid workers
  workers=$(pgrep -P "$1")
  kill -KILL "$1" $workers
  wait "$1" 2> /dev/null || true
  for pid in $workers; do
    wait_until 30 exited "$pid"
  done
}

# sweep_removes NAME: arena-produce --sweep removes the leftover NAME.  A
# producer or consumer starting beside the test may sweep it first; then
# only the form of the report is checked.
sweep_removes() {
  local removed='[1-9][0-9]*'
  # Beside other test files in a shared /dev/shm, a consumer of theirs
  # (same user) may sweep NAME between the look and ours.
  [ "${ARENABENCH_SHM:-}" = private ] && [ -e "/dev/shm$1" ] || removed='[0-9]+'
  run arena-produce --sweep
  assert_status 0
  [[ $output =~ ^removed\ $removed\ orphaned\ arenas?\;\ [0-9]+\ in\ use\ left\ alone$ ]]
  [ ! -e "/dev/shm$1" ]
}

require_pid_namespace() {
  command -v unshare > /dev/null || skip "unshare(1) is not installed"
  local why
  why=$(unshare -pf --mount-proc true 2>&1) ||
    skip "cannot make a PID namespace here as $(id -un) (uid $(id -u)): $(printf '%s' "$why" | head -n 1)"
}

# A producer in its own PID namespace sees another pid for the consumer
# (and the consumer for it); liveness is a lock, so nothing is misjudged.
@test "a producer in another PID namespace (unshare -pf --mount-proc): the pipeline completes, 20 of 20" {
  require_pid_namespace
  local i backend
  for i in $(seq 20); do
    backend=pool; [ $((i % 2)) -eq 0 ] && backend=ring
    run bash -c "set -o pipefail; unshare -pf --mount-proc arena-produce --backend $backend --size 64K --items 50 --slots 2 --timeout 60 3>&- | arena-consume --report run | columns items mismatches"
    assert_status 0
    assert_output "items,mismatches
50,0"
  done
}

@test "a consumer in another PID namespace killed: the producer still notices at once (75)" {
  require_pid_namespace
  mkfifo "$TMP/pipe"
  # Redirections inside the jobs: each opens its end of the FIFO itself.
  sh -c 'exec arena-produce --size 4096 --items 1000000 --slots 2 --timeout 20 > "$1" 2> "$2"' \
    sh "$TMP/pipe" "$TMP/producer.err" 3>&- &
  local producer=$!
  BACKGROUND+=("$producer")
  sh -c 'exec unshare -pf --mount-proc arena-consume < "$1" > /dev/null 2>&1' sh "$TMP/pipe" 3>&- &
  local outer=$!
  BACKGROUND+=("$outer")
  # The consumer is unshare's forked child, pid 1 of its
  # namespace: killing it kills the namespace.  Once it has attached.
  local consumer
  wait_until 20 eval 'consumer=$(pgrep -P "$outer") && maps_arena "$consumer"'
  [ -n "$consumer" ]
  kill -KILL "$consumer"
  finish "$producer" 30
  [ "$status" -eq 75 ]
  [[ $(head -n 1 "$TMP/producer.err") =~ ^arena-produce:\ worker\ 0:\ (waiting\ for\ space|writing\ a\ handle\ row):\ the\ consumer\ went\ away\ \(arena\ \'$NAME_RE\'\)$ ]]
}

@test "the sweep leaves a live arena of another PID namespace alone, and removes it once its producer is gone" {
  require_pid_namespace
  # A producer in its own namespace, with no consumer: its arena stays named.
  background unshare -pf --mount-proc arena-produce --size 4096 --items 2 --slots 2 --timeout 20 > "$TMP/rows.csv" 2> /dev/null
  local outer=$LAST
  wait_rows "$TMP/rows.csv" 3
  ARENA=$(first_arena "$TMP/rows.csv")
  # Its name carries a pid of its namespace, which may mean nothing here.
  run arena-produce --sweep
  assert_status 0
  [[ $output =~ ^removed\ [0-9]+\ orphaned\ arenas?\;\ [1-9][0-9]*\ in\ use\ left\ alone$ ]]
  [ -e "/dev/shm$ARENA" ]
  # The whole namespace SIGKILLed (its init takes everyone with it): no
  # handler runs, the arena stays until a sweep.
  kill -KILL "$(pgrep -P "$outer")"
  finish "$outer" 30
  sweep_removes "$ARENA"
}

# ------------------------------------------- the whole pipeline SIGKILLed

# Producer and consumer killed within a millisecond of each other, before
# the consumer attached: nobody can unlink the arena, and it stays until a
# sweep (arenabench(7), "Leftover arenas").  --sweep removes it and leaves
# a live producer's arena alone.
@test "a whole pipeline SIGKILLed at once leaves its arena; arena-produce --sweep removes it, not a live one" {
  background arena-produce --size 4096 --items 2 --slots 2 --timeout 20 > "$TMP/live.csv" 2> /dev/null
  wait_rows "$TMP/live.csv" 3
  local live
  live=$(first_arena "$TMP/live.csv")
  arena-produce --size 4096 --items 2 --slots 2 --timeout 20 > "$TMP/rows.csv" 2> /dev/null 3>&- &
  local victim=$!
  wait_rows "$TMP/rows.csv" 3
  ARENA=$(first_arena "$TMP/rows.csv")
  kill_producer "$victim"
  sweep_removes "$ARENA"
  [ -e "/dev/shm$live" ]
}

@test "the suite's leftover check counts an object of this test's dead producer; in a shared /dev/shm, not when a file beside had a producer of that PID" {
  # A PID that has exited (a killed producer's) on this test's list, and
  # an object named with it: no arena, so that no sweep removes it.
  local dead name beside shared
  sh -c 'exit 0' &
  dead=$!
  wait "$dead"
  echo "$dead" >> "$ARENABENCH_PRODUCERS"
  name=arenabench.$dead.0123456789abcdef01234567
  printf x > "/dev/shm/$name"
  PLANTED+=("/dev/shm/$name")
  # (As in a private /dev/shm: a real file beside may have had the PID.)
  ARENABENCH_SHM=private run assert_no_arena_left
  assert_status 1
  assert_output "arenas left in /dev/shm: $name"
  # Another file's list (tests/run-bats keeps one per file) with that PID.
  beside=$(mktemp "${TMPDIR:-/tmp}/arenabench-producers.XXXXXX")
  echo "$dead" > "$beside"
  ARENABENCH_SHM=shared run assert_no_arena_left
  shared=$status
  ARENABENCH_SHM=private run assert_no_arena_left
  rm -f "$beside" "/dev/shm/$name"
  [ "$shared" -eq 0 ]
  assert_status 1
}

# ------------------------------------------------- a filter that buffers

@test "a filter that buffers the rows: the producer says so within seconds, then times out naming it" {
  run bash -c "arena-produce --size 4096 --items 8 --slots 2 --timeout 4 2> '$TMP/producer.err' | grep -v no-such-text | arena-consume > /dev/null"
  # grep flushed only when the producer exited: the arena was gone.
  assert_status 66
  run cat "$TMP/producer.err"
  assert_status 0
  [ "${#lines[@]}" -eq 2 ]
  [[ ${lines[0]} =~ ^arena-produce:\ worker\ 0:\ no\ consumer\ has\ attached\ to\ arena\ \'$NAME_RE\'\ 3\ s\ after\ its\ first\ row:\ a\ filter\ in\ the\ pipe\ may\ be\ holding\ the\ rows\ \(use\ grep\ --line-buffered,\ sed\ -u,\ stdbuf\ -oL,\ or\ fflush\(\)\ in\ awk\)\;\ waiting\ up\ to\ --timeout$ ]]
  [[ ${lines[1]} =~ ^arena-produce:\ worker\ 0:\ waiting\ for\ space:\ no\ consumer\ attached\ to\ arena\ \'$NAME_RE\'\ in\ 4\ s,\ 2\ rows\ written:\ the\ rows\ are\ not\ reaching\ a\ consumer\ \(a\ filter\ in\ the\ pipe\ holds\ them,\ or\ nobody\ reads\ them\)$ ]]
  # With --line-buffered the same pipe works.
  run bash -c "set -o pipefail; arena-produce --size 4096 --items 8 --slots 2 --timeout 60 | grep --line-buffered -v no-such-text | arena-consume --report run | columns items"
  assert_status 0
  assert_output "items
8"
}

# ------------------------------------- blank objects, modes, file size limit

# plant NAME SIZE MODE AGE [BYTE]: an object /dev/shm/NAME of SIZE bytes
# (zeros, or BYTE repeated), mode MODE, last changed AGE seconds ago (a
# negative AGE: ahead of the clock).
# The object is made whole under a name no sweep reads, then renamed into
# place: a sweep of a test running beside this one (same user, shared
# /dev/shm) never sees it half made (sized but not yet 0644, say).
plant() {
  local path=/dev/shm/$1 part=/dev/shm/.plant.$1
  if [ -n "${5:-}" ]; then
    head -c "$2" /dev/zero | tr '\0' "$5" > "$part"
  else
    truncate -s "$2" "$part"
  fi
  chmod "$3" "$part"
  touch -d "@$(( $(date +%s) - $4 ))" "$part"
  mv -f "$part" "$path"
  PLANTED+=("$path")
}

# A producer killed between ftruncate and the header write leaves an
# object of zeros, and one killed between shm_open and ftruncate an empty
# one; neither is locked.  An empty object touched in the last seconds may
# be one being created (not yet locked), but a sized one is locked first:
# unlocked, however young, its creator died.  An object open to others, or
# with data that is no arena header, is not ours: those stay.  The young
# objects are dated an hour ahead: younger than the 2 s grace however late
# a loaded machine runs the sweep.
@test "--sweep removes blank objects whose creator died, and nothing else under the prefix" {
  local p=arenabench.$$.
  plant "${p}b1a00000000000000000001" 8192 600 60
  plant "${p}b1a00000000000000000002" 0 600 60
  plant "${p}b1a00000000000000000003" 8192 400 60
  plant "${p}b1a00000000000000000004" 8192 600 -3600
  plant "${p}b1a00000000000000000005" 8192 644 60
  plant "${p}b1a00000000000000000006" 8192 600 60 x
  plant "${p}b1a00000000000000000007" 0 660 60
  plant "${p}b1a00000000000000000008" 0 600 -3600
  # In a shared /dev/shm (not root) a consumer of a test file running
  # beside this one, as the same user, sweeps at its end by the same rules
  # and may remove the orphans first: there only what is left counts.
  local removed='[4-9] orphaned arenas'
  [ "${ARENABENCH_SHM:-}" = private ] || removed='[0-9]+ orphaned arenas?'
  run arena-produce --sweep
  assert_status 0
  [[ $output =~ ^removed\ $removed\;\ [0-9]+\ in\ use\ left\ alone$ ]]
  [ ! -e "/dev/shm/${p}b1a00000000000000000001" ]
  [ ! -e "/dev/shm/${p}b1a00000000000000000002" ]
  [ ! -e "/dev/shm/${p}b1a00000000000000000003" ]
  [ ! -e "/dev/shm/${p}b1a00000000000000000004" ]
  [ -e "/dev/shm/${p}b1a00000000000000000008" ]
  [ -e "/dev/shm/${p}b1a00000000000000000005" ]
  [ -e "/dev/shm/${p}b1a00000000000000000006" ]
  [ -e "/dev/shm/${p}b1a00000000000000000007" ]
}

@test "a producer killed after sizing its arena, before the header: the surviving consumer's sweep removes the blank object at once" {
  require_private_shm
  # What the kill leaves: the creator's name, zeros, just now, no lock.
  local name=arenabench.$$.b1a00000000000000000020
  plant "$name" 8192 600 0
  run bash -c "arena-produce --size 4K --items 2 | arena-consume > /dev/null"
  assert_status 0
  [ ! -e "/dev/shm/$name" ]
}

@test "a blank object still locked by its creator is left alone, and removed once the lock is gone" {
  command -v python3 > /dev/null || skip "python3 is needed to hold the creator's lock"
  local name=arenabench.$$.b1a00000000000000000010
  # Planted under another name and locked before it takes its own: a
  # sweep of a test beside this one (same user, shared /dev/shm) would
  # rightly remove it unlocked.
  plant ".locked.$name" 8192 600 60
  PLANTED+=("/dev/shm/$name")
  # The producer's lock (an OFD write lock on byte 0), held while it sweeps.
  run python3 - "/dev/shm/.locked.$name" "/dev/shm/$name" <<'PY'
import fcntl, os, struct, subprocess, sys
fd = os.open(sys.argv[1], os.O_RDWR)
fcntl.fcntl(fd, 37, struct.pack('hhxxxxqqixxxx', fcntl.F_WRLCK, os.SEEK_SET, 0, 1, 0))
os.rename(sys.argv[1], sys.argv[2])
r = subprocess.run(['arena-produce', '--sweep'], stdout=subprocess.PIPE)
sys.stdout.write(r.stdout.decode())
# Looked for while the lock is held: once it is gone, any sweep may take it.
print('still there' if os.path.exists(sys.argv[2]) else 'removed')
PY
  assert_status 0
  [ "${#lines[@]}" -eq 2 ]
  [[ ${lines[0]} =~ ^removed\ [0-9]+\ orphaned\ arenas?\;\ [1-9][0-9]*\ in\ use\ left\ alone$ ]]
  [ "${lines[1]}" = 'still there' ]
  sweep_removes "/$name"
}

@test "umask 0277: the arena is still 0600 and the pipeline completes" {
  background bash -c "umask 0277; exec arena-produce --size 4096 --items 2 --slots 2 --timeout 20" > "$TMP/rows.csv" 2> /dev/null
  wait_rows "$TMP/rows.csv" 3
  ARENA=$(first_arena "$TMP/rows.csv")
  run stat -c %a "/dev/shm$ARENA"
  assert_status 0
  assert_output 600
  run bash -c "set -o pipefail; umask 0277; arena-produce --size 4096 --items 3 --slots 2 --timeout 60 | arena-consume --report run | columns items mismatches"
  assert_status 0
  assert_output "items,mismatches
3,0"
}

@test "an arena whose owner cannot write it (mode 0400): the consumer exits 65 saying so; a sweep removes it once orphaned" {
  background arena-produce --size 4096 --items 2 --slots 2 --timeout 20 > "$TMP/rows.csv" 2> /dev/null
  local producer=$LAST
  wait_rows "$TMP/rows.csv" 3
  ARENA=$(first_arena "$TMP/rows.csv")
  chmod 0400 "/dev/shm$ARENA"
  run arena-consume < "$TMP/rows.csv"
  assert_status 65
  assert_output "arena-consume: line 2: arena '$ARENA': its owner cannot read and write it (mode is not 0600)"
  [ -e "/dev/shm$ARENA" ]
  kill_producer "$producer"
  sweep_removes "$ARENA"
}

@test "a second consumer of an arena: exit 65, another consumer holds this arena" {
  command -v python3 > /dev/null || skip "python3 is needed to hold the first consumer's lock"
  background arena-produce --size 4096 --items 2 --slots 2 --timeout 20 > "$TMP/rows.csv" 2> /dev/null
  wait_rows "$TMP/rows.csv" 3
  ARENA=$(first_arena "$TMP/rows.csv")
  # The first consumer's lock (an OFD write lock on byte 1), held while a
  # second one that opened the name before the first unlinked it attaches.
  run python3 - "/dev/shm$ARENA" "$TMP/rows.csv" <<'PY'
import fcntl, os, struct, subprocess, sys
fd = os.open(sys.argv[1], os.O_RDWR)
fcntl.fcntl(fd, 37, struct.pack('hhxxxxqqixxxx', fcntl.F_WRLCK, os.SEEK_SET, 1, 1, 0))
r = subprocess.run(['arena-consume'], stdin=open(sys.argv[2]), stdout=subprocess.DEVNULL,
                   stderr=subprocess.PIPE)
sys.stdout.write(r.stderr.decode() + 'status %d\n' % r.returncode)
PY
  assert_status 0
  assert_output "arena-consume: line 2: arena '$ARENA': another consumer holds this arena
status 65"
}

@test "over the file size limit (ulimit -f): exit 71 with one line, no SIGXFSZ, nothing left" {
  run bash -c "ulimit -f 64; arena-produce --size 1MiB --items 1 --slots 1"
  assert_status 71
  assert_output "arena-produce: cannot create a pool arena of 1052672 bytes in /dev/shm: larger than the file size limit (ulimit -f)"
}

# ------------------------------------- objects another user plants, counts
# another user rewrites (issue 30: items 1 and 4)

# Hostile objects under our prefix go only in a private /dev/shm: in the
# shared one they would reach other users' sweeps.
require_private_shm() {
  [ "${ARENABENCH_SHM:-}" = private ] || skip "needs a private /dev/shm (tests/run-bats makes one as root)"
}

# as_nobody [CMD...]: the words that run a command as nobody, or a skip.
as_nobody() {
  require_nobody "$@"
  NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups)
}

@test "a FIFO under an arena name: --sweep, a producer's start and a consumer's end pass it by, at once" {
  require_private_shm
  local fifo=/dev/shm/arenabench.$$.f1f0
  mkfifo -m 0600 "$fifo"
  PLANTED+=("$fifo")
  run timeout 20 arena-produce --sweep
  assert_status 0
  assert_output "removed 0 orphaned arenas; 0 in use left alone"
  # A producer sweeps at start, a consumer at the end of its input.
  run timeout 20 bash -c "set -o pipefail; arena-produce --size 4096 --items 2 --slots 2 | arena-consume --report run | columns items mismatches"
  assert_status 0
  assert_output "items,mismatches
2,0"
  [ -p "$fifo" ]
}

@test "a row naming a FIFO, a directory or a socket of another user: refused (65) at once, never opened to wait" {
  require_private_shm
  as_nobody
  produce 1 --size 4096 --items 1 --slots 1
  local name kind
  for kind in fifo dir socket; do
    name=/arenabench.$$.f1f$((${#kind}))
    case $kind in
      fifo) mkfifo -m 0644 "/dev/shm$name" ;;
      dir) mkdir -m 0755 "/dev/shm$name" ;;
      socket) python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "/dev/shm$name" 2> /dev/null \
                || { echo "# no python3: socket case not run" >&3; continue; } ;;
    esac
    PLANTED+=("/dev/shm$name")
    sed "2s|^$ARENA,|$name,|" "$TMP/rows.csv" > "$TMP/planted.csv"
    run timeout 20 "${NOBODY[@]}" arena-consume < "$TMP/planted.csv"
    rmdir "/dev/shm$name" 2> /dev/null || rm -f "/dev/shm$name"
    assert_status 65
    assert_output "arena-consume: line 2: arena '$name': not a regular shared-memory object"
  done
  stop_producer
}

@test "root's arena given to a consumer run as nobody: 65, owned by another user, as the man page says" {
  as_nobody
  produce 1 --size 4096 --items 1 --slots 1
  run "${NOBODY[@]}" arena-consume < "$TMP/rows.csv"
  assert_status 65
  assert_output "arena-consume: line 2: arena '$ARENA': owned by another user"
  [ -e "/dev/shm$ARENA" ]
  stop_producer
}

# The header's counters at these offsets (struct arena_header).
PRODUCED_AT=72
RELEASED_AT=80

@test "a release count rewritten to 2^63 before the consumer attaches: the pipeline still runs, both exit 0" {
  # Before the fix each wait for space asked for 2^30 releases and slept a
  # liveness slice per item, and the producer's final wait never ended.
  run timeout 120 bash -c "set -o pipefail
    arena-produce --size 4096 --items 40 --slots 4 --timeout 20 | {
      IFS= read -r header && IFS= read -r first || exit 9
      # The arena is full and its producer waits: rewrite the count.
      printf '\0\0\0\0\0\0\0\200' | dd of=/dev/shm\${first%%,*} bs=1 seek=$RELEASED_AT conv=notrunc status=none
      { printf '%s\n%s\n' \"\$header\" \"\$first\"; cat; } | arena-consume --report run
    } | columns items mismatches"
  assert_status 0
  assert_output "items,mismatches
40,0"
}

@test "a producer's message after a rewritten header counts what it wrote, not what the header says" {
  # The timeout is what this test waits for: 1 s on an idle machine, as
  # many more as the load makes the rewrite below slower.
  local limit
  limit=$(load_factor)
  produce 2 --size 4096 --items 4 --slots 2 --timeout "$limit"
  printf '\377\377\377\377\377\0\0\0' | dd of="/dev/shm$ARENA" bs=1 seek=$PRODUCED_AT conv=notrunc,nocreat status=none
  finish "$PRODUCER" 30
  [ "$status" -eq 75 ]
  run cat "$TMP/producer.err"
  assert_status 0
  [[ ${lines[-1]} =~ ^arena-produce:\ worker\ 0:\ waiting\ for\ space:\ no\ consumer\ attached\ to\ arena\ \'$NAME_RE\'\ in\ $limit\ s,\ 2\ rows\ written: ]]
}

# ---------------------------------------------- a reader that stops reading

# stalled_reader FIFO: a reader that opens FIFO and never reads it.
stalled_reader() {
  mkfifo "$1"
  # The job opens it (a redirection of the call would block this shell).
  background sh -c 'exec sleep 1000 < "$0"' "$1"
}

@test "a producer whose reader stopped reading: --timeout ends it (75), saying so, nothing left" {
  stalled_reader "$TMP/rows"
  # 1000 slots of 64 bytes: more rows than the pipe holds, all writable
  # without a release.
  arena-produce --size 64 --slots 1000 --items 2000 --timeout 1 > "$TMP/rows" 2> "$TMP/producer.err" 3>&- &
  local producer=$!
  BACKGROUND+=("$producer")
  finish "$producer" 60
  [ "$status" -eq 75 ]
  run cat "$TMP/producer.err"
  assert_status 0
  assert_output "arena-produce: worker 0: writing a handle row: stdout not read for 1 s (--timeout): the consumer stopped reading"
}

@test "a consumer blocked on a full stdout: one SIGTERM ends it (74), saying so, nothing left" {
  mkfifo "$TMP/rows"
  stalled_reader "$TMP/receipts"
  arena-produce --size 4K --slots 64 --items 20000 --timeout 30 > "$TMP/rows" 2> /dev/null 3>&- &
  BACKGROUND+=("$!")
  arena-consume < "$TMP/rows" > "$TMP/receipts" 2> "$TMP/consumer.err" 3>&- &
  local consumer=$!
  BACKGROUND+=("$consumer")
  # More receipts than the pipe holds: the consumer waits to write one.
  wait_until 60 in_kernel_wait "$consumer" 'poll|pipe_write'
  kill -TERM "$consumer"
  finish "$consumer" 30
  [ "$status" -eq 74 ]
  run cat "$TMP/consumer.err"
  assert_status 0
  assert_output "arena-consume: stdout: not read when the run was stopped: receipts not yet written are lost"
}

# is_stopped PID: PID is in the stopped state (T).
is_stopped() {
  [ "$(awk '{ print $3 }' "/proc/$1/stat" 2> /dev/null)" = T ]
}

# worker_waits PID: a worker of the arena-produce PID has written its rows
# and sleeps on a futex (for the consumer to attach or free space).
worker_waits() {
  local w
  for w in $(pgrep -P "$1"); do in_kernel_wait "$w" futex && return 0; done
  return 1
}

# ms_since START MS: MS milliseconds have passed since START (date +%s%N).
ms_since() {
  [ $(( ($(date +%s%N) - $1) / 1000000 )) -ge "$2" ]
}

# Rows every 4 ms (--fill-rate): between two the consumer waits in
# pipe_read, its wait begun after the timer's last tick.  It is stopped
# there for longer than --timeout while the rows pile up in the pipe; it
# died of --timeout when continued (only a wait begun before the last tick
# was forgiven).
@test "arena-consume --timeout: stopped while rows flow, for longer than the timeout: continued, the run completes" {
  local limit=$((2 * $(load_factor))) start
  mkfifo "$TMP/rows"
  # Each job opens its end of the FIFO (a redirection of the call would
  # block this shell).
  arena-produce --size 4K --items 2000 --slots 2000 --fill-rate 1MB --timeout 600 > "$TMP/rows" 2> "$TMP/producer.err" 3>&- &
  local producer=$!
  BACKGROUND+=("$producer")
  arena-consume --timeout "$limit" < "$TMP/rows" > "$TMP/receipts" 2> "$TMP/consumer.err" 3>&- &
  local consumer=$!
  BACKGROUND+=("$consumer")
  wait_until 30 maps_arena "$consumer"
  wait_until 30 in_kernel_wait "$consumer" pipe_read
  kill -STOP "$consumer"
  wait_until 30 is_stopped "$consumer"
  start=$(date +%s%N)
  # The stop outlasts --timeout on the test's clock (this wait is the stop).
  wait_until $((3 * limit + 30)) ms_since "$start" $((1000 * limit + 500))
  kill -CONT "$consumer"
  finish "$consumer" 300
  [ "$status" -eq 0 ]
  [ ! -s "$TMP/consumer.err" ]
  run column sequence < "$TMP/receipts"
  assert_status 0
  [ "${#lines[@]}" -eq 2000 ]
  finish "$producer" 60
  [ "$status" -eq 0 ]
}

@test "arena-consume --timeout does not count time the consumer itself was stopped (SIGSTOP, Ctrl-Z)" {
  mkfifo "$TMP/rows"
  arena-consume --timeout 3 < "$TMP/rows" > "$TMP/receipts" 2> "$TMP/consumer.err" 3>&- &
  local consumer=$!
  BACKGROUND+=("$consumer")
  exec 5> "$TMP/rows"
  wait_until 30 in_kernel_wait "$consumer" pipe_read
  kill -STOP "$consumer"
  wait_until 30 is_stopped "$consumer"
  # While it is stopped the producer writes every row and waits for the
  # consumer; the stop outlasts --timeout (this wait is the stop itself).
  arena-produce --size 4K --items 2 --timeout 60 >&5 2> "$TMP/producer.err" 3>&- &
  local producer=$!
  BACKGROUND+=("$producer")
  exec 5>&-
  wait_until 30 worker_waits "$producer"
  sleep 4
  kill -CONT "$consumer"
  finish "$consumer" 60
  [ "$status" -eq 0 ]
  run column sequence < "$TMP/receipts"
  assert_status 0
  assert_output "0
1"
  finish "$producer" 60
  [ "$status" -eq 0 ]
}
