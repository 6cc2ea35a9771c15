# Which memory the ceiling needs; small items with run joining; traces of copy durations.
. .dev/setup.sh || exit 1
R=$OUT/r; mkdir -p $R
cat /sys/kernel/mm/transparent_hugepage/enabled /sys/kernel/mm/transparent_hugepage/shmem_enabled 2>&1 | tee $R/thp.txt
summ() { awk -F, -v n="$1" 'NR==1{for(i=1;i<=NF;i++)h[$i]=i; next} {printf "%-10s %-22s ips %9.1f gbs %6.2f idle %.4f row %.4f slot %.4f chk %.4f rel %.4f oth %.4f\n", n, $h["arm"], $h["items_per_s"], $h["gb_per_s"], $h["idle_s"], $h["idle_no_row_s"], $h["idle_no_slot_s"], $h["idle_check_s"], $h["idle_release_s"], $h["idle_other_s"]}' "$2"; }
run() { local name=$1; shift; local p=() c=()
  while [ "$1" != -- ]; do p+=("$1"); shift; done; shift; c=("$@")
  arena-produce "${p[@]}" | h2d-check --warmup-epochs 1 --report run "${c[@]}" > $R/run-$name.csv 2>$R/err-$name.txt || echo "$name FAILED $(cat $R/err-$name.txt)"
  summ $name $R/run-$name.csv; }
for i in 1 2; do
  /tmp/probe 8 1.0 4,8 0 4 | tail -2 | sed "s/^/probe$i /"
  run cal4-$i --backend pool --pin --workers 4 --size 8MiB --items 256 --epochs 2 --slots 4 -- --calibrate --trace $R/t4-$i.json | grep -v raw
  run cal8-$i --backend ring --pin --workers 8 --size 8MiB --items 128 --epochs 2 --slots 4 -- --calibrate --trace $R/t8-$i.json | grep -v raw
done
run s64k --backend pool --pin --workers 4 --size 64KiB --items 8192 --epochs 2 --slots 128 -- --calibrate
run s64k8 --backend pool --pin --workers 8 --size 64KiB --items 4096 --epochs 2 --slots 128 --
run s1m --backend pool --pin --workers 4 --size 1MiB --items 2048 --epochs 2 --slots 8 -- --calibrate
run s1m16 --backend pool --pin --workers 4 --size 1MiB --items 2048 --epochs 2 --slots 16 --
run s1mr --backend ring --pin --workers 4 --size 1MiB --items 2048 --epochs 2 --slots 8 --
python3 - $R <<'PY'
import json, sys, glob
for f in sorted(glob.glob(sys.argv[1] + '/t*.json')):
    ev = json.load(open(f))['traceEvents']
    d = sorted(e['dur'] for e in ev if e['name'] == 'copy' and e['args']['epoch'] == 1)
    fl = sorted(e['dur'] for e in ev if e['name'] == 'fill' and e['args']['epoch'] == 1)
    print(f.split('/')[-1], 'copy us med %.1f p90 %.1f' % (d[len(d)//2], d[9*len(d)//10]), 'fill us med %.0f p90 %.0f' % (fl[len(fl)//2], fl[9*len(fl)//10]))
PY
tar -czf $OUT/r5.tgz -C $OUT r
