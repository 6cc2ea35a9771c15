#!/usr/bin/env bats
# bench-summarize's readers and writers at their edges: other tools' JSON
# (size, identity, empty entries, how it is told from CSV) and what the
# output formats do with keys and numbers they cannot print as they are.

load test-helper

setup() {
  common_setup
}

teardown() {
  common_teardown
}

# pytest-benchmark JSON of N benchmarks of R rounds each to $TMP/pb.json,
# and the same rows as CSV to $TMP/pb.csv.
pytest_json() {
  awk -v b="$1" -v r="$2" -v json="$TMP/pb.json" -v csv="$TMP/pb.csv" 'BEGIN {
    srand(1); print "name,time_s" > csv
    printf "{\"benchmarks\": [" > json
    for (i = 0; i < b; i++) {
      printf "%s{\"group\": null, \"name\": \"test_%d\", \"fullname\": \"t.py::test_%d\", " \
        "\"options\": {\"timer\": \"perf_counter\", \"warmup\": false}, " \
        "\"stats\": {\"rounds\": %d, \"data\": [", (i ? ", " : ""), i, i, r > json
      for (j = 0; j < r; j++) {
        x = sprintf("%.17g", 0.001 + 0.0001 * rand())
        printf "%s%s", (j ? ", " : ""), x > json
        printf "test_%d,%s\n", i, x > csv
      }
      printf "]}}" > json
    }
    print "]}" > json
  }'
}

@test "JSON: memory linear in the text (a string costs its length, not the rest of the input)" {
  command -v prlimit > /dev/null || skip "prlimit(1) is not installed"
  ! asan_build || skip "AddressSanitizer reserves terabytes of address space"
  # 4000 benchmarks, 8 strings each, in 3 MB: a string that took the rest
  # of the text took about 48 GB of address space in all.
  pytest_json 4000 20
  [ "$(wc -c < "$TMP/pb.json")" -gt 2000000 ]
  bench-summarize --by name --resamples 0 --format csv "$TMP/pb.csv" > "$TMP/csv.out"
  run prlimit --as=$((256 << 20)) bench-summarize --by name --resamples 0 --format csv "$TMP/pb.json"
  assert_status 0
  [ "${#lines[@]}" -eq 4001 ]
  assert_output "$(cat "$TMP/csv.out")"
}

@test "bench-summarize-json-speed: a row per format and size, outputs compared, the ratio checked" {
  [ -x /usr/bin/time ] || skip "GNU time is not installed"
  # The plumbing only: a ratio of CPU seconds at 1 MiB is noise here.
  run env REPEAT=1 MAX_RATIO=1000 BENCH_SUMMARIZE="$(command -v bench-summarize)" \
    "$top_srcdir/contrib/bench-summarize-json-speed" 1
  assert_status 0
  [ "${lines[0]}" = "format,json_mib,rows,bytes,cpu_s,max_rss_kib" ]
  [[ "${lines[1]}" == csv,1,45000,* ]]
  [[ "${lines[2]}" == json,1,45000,* ]]
  [[ "${lines[3]}" == "# 1 MiB: JSON/CSV CPU "* ]]
  run env REPEAT=1 MAX_RATIO=0 BENCH_SUMMARIZE="$(command -v bench-summarize)" \
    "$top_srcdir/contrib/bench-summarize-json-speed" 1
  assert_status 1
}

# rchar PID: the bytes PID has read so far (/proc/PID/io).
rchar() {
  sed -n 's/^rchar: //p' "/proc/$1/io"
}

# read_past PID BYTES: PID has read BYTES or more and waits on its pipe again.
read_past() {
  [ "$(rchar "$1")" -ge "$2" ] && in_kernel_wait "$1" pipe_read
}

