#!/usr/bin/env bats
# Tests written to kill mutants of tests/mutants.list that the rest of the
# suite let live (issue 42 item 4): the JSON results of other tools, the
# --plot figure, the quoting and naming of messages, Tukey's fences at
# their edges, the gate's Holm step at two rows, and a SIGHUP its caller
# ignored.  Each asserts the exact output and status.

load test-helper

# ------------------------------------------------------------ JSON results

@test "other tools' JSON: times that are not an array or not numbers, a name that is not a string: 65, the exact reason" {
  run bench-summarize <<<'{"results":[{"command":"a","times":5}]}'
  assert_status 65
  assert_output "bench-summarize: stdin: hyperfine's JSON: results[0] ('a'): \"times\" is not an array"
  run bench-summarize <<<'{"results":[{"command":"a","times":[0.1,"x"]}]}'
  assert_status 65
  assert_output "bench-summarize: stdin: hyperfine's JSON: results[0] ('a'): time 1 is not a number"
  run bench-summarize <<<'{"results":[{"command":5,"times":[1]}]}'
  assert_status 65
  assert_output "bench-summarize: stdin: hyperfine's JSON: results[0] has no \"command\" string"
}

@test "other tools' JSON: every digit of a time is kept (17 significant digits, as CSV)" {
  printf '%s\n' '{"results":[{"command":"a","times":[0.123456789012,0.2]}]}' > "$TMP/digits.json"
  run sh -c "bench-summarize --columns min,max --format csv '$TMP/digits.json' 2> /dev/null"
  assert_status 0
  assert_output "min,max
0.123456789012,0.2"
}

