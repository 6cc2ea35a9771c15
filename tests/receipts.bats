#!/usr/bin/env bats
# Receipts: the memory columns of run reports checked against what the
# kernel says on known runs, and pinning reported as achieved.

load test-helper
load checks

@test "run report: shm_bytes equals the arena's size in /dev/shm as the kernel reports it" {
  produce_in_background 4 --size 8MiB --items 4 --timeout 30
  arena=$(awk -F, 'NR == 2 { print $1 }' "$TMP/rows.csv")
  # What the kernel says: the object's size and the blocks tmpfs holds.
  size=$(stat -c %s "/dev/shm$arena")
  held=$(( $(stat -c %b "/dev/shm$arena") * $(stat -c %B "/dev/shm$arena") ))
  run arena-consume --report run < "$TMP/rows.csv"
  wait "$PRODUCER"
  assert_status 0
  [ "$size" -eq "$MAPPING" ]
  shm=$(printf '%s\n' "$output" | column shm_bytes)
  [ "$shm" -eq "$held" ]
  [ $((shm - MAPPING)) -le 4096 ] && [ $((MAPPING - shm)) -le 4096 ]
}

@test "run report: PSS grows by about the mapping when the consumer touches every page" {
  run bash -c 'arena-produce --size 8MiB --items 8 | arena-consume --report run'
  assert_status 0
  before=$(printf '%s\n' "$output" | column pss_before_bytes)
  after=$(printf '%s\n' "$output" | column pss_after_bytes)
  peak=$(printf '%s\n' "$output" | column rss_peak_bytes)
  grown=$((after - before))
  # Pages the producer still maps count half (PSS shares them out), and
  # the consumer's share of its shared libraries falls as other processes
  # map them too (a loaded machine): half the mapping, less 1 MiB.
  [ "$grown" -ge $((MAPPING / 2 - 1048576)) ] || { echo "PSS grew $grown, mapping $MAPPING" >&2; return 1; }
  [ "$grown" -le $((MAPPING + 8 * 1048576)) ] || { echo "PSS grew $grown" >&2; return 1; }
  [ "$peak" -ge "$after" ] || [ "$peak" -ge $((MAPPING)) ]
}

@test "run report: --no-verify touches no page, and PSS says so" {
  run bash -c 'arena-produce --size 8MiB --items 8 | arena-consume --report run --no-verify'
  assert_status 0
  before=$(printf '%s\n' "$output" | column pss_before_bytes)
  after=$(printf '%s\n' "$output" | column pss_after_bytes)
  [ $((after - before)) -lt $((MAPPING / 4)) ] || { echo "PSS grew $((after - before))" >&2; return 1; }
}

@test "run report: /dev/shm available before and after, as statvfs says" {
  run bash -c 'arena-produce --size 8MiB --items 4 | arena-consume --report run'
  assert_status 0
  total=$(( $(stat -f -c %b /dev/shm) * $(stat -f -c %S /dev/shm) ))
  before=$(printf '%s\n' "$output" | column shm_avail_before_bytes)
  after=$(printf '%s\n' "$output" | column shm_avail_after_bytes)
  [ "$before" -le "$total" ]
  [ "$after" -le "$total" ]
  # At the end the arena still holds its pages: available is lower by it.
  [ "$after" -le $((total - MAPPING)) ]
}

@test "pinning succeeds: pinned_bytes is the mapping, receipts say pinned" {
  if [ "$(id -u)" -ne 0 ] && [ "$(ulimit -l)" != unlimited ]; then
    skip "mlock of 32 MiB may exceed RLIMIT_MEMLOCK ($(ulimit -l) KiB)"
  fi
  run bash -c 'arena-produce --pin --size 8MiB --items 4 | arena-consume --report run --require-pin'
  assert_status 0
  [ "$(printf '%s\n' "$output" | column pinned_bytes)" -eq "$MAPPING" ]
  [ "$(printf '%s\n' "$output" | column arm)" = pool-pinned ]
  [ "$(printf '%s\n' "$output" | column pinned)" = 1 ]
  run bash -c 'set -o pipefail; arena-produce --pin --size 8MiB --items 4 | arena-consume | columns arm backend pinned | sort -u'
  assert_status 0
  assert_output "arm,backend,pinned
pool-pinned,pool,1"
}

