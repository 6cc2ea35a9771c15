#!/usr/bin/env bats
# arena-produce | arena-consume end to end: every backend, dtype and kind,
# pinning, workers, epochs, both reports, saved leaves, and cleanup when
# either side is interrupted or killed.

load test-helper

NAME_RE='/arenabench\.[0-9]+\.[0-9a-f]{24}'

# The run report read by column name (assert_csv_like): what a CPU run
# without pinning fills in, a column a cell.  RUN_TIMES_RE: seconds,
# items_per_s, gb_per_s, cpu_s; RUN_MEMORY_RE: shm_bytes to rss_peak_bytes;
# RUN_UNPINNED_RE: the page-lock costs and the device, empty; RUN_RANK_RE:
# rank 0 of 1 on the CPU, no --compute-us.
RUN_CHECKED_COLUMNS=arm,backend,pinned,size_bytes,dtype,kind,workers,slots,items,bytes,seconds,items_per_s,gb_per_s,cpu_s,mlock_ms,mismatches,warmup_epochs,pinned_bytes,shm_bytes,shm_avail_before_bytes,shm_avail_after_bytes,pss_before_bytes,pss_after_bytes,rss_peak_bytes,unpin_ms,pin_s_per_gib,unpin_s_per_gib,device_pci,link,link_max,device_numa,share,producer_items,producer_fill_us,rank,local_rank,world_size,device,compute_us,compute_s,au
RUN_TIMES_RE='[0-9]+\.[0-9]{6},[0-9]+\.[0-9]{2},[0-9]+\.[0-9]{4},[0-9]+\.[0-9]{6}'
RUN_MEMORY_RE='[0-9]+,[0-9]+,[0-9]+,[0-9]+,[0-9]+,[0-9]+'
RUN_UNPINNED_RE=',,,,,,'
RUN_FILL_US_RE='[0-9.-]+( [0-9.-]+)*'
RUN_RANK_RE='0,0,1,cpu,,,'

setup() {
  common_setup
  PIDS=()
}

teardown() {
  pids_teardown
}

pipeline() {
  set -o pipefail
  arena-produce "$@" | arena-consume $CONSUME_ARGS
}

# ------------------------------------------------------------ end to end

@test "every backend x dtype x kind: every value checked, no mismatch" {
  local backend dtype kind bytes want seq
  for backend in $(backends); do
    for dtype in fp32 fp16 uint8; do
      for kind in tensor nested; do
        case $dtype/$kind in
          fp32/tensor|fp16/tensor|uint8/tensor) bytes=1000 ;;
          fp32/nested) bytes=1036 ;;
          fp16/nested) bytes=1030 ;;
          uint8/nested) bytes=1027 ;;
        esac
        want=arm,backend,pinned,size_bytes,dtype,kind,workers,slots,sequence,worker,epoch,bytes,mismatches
        for seq in 0 1 2 3 4; do
          want+=$'\n'"$backend-pageable,$backend,0,1000,$dtype,$kind,1,2,$seq,0,0,$bytes,0"
        done
        run bash -c "set -o pipefail; arena-produce --backend $backend --dtype $dtype --kind $kind --size 1000 --items 5 --slots 2 | arena-consume | columns arm backend pinned size_bytes dtype kind workers slots sequence worker epoch bytes mismatches"
        assert_status 0
        assert_output "$want"
      done
    done
  done
}

# The page of a ring holds a whole number of records here (64 + 4032 is
# 4096, 2 x (64 + 1984) too): the last record ends exactly at the end of
# the ring and must still be placed there, not pushed to the next lap.
@test "a ring whose capacity is an exact multiple of its record: every item placed, none waits for a consumer" {
  local slots size
  for slots in 1 2; do
    size=$((4096 / slots - 64))
    run timeout 60 bash -c "set -o pipefail; arena-produce --backend ring --slots $slots --size $size --dtype uint8 --items 6 --timeout 10 | arena-consume --report run | columns items mismatches shm_bytes"
    assert_status 0
    assert_output "items,mismatches,shm_bytes
6,0,8192"
  done
}

