# Call D (lean; little device time left): build the merged tree; auto's choice at three sizes; compute-sanitizer's four tools beside the GPU test files.
t0=$SECONDS
. .dev/setup.sh || exit 1
echo "built in $((SECONDS-t0)) s"
C=$OUT/c; mkdir -p $C
cd $SRC
for s in 16KiB 64KiB 1MiB; do
  n=$((64*1024*1024 / $(numfmt --from=iec-i ${s%B}) / 4))
  timeout 20 arena-produce --pin --size $s --workers 4 --items $n --epochs 2 --slots 64 --timeout 15 | timeout 20 h2d-check --copy-path auto --warmup-epochs 1 --report run > $C/auto-$s.csv 2> $C/auto-$s.err
  echo "auto $s rc=$?: $(grep -h "copy-path auto" $C/auto-$s.err) items/s $(awk -F, 'NR==1{for(i=1;i<=NF;i++)h[$i]=i} NR==2{print $h["items_per_s"], $h["gb_per_s"]}' $C/auto-$s.csv)"
done
left=$((200 - (SECONDS-t0))); echo "suite and sanitize get $left s"
( timeout $left contrib/gpu-sanitize --out $C/sanitize > $C/sanitize.log 2>&1; echo "sanitize rc=$?" >> $C/sanitize.log ) &
timeout $((left-5)) make -j12 check TESTS="tests/h2d-check.bats tests/d2h-overlap.bats tests/trace.bats tests/pipeline.bats tests/work-share.bats tests/unit/copy-choice.t" > $C/suite.txt 2>&1; echo "suite rc=$? at $((SECONDS-t0)) s"
wait
grep -E "^(# [A-Z]+:|FAIL|ERROR)" $C/suite.txt; grep -h "^not ok" tests/*.log | head -30
tail -3 $C/sanitize.log; cat $C/sanitize/summary.txt 2>/dev/null | head -40
tar -czf $C/suite-logs.tgz tests/*.log tests/unit/*.log 2>/dev/null
tar -czf $OUT/callD.tgz -C $OUT c && rm -rf $C
echo "end at $((SECONDS-t0)) s"