@test "pinned_bytes is what the kernel counts as locked (VmLck) while the consumer holds the arena" {
  ! asan_build || skip "AddressSanitizer's mlock locks nothing and always succeeds"
  if [ "$(id -u)" -ne 0 ] && [ "$(ulimit -l)" != unlimited ]; then
    skip "mlock of 32 MiB may exceed RLIMIT_MEMLOCK ($(ulimit -l) KiB)"
  fi
  # 8 items through 4 slots: after the first 4 rows the arena is not
  # finished, so the consumer holds it, locked, while we look.
  produce_in_background 4 --pin --size 8MiB --items 8 --timeout 30
  mkfifo "$TMP/fifo"
  arena-consume --report run < "$TMP/fifo" > "$TMP/report.csv" &
  consumer=$!
  exec 5> "$TMP/fifo"
  head -n 5 "$TMP/rows.csv" >&5
  locked=0
  for _ in $(seq 200); do
    locked=$(awk '/^VmLck:/ { print $2 * 1024 }' "/proc/$consumer/status")
    [ "$locked" -gt 0 ] && break
    sleep 0.05
  done
  wait_rows "$TMP/rows.csv" 9
  tail -n +6 "$TMP/rows.csv" >&5
  exec 5>&-
  wait "$consumer"
  wait "$PRODUCER"
  [ "$locked" -eq "$MAPPING" ]
  [ "$(column pinned_bytes < "$TMP/report.csv")" -eq "$locked" ]
}

@test "pinning refused (nobody, 8 MiB RLIMIT_MEMLOCK): pinned_bytes 0, pageable, the message names the limit" {
  ! asan_build || skip "AddressSanitizer's mlock locks nothing and always succeeds"
  unprivileged 'arena-produce --pin --size 8MiB --items 4 | arena-consume --report run'
  assert_status 0
  [ "${#lines[@]}" -eq 3 ]      # the message, the header, the row
  report=$(printf '%s\n' "${lines[@]:1}")
  [ "$(printf '%s\n' "$report" | column pinned_bytes)" = 0 ]
  [ "$(printf '%s\n' "$report" | column arm)" = pool-pageable ]
  [ "$(printf '%s\n' "$report" | column pinned)" = 0 ]
  [[ "${lines[0]}" =~ ^arena-consume:\ arena\ \'/arenabench\.[0-9]+\.[0-9a-f]+\':\ cannot\ page-lock\ $MAPPING\ bytes:\ mlock:\ Cannot\ allocate\ memory\ \(RLIMIT_MEMLOCK\ is\ 8388608\ bytes\;\ raise\ it\ with\ \'ulimit\ -l\'\)\;\ reading\ it\ pageable$ ]]
}

@test "pinning refused: per-item receipts say pinned=0 and the pageable arm" {
  ! asan_build || skip "AddressSanitizer's mlock locks nothing and always succeeds"
  unprivileged 'set -o pipefail; arena-produce --pin --size 8MiB --items 3 | arena-consume 2> /dev/null | columns arm backend pinned | sort -u'
  assert_status 0
  assert_output "arm,backend,pinned
pool-pageable,pool,0"
}

@test "pinning refused with --require-pin: exit 71 and the limit named" {
  ! asan_build || skip "AddressSanitizer's mlock locks nothing and always succeeds"
  unprivileged 'set -o pipefail; arena-produce --pin --size 8MiB --items 4 2> /dev/null | arena-consume --require-pin'
  assert_status 71
  [[ "$output" =~ ^arena-consume:\ arena\ \'/arenabench\.[0-9]+\.[0-9a-f]+\':\ cannot\ page-lock\ $MAPPING\ bytes:\ mlock:\ Cannot\ allocate\ memory\ \(RLIMIT_MEMLOCK\ is\ 8388608\ bytes\;\ raise\ it\ with\ \'ulimit\ -l\'\)$ ]]
}