@test "JSON on a pipe whose first read is blank lines is still JSON" {
  [ -r "/proc/$$/io" ] || skip "no /proc/PID/io to see what was read"
  mkfifo "$TMP/in"
  bench-summarize --resamples 0 --format csv --columns column,n,mean < "$TMP/in" > "$TMP/out" 2>&1 3>&- &
  local pid=$! w
  exec {w}> "$TMP/in"
  wait_until 30 in_kernel_wait "$pid" pipe_read
  local before
  before=$(rchar "$pid")
  printf '\n\n \t\r\n' >&"$w"
  # Its first read had only blanks; the '{' comes in a later one.
  wait_until 30 read_past "$pid" $((before + 6))
  printf '{"results": [{"command": "a", "times": [10, 11, 12]}]}\n' >&"$w"
  exec {w}>&-
  local status=0
  wait "$pid" || status=$?
  [ "$status" -eq 0 ]
  run cat "$TMP/out"
  assert_status 0
  assert_output "column,n,mean
time_s,3,11"
}

@test "blanks before JSON: past a buffer of them, and line numbers count them" {
  { printf '\n%.0s' $(seq 70000); printf '{"results": [1, ]}\n'; } > "$TMP/blank.json"
  run bench-summarize "$TMP/blank.json"
  assert_status 65
  assert_output "bench-summarize: $TMP/blank.json: line 70001: malformed JSON: not a JSON value"
  { printf '\n%.0s' $(seq 70000); printf 'a\n10\n11\n12\n'; } > "$TMP/blank.csv"
  run bench-summarize --resamples 0 --format csv --columns column,n,mean "$TMP/blank.csv"
  assert_status 0
  assert_output "column,n,mean
a,3,11"
}

@test "pytest-benchmark: tests of one name in two modules stay apart, by their fullnames, said" {
  cat > "$TMP/pb.json" <<'JSON'
{"benchmarks": [
 {"name": "test_x", "fullname": "tests/a.py::test_x", "stats": {"data": [1.0, 1.25, 1.5]}},
 {"name": "test_y", "fullname": "tests/a.py::test_y", "stats": {"data": [3.0, 3.25, 3.5]}},
 {"name": "test_x", "fullname": "tests/b.py::test_x", "stats": {"data": [2.0, 2.25, 2.5]}}
]}
JSON
  run bench-summarize --by name --resamples 0 --format csv --columns name,n,mean "$TMP/pb.json"
  assert_status 0
  assert_output "bench-summarize: $TMP/pb.json: pytest-benchmark's JSON: 2 entries named 'test_x', told apart by their \"fullname\" ('tests/a.py::test_x', 'tests/b.py::test_x')
name,n,mean
tests/a.py::test_x,3,1.25
test_y,3,3.25
tests/b.py::test_x,3,2.25"
  # One fullname twice, or none to tell them apart: refused, saying which.
  sed -i 's|tests/b.py::test_x|tests/a.py::test_x|' "$TMP/pb.json"
  run bench-summarize --by name "$TMP/pb.json"
  assert_status 65
  assert_output "bench-summarize: $TMP/pb.json: pytest-benchmark's JSON: benchmarks[0] and benchmarks[2] are both 'test_x', of the same \"fullname\" ('tests/a.py::test_x'): their runs would be pooled"
  sed -i 's|"fullname": "tests/a.py::test_x", ||' "$TMP/pb.json"
  run bench-summarize --by name "$TMP/pb.json"
  assert_status 65
  assert_output "bench-summarize: $TMP/pb.json: pytest-benchmark's JSON: benchmarks[0] and benchmarks[2] are both 'test_x', and benchmarks[0] has no \"fullname\" to tell it apart: their runs would be pooled"
}

@test "hyperfine: a --parameter-scan under one -n name stays apart, by its parameters; the same command twice is refused" {
  # As hyperfine 1.15 --parameter-scan n 1 2 -n fixed exports it.
  printf '{"results": [{"command": "fixed", "times": [1.0, 1.25, 1.5], "parameters": {"n": "1"}},
    {"command": "fixed", "times": [2.0, 2.25, 2.5], "parameters": {"n": "2"}},
    {"command": "other", "times": [3.0, 3.25, 3.5], "parameters": {"n": "2"}}]}\n' > "$TMP/hf.json"
  run bench-summarize --by command --resamples 0 --format csv --columns command,n,mean "$TMP/hf.json"
  assert_status 0
  assert_output "bench-summarize: $TMP/hf.json: hyperfine's JSON: 2 entries named 'fixed', told apart by their \"parameters\" ('fixed (n=1)', 'fixed (n=2)')
