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

# The run report header of this build's consumer, after the driver's repeat column.
run_header() {
  printf 'repeat,%s\n' "$(arena-produce --size 4K --items 1 | arena-consume --report run | head -n 1)"
}

@test "pinned-arena --cpu: one run report per arm, repeat and worker count, memcpy rows, a receipt and a summary" {
  run pinned-arena --cpu --size 64K --items 8 --repeats 2 --workers 1,2 --out "$TMP/pa"
  assert_status 0
  [ "$(head -n 1 "$TMP/pa/raw.csv")" = "$(run_header)" ]
  # 2 arms x 2 repeats x 2 worker counts, every item checked, none wrong;
  # and a memcpy reference row per repeat and worker count.
  run awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
               { n++; arms[$c["arm"]]++; w[$c["workers"]]++ }
               $c["arm"] != "memcpy" && ($c["items"] != 8 || $c["mismatches"] != 0 || $c["warmup_epochs"] != 1) { bad++ }
               END { print n, arms["pool-pageable"], arms["ring-pageable"], arms["memcpy"], w[1], w[2], bad + 0 }' "$TMP/pa/raw.csv"
  assert_output "12 4 4 4 6 6 0"
  # Arm order rotates per repeat: repeat 1 starts with pool, repeat 2 with ring.
  run awk -F, '$8 == 1 { print $1, $2 }' "$TMP/pa/raw.csv"
  assert_output "1 pool-pageable
1 ring-pageable
1 memcpy
2 ring-pageable
2 pool-pageable
2 memcpy"
  run sed 's/: .*//' "$TMP/pa/receipt.txt"
  assert_output "command
date
host
cpu
kernel
arenabench
commit
consumer
config"
  grep -q '^1        pool-pageable  items_per_s  2 ' "$TMP/pa/summary.txt"
  grep -q '^2        ring-pageable  gb_per_s     2 ' "$TMP/pa/summary.txt"
  grep -q '^2        memcpy         gb_per_s     2 ' "$TMP/pa/summary.txt"
}

@test "pinned-arena without a GPU: a verdict for ring against pool, the memcpy reference, no raw-* rows named" {
  gpu_here && skip "this machine has a GPU: the GPU arms run"
  pinned-arena --size 4K --items 4 --repeats 2 --out "$TMP/pa" > "$TMP/out" 2> /dev/null
  run grep -c 'raw-' "$TMP/pa/summary.txt"
  assert_output 0
  grep -qx '# (memcpy rows: one thread copying the same bytes from the page cache with dd, in the same run)' "$TMP/pa/summary.txt"
  run grep -E '^workers 1  (pool|ring)-pageable ' "$TMP/pa/summary.txt"
  [[ "${lines[0]}" =~ ^workers\ 1\ \ pool-pageable\ +[0-9.]+\ items/s\ +[0-9.]+%\ of\ memcpy$ ]]
  [[ "${lines[1]}" =~ ^workers\ 1\ \ ring-pageable\ +[0-9.]+\ items/s\ +[0-9.]+%\ of\ memcpy$ ]]
  run tail -n 1 "$TMP/pa/summary.txt"
  [[ "$output" =~ ^workers\ 1:\ ring/pool:\ ([0-9.]+x\ the\ items/s\ \[[0-9.]+,\ [0-9.]+\],\ p\ =\ [0-9.e+-]+,\ n\ =\ 2|no\ difference\ shown\ at\ 95%\ \([0-9.]+x\ the\ items/s\ \[-?[0-9.]+,\ -?[0-9.]+\],\ p\ =\ [0-9.e+-]+,\ n\ =\ 2\)|[0-9.]+x\ the\ items/s,\ n\ =\ 2:\ no\ 95%\ interval\ from\ these\ runs)$ ]]
  # The summary is what the driver printed.
  cmp "$TMP/out" "$TMP/pa/summary.txt"
}