@test "other tools' JSON: what the reader refuses is named with its line" {
  local text want
  while IFS='|' read -r text want; do
    run bench-summarize <<<"$text"
    assert_status 65
    assert_output "bench-summarize: stdin: line 1: malformed JSON: $want" || { echo "text: $text" >&2; return 1; }
  done <<'EOF2'
{"results": [01]}|not a JSON value
{"results": []} x|text after the value
{"results": ["\u12|a bad escape in a string
{"results": [1.]}|a number with no digits after its point
EOF2
  # Nesting: 64 levels below the root are read, 65 are not.
  run bash -c 'printf "{\"results\": %s1%s}" "$(printf "[%.0s" $(seq 63))" "$(printf "]%.0s" $(seq 63))" | bench-summarize'
  assert_status 65
  assert_output "bench-summarize: stdin: hyperfine's JSON: results[0] has no \"command\" string"
  run bash -c 'printf "{\"results\": %s1%s}" "$(printf "[%.0s" $(seq 64))" "$(printf "]%.0s" $(seq 64))" | bench-summarize'
  assert_status 65
  assert_output "bench-summarize: stdin: line 1: malformed JSON: nested too deep"
  # A surrogate pair is one character, 4 bytes of UTF-8.
  cat > "$TMP/emoji.json" <<'EOF2'
{"results":[{"command":"\ud83d\ude00","times":[1,2]}]}
EOF2
  run sh -c "bench-summarize --by command --columns command,n --format csv '$TMP/emoji.json' 2> /dev/null"
  assert_status 0
  assert_output "command,n
$(printf '\xf0\x9f\x98\x80'),2"
}

# ------------------------------------------------------------ --plot

@test "--plot: values placed by their share of the range, the scale said, mean (A) and median (M) on the axis" {
  { echo v; for i in $(seq 25); do echo 1; done; echo 2; echo 3; echo 9; } > "$TMP/plot.csv"
  run sh -c "bench-summarize --plot --seed 1 --columns column,n '$TMP/plot.csv' 2> /dev/null"
  assert_status 0
  local blank='|x                                                                         |'
  assert_output "column   n
v       28

v
    x (all rows) (n=28)
+--------------------------------------------------------------------------+
$(for i in $(seq 12); do echo "$blank"; done)
|x        x        x                                                      x|
|M___A_____________|                                                       |
+--------------------------------------------------------------------------+
 1                                                                         9
 each symbol stands for up to 2 values"
}

# ------------------------------------------------------------ messages

@test "messages: a command run by its path names itself by its base name" {
  run "$top_builddir/src/bench-summarize" --bogus
  assert_status 64
  assert_output "bench-summarize: unrecognized option '--bogus'
Try 'bench-summarize --help' for more information."
}

@test "messages: an apostrophe and DEL are quoted, shell-escape style" {
  printf 'host,h2d_ns\na,1\nb,2\n' > "$TMP/good.csv"
  run bench-summarize --by "it's" "$TMP/good.csv"
  assert_status 64
  assert_output "bench-summarize: --by: no column 'it'\\''s' in the input"
  run bench-summarize --by $'a\x7fb' "$TMP/good.csv"
  assert_status 64
  assert_output "bench-summarize: --by: no column 'a'\$'\\177''b' in the input"
}

# ------------------------------------------------------------ statistics

@test "Tukey's fences: exactly 1.5 and 3 interquartile ranges out are not beyond them" {
  # 1..8 and X: q1 3, q3 7, IQR 4 (exact order statistics at n = 9).
  run sh -c "printf 'x\n1\n2\n3\n4\n5\n6\n7\n8\n13\n' | bench-summarize --percentiles 25,75 --columns p25,p75,outliers_mild,outliers_severe --format csv 2> /dev/null"
  assert_status 0
  assert_output "p25,p75,outliers_mild,outliers_severe
3,7,0,0"
  run sh -c "printf 'x\n1\n2\n3\n4\n5\n6\n7\n8\n19\n' | bench-summarize --percentiles 25,75 --columns p25,p75,outliers_mild,outliers_severe --format csv 2> /dev/null"
  assert_status 0
  assert_output "p25,p75,outliers_mild,outliers_severe
3,7,1,0"
}

@test "the gate: --family-wise holm at two rows of 4 and 4: the first step is out of reach, it cannot decide (75)" {
  # The smallest p is 1/C(8, 4) = 1/70 = 0.014: below 0.025 alone, above
  # the first Holm step over two rows (0.0125).
  { echo bench,ms; for b in 1 2; do for v in 10 11 12 13; do echo "$b,$v"; done; done; } > "$TMP/h2.csv"
  run sh -c "bench-summarize --baseline '$TMP/h2.csv' --by bench --fail-if-worse ms:0%:lower --family-wise holm --format csv '$TMP/h2.csv' 2>&1 > /dev/null"
  assert_status 75
  assert_output "bench-summarize: cannot decide: --family-wise holm: over 2 rows the first step asks p < 0.013, below the smallest p the exact test gives any of them (0.014): no regression can be shown; more runs are needed"
}

# ------------------------------------------------------------ signals

@test "a SIGHUP the consumer's caller ignored stays ignored: the run goes on and ends 0" {
  mkfifo "$TMP/in"
  (trap '' HUP; exec arena-consume < "$TMP/in" > "$TMP/out" 2> "$TMP/err") 3>&- &
  local consumer=$!
  exec 4> "$TMP/in"
  # Its handlers are in place once it waits on its input.
  wait_until 30 in_kernel_wait "$consumer" pipe_read
  kill -HUP "$consumer"
  arena-produce --size 4K --items 3 >&4
  exec 4>&-
  local st=0
  wait "$consumer" || st=$?
  [ "$st" -eq 0 ]
  [ ! -s "$TMP/err" ]
  run sh -c "tail -n +2 '$TMP/out' | wc -l"
  assert_status 0
  assert_output 3
}

# ------------------------------------------------------------ machine

@test "a PCIe link whose width sysfs does not give is unknown, never a speed with a width made up" {
  local dev=0000:17:00.0 s=$TMP/sys
  mkdir -p "$s/bus/pci/devices/$dev"
  echo "32.0 GT/s PCIe" > "$s/bus/pci/devices/$dev/current_link_speed"
  echo "32.0 GT/s PCIe" > "$s/bus/pci/devices/$dev/max_link_speed"
  run bash -c "set -o pipefail; arena-produce --size 64K --items 2 --timeout 10 | ARENABENCH_TEST_SYSFS='$s' ARENABENCH_TEST_PCI=$dev arena-consume --report run 2> /dev/null | columns device_pci link link_max"
  assert_status 0
  assert_output "device_pci,link,link_max
$dev,unknown,unknown"
}

# ------------------------------------------------------------ verdicts

@test "verdicts: a p exactly at the level shows no difference (3 and 3 apart, rank-sum at 90%: p = 0.1)" {
  printf 'arm,ms\na,1\na,2\na,3\nb,4\nb,5\nb,6\n' > "$TMP/r.csv"
  run bash -c "set -o pipefail; bench-summarize --compare arm=a --rank --confidence 0.9 --format table '$TMP/r.csv' 2> /dev/null | tail -n 1"
  assert_status 0
  assert_output "arm=b vs arm=a: ms no difference shown at 90% (3.0 [1.0, 5.0], p = 0.1, rank-sum, exact)"
}
