# Slow producers: do they share CPUs with the consumer's threads?  4 KiB transport; small items.
. .dev/setup.sh || exit 1
R=$OUT/r; mkdir -p $R
summ() { awk -F, -v n="$1" 'NR==1{for(i=1;i<=NF;i++)h[$i]=i; next} {printf "%-10s %-22s ips %9.1f gbs %6.2f cpu %.3f sec %.3f idle %.4f row %.4f slot %.4f rel %.4f oth %.4f\n", n, $h["arm"], $h["items_per_s"], $h["gb_per_s"], $h["cpu_s"], $h["seconds"], $h["idle_s"], $h["idle_no_row_s"], $h["idle_no_slot_s"], $h["idle_release_s"], $h["idle_other_s"]}' "$2"; }
run() { local name=$1; shift; local p=() c=()
  while [ "$1" != -- ]; do p+=("$1"); shift; done; shift; c=("$@")
  arena-produce "${p[@]}" | ${CW:-} h2d-check --warmup-epochs 1 --report run "${c[@]}" > $R/run-$name.csv 2>$R/err-$name.txt || echo "$name FAILED $(cat $R/err-$name.txt)"
  summ $name $R/run-$name.csv; }
fills() { python3 -c "
import json,sys
ev=json.load(open('$1'))['traceEvents']
by={}
for e in ev:
  if e['name']=='fill' and e['args']['epoch']==1: by.setdefault(e['tid'],[]).append(e['dur'])
print('   fill us med per worker:', ' '.join('%.0f'%sorted(v)[len(v)//2] for k,v in sorted(by.items())), ' p90 all %.0f'%sorted(x for v in by.values() for x in v)[9*sum(len(v) for v in by.values())//10])"; }
for rep in 1 2 3; do
  CW= run long-$rep --backend ring --pin --workers 4 --size 8MiB --items 1024 --epochs 2 --slots 4 -- --trace $R/tl-$rep.json; fills $R/tl-$rep.json
  CW="taskset -c 0-7" run sep-$rep --backend ring --pin --workers 4 --size 8MiB --items 1024 --epochs 2 --slots 4 --cpu-list 8-15 -- --trace $R/ts-$rep.json; fills $R/ts-$rep.json
done
CW= run s64k --backend pool --pin --workers 4 --size 64KiB --items 8192 --epochs 2 --slots 128 --
CW= run s1m --backend pool --pin --workers 4 --size 1MiB --items 2048 --epochs 2 --slots 8 --
for B in pool ring; do for V in "" --no-verify; do
 arena-produce --backend $B --size 4KiB --items 500000 --epochs 2 --slots 64 | arena-consume --warmup-epochs 1 --report run $V > $R/cpu4k-$B$V.csv
 echo "cpu4k $B $V: $(awk -F, 'NR==1{for(i=1;i<=NF;i++)h[$i]=i} NR==2{print $h["items_per_s"], $h["cpu_s"], $h["seconds"]}' $R/cpu4k-$B$V.csv)"
done; done
tar -czf $OUT/r6.tgz -C $OUT r