@test "pinned-arena warns when producers and the consumer outnumber the online CPUs" {
  local cores
  cores=$(nproc)
  run bash -c "pinned-arena --cpu --size 4K --items $cores --repeats 1 --workers $cores --out '$TMP/pa' 2>&1 >/dev/null"
  assert_status 0
  assert_output "pinned-arena: warning: $cores producer(s) and a consumer on $cores online CPU(s): they take turns, and the figures measure that
pinned-arena: raw rows, receipt and summary in '$TMP/pa/'"
  run bash -c "pinned-arena --cpu --size 4K --items 1 --repeats 1 --workers 1 --out '$TMP/pb' 2>&1 >/dev/null"
  [ "$cores" -lt 2 ] || assert_output "pinned-arena: raw rows, receipt and summary in '$TMP/pb/'"
}

@test "pinned-arena without a GPU says it runs the CPU arms" {
  gpu_here && skip "this machine has a GPU: the GPU arms run"
  run pinned-arena --size 4K --items 4 --repeats 1 --out "$TMP/pa"
  assert_status 0
  [ "${lines[0]}" = "pinned-arena: note: no CUDA GPU available (or a build without CUDA): running the CPU arms with arena-consume" ]
  # Two arms and the memcpy reference.
  [ "$(tail -n +2 "$TMP/pa/raw.csv" | wc -l)" -eq 3 ]
}

@test "pinned-arena --from redraws the same summary from an earlier run's rows" {
  pinned-arena --cpu --size 4K --items 4 --repeats 2 --out "$TMP/pa" > "$TMP/first.txt"
  cp "$TMP/pa/raw.csv" "$TMP/raw.before"
  run bash -c "pinned-arena --from '$TMP/pa' 2> /dev/null"
  assert_status 0
  diff "$TMP/first.txt" <(printf '%s\n' "$output")
  cmp "$TMP/raw.before" "$TMP/pa/raw.csv"
}

@test "pinned-arena: bad options are usage errors (64) with one line and the --help hint" {
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
--repeats=0|pinned-arena: --repeats: '0' is not a positive integer
--from /nonexistent|pinned-arena: --from: no '/nonexistent/raw.csv'
extra|pinned-arena: extra operand 'extra'
EOF2
  run pinned-arena --size
  assert_status 64
  assert_output "pinned-arena: option '--size' requires an argument
Try 'pinned-arena --help' for more information."
  run pinned-arena --bogus
  assert_status 64
  assert_output "pinned-arena: unrecognized option '--bogus'
Try 'pinned-arena --help' for more information."
  run pinned-arena --s 4K
  assert_status 64
  [[ "${lines[0]}" == "pinned-arena: option '--s' is ambiguous; possibilities:"* ]]
}

@test "drivers take --opt=value and unambiguous abbreviations (getopt)" {
  run pinned-arena --cpu --size=4K --ite 4 --rep=1 --work 1 --out="$TMP/pa"
  assert_status 0
  run grep '^config: ' "$TMP/pa/receipt.txt"
  assert_output "config: size=4K dtype=fp32 kind=tensor workers=1 items=4 slots=4 repeats=1 epochs=2 warmup_epochs=1 fill=auto"
}

@test "an existing --out is refused unless --force; --force replaces the results" {
  pinned-arena --cpu --size 4K --items 4 --repeats 1 --out "$TMP/pa" > /dev/null 2>&1
  cp "$TMP/pa/raw.csv" "$TMP/raw.first"
  run pinned-arena --cpu --size 4K --items 4 --repeats 1 --out "$TMP/pa"
  assert_status 64
  assert_output "pinned-arena: --out: '$TMP/pa' exists; add --force to replace its results"
  cmp "$TMP/raw.first" "$TMP/pa/raw.csv"
  run pinned-arena --cpu --size 4K --items 8 --repeats 1 --out "$TMP/pa" --force
  assert_status 0
  [ "$(awk -F, 'NR == 2 { print $10 }' "$TMP/pa/raw.csv")" = 8 ]
  # An empty folder is not refused.
  mkdir "$TMP/empty"
  run pinned-arena --cpu --size 4K --items 4 --repeats 1 --out "$TMP/empty"
  assert_status 0
}

