# Call B (same warm machine): h2d-sweep, copy-paths, au, trace-overhead; then GPU tests with what is left.
t0=$SECONDS
. .dev/setup.sh || exit 1
echo "setup in $((SECONDS-t0)) s"
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | grep -q H200 && echo h200 || echo h100)
S=$OUT/sessB
( cd $SRC && timeout 330 h200-session --machine $card --out $S --skip pinned-arena,slowed-producer,transfer-overlap,multi-gpu-h2d,arena-speed,nvbandwidth > $OUT/sessB.log 2>&1 ); echo "session rc=$? at $((SECONDS-t0)) s"
grep "^step" $S/receipt.txt
for d in copy-paths au trace-overhead; do [ -f $S/$d/summary.txt ] && head -30 $S/$d/summary.txt; done
[ -f $S/au/au.txt ] && cat $S/au/au.txt
cp $OUT/sessB.log $S/ 2>/dev/null
tar -czf $OUT/sessB.tgz -C $OUT sessB && rm -rf $S
left=$((570 - (SECONDS-t0))); echo "tests get $left s"
[ $left -gt 30 ] && ( cd $SRC && timeout $left make -j16 check TESTS="tests/h2d-check.bats tests/d2h-overlap.bats tests/build.bats tests/trace.bats tests/work-share.bats tests/drivers.bats" > $OUT/gpu-tests.txt 2>&1; grep -E "^(# [A-Z]+:|FAIL|ERROR)" $OUT/gpu-tests.txt; grep -h "^not ok" tests/*.log | head -20; tar -czf $OUT/gpu-test-logs.tgz tests/*.log 2>/dev/null )
echo "end at $((SECONDS-t0)) s"
