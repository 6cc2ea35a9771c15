# One call: build, the session (pinned-arena + copy-paths), probe, GPU tests, CPU 4 KiB.
t0=$SECONDS
. .dev/setup.sh || exit 1
echo "built in $((SECONDS-t0)) s"
S=$OUT/session
( cd $SRC && timeout 360 h200-session --machine $(nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200 && echo h200 || echo h100) --out $S --skip h2d-sweep,transfer-overlap,multi-gpu-h2d,nvbandwidth > $OUT/session.log 2>&1 ); echo "session rc=$? at $((SECONDS-t0)) s"
grep "^step" $S/receipt.txt
[ -f $S/pinned-arena/summary.txt ] && cat $S/pinned-arena/summary.txt
[ -f $S/copy-paths/summary.txt ] && cat $S/copy-paths/summary.txt
timeout 20 /tmp/probe 8 1.0 4,8 0 4 > $OUT/probe.csv 2>&1; cat $OUT/probe.csv
for B in pool ring; do
 timeout 15 arena-produce --backend $B --size 4KiB --items 500000 --epochs 2 --slots 64 | timeout 15 arena-consume --warmup-epochs 1 --report run > $OUT/cpu4k-$B.csv
 echo "cpu4k $B: $(awk -F, 'NR==1{for(i=1;i<=NF;i++)h[$i]=i} NR==2{print $h["items_per_s"], $h["cpu_s"], $h["seconds"]}' $OUT/cpu4k-$B.csv)"
done
left=$((560 - (SECONDS-t0))); echo "tests get $left s"
[ $left -gt 20 ] && ( cd $SRC && timeout $left make check TESTS="tests/h2d-check.bats tests/work-share.bats tests/trace.bats" > $OUT/gpu-tests.txt 2>&1; grep -E "^(# [A-Z]+:|FAIL|ERROR)" $OUT/gpu-tests.txt; grep -h "^not ok" tests/*.log | head; tar -czf $OUT/gpu-test-logs.tgz tests/*.log 2>/dev/null )
echo "end at $((SECONDS-t0)) s"
