#!/usr/bin/env bats
# How a producer's workers share an epoch (arena-produce --share): pull,
# the default, where a worker claims the epoch's next item as it comes
# free, and static, fixed blocks.  Every sequence arrives exactly once
# whichever worker filled it; a slow or stopped worker fills fewer; a
# killed one is still reported; the run report says who filled what.

load test-helper

NAME_RE='/arenabench\.[0-9]+\.[0-9a-f]{24}'

setup() {
  common_setup
  PIDS=()
}

teardown() {
  pids_teardown
}

# start_pipeline PRODUCE_ARGS...: arena-produce ARGS | tee rows.csv |
# arena-consume in the background, the producer's and consumer's PIDs in
# $TMP/producer.pid and $TMP/consumer.pid, the pipeline's status (pipefail)
# in $TMP/status once it ends, stderr in $TMP/produce.err, consume.err.
# The consumer stops itself before it starts (hold_pipeline).
start_pipeline() {
  : > "$TMP/rows.csv"
  (set +e -o pipefail   # (bats runs tests under set -e: keep the status)
   (echo "$BASHPID" > "$TMP/producer.pid"; exec arena-produce "$@" 2> "$TMP/produce.err") \
     | tee "$TMP/rows.csv" \
     | (echo "$BASHPID" > "$TMP/consumer.pid"; kill -STOP "$BASHPID"
        exec arena-consume > "$TMP/receipts.csv" 2> "$TMP/consume.err")
   echo $? > "$TMP/status") 3>&- &
  PIDS+=($!)
}

# arenas_mapped PID N: PID has N arenas mapped (or more).
arenas_mapped() {
  [ "$(grep -o 'arenabench\.[0-9]*\.[0-9a-f]*' "/proc/$1/maps" 2> /dev/null | sort -u | wc -l)" -ge "$2" ]
}

# hold_pipeline: wait until the consumer, not started yet, has stopped
# itself and both workers sleep waiting for space (each holding the item
# it claimed); the workers' PIDs in WORKERS, the consumer's in CONSUMER.
# SIGCONT to CONSUMER starts it.
hold_pipeline() {
  wait_until 60 test -s "$TMP/consumer.pid"
  CONSUMER=$(cat "$TMP/consumer.pid")
  PIDS+=("$CONSUMER")
  wait_until 60 eval 'grep -q "^State:.*stopped" "/proc/$CONSUMER/status"'
  wait_until 60 test -s "$TMP/producer.pid"
  wait_until 60 eval '[ "$(pgrep -cP "$(cat "$TMP/producer.pid")")" -eq 2 ]'
  WORKERS=($(pgrep -P "$(cat "$TMP/producer.pid")"))
  wait_until 60 in_kernel_wait "${WORKERS[0]}" futex
  wait_until 60 in_kernel_wait "${WORKERS[1]}" futex
}

# every_sequence_once FILE FIRST LAST: FILE's sequence column holds each of
# FIRST..LAST exactly once.
every_sequence_once() {
  diff <(column sequence < "$1" | sort -n) <(seq "$2" "$3")
}

@test "pull is the default: each epoch's sequences exactly once, increasing within each arena" {
  run bash -c "set -o pipefail; arena-produce --size 4096 --items 5 --workers 3 --epochs 2 \
      | tee '$TMP/rows.csv' | arena-consume > '$TMP/receipts.csv'"
  assert_status 0
  run every_sequence_once "$TMP/rows.csv" 0 29
  assert_status 0
  run bash -c "column share < '$TMP/rows.csv' | sort -u"
  assert_status 0
  assert_output pull
  # Epoch e's rows hold sequences e*15 to e*15+14, whichever worker.
  run bash -c "columns sequence epoch < '$TMP/rows.csv' | tail -n +2 \
      | awk -F, 'int(\$1 / 15) != \$2 { print \"sequence \" \$1 \" in epoch \" \$2 }'"
  assert_status 0
  assert_output ""
  # Within an arena the sequences grow, and its generations run 1, 2, 3...
  run bash -c "columns arena generation sequence < '$TMP/rows.csv' | tail -n +2 \
      | awk -F, '{ if (\$2 != ++gen[\$1] || (\$1 in last && \$3 <= last[\$1])) print \"bad: \" \$0; last[\$1] = \$3 }'"
  assert_status 0
  assert_output ""
  run every_sequence_once "$TMP/receipts.csv" 0 29
  assert_status 0
}

