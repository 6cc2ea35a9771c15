# Placement, probe/ceiling agreement, small items with run joining, GPU tests.
. .dev/setup.sh || exit 1
R=$OUT/r; mkdir -p $R
lscpu -e > $R/lscpu-e.txt; for c in /sys/devices/system/cpu/cpu[0-9]*; do echo "$(basename $c) $(cat $c/topology/thread_siblings_list) core $(cat $c/topology/core_id)"; done > $R/topology.txt; head -4 $R/topology.txt
summ() { awk -F, -v n="$1" 'NR==1{for(i=1;i<=NF;i++)h[$i]=i; next} {printf "%-14s %-12s ips %9.1f gbs %6.2f idle %.4f row %.4f slot %.4f chk %.4f rel %.4f oth %.4f\n", n, $h["arm"], $h["items_per_s"], $h["gb_per_s"], $h["idle_s"], $h["idle_no_row_s"], $h["idle_no_slot_s"], $h["idle_check_s"], $h["idle_release_s"], $h["idle_other_s"]}' "$2"; }
run() { local name=$1; shift; local p=() c=()
  while [ "$1" != -- ]; do p+=("$1"); shift; done; shift; c=("$@")
  $PW arena-produce "${p[@]}" | $CW h2d-check --warmup-epochs 1 --report run "${c[@]}" > $R/run-$name.csv 2>$R/err-$name.txt || echo "$name FAILED $(cat $R/err-$name.txt)"
  summ $name $R/run-$name.csv; }
for i in 1 2; do
  /tmp/probe 8 1.0 4,8 0 4 | tail -2 | sed "s/^/probe$i /"
  PW= CW= run cal4-$i --backend pool --pin --workers 4 --size 8MiB --items 64 --epochs 2 --slots 4 -- --calibrate | grep ceiling
  PW= CW= run cal8-$i --backend pool --pin --workers 8 --size 8MiB --items 32 --epochs 2 --slots 4 -- --calibrate | grep ceiling
done
for rep in 1 2 3 4; do
  PW= CW= run def4-$rep --backend ring --pin --workers 4 --size 8MiB --items 256 --epochs 2 --slots 4 --
  PW= CW="taskset -c 0" run pin4-$rep --backend ring --pin --workers 4 --size 8MiB --items 256 --epochs 2 --slots 4 --cpu-list 1-15 --
  PW= CW="taskset -c 0" run pin4b-$rep --backend ring --pin --workers 4 --size 8MiB --items 256 --epochs 2 --slots 4 --cpu-list 2,4,6,8 --
  PW= CW="taskset -c 0" run pin8-$rep --backend pool --pin --workers 8 --size 8MiB --items 128 --epochs 2 --slots 4 --cpu-list 1-15 --
done
run s64k --backend pool --pin --workers 4 --size 64KiB --items 8192 --epochs 2 --slots 128 --
run s64k8 --backend pool --pin --workers 8 --size 64KiB --items 4096 --epochs 2 --slots 128 --
run s1m --backend pool --pin --workers 4 --size 1MiB --items 2048 --epochs 2 --slots 8 --
run s1m16 --backend pool --pin --workers 4 --size 1MiB --items 2048 --epochs 2 --slots 16 --
run s1mr --backend ring --pin --workers 4 --size 1MiB --items 2048 --epochs 2 --slots 8 --
cd $SRC
timeout 300 make check TESTS="tests/trace.bats tests/h2d-check.bats" > $R/check.log 2>&1; echo "check rc=$?"
grep -E '^# (TOTAL|PASS|SKIP|FAIL|ERROR)' test-suite.log; grep -E '^(FAIL|ERROR)' test-suite.log | head
cp test-suite.log tests/*.log $R/ 2>/dev/null
cd - >/dev/null
tar -czf $OUT/r4.tgz -C $OUT r
