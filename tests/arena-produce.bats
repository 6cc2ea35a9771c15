#!/usr/bin/env bats
# arena-produce: handle rows, options, errors and cleanup.

load test-helper

setup() {
  common_setup
  PAGE=$(getconf PAGESIZE)
}

# What arena-produce writes: the columns every consumer needs, the two its
# --trace reads, and how the workers share the epoch (rows without it are
# static).
HEADER="$HANDLE_HEADER,fill_start_ns,row_ns,share"

# Run arena-produce ARGS into arena-consume, keeping the handle rows in
# $TMP/rows.csv and the receipts in $TMP/receipts.csv.
produce() {
  set -o pipefail
  arena-produce "$@" | tee "$TMP/rows.csv" | arena-consume > "$TMP/receipts.csv"
}

# The columns of the rows that do not depend on the run (not arena, gen_ns).
stable_columns() {
  columns backend slot offset bytes generation sequence worker epoch workers items size_bytes dtype kind leaves pinned slots < "$TMP/rows.csv" | tail -n +2
}

@test "the first line is the handle-row header" {
  run produce --size 4096 --items 1
  assert_status 0
  run head -n 1 "$TMP/rows.csv"
  assert_status 0
  assert_output "$HEADER"
}

@test "pool rows: slots in turn, one page apart, generations from 1" {
  [ "$PAGE" -eq 4096 ] || skip "offsets below assume 4 KiB pages"
  run produce --size 4096 --items 6 --slots 4
  assert_status 0
  run stable_columns
  assert_status 0
  assert_output "pool,0,4096,4096,1,0,0,0,1,6,4096,fp32,tensor,0:1024,0,4
pool,1,8192,4096,2,1,0,0,1,6,4096,fp32,tensor,0:1024,0,4
pool,2,12288,4096,3,2,0,0,1,6,4096,fp32,tensor,0:1024,0,4
pool,3,16384,4096,4,3,0,0,1,6,4096,fp32,tensor,0:1024,0,4
pool,0,4096,4096,5,4,0,0,1,6,4096,fp32,tensor,0:1024,0,4
pool,1,8192,4096,6,5,0,0,1,6,4096,fp32,tensor,0:1024,0,4"
}

@test "ring rows: 64-byte record headers, empty slot, the ring wraps" {
  [ "$PAGE" -eq 4096 ] || skip "offsets below assume 4 KiB pages"
  # Records of 64 + 4096 bytes in a 20480-byte ring: the fifth does not fit
  # the tail and starts over at the beginning.
  run produce --backend ring --size 4096 --items 6 --slots 4
  assert_status 0
  run stable_columns
  assert_status 0
  assert_output "ring,,4160,4096,1,0,0,0,1,6,4096,fp32,tensor,0:1024,0,4
ring,,8320,4096,2,1,0,0,1,6,4096,fp32,tensor,0:1024,0,4
ring,,12480,4096,3,2,0,0,1,6,4096,fp32,tensor,0:1024,0,4
ring,,16640,4096,4,3,0,0,1,6,4096,fp32,tensor,0:1024,0,4
ring,,4160,4096,5,4,0,0,1,6,4096,fp32,tensor,0:1024,0,4
ring,,8320,4096,6,5,0,0,1,6,4096,fp32,tensor,0:1024,0,4"
}

@test "arena names are /arenabench.PID. and 24 hex digits; gen_ns is a count" {
  run produce --size 64 --items 3
  assert_status 0
  run bash -c "column arena < '$TMP/rows.csv' | sort -u | grep -cE '^/arenabench\.[0-9]+\.[0-9a-f]{24}\$'"
  assert_status 0
  assert_output 1
  run bash -c "column gen_ns < '$TMP/rows.csv' | grep -cE '^[0-9]+\$'"
  assert_status 0
  assert_output 3
}

@test "workers and epochs: sequence = (epoch*W + worker)*items + index, one arena per worker" {
  run produce --size 256 --items 2 --epochs 2 --workers 2 --share static
  assert_status 0
  run bash -c "columns sequence worker epoch workers items < '$TMP/rows.csv' | tail -n +2 | sort -t, -k1,1n"
  assert_status 0
  assert_output "0,0,0,2,2
1,0,0,2,2
2,1,0,2,2
3,1,0,2,2
4,0,1,2,2
5,0,1,2,2
6,1,1,2,2
7,1,1,2,2"
  # Each worker's arena carries generations 1..4 for its own rows only.
  run bash -c "tail -n +2 '$TMP/rows.csv' | awk -F, '{ print \$8, \$6, \$1 }' | sort -k1,1n -k2,2n | awk '{ n[\$3]++; print \$1, \$2 } END { print length(n) \" arenas\" }'"
  assert_status 0
  assert_output "0 1
0 2
0 3
0 4
1 1
1 2
1 3
1 4
2 arenas"
}

