#!/usr/bin/env bats
# contrib/results-tables: the markdown tables of a results session folder,
# on a small fabricated one (tests/data/results-session: columns in their own
# order, an old gib_per_s folder, a missing h2d-sweep/).

load test-helper

setup() {
  common_setup
}

teardown() {
  common_teardown
}

@test "results-tables: the exact markdown of a session folder, a missing section noted" {
  # bench-summarize's notes (no interval from equal values) go to stderr.
  run sh -c '"$0" "$1" 2>/dev/null' "$top_srcdir/contrib/results-tables" "$top_srcdir/tests/data/results-session"
  assert_status 0
  [ "$output" = "$(cat "$top_srcdir/tests/data/results-session.md")" ]
}

@test "results-tables: no folder is exit 66 with one line" {
  run "$top_srcdir/contrib/results-tables" "$TMP/none"
  assert_status 66
  [ "$output" = "results-tables: $TMP/none: not a directory" ]
}

@test "results-tables: pageable arms only: no ratio, a note; every missing subfolder a note" {
  mkdir -p "$TMP/s/pinned-arena"
  grep -v -e '-pinned,' "$top_srcdir/tests/data/results-session/pinned-arena/raw.csv" > "$TMP/s/pinned-arena/raw.csv"
  run sh -c '"$0" "$1" 2>/dev/null | grep "^_\|^| 1 "' "$top_srcdir/contrib/results-tables" "$TMP/s"
  assert_status 0
  [ "$output" = "| 1 | pool-pageable | 3 | 120 | [70, 170] | 1.20 | - | 0.00 | 1.00 |
_No pinned and pageable arm of one backend here: no pinned/pageable ratio._
_nvbandwidth/nvbandwidth.txt or calibrate.csv: not in this folder, section skipped._
_h2d-sweep/raw.csv: not in this folder, section skipped._
_transfer-overlap/raw.csv: not in this folder, section skipped._
_multi-gpu-h2d/raw.csv: not in this folder, section skipped._" ]
}