command,n,mean
fixed (n=1),3,1.25
fixed (n=2),3,2.25
other,3,3.25"
  run bench-summarize --compare 'command=fixed (n=1)' --resamples 0 --format csv --columns command,n "$TMP/hf.json"
  assert_status 0
  printf '{"results": [{"command": "sleep 1", "times": [1.0, 1.1]}, {"command": "sleep 1", "times": [1.2, 1.3]}]}' > "$TMP/twice.json"
  run bench-summarize "$TMP/twice.json"
  assert_status 65
  assert_output "bench-summarize: $TMP/twice.json: hyperfine's JSON: results[0] and results[1] are both 'sleep 1', and results[0] has no \"parameters\" to tell it apart: their runs would be pooled"
  printf '{"results": [{"command": "a", "parameters": {"n": "1", "m": 2}, "times": [1.0, 1.1]}, {"command": "a", "parameters": {"n": "1", "m": 2}, "times": [1.2, 1.3]}]}' > "$TMP/twice.json"
  run bench-summarize "$TMP/twice.json"
  assert_status 65
  assert_output "bench-summarize: $TMP/twice.json: hyperfine's JSON: results[0] and results[1] are both 'a', of the same \"parameters\" ('n=1, m=2'): their runs would be pooled"
}

@test "an entry without runs is left out, saying so; one with only summary statistics is refused" {
  cat > "$TMP/pb.json" <<'JSON'
{"benchmarks": [
 {"name": "test_x", "fullname": "t.py::test_x", "stats": {"data": [1.0, 1.25, 1.5]}},
 {"name": "test_empty", "fullname": "t.py::test_empty", "stats": {"rounds": 0, "data": []}},
 {"name": "test_none", "fullname": "t.py::test_none", "stats": {}},
 {"name": "test_zero", "fullname": "t.py::test_zero", "stats": {"rounds": 0}}
]}
JSON
  run bench-summarize --by name --resamples 0 --format csv --columns name,n,mean "$TMP/pb.json"
  assert_status 0
  assert_output "bench-summarize: $TMP/pb.json: pytest-benchmark's JSON: benchmarks[1] ('test_empty') has no runs: left out
bench-summarize: $TMP/pb.json: pytest-benchmark's JSON: benchmarks[2] ('test_none') has no runs: left out
bench-summarize: $TMP/pb.json: pytest-benchmark's JSON: benchmarks[3] ('test_zero') has no runs: left out
name,n,mean
test_x,3,1.25"
  printf '{"results": [{"command": "a", "times": []}, {"command": "b", "times": [1.0, 1.1]}]}' > "$TMP/hf.json"
  run bench-summarize --resamples 0 --format csv --columns column,n "$TMP/hf.json"
  assert_status 0
  assert_output "bench-summarize: $TMP/hf.json: hyperfine's JSON: results[0] ('a') has no runs: left out
column,n
time_s,2"
  printf '{"benchmarks": [{"name": "t", "stats": {"mean": 1.0, "rounds": 5}}]}' > "$TMP/pb.json"
  run bench-summarize "$TMP/pb.json"
  assert_status 65
  assert_output "bench-summarize: $TMP/pb.json: pytest-benchmark's JSON has only summary statistics, no per-round times (benchmarks[].stats.data), and no interval can come from those: run it with --benchmark-save-data"
  printf '{"benchmarks": [{"name": "t", "stats": {"data": 5}}]}' > "$TMP/pb.json"
  run bench-summarize "$TMP/pb.json"
  assert_status 65
  assert_output "bench-summarize: $TMP/pb.json: pytest-benchmark's JSON: benchmarks[0] ('t'): \"data\" is not an array"
}

