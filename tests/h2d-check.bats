#!/usr/bin/env bats
# h2d-check: options, the no-GPU path, and (on a GPU) every arm checked,
# a corrupted payload or padding byte caught, forged rows refused, pinning
# cleaned up, --calibrate's rows.

load test-helper
load checks

setup() {
  common_setup
}

teardown() {
  common_teardown
}

ITEMS_HEADER=$H2D_ITEM_HEADER
RUN_HEADER=$H2D_RUN_HEADER

# What a machine without a usable GPU is told.
no_gpu_message() {
  if [ "${ARENABENCH_HAVE_CUDA:-no}" = yes ]; then
    echo 'h2d-check: no CUDA device available'
  else
    echo 'h2d-check: built without CUDA support'
  fi
}

@test "h2d-check --help prints usage and exits 0" {
  run h2d-check --help
  assert_status 0
  [ "${lines[0]}" = 'Usage: h2d-check [OPTION]... < HANDLE-ROWS' ]
}

@test "h2d-check --version names the package" {
  run h2d-check --version
  assert_status 0
  [ "${lines[0]}" = "h2d-check (arenabench) $ARENABENCH_VERSION" ]
}

@test "h2d-check rejects bad options with 64 before anything else, reading nothing" {
  printf 'not,read\n' > "$TMP/input"
  hint="Try 'h2d-check --help' for more information."
  while IFS='|' read -r args message with_hint; do
    expected=$message
    [ "$with_hint" = hint ] && expected="$expected
$hint"
    # shellcheck disable=SC2086
    run bash -c "h2d-check $args 2>&1; echo \"status \$?\"; cat" < "$TMP/input"
    assert_status 0
    assert_output "$expected
status 64
not,read" || { echo "args: $args" >&2; return 1; }
  done <<'TABLE'
--inflight 0|h2d-check: --inflight: '0' out of range [1, 64]|
--inflight 65|h2d-check: --inflight: '65' out of range [1, 64]|
--inflight two|h2d-check: --inflight: invalid number 'two'|
--copy-streams 0|h2d-check: --copy-streams: '0' out of range [1, 4]|
--copy-streams 5|h2d-check: --copy-streams: '5' out of range [1, 4]|
--staging-threads 0|h2d-check: --staging-threads: '0' out of range [1, 64]|
--staging-threads 65|h2d-check: --staging-threads: '65' out of range [1, 64]|
--staged --require-pin|h2d-check: --staged keeps the arena pageable: it cannot take --require-pin|
--staging-threads 2 --require-pin|h2d-check: --staged keeps the arena pageable: it cannot take --require-pin|
--copy-path dma|h2d-check: --copy-path: invalid choice 'dma' (choose from 'auto', 'engine', 'batch', 'sm')|
--copy-path SM|h2d-check: --copy-path: invalid choice 'SM' (choose from 'auto', 'engine', 'batch', 'sm')|
--copy-sms 0|h2d-check: --copy-sms: '0' out of range [1, 1024]|
--copy-sms 1025|h2d-check: --copy-sms: '1025' out of range [1, 1024]|
--copy-sms many|h2d-check: --copy-sms: invalid number 'many'|
--staged --copy-path sm|h2d-check: --staged sends each batch as one copy: it cannot take --copy-path sm|
--copy-path batch --staging-threads 2|h2d-check: --staged sends each batch as one copy: it cannot take --copy-path batch|
--copy-path|h2d-check: option '--copy-path' requires an argument|hint
--device -1|h2d-check: --device: invalid number '-1'|
--device 1024|h2d-check: --device: '1024' out of range [0, 1023]|
--warmup-epochs x|h2d-check: --warmup-epochs: invalid number 'x'|
--report nope|h2d-check: --report: invalid choice 'nope' (choose from 'items', 'run')|
--report items --calibrate|h2d-check: --calibrate writes run-report rows: it needs --report run|
extra|h2d-check: unexpected argument 'extra'|hint
--bogus|h2d-check: unrecognized option '--bogus'|hint
--inflight|h2d-check: option '--inflight' requires an argument|hint
TABLE
}

@test "h2d-check without a GPU exits 69 and leaves stdin unread" {
  printf 'arena,backend\nleft,for-the-next-reader\n' > "$TMP/input"
  run env CUDA_VISIBLE_DEVICES=-1 bash -c 'h2d-check --report run 2>&1; echo "status $?"; cat' < "$TMP/input"
  assert_status 0
  assert_output "$(no_gpu_message)
status 69
arena,backend
left,for-the-next-reader"
}

@test "h2d-check --copy-path without a GPU: every path exits 69 and leaves stdin unread" {
  printf 'arena,backend\nleft,for-the-next-reader\n' > "$TMP/input"
  for path in auto engine batch sm; do
    run env CUDA_VISIBLE_DEVICES=-1 bash -c "h2d-check --copy-path $path --copy-sms 4 2>&1; echo \"status \$?\"; cat" < "$TMP/input"
    assert_status 0
    assert_output "$(no_gpu_message)
status 69
arena,backend
left,for-the-next-reader" || { echo "path $path" >&2; return 1; }
  done
}

