# Call A: build, publication steps pinned-arena, slowed-producer, transfer-overlap, multi-gpu-h2d, arena-speed.
t0=$SECONDS
. .dev/setup.sh || exit 1
echo "built in $((SECONDS-t0)) s"
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | grep -q H200 && echo h200 || echo h100)
S=$OUT/sessA
( cd $SRC && timeout 520 h200-session --machine $card --out $S --skip h2d-sweep,copy-paths,au,trace-overhead,nvbandwidth > $OUT/sessA.log 2>&1 ); echo "session rc=$? at $((SECONDS-t0)) s"
grep "^step" $S/receipt.txt
[ -f $S/pinned-arena/summary.txt ] && head -40 $S/pinned-arena/summary.txt
[ -f $S/slowed-producer/summary.txt ] && head -30 $S/slowed-producer/summary.txt
timeout 20 /tmp/probe 8 1.0 4,8 0 4 > $S/probe.csv 2>&1; cat $S/probe.csv
cp $OUT/sessA.log $S/ 2>/dev/null
tar -czf $OUT/sessA.tgz -C $OUT sessA && rm -rf $S
echo "end at $((SECONDS-t0)) s"