@test "the receipt quotes the exact command line and names version and commit" {
  run pinned-arena --cpu --size 4K --items 4 --repeats 1 --out "$TMP/a b"
  assert_status 0
  run grep -E '^(command|arenabench): ' "$TMP/a b/receipt.txt"
  assert_output "command: pinned-arena --cpu --size 4K --items 4 --repeats 1 --out $TMP/a\\ b
arenabench: $(arena-produce --version | sed -n '1s/.* //p')"
  run grep -cE '^commit: ([0-9a-f]{7,}(-dirty)?|unknown)$' "$TMP/a b/receipt.txt"
  assert_output 1
}

@test "a progress line with the time left goes to a terminal, and only there" {
  command -v script > /dev/null || skip "script(1) not installed"
  script -qec "pinned-arena --cpu --size 4K --items 4 --repeats 2 --out '$TMP/pa'" /dev/null > "$TMP/tty" 2>&1
  grep -qE 'pinned-arena: run 4 of 4 \(1 worker\(s\), (pool|ring)-pageable, repeat 2\), [0-9]+s elapsed, ~[0-9]+s left' "$TMP/tty"
  run bash -c "pinned-arena --cpu --size 4K --items 4 --repeats 2 --out '$TMP/pb' 2>&1 >/dev/null"
  assert_output "pinned-arena: raw rows, receipt and summary in '$TMP/pb/'"
}

@test "--plot leaves the figure and no plot data, in the folder or in TMPDIR" {
  command -v gnuplot > /dev/null && gnuplot -e 'set terminal pngcairo' 2> /dev/null || skip "no gnuplot with pngcairo"
  mkdir "$TMP/tmp"
  TMPDIR=$TMP/tmp run pinned-arena --cpu --size 4K --items 4 --repeats 2 --workers 1,2 --out "$TMP/pa" --plot
  assert_status 0
  run ls "$TMP/pa"
  assert_output "items-per-s.png
raw.csv
receipt.txt
summary.txt"
  run ls -A "$TMP/tmp"
  assert_output ""
  [ "$(head -c 8 "$TMP/pa/items-per-s.png" | od -An -tx1 | tr -d ' ')" = 89504e470d0a1a0a ]
}

@test "pinned-arena --from with the memory columns: page-locked and /dev/shm GiB, gain per GiB, the cost in the verdict" {
  run pinned-arena --from "$top_srcdir/tests/data/pinned-arena-memory" --out "$TMP/pm"
  assert_status 0
  run sed -n '/^# memory per arm/,$p' "$TMP/pm/summary.txt"
  [ "${lines[0]}" = "# memory per arm (means): page-locked GiB and /dev/shm GiB beside items/s" ]
  [ "${lines[1]}" = "workers 1  pool-pageable    110.00 items/s    0.000 GiB page-locked    0.031 GiB /dev/shm" ]
  [ "${lines[2]}" = "workers 1  pool-pinned      710.00 items/s    0.500 GiB page-locked    0.031 GiB /dev/shm" ]
  [ "${lines[3]}" = "workers 1  ring-pageable    105.00 items/s    0.000 GiB page-locked    0.031 GiB /dev/shm" ]
  [ "${lines[4]}" = "workers 1  ring-pinned      505.00 items/s    0.500 GiB page-locked    0.031 GiB /dev/shm" ]
  [ "${lines[5]}" = "# items/s gained per pinned GiB against the pageable arm" ]
  [ "${lines[6]}" = "workers 1  pool    +1200.0 items/s per GiB page-locked" ]
  [ "${lines[7]}" = "workers 1  ring     +800.0 items/s per GiB page-locked" ]
  [[ "${lines[10]}" =~ ^workers\ 1:\ pool-pinned/pool-pageable:\ 6\.45x\ the\ items/s\ \[[0-9.]+,\ [0-9.]+\]\ for\ 0\.50\ GiB\ page-locked,\ p\ =\ [0-9.e+-]+,\ n\ =\ 3$ ]]
  [[ "${lines[11]}" =~ ^workers\ 1:\ ring-pinned/ring-pageable:\ 4\.81x\ the\ items/s\ \[[0-9.]+,\ [0-9.]+\]\ for\ 0\.50\ GiB\ page-locked,\ p\ =\ [0-9.e+-]+,\ n\ =\ 3$ ]]
  [ "${#lines[@]}" -eq 12 ]
}

