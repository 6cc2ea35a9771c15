#!/usr/bin/env bats
# Ranks from the launchers' variables (launcher.c), set by hand per
# launcher; the receipts' rank columns and identity line; the CPU share;
# --compute-us and AU; and the CPU pipeline under a real mpirun.

load test-helper

OMPI='OMPI_COMM_WORLD_RANK=1 OMPI_COMM_WORLD_LOCAL_RANK=1 OMPI_COMM_WORLD_SIZE=4 OMPI_COMM_WORLD_LOCAL_SIZE=2'

@test "--print-rank without a launcher: rank 0 of 1" {
  run arena-consume --print-rank
  assert_status 0
  assert_output "launcher=none rank=0 local_rank=0 world_size=1 local_world_size=1"
}

@test "--print-rank reads each launcher's variables" {
  while IFS='|' read -r vars expected; do
    run env $vars arena-consume --print-rank
    assert_status 0
    assert_output "$expected" || { echo "from: $vars" >&2; return 1; }
  done <<'TABLE'
RANK=3 LOCAL_RANK=1 WORLD_SIZE=8 LOCAL_WORLD_SIZE=4|launcher=torchrun rank=3 local_rank=1 world_size=8 local_world_size=4
RANK=1 LOCAL_RANK=1 WORLD_SIZE=2 LOCAL_WORLD_SIZE=2|launcher=torchrun rank=1 local_rank=1 world_size=2 local_world_size=2
OMPI_COMM_WORLD_RANK=2 OMPI_COMM_WORLD_LOCAL_RANK=0 OMPI_COMM_WORLD_SIZE=4 OMPI_COMM_WORLD_LOCAL_SIZE=2|launcher=openmpi rank=2 local_rank=0 world_size=4 local_world_size=2
PMI_RANK=5 MPI_LOCALRANKID=1 PMI_SIZE=6 MPI_LOCALNRANKS=3|launcher=mpich rank=5 local_rank=1 world_size=6 local_world_size=3
SLURM_PROCID=7 SLURM_LOCALID=3 SLURM_NTASKS=16|launcher=slurm rank=7 local_rank=3 world_size=16 local_world_size=
LOCAL_RANK=1|launcher=torchrun rank= local_rank=1 world_size= local_world_size=
RANK=1 OMPI_COMM_WORLD_RANK=1 WORLD_SIZE=2 OMPI_COMM_WORLD_SIZE=2|launcher=torchrun rank=1 local_rank= world_size=2 local_world_size=
SLURM_PROCID=0 SLURM_NTASKS=1 OMPI_COMM_WORLD_RANK=3 OMPI_COMM_WORLD_SIZE=4|launcher=openmpi rank=3 local_rank= world_size=4 local_world_size=
ARENABENCH_LAUNCHER=slurm SLURM_PROCID=0 SLURM_NTASKS=2 RANK=1 WORLD_SIZE=2|launcher=slurm rank=0 local_rank= world_size=2 local_world_size=
ARENABENCH_LAUNCHER=none RANK=1 WORLD_SIZE=2|launcher=none rank=0 local_rank=0 world_size=1 local_world_size=1
TABLE
}

# launcher_keys LAST: the launchers' keys listed, "torchrun, openmpi,
# mpich, slurm" then LAST and its word ("or none"), or with LAST empty
# the last joined by " or ".
launcher_keys() {
  arena-consume --list-launchers | sed 's/^launcher=\([^ ]*\) .*/\1/' |
    awk -v last="$1" '{ k[++n] = $0 }
      END { for (i = 1; i <= n; i++) printf "%s%s", (i == 1 ? "" : i < n || last != "" ? ", " : " or "), k[i]
            if (last != "") printf " or %s", last; print "" }'
}