@test "receipts: wait_ns and verify_ns are counts; --no-verify leaves them empty" {
  run pipeline --size 4096 --items 3
  assert_status 0
  [ "${lines[0]}" = "$ITEM_HEADER" ]
  assert_csv_like "arm,backend,pinned,size_bytes,dtype,kind,workers,slots,sequence,worker,epoch,bytes,wait_ns,verify_ns,mismatches,rank,local_rank,world_size,device
pool-pageable,pool,0,4096,fp32,tensor,1,4,0,0,0,4096,[0-9]+,[0-9]+,0,0,0,1,cpu
pool-pageable,pool,0,4096,fp32,tensor,1,4,1,0,0,4096,[0-9]+,[0-9]+,0,0,0,1,cpu
pool-pageable,pool,0,4096,fp32,tensor,1,4,2,0,0,4096,[0-9]+,[0-9]+,0,0,0,1,cpu"
  CONSUME_ARGS=--no-verify run pipeline --backend ring --size 4096 --items 2
  assert_status 0
  [ "${lines[0]}" = "$ITEM_HEADER" ]
  assert_csv_like "arm,backend,pinned,size_bytes,dtype,kind,workers,slots,sequence,worker,epoch,bytes,wait_ns,verify_ns,mismatches,rank,device
ring-pageable,ring,0,4096,fp32,tensor,1,4,0,0,0,4096,[0-9]+,,,0,cpu
ring-pageable,ring,0,4096,fp32,tensor,1,4,1,0,0,4096,[0-9]+,,,0,cpu"
}

@test "workers: one arena each, every sequence once, from its own worker" {
  run bash -c "set -o pipefail; arena-produce --size 512 --items 4 --workers 3 --slots 2 --share static | arena-consume | columns workers sequence worker epoch | tail -n +2 | sort -t, -k2,2n"
  assert_status 0
  assert_output "3,0,0,0
3,1,0,0
3,2,0,0
3,3,0,0
3,4,1,0
3,5,1,0
3,6,1,0
3,7,1,0
3,8,2,0
3,9,2,0
3,10,2,0
3,11,2,0"
}

@test "epochs and warm-up: warm-up epochs are left out of receipts and the window" {
  CONSUME_ARGS='--warmup-epochs 1' run pipeline --size 4096 --items 2 --epochs 3
  assert_status 0
  run bash -c "printf '%s\n' \"\$0\" | columns sequence epoch" "$output"
  assert_status 0
  assert_output "sequence,epoch
2,1
3,1
4,2
5,2"
  CONSUME_ARGS='--warmup-epochs 2 --report run' run pipeline --size 4096 --items 2 --epochs 3 --workers 2
  assert_status 0
  [ "${lines[0]}" = "$RUN_HEADER" ]
  assert_csv_like "$RUN_CHECKED_COLUMNS
pool-pageable,pool,0,4096,fp32,tensor,2,4,4,16384,$RUN_TIMES_RE,,0,2,0,$RUN_MEMORY_RE,$RUN_UNPINNED_RE,pull,[0-9]+ [0-9]+,$RUN_FILL_US_RE,$RUN_RANK_RE"
}

@test "--report run: one row with the run's numbers" {
  local start end
  start=$(date +%s%N)
  CONSUME_ARGS='--report run' run pipeline --size 4096 --items 10
  end=$(date +%s%N)
  assert_status 0
  [ "${#lines[@]}" -eq 2 ]
  [ "${lines[0]}" = "$RUN_HEADER" ]
  assert_csv_like "$RUN_CHECKED_COLUMNS
pool-pageable,pool,0,4096,fp32,tensor,1,4,10,40960,$RUN_TIMES_RE,,0,0,0,$RUN_MEMORY_RE,$RUN_UNPINNED_RE,pull,10,$RUN_FILL_US_RE,$RUN_RANK_RE"
  # items_per_s is items / seconds.
  local seconds rate
  seconds=$(printf '%s\n' "$output" | column seconds | tail -n 1)
  rate=$(printf '%s\n' "$output" | column items_per_s | tail -n 1)
  run awk -v s="$seconds" -v r="$rate" 'BEGIN { d = 10 / s - r; if (d < 0) d = -d; print (s > 0 && d <= 0.01 * r + 0.01) ? "consistent" : "off" }'
  assert_status 0
  assert_output consistent
  # The measured window lies inside the pipeline's run (a lost window end
  # once printed 1.8e10 s, consistently).
  run awk -v s="$seconds" -v wall="$((end - start))" 'BEGIN { print (s * 1e9 <= wall ? "within" : s " s, the run took " wall / 1e9 " s") }'
  assert_status 0
  assert_output within
  CONSUME_ARGS='--report run --no-verify' run pipeline --backend ring --size 1000 --items 3 --dtype uint8 --kind nested --slots 8
  assert_status 0
  assert_csv_like "$RUN_CHECKED_COLUMNS
ring-pageable,ring,0,1000,uint8,nested,1,8,3,3081,$RUN_TIMES_RE,,,0,0,$RUN_MEMORY_RE,$RUN_UNPINNED_RE,pull,3,$RUN_FILL_US_RE,$RUN_RANK_RE"
}