@test "pinned-arena --from without the memory columns (older rows): no memory lines, no cost" {
  cut -d, -f1-23 "$top_srcdir/tests/data/pinned-arena-memory/raw.csv" > "$TMP/raw.csv"
  mkdir "$TMP/old" && mv "$TMP/raw.csv" "$TMP/old/"
  run pinned-arena --from "$TMP/old"
  assert_status 0
  run grep -c -e 'page-locked' -e '/dev/shm' "$TMP/old/summary.txt"
  assert_output 0
  run grep -c '^workers 1: pool-pinned/pool-pageable: 6.45x the items/s \[.*\], p = ' "$TMP/old/summary.txt"
  assert_output 1
}

@test "--from converts rows of arenabench 0.1.0 from GiB/s to GB/s (multi-gpu-h2d)" {
  run multi-gpu-h2d --from "$top_srcdir/tests/data/multi-gpu-h2d-0.1.0" --out "$TMP/mg"
  assert_status 0
  run sed -n '/^# together/,$p' "$TMP/mg/summary.txt"
  assert_output "# together / alone per GPU (ratio of mean GB/s, 95% CI, Welch p)
GPU 0: together/alone: 0.50x the GB/s, n = 1: too few runs for an interval
GPU 1: together/alone: 0.50x the GB/s, n = 1: too few runs for an interval

aggregate GB/s, mean over 1 repeat(s): alone (sum of separate runs) 48.32 over 2 GPU(s); together 24.16"
  # 25 GiB/s is 26.8435 GB/s.
  grep -qE '^alone +0 +gb_per_s +1 +0 +26\.8435 ' "$TMP/mg/summary.txt"
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
  [[ "${lines[-1]}" =~ ^pinned-arena:\ interrupted\ after\ [0-9]+\ of\ 100\ runs\;\ rows\ so\ far\ are\ in\ \'.*/raw\.csv\'$ ]]
  local rows
  rows=$(tail -n +2 "$TMP/pa/raw.csv" | wc -l)
  [ "$rows" -ge 2 ] && [ "$rows" -lt 100 ]
  # Every kept row is a whole run report.
  run awk -F, 'NR == 1 { nf = NF } NR > 1 && NF != nf { bad++ } END { print bad + 0 }' "$TMP/pa/raw.csv"
  assert_output 0
}

@test "h2d-sweep --from: GB/s from 0.1.0's GiB/s rows, a verdict per size in numeric order" {
  run h2d-sweep --from "$top_srcdir/tests/data/h2d-sweep-0.1.0" --out "$TMP/hs"
  assert_status 0
  run sed -n '/^# verdict/,$p' "$TMP/hs/summary.txt"
  [[ "${lines[2]}" =~ ^1MiB:\ pinned/pageable:\ 5\.00x\ the\ GB/s\ \[[0-9.]+,\ [0-9.]+\],\ p\ =\ [0-9.e+-]+,\ n\ =\ 3$ ]]
  [[ "${lines[3]}" =~ ^8MiB:\ pinned/pageable:\ 6\.08x\ the\ GB/s\ \[[0-9.]+,\ [0-9.]+\],\ p\ =\ [0-9.e+-]+,\ n\ =\ 3$ ]]
  [ "${#lines[@]}" -eq 4 ]
  # 11 GiB/s is 11.8111 GB/s; the raw limits are converted too.
  run awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
               $c["size_bytes"] == 1048576 && $c["arm"] ~ /^(pool-pinned|raw-pinned)$/ { printf "%s %s %.4f\n", $c["arm"], $c["column"], $c["mean"] }' "$TMP/hs/summary.csv"
  assert_output "pool-pinned gb_per_s 11.8112
raw-pinned gb_per_s 42.9497"
}

@test "h2d-sweep --from with the memory columns: the footprint per arm and item size" {
  run h2d-sweep --from "$top_srcdir/tests/data/h2d-sweep-memory" --out "$TMP/hm"
  assert_status 0
  run sed -n '/^# footprint/,/^$/p' "$TMP/hm/summary.txt"
  assert_output "# footprint per arm and item size (means): page-locked and /dev/shm GiB
pool-pageable     1MiB items     0.000 GiB page-locked     0.016 GiB /dev/shm
pool-pageable     8MiB items     0.000 GiB page-locked     0.125 GiB /dev/shm
pool-pinned       1MiB items     0.016 GiB page-locked     0.016 GiB /dev/shm
pool-pinned       8MiB items     0.125 GiB page-locked     0.125 GiB /dev/shm"
  # Without the columns, no footprint.
  h2d-sweep --from "$top_srcdir/tests/data/h2d-sweep-0.1.0" --out "$TMP/hs" > /dev/null 2>&1
  run grep -c footprint "$TMP/hs/summary.txt"
  assert_output 0
}

@test "transfer-overlap --from: a verdict per case, tensors in numeric order, no interval said so" {
  run transfer-overlap --from "$top_srcdir/tests/data/transfer-overlap" --out "$TMP/to"
  assert_status 0
  run sed -n '/^# verdict/,$p' "$TMP/to/summary.txt"
  [ "${lines[2]}" = "direct/1: serialized/concurrent: 1.00x paired speedup (geometric mean), n = 5: no 95% interval from these runs" ]
  [ "${lines[3]}" = "direct/32: serialized/concurrent: 1.40x paired speedup (geometric mean) [1.38, 1.42], n = 5" ]
  [ "${lines[4]}" = "direct/256: serialized/concurrent: 1.51x paired speedup (geometric mean) [1.50, 1.52], n = 5" ]
  [ "${#lines[@]}" -eq 5 ]
}

@test "the GPU drivers without a GPU: exit 69 with a clear message, nothing written to stdout" {
  gpu_here && skip "this machine has a GPU"
  run bash -c "h2d-sweep --sizes 64K --out '$TMP/sweep' 2>&1 >/dev/null"
  assert_status 69
  assert_output "h2d-sweep: h2d-check has no CUDA GPU here (or was built without CUDA); nothing to sweep"
  run bash -c "transfer-overlap --out '$TMP/overlap' 2>&1 >/dev/null"
  assert_status 69
  assert_output "transfer-overlap: d2h-overlap has no CUDA GPU here (or was built without CUDA)"
  [ ! -e "$TMP/sweep" ] && [ ! -e "$TMP/overlap" ]
}

@test "every driver answers --help with its usage and exit statuses, and --version" {
  local d
  for d in pinned-arena h2d-sweep transfer-overlap multi-gpu-h2d; do
    run "$d" --help
    assert_status 0
    [[ "${lines[0]}" == "Usage: $d [OPTION]..."* ]]
    run bash -c "$d --help | sed -n '/^Exit status:/,/^\$/{/^\$/d;p}'"
    assert_output "Exit status:
  0    every run succeeded and every item was checked
  64   a bad option or value, or --out exists without --force
  69   no CUDA GPU here (or a build without CUDA) where one is needed
  70   a run failed (its status is on stderr); the others are summarized
  130  interrupted; the rows so far are in DIR/raw.csv"
    run "$d" --version
    assert_status 0
    assert_output "$d (arenabench) $(arena-produce --version | sed -n '1s/.* //p')"
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
  # Two arms, two repeats, a memcpy reference per repeat.
  [ "$(tail -n +2 "$TMP/pa/raw.csv" | wc -l)" -eq 6 ]
}