@test "h2d-check --help documents --copy-path and --copy-sms" {
  run h2d-check --help
  assert_status 0
  [ "$(printf '%s\n' "$output" | grep -c -e '^  --copy-path P ' -e '^  --copy-sms N ')" -eq 2 ]
}

@test "h2d-check takes a malformed LOCAL_RANK as a usage error (CUDA build)" {
  if [ "${ARENABENCH_HAVE_CUDA:-no}" != yes ]; then
    run env LOCAL_RANK=x h2d-check < /dev/null
    assert_status 69
    assert_output 'h2d-check: built without CUDA support'
    return
  fi
  run env LOCAL_RANK=x h2d-check < /dev/null
  assert_status 64
  assert_output "h2d-check: LOCAL_RANK: invalid number 'x'"
}

# ---- on a GPU ---------------------------------------------------------------

@test "h2d-check: every backend's pinned and pageable arms pass, with exact receipt columns" {
  require_gpu
  for backend in $(backends); do
    for pin in 0 1; do
      flag=; [ "$pin" = 1 ] && flag=--pin
      run bash -c "set -o pipefail; arena-produce --backend $backend $flag --size 1MiB \
                   --items 6 --epochs 2 --workers 2 --slots 3 | h2d-check --warmup-epochs 1"
      assert_status 0 || { echo "$backend pin=$pin" >&2; return 1; }
      [ "${lines[0]}" = "$ITEMS_HEADER" ]
      [ "${#lines[@]}" -eq 13 ]      # 2 workers x 6 items of the measured epoch
      arm=$backend-$([ "$pin" = 1 ] && echo pinned || echo pageable)
      [ "$(printf '%s\n' "$output" | column arm | sort -u)" = "$arm" ]
      [ "$(printf '%s\n' "$output" | column epoch | sort -u)" = 1 ]
      [ "$(printf '%s\n' "$output" | column mismatches | sort -u)" = 0 ]
      [ "$(printf '%s\n' "$output" | column pinned | sort -u)" = "$pin" ]
      [ "$(printf '%s\n' "$output" | column sequence | sort -n | tr '\n' ' ')" = \
        '12 13 14 15 16 17 18 19 20 21 22 23 ' ]
      for c in h2d_ns verify_ns host_wall_ns; do
        [ "$(printf '%s\n' "$output" | column $c | awk '$1 <= 0' | wc -l)" -eq 0 ]
      done
      assert_no_arena_left
    done
  done
}

@test "h2d-check checks every dtype and kind, odd sizes, any --inflight and --copy-streams" {
  require_gpu
  while read -r dtype kind size inflight streams; do
    run bash -c "set -o pipefail; arena-produce --dtype $dtype --kind $kind --size $size \
                 --items 5 --pin | h2d-check --inflight $inflight --copy-streams $streams --report run"
    assert_status 0 || { echo "$dtype $kind $size $inflight $streams" >&2; return 1; }
    [ "$(printf '%s\n' "$output" | column mismatches)" = 0 ]
    [ "$(printf '%s\n' "$output" | column items)" = 5 ]
    [ "$(printf '%s\n' "$output" | column inflight)" = "$inflight" ]
  done <<'TABLE'
fp32 tensor 8MiB 2 2
fp16 tensor 1000003 1 1
uint8 tensor 77 3 1
fp32 nested 1000001 2 4
fp16 nested 65536 8 3
uint8 nested 1 2 2
TABLE
  assert_no_arena_left
}

@test "h2d-check's window ends at the last check, not when its input ends" {
  require_gpu
  # The rows all come at once; the pipe stays open 3 s longer.
  run bash -c "set -o pipefail; { arena-produce --items 4 --pin; sleep 3; } \
               | h2d-check --report run"
  assert_status 0
  [ "$(printf '%s\n' "$output" | column items)" = 4 ]
  awk -v s="$(printf '%s\n' "$output" | column seconds)" 'BEGIN { exit !(s > 0 && s < 2) }'
  assert_no_arena_left
}

# Start a producer of ITEMS items (no more than its slots, so it writes
# every row at once) into $TMP/rows.csv in the background and wait for
# all its rows; sets PRODUCER.  It exits once a consumer releases them.
produce_in_background() {
  local items=$1 want=$(($1 + 1))
  shift
  : > "$TMP/rows.csv"   # emptied first: the background redirection truncates it only once it runs
  arena-produce --items "$items" "$@" --timeout 60 > "$TMP/rows.csv" &
  PRODUCER=$!
  for _ in $(seq 200); do
    [ "$(wc -l < "$TMP/rows.csv")" -ge "$want" ] && return 0
    sleep 0.05
  done
  echo "arena-produce wrote no rows" >&2
  return 1
}

