#!/usr/bin/env bats
# d2h-overlap: options, errors, the no-GPU path, and (on a GPU) real runs.

load test-helper   # its setup and teardown: a fresh $TMP, no arena left

HEADER='trial,schedule_order,method,total_bytes,num_tensors,compute_only_ms,transfer_only_ms,serialized_ms,concurrent_ms,speedup,hidden_ms,overlap_efficiency,cpu_launch_skew_ms,transfer_gbps,raw_pinned_gbps,compute_iterations,matrix_size,compute_target_ms,seed,gpu,compute_capability,driver,cuda,cuda_driver,pcie,cpu,arenabench'

# A small, quick run on the GPU: 8 MiB, a 256 SGEMM repeated twice.
SMALL='--total-mib 8 --num-tensors 1,4 --matrix-size 256 --compute-iterations 2 --warmup 1 --runs 3 --seed 7'

# Checks every data row of $output: field count, method names, sizes, and
# every time and rate positive.
check_rows() {
  local methods=$1 totals=$2 counts=$3
  printf '%s\n' "$output" | awk -F, -v methods="$methods" -v totals="$totals" \
    -v counts="$counts" -v want="$(printf '%s' "$HEADER" | awk -F, '{ print NF }')" '
    BEGIN { n = split(methods, m, ","); for (i = 1; i <= n; i++) okm[m[i]] = 1
            n = split(totals, t, ","); for (i = 1; i <= n; i++) okt[t[i] * 1048576] = 1
            n = split(counts, c, ","); for (i = 1; i <= n; i++) okc[c[i]] = 1 }
    NR == 1 { next }
    NF != want { print "line " NR ": " NF " fields, want " want; bad = 1 }
    !($3 in okm) { print "line " NR ": method " $3; bad = 1 }
    !($4 in okt) { print "line " NR ": total_bytes " $4; bad = 1 }
    !($5 in okc) { print "line " NR ": num_tensors " $5; bad = 1 }
    { for (f = 6; f <= 10; f++) if (!($f > 0)) { print "line " NR ": field " f " = " $f; bad = 1 }
      if (!($13 >= 0) || !($14 > 0) || !($15 > 0) || !($16 > 0)) { print "line " NR ": rates " $13 " " $14 " " $15 " " $16; bad = 1 } }
    END { exit bad }'
}

@test "d2h-overlap --help prints usage and exits 0" {
  run d2h-overlap --help
  assert_status 0
  [ "${lines[0]}" = "Usage: d2h-overlap [OPTION]..." ]
  for option in --device --total-mib --num-tensors --matrix-size --compute-ms \
                --compute-iterations --warmup --runs --methods --seed --help --version; do
    printf '%s\n' "$output" | grep -q -- "^ *$option "
  done
}

@test "d2h-overlap --version names the package and version" {
  run d2h-overlap --version
  assert_status 0
  [ "${lines[0]}" = "d2h-overlap (arenabench) $ARENABENCH_VERSION" ]
}

@test "d2h-overlap rejects bad options and values with exit 64 before touching a GPU" {
  # arguments | exact stderr (first line)
  while IFS='|' read -r args message; do
    [ -n "$args" ] || continue
    # shellcheck disable=SC2086
    run d2h-overlap $args
    if [ "$status" -ne 64 ] || [ "${lines[0]}" != "$message" ]; then
      printf 'args: %s\nwant 64: %s\ngot %s: %s\n' "$args" "$message" "$status" "$output" >&2
      return 1
    fi
  done <<'EOF'
--bogus|d2h-overlap: unrecognized option '--bogus'
--runs|d2h-overlap: option '--runs' requires an argument
--runs 0|d2h-overlap: --runs: '0' out of range [1, 100000]
--runs ten|d2h-overlap: --runs: invalid number 'ten'
--warmup -1|d2h-overlap: --warmup: invalid number '-1'
--total-mib 0|d2h-overlap: --total-mib: '0' out of range [1, 16384]
--total-mib 64,,8|d2h-overlap: --total-mib: empty item in list '64,,8'
--total-mib 64MiB|d2h-overlap: --total-mib: invalid number '64MiB'
--num-tensors 0|d2h-overlap: --num-tensors: '0' out of range [1, 65536]
--num-tensors 1,x|d2h-overlap: --num-tensors: invalid number 'x'
--matrix-size 100|d2h-overlap: --matrix-size: '100' is not a multiple of 64
--matrix-size 32|d2h-overlap: --matrix-size: '32' out of range [64, 16384]
--compute-ms 0|d2h-overlap: --compute-ms: '0' out of range [0.01, 60000]
--compute-ms nan|d2h-overlap: --compute-ms: invalid number 'nan'
--compute-iterations 0|d2h-overlap: --compute-iterations: '0' out of range [1, 100000]
--methods direct,bogus|d2h-overlap: --methods: invalid choice 'bogus' (choose from 'direct', 'batched', 'pageable', 'gather')
--methods batched,batched|d2h-overlap: --methods: 'batched' given twice
--methods direct,|d2h-overlap: --methods: empty item in list 'direct,'
--device gpu0|d2h-overlap: --device: invalid number 'gpu0'
--device 5000|d2h-overlap: --device: '5000' out of range [0, 1023]
--seed -3|d2h-overlap: --seed: invalid number '-3'
extra|d2h-overlap: unexpected argument 'extra'
EOF
}

