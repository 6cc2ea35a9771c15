# Baseline diagnosis: probe, pipelines with the per-item trace, small items.
. .dev/setup.sh || exit 1
R=$OUT/r; mkdir -p $R
/tmp/probe 8 1.0 4,8 0 4 | tee $R/probe.csv
run() { # name, then producer args, then -- consumer args
  local name=$1; shift; local p=() c=()
  while [ "$1" != -- ]; do p+=("$1"); shift; done; shift; c=("$@")
  ARENABENCH_H2D_TRACE=$R/trace-$name.csv arena-produce "${p[@]}" | h2d-check --warmup-epochs 1 --report run "${c[@]}" > $R/run-$name.csv 2>$R/err-$name.txt
  echo "$name rc=$? $(awk -F, 'NR==1{for(i=1;i<=NF;i++)h[$i]=i} NR==2{print $h["items_per_s"], $h["gb_per_s"]}' $R/run-$name.csv)"
}
for W in 4 8; do for B in pool ring; do for rep in 1 2; do
  run $B-$W-def-$rep --backend $B --pin --workers $W --size 8MiB --items $((1024/W)) --epochs 2 --slots 4 -- --inflight 4
  run $B-$W-nov-$rep --backend $B --pin --workers $W --size 8MiB --items $((1024/W)) --epochs 2 --slots 4 -- --inflight 4 --no-verify
done; done; done
run pool-4-long --backend pool --pin --workers 4 --size 8MiB --items 1024 --epochs 2 --slots 4 -- --inflight 4
run pool-4-inf8 --backend pool --pin --workers 4 --size 8MiB --items 256 --epochs 2 --slots 4 -- --inflight 8
run pool-4-64k --backend pool --pin --workers 4 --size 64KiB --items 8192 --epochs 2 --slots 128 -- --inflight 4
run pool-4-1m --backend pool --pin --workers 4 --size 1MiB --items 2048 --epochs 2 --slots 8 -- --inflight 4
/tmp/probe 1 1.0 4 0 8 | tee $R/probe-1m.csv
for B in pool ring; do for V in "" --no-verify; do
 arena-produce --backend $B --size 4KiB --items 500000 --epochs 2 --slots 64 | arena-consume --warmup-epochs 1 --report run $V > $R/cpu4k-$B$V.csv
 echo "cpu4k $B $V: $(awk -F, 'NR==1{for(i=1;i<=NF;i++)h[$i]=i} NR==2{print $h["items_per_s"]}' $R/cpu4k-$B$V.csv)"
done; done
lscpu | head -20 > $R/lscpu.txt
tar -czf $OUT/r1.tgz -C $OUT r