@test "--share static: worker w fills the epoch's w-th block, as before" {
  run bash -c "set -o pipefail; arena-produce --size 256 --items 2 --workers 2 --epochs 2 --share static \
      | tee '$TMP/rows.csv' | arena-consume > /dev/null"
  assert_status 0
  run bash -c "columns sequence worker epoch share < '$TMP/rows.csv' | tail -n +2 | sort -t, -k1,1n"
  assert_status 0
  assert_output "0,0,0,static
1,0,0,static
2,1,0,static
3,1,0,static
4,0,1,static
5,0,1,static
6,1,1,static
7,1,1,static"
}

@test "--share takes pull or static, nothing else (64)" {
  run arena-produce --share dynamic
  assert_status 64
  assert_output "arena-produce: --share: invalid choice 'dynamic' (choose from 'static', 'pull')"
}

@test "a stopped worker: the other fills the rest of the epoch while it is stopped, then all arrive once" {
  start_pipeline --size 64K --items 100 --workers 2 --slots 2 --timeout 600
  hold_pipeline
  kill -STOP "${WORKERS[0]}"
  kill -CONT "$CONSUMER"
  # 200 items and the header: all but the one item the stopped worker
  # claimed come through while it is stopped (under static, only the
  # other worker's 100 would).
  wait_until 120 has_lines "$TMP/rows.csv" 200
  kill -CONT "${WORKERS[0]}"
  wait_until 120 test -s "$TMP/status"
  run cat "$TMP/status"
  assert_status 0
  assert_output 0
  run every_sequence_once "$TMP/rows.csv" 0 199
  assert_status 0
  run every_sequence_once "$TMP/receipts.csv" 0 199
  assert_status 0
}

@test "one worker slowed (--fill-rate 1MB,0): it fills few items, and its fill time shows it" {
  # 2 MiB at 1 MB/s: worker 0 takes at least 2 s per item, whatever the load.
  run bash -c "set -o pipefail; arena-produce --size 2M --items 4 --workers 2 --fill-rate 1MB,0 \
      | arena-consume --report run > '$TMP/report.csv'"
  assert_status 0
  run bash -c "columns share items producer_items < '$TMP/report.csv' | tail -n +2"
  assert_status 0
  # Worker 0 claims at least one item; while it fills it (2 s), worker 1
  # fills the rest (a few ms of work): static would give each 4.
  [[ "$output" =~ ^pull,8,([1-3])\ ([5-7])$ ]]
  [ $(( BASH_REMATCH[1] + BASH_REMATCH[2] )) -eq 8 ]
  run bash -c "column producer_fill_us < '$TMP/report.csv'"
  assert_status 0
  [[ "$output" =~ ^([0-9.]+)\ ([0-9.]+)$ ]]
  # At least (2 MiB - one 256K part) / 1 MB/s = 1.84 s per item, whatever
  # the load.
  awk -v a="${BASH_REMATCH[1]}" 'BEGIN { exit !(a >= 1800000) }'
}

@test "a killed worker of a pull run is reported: the producer says so, the consumer names the missing sequences (75)" {
  # Enough items that the run is still going while the consumer, once it
  # has attached both arenas, is stopped again: a worker killed before
  # the consumer attached would take its arena's name with it (66).
  start_pipeline --size 64K --items 100000 --workers 2 --slots 2 --timeout 600
  hold_pipeline
  kill -CONT "$CONSUMER"
  wait_until 60 arenas_mapped "$CONSUMER" 2
  kill -STOP "$CONSUMER"
  wait_until 60 in_kernel_wait "${WORKERS[0]}" futex
  wait_until 60 in_kernel_wait "${WORKERS[1]}" futex
  kill -KILL "${WORKERS[0]}"
  kill -CONT "$CONSUMER"
  wait_until 120 test -s "$TMP/status"
  run cat "$TMP/status"
  assert_status 0
  assert_output 75
  # (Before it, a worker may have said no consumer had attached yet.)
  run tail -n 1 "$TMP/produce.err"
  assert_status 0
  assert_output "arena-produce: a worker was killed by signal 9"
  run tail -n 1 "$TMP/consume.err"
  assert_status 0
  [[ "$output" =~ ^arena-consume:\ [0-9]+\ of\ 200000\ announced\ items\ missing$ ]]
  run grep -cE "^arena-consume: epoch 0: sequences? [0-9]+(-[0-9]+)? missing \([0-9]+ of the epoch's 200000 items, which any worker could fill\)$" "$TMP/consume.err"
  assert_status 0
  [ "$output" -ge 1 ]
}