@test "markdown: keys print as they are (| * _ \` \\ < [ escaped), in the table and the verdicts" {
  printf 'arm,x\n*b*,1\n*b*,2\n*b*,3\n_u_,4\n_u_,5\n_u_,6\nx|y,1\nx|y,2\nx|y,3\n`c`\\,1\n`c`\\,2\n`c`\\,2\nsnake_case,1\nsnake_case,2\nsnake_case,2\n<b>[l](u)&amp;,1\n<b>[l](u)&amp;,2\n<b>[l](u)&amp;,3\n' > "$TMP/md.csv"
  # The verdicts' stderr (shape warnings) is not the subject.
  run sh -c "bench-summarize --resamples 0 --format markdown --by arm --columns arm,n --compare 'arm=*b*' '$TMP/md.csv' 2>/dev/null"
  assert_status 0
  assert_output '| arm               |   n |
|:----------------- | ---:|
| \*b\*             |   3 |
| \_u\_             |   3 |
| x\|y              |   3 |
| \`c\`\\           |   3 |
| snake_case        |   3 |
| \<b>[l\](u)\&amp; |   3 |

- arm=\_u\_ vs arm=\*b\*: x 2.5x [1.2, 12.8] higher (p = 0.021, Welch)
- arm=x\|y vs arm=\*b\*: x no difference shown at 95% (1.00x [0.18, 5.41], p = 1, Welch)
- arm=\`c\`\\ vs arm=\*b\*: x no difference shown at 95% (0.83x [0.26, 7.56], p = 0.65, Welch)
- arm=snake_case vs arm=\*b\*: x no difference shown at 95% (0.83x [0.26, 7.56], p = 0.65, Welch)
- arm=\<b>[l\](u)\&amp; vs arm=\*b\*: x no difference shown at 95% (1.00x [0.18, 5.41], p = 1, Welch)'
}

@test "an interval end past the largest double prints as inf, with a warning naming the group" {
  ! valgrind_build || skip "valgrind computes long double in 64 bits: sums near the largest double overflow there"
  { echo g,v; for x in 1.7976e308 1.797e308 1.79e308 1.78e308 1.7975e308 1.7973e308 1.7e308 \
      1.79e308 1.797e308 1.7976e308 1.797e308; do echo "a,$x"; done
    printf 'b,1\nb,2\nb,3\n'; } > "$TMP/big.csv"
  local warning="bench-summarize: column 'v': ci_high passes the largest double (1.8e308), printed as inf, in 1 row (first: g=a)"
  run bash -c "set -o pipefail; bench-summarize --by g --log-scale --format csv --columns g,ci_high '$TMP/big.csv' 2>&1 | grep -v 'bimodal or skewed'"
  assert_status 0
  assert_output "$warning
g,ci_high
a,inf
b,6.925540062762778"
  run bash -c "set -o pipefail; bench-summarize --by g --log-scale --format table --columns g,ci_low,ci_high '$TMP/big.csv' 2>&1 | grep -v 'bimodal or skewed'"
  assert_status 0
  assert_output "$warning
g     ci_low  ci_high
a  1.766e308      inf
b        0.5      7.0"
  # JSON has no inf: a number past every double, valid JSON that reads as one.
  run bash -c "set -o pipefail; bench-summarize --by g --log-scale --format json --columns g,ci_high '$TMP/big.csv' 2>/dev/null"
  assert_status 0
  assert_output '[
 {"g": "a", "ci_high": 1e999},
 {"g": "b", "ci_high": 6.925540062762778}
]'
  # Not shown, not said.
  run bash -c "set -o pipefail; bench-summarize --by g --log-scale --format csv --columns g,ci_low '$TMP/big.csv' 2>&1 | grep -v 'bimodal or skewed'"
  assert_status 0
  assert_output "g,ci_low
a,1.7662334058936274e+308
b,0.5775722851575413"
}

@test "percentile columns named exactly (p99.995, p99.99995 and p100 apart); one percentile twice refused" {
  run bench-summarize --resamples 0 --format csv --percentiles 99.995,100,99.99995,0.1 \
    --columns p99.995,p100,p99.99995,p0.1 <<<"v
1
2
3
4"
  assert_status 0
  assert_output "p99.995,p100,p99.99995,p0.1
3.99985,4,3.9999985,1.003"
  run bench-summarize --percentiles 50,5e1 <<<"v
1
2"
  assert_status 64
  assert_output "bench-summarize: --percentiles: '50' and '5e1' are one percentile: one column each"
}
