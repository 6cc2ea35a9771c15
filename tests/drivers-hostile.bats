#!/usr/bin/env bats
# The drivers against hostile input and faults: --from reads a folder
# anyone may have written (its raw.csv, links in it), and --out may fill
# up.  Each case: a clear error and a status, nothing lost, nothing run.

load test-helper

require_gnuplot() {
  command -v gnuplot > /dev/null && gnuplot -e 'set terminal pngcairo' 2> /dev/null || skip "no gnuplot with pngcairo"
}

# hostile SRC DST AWK: a copy of the fixture folder SRC in DST, its
# raw.csv's rows edited by the awk program AWK (c[NAME]: the column's
# field; $TMP in ENVIRON["T"]).
hostile() {
  rm -rf "$2"
  cp -r "$1" "$2"
  T=$TMP awk -F, -v OFS=, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; print; next } '"$3" "$1/raw.csv" > "$2/raw.csv"
}

# What each name runs if gnuplot takes it for code: it makes $TMP/PWNEDn.
# In a single-quoted gnuplot string (a plot's title) the quote ends the
# string and the concatenation runs system(); in a double-quoted one (the
# title, the x axis' labels) the backquotes run.
pwn() { printf "x'.system('touch\${IFS}%s/PWNED%s').'" "$TMP" "$1"; }
pwn_bq() { printf '`touch${IFS}%s/PWNED%s`' "$TMP" "$1"; }

# assert_not_run: no PWNED file, and the figure FILE is a PNG.
assert_plot_safe() {
  run ls "$TMP"
  assert_status 0
  [[ $output != *PWNED* ]] || { echo "ran: $output"; false; }
  [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' ')" = 89504e470d0a1a0a ]
}

@test "pinned-arena --from --plot: arm, backend and worker names of raw.csv are data for gnuplot, never code" {
  require_gnuplot
  A1=$(pwn 1) A2=$(pwn_bq 2) B=$(pwn 3) W=$(pwn_bq 4) hostile "$top_srcdir/tests/data/drivers-pinned-arena" "$TMP/pa" '
    { if ($c["arm"] == "pool-staged") $c["arm"] = $c["workers"] == 1 ? ENVIRON["A1"] : ENVIRON["A2"]
      if ($c["workers"] == 4) $c["workers"] = ENVIRON["W"]
      print
      # A backend of its own, pinned and pageable: its ratio is labelled.
      if ($c["arm"] ~ /^pool-(pinned|pageable)$/) { v = $c["arm"]; sub(/^pool-/, "", v)
        $c["backend"] = ENVIRON["B"]; $c["arm"] = ENVIRON["B"] "-" v; print } }'
  # The names are in raw.csv as planted.
  run grep -c PWNED "$TMP/pa/raw.csv"
  assert_status 0
  assert_output 33
  run pinned-arena --from "$TMP/pa" --plot
  assert_status 0
  assert_plot_safe "$TMP/pa/items-per-s.png"
}

@test "h2d-sweep --from --plot: arm names and the GPU's name are data for gnuplot, never code" {
  require_gnuplot
  A=$(pwn 1) G=$(pwn_bq 2) hostile "$top_srcdir/tests/data/h2d-sweep-0.1.0" "$TMP/hs" '
    { if ($c["arm"] == "pool-pinned") $c["arm"] = ENVIRON["A"]; $c["gpu"] = ENVIRON["G"]; print }'
  run h2d-sweep --from "$TMP/hs" --plot
  assert_status 0
  assert_plot_safe "$TMP/hs/bandwidth.png"
  # The memory panel names its arms too.
  A=$(pwn 3) hostile "$top_srcdir/tests/data/h2d-sweep-memory" "$TMP/hm" '
    { if ($c["arm"] ~ /-pinned$/) $c["arm"] = ENVIRON["A"]; print }'
  run h2d-sweep --from "$TMP/hm" --plot
  assert_status 0
  assert_plot_safe "$TMP/hm/bandwidth.png"
}

@test "multi-gpu-h2d and transfer-overlap --from --plot: device and method names are data for gnuplot, never code" {
  require_gnuplot
  D=$(pwn_bq 1) hostile "$top_srcdir/tests/data/multi-gpu-h2d-0.1.0" "$TMP/mg" '
    { $c["device"] = ENVIRON["D"] $c["device"]; print }'
  run multi-gpu-h2d --from "$TMP/mg" --plot
  assert_status 0
  assert_plot_safe "$TMP/mg/h2d-per-gpu.png"
  M=$(pwn_bq 2) G=$(pwn 3) hostile "$top_srcdir/tests/data/transfer-overlap" "$TMP/to" '
    { if ($c["method"] == "direct") $c["method"] = ENVIRON["M"]; $c["gpu"] = ENVIRON["G"]; print }'
  run transfer-overlap --from "$TMP/to" --plot
  assert_status 0
  assert_plot_safe "$TMP/to/overlap.png"
}

