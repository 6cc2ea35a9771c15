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

