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

# The four drivers' --from fixtures: DRIVER FOLDER VALUE (a column summarized).
from_fixtures() {
  printf '%s\n' "pinned-arena drivers-pinned-arena items_per_s" "h2d-sweep h2d-sweep-0.1.0 gib_per_s" \
    "multi-gpu-h2d multi-gpu-h2d-0.1.0 gib_per_s" "transfer-overlap transfer-overlap serialized_ms"
}

@test "--from never writes through a link: summary.txt, summary.csv and warnings.txt linked elsewhere are replaced, the file they named unchanged" {
  local d f v
  echo "not yours" > "$TMP/outside"
  while read -r d f v; do
    # A cell that is no number: bench-summarize warns, so warnings.txt is written.
    V=$v hostile "$top_srcdir/tests/data/$f" "$TMP/$d" 'NR == 2 { $c[ENVIRON["V"]] = "x" } 1'
    for f in summary.txt summary.csv warnings.txt; do ln -s "$TMP/outside" "$TMP/$d/$f"; done
    run "$d" --from "$TMP/$d"
    assert_status 0
    run cat "$TMP/outside"
    assert_status 0
    assert_output "not yours"
    for f in summary.txt summary.csv warnings.txt; do
      [ -f "$TMP/$d/$f" ] && [ ! -L "$TMP/$d/$f" ] || { echo "$d: $f is not a file of its own"; false; }
    done
    grep -q "line 2, column '.*': 'x' is not a number (counted as missing)" "$TMP/$d/warnings.txt"
    # No scratch file left beside them.
    run ls -A "$TMP/$d"
    assert_status 0
    assert_output "raw.csv
receipt.txt
summary.csv
summary.txt
warnings.txt"
  done < <(from_fixtures)
}

@test "--from on an interrupted run keeps the INTERRUPTED mark (its receipt's, or an older summary's) and exits 130" {
  cp -r "$top_srcdir/tests/data/drivers-pinned-arena" "$TMP/pa"
  echo "interrupted: after 5 of 36 runs" >> "$TMP/pa/receipt.txt"
  run pinned-arena --from "$TMP/pa"
  assert_status 130
  [ "${lines[0]}" = "pinned-arena: '$TMP/pa' holds an interrupted run (5 of 36 runs): its summary says so" ]
  [ "${lines[1]}" = "INTERRUPTED after 5 of 36 runs: this summary covers those runs only." ]
  [ "$(head -n 1 "$TMP/pa/summary.txt")" = "INTERRUPTED after 5 of 36 runs: this summary covers those runs only." ]
  # Into another --out too.
  run pinned-arena --from "$TMP/pa" --out "$TMP/again"
  assert_status 130
  [ "$(head -n 1 "$TMP/again/summary.txt")" = "INTERRUPTED after 5 of 36 runs: this summary covers those runs only." ]
  # A folder from before the receipt said so: its summary's first line.
  cp -r "$top_srcdir/tests/data/h2d-sweep-0.1.0" "$TMP/hs"
  printf 'INTERRUPTED after 3 of 9 runs: this summary covers those runs only.\n\nold\n' > "$TMP/hs/summary.txt"
  run h2d-sweep --from "$TMP/hs"
  assert_status 130
  [ "$(head -n 1 "$TMP/hs/summary.txt")" = "INTERRUPTED after 3 of 9 runs: this summary covers those runs only." ]
  # A whole run stays whole.
  run h2d-sweep --from "$top_srcdir/tests/data/h2d-sweep-0.1.0" --out "$TMP/whole"
  assert_status 0
  run grep -c INTERRUPTED "$TMP/whole/summary.txt"
  assert_status 1
}

@test "--from rows that bench-summarize refuses: 65 with its reason, no summary written, the old one kept" {
  local d f v
  while read -r d f v; do
    cp -r "$top_srcdir/tests/data/$f" "$TMP/$d"
    head -n 1 "$top_srcdir/tests/data/$f/raw.csv" > "$TMP/$d/raw.csv"
    echo "old summary" > "$TMP/$d/summary.txt"
    run "$d" --from "$TMP/$d"
    assert_status 65
    assert_output "$d: '$TMP/$d/raw.csv': bench-summarize refused its rows (no input rows): no summary written"
    run cat "$TMP/$d/summary.txt"
    assert_status 0
    assert_output "old summary"
    [ ! -e "$TMP/$d/summary.csv" ]
  done < <(from_fixtures)
}