@test "every launcher of --list-launchers: its variables give --print-rank, alone or named by ARENABENCH_LAUNCHER" {
  run arena-consume --list-launchers
  assert_status 0
  [ "${#lines[@]}" -ge 4 ]
  local line field name var key expected list=("${lines[@]}") vars
  local -A value=([rank]=1 [local_rank]=0 [world_size]=2 [local_world_size]=1)
  for line in "${list[@]}"; do
    [[ "$line" =~ ^launcher=[a-z0-9_]+(\ (rank|local_rank|world_size|local_world_size)=[A-Z0-9_]*){4}$ ]]
    key= vars=() expected=
    for field in $line; do
      name=${field%%=*} var=${field#*=}
      if [ "$name" = launcher ]; then
        key=$var expected="launcher=$key"
      elif [ -n "$var" ]; then
        vars+=("$var=${value[$name]}") expected+=" $name=${value[$name]}"
      else
        expected+=" $name="
      fi
    done
    run env "${vars[@]}" arena-consume --print-rank
    assert_status 0
    assert_output "$expected"
    run env ARENABENCH_LAUNCHER="$key" "${vars[@]}" arena-consume --print-rank
    assert_status 0
    assert_output "$expected"
  done
  run env ARENABENCH_LAUNCHER=pbs arena-consume --print-rank
  assert_status 64
  assert_output "arena-consume: ARENABENCH_LAUNCHER: 'pbs' is not $(launcher_keys none)"
}

@test "arenabench(7) lists every launcher of --list-launchers: its variables in RANKS, its key under ARENABENCH_LAUNCHER" {
  local page=$top_srcdir/man/arenabench.7 var
  run grep -cF "$(launcher_keys '')" "$page"
  assert_status 0
  assert_output 2
  for var in $(launcher_vars); do
    sed -n '/^\.SH RANKS/,/^\.TE/p' "$page" | tr '\t' '\n' | grep -qx "$var" ||
      { echo "arenabench(7)'s RANKS table does not name $var" >&2; return 1; }
  done
}

@test "launchers that disagree, ranks beyond their size, a local world beyond the world, are usage errors naming the variables" {
  usage_errors <<'TABLE'
env RANK=2 OMPI_COMM_WORLD_RANK=1 arena-consume --print-rank|arena-consume: the launchers disagree on the rank: RANK=2 (torchrun) but OMPI_COMM_WORLD_RANK=1 (Open MPI)
env OMPI_COMM_WORLD_SIZE=4 PMI_SIZE=2 arena-consume --print-rank|arena-consume: the launchers disagree on the world_size: OMPI_COMM_WORLD_SIZE=4 (Open MPI) but PMI_SIZE=2 (MPICH)
env LOCAL_RANK=0 MPI_LOCALRANKID=1 arena-consume --print-rank|arena-consume: the launchers disagree on the local_rank: LOCAL_RANK=0 (torchrun) but MPI_LOCALRANKID=1 (MPICH)
env RANK=4 WORLD_SIZE=4 arena-consume --print-rank|arena-consume: RANK=4 is not below WORLD_SIZE=4
env RANK=0 WORLD_SIZE=2 LOCAL_RANK=0 LOCAL_WORLD_SIZE=3 arena-consume --print-rank|arena-consume: LOCAL_WORLD_SIZE=3 is above WORLD_SIZE=2: a host's ranks are more than the world's
env OMPI_COMM_WORLD_LOCAL_RANK=2 OMPI_COMM_WORLD_LOCAL_SIZE=2 arena-consume --print-rank|arena-consume: OMPI_COMM_WORLD_LOCAL_RANK=2 is not below OMPI_COMM_WORLD_LOCAL_SIZE=2
env SLURM_PROCID=1 SLURM_LOCALID=2 SLURM_NTASKS=2 arena-consume --print-rank|arena-consume: SLURM_LOCALID=2 is not below SLURM_NTASKS=2
env SLURM_LOCALID=0 SLURM_NTASKS=0 arena-consume --print-rank|arena-consume: SLURM_NTASKS=0: no ranks
env RANK=x arena-consume --print-rank|arena-consume: RANK: invalid number 'x'
TABLE
}

@test "h2d-check --print-rank answers without a GPU" {
  run env PMI_RANK=1 PMI_SIZE=2 h2d-check --print-rank
  assert_status 0
  assert_output "launcher=mpich rank=1 local_rank= world_size=2 local_world_size="
}

@test "every receipt names its rank, host and device; no launcher: rank 0 of 1, no identity line" {
  run bash -c "set -o pipefail; arena-produce --size 4K --items 3 | arena-consume 2> '$TMP/err' | columns rank local_rank world_size host device"
  assert_status 0
  h=$(hostname)
  assert_output "rank,local_rank,world_size,host,device
0,0,1,$h,cpu
0,0,1,$h,cpu
0,0,1,$h,cpu"
  [ ! -s "$TMP/err" ]
}

@test "under a launcher: the rank columns of items and run report, and one identity line" {
  run bash -c "set -o pipefail; arena-produce --size 4K --items 2 | env $OMPI arena-consume 2> '$TMP/err' | columns rank local_rank world_size device"
  assert_status 0
  assert_output "rank,local_rank,world_size,device
1,1,4,cpu
1,1,4,cpu"
  run bash -c "set -o pipefail; arena-produce --size 4K --items 2 | env $OMPI arena-consume --report run 2> /dev/null | columns rank local_rank world_size host device"
  assert_status 0
  assert_output "rank,local_rank,world_size,host,device
1,1,4,$(hostname),cpu"
  run cat "$TMP/err"
  assert_status 0
  [[ $output =~ ^arena-consume:\ rank\ 1\ of\ 4\ \(local\ 1\ of\ 2,\ Open\ MPI\):\ host\ $(hostname),\ pid\ [0-9]+,\ device\ cpu\ \(CPUs\ [0-9\;-]+\)$ ]]
}

# The affinity this shell may use is every online CPU: nothing bound us.
unbound() {
  [ "$(nproc)" -ge 2 ] && [ "$(nproc)" -eq "$(getconf _NPROCESSORS_ONLN)" ]
}

@test "local rank K of L on an unbound host runs on the K-th share of its CPUs" {
  unbound || skip "needs 2 or more CPUs, all of them allowed to this test ($(nproc) of $(getconf _NPROCESSORS_ONLN))"
  n=$(getconf _NPROCESSORS_ONLN)
  # The last share of two: CPUs n/2 .. n-1.
  first=$(( n / 2 )) last=$(( n - 1 ))
  expected=$first; [ "$last" -gt "$first" ] && expected="$first-$last"
  run bash -c "set -o pipefail; arena-produce --size 4K --items 20 | env LOCAL_RANK=1 LOCAL_WORLD_SIZE=2 arena-consume --report run 2> /dev/null | column consumer_cpus"
  assert_status 0
  # consumer_cpus lists the CPUs it was seen on: within its share.
  for cpu in $(echo "$output" | tr ';' '\n' | awk -F- '{ for (c = $1; c <= ($2 == "" ? $1 : $2); c++) print c }'); do
    [ "$cpu" -ge "$first" ] || { echo "ran on CPU $cpu, share $expected" >&2; return 1; }
    [ "$cpu" -le "$last" ] || { echo "ran on CPU $cpu, share $expected" >&2; return 1; }
  done
  run bash -c "set -o pipefail; arena-produce --size 4K --items 2 | env LOCAL_RANK=1 LOCAL_WORLD_SIZE=2 arena-consume --report run 2>&1 >/dev/null"
  assert_status 0
  [[ $output == *"device cpu (CPUs $expected)" ]]
}

@test "a process the launcher bound keeps its binding" {
  command -v taskset > /dev/null || skip "taskset not installed (Debian: util-linux)"
  unbound || skip "needs 2 or more CPUs, all of them allowed to this test"
  run bash -c "set -o pipefail; arena-produce --size 4K --items 2 | env LOCAL_RANK=1 LOCAL_WORLD_SIZE=2 taskset -c 0 arena-consume --report run 2>&1 >/dev/null"
  assert_status 0
  [[ $output == *"device cpu (CPUs 0)" ]]
}

@test "--compute-us: compute_s is the measured items times the step, AU its share of the window" {
  run bash -c 'set -o pipefail; arena-produce --size 4K --items 10 --epochs 2 | arena-consume --warmup-epochs 1 --compute-us 2000 --report run | columns items compute_us compute_s'
  assert_status 0
  assert_output "items,compute_us,compute_s
10,2000,0.020000"
  run bash -c 'arena-produce --size 4K --items 10 | arena-consume --compute-us 2000 --report run'
  assert_status 0
  au=$(printf '%s\n' "$output" | column au)
  seconds=$(printf '%s\n' "$output" | column seconds)
  # The steps run one after another inside the window: AU is their time
  # over the window's, at most 1, and the window lasts at least 20 ms.
  awk -v au="$au" -v s="$seconds" 'BEGIN { exit !(au > 0 && au <= 1 && s >= 0.02 && (au - 0.02 / s) ^ 2 < 1e-6) }'
}

@test "without --compute-us the AU columns are empty" {
  run bash -c 'set -o pipefail; arena-produce --size 4K --items 2 | arena-consume --report run | columns compute_us compute_s au'
  assert_status 0
  assert_output "compute_us,compute_s,au
,,"
}

@test "--compute-us is bounded" {
  usage_errors <<'TABLE'
arena-consume --compute-us 1000001|arena-consume: --compute-us: '1000001' out of range [0, 1000000]
arena-consume --compute-us x|arena-consume: --compute-us: invalid number 'x'
TABLE
}

# What CI runs (.ci/run installs Debian's openmpi-bin): four ranks of the
# CPU pipeline on this host under Open MPI's mpirun, each writing its
# run report, reduced by bench-summarize.
@test "mpirun -np 4: each rank's pipeline, its rank in its report, reduced by bench-summarize" {
  command -v mpirun > /dev/null || skip "mpirun not installed (Debian: openmpi-bin)"
  mpirun --version 2> /dev/null | grep -q 'Open MPI' || skip "this mpirun is not Open MPI's ($(mpirun --version 2>&1 | head -n 1))"
  run mpirun -np 4 --oversubscribe --allow-run-as-root \
    bash -c 'arena-produce --size 4K --items 20 | arena-consume --report run > "$0/rank-$OMPI_COMM_WORLD_RANK.csv"' "$TMP"
  assert_status 0
  [ "$(grep -c '^arena-consume: rank [0-3] of 4 (local [0-3] of 4, Open MPI)' <<<"$output")" -eq 4 ]
  run bash -c 'set -o pipefail; bench-summarize --reduce sum --value items --format csv "$0"/rank-*.csv | columns rank column value reduce ranks' "$TMP"
  assert_status 0
  assert_output "rank,column,value,reduce,ranks
0,items,20,,
1,items,20,,
2,items,20,,
3,items,20,,
,items,80,sum,4"
  for r in 0 1 2 3; do
    [ "$(column world_size < "$TMP/rank-$r.csv")" = 4 ]
    [ "$(column rank < "$TMP/rank-$r.csv")" = "$r" ]
  done
}

# The drivers ask arena-consume for the rank (drv_rank), never the
# variables themselves: the same answers, the same refusals.
@test "driver-lib's drv_rank gives what --print-rank gives" {
  run env PMI_RANK=3 PMI_SIZE=4 MPI_LOCALRANKID=1 bash -c 'prog=t; cd "$0" && . ./driver-lib.sh && drv_rank && echo "$drv_launcher|$drv_rank_id|$drv_local_rank|$drv_world_size|$drv_local_world_size"' "$top_srcdir/contrib"
  assert_status 0
  assert_output "mpich|3|1|4|"
  run env RANK=1 PMI_RANK=0 bash -c 'prog=t; cd "$0" && . ./driver-lib.sh && drv_rank && echo reached' "$top_srcdir/contrib"
  assert_status 64
  assert_output "arena-consume: the launchers disagree on the rank: RANK=1 (torchrun) but PMI_RANK=0 (MPICH)"
}

@test "multi-gpu-h2d: the GPUs fed together, reduced per repeat by the rule it names" {
  mkdir "$TMP/in"
  printf 'command: multi-gpu-h2d --repeats 2\n' > "$TMP/in/receipt.txt"
  cat > "$TMP/in/raw.csv" <<'CSV'
repeat,phase,numa_node,arm,size_bytes,workers,items,seconds,gb_per_s,rank,world_size,host,device
1,alone,,pool-pinned,8388608,2,256,0.1,40.0,0,2,n1,0
1,alone,,pool-pinned,8388608,2,256,0.1,38.0,1,2,n1,1
1,together,,pool-pinned,8388608,2,256,0.1,30.0,0,2,n1,0
1,together,,pool-pinned,8388608,2,256,0.1,20.0,1,2,n1,1
2,together,,pool-pinned,8388608,2,256,0.1,28.0,0,2,n1,0
2,together,,pool-pinned,8388608,2,256,0.1,22.0,1,2,n1,1
CSV
  run multi-gpu-h2d --from "$TMP/in" --out "$TMP/out" --reduce sum
  assert_status 0
  run sed -n '/^# fed together, per repeat/,/^$/p' "$TMP/out/summary.txt"
  assert_status 0
  assert_output "# fed together, per repeat: each GPU's GB/s (as rank N) and their
# aggregate by bench-summarize --reduce sum
# --reduce sum over the ranks of each group: gb_per_s: the sum over the ranks
repeat  rank      host  device  gb_per_s
1       0         n1    0       30
1       1         n1    1       20
1       sum of 2                50
2       0         n1    0       28
2       1         n1    1       22
2       sum of 2                50"
  run multi-gpu-h2d --from "$TMP/in" --out "$TMP/out2" --reduce median
  assert_status 64
  assert_output "multi-gpu-h2d: --reduce: 'median' is not slowest, sum, mean, min or max"
}

@test "pinned-arena --compute-us: each arm's AU with its interval over the runs (CPU arms)" {
  run pinned-arena --cpu --size 64K --items 16 --repeats 2 --compute-us 1000 --out "$TMP/pa"
  assert_status 0
  run sed -n '/^# AU/,/^$/p' "$TMP/pa/summary.txt"
  assert_status 0
  [ "${#lines[@]}" -eq 8 ]
  [ "${lines[0]}" = "# AU (accelerator utilization) at a 1000 us step per item: the share of each" ]
  [ "${lines[5]}" = "producers  arm            n  AU % [95% CI]" ]
  # raw.csv's au has 4 decimals: two runs near 98.5% can tie there, and
  # two equal values have no interval (bench-summarize says so).
  local au='[0-9.]+ (\[[0-9.]+, [0-9.]+\]|\(no CI\))'
  [[ ${lines[6]} =~ ^1\ +pool-pageable\ +2\ +$au$ ]]
  [[ ${lines[7]} =~ ^1\ +ring-pageable\ +2\ +$au$ ]]
  # Every pipeline run stepped; the fill-only runs did not.
  run bash -c "columns arm compute_us < '$TMP/pa/raw.csv' | sort -u"
  assert_status 0
  assert_output "arm,compute_us
pool-fill,
pool-pageable,1000
ring-fill,
ring-pageable,1000"
  run pinned-arena --compute-us 1x --out "$TMP/pa2"
  assert_status 64
  assert_output "pinned-arena: --compute-us: '1x' is not a positive integer"
}

# A stand-in nvidia-smi (two GPUs) and h2d-check (arena-consume
# underneath, tests/data/drivers-fake-h2d-check), the drivers copied away
# from ../src so that PATH finds them.
fake_two_gpus() {
  mkdir -p "$TMP/bin"
  cp "$top_srcdir/tests/data/drivers-fake-h2d-check" "$TMP/bin/h2d-check"
  cp "$top_srcdir/contrib/multi-gpu-h2d" "$top_srcdir/contrib/pinned-arena" "$top_srcdir/contrib/driver-lib.sh" "$TMP/bin/"
  printf '#!/bin/sh\ncase "$*" in *--query-gpu=index*) printf "0\\n1\\n" ;; esac\n' > "$TMP/bin/nvidia-smi"
  chmod +x "$TMP/bin/nvidia-smi"
}

@test "multi-gpu-h2d under a launcher: this rank's pipeline only, its report named and stamped with its rank" {
  fake_two_gpus
  PATH=$TMP/bin:$PATH run env OMPI_COMM_WORLD_RANK=3 OMPI_COMM_WORLD_LOCAL_RANK=1 OMPI_COMM_WORLD_SIZE=4 OMPI_COMM_WORLD_LOCAL_SIZE=2 \
    multi-gpu-h2d --size 4K --items 4 --workers 1 --numa no --out "$TMP/run"
  assert_status 0
  run ls "$TMP/run"
  assert_status 0
  assert_output "rank-$(hostname)-3.csv"
  run bash -c "columns phase rank local_rank world_size < '$TMP/run/rank-$(hostname)-3.csv'"
  assert_status 0
  assert_output "phase,rank,local_rank,world_size
together,3,1,4"
  PATH=$TMP/bin:$PATH run env RANK=1 OMPI_COMM_WORLD_RANK=3 multi-gpu-h2d --out "$TMP/run2"
  assert_status 64
  assert_output "arena-consume: the launchers disagree on the rank: RANK=1 (torchrun) but OMPI_COMM_WORLD_RANK=3 (Open MPI)"
}

@test "pinned-arena --compute-us on the GPU arms (stand-in h2d-check): every pipeline run steps, an AU row per arm" {
  fake_two_gpus
  PATH=$TMP/bin:$PATH FAKE_STAGED=0 FAKE_LOG=$TMP/h2d.log run bash -c "pinned-arena --size 4K --items 4 --repeats 2 --compute-us 500 --out '$TMP/pa' 2> /dev/null"
  assert_status 0
  # (The runs, less the check of the options before them: --help last.)
  run bash -c "grep -- '--report run --compute-us 500' '$TMP/h2d.log' | grep -vc -- '--help\$'"
  assert_status 0
  assert_output 8
  run bash -c "sed -n '/^producers  arm            n  AU/,/^\$/p' '$TMP/pa/summary.txt' | awk 'NF { print \$1, \$2, \$3 }'"
  assert_status 0
  assert_output "producers arm n
1 pool-pinned 2
1 pool-pageable 2
1 ring-pinned 2
1 ring-pageable 2"
}