@test "--pin: arms are pinned, the consumer page-locks and reports mlock_ms" {
  if [ "$(id -u)" -ne 0 ] && [ "$(ulimit -l)" != unlimited ]; then
    skip "mlock of the arena may exceed RLIMIT_MEMLOCK ($(ulimit -l) KiB)"
  fi
  CONSUME_ARGS='--report run' run pipeline --size 64K --items 4 --pin
  assert_status 0
  # The page-lock costs: mlock_ms, unpin_ms and the seconds per GiB.
  assert_csv_like "$RUN_CHECKED_COLUMNS
pool-pinned,pool,1,65536,fp32,tensor,1,4,4,262144,$RUN_TIMES_RE,[0-9]+\.[0-9]{3},0,0,266240,266240,[0-9]+,[0-9]+,[0-9]+,[0-9]+,[0-9]+,[0-9]+\.[0-9]{3},[0-9]+\.[0-9]{6},[0-9]+\.[0-9]{6},,,,,pull,4,$RUN_FILL_US_RE,$RUN_RANK_RE"
  run bash -c "set -o pipefail; arena-produce --backend ring --size 64K --items 2 --pin | arena-consume | columns arm backend pinned"
  assert_status 0
  assert_output "arm,backend,pinned
ring-pinned,ring,1
ring-pinned,ring,1"
}

# ------------------------------------------------------------ --save-dir