# in_small_fs FREE CMD...: CMD in a mount namespace of its own where
# $TMP/small is a tmpfs with FREE pages (4 KiB) left: the rest is taken
# by a filler file.  $TMP/small/seed's contents (if any) are copied in first.
in_small_fs() {
  local free=$1; shift
  unshare -m sh -c '
    mount -t tmpfs -o size=256k arenabench-small "$0/small" || exit 99
    [ ! -d "$0/seed" ] || cp -r "$0/seed/." "$0/small/" || exit 99
    avail=$(df -B1 --output=avail "$0/small" | tail -n 1)
    head -c $((avail - $1 * 4096)) /dev/zero > "$0/small/filler" 2> /dev/null
    shift; exec "$@"' "$TMP" "$free" "$@"
}

require_small_fs() {
  local why
  mkdir -p "$TMP/small"
  command -v unshare > /dev/null || skip "unshare(1) is not installed"
  why=$(unshare -m sh -c 'mount -t tmpfs -o size=64k arenabench-small "$0"' "$TMP/small" 2>&1) ||
    skip "cannot mount a tmpfs in a mount namespace of its own here: ${why:-unshare -m failed}"
}

@test "a driver whose --out fills up: 74 and one line naming the file, the rows so far kept, never an empty summary with 0" {
  require_small_fs
  local free st=() err
  # From no room at all to room for everything: every write is checked.
  # What the folder holds is listed before the namespace (and its tmpfs) goes.
  for free in 0 1 2 3 4 5 6 7 8 12; do
    in_small_fs "$free" sh -c 'pinned-arena --cpu --size 4K --items 4 --repeats 1 --out "$0/small/o" > "$0/out.$1" 2> "$0/err.$1"
      st=$?; ls -A "$0/small/o" > "$0/ls.$1"; tail -n +2 "$0/small/o/raw.csv" | wc -l > "$0/rows.$1"; exit $st' "$TMP" "$free" 3>&- ||
      st[free]=$?
    st[free]=${st[free]:-0}
    err=$(tail -n 1 "$TMP/err.$free")
    case ${st[free]} in
      0) [[ $(tail -n 1 "$TMP/out.$free") =~ ^\#\ arenabench\ .*:\ pinned-arena\ --cpu\ --size\ 4K\ --items\ 4\ --repeats\ 1\ --out\ $TMP/small/o$ ]] ||
           { echo "free $free: exit 0 without a whole summary"; cat "$TMP/out.$free"; false; }
         [ "$(cat "$TMP/rows.$free")" -eq 4 ] ;;
      74) [[ $err =~ ^pinned-arena:\ cannot\ write\ \'$TMP/small/o/[a-z.]+\':\ No\ space\ left\ on\ device$ ]] ||
           { echo "free $free: $err"; false; }
         # No scratch file left beside the results.
         run grep -c '^\.' "$TMP/ls.$free"
         assert_status 1 ;;
      *) echo "free $free: exit ${st[free]}: $err"; false ;;
    esac
  done
  # Some runs failed partway, after rows were kept; with room enough it succeeds.
  for free in 0 1 2 3 4 5 6 7 8; do
    [ "${st[free]}" -ne 74 ] || [ "$(cat "$TMP/rows.$free")" -eq 0 ] || break
  done
  [ "$free" -lt 8 ]
  [ "${st[12]}" -eq 0 ]
}

@test "--from into a full file system: 74 and one line, the folder's summary as it was" {
  require_small_fs
  cp -r "$top_srcdir/tests/data/drivers-pinned-arena" "$TMP/seed"
  echo "old summary" > "$TMP/seed/summary.txt"
  run in_small_fs 0 sh -c 'pinned-arena --from "$0/small" 2>&1; echo "status $?"; cat "$0/small/summary.txt"; ls -A "$0/small"' "$TMP"
  assert_status 0
  assert_output "pinned-arena: cannot write '$TMP/small/summary.csv': No space left on device
status 74
old summary
filler
raw.csv
receipt.txt
summary.txt"
}
