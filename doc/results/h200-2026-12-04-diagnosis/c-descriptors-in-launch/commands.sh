# After the check fix: GPU tests, then the pipeline against the probe and the ceiling row.
. .dev/setup.sh || exit 1
R=$OUT/r; mkdir -p $R
/tmp/probe 8 1.0 4,8 0 4 | tee $R/probe.csv
summ() { awk -F, -v n="$1" 'NR==1{for(i=1;i<=NF;i++)h[$i]=i; next} {printf "%-16s %-18s ips %9.1f gbs %6.2f sec %.3f idle %.4f row %.4f slot %.4f chk %.4f rel %.4f oth %.4f w=%s s=%s\n", n, $h["arm"], $h["items_per_s"], $h["gb_per_s"], $h["seconds"], $h["idle_s"], $h["idle_no_row_s"], $h["idle_no_slot_s"], $h["idle_check_s"], $h["idle_release_s"], $h["idle_other_s"], $h["workers"], $h["slots"]}' "$2"; }
run() { local name=$1; shift; local p=() c=()
  while [ "$1" != -- ]; do p+=("$1"); shift; done; shift; c=("$@")
  arena-produce "${p[@]}" | h2d-check --warmup-epochs 1 --report run "${c[@]}" > $R/run-$name.csv 2>$R/err-$name.txt || echo "$name FAILED $(cat $R/err-$name.txt)"
  summ $name $R/run-$name.csv; }
for W in 4 8; do
  run cal-$W --backend pool --pin --workers $W --size 8MiB --items $((1024/W)) --epochs 2 --slots 4 -- --calibrate
  for rep in 1 2 3; do for B in pool ring; do
    run $B-$W-$rep --backend $B --pin --workers $W --size 8MiB --items $((1024/W)) --epochs 2 --slots 4 -- --trace $R/trace-$B-$W-$rep.json
  done; done
  run pool-$W-long --backend pool --pin --workers $W --size 8MiB --items $((4096/W)) --epochs 2 --slots 4 --
  run pool-$W-nov --backend pool --pin --workers $W --size 8MiB --items $((1024/W)) --epochs 2 --slots 4 -- --no-verify
done
run s64k --backend pool --pin --workers 4 --size 64KiB --items 8192 --epochs 2 --slots 128 -- --calibrate
run s1m --backend pool --pin --workers 4 --size 1MiB --items 2048 --epochs 2 --slots 8 -- --calibrate
/tmp/probe 1 1.0 4 0 8 | tee $R/probe-1m.csv
cd $SRC
set -o pipefail
timeout 400 make check TESTS="tests/trace.bats tests/h2d-check.bats tests/unit/copy-idle.t tests/pipeline.bats tests/receipts.bats tests/d2h-overlap.bats" > $R/check.log 2>&1; echo "check rc=$?"
grep -E '^# (TOTAL|PASS|SKIP|FAIL|ERROR)' test-suite.log; grep -E '^(FAIL|ERROR)' test-suite.log | head
cp test-suite.log $R/; cp tests/*.log $R/ 2>/dev/null
cd - >/dev/null
tar -czf $OUT/r3.tgz -C $OUT r