# Overwrite element INDEX of the first item's first leaf with 1.5 (fp32).
corrupt_first_item() {
  local index=$1 arena offset
  arena=$(column arena < "$TMP/rows.csv" | head -n 1)
  offset=$(column offset < "$TMP/rows.csv" | head -n 1)
  printf '\000\000\300\077' | dd of="/dev/shm$arena" bs=1 seek=$((offset + 4 * index)) \
    conv=notrunc status=none
}

@test "h2d-check catches a corrupted payload on the GPU: exit 1 and the message" {
  require_gpu
  for pin in '' --pin; do
    produce_in_background 2 --size 64KiB $pin
    corrupt_first_item 1000
    run bash -c 'h2d-check 2>&1 >/dev/null' < "$TMP/rows.csv"
    wait "$PRODUCER"   # exits 0: every item was released
    assert_status 1
    # Element 1000 of sequence 0, leaf 0 holds 1000 % 251 = 247.
    assert_output 'h2d-check: line 2: sequence 0 leaf 0 index 1000: expected 247 (0x43770000), found 1.5 (0x3fc00000) (1 mismatched element in the item)'
  done
  assert_no_arena_left
}

@test "h2d-check --staged, every backend: BACKEND-staged arms, pageable arenas, staging buffers in pinned_bytes" {
  require_gpu
  for backend in $(backends); do
    for threads in 1 3; do
      run bash -c "set -o pipefail; arena-produce --backend $backend --pin --size 1MiB \
                   --items 6 --epochs 2 --workers 2 --slots 3 \
                   | h2d-check --staging-threads $threads --warmup-epochs 1 --report run"
      assert_status 0 || { echo "$backend $threads" >&2; return 1; }
      [ "${lines[0]}" = "$RUN_HEADER" ]
      [ "$(printf '%s\n' "$output" | column arm)" = "$backend-staged" ]
      [ "$(printf '%s\n' "$output" | column pinned)" = 0 ]
      [ "$(printf '%s\n' "$output" | column staging_threads)" = "$threads" ]
      [ "$(printf '%s\n' "$output" | column items)" = 12 ]
      [ "$(printf '%s\n' "$output" | column mismatches)" = 0 ]
      [ "$(printf '%s\n' "$output" | column register_ms)" = '' ]
      # Four device buffers (--inflight's default), each with a 4 MiB
      # staging buffer: the arenas themselves are not page-locked.
      [ "$(printf '%s\n' "$output" | column pinned_bytes)" = 16777216 ]
    done
  done
  run bash -c "set -o pipefail; arena-produce --size 64KiB --items 3 | h2d-check --staged"
  assert_status 0
  [ "$(printf '%s\n' "$output" | column arm | sort -u)" = pool-staged ]
  [ "$(printf '%s\n' "$output" | column pinned | sort -u)" = 0 ]
  run bash -c "set -o pipefail; arena-produce --size 64KiB --items 3 --pin | h2d-check --report run"
  assert_status 0
  [ "$(printf '%s\n' "$output" | column staging_threads)" = 0 ]
  assert_no_arena_left
}

@test "h2d-check batches small items and still names a corrupted one exactly, direct and staged" {
  require_gpu
  for mode in '' --pin --staged; do
    consumer=h2d-check; flag=$mode
    [ "$mode" = --staged ] && { consumer='h2d-check --staged'; flag=; }
    # 40 items of 4 KiB in 64 slots: every row is written before the
    # consumer starts, so they arrive together and travel in batches.
    produce_in_background 40 --size 4KiB --slots 64 $flag
    arena=$(column arena < "$TMP/rows.csv" | head -n 1)
    offset=$(column offset < "$TMP/rows.csv" | sed -n 18p)
    printf '\000\000\300\077' | dd of="/dev/shm$arena" bs=1 seek=$((offset + 4 * 5)) \
      conv=notrunc status=none
    run bash -c "$consumer 2>&1 >/dev/null" < "$TMP/rows.csv"
    wait "$PRODUCER"
    assert_status 1 || { echo "mode $mode" >&2; return 1; }
    # Sequence 17's leaf 0 is shifted by 17 * 17 % 251 = 38: element 5 is 43.
    assert_output 'h2d-check: line 19: sequence 17 leaf 0 index 5: expected 43 (0x422c0000), found 1.5 (0x3fc00000) (1 mismatched element in the item)'
  done
  assert_no_arena_left
}

@test "h2d-check prints a mismatch's values exactly: a flipped low bit, fp16, uint8, a ragged tail" {
  require_gpu
  check_corruptions h2d-check
  check_corruptions 'h2d-check --inflight 1'
  assert_no_arena_left
}

@test "h2d-check checks the padding between leaves on the GPU: a nonzero byte is named" {
  require_gpu
  check_padding_corruptions h2d-check
  check_padding_corruptions 'h2d-check --inflight 1'
  check_padding_corruptions 'h2d-check --staged'
  assert_no_arena_left
}

