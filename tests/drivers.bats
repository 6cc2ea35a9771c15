#!/usr/bin/env bats
# The benchmark drivers in contrib/, on the CPU arms with small sizes:
# their results folder, exit statuses, and a clean stop on Ctrl-C.

load test-helper

# A machine where h2d-check finds a GPU runs the GPU arms instead.
gpu_here() {
  h2d-check --report run < /dev/null > /dev/null 2>&1
  [ $? -eq 66 ]
}

# The run report header of this build's consumer, after the driver's repeat column.
run_header() {
  printf 'repeat,%s\n' "$(arena-produce --size 4K --items 1 | arena-consume --report run | head -n 1)"
}

@test "pinned-arena --cpu: one run report per arm, repeat and worker count, a receipt and a summary" {
  run pinned-arena --cpu --size 64K --items 8 --repeats 2 --workers 1,2 --static-workers none --out "$TMP/pa"
  assert_status 0
  [ "$(head -n 1 "$TMP/pa/raw.csv")" = "$(run_header)" ]
  # Every backend's checked and fill-only arms x 2 repeats x 2 worker
  # counts, every item there, none wrong; no memcpy reference (dd is no
  # like operation) and no fixed-share arm.
  local b arms=() nb=0
  for b in $(backends); do arms+=("$b-pageable" "$b-fill"); nb=$((nb + 1)); done
  run awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
               { n++; arms[$c["arm"]]++; w[$c["workers"]]++ }
               $c["items"] != 8 || $c["warmup_epochs"] != 1 { bad++ }
               $c["arm"] ~ /-pageable$/ && $c["mismatches"] != "0" { bad++ }
               END { print n, w[1], w[2], bad + 0; fflush(); for (a in arms) print a, arms[a] | "sort"; close("sort") }' "$TMP/pa/raw.csv"
  assert_status 0
  assert_output "$(echo "$((nb * 8)) $((nb * 4)) $((nb * 4)) 0"; printf '%s 4\n' "${arms[@]}" | sort)"
  # Arm order rotates per repeat.
  run awk -F, '$8 == 1 { print $1, $2 }' "$TMP/pa/raw.csv"
  assert_status 0
  assert_output "$(for r in 1 2; do for i in "${!arms[@]}"; do echo "$r ${arms[(i + r - 1) % ${#arms[@]}]}"; done; done)"
  # (One "numa node N" line per node of this host, and on a machine with
  # a GPU its lines, though --cpu leaves it unused.)
  # (And a warning where the load or the CPUs fall short: see below.)
  run bash -c "sed 's/: .*//' '$TMP/pa/receipt.txt' | grep -v '^numa node [0-9]*$' | grep -v '^gpu' | grep -v '^warning$'"
  assert_status 0
  assert_output "command
date
host
cpu
kernel
arenabench
commit
numa nodes
thp
cpu governor
consumer
config
arms"
  grep -qxF "arms: ${arms[*]}" "$TMP/pa/receipt.txt"
  # The headline: what ran and where, the units and the limit first; then
  # a row per checked arm and worker count, in items/s and GB/s.
  run sed -n '1,6p' "$TMP/pa/summary.txt"
  assert_status 0
  assert_output "# pinned-arena: 64KiB fp32 tensor items checked on the CPU by arena-consume (no GPU)
# host $(hostname): $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1) ($(nproc) online)
# mean items/s and GB/s (1e9 B/s) per arm, 95% CI over fresh-process runs
# limit: \"fill alone\", the producers' fill rate alone (BACKEND-fill: the
# consumer reads the arena in place, nothing is copied)
# % of limit: the row's mean over its limit's mean (CIs: summary.csv)"
  run sed -n '/^producers /,/^$/p' "$TMP/pa/summary.txt"
  assert_status 0
  [[ "${lines[0]}" =~ ^producers\ +arm\ +n\ +items/s\ \[95%\ CI\]\ +GB/s\ \[95%\ CI\]\ +%\ of\ limit\ +limit\ items/s\ +bound\ by$ ]]
  # A row is at most its limit (or above it within the CIs, marked *); one above it
  # beyond them has no limit, and a note names it (a loaded machine).
  # Two runs that tie (items/s has 2 decimals, from microseconds) have
  # no interval: the cell says "(no CI)".
  local live='[0-9.]+ (\[-?[0-9.]+, -?[0-9.]+\]|\(no CI\))'
  local l w re="^([12]) +$(backend_pattern)-pageable +2 +$live +$live +(([0-9]|[1-9][0-9]|100)% +[0-9.]+ +fill alone|[0-9]+%\\* +[0-9.]+ +fill alone|- +- +-)\$"
  local want= who arm
  for l in $(seq $((2 * nb))); do
    [[ "${lines[$l]}" =~ $re ]]
    w=${BASH_REMATCH[1]} arm=${BASH_REMATCH[2]}-pageable who="${BASH_REMATCH[1]} producer"; [ "$w" = 1 ] || who+=s
    [ "$w" = $(( l <= nb ? 1 : 2 )) ]
    if [[ "${lines[$l]}" =~ \ -\ +-\ +-$ ]]; then
      grep -q "^note: $who, $arm: .* items/s is above its fill rate alone, .*; no limit claimed$" "$TMP/pa/summary.txt"
      want+="$w $arm 0"$'\n'
    else
      want+="$w $arm 1"$'\n'
    fi
  done
  # summary.csv: every arm, the limit on the checked arms' items_per_s
  # rows, as the headline has it.
  run bash -c "awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[\$i] = i; next }
               \$c[\"column\"] == \"items_per_s\" { print \$c[\"workers\"], \$c[\"arm\"], (\$c[\"limit\"] != \"\") }' '$TMP/pa/summary.csv' | sort"
  assert_status 0
  assert_output "$(for b in $(backends); do printf '%s\n' "1 $b-fill 0" "2 $b-fill 0"; done | cat - <(printf %s "$want") | sort)"
  # The last line: where the rows came from, as the receipt says.
  run tail -n 1 "$TMP/pa/summary.txt"
  assert_status 0
  assert_output "# arenabench $ARENABENCH_VERSION (commit $(sed -n 's/^commit: //p' "$TMP/pa/receipt.txt")): pinned-arena --cpu --size 64K --items 8 --repeats 2 --workers 1\\,2 --static-workers none --out $TMP/pa"
}

@test "pinned-arena --static-workers: fixed shares beside pulling, at those counts only, with a verdict" {
  run pinned-arena --cpu --size 64K --items 8 --repeats 2 --workers 1,2 --out "$TMP/pa"
  assert_status 0
  # By default the largest count, 2, runs the checked arms with fixed shares.
  run bash -c "columns workers arm share < '$TMP/pa/raw.csv' | tail -n +2 | grep -v memcpy | sort | uniq -c | awk '{ print \$1, \$2 }'"
  assert_status 0
  local b want=() arms=()
  for b in $(backends); do
    want+=("2 1,$b-fill,pull" "2 1,$b-pageable,pull" "2 2,$b-fill,pull" "2 2,$b-pageable,pull" "2 2,$b-pageable-static,static")
    arms+=("$b-pageable" "$b-fill" "$b-pageable-static")
  done
  assert_output "$(printf '%s\n' "${want[@]}" | sort)"
  grep -qxF "arms: ${arms[*]}" "$TMP/pa/receipt.txt"
  grep -qx 'static-share arms at: 2 producers' "$TMP/pa/receipt.txt"
  run grep -cE "^2 producers, $(backend_pattern): producers pulling items vs fixed shares \\(arena-produce --share static\\): " "$TMP/pa/summary.txt"
  assert_status 0
  assert_output "$(backends | wc -l)"
  run pinned-arena --cpu --workers 1,2 --static-workers 3 --out "$TMP/pb"
  assert_status 64
  assert_output "pinned-arena: --static-workers: 3 is not one of --workers 1,2"
}

@test "pinned-arena without a GPU: a verdict for every backend against the first (the pool), no raw-* rows named" {
  gpu_here && skip "this machine has a GPU: the GPU arms run"
  pinned-arena --size 4K --items 4 --repeats 2 --out "$TMP/pa" > "$TMP/out" 2> /dev/null
  run grep -c -e 'raw-pinned' -e 'raw-pageable' "$TMP/pa/summary.txt"
  assert_status 1
  assert_output 0
  run grep '^1 producer: ' "$TMP/pa/summary.txt"
  assert_status 0
  local b verdicts=() first
  first=$(backends | head -n 1)
  for b in $(backends | tail -n +2); do verdicts+=("$b"); done
  [ "${#lines[@]}" -eq "${#verdicts[@]}" ]
  for b in "${!verdicts[@]}"; do
    output=${lines[$b]}
    [[ "$output" =~ ^1\ producer:\ ${verdicts[$b]}\ vs\ $first\ arena:\ ([0-9.]+x\ (faster|slower)\ \[[0-9.]+,\ [0-9.]+\]\ \(95%\ CI,\ n=2\ per\ arm\)|no\ difference\ shown\ \([0-9.]+x\ \[-?[0-9.]+,\ -?[0-9.]+\],\ 95%\ CI,\ n=2\ per\ arm\)|[0-9.]+x,\ no\ 95%\ CI\ from\ these\ runs\ \(n=2\ per\ arm\))$ ]]
  done
  # bench-summarize's notes never land in the summary.
  run grep -c '^bench-summarize' "$TMP/pa/summary.txt"
  assert_status 1
  assert_output 0
  # The summary is what the driver printed.
  cmp "$TMP/out" "$TMP/pa/summary.txt"
}

@test "pinned-arena warns when producers and the consumer outnumber the online CPUs, or the load does: on stderr, in the receipt and the summary" {
  local cores
  cores=$(nproc)
  # A fake /proc/loadavg: the machine's own load is not this test's.
  echo '0.00 0.00 0.00 1/100 1' > "$TMP/idle"
  export ARENABENCH_TEST_LOADAVG=$TMP/idle
  run bash -c "set -o pipefail; pinned-arena --cpu --size 4K --items $cores --repeats 1 --workers $cores --out '$TMP/pa' 2>&1 >/dev/null | grep -v '^bench-summarize: '"
  assert_status 0
  assert_status 0
  local w="warning: $cores producer(s) and a consumer on $cores online CPU(s): they take turns, and the figures measure that"
  assert_output "pinned-arena: $w
pinned-arena: raw rows, receipt and summary in '$TMP/pa/'"
  run grep -c "^$w$" "$TMP/pa/receipt.txt" "$TMP/pa/summary.txt"
  assert_status 0
  assert_output "$TMP/pa/receipt.txt:1
$TMP/pa/summary.txt:1"
  # --from keeps it: it comes from the receipt.
  pinned-arena --from "$TMP/pa" --out "$TMP/pf" > /dev/null 2>&1
  cmp "$TMP/pa/summary.txt" "$TMP/pf/summary.txt"
  run bash -c "set -o pipefail; pinned-arena --cpu --size 4K --items 1 --repeats 1 --workers 1 --out '$TMP/pb' 2>&1 >/dev/null | grep -v '^bench-summarize: '"
  assert_status 0
  [ "$cores" -lt 2 ] || assert_output "pinned-arena: raw rows, receipt and summary in '$TMP/pb/'"
  [ "$cores" -lt 2 ] || ! grep -q '^warning' "$TMP/pb/summary.txt" || false
  # A load average at the online CPUs or above.
  echo "$cores.50 1.00 1.00 3/100 1" > "$TMP/busy"
  ARENABENCH_TEST_LOADAVG=$TMP/busy run bash -c "set -o pipefail; pinned-arena --cpu --size 4K --items 1 --repeats 1 --workers 1 --out '$TMP/pc' 2>&1 >/dev/null | grep '^pinned-arena: warning'"
  assert_status 0
  w="warning: load average $cores.50 on $cores online CPU(s) when the runs began: other processes compete with them, and the figures measure that"
  assert_output "pinned-arena: $w"
  grep -qxF "$w" "$TMP/pc/summary.txt"
}

# no_gpu_why CMD: what the drivers say of CMD without a GPU: which of the
# two, as configure built it.
no_gpu_why() {
  if cuda_build; then echo "$1 finds no CUDA GPU here"
  elif "$top_builddir/config.status" --config | grep -q -- --without-cuda; then
    echo "$1 was built without CUDA (configure --without-cuda)"
  else echo "$1 was built without CUDA (configure found no CUDA toolkit)"; fi
}

@test "pinned-arena without a GPU says it runs the CPU arms of every backend" {
  gpu_here && skip "this machine has a GPU: the GPU arms run"
  run pinned-arena --size 4K --items 4 --repeats 1 --out "$TMP/pa"
  assert_status 0
  [ "${lines[0]}" = "pinned-arena: note: $(no_gpu_why h2d-check): running the CPU arms with arena-consume (as --cpu does)" ]
  # A checked arm and a fill-only arm per backend.
  [ "$(tail -n +2 "$TMP/pa/raw.csv" | wc -l)" -eq $((2 * $(backends | wc -l))) ]
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
--size 0|pinned-arena: arena-produce: --size: size '0' out of range [1, 1099511627776] bytes
--dtype fp64|pinned-arena: arena-produce: --dtype: invalid choice 'fp64' (choose from 'fp32', 'fp16', 'uint8')
--kind list|pinned-arena: arena-produce: --kind: invalid choice 'list' (choose from 'tensor', 'nested')
--fill fast|pinned-arena: arena-produce: --fill: invalid choice 'fast' (choose from 'auto', 'cached', 'streaming')
--fill-rate 2XB|pinned-arena: arena-produce: --fill-rate: invalid size '2XB' (use bytes or a suffix such as 64K, 8MiB, 1G)
--slots 70000|pinned-arena: arena-produce: --slots: '70000' out of range [1, 65536]
--timeout 0|pinned-arena: arena-produce: --timeout: '0' out of range [0.001, 1e+06]
--compute-us 1000001|pinned-arena: arena-consume: --compute-us: '1000001' out of range [0, 1000000]
--inflight 65|pinned-arena: h2d-check: --inflight: '65' out of range [1, 64]
EOF2
  # Refused before any run: no results folder was made.
  [ ! -e "$TMP/x" ]
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

@test "every driver judges the values its runs pass on before any run, by the commands' own parsers: 64, one line, nothing written" {
  local args want
  while IFS='|' read -r args want; do
    run bash -c "$args --out '$TMP/x' 2>&1"
    assert_status 64
    assert_output "$want"
    [ ! -e "$TMP/x" ]
  done <<'EOF2'
h2d-sweep --sizes 4K,0|h2d-sweep: arena-produce: --size: size '0' out of range [1, 1099511627776] bytes
h2d-sweep --timeout x|h2d-sweep: arena-produce: --timeout: invalid number 'x'
h2d-sweep --backend heap|h2d-sweep: --backend: 'heap' is not a backend (pool, ring)
h2d-sweep --staging-threads 65|h2d-sweep: h2d-check: --staging-threads: '65' out of range [1, 64]
h2d-sweep --bytes-per-run 1Q|h2d-sweep: arena-produce: --size: invalid size '1Q' (use bytes or a suffix such as 64K, 8MiB, 1G)
multi-gpu-h2d --size 3Q|multi-gpu-h2d: arena-produce: --size: invalid size '3Q' (use bytes or a suffix such as 64K, 8MiB, 1G)
multi-gpu-h2d --slots 70000|multi-gpu-h2d: arena-produce: --slots: '70000' out of range [1, 65536]
transfer-overlap -- --runs 0|transfer-overlap: d2h-overlap: --runs: '0' out of range [1, 100000]
au-check --size 0|au-check: arena-produce: --size: size '0' out of range [1, 1099511627776] bytes
au-check --steps 500,2000000|au-check: h2d-check: --compute-us: '2000000' out of range [0, 1000000]
h200-session --skip pinned-arena,nvbandwith|h200-session: --skip: 'nvbandwith' is not a step (pinned-arena, slowed-producer, h2d-sweep, copy-paths, transfer-overlap, au, trace-overhead, multi-gpu-h2d, arena-speed, nvbandwidth)
EOF2
}

@test "a driver's --items is a run's total over all workers: each producer gets arena-produce --items N/W, and the run checks N" {
  local t
  # The help says so where a driver has --items.
  for t in pinned-arena multi-gpu-h2d au-check; do
    run "$top_srcdir/contrib/$t" --help
    assert_status 0
    # (Its words, the lines joined.)
    output=$(printf '%s' "$output" | tr -s ' \n' '  ')
    [[ $output == *"--items N "*" over "*" workers"*"gets arena-produce --items N/W"* ]] || { echo "$t: $output"; false; }
  done
  # What runs: a logging arena-produce before the built one (not the
  # test's shim, which would find this one again on PATH).
  mkdir -p "$TMP/bin"
  cp "$top_srcdir/contrib/pinned-arena" "$top_srcdir/contrib/driver-lib.sh" "$TMP/bin/"
  printf '#!/bin/sh\necho "$*" >> "%s/produce.log"\nexec "%s" "$@"\n' "$TMP" "$top_builddir/src/arena-produce" > "$TMP/bin/arena-produce"
  chmod +x "$TMP/bin/arena-produce"
  PATH=$TMP/bin:$PATH run pinned-arena --cpu --size 4K --items 8 --workers 2 --repeats 1 --static-workers none --out "$TMP/pa"
  assert_status 0
  # (Four runs; the fifth line is the check before them, ending in --help.)
  run grep -c -- '--workers 2 --items 4 .*[^p]$' "$TMP/produce.log"
  assert_status 0
  assert_output 4
  run awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } { print $c["workers"], $c["items"] }' "$TMP/pa/raw.csv"
  assert_status 0
  assert_output "2 8
2 8
2 8
2 8"
}

@test "drivers take --opt=value and unambiguous abbreviations (getopt)" {
  run pinned-arena --cpu --size=4K --ite 4 --rep=1 --work 1 --out="$TMP/pa"
  assert_status 0
  run grep '^config: ' "$TMP/pa/receipt.txt"
  assert_status 0
  assert_output "config: size=4K dtype=fp32 kind=tensor workers=1 items=4 slots=4 repeats=1 epochs=2 warmup_epochs=1 fill=auto staging_threads=1"
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
  assert_status 0
  assert_output "command: pinned-arena --cpu --size 4K --items 4 --repeats 1 --out $TMP/a\\ b
arenabench: $(arena-produce --version | sed -n '1s/.* //p')"
  run grep -cE '^commit: ([0-9a-f]{7,}(-dirty)?|unknown)$' "$TMP/a b/receipt.txt"
  assert_status 0
  assert_output 1
}

@test "a progress line with the time left goes to a terminal, and only there" {
  command -v script > /dev/null || skip "script(1) not installed"
  script -qec true /dev/null > /dev/null 2>&1 ||
    skip "script(1) cannot open a pseudo-terminal here (no /dev/pts in this container or chroot?)"
  script -qec "pinned-arena --cpu --size 4K --items 4 --repeats 2 --out '$TMP/pa'" /dev/null > "$TMP/tty" 2>&1
  local runs=$((4 * $(backends | wc -l)))
  grep -qE "pinned-arena: run $runs of $runs \\(1 worker\\(s\\), $(backend_pattern)-(pageable|fill), repeat 2\\), [0-9]+s elapsed, ~[0-9]+s left" "$TMP/tty"
  run bash -c "set -o pipefail; pinned-arena --cpu --size 4K --items 4 --repeats 2 --out '$TMP/pb' 2>&1 >/dev/null | grep -v '^bench-summarize: '"
  assert_status 0
  assert_output "pinned-arena: raw rows, receipt and summary in '$TMP/pb/'"
}

@test "--plot leaves the figure and no plot data, in the folder or in TMPDIR" {
  command -v gnuplot > /dev/null && gnuplot -e 'set terminal pngcairo' 2> /dev/null || skip "no gnuplot with pngcairo"
  mkdir "$TMP/tmp"
  TMPDIR=$TMP/tmp run pinned-arena --cpu --size 4K --items 4 --repeats 2 --workers 1,2 --out "$TMP/pa" --plot
  assert_status 0
  run bash -c "ls '$TMP/pa' | grep -v '^warnings.txt$'"
  assert_status 0
  assert_output "items-per-s.png
raw.csv
receipt.txt
summary.csv
summary.txt"
  run ls -A "$TMP/tmp"
  assert_status 0
  assert_output ""
  [ "$(head -c 8 "$TMP/pa/items-per-s.png" | od -An -tx1 | tr -d ' ')" = 89504e470d0a1a0a ]
}

# The headline row regex: the items/s cell is checked for its form only
# (its interval is the log-scale one where bench-summarize has --log-scale).
cell='[0-9.]+ \[-?[0-9.]+, -?[0-9.]+\]'

@test "pinned-arena --from: the headline names each row's limit and bound, the verdicts in words" {
  run bash -c "pinned-arena --from '$top_srcdir/tests/data/drivers-pinned-arena' --out '$TMP/pf' 2> /dev/null"
  assert_status 0
  cmp <(printf '%s\n' "$output") "$TMP/pf/summary.txt"
  # Rows without a ceiling arm (an h2d-check without one): the fill rate
  # alone or the link, and the headline says so.
  run sed -n '1,6p;14,19p' "$TMP/pf/summary.txt"
  assert_status 0
  assert_output "# pinned-arena: 8MiB fp32 tensor items to Fabricated GPU, checked there
# mean items/s and GB/s (1e9 B/s) per arm, 95% CI over fresh-process runs
# limit: the smaller of \"fill alone\", the producers' fill rate alone
# (BACKEND-fill; no ceiling arm in these rows), and \"link\", the
# raw-pinned peak: 6460 items/s, 54.2 GB/s
# % of limit: the row's mean over its limit's mean (CIs: summary.csv)

1 producer, pool: pinned arena vs pageable: 2.797x faster [2.738, 2.859] (95% CI, n=3 per arm)
1 producer, pool: pinned arena vs staged (1 copy thread): 2.210x faster [2.172, 2.249] (95% CI, n=3 per arm)
4 producers, pool: pinned arena vs pageable: 8.57x faster [8.12, 9.04] (95% CI, n=3 per arm)
4 producers, pool: pinned arena vs staged (1 copy thread): 2.50x faster [2.33, 2.69] (95% CI, n=3 per arm)
note: fabricated rows for tests/drivers.bats"
  run sed -n '7,13p' "$TMP/pf/summary.txt"
  assert_status 0
  [[ "${lines[0]}" =~ ^producers\ +arm\ +n\ +items/s\ \[95%\ CI\]\ +GB/s\ \[95%\ CI\]\ +%\ of\ limit\ +limit\ items/s\ +bound\ by$ ]]
  [[ "${lines[1]}" =~ ^1\ +pool-pinned\ +3\ +$cell\ +$cell\ +98%\ +2250\ +fill\ alone$ ]]
  [[ "${lines[2]}" =~ ^1\ +pool-staged\ +3\ +$cell\ +$cell\ +44%\ +2250\ +fill\ alone$ ]]
  # The link's limit is the highest raw-pinned mean (1 producer's run,
  # 6460), for every arm: no copy goes faster, pinned or not.
  [[ "${lines[3]}" =~ ^1\ +pool-pageable\ +3\ +$cell\ +$cell\ +35%\ +2250\ +fill\ alone$ ]]
  [[ "${lines[4]}" =~ ^4\ +pool-pinned\ +3\ +$cell\ +$cell\ +93%\ +6460\ +link$ ]]
  [[ "${lines[5]}" =~ ^4\ +pool-staged\ +3\ +$cell\ +$cell\ +37%\ +6460\ +link$ ]]
  [[ "${lines[6]}" =~ ^4\ +pool-pageable\ +3\ +$cell\ +$cell\ +11%\ +6460\ +link$ ]]
  # summary.csv: the limit with its CI, its % and the bound on the checked
  # arms' rows.
  run awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
               $c["limit"] != "" { print $c["workers"], $c["arm"], $c["column"], $c["limit"], ($c["limit_ci_low"] < $c["limit"] && $c["limit"] < $c["limit_ci_high"]), $c["pct_of_limit"], $c["bound"] }' "$TMP/pf/summary.csv"
  assert_status 0
  assert_output "1 pool-pageable items_per_s 2250 1 35.1 fill alone
1 pool-pinned items_per_s 2250 1 98.2 fill alone
1 pool-staged items_per_s 2250 1 44.4 fill alone
4 pool-pageable items_per_s 6460 1 10.8 link
4 pool-pinned items_per_s 6460 1 92.9 link
4 pool-staged items_per_s 6460 1 37.2 link"
}

# tests/data/pinned-arena-ceiling: fabricated rows with h2d-check's
# ceiling arm and idle_* columns (1 and 4 producers, 3 repeats).
@test "pinned-arena --from with a ceiling arm: the ceiling or the link is each row's limit, never exceeded; idle per arm" {
  run bash -c "pinned-arena --from '$top_srcdir/tests/data/pinned-arena-ceiling' --out '$TMP/pc' 2> /dev/null"
  assert_status 0
  cmp <(printf '%s\n' "$output") "$TMP/pc/summary.txt"
  run sed -n '1,8p;18,$p' "$TMP/pc/summary.txt"
  assert_status 0
  assert_output "# pinned-arena: 8MiB fp32 tensor items to Fabricated GPU (device 0), checked there
# host fabricated-host: Fabricated CPU (16 online)
# mean items/s and GB/s (1e9 B/s) per arm, 95% CI over fresh-process runs
# limit: the smaller of \"ceiling\", the fill+copy ceiling (h2d-check
# --calibrate: the host filling and copying at once, same producers,
# size and slots), and \"link\", the raw-pinned peak: 6450 items/s, 54.1 GB/s
# % of limit: the row's mean over its limit's mean (CIs: summary.csv)
# *: above its limit's mean, within both 95% CIs: the two not told apart

note: 4 producers, ring-pinned: 6350 [6230, 6480] items/s is above its fill+copy ceiling, 6000 [5951, 6050], beyond both 95% CIs: that is no limit in these runs; limit used: the link (raw-pinned peak)
1 producer, pool: pinned arena vs pageable: 2.556x faster [2.461, 2.657] (95% CI, n=3 per arm)
1 producer, ring: pinned arena vs pageable: 2.74x faster [2.58, 2.91] (95% CI, n=3 per arm)
4 producers, pool: pinned arena vs pageable: 6.15x faster [5.84, 6.47] (95% CI, n=3 per arm)
4 producers, ring: pinned arena vs pageable: 7.06x faster [6.84, 7.28] (95% CI, n=3 per arm)
note: fabricated rows for tests/drivers.bats: a ceiling arm, idle columns

# copy engine idle per arm: mean ms a run, and as % of its measured
# time by cause: no row (producers still filling), no slot (producers
# waiting for space), check and release (the consumer waiting for a
# buffer's check, or its items' release), other (driver and engine)
producers  arm            n  idle ms  idle   no row  no slot  check  release  other
1          pool-pinned    3  8.9      8.0%   5.0%    1.0%     1.5%   0.0%     0.5%
1          pool-pageable  3  174      61.2%  1.0%    0.0%     0.2%   0.0%     60.0%
1          ring-pinned    3  3.78     3.6%   2.0%    0.4%     1.0%   0.0%     0.2%
1          ring-pageable  3  170      59.2%  1.0%    0.0%     0.2%   0.0%     58.0%
4          pool-pinned    3  3.66     8.0%   5.0%    1.0%     1.5%   0.0%     0.5%
4          pool-pageable  3  172      61.2%  1.0%    0.0%     0.2%   0.0%     60.0%
4          ring-pinned    3  1.45     3.6%   2.0%    0.4%     1.0%   0.0%     0.2%
4          ring-pageable  3  168      59.2%  1.0%    0.0%     0.2%   0.0%     58.0%

# every arm and column, with the limits: summary.csv
# arenabench unknown (commit unknown): pinned-arena --workers 1\\,4 --repeats 3 --out pinned-arena-ceiling"
  run sed -n '9,17p' "$TMP/pc/summary.txt"
  assert_status 0
  [[ "${lines[0]}" =~ ^producers\ +arm\ +n\ +items/s\ \[95%\ CI\]\ +GB/s\ \[95%\ CI\]\ +%\ of\ limit\ +limit\ items/s\ +bound\ by$ ]]
  # The ceiling (2400, 6000), below the link (6450), is the limit; the
  # fill-only arms (2600, 6100) are not, with a ceiling there.
  [[ "${lines[1]}" =~ ^1\ +pool-pinned\ +3\ +$cell\ +$cell\ +96%\ +2400\ +ceiling$ ]]
  [[ "${lines[2]}" =~ ^1\ +pool-pageable\ +3\ +$cell\ +$cell\ +38%\ +2400\ +ceiling$ ]]
  # 2440 is above the ceiling's 2400, within both CIs: its share as
  # measured, marked.
  [[ "${lines[3]}" =~ ^1\ +ring-pinned\ +3\ +$cell\ +$cell\ +102%\*\ +2400\ +ceiling$ ]]
  [[ "${lines[4]}" =~ ^1\ +ring-pageable\ +3\ +$cell\ +$cell\ +37%\ +2400\ +ceiling$ ]]
  [[ "${lines[5]}" =~ ^4\ +pool-pinned\ +3\ +$cell\ +$cell\ +93%\ +6000\ +ceiling$ ]]
  [[ "${lines[6]}" =~ ^4\ +pool-pageable\ +3\ +$cell\ +$cell\ +15%\ +6000\ +ceiling$ ]]
  # 6350 is above the ceiling beyond both CIs: the note above says so, and
  # the link is its limit.
  [[ "${lines[7]}" =~ ^4\ +ring-pinned\ +3\ +$cell\ +$cell\ +98%\ +6450\ +link$ ]]
  [[ "${lines[8]}" =~ ^4\ +ring-pageable\ +3\ +$cell\ +$cell\ +15%\ +6000\ +ceiling$ ]]
  # No % of limit above 100 without its mark.
  run awk '/^producers /,/^$/ { if (match($0, /  [0-9]+%  /) && substr($0, RSTART + 2, RLENGTH - 5) + 0 > 100) print }' "$TMP/pc/summary.txt"
  assert_status 0
  assert_output ""
  run awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
               $c["limit"] != "" { print $c["workers"], $c["arm"], $c["limit"], $c["pct_of_limit"], $c["bound"] }' "$TMP/pc/summary.csv"
  assert_status 0
  assert_output "1 pool-pinned 2400 95.8 ceiling
1 ring-pinned 2400 101.7 ceiling
1 pool-pageable 2400 37.5 ceiling
1 ring-pageable 2400 37.1 ceiling
4 pool-pinned 6000 93.3 ceiling
4 ring-pinned 6450 98.4 link
4 pool-pageable 6000 15.2 ceiling
4 ring-pageable 6000 15.0 ceiling"
}

@test "pinned-arena --from the published 2026-12-04 H200 rows: no row above its limit, the first lines say what ran" {
  # Its ring-pinned row at 1 producer was printed as 106% of the fill rate
  # alone: 2440 [2170, 2740] against 2290, within the CIs.
  run bash -c "pinned-arena --from '$top_srcdir/doc/results/h200-2026-12-04/pinned-arena' --out '$TMP/ph' 2> /dev/null"
  assert_status 0
  run sed -n '1,3p' "$TMP/ph/summary.txt"
  assert_status 0
  assert_output "# pinned-arena: 8MiB fp32 tensor items to NVIDIA H200 (device 0), checked there
# host vm: Intel(R) Xeon(R) Processor (16 online)
# mean items/s and GB/s (1e9 B/s) per arm, 95% CI over fresh-process runs"
  run grep -E '^1 +ring-pinned ' "$TMP/ph/summary.txt"
  assert_status 0
  [[ "$output" =~ ^1\ +ring-pinned\ +5\ +$cell\ +$cell\ +[0-9]+%\*\ +2290\ +fill\ alone$ ]]
  run awk '/^producers /,/^$/ { if (match($0, /  [0-9]+%  /) && substr($0, RSTART + 2, RLENGTH - 5) + 0 > 100) print }' "$TMP/ph/summary.txt"
  assert_status 0
  assert_output ""
}

@test "the verdict in words: faster, slower (inverted), no difference shown, no interval; a mean keeps a digit" {
  run bash -c '. "$1/contrib/driver-lib.sh"
    drv_says A 5.0577 4.4918 5.6923 10; drv_says B 0.5 0.4 0.6 10
    drv_says C 1.02 0.95 1.10 5; drv_says D 1.5 "" "" 1; drv_says E 1.4 1.38 1.42 5 "paired blocks"
    awk "$drv_awk_num"'"'"'BEGIN { print ci(48477.87, 0, 30000000); print ci(0.68, 0.01, 52) }'"'"'' prog "$top_srcdir"
  assert_status 0
  assert_output "A: 5.06x faster [4.49, 5.69] (95% CI, n=10 per arm)
B: 2.00x slower [1.67, 2.50] (95% CI, n=10 per arm)
C: no difference shown (1.020x [0.950, 1.100], 95% CI, n=5 per arm)
D: 1.50x, no 95% CI from these runs (n=1 per arm)
E: 1.400x faster [1.380, 1.420] (95% CI, n=5 paired blocks)
50000 [0, 30000000]
0.7 [0.0, 52.0]"
}

@test "pinned-arena --from with the memory columns: page-locked and /dev/shm GiB below the verdicts" {
  run pinned-arena --from "$top_srcdir/tests/data/pinned-arena-memory" --out "$TMP/pm"
  assert_status 0
  run sed -n '11,$p' "$TMP/pm/summary.txt"
  assert_status 0
  assert_output "1 producer, pool: pinned arena vs pageable: 6.45x faster [5.62, 7.57] (95% CI, n=3 per arm)
1 producer, ring: pinned arena vs pageable: 4.81x faster [4.46, 5.21] (95% CI, n=3 per arm)
note: fabricated rows for tests/drivers.bats

pool, 1 producer: page-locking 512 MiB cost 1.5 ms; it pays for itself after 1 item (8.4 MB) at the measured pinned and pageable rates (95% CI 1 to 1 item)
ring, 1 producer: page-locking 512 MiB cost 1.5 ms; it pays for itself after 1 item (8.4 MB) at the measured pinned and pageable rates (95% CI 1 to 1 item)

# memory per arm (means): page-locked GiB and /dev/shm GiB beside items/s
workers 1  pool-pageable          110.00 items/s    0.000 GiB page-locked    0.031 GiB /dev/shm
workers 1  pool-pinned            710.00 items/s    0.500 GiB page-locked    0.031 GiB /dev/shm
workers 1  ring-pageable          105.00 items/s    0.000 GiB page-locked    0.031 GiB /dev/shm
workers 1  ring-pinned            505.00 items/s    0.500 GiB page-locked    0.031 GiB /dev/shm

# every arm and column, with the limits: summary.csv
# arenabench unknown (commit unknown): pinned-arena --workers 1 --repeats 3"
  # Without ceiling, raw-* and fill-only rows no limit is claimed.
  run sed -n '3p;6p' "$TMP/pm/summary.txt"
  assert_status 0
  [ "${lines[0]}" = "# limit: none (no ceiling, fill-only or raw-pinned rows here)" ]
  [[ "${lines[1]}" =~ ^1\ +pool-pinned\ +3\ +$cell\ +$cell\ +-\ +-\ +-$ ]]
}

@test "pinned-arena --from without the memory columns (older rows): no memory lines" {
  mkdir "$TMP/old"
  cut -d, -f1-23 "$top_srcdir/tests/data/pinned-arena-memory/raw.csv" > "$TMP/old/raw.csv"
  cp "$top_srcdir/tests/data/pinned-arena-memory/receipt.txt" "$TMP/old/"
  run pinned-arena --from "$TMP/old"
  assert_status 0
  run grep -c -e 'page-locked' -e '/dev/shm' "$TMP/old/summary.txt"
  assert_status 1
  assert_output 0
  run grep -c '^1 producer, pool: pinned arena vs pageable: 6.45x faster \[5.62, 7.57\] (95% CI, n=3 per arm)$' "$TMP/old/summary.txt"
  assert_status 0
  assert_output 1
}

@test "--from refuses another driver's folder, or one without a receipt: exit 64, nothing written" {
  mkdir "$TMP/hs" "$TMP/bare"
  cp "$top_srcdir/tests/data/h2d-sweep-memory/raw.csv" "$top_srcdir/tests/data/h2d-sweep-memory/receipt.txt" "$TMP/hs/"
  echo 'the summary of h2d-sweep' > "$TMP/hs/summary.txt"
  cp "$top_srcdir/tests/data/h2d-sweep-memory/raw.csv" "$TMP/bare/"
  run pinned-arena --from "$TMP/hs"
  assert_status 64
  assert_output "pinned-arena: --from: '$TMP/hs' was not made by pinned-arena (its receipt.txt names h2d-sweep)"
  [ "$(cat "$TMP/hs/summary.txt")" = 'the summary of h2d-sweep' ]
  run multi-gpu-h2d --from "$TMP/hs" --out "$TMP/elsewhere"
  assert_status 64
  assert_output "multi-gpu-h2d: --from: '$TMP/hs' was not made by multi-gpu-h2d (its receipt.txt names h2d-sweep)"
  [ ! -e "$TMP/elsewhere" ]
  run transfer-overlap --from "$TMP/bare"
  assert_status 64
  assert_output "transfer-overlap: --from: '$TMP/bare' was not made by transfer-overlap (its receipt.txt names no driver)"
  run ls "$TMP/bare"
  assert_status 0
  assert_output raw.csv
}

@test "--from converts rows of arenabench 0.1.0 from GiB/s to GB/s (multi-gpu-h2d)" {
  run multi-gpu-h2d --from "$top_srcdir/tests/data/multi-gpu-h2d-0.1.0" --out "$TMP/mg"
  assert_status 0
  # 25 GiB/s is 26.8435 GB/s.
  run cat "$TMP/mg/summary.txt"
  assert_status 0
  assert_output "# multi-gpu-h2d: mean GB/s (1e9 B/s) per GPU, fed alone and with every listed
# GPU at once, with its 95% CI over fresh-process runs (no limit is
# measured here: see h2d-sweep for the raw copy beside the pipeline)
GPU  fed       n  GB/s [95% CI]
0    alone     1  26.8 (no CI)
1    alone     1  21.5 (no CI)
0    together  1  13.4 (no CI)
1    together  1  10.7 (no CI)

GPU 0: fed with the others vs alone: 0.500x, no 95% CI from these runs (n=1 per arm)
GPU 1: fed with the others vs alone: 0.500x, no 95% CI from these runs (n=1 per arm)
aggregate GB/s, mean over 1 repeat(s): alone (sum of separate runs) 48.32 over 2 GPU(s); together 24.16

# every GPU and phase, every statistic: summary.csv
# arenabench unknown (commit unknown): multi-gpu-h2d"
  grep -qE '^alone,0,gb_per_s,1,0,26\.8435,' "$TMP/mg/summary.csv"
  # bench-summarize's notes (no interval at n = 1) went to warnings.txt only.
  run grep -c '^bench-summarize: ' "$TMP/mg/warnings.txt"
  assert_status 0
  [ "$output" -ge 1 ]
}

# fake_consumer N SIGNAL TARGET: an arena-consume on $TMP/bin that, after
# its Nth whole run, sends SIGNAL to TARGET ("driver": the pid in $TMP/pid;
# "group": its own process group, as Ctrl-C at a terminal does).  The
# driver is copied there too, away from ../src, so that PATH finds it.
fake_consumer() {
  mkdir -p "$TMP/bin"
  cp "$top_srcdir/contrib/pinned-arena" "$top_srcdir/contrib/driver-lib.sh" "$TMP/bin/"
  cat > "$TMP/bin/arena-consume" <<EOF
#!/bin/bash
# The driver's check of the options (--help last) is no run.
case " \$* " in *" --help ") exec "$(command -v arena-consume)" "\$@" ;; esac
"$(command -v arena-consume)" "\$@" || exit
n=\$(( \$(cat "$TMP/count" 2> /dev/null || echo 0) + 1 )); echo "\$n" > "$TMP/count"
[ "\$n" -ne $1 ] && exit 0
if [ $3 = group ]; then kill -$2 0; else kill -$2 "\$(cat "$TMP/pid")"; fi
EOF
  chmod +x "$TMP/bin/arena-consume"
}

# The driver in a session of its own (so that "group" is the driver's),
# SIGINT at its default as at a terminal; its pid in $TMP/pid.
run_driver() {
  local status=0
  PATH=$TMP/bin:$PATH setsid -w env --default-signal=INT bash -c 'echo $$ > "$0/pid"; exec "$0/bin/$@"' "$TMP" "$@" \
    > "$TMP/out" 2> "$TMP/err" || status=$?
  echo "$status"
}

# interrupted_driver SIGNAL WHO KEPT HEAD: pinned-arena, whose second
# consumer sends SIGNAL to WHO (fake_consumer), exits 130 having kept KEPT
# whole runs, and the first HEAD lines of its summary say so.
interrupted_driver() {
  fake_consumer 2 "$1" "$2"
  [ "$(run_driver pinned-arena --cpu --size 4K --items 4 --repeats 50 --out "$TMP/pa")" -eq 130 ]
  # 50 repeats of a checked and a fill-only arm per backend.
  local runs=$((100 * $(backends | wc -l)))
  run grep -v '^bench-summarize: ' "$TMP/err"
  assert_status 0
  assert_output "pinned-arena: interrupted after $3 of $runs runs; rows so far are in '$TMP/pa/raw.csv'"
  [ "$(tail -n +2 "$TMP/pa/raw.csv" | wc -l)" -eq "$3" ]
  run head -n "$4" "$TMP/pa/summary.txt"
  assert_status 0
  assert_output "INTERRUPTED after $3 of $runs runs: this summary covers those runs only."
}

@test "pinned-arena on SIGTERM: exit 130, the rows so far kept and summarized as interrupted" {
  # After the second whole run: the driver stops after exactly two runs,
  # whatever the machine's speed.
  interrupted_driver TERM driver 2 2
  cmp "$TMP/out" "$TMP/pa/summary.txt"
  [ -s "$TMP/pa/summary.csv" ]
  # The receipt says so, and --from keeps the mark and the status.
  grep -qx "interrupted: after 2 of $((100 * $(backends | wc -l))) runs" "$TMP/pa/receipt.txt"
  run pinned-arena --from "$TMP/pa" 2> /dev/null
  assert_status 130
  cmp "$TMP/out" "$TMP/pa/summary.txt"
}

@test "pinned-arena on Ctrl-C (SIGINT to its process group): exit 130, the whole runs kept and summarized, no arena left" {
  # Ctrl-C during the second run: that run's consumer dies of it, so the
  # first run is the one kept.
  interrupted_driver INT group 1 1
}

@test "h2d-sweep --from: GB/s from 0.1.0's GiB/s rows, limit per row, a verdict per size in numeric order" {
  run h2d-sweep --from "$top_srcdir/tests/data/h2d-sweep-0.1.0" --out "$TMP/hs"
  assert_status 0
  run sed -n '1,6p;12,15p' "$TMP/hs/summary.txt"
  assert_status 0
  assert_output "# h2d-sweep: 4 producers, pool, Fabricated GPU
# mean GB/s (1e9 B/s) per item size and arm with its 95% CI over
# fresh-process runs; limit: the smaller of \"ceiling\", the fill+copy
# ceiling at that size (h2d-check --calibrate; where none ran, \"fill
# alone\", the producers' fill rate alone), and \"link\", the raw-pinned
# peak (53.7 GB/s at 8MiB)

1MiB: pinned arena vs pageable: 5.0x faster [3.7, 6.8] (95% CI, n=3 per arm)
8MiB: pinned arena vs pageable: 6.08x faster [5.44, 6.79] (95% CI, n=3 per arm)
note: fabricated rows for tests/drivers.bats"
  run sed -n '8,11p' "$TMP/hs/summary.txt"
  assert_status 0
  # One limit for every size and arm: the highest raw-pinned mean (8 MiB's).
  [[ "${lines[0]}" =~ ^1MiB\ +pool-pinned\ +3\ +$cell\ +22%\ +53.7\ +link$ ]]
  [[ "${lines[1]}" =~ ^1MiB\ +pool-pageable\ +3\ +$cell\ +4%\ +53.7\ +link$ ]]
  [[ "${lines[2]}" =~ ^8MiB\ +pool-pinned\ +3\ +$cell\ +62%\ +53.7\ +link$ ]]
  [[ "${lines[3]}" =~ ^8MiB\ +pool-pageable\ +3\ +$cell\ +10%\ +53.7\ +link$ ]]
  # 11 GiB/s is 11.8111 GB/s; the raw limits are converted too.
  run awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
               $c["size_bytes"] == 1048576 && $c["arm"] ~ /^(pool-pinned|raw-pinned)$/ { printf "%s %s %.4f\n", $c["arm"], $c["column"], $c["mean"] }' "$TMP/hs/summary.csv"
  assert_status 0
  assert_output "pool-pinned gb_per_s 11.8112
raw-pinned gb_per_s 42.9497"
}

@test "h2d-sweep and pinned-arena: --min-items and --staging-threads are positive integers" {
  usage_errors <<'EOF'
h2d-sweep --min-items 0|h2d-sweep: --min-items: '0' is not a positive integer
h2d-sweep --staging-threads x|h2d-sweep: --staging-threads: 'x' is not a positive integer
pinned-arena --staging-threads 0|pinned-arena: --staging-threads: '0' is not a positive integer
EOF
}

@test "h2d-sweep --from with the memory columns: the footprint per arm and item size" {
  run h2d-sweep --from "$top_srcdir/tests/data/h2d-sweep-memory" --out "$TMP/hm"
  assert_status 0
  run sed -n '/^# footprint/,/^$/p' "$TMP/hm/summary.txt"
  assert_status 0
  assert_output "# footprint per arm and item size (means): page-locked and /dev/shm GiB
pool-pageable     1MiB items     0.000 GiB page-locked     0.016 GiB /dev/shm
pool-pageable     8MiB items     0.000 GiB page-locked     0.125 GiB /dev/shm
pool-pinned       1MiB items     0.016 GiB page-locked     0.016 GiB /dev/shm
pool-pinned       8MiB items     0.125 GiB page-locked     0.125 GiB /dev/shm"
  # Without the columns, no footprint.
  h2d-sweep --from "$top_srcdir/tests/data/h2d-sweep-0.1.0" --out "$TMP/hs" > /dev/null 2>&1
  run grep -c footprint "$TMP/hs/summary.txt"
  assert_status 1
  assert_output 0
}

@test "transfer-overlap --from: a headline and a verdict per case, tensors in numeric order" {
  run transfer-overlap --from "$top_srcdir/tests/data/transfer-overlap" --out "$TMP/to"
  assert_status 0
  run cat "$TMP/to/summary.txt"
  assert_status 0
  assert_output "# transfer-overlap: paired speedup of running the copy beside the compute
# (serialized/concurrent per block): geometric mean with its 95% CI
# on the log scale; overlap efficiency and transfer GB/s: medians
method/tensors  n  speedup [95% CI]      overlap efficiency  transfer GB/s
direct/1        5  1.00 (no CI)          0                   50.0
direct/32       5  1.400 [1.376, 1.425]  1.60                50.0
direct/256      5  1.512 [1.500, 1.524]  2.10                50.0

direct/1: copy beside the compute vs after it: 1.00x, no 95% CI from these runs (n=5 paired blocks)
direct/32: copy beside the compute vs after it: 1.400x faster [1.376, 1.425] (95% CI, n=5 paired blocks)
direct/256: copy beside the compute vs after it: 1.512x faster [1.500, 1.524] (95% CI, n=5 paired blocks)

# medians of every column per case, with their CIs: summary.csv
# arenabench unknown (commit unknown): transfer-overlap"
  run grep -c '^bench-summarize: no interval: all values equal' "$TMP/to/warnings.txt"
  assert_status 0
  assert_output 2
}

@test "the GPU drivers without a GPU: exit 69 with a clear message, nothing written to stdout" {
  gpu_here && skip "this machine has a GPU"
  run bash -c "h2d-sweep --sizes 64K --out '$TMP/sweep' 2>&1 >/dev/null"
  assert_status 69
  assert_output "h2d-sweep: $(no_gpu_why h2d-check); nothing to sweep (pinned-arena --cpu measures the CPU arms)"
  run bash -c "transfer-overlap --out '$TMP/overlap' 2>&1 >/dev/null"
  assert_status 69
  assert_output "transfer-overlap: $(no_gpu_why d2h-overlap); nothing to overlap (pinned-arena --cpu measures the CPU arms)"
  [ ! -e "$TMP/sweep" ] && [ ! -e "$TMP/overlap" ]
}

@test "every driver answers --help with its usage and exit statuses, and --version" {
  local d
  [ "$(drivers | wc -l)" -ge 4 ]
  for d in $(drivers); do
    run "$d" --help
    assert_status 0
    [[ "${lines[0]}" == "Usage: $d [OPTION]..."* ]]
    run bash -c "$d --help | sed -n '/^Exit status:/,/^\$/{/^\$/d;p}'"
    assert_status 0
    assert_output "Exit status:
  0    every run succeeded and every item was checked
  64   a bad option or value, or --out exists without --force
  69   no CUDA GPU here, or a build without CUDA, where one is needed
  70   a run failed (its status is on stderr); the others are summarized
  130  interrupted; the rows so far are in DIR/raw.csv, their summary in
       DIR/summary.txt"
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
  # Two arms per backend (one fill-only), two repeats.
  [ "$(tail -n +2 "$TMP/pa/raw.csv" | wc -l)" -eq $((4 * $(backends | wc -l))) ]
}

@test "every contrib tool answers --help and --version: exit 0, at most 80 columns" {
  local t
  for t in $(drivers) h200-session arena-speed fault-soak \
           h2d-tune copy-path-probe results-tables bench-summarize-speed bench-summarize-coverage; do
    run "$top_srcdir/contrib/$t" --help
    assert_status 0
    [ "${#lines[@]}" -ge 3 ]
    run awk -v t="$t" 'length > 80 { print t ": " $0 }' <<< "$output"
    assert_status 0
    assert_output ""
    run "$top_srcdir/contrib/$t" --version
    assert_status 0
    assert_output "$t (arenabench) $(arena-produce --version | sed -n '1s/.* //p')"
  done
}

# With a stand-in h2d-check (tests/data/drivers-fake-h2d-check: arena-consume
# underneath, the GPU consumer's arms, --calibrate's raw-* rows and --staged
# imitated), the GPU arms' plumbing runs here.  The drivers are copied away
# from ../src so that PATH finds the stand-in.
fake_gpu() {
  mkdir -p "$TMP/bin"
  cp "$top_srcdir/tests/data/drivers-fake-h2d-check" "$TMP/bin/h2d-check"
  cp "$top_srcdir/contrib/pinned-arena" "$top_srcdir/contrib/h2d-sweep" "$top_srcdir/contrib/driver-lib.sh" "$TMP/bin/"
}

@test "pinned-arena's GPU arms (stand-in h2d-check): pinned, pageable, staged, fill-only, raw-* and ceiling rows once a repeat" {
  fake_gpu
  PATH=$TMP/bin:$PATH FAKE_LOG=$TMP/h2d.log run bash -c "pinned-arena --size 4K --items 4 --repeats 2 --staging-threads 3 --out '$TMP/pa' 2> /dev/null"
  assert_status 0
  # The GPU consumer runs the pinned, pageable and staged arms; the
  # fill-only arm's consumer (arena-consume) only releases.
  # (2 repeats x every backend: pinned and pageable, --calibrate once a
  # repeat; staged; a probe for a GPU, two for --staged, and the check
  # of the options before any run.)
  local b nb=0 arms=() memory=()
  for b in $(backends); do
    arms+=("$b-pageable" "$b-pinned" "$b-staged" "$b-fill")
    memory+=("0 " "1 " "0 3" "1 ")
    nb=$((nb + 1))
  done
  run bash -c "sort '$TMP/h2d.log' | uniq -c | sed 's/^ *//'"
  assert_status 0
  assert_output "2 h2d-check --help
$((4 * nb - 2)) h2d-check --inflight 4 --warmup-epochs 1 --report run
2 h2d-check --inflight 4 --warmup-epochs 1 --report run --calibrate
$((2 * nb)) h2d-check --inflight 4 --warmup-epochs 1 --report run --staged --staging-threads 3
1 h2d-check --inflight 4 --warmup-epochs 1 --report run --staged --staging-threads 3 --help
1 h2d-check --report run"
  run awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
               { print $c["repeat"], $c["arm"], $c["pinned"], $c["staging_threads"] }' "$TMP/pa/raw.csv"
  assert_status 0
  # Each repeat: the arms rotated by one more, the raw-* and ceiling rows
  # (--calibrate) with its first arm, in that arm's memory.
  local r i k want=()
  for r in 1 2; do
    for i in "${!arms[@]}"; do
      k=$(((i + r - 1) % ${#arms[@]}))
      want+=("$r ${arms[k]} ${memory[k]}")
      [ "$i" -gt 0 ] || want+=("$r raw-pinned ${memory[k]% *} " "$r raw-pageable ${memory[k]% *} " "$r ceiling 1 ")
    done
  done
  assert_output "$(printf '%s\n' "${want[@]}")"
  grep -qxF "arms: ${arms[*]}" "$TMP/pa/receipt.txt"
  run grep -cE "^1 producer, $(backend_pattern): pinned arena vs (pageable|staged \\(3 copy threads\\)): " "$TMP/pa/summary.txt"
  assert_status 0
  assert_output $((2 * nb))
  run bash -c "awk '/^producers /{ t++ } t == 1' '$TMP/pa/summary.txt' | grep -cE '^1 +$(backend_pattern)-(pinned|staged|pageable) +2 '"
  assert_status 0
  assert_output $((3 * nb))
}

# A stand-in gnuplot that keeps the script it is given in $TMP/plot.gp.
fake_gnuplot() {
  mkdir -p "$TMP/bin"
  printf '#!/bin/sh\n[ "$1" = -e ] && exit 0\ncat > "%s/plot.gp"\n' "$TMP" > "$TMP/bin/gnuplot"
  chmod +x "$TMP/bin/gnuplot"
}

@test "pinned-arena --plot: the title promises page-locked GiB labels only where they are drawn" {
  fake_gnuplot
  PATH=$TMP/bin:$PATH run bash -c "pinned-arena --cpu --size 4K --items 4 --repeats 2 --out '$TMP/pc' --plot 2> /dev/null"
  assert_status 0
  grep -q '^set multiplot layout 1,2 title ".*fresh-process runs (dots: runs)"$' "$TMP/plot.gp"
  ! grep -q 'labels' "$TMP/plot.gp" || false
  fake_gpu
  # 256 KiB items in 4 slots: 0.001 GiB page-locked per arena, a label.
  # (The stand-in's raw-* rows are all equal, with no interval: the title
  # still counts their runs.)
  PATH=$TMP/bin:$PATH run bash -c "pinned-arena --size 256K --items 4 --repeats 2 --out '$TMP/pg' --plot 2> /dev/null"
  assert_status 0
  grep -q '^set multiplot layout 1,2 title "256KiB fp32 tensor items: checked items/s, means with 95% CI of n = 2 fresh-process runs (dots: runs); labels: mean page-locked GiB"$' "$TMP/plot.gp"
  grep -q 'with labels offset' "$TMP/plot.gp"
}

@test "pinned-arena --from: when page-locking pays for itself, and the placement warnings, in words" {
  mkdir "$TMP/be"
  printf 'command: pinned-arena --size 8MiB\narms: pool-pinned pool-pageable\n' > "$TMP/be/receipt.txt"
  {
    echo repeat,arm,backend,pinned,size_bytes,dtype,kind,workers,items,items_per_s,gb_per_s,mismatches,register_ms,pinned_bytes,device_pci,link,link_max,device_numa,arena_numa,producer_numa,gpu
    local m='0000:17:00.0,16.0 GT/s x16,32.0 GT/s x16,1,0,0;1,Fabricated GPU'
    echo "1,pool-pinned,pool,1,8388608,fp32,tensor,1,256,1000,8.388608,0,40,268435456,$m"
    echo "1,pool-pageable,pool,0,8388608,fp32,tensor,1,256,500,4.194304,0,,0,$m"
    echo "2,pool-pinned,pool,1,8388608,fp32,tensor,1,256,1010,8.47249408,0,42,268435456,$m"
    echo "2,pool-pageable,pool,0,8388608,fp32,tensor,1,256,505,4.23624704,0,,0,$m"
    echo "3,pool-pinned,pool,1,8388608,fp32,tensor,1,256,990,8.30472192,0,41,268435456,$m"
    echo "3,pool-pageable,pool,0,8388608,fp32,tensor,1,256,495,4.15236096,0,,0,$m"
  } > "$TMP/be/raw.csv"
  run bash -c "pinned-arena --from '$TMP/be' --out '$TMP/o' 2> '$TMP/err'"
  assert_status 0
  # 41 ms against 1/500 - 1/1000 s saved per item: 41 items of 8 MiB.
  grep -qxF 'pool, 1 producer: page-locking 256 MiB cost 41 ms; it pays for itself after 41 items (343.9 MB) at the measured pinned and pageable rates (95% CI 39 to 45 items)' "$TMP/o/summary.txt"
  local w="warning: GPU 0000:17:00.0: its PCIe link ran at 16.0 GT/s x16, below its maximum 32.0 GT/s x16: every copy is capped by it
warning: arena pages on NUMA node 0, GPU 0000:17:00.0 on node 1: copies crossed between sockets (arena-produce --numa-node 1)
warning: producers ran on NUMA node 0;1, GPU 0000:17:00.0 on node 1 (arena-produce --numa-node 1)"
  # The warnings' order is sort's, which follows the locale: compare sorted.
  w=$(LC_ALL=C sort <<<"$w")
  run sh -c "grep '^warning: ' '$TMP/o/summary.txt' | LC_ALL=C sort"
  assert_status 0
  assert_output "$w"
  run sh -c "grep '^warning: ' '$TMP/err' | LC_ALL=C sort"
  assert_status 0
  assert_output "$w"
  # Pinned no faster: it never pays.
  sed -i 's/,1000,8.388608,/,400,3.3554432,/; s/,1010,8.47249408,/,404,3.3890,/; s/,990,8.30472192,/,396,3.3219,/' "$TMP/be/raw.csv"
  run bash -c "set -o pipefail; pinned-arena --from '$TMP/be' --out '$TMP/o2' 2> /dev/null | grep 'page-locking'"
  assert_status 0
  assert_output "pool, 1 producer: page-locking 256 MiB cost 41 ms; it never pays for itself: the pinned arm was no faster than pageable"
}

@test "every driver's receipt records the machine: NUMA nodes and CPUs, THP, governors, each GPU's link and node" {
  local s=$TMP/sys d=0000:17:00.0
  mkdir -p "$s/devices/system/node/node0" "$s/devices/system/node/node1" "$s/kernel/mm/transparent_hugepage" \
    "$s/devices/system/cpu/cpu0/cpufreq" "$s/devices/system/cpu/cpu1/cpufreq" "$s/bus/pci/devices/$d"
  echo 0-1 > "$s/devices/system/node/online"
  echo 0-1 > "$s/devices/system/node/node0/cpulist"
  echo 2-3 > "$s/devices/system/node/node1/cpulist"
  echo 'always [madvise] never' > "$s/kernel/mm/transparent_hugepage/enabled"
  echo performance > "$s/devices/system/cpu/cpu0/cpufreq/scaling_governor"
  echo performance > "$s/devices/system/cpu/cpu1/cpufreq/scaling_governor"
  echo '16.0 GT/s PCIe' > "$s/bus/pci/devices/$d/current_link_speed"
  echo '32.0 GT/s PCIe' > "$s/bus/pci/devices/$d/max_link_speed"
  echo 16 > "$s/bus/pci/devices/$d/current_link_width"
  echo 16 > "$s/bus/pci/devices/$d/max_link_width"
  echo 1 > "$s/bus/pci/devices/$d/numa_node"
  ARENABENCH_TEST_SYSFS=$s ARENABENCH_TEST_PCI=$d run pinned-arena --cpu --size 4K --items 4 --repeats 1 --out "$TMP/pa"
  assert_status 0
  run sed -n '/^numa nodes: /,/^gpu pci /p' "$TMP/pa/receipt.txt"
  assert_status 0
  assert_output "numa nodes: 0-1
numa node 0: cpus 0-1
numa node 1: cpus 2-3
thp: madvise, shmem unknown
cpu governor: performance (2 CPUs)
gpu pci $d: link 16.0 GT/s PCIe x16, max 32.0 GT/s PCIe x16, numa node 1"
}

@test "h2d-sweep (stand-in h2d-check): a size whose arenas do not fit is skipped with a note; sizes are counted without an arena" {
  fake_gpu
  # 1 TiB items: 2 slots (1 GiB and more) of them never fit.
  # (As an ordinary user, 8 MiB of 4 KiB slots are over RLIMIT_MEMLOCK:
  # the stand-in's arena-consume says it reads them pageable.)
  PATH=$TMP/bin:$PATH run bash -c "set -o pipefail; h2d-sweep --sizes 4K,1T --bytes-per-run 16K --min-items 2 --repeats 1 --workers 1 --out '$TMP/hs' 2>&1 >/dev/null | grep -v -e '^bench-summarize' -e '^arena-consume: .*: cannot page-lock '"
  assert_status 0
  [[ ${lines[0]} =~ ^h2d-sweep:\ note:\ 1TiB\ items\ do\ not\ fit:\ 1\ worker\ x\ 2\ slots\ need\ 2048\.0\ GiB\ of\ /dev/shm\ and\ memory,\ [0-9]+\.[0-9]\ GiB\ is\ available\;\ size\ skipped$ ]]
  grep -q '^note: 1TiB items do not fit: ' "$TMP/hs/receipt.txt"
  grep -q '^note: 1TiB items do not fit: ' "$TMP/hs/summary.txt"
  run awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } { print $c["size_bytes"] }' "$TMP/hs/raw.csv"
  assert_status 0
  [ "$(sort -u <<<"$output")" = 4096 ]
  # A size arena-produce refuses is its message, and the sweep's exit 64,
  # before any run.
  PATH=$TMP/bin:$PATH run bash -c "set -o pipefail; h2d-sweep --sizes 4X --repeats 1 --workers 1 --out '$TMP/hx' 2>&1 >/dev/null | sed -n 1p"
  assert_status 64
  assert_output "h2d-sweep: arena-produce: --size: invalid size '4X' (use bytes or a suffix such as 64K, 8MiB, 1G)"
  [ ! -e "$TMP/hx" ]
}

@test "pinned-arena and h2d-sweep without h2d-check --staged: the staged arm skipped with a note" {
  fake_gpu
  PATH=$TMP/bin:$PATH FAKE_STAGED=0 run bash -c "set -o pipefail; pinned-arena --size 4K --items 4 --repeats 1 --out '$TMP/pa' 2>&1 >/dev/null | grep -v -e '^bench-summarize' -e '^pinned-arena: warning: .* online CPU'"
  assert_status 0
  assert_output "pinned-arena: note: no staged arm: this h2d-check has no --staged
pinned-arena: raw rows, receipt and summary in '$TMP/pa/'"
  grep -qx 'note: no staged arm: this h2d-check has no --staged' "$TMP/pa/receipt.txt"
  grep -qx 'note: no staged arm: this h2d-check has no --staged' "$TMP/pa/summary.txt"
  run grep -c staged, "$TMP/pa/raw.csv"
  assert_status 1
  assert_output 0
  PATH=$TMP/bin:$PATH FAKE_STAGED=0 run bash -c "set -o pipefail; h2d-sweep --sizes 4K --bytes-per-run 16K --min-items 2 --repeats 1 --workers 1 --slots 4 --out '$TMP/hs' 2>&1 >/dev/null | grep -v '^bench-summarize'"
  assert_status 0
  assert_output "h2d-sweep: note: no staged arm: this h2d-check has no --staged
h2d-sweep: raw rows, receipt and summary in '$TMP/hs/'"
  grep -qx 'arms: pinned pageable fill' "$TMP/hs/receipt.txt"
}

@test "h2d-sweep's arms (stand-in h2d-check): at least --min-items per worker and run, the staged arm's threads" {
  fake_gpu
  # (The driver's messages are kept: a run that fails shows why.)
  PATH=$TMP/bin:$PATH run bash -c "h2d-sweep --sizes 4K,16K --bytes-per-run 64K --min-items 3 --repeats 1 --workers 2 --staging-threads 2 --slots 4 --out '$TMP/hs' 2> '$TMP/err'"
  grep -v '^bench-summarize: ' "$TMP/err" >&2 || :
  assert_status 0
  # 4K: 64K / 4K / 2 workers = 8 per worker; 16K: 2, raised to 3.
  run awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
               { print $c["size_bytes"], $c["arm"], $c["items"], $c["staging_threads"] }' "$TMP/hs/raw.csv"
  assert_status 0
  assert_output "4096 pool-pinned 16 
4096 raw-pinned 16 
4096 raw-pageable 16 
4096 ceiling 16 
4096 pool-pageable 16 
4096 pool-staged 16 2
4096 pool-fill 16 
16384 pool-pinned 6 
16384 raw-pinned 6 
16384 raw-pageable 6 
16384 ceiling 6 
16384 pool-pageable 6 
16384 pool-staged 6 2
16384 pool-fill 6 "
  # The headline, exact: the stand-in's rates are fixed (pinned 4000
  # items/s, staged 2000, pageable 1000, ceiling 5000, raw-pinned 8000),
  # so the ceiling at each size is the limit however loaded the machine
  # (the fill-only arm, which arena-consume times, is not one with a
  # ceiling there), and its idle shares are 10%: 4, 3, 2 and 1.
  run sed '/^# footprint/,$d' "$TMP/hs/summary.txt"
  assert_status 0
  assert_output "# h2d-sweep: 2 producers, pool
# mean GB/s (1e9 B/s) per item size and arm with its 95% CI over
# fresh-process runs; limit: the smaller of \"ceiling\", the fill+copy
# ceiling at that size (h2d-check --calibrate; where none ran, \"fill
# alone\", the producers' fill rate alone), and \"link\", the raw-pinned
# peak (0.131 GB/s at 16KiB)
size   arm            n  GB/s [95% CI]    % of limit  limit GB/s  bound by
4KiB   pool-pinned    1  0.0164 (no CI)   80%         0.0205      ceiling
4KiB   pool-staged    1  0.00820 (no CI)  40%         0.0205      ceiling
4KiB   pool-pageable  1  0.00410 (no CI)  20%         0.0205      ceiling
16KiB  pool-pinned    1  0.0655 (no CI)   80%         0.0819      ceiling
16KiB  pool-staged    1  0.0328 (no CI)   40%         0.0819      ceiling
16KiB  pool-pageable  1  0.0164 (no CI)   20%         0.0819      ceiling

4KiB: pinned arena vs pageable: 4.00x, no 95% CI from these runs (n=1 per arm)
4KiB: pinned arena vs staged: 2.00x, no 95% CI from these runs (n=1 per arm)
16KiB: pinned arena vs pageable: 3.99x, no 95% CI from these runs (n=1 per arm)
16KiB: pinned arena vs staged: 2.00x, no 95% CI from these runs (n=1 per arm)

# copy engine idle per size and arm: mean ms a run, and as % of its measured
# time by cause: no row (producers still filling), no slot (producers
# waiting for space), check and release (the consumer waiting for a
# buffer's check, or its items' release), other (driver and engine)
size   arm            n  idle ms  idle   no row  no slot  check  release  other
4KiB   pool-pinned    1  0.4      10.0%  4.0%    3.0%     1.5%   0.5%     1.0%
4KiB   pool-staged    1  0.8      10.0%  4.0%    3.0%     1.5%   0.5%     1.0%
4KiB   pool-pageable  1  1.6      10.0%  4.0%    3.0%     1.5%   0.5%     1.0%
16KiB  pool-pinned    1  0.15     10.0%  4.0%    3.0%     1.5%   0.5%     1.0%
16KiB  pool-staged    1  0.3      10.0%  4.0%    3.0%     1.5%   0.5%     1.0%
16KiB  pool-pageable  1  0.6      10.0%  4.0%    3.0%     1.5%   0.5%     1.0%"
  run grep -c '^\(4\|16\)KiB: pinned arena vs \(pageable\|staged\): ' "$TMP/hs/summary.txt"
  assert_status 0
  assert_output 4
}

@test "h2d-sweep --copy-paths x --inflight (stand-in h2d-check): an arm per path and k, and where each path wins" {
  fake_gpu
  PATH=$TMP/bin:$PATH FAKE_LOG=$TMP/h2d.log run bash -c "h2d-sweep --sizes 4K --bytes-per-run 16K --min-items 2 --repeats 1 --workers 1 --slots 4 --copy-paths engine,sm,auto,batch --inflight 2,8 --out '$TMP/hs' 2> '$TMP/err'"
  grep -v '^bench-summarize: ' "$TMP/err" >&2 || :
  assert_status 0
  # --calibrate with the first path's arm; no pageable or staged arm;
  # before the runs, the options' check (each path, each k).
  run bash -c "sort '$TMP/h2d.log' | uniq -c | sed 's/^ *//'"
  assert_status 0
  assert_output "1 h2d-check --copy-path auto --help
1 h2d-check --copy-path batch --help
1 h2d-check --copy-path engine --help
1 h2d-check --copy-path sm --help
2 h2d-check --help
1 h2d-check --inflight 2 --warmup-epochs 1 --report run --copy-path auto
1 h2d-check --inflight 2 --warmup-epochs 1 --report run --copy-path batch
1 h2d-check --inflight 2 --warmup-epochs 1 --report run --copy-path engine --calibrate
1 h2d-check --inflight 2 --warmup-epochs 1 --report run --copy-path sm
1 h2d-check --inflight 2 --warmup-epochs 1 --report run --staged --staging-threads 1 --help
1 h2d-check --inflight 8 --warmup-epochs 1 --report run --copy-path auto
1 h2d-check --inflight 8 --warmup-epochs 1 --report run --copy-path batch
1 h2d-check --inflight 8 --warmup-epochs 1 --report run --copy-path engine
1 h2d-check --inflight 8 --warmup-epochs 1 --report run --copy-path sm
1 h2d-check --inflight 8 --warmup-epochs 1 --report run --staged --staging-threads 1 --help
1 h2d-check --report run"
  run awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } { print $c["arm"] }' "$TMP/hs/raw.csv"
  assert_status 0
  assert_output "pool-pinned-engine-k2
raw-pinned
raw-pageable
ceiling
pool-pinned-engine-k8
pool-pinned-sm-k2
pool-pinned-sm-k8
pool-pinned-auto-k2
pool-pinned-auto-k8
pool-pinned-batch-k2
pool-pinned-batch-k8
pool-fill"
  grep -qx 'config: .* inflight=2,8 staging_threads=1 copy_paths=engine,sm,auto,batch' "$TMP/hs/receipt.txt"
  # The stand-in's rates are fixed: engine 4000 items/s, batch 4500, sm
  # and auto (which it runs as sm) 4800.
  run sed -n '/^# where each copy path wins/,/^$/p' "$TMP/hs/summary.txt"
  assert_status 0
  assert_output "# where each copy path wins: mean GB/s per item size and buffers in flight
# (k); wins: the best mean of engine, batch and sm, with \"~PATH\" for a
# path whose 95% CI reaches the winner's; auto: its mean and what it chose
size  k  engine  batch   sm      auto         wins
4KiB  2  0.0164  0.0184  0.0197  0.0197 (sm)  sm
4KiB  8  0.0164  0.0184  0.0197  0.0197 (sm)  sm"
}

@test "h2d-sweep --copy-paths and --inflight: bad lists are usage errors; an h2d-check without --copy-path is 69" {
  usage_errors <<'EOF'
h2d-sweep --copy-paths engine,dma|h2d-sweep: --copy-paths: 'dma' is not auto, engine, batch or sm
h2d-sweep --inflight 0|h2d-sweep: --inflight: '0' is not a positive integer
h2d-sweep --inflight 65 --copy-paths sm|h2d-sweep: --inflight: '65' is more than h2d-check's 64
h2d-sweep --inflight 2,x --copy-paths sm|h2d-sweep: --inflight: 'x' is not a positive integer
h2d-sweep --inflight 2,4|h2d-sweep: --inflight: several values need --copy-paths
EOF
  fake_gpu
  PATH=$TMP/bin:$PATH FAKE_COPY_PATH=0 run bash -c "h2d-sweep --sizes 4K --repeats 1 --copy-paths sm --out '$TMP/hs' 2>&1 >/dev/null"
  assert_status 69
  assert_output "h2d-sweep: --copy-paths: this h2d-check has no --copy-path"
}

@test "copy-path-probe (stand-in h2d-check): a row per size and path, its share of the link, what auto chose" {
  # The probe gives each producer 8 MiB of slots; the stand-in's
  # arena-consume page-locks them with mlock, where the limit counts.
  local limit=$(ulimit -l)
  if [ "$(id -u)" -ne 0 ] && [ "$limit" != unlimited ] && [ "$limit" -lt 16384 ]; then
    skip "the stand-in page-locks 8 MiB of slots with mlock: RLIMIT_MEMLOCK is $limit KiB"
  fi
  fake_gpu
  cp "$top_srcdir/contrib/copy-path-probe" "$TMP/bin/"
  PATH=$TMP/bin:$PATH FAKE_LOG=$TMP/h2d.log run bash -c "copy-path-probe --sizes 4KiB --paths engine,sm,auto --repeats 2 --run-mib 1 --workers 1 --link-size 4KiB --out '$TMP/probe' 2> /dev/null"
  assert_status 0
  # The stand-in's rates are fixed: engine 4000 items/s, sm and auto 4800,
  # raw-pinned 8000.
  assert_output "# copy-path-probe: 1 producer, pinned pool, --inflight 4, --copy-sms 8, 2 runs per point, checked
# link: raw-pinned peak 0.03 GB/s (h2d-check --calibrate)
size  path    n  items/s  cv    GB/s   % of link  copy_sms  mismatches  auto chose (its engine/batch/sm GB/s)
4KiB  engine  2  4000     0.0%  0.016  50%        0         0           -
4KiB  sm      2  4800     0.0%  0.020  60%        8         0           -
4KiB  auto    2  4800     0.0%  0.020  60%        8         0           sm (//)"
  run grep -c -- '--copy-path' "$TMP/h2d.log"
  assert_status 0
  assert_output 7
  run bash -c "tail -n +2 '$TMP/probe/raw.csv' | wc -l"
  assert_status 0
  assert_output 10
  PATH=$TMP/bin:$PATH run copy-path-probe --repeats 0
  assert_status 64
  assert_output "copy-path-probe: --repeats: '0' is not a positive integer"
}

@test "the stand-in h2d-check without a ceiling row (an older h2d-check): the fill rate alone or the link, said so" {
  fake_gpu
  PATH=$TMP/bin:$PATH FAKE_CEILING=0 FAKE_IDLE=0 run bash -c "pinned-arena --size 4K --items 4 --repeats 2 --out '$TMP/pa' 2> /dev/null"
  assert_status 0
  run grep -c ',ceiling,' "$TMP/pa/raw.csv"
  assert_status 1
  assert_output 0
  run sed -n '3,6p' "$TMP/pa/summary.txt"
  assert_status 0
  assert_output "# mean items/s and GB/s (1e9 B/s) per arm, 95% CI over fresh-process runs
# limit: the smaller of \"fill alone\", the producers' fill rate alone
# (BACKEND-fill; no ceiling arm in these rows), and \"link\", the
# raw-pinned peak: 8000 items/s, 0.0328 GB/s"
  # Each row's limit is one of the two (the fill-only arm is timed by
  # arena-consume, loaded or not), or none with a note saying why.
  run awk '/^producers /,/^$/' "$TMP/pa/summary.txt"
  assert_status 0
  local l nb re='^1 +'"$(backend_pattern)"'-(pinned|staged|pageable) +2 +[0-9]+ \(no CI\) +[0-9.]+ \(no CI\) +(([0-9]|[1-9][0-9]|100)%|[0-9]+%\*) +([0-9.]+ +fill alone|8000 +link)$'
  nb=$(backends | wc -l)
  for l in $(seq $((3 * nb))); do
    [[ "${lines[$l]}" =~ $re ]] || [[ "${lines[$l]}" =~ ^1\ +[a-z]+-[a-z]+\ .*\ -\ +-\ +-$ ]]
  done
  [ "${#lines[@]}" -eq $((3 * nb + 1)) ]
  # No idle columns, no idle table.
  run grep -c 'copy engine idle' "$TMP/pa/summary.txt"
  assert_status 1
  assert_output 0
}

@test "pinned-arena (stand-in h2d-check): the exact headline, a row above every limit named, the idle table, --trace files" {
  fake_gpu
  # A whole-output golden of the pool and the ring: a stand-in list keeps
  # the run to them (the real arena-produce does the rest).
  cat > "$TMP/bin/arena-produce" <<EOF_SH
#!/bin/sh
[ "\$1" = --list-backends ] && { printf 'pool\nring\n'; exit 0; }
PATH=\${PATH#$TMP/bin:} exec arena-produce "\$@"
EOF_SH
  chmod +x "$TMP/bin/arena-produce"
  # The pinned arms at 10000 items/s: above the ceiling (5000) and the
  # link (8000) in every run: no limit holds for them, and notes say so.
  PATH=$TMP/bin:$PATH FAKE_PINNED_RATE=10000 FAKE_LOG=$TMP/h2d.log run bash -c "pinned-arena --size 4K --items 4 --repeats 1 --trace --out '$TMP/pa' 2> /dev/null"
  assert_status 0
  # The break-even lines rest on the stand-in's measured mlock time; the
  # --from tests check them on fixed rows.
  run sed -e '/^# memory per arm/,$d' -e '/: page-locking .* cost /,/^$/d' "$TMP/pa/summary.txt"
  assert_status 0
  assert_output "# pinned-arena: 4KiB fp32 tensor items to the GPU, checked there
# host $(hostname): $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1) ($(nproc) online)
# mean items/s and GB/s (1e9 B/s) per arm, 95% CI over fresh-process runs
# limit: the smaller of \"ceiling\", the fill+copy ceiling (h2d-check
# --calibrate: the host filling and copying at once, same producers,
# size and slots), and \"link\", the raw-pinned peak: 8000 items/s, 0.0328 GB/s
# % of limit: the row's mean over its limit's mean (CIs: summary.csv)
producers  arm            n  items/s [95% CI]  GB/s [95% CI]    % of limit  limit items/s  bound by
1          pool-pinned    1  10000 (no CI)     0.0410 (no CI)   -           -              -
1          pool-staged    1  2000 (no CI)      0.00820 (no CI)  40%         5000           ceiling
1          pool-pageable  1  1000 (no CI)      0.00410 (no CI)  20%         5000           ceiling
1          ring-pinned    1  10000 (no CI)     0.0410 (no CI)   -           -              -
1          ring-staged    1  2000 (no CI)      0.00820 (no CI)  40%         5000           ceiling
1          ring-pageable  1  1000 (no CI)      0.00410 (no CI)  20%         5000           ceiling

note: 1 producer, pool-pinned: 10000 (no CI) items/s is above its fill+copy ceiling, 5000 (no CI) and its link (raw-pinned peak), 8000 (no CI), beyond both 95% CIs: neither is a limit in these runs; no limit claimed
note: 1 producer, ring-pinned: 10000 (no CI) items/s is above its fill+copy ceiling, 5000 (no CI) and its link (raw-pinned peak), 8000 (no CI), beyond both 95% CIs: neither is a limit in these runs; no limit claimed
1 producer, pool: pinned arena vs pageable: 10.0x, no 95% CI from these runs (n=1 per arm)
1 producer, pool: pinned arena vs staged (1 copy thread): 5.00x, no 95% CI from these runs (n=1 per arm)
1 producer, ring: pinned arena vs pageable: 10.0x, no 95% CI from these runs (n=1 per arm)
1 producer, ring: pinned arena vs staged (1 copy thread): 5.00x, no 95% CI from these runs (n=1 per arm)

# copy engine idle per arm: mean ms a run, and as % of its measured
# time by cause: no row (producers still filling), no slot (producers
# waiting for space), check and release (the consumer waiting for a
# buffer's check, or its items' release), other (driver and engine)
producers  arm            n  idle ms  idle   no row  no slot  check  release  other
1          pool-pinned    1  0.04     10.0%  4.0%    3.0%     1.5%   0.5%     1.0%
1          pool-staged    1  0.2      10.0%  4.0%    3.0%     1.5%   0.5%     1.0%
1          pool-pageable  1  0.4      10.0%  4.0%    3.0%     1.5%   0.5%     1.0%
1          ring-pinned    1  0.04     10.0%  4.0%    3.0%     1.5%   0.5%     1.0%
1          ring-staged    1  0.2      10.0%  4.0%    3.0%     1.5%   0.5%     1.0%
1          ring-pageable  1  0.4      10.0%  4.0%    3.0%     1.5%   0.5%     1.0%"
  # Each h2d-check run kept its timeline; the fill-only runs have none.
  run ls "$TMP/pa/trace"
  assert_status 0
  assert_output "1-pool-pageable-r1.json
1-pool-pinned-r1.json
1-pool-staged-r1.json
1-ring-pageable-r1.json
1-ring-pinned-r1.json
1-ring-staged-r1.json"
  run grep -c -- '--trace [^ ]*/trace/1-[a-z]*-[a-z]*-r1\.json$' "$TMP/h2d.log"
  assert_status 0
  assert_output 6
  # An h2d-check without --trace: a note, no folder, the runs go on.
  rm -rf "$TMP/pa"
  PATH=$TMP/bin:$PATH FAKE_TRACE=0 run bash -c "set -o pipefail; pinned-arena --size 4K --items 4 --repeats 1 --trace --out '$TMP/pa' 2>&1 >/dev/null | grep -v -e '^bench-summarize' -e '^pinned-arena: warning: .* online CPU'"
  assert_status 0
  assert_output "pinned-arena: note: no trace: this h2d-check has no --trace
pinned-arena: raw rows, receipt and summary in '$TMP/pa/'"
  grep -qx 'note: no trace: this h2d-check has no --trace' "$TMP/pa/receipt.txt"
  [ ! -e "$TMP/pa/trace" ]
  # Nor on the CPU arms: nothing is copied.
  run bash -c "set -o pipefail; pinned-arena --cpu --size 4K --items 4 --repeats 1 --trace --out '$TMP/pc' 2>&1 >/dev/null | grep -v -e '^bench-summarize' -e '^pinned-arena: warning: .* online CPU'"
  assert_status 0
  assert_output "pinned-arena: note: no trace: the CPU arms copy nothing to trace
pinned-arena: raw rows, receipt and summary in '$TMP/pc/'"
  [ ! -e "$TMP/pc/trace" ]
}

@test "h200-session: the commands of a session, a folder that exists refused, no GPU 69" {
  # The session names its folder as 'cd && pwd' does; top_srcdir may be
  # '.../_build/sub/../..' (make distcheck).
  local contrib
  contrib=$(cd "$top_srcdir/contrib" && pwd)
  run h200-session --dry-run --machine h200 --out "$TMP/s" --skip arena-speed,nvbandwidth
  assert_status 0
  assert_output "$contrib/pinned-arena --workers 1,4,8 --repeats 5 --static-workers 4,8 --out $TMP/s/pinned-arena
$contrib/pinned-arena --workers 4 --static-workers 4 --fill-rate 2GB,0 --repeats 5 --out $TMP/s/slowed-producer
$contrib/h2d-sweep --sizes 64K,1M,8M,256M --bytes-per-run 1G --repeats 3 --out $TMP/s/h2d-sweep
$contrib/h2d-sweep --sizes 4K,16K,64K,1M,8M,256M --copy-paths engine,batch,sm,auto --bytes-per-run 512M --repeats 3 --out $TMP/s/copy-paths
$contrib/transfer-overlap --out $TMP/s/transfer-overlap 
$contrib/au-check --repeats 3 --items 128 --steps 500,2000,8000 --out $TMP/s/au
trace_overhead_step $TMP/s/trace-overhead
$contrib/multi-gpu-h2d  --out $TMP/s/multi-gpu-h2d"
  run h200-session --dry-run --quick --machine h200 --out "$TMP/s" --skip pinned-arena,slowed-producer,h2d-sweep,copy-paths,au,trace-overhead,multi-gpu-h2d,nvbandwidth
  assert_status 0
  assert_output "$contrib/transfer-overlap --out $TMP/s/transfer-overlap -- --runs 10
env ARENA_SPEED_SMALL_ITEMS=100000 ARENA_SPEED_REPEAT=1 $contrib/arena-speed $TMP/s/arena-speed"
  mkdir "$TMP/s"
  run h200-session --machine h200 --out "$TMP/s"
  assert_status 64
  assert_output "h200-session: --out: '$TMP/s' exists; a session goes into a new folder"
  gpu_here && skip "this machine has a GPU"
  run h200-session --machine h200 --out "$TMP/t"
  assert_status 69
  assert_output "h200-session: $(no_gpu_why h2d-check): no session to run (pinned-arena --cpu measures the CPU arms)"
  [ ! -e "$TMP/t" ]
}

@test "h2d-sweep --slots: auto gives each size 8 MiB of slots (at least 4); a number holds for every size" {
  fake_gpu
  PATH=$TMP/bin:$PATH run bash -c "h2d-sweep --sizes 64K,3M,16M --bytes-per-run 1M --min-items 1 --repeats 1 --workers 1 --out '$TMP/auto' 2> /dev/null"
  assert_status 0
  # (Every arm's rows: where RLIMIT_MEMLOCK refuses the page-locking, the
  # stand-in's pinned rows say pageable.)
  run bash -c "awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[\$i] = i; next }
               { print \$c[\"size_bytes\"], \$c[\"slots\"] }' '$TMP/auto/raw.csv' | sort -n -u"
  assert_status 0
  assert_output "65536 128
3145728 4
16777216 4"
  grep -qx 'config: .* slots=auto .*' "$TMP/auto/receipt.txt"
  PATH=$TMP/bin:$PATH run bash -c "h2d-sweep --sizes 64K --bytes-per-run 64K --min-items 1 --repeats 1 --workers 1 --slots 5 --out '$TMP/five' 2> /dev/null"
  assert_status 0
  run awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } { print $c["slots"] }' "$TMP/five/raw.csv"
  assert_status 0
  assert_output "5
5
5
5
5
5
5"
  for bad in 0 x -3 auto2; do
    run h2d-sweep --slots "$bad"
    assert_status 64
    assert_output "h2d-sweep: --slots: '$bad' is not a positive integer or auto"
  done
}

@test "h200-session --resume: runs the steps that did not end with status 0, only at the session's commit" {
  local contrib commit
  contrib=$(cd "$top_srcdir/contrib" && pwd)
  # This tree's commit, as every driver's receipt names it.
  pinned-arena --cpu --size 4K --items 4 --repeats 1 --out "$TMP/pa" > /dev/null 2>&1
  commit=$(sed -n 's/^commit: //p' "$TMP/pa/receipt.txt")
  [ -n "$commit" ]
  mkdir -p "$TMP/s/pinned-arena" "$TMP/s/h2d-sweep"
  printf 'commit: %s\nmachine: h200\nsession: full\nstep: pinned-arena, status 0, 90 s: pinned-arena\nstep: h2d-sweep, status 70, 5 s: h2d-sweep\n' \
    "$commit" > "$TMP/s/receipt.txt"
  cp "$TMP/s/receipt.txt" "$TMP/before"
  run h200-session --resume "$TMP/s" --dry-run --skip arena-speed,nvbandwidth
  assert_status 0
  assert_output "$contrib/pinned-arena --workers 4 --static-workers 4 --fill-rate 2GB,0 --repeats 5 --out $TMP/s/slowed-producer
$contrib/h2d-sweep --sizes 64K,1M,8M,256M --bytes-per-run 1G --repeats 3 --out $TMP/s/h2d-sweep
$contrib/h2d-sweep --sizes 4K,16K,64K,1M,8M,256M --copy-paths engine,batch,sm,auto --bytes-per-run 512M --repeats 3 --out $TMP/s/copy-paths
$contrib/transfer-overlap --out $TMP/s/transfer-overlap 
$contrib/au-check --repeats 3 --items 128 --steps 500,2000,8000 --out $TMP/s/au
trace_overhead_step $TMP/s/trace-overhead
$contrib/multi-gpu-h2d  --out $TMP/s/multi-gpu-h2d"
  # A quick session resumes quick.
  sed -i 's/^session: full/session: quick/' "$TMP/s/receipt.txt"
  run h200-session --resume "$TMP/s" --dry-run --skip slowed-producer,copy-paths,transfer-overlap,au,trace-overhead,multi-gpu-h2d,arena-speed,nvbandwidth
  assert_status 0
  assert_output "$contrib/h2d-sweep --sizes 1M,64M --bytes-per-run 512M --repeats 2 --out $TMP/s/h2d-sweep"
  cp "$TMP/before" "$TMP/s/receipt.txt"
  run h200-session --resume "$TMP/s" --out "$TMP/t"
  assert_status 64
  assert_output "h200-session: --resume and --out: the session's folder is DIR of --resume"
  run h200-session --resume "$TMP/pa"
  assert_status 64
  assert_output "h200-session: --resume: '$TMP/pa' holds no session receipt of h200-session"
  sed -i 's/^commit: .*/commit: 0123abcd/' "$TMP/s/receipt.txt"
  run h200-session --resume "$TMP/s"
  assert_status 64
  assert_output "h200-session: --resume: '$TMP/s' was run at commit 0123abcd, this is $commit"
  cp "$TMP/before" "$TMP/s/receipt.txt"
  gpu_here && skip "this machine has a GPU"
  run h200-session --resume "$TMP/s"
  assert_status 69
  # Nothing ran, nothing was removed or written.
  [ -d "$TMP/s/h2d-sweep" ]
  cmp "$TMP/before" "$TMP/s/receipt.txt"
}

@test "h200-session refuses an h2d-check without the ceiling arm or the idle columns (stand-in): 69, nothing written" {
  fake_gpu
  cp "$top_srcdir/contrib/h200-session" "$TMP/bin/"
  PATH=$TMP/bin:$PATH FAKE_CEILING=0 run h200-session --machine h200 --out "$TMP/s"
  assert_status 69
  assert_output "h200-session: this h2d-check has no ceiling arm under --calibrate or no idle_* columns: no session to publish"
  PATH=$TMP/bin:$PATH FAKE_IDLE=0 run h200-session --machine h200 --out "$TMP/s"
  assert_status 69
  assert_output "h200-session: this h2d-check has no ceiling arm under --calibrate or no idle_* columns: no session to publish"
  [ ! -e "$TMP/s" ]
  # The stand-in as it is passes the check: the session would start (its
  # dry run lists the steps; the check runs only before real steps).
  PATH=$TMP/bin:$PATH FAKE_LOG=$TMP/h2d.log run h200-session --machine h200 --out "$TMP/s" --skip pinned-arena,slowed-producer,h2d-sweep,copy-paths,transfer-overlap,au,trace-overhead,multi-gpu-h2d,arena-speed,nvbandwidth
  assert_status 0
  run cat "$TMP/h2d.log"
  assert_status 0
  assert_output "h2d-check --report run
h2d-check --warmup-epochs 1 --report run --calibrate"
  run grep -c '^step: [a-z0-9-]* skipped (--skip)$' "$TMP/s/receipt.txt"
  assert_status 0
  assert_output 10
}


# use_locale NAME: LC_ALL=NAME (e.g. de_DE.UTF-8) for what runs next,
# from the system's locales or, where it lacks NAME, compiled with
# localedef into this run's own LOCPATH; false (the test skips) when
# neither works.
use_locale() {
  local dir=$BATS_RUN_TMPDIR/locales
  if ! locale -a 2> /dev/null | grep -qixF "${1/UTF-8/utf8}"; then
    mkdir -p "$dir"
    [ -d "$dir/$1" ] || localedef -i "${1%%.*}" -f UTF-8 "$dir/$1" > /dev/null 2>&1 || return 1
    export LOCPATH=$dir
  fi
  # The locale took (for the commands run next; this shell's own printf
  # keeps the locale it started with): its decimal point is a comma.
  [ "$(LC_ALL=$1 bash -c "printf '%.1f' 1" 2> /dev/null)" = "1,0" ] || return 1
  { export LC_ALL=$1; } 2> /dev/null
}

@test "pinned-arena writes the same bytes in de_DE and tr_TR as in C: no decimal commas in raw.csv" {
  pinned-arena --cpu --size 4K --items 4 --repeats 2 --out "$TMP/c" > /dev/null 2>&1
  for loc in de_DE.UTF-8 tr_TR.UTF-8; do
    use_locale "$loc" || skip "no $loc locale here and localedef cannot make one"
    run pinned-arena --cpu --size 4K --items 4 --repeats 2 --out "$TMP/$loc"
    assert_status 0
    # Every row has the header's fields, and the numbers a '.'.
    run awk -F, 'NR == 1 { n = NF; next } NF != n { bad++ } END { print NR, bad + 0 }' "$TMP/$loc/raw.csv"
    assert_status 0
    assert_output "$((4 * $(backends | wc -l) + 1)) 0"
    run column seconds < "$TMP/$loc/raw.csv"
    assert_status 0
    [[ "${lines[0]}" =~ ^[0-9]+\.[0-9]+$ ]]
    # The same rows give the same summary, byte for byte, as in C.
    run pinned-arena --from "$TMP/c" --out "$TMP/$loc-from"
    assert_status 0
    cmp "$TMP/c/summary.txt" "$TMP/$loc-from/summary.txt"
    cmp "$TMP/c/summary.csv" "$TMP/$loc-from/summary.csv"
    unset LC_ALL LOCPATH
  done
}

@test "--plot: a quote or backquote in --out is a path, never gnuplot syntax: the figure lands there, nothing else is written or run" {
  command -v gnuplot > /dev/null && gnuplot -e 'set terminal pngcairo' 2> /dev/null || skip "no gnuplot with pngcairo"
  mkdir "$TMP/w"
  cd "$TMP/w"
  run pinned-arena --from "$top_srcdir/tests/data/drivers-pinned-arena" --out 'v"x`touch ran`' --plot
  assert_status 0
  [ "${lines[${#lines[@]} - 2]}" = "pinned-arena: figure 'v\"x\`touch ran\`/items-per-s.png'" ]
  [ "$(head -c 8 'v"x`touch ran`/items-per-s.png' | od -An -tx1 | tr -d ' ')" = 89504e470d0a1a0a ]
  # Only the results folder: no 'v' (gnuplot's output before the quote), no 'ran'.
  run ls -A
  assert_status 0
  assert_output 'v"x`touch ran`'
}

@test "README's apt line installs git: a clone's receipts name its commit, not 'unknown'" {
  run grep -c '^    apt-get update && apt-get install -y .* git && ' "$top_srcdir/README"
  assert_status 0
  assert_output 1
}

@test "receipt.txt names the commit of a tarball's .commit where there is no git" {
  # A tree as a release tarball unpacks: .commit beside contrib/ and src/,
  # no .git, and a git that fails (as where it is not installed).
  mkdir -p "$TMP/tree/contrib" "$TMP/tree/src" "$TMP/bin"
  cp "$top_srcdir/contrib/pinned-arena" "$top_srcdir/contrib/driver-lib.sh" "$TMP/tree/contrib/"
  : > "$TMP/tree/src/arena.c"
  echo 0123456789ab > "$TMP/tree/.commit"
  printf '#!/bin/sh\nexit 127\n' > "$TMP/bin/git"
  chmod +x "$TMP/bin/git"
  PATH=$TMP/bin:$PATH run "$TMP/tree/contrib/pinned-arena" --cpu --size 4K --items 1 --repeats 1 --out "$TMP/pa"
  assert_status 0
  run grep '^commit: ' "$TMP/pa/receipt.txt"
  assert_status 0
  assert_output "commit: 0123456789ab"
  run tail -n 1 "$TMP/pa/summary.txt"
  assert_status 0
  assert_output "# arenabench $ARENABENCH_VERSION (commit 0123456789ab): pinned-arena --cpu --size 4K --items 1 --repeats 1 --out $TMP/pa"
}

@test "the drivers say which: an h2d-check built without CUDA (its --version says so), not 'no GPU here'" {
  mkdir -p "$TMP/bin"
  printf '#!/bin/sh\ncase $1 in --version) printf "h2d-check (arenabench) 0.1.0\\nCUDA support: not built in\\n"; exit 0 ;; esac\necho "h2d-check: built without CUDA support" >&2\nexit 69\n' > "$TMP/bin/h2d-check"
  chmod +x "$TMP/bin/h2d-check"
  cp "$top_srcdir/contrib/pinned-arena" "$top_srcdir/contrib/h2d-sweep" "$top_srcdir/contrib/driver-lib.sh" "$TMP/bin/"
  PATH=$TMP/bin:$PATH run bash -c "h2d-sweep --sizes 64K --out '$TMP/sweep' 2>&1 >/dev/null"
  assert_status 69
  assert_output "h2d-sweep: h2d-check was built without CUDA; nothing to sweep (pinned-arena --cpu measures the CPU arms)"
  PATH=$TMP/bin:$PATH run pinned-arena --size 4K --items 1 --repeats 1 --out "$TMP/pa"
  assert_status 0
  [ "${lines[0]}" = "pinned-arena: note: h2d-check was built without CUDA: running the CPU arms with arena-consume (as --cpu does)" ]
  # In a build tree (config.status beside src/) the reason: the user's
  # configure --without-cuda, or no toolkit found.
  mkdir -p "$TMP/tree/src"
  mv "$TMP/bin/h2d-check" "$TMP/tree/src/"
  printf "#!/bin/sh\necho \"'--without-cuda' 'CUDA_HOME=/usr/local/cuda'\"\n" > "$TMP/tree/config.status"
  chmod +x "$TMP/tree/config.status"
  PATH=$TMP/bin:$TMP/tree/src:$PATH run bash -c "h2d-sweep --sizes 64K --out '$TMP/sweep' 2>&1 >/dev/null"
  assert_status 69
  assert_output "h2d-sweep: h2d-check was built without CUDA (configure --without-cuda); nothing to sweep (pinned-arena --cpu measures the CPU arms)"
  printf "#!/bin/sh\necho \"'--prefix=/opt/ab'\"\n" > "$TMP/tree/config.status"
  PATH=$TMP/bin:$TMP/tree/src:$PATH run bash -c "h2d-sweep --sizes 64K --out '$TMP/sweep' 2>&1 >/dev/null"
  assert_status 69
  assert_output "h2d-sweep: h2d-check was built without CUDA (configure found no CUDA toolkit); nothing to sweep (pinned-arena --cpu measures the CPU arms)"
}

@test "every driver's summary carries its receipt's warnings (transfer-overlap --from)" {
  cp -r "$top_srcdir/tests/data/transfer-overlap" "$TMP/to"
  local w="warning: load average 9.00 on 2 online CPU(s) when the runs began: other processes compete with them, and the figures measure that"
  echo "$w" >> "$TMP/to/receipt.txt"
  run transfer-overlap --from "$TMP/to" --out "$TMP/o"
  assert_status 0
  run tail -n 3 "$TMP/o/summary.txt"
  assert_status 0
  assert_output "$w

# arenabench unknown (commit unknown): transfer-overlap"
}

@test "the drivers take their backends from arena-produce --list-backends" {
  # A stand-in arena-produce that knows the pool only (else the real one,
  # found past it on PATH); the drivers are copied beside it, away from
  # ../src, so that PATH finds it first.
  mkdir -p "$TMP/bin"
  cp "$top_srcdir/contrib/pinned-arena" "$top_srcdir/contrib/h2d-sweep" "$top_srcdir/contrib/h2d-tune" \
     "$top_srcdir/contrib/driver-lib.sh" "$TMP/bin/"
  cat > "$TMP/bin/arena-produce" <<EOF_SH
#!/bin/sh
[ "\$1" = --list-backends ] && { echo pool; exit 0; }
PATH=\${PATH#$TMP/bin:} exec arena-produce "\$@"
EOF_SH
  chmod +x "$TMP/bin/arena-produce"
  PATH=$TMP/bin:$PATH run h2d-sweep --backend ring --out "$TMP/hs"
  assert_status 64
  assert_output "h2d-sweep: --backend: 'ring' is not a backend (pool)"
  PATH=$TMP/bin:$PATH run pinned-arena --cpu --size 4K --items 2 --repeats 1 --workers 1 --out "$TMP/pa"
  assert_status 0
  run grep '^arms: ' "$TMP/pa/receipt.txt"
  assert_status 0
  assert_output "arms: pool-pageable pool-fill"
  # h2d-tune's grid: every backend listed, by default (a dry run prints
  # the commands).
  PATH=$TMP/bin:$PATH run h2d-tune --dry-run --large-sizes '' --small-sizes ''
  assert_status 0
  local grid=$output
  run grep -c -e '--backend pool' <<< "$grid"
  assert_status 0
  assert_output 96
  run grep -c -e '--backend ring' <<< "$grid"
  assert_status 1
}

@test "pinned-arena: intervals that two runs cannot fill say so in summary.txt, not only on stderr" {
  # Two runs an arm, one ten times the other: the mean's interval reaches 0.
  mkdir -p "$TMP/two"
  cp "$top_srcdir/tests/data/drivers-pinned-arena/receipt.txt" "$TMP/two/"
  awk -F, -v OFS=, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; print; next }
    $c["repeat"] == 3 { next }
    $c["repeat"] == 2 && $c["arm"] == "pool-pinned" { $c["items_per_s"] *= 10; $c["gb_per_s"] *= 10 }
    { print }' "$top_srcdir/tests/data/drivers-pinned-arena/raw.csv" > "$TMP/two/raw.csv"
  run pinned-arena --from "$TMP/two" --out "$TMP/tw"
  assert_status 0
  run grep -c "^# warning: column 'items_per_s': the mean's 95% intervals reach 0 or below though every value is positive (.*n=2): too few values for their spread to say anything; more runs (pinned-arena --repeats)$" "$TMP/tw/summary.txt"
  assert_status 0
  assert_output 1
  # Every option the summary and the warnings advise is the driver's own
  # (in its --help), or given as another command's (bench-summarize --ci t).
  pinned-arena --help | grep -o -- '--[a-z][a-z-]*' | sort -u > "$TMP/options"
  run awk 'NR == FNR { own[$0] = 1; next } /^# arenabench / { next }
    { line = $0
      while (match(line, /--[a-z][a-z-]*/)) {
        o = substr(line, RSTART, RLENGTH); before = substr($0, 1, index($0, line) + RSTART - 2)
        if (!(o in own) && before !~ /(bench-summarize|arena-produce|arena-consume|h2d-check|d2h-overlap) /) print FILENAME ": " o ": " $0
        line = substr(line, RSTART + RLENGTH) } }' "$TMP/options" "$TMP/tw/summary.txt" "$TMP/tw/warnings.txt"
  assert_status 0
  assert_output ""
  # Three runs of the fixture: no such line.
  run pinned-arena --from "$top_srcdir/tests/data/drivers-pinned-arena" --out "$TMP/t3"
  assert_status 0
  run grep -c "too few values for their spread" "$TMP/t3/summary.txt"
  assert_status 1
  assert_output 0
}