@test "dtype and kind set the leaves and bytes columns" {
  local spec dtype kind want
  while read -r dtype kind want; do
    run produce --size 1000 --items 1 --dtype "$dtype" --kind "$kind"
    assert_status 0
    run bash -c "columns bytes dtype kind leaves < '$TMP/rows.csv' | tail -n 1"
    assert_status 0
    assert_output "$want"
  done <<'EOF'
fp32 tensor 1000,fp32,tensor,0:250
fp16 tensor 1000,fp16,tensor,0:500
uint8 tensor 1000,uint8,tensor,0:1000
fp32 nested 1036,fp32,nested,0:125;512:125;1024:3
fp16 nested 1030,fp16,nested,0:250;512:250;1024:3
uint8 nested 1027,uint8,nested,0:500;512:500;1024:3
EOF
}

@test "sizes take K, KiB, KB, M, MiB suffixes" {
  local text bytes
  while read -r text bytes; do
    run produce --size "$text" --items 1 --dtype uint8
    assert_status 0
    run bash -c "column size_bytes < '$TMP/rows.csv' | tail -n 1"
    assert_status 0
    assert_output "$bytes"
  done <<'EOF'
4096 4096
64K 65536
1KiB 1024
2kb 2000
1M 1048576
1MiB 1048576
1MB 1000000
EOF
}

@test "--pin sets the pinned column" {
  run produce --size 4096 --items 2 --pin
  assert_status 0
  run bash -c "column pinned < '$TMP/rows.csv' | uniq"
  assert_status 0
  assert_output 1
}

@test "defaults: pool, 8MiB fp32 tensor, 64 items, 4 slots, 1 worker" {
  run produce
  assert_status 0
  run bash -c "columns backend workers items size_bytes dtype kind leaves pinned slots < '$TMP/rows.csv' | tail -n +2 | sort | uniq -c | sed 's/^ *//'"
  assert_status 0
  assert_output "64 pool,1,64,8388608,fp32,tensor,0:2097152,0,4"
}

@test "bad option values exit 64 with one line naming the option" {
  usage_errors arena-produce <<'EOF'
--dtype fp64|arena-produce: --dtype: invalid choice 'fp64' (choose from 'fp32', 'fp16', 'uint8')
--kind list|arena-produce: --kind: invalid choice 'list' (choose from 'tensor', 'nested')
--size 8XB|arena-produce: --size: invalid size '8XB' (use bytes or a suffix such as 64K, 8MiB, 1G)
--size -1|arena-produce: --size: invalid size '-1' (use bytes or a suffix such as 64K, 8MiB, 1G)
--size 1.5M|arena-produce: --size: invalid size '1.5M' (use bytes or a suffix such as 64K, 8MiB, 1G)
--size 99999999999999999999|arena-produce: --size: invalid size '99999999999999999999' (use bytes or a suffix such as 64K, 8MiB, 1G)
--size 0|arena-produce: --size: size '0' out of range [1, 1099511627776] bytes
--size 2T|arena-produce: --size: size '2T' out of range [1, 1099511627776] bytes
--items 0|arena-produce: --items: '0' out of range [1, 4294967295]
--items 4294967296|arena-produce: --items: '4294967296' out of range [1, 4294967295]
--items ten|arena-produce: --items: invalid number 'ten'
--items 1e3|arena-produce: --items: invalid number '1e3'
--epochs 0|arena-produce: --epochs: '0' out of range [1, 1000000]
--workers 0|arena-produce: --workers: '0' out of range [1, 1024]
--workers 1025|arena-produce: --workers: '1025' out of range [1, 1024]
--slots 0|arena-produce: --slots: '0' out of range [1, 65536]
--slots 65537|arena-produce: --slots: '65537' out of range [1, 65536]
--timeout 0|arena-produce: --timeout: '0' out of range [0.001, 1e+06]
--timeout soon|arena-produce: --timeout: invalid number 'soon'
--timeout nan|arena-produce: --timeout: invalid number 'nan'
EOF
}

@test "usage errors print the getopt message and the --help hint" {
  local args first
  while IFS='|' read -r args first; do
    run bash -c "arena-produce $args"
    assert_status 64
    assert_output "$first
Try 'arena-produce --help' for more information."
  done <<'EOF'
--size|arena-produce: option '--size' requires an argument
--pin=yes|arena-produce: option '--pin' doesn't allow an argument
--bogus|arena-produce: unrecognized option '--bogus'
stray|arena-produce: unexpected argument 'stray'
EOF
}