# The .npy header for DICT: magic, version 1.0, length, dict, spaces, '\n'
# to a multiple of 64 bytes.
npy_header() {
  local dict=$1 total
  total=$(( (10 + ${#dict} + 1 + 63) / 64 * 64 ))
  printf '\x93NUMPY\x01\x00'
  printf "\\x$(printf %02x $(( (total - 10) % 256 )))\\x$(printf %02x $(( (total - 10) / 256 )))"
  printf '%s%*s\n' "$dict" $(( total - 10 - ${#dict} - 1 )) ''
}

# Expected elements of leaf L of sequence S, N of them, one per line.
pattern() {
  awk -v s="$1" -v l="$2" -v n="$3" 'BEGIN { sh = (s * 17 + l * 29) % 251; for (j = 0; j < n; j++) print (j + sh) % 251 }'
}

half_bits() {
  awk '{ v = $1; if (v == 0) { print "0000"; next }
         e = 0; while (2 ^ (e + 1) <= v) e++
         printf "%04x\n", (e + 15) * 1024 + (v * 2 ^ (10 - e) - 1024) }'
}

@test "--save-dir: fp32 tensor leaves as .npy, byte for byte" {
  mkdir "$TMP/npy"
  CONSUME_ARGS="--save-dir $TMP/npy" run pipeline --size 1200 --items 2
  assert_status 0
  run ls "$TMP/npy"
  assert_status 0
  assert_output "seq0_leaf0.npy
seq1_leaf0.npy"
  local seq
  for seq in 0 1; do
    local f=$TMP/npy/seq${seq}_leaf0.npy
    npy_header "{'descr': '<f4', 'fortran_order': False, 'shape': (300,), }" > "$TMP/want"
    run cmp <(head -c 128 "$f") "$TMP/want"
    assert_status 0
    [ "$(stat -c %s "$f")" -eq $((128 + 300 * 4)) ]
    run bash -c "tail -c +129 '$f' | od -An -v -tf4 -w4 | awk '{ print \$1 + 0 }'"
    assert_status 0
    assert_output "$(pattern $seq 0 300)"
  done
}

@test "--save-dir: fp16 and uint8 nested leaves in order main, nested[0], nested[1][0]" {
  mkdir "$TMP/h" "$TMP/u"
  CONSUME_ARGS="--save-dir $TMP/h" run pipeline --size 600 --items 1 --dtype fp16 --kind nested
  assert_status 0
  run ls "$TMP/h"
  assert_status 0
  assert_output "seq0_leaf0.npy
seq0_leaf1.npy
seq0_leaf2.npy"
  local leaf count
  for leaf in 0 1 2; do
    count=150
    [ "$leaf" -eq 2 ] && count=3
    npy_header "{'descr': '<f2', 'fortran_order': False, 'shape': ($count,), }" > "$TMP/want"
    run cmp <(head -c 128 "$TMP/h/seq0_leaf$leaf.npy") "$TMP/want"
    assert_status 0
    [ "$(stat -c %s "$TMP/h/seq0_leaf$leaf.npy")" -eq $((128 + count * 2)) ]
    run bash -c "tail -c +129 '$TMP/h/seq0_leaf$leaf.npy' | od -An -v -tx2 -w2 | tr -d ' '"
    assert_status 0
    assert_output "$(pattern 0 $leaf $count | half_bits)"
  done

  CONSUME_ARGS="--save-dir $TMP/u" run pipeline --backend ring --size 100 --items 3 --dtype uint8 --kind nested
  assert_status 0
  [ "$(ls "$TMP/u" | wc -l)" -eq 9 ]
  for leaf in 0 1 2; do
    count=50
    [ "$leaf" -eq 2 ] && count=3
    npy_header "{'descr': '|u1', 'fortran_order': False, 'shape': ($count,), }" > "$TMP/want"
    run cmp <(head -c 128 "$TMP/u/seq2_leaf$leaf.npy") "$TMP/want"
    assert_status 0
    run bash -c "tail -c +129 '$TMP/u/seq2_leaf$leaf.npy' | od -An -v -tu1 -w1 | tr -d ' '"
    assert_status 0
    assert_output "$(pattern 2 $leaf $count)"
  done
}

# numpy_python: the first interpreter that imports numpy into $NUMPY_PY:
# $PYTHON, then every python3 on PATH (a pyenv shim first on PATH may lack
# numpy where /usr/bin/python3 has it), then python3.N beside them.  Skips
# naming every interpreter tried when none does.
numpy_python() {
  local tried=() py
  for py in ${PYTHON:+"$PYTHON"} $(type -ap python3) /usr/bin/python3 /usr/local/bin/python3 \
            /usr/bin/python3.[0-9]* /usr/local/bin/python3.[0-9]*; do
    case $py in *-config|*\*) continue ;; esac
    [ -x "$py" ] || continue
    tried+=("$py")
    if "$py" -c 'import numpy' 2> /dev/null; then
      NUMPY_PY=$py
      return 0
    fi
  done
  skip "numpy is not installed for any interpreter tried: ${tried[*]:-no python3 found}"
}

@test "--save-dir files load with numpy where it is installed" {
  numpy_python
  mkdir "$TMP/npy"
  CONSUME_ARGS="--save-dir $TMP/npy" run pipeline --size 400 --items 2 --dtype fp16 --kind nested
  assert_status 0
  run "$NUMPY_PY" -c "
import numpy as np, sys
d = sys.argv[1]
for s in (0, 1):
    for l, n in ((0, 100), (1, 100), (2, 3)):
        a = np.load('%s/seq%d_leaf%d.npy' % (d, s, l))
        want = (np.arange(n) + (s * 17 + l * 29) % 251) % 251
        assert a.dtype == np.float16 and a.shape == (n,) and (a == want).all()
print('ok')" "$TMP/npy"
  assert_status 0
  assert_output ok
}

# -------------------------------------------------- interrupts and kills

# launch PRODUCER-ARGS -- CONSUMER-ARGS: both sides in the background on a
# FIFO, with default signal dispositions (a background job of a script
# ignores SIGINT otherwise).
launch() {
  local pargs=() cargs=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do pargs+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  cargs=("$@")
  mkfifo "$TMP/fifo"
  env --default-signal arena-produce "${pargs[@]}" > "$TMP/fifo" 2> "$TMP/producer.err" 3>&- &
  PRODUCER=$!
  env --default-signal arena-consume "${cargs[@]}" < "$TMP/fifo" > "$TMP/consumer.out" 2> "$TMP/consumer.err" 3>&- &
  CONSUMER=$!
  PIDS+=("$PRODUCER" "$CONSUMER")
}

# Poll (at most 5 s) until the consumer has mapped an arena.
# wait_attached [N]: wait until the consumer has mapped N arenas (default 1).
wait_attached() {
  local want=${1:-1} i
  for i in $(seq 100); do
    [ "$(grep -o '/dev/shm/arenabench\.[^ ]*' "/proc/$CONSUMER/maps" 2> /dev/null | sort -u | wc -l)" -ge "$want" ] &&
      return 0
    sleep 0.05
  done
  echo "the consumer attached fewer than $want arenas in 5 s" >&2
  return 1
}

# ended PID SECONDS: wait at most SECONDS for PID to exit; its status in $ENDED.
ended() {
  local pid=$1 i
  for i in $(seq $(( $2 * 20 ))); do
    kill -0 "$pid" 2> /dev/null || break
    # A stopped or exited child shows as a zombie until waited for.
    [ "$(awk '{ print $3 }' "/proc/$pid/stat" 2> /dev/null)" = Z ] && break
    sleep 0.05
  done
  if kill -0 "$pid" 2> /dev/null && [ "$(awk '{ print $3 }' "/proc/$pid/stat" 2> /dev/null)" != Z ]; then
    echo "process $pid still running after $2 s" >&2
    return 1
  fi
  ENDED=0
  wait "$pid" || ENDED=$?
}

# workers_waiting: every worker of $PRODUCER sleeps on the futex of its
# arena, waiting for space.
workers_waiting() {
  local pid workers
  workers=$(pgrep -P "$PRODUCER") || return 1
  for pid in $workers; do in_kernel_wait "$pid" futex || return 1; done
}

# Start a pipeline with room for a million items, and stop the consumer
# once it has attached; returns when the producer waits for space.
start_and_stall() {
  launch --size 4096 --items 1000000 --slots 4 --timeout 30 "$@"
  # Every worker's arena attached before the stall: one a producer kill
  # unlinks unattached would be "no such arena" (66), not a truncation.
  local workers=1
  [[ " $* " =~ \ --workers\ ([0-9]+)\  ]] && workers=${BASH_REMATCH[1]}
  wait_attached "$workers"
  kill -STOP "$CONSUMER"
  wait_until 20 workers_waiting
}

kill_consumer() {
  local sig=$1 want=$2
  # Valgrind runs both far slower: still well within the 30 s timeout.
  local limit=5
  ! valgrind_build || limit=12
  start_and_stall
  local t0=$SECONDS
  kill "-$sig" "$CONSUMER"
  kill -CONT "$CONSUMER" 2> /dev/null || true
  ended "$CONSUMER" "$limit"
  [ "$ENDED" -eq "$want" ]
  # The producer notices within a liveness slice, not its 30 s timeout.
  ended "$PRODUCER" "$limit"
  [ "$ENDED" -eq 75 ]
  [ $((SECONDS - t0)) -le "$limit" ]
  # The consumer releases what it held before it goes, so the producer may
  # notice while writing its next row instead of while waiting for space
  # (seen on the H200 host): either names the consumer gone.
  run cat "$TMP/producer.err"
  assert_status 0
  [[ "$output" =~ ^arena-produce:\ worker\ 0:\ (waiting\ for\ space|writing\ a\ handle\ row):\ the\ consumer\ went\ away\ \(arena\ \'$NAME_RE\'\)$ ]] ||
    { echo "producer said: $output" >&2; false; }
  assert_no_arena_left
}

@test "SIGINT to the consumer: the producer exits 75, nothing left" {
  kill_consumer INT 130
}

@test "SIGTERM to the consumer: the producer exits 75, nothing left" {
  kill_consumer TERM 143
}

@test "SIGKILL of the consumer: the producer notices and exits 75 well within --timeout" {
  kill_consumer KILL 137
}

@test "a stalled consumer: the producer gives up after --timeout with exit 75" {
  launch --size 4096 --items 10000000 --slots 2 --timeout 1
  wait_attached
  kill -STOP "$CONSUMER"
  ended "$PRODUCER" 5
  [ "$ENDED" -eq 75 ]
  run cat "$TMP/producer.err"
  assert_status 0
  [[ "$output" =~ ^arena-produce:\ worker\ 0:\ waiting\ for\ space:\ no\ space\ freed\ in\ arena\ \'$NAME_RE\'\ for\ 1\ s:\ the\ consumer\ stalled\ \(it\ released\ ([0-9]+)\ of\ ([0-9]+)\ items\)$ ]]
  # Rows written against items released: two slots were still full.
  [ $((BASH_REMATCH[2] - BASH_REMATCH[1])) -eq 2 ]
  # Woken, the consumer finds the stream cut short.
  kill -CONT "$CONSUMER" 2> /dev/null || true
  ended "$CONSUMER" 5
  [ "$ENDED" -eq 75 ]
  run cat "$TMP/consumer.err"
  assert_status 0
  [[ "${lines[0]}" =~ ^arena-consume:\ arena\ \'$NAME_RE\':\ truncated\ stream:\ producer\ \(pid\ $PRODUCER\)\ stopped\ after\ [0-9]+\ items,\ [0-9]+\ rows\ received$ ]]
  assert_missing_lines
}

# After the truncated-stream lines: the missing ranges by worker and
# epoch (by epoch alone when the workers pull their items), and the count
# of missing items last.
assert_missing_lines() {
  local last=${lines[${#lines[@]} - 1]} line
  [[ $last =~ ^arena-consume:\ [0-9]+\ of\ [0-9]+\ announced\ items\ missing ]]
  for line in "${lines[@]}"; do
    [[ $line =~ ^arena-consume:\ (arena\ \'$NAME_RE\':\ truncated\ stream|(worker\ [0-9]+\ )?epoch\ 0:\ sequences?\ [0-9-]+\ missing|[0-9]+\ of) ]]
  done
}

kill_producer() {
  local sig=$1 want=$2 workers=$3
  start_and_stall --workers "$workers"
  local t0=$SECONDS
  kill "-$sig" "$PRODUCER"
  ended "$PRODUCER" 5
  [ "$ENDED" -eq "$want" ]
  kill -CONT "$CONSUMER" 2> /dev/null || true
  ended "$CONSUMER" 5
  [ $((SECONDS - t0)) -le 10 ]
  [ "$ENDED" -eq 75 ]
  run cat "$TMP/consumer.err"
  assert_status 0
  [[ "${lines[0]}" =~ ^arena-consume:\ arena\ \'$NAME_RE\':\ truncated\ stream:\ producer\ \(pid\ $PRODUCER\)\ stopped\ after\ ([0-9]+)\ items,\ ([0-9]+)\ rows\ received$ ]]
  # Every row published was delivered before the producer died.
  [ "${BASH_REMATCH[1]}" -eq "${BASH_REMATCH[2]}" ]
  assert_missing_lines
  assert_no_arena_left
}

@test "SIGINT to the producer: it exits 130, the consumer reports a truncated stream" {
  kill_producer INT 130 1
}

@test "SIGTERM to the producer with 2 workers: exit 143, truncated stream, nothing left" {
  kill_producer TERM 143 2
}

@test "SIGKILL of the producer parent: workers die with it, the consumer exits 75" {
  start_and_stall --workers 2
  local workers
  workers=$(pgrep -P "$PRODUCER" | tr '\n' ' ')
  [ "$(wc -w <<< "$workers")" -eq 2 ]
  kill -KILL "$PRODUCER"
  ended "$PRODUCER" 5
  [ "$ENDED" -eq 137 ]
  local pid i
  for pid in $workers; do
    for i in $(seq 100); do kill -0 "$pid" 2> /dev/null || break; sleep 0.05; done
    if kill -0 "$pid" 2> /dev/null; then echo "worker $pid outlived its producer" >&2; return 1; fi
  done
  kill -CONT "$CONSUMER" 2> /dev/null || true
  ended "$CONSUMER" 5
  [ "$ENDED" -eq 75 ]
  run cat "$TMP/consumer.err"
  assert_status 0
  [[ "${lines[0]}" =~ ^arena-consume:\ arena\ \'$NAME_RE\':\ truncated\ stream:\ producer\ \(pid\ $PRODUCER\)\ stopped\ after\ ([0-9]+)\ items,\ ([0-9]+)\ rows\ received$ ]]
  [ "${BASH_REMATCH[1]}" -eq "${BASH_REMATCH[2]}" ]
  assert_missing_lines
}

# start_workers N: a producer of N workers (SIGINT at its default), 10
# items through 2 slots each, and no consumer; once every worker has
# written its 2 rows, its N arenas are there.
start_workers() {
  : > "$TMP/rows.csv"   # emptied first: the background redirection truncates it only once it runs
  env --default-signal arena-produce --size 4096 --items 10 --slots 2 --workers "$1" --timeout 30 \
    > "$TMP/rows.csv" 2> "$TMP/producer.err" 3>&- &
  PRODUCER=$!
  PIDS+=("$PRODUCER")
  wait_rows "$TMP/rows.csv" $((2 * $1 + 1))
  [ "$(ls /dev/shm | grep -c "^arenabench\.$PRODUCER\.")" -eq "$1" ]
}

@test "SIGKILL of the producer parent before any consumer: its workers unlink the arenas" {
  start_workers 2
  local i
  kill -KILL "$PRODUCER"
  ended "$PRODUCER" 5
  for i in $(seq 100); do ls /dev/shm | grep -q "^arenabench\.$PRODUCER\." || break; sleep 0.05; done
  assert_no_arena_left
  run arena-consume < "$TMP/rows.csv"
  assert_status 66
  [[ "$output" =~ ^arena-consume:\ line\ 2:\ arena\ \'$NAME_RE\':\ no\ such\ arena\ \(its\ producer\ exited\ or\ it\ was\ consumed\ already\)$ ]]
}

@test "SIGINT to a producer with no consumer: exit 130, arenas unlinked" {
  start_workers 3
  kill -INT "$PRODUCER"
  ended "$PRODUCER" 5
  [ "$ENDED" -eq 130 ]
  run cat "$TMP/producer.err"
  assert_status 0
  assert_output ""
}

@test "SIGPIPE to the consumer (| head -n 3): nothing left, the producer stops" {
  run timeout 30 bash -c "env --default-signal arena-produce --size 4096 --items 200000 --timeout 30 2> '$TMP/producer.err' | env --default-signal arena-consume | head -n 3; echo \"\${PIPESTATUS[*]}\""
  assert_status 0
  [ "${#lines[@]}" -eq 4 ]
  [ "${lines[0]}" = "$ITEM_HEADER" ]
  # The consumer dies of SIGPIPE; the producer finds it gone, while
  # waiting for space or on its next write, and says so.
  [ "${lines[3]}" = "75 141 0" ]
  run cat "$TMP/producer.err"
  assert_status 0
  [[ "$output" =~ ^arena-produce:\ worker\ 0:\ (waiting\ for\ space|writing\ a\ handle\ row):\ the\ consumer\ went\ away\ \(arena\ \'$NAME_RE\'\)$ ]]
}

# --------------------------------------------------------------- stdin

@test "the consumers take '-' for standard input; any other operand is a usage error" {
  run bash -c "set -o pipefail; arena-produce --size 4K --items 3 | arena-consume - --report run | columns arm items mismatches"
  assert_status 0
  assert_output "arm,items,mismatches
pool-pageable,3,0"
  run arena-consume rows.csv < /dev/null
  assert_status 64
  assert_output "arena-consume: unexpected argument 'rows.csv'
Try 'arena-consume --help' for more information."
  run arena-consume - - < /dev/null
  assert_status 64
  run h2d-check rows.csv < /dev/null
  assert_status 64
  assert_output "h2d-check: unexpected argument 'rows.csv'
Try 'h2d-check --help' for more information."
  # Past the operands: no GPU (69), or a GPU and empty input (66).
  run h2d-check - < /dev/null
  [ "$status" -eq 69 ] || [ "$status" -eq 66 ]
}
