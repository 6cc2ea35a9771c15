# Diagnosis 2: per-item traces (env trace), rows teed, knobs.
. .dev/setup.sh || exit 1
R=$OUT/r; mkdir -p $R
/tmp/probe 8 1.0 4,8 0 4 | tee $R/probe.csv
run() { # name, then producer args, then -- consumer args
  local name=$1; shift; local p=() c=()
  while [ "$1" != -- ]; do p+=("$1"); shift; done; shift; c=("$@")
  $PWRAP arena-produce "${p[@]}" | tee $R/rows-$name.csv | ARENABENCH_H2D_TRACE=$R/trace-$name.csv $CWRAP h2d-check --warmup-epochs 1 --report items "${c[@]}" > $R/items-$name.csv 2>$R/err-$name.txt
  echo "$name rc=$? $(awk -F, 'NR==1{for(i=1;i<=NF;i++)h[$i]=i} NR>1{n++} END{print n}' $R/items-$name.csv) $(python3 -c "
import csv,sys
r=list(csv.DictReader(open('$R/trace-$name.csv')))
r=r[len(r)//2:]
t0=float(r[0]['copy_start_ms']);t1=float(r[-1]['copy_stop_ms'])
busy=sum(float(x['copy_stop_ms'])-float(x['copy_start_ms']) for x in r)
print('items/s %.0f busy %.3f' % ((len(r)-1)/((t1-t0)/1e3), busy/(t1-t0)))
")"
}
PWRAP= CWRAP=
for rep in 1 2; do
for W in 4 8; do
  run pool-$W-def-$rep --backend pool --pin --workers $W --size 8MiB --items $((1024/W)) --epochs 2 --slots 4 -- --inflight 4
  run ring-$W-def-$rep --backend ring --pin --workers $W --size 8MiB --items $((1024/W)) --epochs 2 --slots 4 -- --inflight 4
  run pool-$W-nov-$rep --backend pool --pin --workers $W --size 8MiB --items $((1024/W)) --epochs 2 --slots 4 -- --inflight 4 --no-verify
  run pool-$W-s8-$rep --backend pool --pin --workers $W --size 8MiB --items $((1024/W)) --epochs 2 --slots 8 -- --inflight 4
  run pool-$W-inf8-$rep --backend pool --pin --workers $W --size 8MiB --items $((1024/W)) --epochs 2 --slots 8 -- --inflight 8
  run pool-$W-str-$rep --backend pool --pin --workers $W --size 8MiB --items $((1024/W)) --epochs 2 --slots 4 --fill streaming -- --inflight 4
  run pool-$W-cs1-$rep --backend pool --pin --workers $W --size 8MiB --items $((1024/W)) --epochs 2 --slots 4 -- --inflight 4 --copy-streams 1
  PWRAP="taskset -c 2-15" CWRAP="taskset -c 0,1" run pool-$W-task-$rep --backend pool --pin --workers $W --size 8MiB --items $((1024/W)) --epochs 2 --slots 4 -- --inflight 4
done; done
run pool-4-long --backend pool --pin --workers 4 --size 8MiB --items 1024 --epochs 2 --slots 4 -- --inflight 4
tar -czf $OUT/r2.tgz -C $OUT r