@test "d2h-overlap points to --help after a usage error" {
  run d2h-overlap --runs 0 --bogus
  assert_status 64
  assert_output "d2h-overlap: --runs: '0' out of range [1, 100000]"
  run d2h-overlap extra
  assert_status 64
  assert_output "d2h-overlap: unexpected argument 'extra'
Try 'd2h-overlap --help' for more information."
}

@test "d2h-overlap without a CUDA build exits 69: built without CUDA support" {
  ! cuda_build || skip "this is a CUDA build"
  run d2h-overlap --runs 1
  assert_status 69
  assert_output "d2h-overlap: built without CUDA support"
}

@test "d2h-overlap on a machine without a GPU exits 69: no CUDA device available" {
  require_cuda_build
  ! gpu_listed || skip "this machine has a GPU (the hidden-GPU test covers it)"
  run d2h-overlap --runs 1
  assert_status 69
  assert_output "d2h-overlap: no CUDA device available"
}

@test "d2h-overlap with every GPU hidden exits 69 and prints nothing on stdout" {
  require_cuda_build
  run env CUDA_VISIBLE_DEVICES=-1 d2h-overlap --runs 1
  assert_status 69
  assert_output "d2h-overlap: no CUDA device available"
  env CUDA_VISIBLE_DEVICES=-1 d2h-overlap --runs 1 >"$TMP/out" 2>/dev/null || true
  [ ! -s "$TMP/out" ]
}

@test "d2h-overlap: a GPU that does not exist exits 69" {
  require_gpu
  count=$(nvidia-smi -L | grep -c '^GPU')
  run d2h-overlap --device 1023 $SMALL
  assert_status 69
  assert_output "d2h-overlap: CUDA device 1023 does not exist ($count available)"
}

@test "d2h-overlap: a local rank beyond the GPUs shares one, the rank modulo the GPUs" {
  require_gpu
  count=$(nvidia-smi -L | grep -c '^GPU')
  # LOCAL_RANK picks the default --device; ranks past the last GPU wrap
  # round (gpu.h), so 1023 runs on GPU 1023 % count, as --device would.
  run env LOCAL_RANK=1023 d2h-overlap $SMALL
  assert_status 0
  printf '%s\n' "$output" > "$TMP/rank.csv"
  run d2h-overlap --device $((1023 % count)) $SMALL
  assert_status 0
  printf '%s\n' "$output" > "$TMP/device.csv"
  [ "$(column pcie < "$TMP/rank.csv" | sort -u)" = "$(column pcie < "$TMP/device.csv" | sort -u)" ]
  [ "$(column pcie < "$TMP/rank.csv" | sort -u | wc -l)" -eq 1 ]
}

@test "d2h-overlap: a malformed LOCAL_RANK is a usage error" {
  require_gpu
  run env LOCAL_RANK=first d2h-overlap $SMALL
  assert_status 64
  assert_output "d2h-overlap: LOCAL_RANK: invalid number 'first'"
}

@test "d2h-overlap: one row per block and method, every value in place" {
  require_gpu
  run d2h-overlap $SMALL
  assert_status 0
  [ "${lines[0]}" = "$HEADER" ]
  # 2 tensor counts x 3 runs x 3 default methods
  [ "${#lines[@]}" -eq 19 ]
  check_rows direct,batched,pageable 8 1,4
  # Trials 0..2 for each case and method, and the receipt as given.
  [ "$(printf '%s\n' "$output" | awk -F, 'NR > 1 { print $1 }' | sort | uniq -c | awk '{ print $1 ":" $2 }' | tr '\n' ' ')" = "6:0 6:1 6:2 " ]
  [ "$(printf '%s\n' "$output" | awk -F, 'NR > 1 { print $16 "," $17 "," $18 "," $19 }' | sort -u)" = "2,256,,7" ]
  [ "$(printf '%s\n' "$output" | awk -F, 'NR > 1 { print $27 }' | sort -u)" = "$ARENABENCH_VERSION" ]
}