@test "h2d-check refuses rows that lie about size_bytes, dtype, kind or leaves: 65" {
  require_gpu
  check_forged_rows h2d-check pool
  check_forged_rows h2d-check ring
  assert_no_arena_left
}

@test "h2d-check --no-verify copies without checking, so corruption passes" {
  require_gpu
  produce_in_background 2 --size 64KiB
  corrupt_first_item 7
  run h2d-check --no-verify < "$TMP/rows.csv"
  wait "$PRODUCER"
  assert_status 0
  [ "$(printf '%s\n' "$output" | column verify_ns | sort -u)" = '' ]
  [ "$(printf '%s\n' "$output" | column mismatches | sort -u)" = '' ]
  assert_no_arena_left
}

@test "h2d-check registers pinned arenas, times it apart, and leaves /dev/shm clean" {
  require_gpu
  run bash -c 'set -o pipefail; arena-produce --pin --workers 3 --size 4MiB --items 4 \
               | h2d-check --report run'
  assert_status 0
  [ "${lines[0]}" = "$RUN_HEADER" ]
  register_ms=$(printf '%s\n' "$output" | column register_ms)
  awk -v v="$register_ms" 'BEGIN { exit !(v > 0) }'
  run bash -c 'set -o pipefail; arena-produce --size 4MiB --items 4 | h2d-check --report run'
  assert_status 0
  [ "$(printf '%s\n' "$output" | column register_ms)" = '' ]
  assert_no_arena_left
}

@test "h2d-check --calibrate adds its raw rows and the ceiling row under the run report's header" {
  require_gpu
  run bash -c 'set -o pipefail; arena-produce --pin --size 8MiB --items 8 --epochs 2 \
               | h2d-check --warmup-epochs 1 --calibrate'
  assert_status 0
  [ "${lines[0]}" = "$RUN_HEADER" ]
  [ "${#lines[@]}" -eq 8 ]
  [ "$(printf '%s\n' "$output" | column arm | tr '\n' ' ')" = \
    'pool-pinned raw-pinned raw-pageable raw-pageable-shm raw-registered-shm ceiling ceiling-registered-shm ' ]
  [ "$(printf '%s\n' "$output" | column pinned | tr '\n' ' ')" = '1 1 0 0 1 1 1 ' ]
  [ "$(printf '%s\n' "$output" | column size_bytes | sort -u)" = 8388608 ]
  # Every row as wide as the header; every rate positive.
  [ "$(printf '%s\n' "$output" | awk -F, '{ print NF }' | sort -u | wc -l)" -eq 1 ]
  [ "$(printf '%s\n' "$output" | column gb_per_s | awk '!($1 > 0)' | wc -l)" -eq 0 ]
  [ "$(printf '%s\n' "$output" | column items | head -n 5 | tr '\n' ' ')" = '8 31 31 31 31 ' ]
}

@test "h2d-check on a GPU: empty input is 66, a device it lacks is 69" {
  require_gpu
  run h2d-check < /dev/null
  assert_status 66
  assert_output 'h2d-check: stdin: no handle rows (empty input)'
  count=$(nvidia-smi -L | grep -c '^GPU')
  run h2d-check --device "$count" < /dev/null
  assert_status 69
  assert_output "h2d-check: CUDA device $count does not exist ($count available)"
}

@test "h2d-check(1) examples run" {
  require_gpu
  run bash -c 'arena-produce --backend ring --pin --size 8MiB --items 64 --epochs 2 \
               | h2d-check --warmup-epochs 1 --report run'
  assert_status 0
  [ "$(printf '%s\n' "$output" | column items)" = 64 ]
  run bash -c 'arena-produce --workers 4 --pin --size 8MiB --items 64 --epochs 2 \
               | h2d-check --warmup-epochs 1 --inflight 4 --calibrate'
  assert_status 0
  [ "$(printf '%s\n' "$output" | column arm | tr '\n' ' ')" = \
    'pool-pinned raw-pinned raw-pageable raw-pageable-shm raw-registered-shm ceiling ceiling-registered-shm ' ]
  run bash -c 'arena-produce --workers 4 --pin --size 8MiB --items 64 --epochs 2 \
               | h2d-check --warmup-epochs 1 --report run --trace "$1"' _ "$TMP/run.json"
  assert_status 0
  [ "$(printf '%s\n' "$output" | column items)" = 256 ]
  python3 -c 'import json, sys; e = json.load(open(sys.argv[1]))["traceEvents"]; sys.exit(sum(x["name"] == "copy" for x in e) != 512)' "$TMP/run.json"
  run bash -c 'arena-produce --workers 4 --pin --size 64KiB --items 2000 --epochs 2 \
               | h2d-check --warmup-epochs 1 --copy-path auto --report run 2> /dev/null'
  assert_status 0
  [ "$(printf '%s\n' "$output" | columns items mismatches copy_path_auto | tail -n 1)" = '8000,0,yes' ]
  run bash -c 'arena-produce --size 1MiB --items 3 | h2d-check'
  assert_status 0
  [ "${#lines[@]}" -eq 4 ]
  assert_no_arena_left
}