@test "the run report's producer columns: one value per worker, each worker's items summing to the run's" {
  run bash -c "set -o pipefail; arena-produce --size 4096 --items 10 --workers 3 --share static \
      | arena-consume --report run > '$TMP/report.csv'"
  assert_status 0
  run bash -c "columns share items producer_items < '$TMP/report.csv' | tail -n +2"
  assert_status 0
  assert_output "static,30,10 10 10"
  run bash -c "column producer_fill_us < '$TMP/report.csv'"
  assert_status 0
  [[ "$output" =~ ^[0-9]+\.[0-9]\ [0-9]+\.[0-9]\ [0-9]+\.[0-9]$ ]]
}

@test "warm-up epochs stay out of the producer columns" {
  run bash -c "set -o pipefail; arena-produce --size 4096 --items 4 --workers 2 --epochs 3 --share static \
      | arena-consume --report run --warmup-epochs 2 > '$TMP/report.csv'"
  assert_status 0
  run bash -c "columns items producer_items < '$TMP/report.csv' | tail -n +2"
  assert_status 0
  assert_output "8,4 4"
}

@test "--fill-rate lists: each value checked, an empty one refused (64)" {
  run arena-produce --fill-rate 2GB,0,x
  assert_status 64
  assert_output "arena-produce: --fill-rate: invalid size 'x' (use bytes or a suffix such as 64K, 8MiB, 1G)"
  run arena-produce --fill-rate 2GB,,1GB
  assert_status 64
  assert_output "arena-produce: --fill-rate: invalid size '' (use bytes or a suffix such as 64K, 8MiB, 1G)"
}

@test "a row dropped from a pull run's arena: exit 75 at the next row, naming the arena's missing item" {
  : > "$TMP/rows.csv"
  arena-produce --size 4096 --items 4 --slots 4 --timeout 600 > "$TMP/rows.csv" 2> /dev/null 3>&- &
  PIDS+=($!)
  wait_rows "$TMP/rows.csv" 5
  run bash -c "sed 3d '$TMP/rows.csv' | arena-consume > /dev/null"
  assert_status 75
  [[ "$output" =~ ^arena-consume:\ line\ 3:\ arena\ \'$NAME_RE\':\ item\ 2\ of\ worker\ 0\ is\ missing:\ its\ item\ 3\ \(sequence\ 2\)\ came\ in\ its\ place\ \(a\ row\ was\ dropped\ or\ reordered\ on\ the\ way\)$ ]]
}

@test "a pull run's row naming another worker after its arena's first row: refused (65), naming line and worker" {
  : > "$TMP/rows.csv"
  arena-produce --size 4096 --items 4 --workers 2 --slots 8 --timeout 600 > "$TMP/rows.csv" 2> /dev/null 3>&- &
  local producer=$!
  PIDS+=("$producer")
  wait_rows "$TMP/rows.csv" 9
  # The second row of some arena (8 items over two arenas: one has two),
  # its worker swapped for the other one: the receipts would credit it.
  local line arena worker
  read -r line arena worker < <(awk -F, 'NR > 1 && $6 == 2 { print NR, $1, $8; exit }' "$TMP/rows.csv")
  awk -F, -v OFS=, -v n="$line" 'NR == n { $8 = 1 - $8 } { print }' "$TMP/rows.csv" > "$TMP/bad.csv"
  run bash -c "arena-consume < '$TMP/bad.csv' > /dev/null"
  assert_status 65
  assert_output "arena-consume: line $line: arena '$arena': worker $((1 - worker)) differs from its header (worker $worker)"
  # The arena the consumer never reached goes with its producer (its
  # handler removes every arena before it dies).
  kill -TERM "$producer" 2> /dev/null || true   # (it may have ended: the consumer left)
  wait "$producer" || true
}