@test "d2h-overlap: each block's schedule holds every case once, from the seed" {
  require_gpu
  run d2h-overlap $SMALL --methods batched,gather
  assert_status 0
  first=$(printf '%s\n' "$output" | awk -F, 'NR > 1 { print $1, $2, $3 }')
  # Every schedule: compute once, each method's three cases once.
  printf '%s\n' "$output" | awk -F, 'NR > 1 { n = split($2, s, "|"); if (n != 7) exit 1
      delete seen; for (i = 1; i <= n; i++) { if (s[i] in seen) exit 1; seen[s[i]] = 1 }
      if (!("compute" in seen) || !("gather:concurrent" in seen) || !("batched:transfer" in seen)) exit 1 }'
  # Not all blocks in the same order, and the same seed gives the same orders.
  [ "$(printf '%s\n' "$output" | awk -F, 'NR > 1 { print $2 }' | sort -u | wc -l)" -gt 1 ]
  run d2h-overlap $SMALL --methods batched,gather
  assert_status 0
  [ "$(printf '%s\n' "$output" | awk -F, 'NR > 1 { print $1, $2, $3 }')" = "$first" ]
}

@test "d2h-overlap: every method's bytes are checked, and a corrupted byte is caught" {
  require_gpu
  for method in direct batched pageable gather; do
    run d2h-overlap $SMALL --methods "$method"
    assert_status 0
    run env ARENABENCH_D2H_FAULT="$method" d2h-overlap $SMALL --num-tensors 4 --methods "$method"
    assert_status 1
    # 8 MiB in 4 tensors of 2 MiB: byte 1048576 of the last is flipped.
    case "$output" in
      "d2h-overlap: $method: tensor 3 byte 1048576: expected 0x"*", got 0x"*) ;;
      *) printf 'unexpected: %s\n' "$output" >&2; return 1 ;;
    esac
  done
  # 256 tensors spread the batched copy over several lanes; the last lane's
  # last tensor (32 KiB) is the one corrupted.
  run d2h-overlap $SMALL --num-tensors 256 --methods batched
  assert_status 0
  run env ARENABENCH_D2H_FAULT=batched d2h-overlap $SMALL --num-tensors 256 --methods batched
  assert_status 1
  case "$output" in
    "d2h-overlap: batched: tensor 255 byte 16384: expected 0x"*", got 0x"*) ;;
    *) printf 'unexpected: %s\n' "$output" >&2; return 1 ;;
  esac
}

@test "d2h-overlap: calibration lands near --compute-ms" {
  require_gpu
  run d2h-overlap --total-mib 8 --num-tensors 1 --methods batched --compute-ms 4 --warmup 1 --runs 5 --seed 3
  assert_status 0
  check_rows batched 8 1
  # The median compute-only time within 40% of the target.
  median=$(printf '%s\n' "$output" | awk -F, 'NR > 1 { print $6 }' | sort -g | sed -n 3p)
  awk -v m="$median" 'BEGIN { exit !(m > 2.4 && m < 5.6) }'
  [ "$(printf '%s\n' "$output" | awk -F, 'NR > 1 { print $18 }' | sort -u)" = "4" ]
}

# --- the examples of man/d2h-overlap.1 -------------------------------------

@test "d2h-overlap(1) example: the seed's cases" {
  require_gpu
  run sh -c 'd2h-overlap --total-mib 64 --num-tensors 1,32,256 --runs 30 --warmup 5 --seed 1 > "$1" && wc -l < "$1"' sh "$TMP/overlap.csv"
  assert_status 0
  assert_output "271"
  output=$(cat "$TMP/overlap.csv")
  check_rows direct,batched,pageable 64 1,32,256
}

@test "d2h-overlap(1) example: batched transfers alone, with gather beside them" {
  require_gpu
  run sh -c "d2h-overlap --methods batched,gather --num-tensors 256 --runs 5 --warmup 1 --seed 2 > '$TMP/d2h.csv'"
  assert_status 0
  # columns is a function of test-helper: it runs here, not in sh -c.
  run columns method num_tensors transfer_only_ms transfer_gbps raw_pinned_gbps < "$TMP/d2h.csv"
  assert_status 0
  [ "${lines[0]}" = "method,num_tensors,transfer_only_ms,transfer_gbps,raw_pinned_gbps" ]
  [ "${#lines[@]}" -eq 11 ]
  [ "$(printf '%s\n' "$output" | awk -F, 'NR > 1 { print $1 "," $2 }' | sort | uniq -c | awk '{ print $1 ":" $2 }' | tr '\n' ' ')" = "5:batched,256 5:gather,256 " ]
}

@test "d2h-overlap(1) example: the speedup table through bench-summarize" {
  require_gpu
  if ! command -v bench-summarize >/dev/null 2>&1; then
    skip "bench-summarize not built"
  fi
  run sh -c 'd2h-overlap --num-tensors 1,32 --runs 10 --warmup 2 --seed 4 | bench-summarize --by method,num_tensors --ratio serialized_ms/concurrent_ms --ci-stat median'
  assert_status 0
  # bench-summarize's layout is its own; every method must appear in it.
  for method in direct batched pageable; do
    printf '%s\n' "$output" | grep -q "$method"
  done
}
