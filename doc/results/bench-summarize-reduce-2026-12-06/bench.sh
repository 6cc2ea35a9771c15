#!/bin/sh
# bench.sh -- bench-summarize --reduce at 20,000 groups (issue 42 item 2):
# the time of --reduce sum --by repeat over 20,000 repeats of 4 ranks
# each (80,000 rows), and of plain --by repeat over the same file (the
# main grouping engine's statistics), with hyperfine.
#
#   bench.sh LABEL BENCH-SUMMARIZE [OUT-DIR]
#
# appends one row per command to OUT-DIR/raw.csv (name: LABEL and the
# command, runs, mean_s, stddev_s, median_s, min_s, max_s of the wall
# time, user_s and system_s the mean CPU times): on a shared machine the
# user time is the steadier measure.
set -eu
label=$1 bs=$2 out=${3:-$(dirname "$0")}
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
awk 'BEGIN { print "repeat,rank,host,device,world_size,items_per_s,seconds";
             for (g = 1; g <= 20000; g++) for (r = 0; r < 4; r++)
               printf "%d,%d,h%d,%d,4,%d,%.3f\n", g, r, r % 2, r, 1000 + (g * 7 + r * 13) % 97, 1 + r / 10 }' \
  > "$tmp/ranks.csv"
hyperfine --style basic --warmup 1 --runs "${RUNS:-5}" --export-csv "$tmp/h.csv" \
  -n "$label reduce" "$bs --reduce sum --by repeat --value items_per_s,seconds --format csv $tmp/ranks.csv" \
  -n "$label by" "$bs --by repeat --value items_per_s --resamples 0 --format csv $tmp/ranks.csv" >&2
[ -s "$out/raw.csv" ] || echo "name,runs,mean_s,stddev_s,median_s,min_s,max_s,user_s,system_s" > "$out/raw.csv"
awk -F, -v runs="${RUNS:-5}" 'NR > 1 { printf "%s,%s,%s,%s,%s,%s,%s,%s,%s\n", $1, runs, $2, $3, $4, $7, $8, $5, $6 }' "$tmp/h.csv" >> "$out/raw.csv"
