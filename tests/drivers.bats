#!/usr/bin/env bats
# The benchmark drivers in contrib/, on the CPU arms with small sizes:
# their results folder, exit statuses, and a clean stop on Ctrl-C.

load test-helper

setup() {
  common_setup
}

teardown() {
  assert_no_arena_left
  common_teardown
}

# A machine where h2d-check finds a GPU runs the GPU arms instead.
gpu_here() {
  h2d-check --report run < /dev/null > /dev/null 2>&1
  [ $? -eq 66 ]
}

@test "pinned-arena --cpu: one run report per arm, repeat and worker count, a receipt and a summary" {
  run pinned-arena --cpu --size 64K --items 8 --repeats 2 --workers 1,2 --out "$TMP/pa"
  assert_status 0
  [ "$(head -n 1 "$TMP/pa/raw.csv")" = "repeat,arm,backend,pinned,size_bytes,dtype,kind,workers,slots,items,bytes,seconds,items_per_s,gb_per_s,cpu_s,mlock_ms,mismatches,warmup_epochs,pinned_bytes,shm_bytes,shm_avail_before_bytes,shm_avail_after_bytes,pss_before_bytes,pss_after_bytes,rss_peak_bytes" ]
  # 2 arms x 2 repeats x 2 worker counts, every item checked, none wrong.
  run awk -F, 'NR > 1 { n++; arms[$2]++; w[$8]++; if ($10 != 8 || $17 != 0 || $18 != 1) bad++ }
               END { print n, arms["pool-pageable"], arms["ring-pageable"], w[1], w[2], bad + 0 }' "$TMP/pa/raw.csv"
  assert_output "8 4 4 4 4 0"
  # Arm order rotates per repeat: repeat 1 starts with pool, repeat 2 with ring.
  run awk -F, '$8 == 1 { print $1, $2 }' "$TMP/pa/raw.csv"
  assert_output "1 pool-pageable
1 ring-pageable
2 ring-pageable
2 pool-pageable"
  run grep -c -E '^(command|date|host|cpu|kernel|arenabench|consumer|config): ' "$TMP/pa/receipt.txt"
  assert_output 8
  grep -q '^1        pool-pageable  items_per_s  2 ' "$TMP/pa/summary.txt"
  grep -q '^2        ring-pageable  gb_per_s     2 ' "$TMP/pa/summary.txt"
}

@test "pinned-arena without a GPU says it runs the CPU arms" {
  gpu_here && skip "this machine has a GPU: the GPU arms run"
  run pinned-arena --size 4K --items 4 --repeats 1 --out "$TMP/pa"
  assert_status 0
  [ "${lines[0]}" = "pinned-arena: note: no CUDA GPU available (or a build without CUDA): running the CPU arms with arena-consume" ]
  [ "$(tail -n +2 "$TMP/pa/raw.csv" | wc -l)" -eq 2 ]
}

@test "pinned-arena --from redraws the same summary from an earlier run's rows" {
  pinned-arena --cpu --size 4K --items 4 --repeats 2 --out "$TMP/pa" > "$TMP/first.txt"
  cp "$TMP/pa/raw.csv" "$TMP/raw.before"
  run bash -c "pinned-arena --from '$TMP/pa' 2> /dev/null"
  assert_status 0
  diff "$TMP/first.txt" <(printf '%s\n' "$output")
  cmp "$TMP/raw.before" "$TMP/pa/raw.csv"
}

@test "pinned-arena: bad options are usage errors (64) with one line" {
  local args want
  while IFS='|' read -r args want; do
    run bash -c "pinned-arena --out '$TMP/x' $args 2>&1"
    assert_status 64
    assert_output "$want"
  done <<'EOF2'
--workers 0|pinned-arena: --workers: '0' is not a positive integer
--workers 1,x|pinned-arena: --workers: 'x' is not a positive integer
--items 10 --workers 4|pinned-arena: --items 10 is not a multiple of --workers 4
--repeats -1|pinned-arena: --repeats: '-1' is not a positive integer
--size|pinned-arena: --size: missing value
--from /nonexistent|pinned-arena: --from: no /nonexistent/raw.csv
EOF2
  run pinned-arena --bogus
  assert_status 64
  assert_output "pinned-arena: unknown option '--bogus'
Try 'pinned-arena --help' for more information."
}

@test "pinned-arena stops cleanly on Ctrl-C: exit 130, the rows so far kept, nothing left in /dev/shm" {
  # Its own process group, as at a terminal, where Ctrl-C signals the group.
  setsid env --default-signal=INT pinned-arena --cpu --size 1M --items 64 --repeats 50 \
    --out "$TMP/pa" > /dev/null 2> "$TMP/err" &
  local pid=$! i
  for i in $(seq 200); do
    [ "$(wc -l < "$TMP/pa/raw.csv" 2> /dev/null || echo 0)" -ge 3 ] && break
    sleep 0.05
  done
  kill -INT -- "-$pid"
  local status=0
  wait "$pid" || status=$?
  [ "$status" -eq 130 ]
  run cat "$TMP/err"
  [[ "${lines[-1]}" =~ ^pinned-arena:\ interrupted\ after\ [0-9]+\ of\ 100\ runs\;\ rows\ so\ far\ are\ in\ .*/raw\.csv$ ]]
  local rows
  rows=$(tail -n +2 "$TMP/pa/raw.csv" | wc -l)
  [ "$rows" -ge 2 ] && [ "$rows" -lt 100 ]
  # Every kept row is a whole run report.
  run awk -F, 'NR > 1 && NF != 25 { bad++ } END { print bad + 0 }' "$TMP/pa/raw.csv"
  assert_output 0
}

@test "the GPU drivers without a GPU: exit 69 with a clear message, nothing written to stdout" {
  gpu_here && skip "this machine has a GPU"
  run bash -c "h2d-sweep --sizes 64K --out '$TMP/sweep' 2>&1 >/dev/null"
  assert_status 69
  assert_output "h2d-sweep: h2d-check has no CUDA GPU here (or was built without CUDA); nothing to sweep"
  run bash -c "transfer-overlap --out '$TMP/overlap' 2>/dev/null"
  assert_status 69
  assert_output ""
}

@test "every driver answers --help with its usage and exit 0" {
  local d
  for d in pinned-arena h2d-sweep transfer-overlap multi-gpu-h2d; do
    run "$d" --help
    assert_status 0
    [[ "${lines[0]}" == "Usage: $d [OPTION]..."* ]]
  done
}

@test "pinned-arena(1): the example marked '\$ ' runs and leaves its results folder" {
  local cmd n=0
  cd "$TMP"
  while IFS= read -r cmd; do
    n=$((n + 1))
    run bash -c "$cmd 2>&1"
    assert_status 0
  done < <(awk '/^\.EX/ { ex = 1; next } /^\.EE/ { ex = 0 } ex && /^\$ / { sub(/^\$ /, ""); gsub(/\\-/, "-"); print }' "$top_srcdir/man/pinned-arena.1")
  [ "$n" -eq 1 ]
  [ "$(tail -n +2 "$TMP/pa/raw.csv" | wc -l)" -eq 4 ]
}