@test "h2d-check run report: pinned_bytes and shm_bytes equal the registered mapping" {
  require_gpu
  run bash -c 'set -o pipefail; arena-produce --pin --size 8MiB --items 8 \
               | h2d-check --report run --require-pin'
  assert_status 0
  [ "$(printf '%s\n' "$output" | column pinned_bytes)" -eq "$MAPPING" ]
  [ "$(printf '%s\n' "$output" | column shm_bytes)" -eq "$MAPPING" ]
  [ "$(printf '%s\n' "$output" | column pinned)" = 1 ]
  [ "$(printf '%s\n' "$output" | column arm)" = pool-pinned ]
  run bash -c 'set -o pipefail; arena-produce --size 8MiB --items 8 | h2d-check --report run'
  assert_status 0
  [ "$(printf '%s\n' "$output" | column pinned_bytes)" = 0 ]
  assert_no_arena_left
}

@test "h2d-check as nobody with 8 MiB RLIMIT_MEMLOCK: receipts say what cudaHostRegister achieved" {
  require_gpu
  unprivileged 'arena-produce --pin --size 8MiB --items 4 | h2d-check --report run 2>&1'
  assert_status 0
  if [[ "${lines[0]}" == h2d-check:* ]]; then
    # Refused: one message naming the limit, and a pageable run.
    [[ "${lines[0]}" =~ ^h2d-check:\ arena\ \'/arenabench\.[0-9]+\.[0-9a-f]+\':\ cannot\ page-lock\ $MAPPING\ bytes:\ cudaHostRegister:\ .*\ \(RLIMIT_MEMLOCK\ is\ 8388608\ bytes\;\ raise\ it\ with\ \'ulimit\ -l\'\)\;\ reading\ it\ pageable$ ]]
    report=$(printf '%s\n' "${lines[@]:1}")
    [ "$(printf '%s\n' "$report" | column pinned_bytes)" = 0 ]
    [ "$(printf '%s\n' "$report" | column arm)" = pool-pageable ]
  else
    # The driver locked it regardless of the limit: then it says so.
    [ "$(printf '%s\n' "$output" | column pinned_bytes)" -eq "$MAPPING" ]
    [ "$(printf '%s\n' "$output" | column arm)" = pool-pinned ]
  fi
}

# ---- copy paths (on a GPU) --------------------------------------------------

# The batch and sm paths read page-locked arenas: where the driver may
# refuse to lock them (RLIMIT_MEMLOCK, not root), the test cannot run.
require_page_locking() {
  require_gpu
  [ "$(id -u)" = 0 ] || [ "$(ulimit -l)" = unlimited ] \
    || skip "the batch and sm paths read page-locked arenas: RLIMIT_MEMLOCK is $(ulimit -l) KiB here"
}

@test "h2d-check --copy-path: every path delivers every item checked, and the report says which ran" {
  require_page_locking
  while read -r path backend dtype kind size items; do
    run bash -c "set -o pipefail; arena-produce --backend $backend --pin --dtype $dtype --kind $kind \
                 --size $size --items $items --workers 2 --slots 8 \
                 | h2d-check --copy-path $path --report run --require-pin"
    assert_status 0 || { echo "$path $backend $dtype $kind $size" >&2; return 1; }
    [ "$(printf '%s\n' "$output" | column items)" = $((2 * items)) ]
    [ "$(printf '%s\n' "$output" | column mismatches)" = 0 ]
    [ "$(printf '%s\n' "$output" | column copy_path)" = "$path" ]
    [ "$(printf '%s\n' "$output" | column copy_path_auto)" = no ]
    sms=0; [ "$path" = sm ] && sms=8
    [ "$(printf '%s\n' "$output" | column copy_sms)" = "$sms" ]
    [ "$(printf '%s\n' "$output" | columns auto_engine_gb_per_s auto_batch_gb_per_s auto_sm_gb_per_s | tail -n 1)" = ',,' ]
  done <<'TABLE'
engine pool fp32 tensor 4KiB 40
batch pool fp32 tensor 4KiB 40
sm pool fp32 tensor 4KiB 40
batch ring fp16 nested 65537 9
sm ring fp16 nested 65537 9
sm pool uint8 tensor 1000001 5
batch pool fp32 tensor 8MiB 3
sm pool fp32 tensor 8MiB 3
sm ring uint8 nested 1 7
TABLE
  assert_no_arena_left
}

@test "h2d-check --copy-sms sets the sm path's blocks, and is refused beyond the device's SMs" {
  require_page_locking
  run bash -c "set -o pipefail; arena-produce --pin --size 64KiB --items 6 \
               | h2d-check --copy-path sm --copy-sms 1 --report run"
  assert_status 0
  [ "$(printf '%s\n' "$output" | column copy_sms)" = 1 ]
  [ "$(printf '%s\n' "$output" | column mismatches)" = 0 ]
  run bash -c 'h2d-check --copy-path sm --copy-sms 1024 < /dev/null 2>&1'
  assert_status 64
  [[ "$output" =~ ^h2d-check:\ --copy-sms:\ \'1024\'\ exceeds\ the\ device\'s\ [0-9]+\ SMs$ ]]
}

@test "h2d-check --copy-path auto: times the paths at the first row, runs the fastest, says so" {
  require_page_locking
  : > "$TMP/err"
  run bash -c "set -o pipefail; arena-produce --pin --size 64KiB --items 20 --workers 2 \
               | h2d-check --copy-path auto --report run 2> \"\$1\"" _ "$TMP/err"
  assert_status 0
  [ "$(printf '%s\n' "$output" | column mismatches)" = 0 ]
  [ "$(printf '%s\n' "$output" | column copy_path_auto)" = yes ]
  chose=$(printf '%s\n' "$output" | column copy_path)
  rates=$(printf '%s\n' "$output" | columns auto_engine_gb_per_s auto_batch_gb_per_s auto_sm_gb_per_s | tail -n 1)
  # The engine and the sm path are always timed; the path that ran is
  # the first whose median is within 2% of the fastest (batch: where the
  # runtime has it).
  awk -F, -v chose="$chose" 'BEGIN { split("engine batch sm", n, " ") }
    { max = 0; for (i = 1; i <= 3; i++) if ($i != "" && $i + 0 > max) max = $i + 0
      for (i = 1; i <= 3; i++) if ($i != "" && $i * 1.02 >= max) break
      exit !($1 > 0 && $3 > 0 && n[i] == chose) }' <<< "$rates"
  # One line on stderr: what it measured, the same rates, and the choice.
  [ "$(wc -l < "$TMP/err")" -eq 1 ]
  grep -E '^h2d-check: --copy-path auto: 65536-byte items, median of 5 rounds of 20 ms: engine [0-9.]+, batch ([0-9.]+|-), sm [0-9.]+ GB/s: chose (engine|batch|sm)$' "$TMP/err"
  [ "$(sed 's/.*: chose //' "$TMP/err")" = "$chose" ]
  # Items too large to gain from it go by the engine, untimed, unsaid.
  : > "$TMP/err"
  run bash -c "set -o pipefail; arena-produce --pin --size 32MiB --items 2 \
               | h2d-check --copy-path auto --report run 2> \"\$1\"" _ "$TMP/err"
  assert_status 0
  [ "$(printf '%s\n' "$output" | columns copy_path copy_path_auto auto_sm_gb_per_s | tail -n 1)" = 'engine,yes,' ]
  [ ! -s "$TMP/err" ]
  assert_no_arena_left
}

@test "h2d-check --copy-path auto: ARENABENCH_AUTO_RATES forces the rates it decides on" {
  require_page_locking
  while read -r kind rates want line; do
    pin=; [ "$kind" = pinned ] && pin=--pin
    : > "$TMP/err"
    run bash -c "set -o pipefail; arena-produce $pin --size 64KiB --items 6 \
                 | ARENABENCH_AUTO_RATES=$rates h2d-check --copy-path auto --report run 2> \"\$1\"" _ "$TMP/err"
    assert_status 0
    [ "$(printf '%s\n' "$output" | columns copy_path copy_path_auto mismatches | tail -n 1)" = "$want,yes,0" ]
    [ "$(cat "$TMP/err")" = "h2d-check: --copy-path auto: 65536-byte items, rates given: ${line//_/ }: chose $want" ] \
      || { echo "$kind $rates: $(cat "$TMP/err")" >&2; return 1; }
  done <<'TABLE'
pinned 28.7,27,21.5 engine engine_28.70,_batch_27.00,_sm_21.50_GB/s
pinned 20,30,25 batch engine_20.00,_batch_30.00,_sm_25.00_GB/s
pinned 30,30.5,30.61 batch engine_30.00,_batch_30.50,_sm_30.61_GB/s
pinned 20,,25 sm engine_20.00,_batch_-,_sm_25.00_GB/s
pageable 10,50,60 engine engine_10.00,_batch_50.00,_sm_60.00_GB/s
TABLE
  produce_in_background 2 --size 4KiB --pin
  run bash -c 'ARENABENCH_AUTO_RATES=1,x,3 h2d-check --copy-path auto 2>&1 > /dev/null' < "$TMP/rows.csv"
  assert_status 64
  assert_output "h2d-check: ARENABENCH_AUTO_RATES: '1,x,3' is not 3 rates in GB/s (engine,batch,sm)"
  kill "$PRODUCER" 2> /dev/null || :; wait "$PRODUCER" || :
  assert_no_arena_left
}

@test "h2d-check: ARENABENCH_COPY_ORDER proves each check began after its copy ended" {
  require_page_locking
  for order in event sync; do
    for path in engine batch; do
      : > "$TMP/err"
      run bash -c "set -o pipefail; arena-produce --pin --size 64KiB --items 40 --workers 2 \
                   | ARENABENCH_COPY_ORDER=$order h2d-check --copy-path $path --report run 2> \"\$1\"" _ "$TMP/err"
      assert_status 0
      [ "$(printf '%s\n' "$output" | columns copy_path mismatches | tail -n 1)" = "$path,0" ]
      grep -E "^h2d-check: ARENABENCH_COPY_ORDER=$order: [1-9][0-9]* batches checked after a copy, 0 of them began their check before the copy ended \(least copy end to check start: [0-9.]+ us\)\$" "$TMP/err" \
        || { echo "$order $path: $(cat "$TMP/err")" >&2; return 1; }
    done
  done
  run bash -c 'ARENABENCH_COPY_ORDER=later h2d-check 2>&1 > /dev/null' < /dev/null
  assert_status 64
  assert_output "h2d-check: ARENABENCH_COPY_ORDER: 'later' is not event, sync or none"
  assert_no_arena_left
}

@test "h2d-check --copy-path sm refuses a pageable arena (64); auto takes it by the engine" {
  require_gpu
  produce_in_background 2 --size 64KiB
  run bash -c 'h2d-check --copy-path sm 2>&1 > /dev/null' < "$TMP/rows.csv"
  assert_status 64
  arena=$(column arena < "$TMP/rows.csv" | head -n 1)
  assert_output "h2d-check: --copy-path sm: line 2: arena '$arena' is not page-locked (produce it with --pin, or use --copy-path auto)"
  kill "$PRODUCER" 2> /dev/null || :; wait "$PRODUCER" || :
  run bash -c "set -o pipefail; arena-produce --size 64KiB --items 6 | h2d-check --copy-path auto --report run 2> /dev/null"
  assert_status 0
  [ "$(printf '%s\n' "$output" | columns arm copy_path copy_path_auto mismatches | tail -n 1)" = 'pool-pageable,engine,yes,0' ]
  run bash -c "set -o pipefail; arena-produce --size 64KiB --items 6 | h2d-check --copy-path batch --report run"
  assert_status 0
  # A pageable arena's batches go by the engine, and the report says so.
  [ "$(printf '%s\n' "$output" | columns copy_path mismatches | tail -n 1)" = 'engine,0' ]
  assert_no_arena_left
}

@test "h2d-check --copy-path sm and batch catch a corrupted item and name it exactly, alone and batched" {
  require_page_locking
  for path in sm batch; do
    produce_in_background 2 --size 64KiB --pin
    corrupt_first_item 1000
    run bash -c "h2d-check --copy-path $path 2>&1 >/dev/null" < "$TMP/rows.csv"
    wait "$PRODUCER"
    assert_status 1 || { echo "path $path" >&2; return 1; }
    assert_output 'h2d-check: line 2: sequence 0 leaf 0 index 1000: expected 247 (0x43770000), found 1.5 (0x3fc00000) (1 mismatched element in the item)'
    # 40 items of 4 KiB arriving together travel in batches.
    produce_in_background 40 --size 4KiB --slots 64 --pin
    arena=$(column arena < "$TMP/rows.csv" | head -n 1)
    offset=$(column offset < "$TMP/rows.csv" | sed -n 18p)
    printf '\000\000\300\077' | dd of="/dev/shm$arena" bs=1 seek=$((offset + 4 * 5)) \
      conv=notrunc status=none
    run bash -c "h2d-check --copy-path $path 2>&1 >/dev/null" < "$TMP/rows.csv"
    wait "$PRODUCER"
    assert_status 1 || { echo "path $path, batched" >&2; return 1; }
    assert_output 'h2d-check: line 19: sequence 17 leaf 0 index 5: expected 43 (0x422c0000), found 1.5 (0x3fc00000) (1 mismatched element in the item)'
  done
  assert_no_arena_left
}

@test "h2d-check --copy-path sm checks as it copies: flipped low bits in every dtype, a ragged tail, padding" {
  require_page_locking
  check_corruptions 'h2d-check --copy-path sm' --pin
  check_corruptions 'h2d-check --copy-path sm --copy-sms 1 --inflight 1' --pin
  check_padding_corruptions 'h2d-check --copy-path sm' --pin
  assert_no_arena_left
}

@test "h2d-check --copy-path sm --no-verify copies without checking, so corruption passes" {
  require_page_locking
  produce_in_background 2 --size 64KiB --pin
  corrupt_first_item 7
  run h2d-check --copy-path sm --no-verify < "$TMP/rows.csv"
  wait "$PRODUCER"
  assert_status 0
  [ "$(printf '%s\n' "$output" | column mismatches | sort -u)" = '' ]
  assert_no_arena_left
}

# ---- contrib/gpu-sanitize ---------------------------------------------------

# A copy of gpu-sanitize beside fakes of the commands it runs: a GPU that
# h2d-check reports (66 on no input), a compute-sanitizer whose initcheck
# flags every batch-path run, as the real one was seen to.
fake_sanitize_tree() {
  mkdir -p "$TMP/fake"
  cp "$top_srcdir/contrib/gpu-sanitize" "$TMP/fake/"
  cat > "$TMP/fake/arena-produce" <<'FAKE'
#!/bin/sh
case "$*" in *--version*) echo "arena-produce (arenabench) 0" ;; esac
exit 0
FAKE
  cat > "$TMP/fake/h2d-check" <<'FAKE'
#!/bin/sh
case "$*" in *--copy-path*) ;; *) exit 66 ;; esac
cat > /dev/null
mismatches=0; [ "$ARENABENCH_COPY_ORDER" = none ] && mismatches=3
printf 'items,mismatches\n32,%s\n' "$mismatches"
echo "h2d-check: ARENABENCH_COPY_ORDER=$ARENABENCH_COPY_ORDER: 4 batches checked after a copy, 0 of them began their check before the copy ended (least copy end to check start: 2.0 us)" >&2
[ "$mismatches" = 0 ] || exit 1
FAKE
  cat > "$TMP/fake/compute-sanitizer" <<'FAKE'
#!/bin/bash
[ "$1" = --version ] && { echo "fake compute-sanitizer, Version 0"; exit 0; }
while [ $# -ge 2 ] && [ "${1#--}" != "$1" ]; do
  case $1 in --tool) tool=$2 ;; --log-file) log=$2 ;; esac
  shift 2
done
errors=0
case "$tool $*" in "initcheck "*"--copy-path batch"*) errors=524288 ;; esac
"$@"; rc=$?
echo "========= ERROR SUMMARY: $errors errors" > "$log"
[ "$errors" = 0 ] || exit 99
exit $rc
FAKE
  chmod +x "$TMP/fake/"*
}