@test "an arena that /dev/shm cannot hold fails at creation with exit 71" {
  ! valgrind_build || skip "valgrind maps no more than its address space: a 1 TiB arena fails with EINVAL, not ENOSPC"
  [ "$PAGE" -eq 4096 ] || skip "the byte count below assumes 4 KiB pages"
  run arena-produce --size 1T --slots 1
  assert_status 71
  assert_output "arena-produce: cannot create a pool arena of 1099511631872 bytes in /dev/shm: No space left on device"
}

@test "a consumer that never reads: exit 75 after --timeout, waiting for space" {
  run bash -c "arena-produce --size 4096 --items 3 --slots 1 --timeout 0.3 > '$TMP/rows.csv'"
  assert_status 75
  [[ "$output" =~ ^arena-produce:\ worker\ 0:\ waiting\ for\ space:\ no\ consumer\ attached\ to\ arena\ \'/arenabench\.[0-9]+\.[0-9a-f]{24}\'\ in\ 0\.3\ s,\ 1\ rows\ written:\ the\ rows\ are\ not\ reaching\ a\ consumer\ \(a\ filter\ in\ the\ pipe\ holds\ them,\ or\ nobody\ reads\ them\)$ ]]
  # The rows it did publish were written before it gave up.
  run wc -l < "$TMP/rows.csv"
  assert_status 0
  assert_output 2
}

@test "a consumer that never releases: exit 75 after --timeout at the end" {
  run bash -c "arena-produce --size 4096 --items 2 --slots 4 --timeout 0.2 > '$TMP/rows.csv'"
  assert_status 75
  [[ "$output" =~ ^arena-produce:\ worker\ 0:\ waiting\ for\ the\ consumer\ to\ release\ every\ item:\ no\ consumer\ attached\ to\ arena\ \'/arenabench\.[0-9]+\.[0-9a-f]{24}\'\ in\ 0\.2\ s,\ 2\ rows\ written:\ the\ rows\ are\ not\ reaching\ a\ consumer\ \(a\ filter\ in\ the\ pipe\ holds\ them,\ or\ nobody\ reads\ them\)$ ]]
}

@test "epochs begin together: no worker's row of epoch E+1 comes before every row of epoch E" {
  # Workers of unequal speed (the pool's 1-slot arenas wait on the
  # consumer at different moments); without the barrier a fast worker's
  # next epoch interleaves with a slow one's.
  for run in 1 2 3; do
    run produce --size 4K --items 40 --epochs 4 --workers 4 --slots 1
    assert_status 0
    run awk -F, 'NR > 1 { if ($9 < last) print "line " NR ": epoch " $9 " after epoch " last; last = $9 }' "$TMP/rows.csv"
    assert_status 0
    assert_output ""
  done
  run bash -c "column epoch < '$TMP/rows.csv' | uniq -c | awk '{ print \$1, \$2 }'"
  assert_status 0
  assert_output "160 0
160 1
160 2
160 3"
}

@test "a consumer that never releases an epoch: exit 75 after --timeout at the epoch's end" {
  run bash -c "arena-produce --size 4096 --items 2 --epochs 2 --slots 4 --timeout 0.2 > '$TMP/rows.csv'"
  assert_status 75
  [[ "$output" =~ ^arena-produce:\ worker\ 0:\ waiting\ for\ the\ consumer\ to\ release\ the\ epoch\'s\ items:\ no\ consumer\ attached\ to\ arena\ \'/arenabench\.[0-9]+\.[0-9a-f]{24}\'\ in\ 0\.2\ s,\ 2\ rows\ written:\ the\ rows\ are\ not\ reaching\ a\ consumer\ \(a\ filter\ in\ the\ pipe\ holds\ them,\ or\ nobody\ reads\ them\)$ ]]
  run wc -l < "$TMP/rows.csv"
  assert_status 0
  assert_output 3
}

@test "several workers: the first to time out stops the rest, all clean up" {
  run bash -c "arena-produce --size 64 --items 1 --workers 3 --share static --timeout 0.2 > /dev/null"
  assert_status 75
  local line lines=0
  while IFS= read -r line; do
    lines=$((lines + 1))
    [[ "$line" =~ ^arena-produce:\ worker\ [012]:\ waiting\ for\ the\ consumer\ to\ release\ every\ item:\ no\ consumer\ attached\ to\ arena\ \'/arenabench\.[0-9]+\.[0-9a-f]{24}\'\ in\ 0\.2\ s,\ 1\ rows\ written:\ the\ rows\ are\ not\ reaching\ a\ consumer\ \(a\ filter\ in\ the\ pipe\ holds\ them,\ or\ nobody\ reads\ them\)$ ]]
  done <<< "$output"
  [ "$lines" -ge 1 ] && [ "$lines" -le 3 ]
}

@test "stdout to /dev/full: exit 74, nothing left in /dev/shm" {
  run bash -c "arena-produce --size 4096 --items 2 > /dev/full"
  assert_status 74
  assert_output "arena-produce: write error: No space left on device"
}

@test "a reader that leaves (| head -n 3) while rows flow: exit 75, consumer went away" {
  # Slots enough that the workers are writing rows, not waiting for space,
  # when head exits: the next write fails with EPIPE, and says so.
  run timeout 20 bash -c "arena-produce --size 4096 --slots 1000 --items 100000 --workers 2 2> '$TMP/err' | head -n 3 > '$TMP/head'; echo \"\${PIPESTATUS[*]}\""
  assert_status 0
  assert_output "75 0"
  run cat "$TMP/err"
  assert_status 0
  [ "${#lines[@]}" -ge 1 ]
  local line
  for line in "${lines[@]}"; do
    [[ "$line" =~ ^arena-produce:\ worker\ [01]:\ (writing\ a\ handle\ row|waiting\ for\ space):\ the\ consumer\ went\ away\ \(arena\ \'/arenabench\.[0-9]+\.[0-9a-f]{24}\'\)$ ]]
  done
  run cat "$TMP/head"
  assert_status 0
  [ "${#lines[@]}" -eq 3 ] && [ "${lines[0]}" = "$HEADER" ]
}

@test "a reader that leaves while the workers wait for space: exit 75, consumer went away" {
  # Four slots fill at once and nobody releases them: the worker notices
  # the closed pipe while waiting (or, if head leaves first, on writing its
  # fourth row), long before the 30 s timeout.
  run timeout 20 bash -c "arena-produce --size 4096 --slots 4 --items 100 --timeout 30 | head -n 3 > /dev/null; echo \"\${PIPESTATUS[*]}\""
  assert_status 0
  [ "${lines[1]}" = "75 0" ]
  [[ "${lines[0]}" =~ ^arena-produce:\ worker\ 0:\ (waiting\ for\ space|writing\ a\ handle\ row):\ the\ consumer\ went\ away\ \(arena\ \'/arenabench\.[0-9]+\.[0-9a-f]{24}\'\)$ ]]
}

@test "--fill: every way of storing writes the same checked payloads" {
  local fill
  for fill in auto cached streaming; do
    run bash -c "set -o pipefail; arena-produce --fill $fill --size 1MiB --kind nested --dtype fp16 --items 3 | arena-consume | columns sequence mismatches"
    assert_status 0
    assert_output "sequence,mismatches
0,0
1,0
2,0"
  done
  run arena-produce --fill fast
  assert_status 64
  assert_output "arena-produce: --fill: invalid choice 'fast' (choose from 'auto', 'cached', 'streaming')"
}

# worker_calls W: the close(2) and munmap(2) calls of the median worker of
# `arena-produce --workers W` (strace -f; the parent, which sweeps
# /dev/shm and so counts others' objects, left out).
worker_calls() {
  strace -f -qq -e trace=close,munmap -o "$TMP/trace.$1" \
    arena-produce --workers "$1" --items 1 --size 4K --slots 1 2> /dev/null \
    | arena-consume --no-verify > /dev/null
  # The median worker: a sanitizer's allocator unmaps now and then in one
  # worker or another; the old fault was in every worker.
  awk 'NR == 1 { parent = $1 } $1 != parent { n[$1]++ } END { for (p in n) print n[p] }' "$TMP/trace.$1" \
    | sort -n | awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : 0 }'
}

@test "a worker's start does not grow with the worker count (it inherits only its own arena)" {
  command -v strace > /dev/null || skip "strace not installed"
  strace -qq -o /dev/null true 2> /dev/null || skip "strace cannot trace here (ptrace not allowed)"
  local few many
  few=$(worker_calls 4)
  many=$(worker_calls 64)
  # Each worker used to close and unmap every other worker's arena: 2 x 63
  # more calls at 64 workers than at 4.
  [ "$few" -gt 0 ]
  [ "$many" -le $((few + 4)) ] || { echo "the median worker of 4 made $few calls, of 64 $many" >&2; false; }
}

@test "--list-backends: the backends of arena-backends.def, one a line, in its order, each one that --backend takes" {
  run arena-produce --list-backends
  assert_status 0
  assert_output "$(sed -n 's/^ARENA_BACKEND (\([A-Z0-9_]*\), \([a-z0-9_]*\))$/\2/p' "$top_srcdir/src/arena-backends.def")"
  [ "${lines[0]}" = pool ]      # the default comes first
  local backend
  for backend in $output; do
    run arena-produce --backend "$backend" --size 4K --help
    assert_status 0
  done
  run arena-produce --backend nope
  assert_status 64
  assert_output "arena-produce: --backend: invalid choice 'nope' (choose from $(backends_quoted ,))"
}