@test "gpu-sanitize: every tool over every path, the batch path's initcheck per order, and what they show" {
  fake_sanitize_tree
  run env PATH="$TMP/fake:$PATH" "$TMP/fake/gpu-sanitize" --out "$TMP/out" --sanitizer "$TMP/fake/compute-sanitizer"
  assert_status 1
  run columns tool path order exit tool_errors items mismatches order_batches order_early < "$TMP/out/summary.csv"
  assert_status 0
  assert_output "tool,path,order,exit,tool_errors,items,mismatches,order_batches,order_early
memcheck,engine,event,0,0,32,0,4,0
memcheck,batch,event,0,0,32,0,4,0
memcheck,sm,event,0,0,32,0,4,0
racecheck,engine,event,0,0,32,0,4,0
racecheck,batch,event,0,0,32,0,4,0
racecheck,sm,event,0,0,32,0,4,0
synccheck,engine,event,0,0,32,0,4,0
synccheck,batch,event,0,0,32,0,4,0
synccheck,sm,event,0,0,32,0,4,0
initcheck,engine,event,0,0,32,0,4,0
initcheck,batch,event,99,524288,32,0,4,0
initcheck,sm,event,0,0,32,0,4,0
initcheck,batch,sync,99,524288,32,0,4,0"
  [ "$(tail -n 1 "$TMP/out/summary.txt")" = "# batch/initcheck: flagged even with sync, where the host waited for the copy before queueing the check, and no check began before its copy ended: the tool does not see cudaMemcpyBatchAsync's writes (a false report), as far as these runs show" ]
  [ -s "$TMP/out/initcheck-batch-sync.log" ]
  grep -q '^sanitizer: ' "$TMP/out/receipt.txt"
  # The negative control: its mismatches fail the run (exit 1 where the
  # tool found nothing, 99 where it reported errors).
  run env PATH="$TMP/fake:$PATH" "$TMP/fake/gpu-sanitize" --out "$TMP/none" --tools memcheck \
    --paths engine --orders none --sanitizer "$TMP/fake/compute-sanitizer"
  assert_status 1
  [ "$(columns tool path order exit mismatches < "$TMP/none/summary.csv" | tail -n 1)" = 'initcheck,batch,none,99,3' ]
}

@test "gpu-sanitize: bad options are 64, no sanitizer or no GPU 69" {
  run gpu-sanitize --tools memcheck,leakcheck --out "$TMP/o"
  assert_status 64
  assert_output "gpu-sanitize: --tools: 'leakcheck' is not memcheck, racecheck, synccheck or initcheck"
  run gpu-sanitize --orders event,later --out "$TMP/o"
  assert_status 64
  assert_output "gpu-sanitize: --orders: 'later' is not event, sync or none"
  run gpu-sanitize --tools memcheck
  assert_status 64
  assert_output "gpu-sanitize: --out DIR is required"
  run gpu-sanitize --out "$TMP/o" --sanitizer "$TMP/nowhere"
  assert_status 69
  assert_output "gpu-sanitize: no compute-sanitizer found (give --sanitizer PATH)"
  [ ! -e "$TMP/o" ]
}
