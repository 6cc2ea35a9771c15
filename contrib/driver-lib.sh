# shellcheck shell=bash disable=SC2034,SC2154
# driver-lib.sh -- what the benchmark drivers in contrib/ share: option
# parsing, the results folder, the receipt, progress, interruption, unit
# conversion of older rows, and gnuplot.  Sourced, never run; each driver
# sets $prog before sourcing it.  Functions are named drv_*.

# The commands beside the driver: a build tree (contrib/ next to src/), or
# an installed bindir; otherwise whatever PATH finds.
drv_here=$(cd "$(dirname "$0")" && pwd)
if [ -x "$drv_here/../src/arena-produce" ]; then PATH="$drv_here/../src:$PATH"
elif [ -x "$drv_here/arena-produce" ]; then PATH="$drv_here:$PATH"; fi

drv_cmdline=
drv_interrupted=no
drv_tmp=
out= force=no plot=no from=

# Usage errors and refusals: one line, exit 64.
drv_die() { echo "$prog: $*" >&2; exit 64; }
# Exit with STATUS and one line.
drv_fail() { local st=$1; shift; echo "$prog: $*" >&2; exit "$st"; }

# drv_init "$@": remember the command line exactly as given (shell-quoted),
# and a private scratch folder that goes away at exit (no plot data left).
drv_init() {
  drv_cmdline=$(printf '%q ' "$prog" "$@"); drv_cmdline=${drv_cmdline% }
  drv_tmp=$(mktemp -d "${TMPDIR:-/tmp}/$prog.XXXXXX") || drv_fail 70 "cannot create a scratch folder"
  trap 'rm -rf "$drv_tmp"' EXIT
}

# drv_getopt LONGOPTS "$@": getopt(1) with the driver's long options and
# the common ones; prints the normalized arguments for 'eval set --'.
# getopt accepts --opt=value and unambiguous abbreviations.
drv_getopt() {
  local longs=$1; shift
  getopt -n "$prog" -o '' -l "$longs,out:,force,plot,from:,help,version" -- "$@" || {
    echo "Try '$prog --help' for more information." >&2; return 64; }
}

# drv_option "$@": the common options; sets drv_shift to the arguments used.
drv_option() {
  drv_shift=1
  case $1 in
    --out) out=$2; drv_shift=2 ;;
    --force) force=yes ;;
    --plot) plot=yes ;;
    --from) from=$2; drv_shift=2 ;;
    --help) usage; exit 0 ;;
    --version) drv_version; exit 0 ;;
    *) drv_die "unknown option '$1'" ;;
  esac
}

drv_version() {
  local v
  v=$(arena-produce --version 2>/dev/null | sed -n '1s/.* //p')
  echo "$prog (arenabench) ${v:-unknown}"
}

# The common part of every --help.
drv_usage_common() {
  cat <<USAGE
  --out DIR         results folder (default $prog-YYYYmmdd-HHMMSS); one
                    that exists and is not empty only with --force
  --force           write into an existing --out folder, replacing its files
  --plot            draw the figure with gnuplot (pngcairo), if installed
  --from DIR        summarize and draw DIR/raw.csv of an earlier run again,
                    into DIR or into --out
  --help            display this help and exit
  --version         output version information and exit

A progress line with the time left goes to stderr when it is a terminal.
Ctrl-C stops after the run in progress and keeps the rows so far.

Exit status:
  0    every run succeeded and every item was checked
  64   a bad option or value, or --out exists without --force
  69   no CUDA GPU here (or a build without CUDA) where one is needed
  70   a run failed (its status is on stderr); the others are summarized
  130  interrupted; the rows so far are in DIR/raw.csv
USAGE
}

# drv_positive NAME VALUE: VALUE must be a positive integer.
drv_positive() {
  case $2 in ''|*[!0-9]*|0) drv_die "--$1: '$2' is not a positive integer" ;; esac
}

# drv_out_dir: create $out (default PROG-DATE).  An existing folder with
# files in it is refused unless --force; then only our files are replaced.
drv_out_dir() {
  [ -n "$out" ] || out=$prog-$(date +%Y%m%d-%H%M%S)
  if [ -e "$out" ] && [ -n "$(ls -A "$out" 2>/dev/null)" ] && [ "$force" != yes ]; then
    drv_die "--out: '$out' exists; add --force to replace its results"
  fi
  mkdir -p "$out" 2>/dev/null || drv_die "--out: cannot create '$out'"
}

# drv_from: --from DIR reads DIR/raw.csv; results go to --out when given.
drv_from() {
  [ -s "$from/raw.csv" ] || drv_die "--from: no '$from/raw.csv'"
  raw=$from/raw.csv
  if [ -n "$out" ] && [ "$out" != "$from" ]; then drv_out_dir; else out=$from; fi
}

# The git commit the driver comes from: a release tarball's .commit, the
# source tree's git, or the one recorded at install; else "unknown".
drv_commit() {
  local c
  if [ -f "$drv_here/../src/arena.c" ] && [ -r "$drv_here/../.commit" ]; then cat "$drv_here/../.commit"
  elif [ -f "$drv_here/../src/arena.c" ] \
       && c=$(git -C "$drv_here/.." describe --always --dirty --abbrev=12 2>/dev/null); then echo "$c"
  elif [ -r "${drv_libdir:-$drv_here}/commit" ]; then cat "${drv_libdir:-$drv_here}/commit"
  else echo unknown; fi
}

# drv_receipt_head: the lines every receipt starts with, as "key: value".
drv_receipt_head() {
  echo "command: $drv_cmdline"
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "host: $(hostname)"
  echo "cpu: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1) ($(nproc) online)"
  echo "kernel: $(uname -sr)"
  echo "arenabench: $(drv_version | sed 's/.* //')"
  echo "commit: $(drv_commit)"
}

# drv_receipt_gpus: one "gpu: INDEX, NAME, driver D, PCIe genG xW, BUS" line
# per GPU, when nvidia-smi is there.
drv_receipt_gpus() {
  command -v nvidia-smi >/dev/null 2>&1 || return 0
  nvidia-smi --query-gpu=index,name,driver_version,pcie.link.gen.current,pcie.link.width.current,pci.bus_id \
      --format=csv,noheader 2>/dev/null \
    | awk -F', ' '{ printf "gpu: %s, %s, driver %s, PCIe gen%s x%s, %s\n", $1, $2, $3, $4, $5, $6 }'
}

# Progress: drv_progress_start TOTAL, then drv_progress LABEL before each
# run and drv_progress_step after it; drv_progress_end.  Only to a terminal.
drv_progress_start() { drv_total=$1 drv_done=0 drv_start=$(date +%s); }
drv_progress() {
  [ -t 2 ] || return 0
  local elapsed left='?'
  elapsed=$(( $(date +%s) - drv_start ))
  [ "$drv_done" -gt 0 ] && left=$(( elapsed * (drv_total - drv_done) / drv_done ))
  printf '\r\033[K%s: run %d of %d (%s), %ds elapsed, ~%ss left' \
    "$prog" "$((drv_done + 1))" "$drv_total" "$1" "$elapsed" "$left" >&2
}
drv_progress_step() { drv_done=$((drv_done + 1)); }
drv_progress_end() { [ -t 2 ] && printf '\r\033[K' >&2; return 0; }

# Ctrl-C (or TERM) ends the run in progress; the loop checks
# drv_interrupted and calls drv_stop, which keeps the rows.
drv_trap() { trap 'drv_interrupted=yes' INT TERM; }
drv_stop() {
  drv_progress_end
  echo "$prog: interrupted after $drv_done of $drv_total runs; rows so far are in '$raw'" >&2
  exit 130
}

# drv_finish: say where the results are, and exit with $status.
drv_finish() {
  echo "$prog: raw rows, receipt and summary in '$out/'" >&2
  exit "${status:-0}"
}

# drv_append FILE: add a run report (header + rows) to $raw, one header.
drv_append() {
  if [ -s "$raw" ]; then tail -n +2 "$1" >> "$raw"; else cat "$1" > "$raw"; fi
}

# drv_gb_rows FILE: the rows with bandwidth in GB/s (1e9 B/s).  Rows of
# arenabench 0.1.0 carry gib_per_s and h2d_gib_per_s (2^30 B/s): those
# columns are renamed and their values converted.
drv_gb_rows() {
  awk -F, -v OFS=, '
    NR == 1 || $0 == header {
      if (NR == 1) header = $0
      for (i = 1; i <= NF; i++) if ($i ~ /^(h2d_)?gib_per_s$/) { conv[i] = 1; sub(/gib_per_s$/, "gb_per_s", $i) }
      if (NR == 1) print; next }
    { for (i in conv) if ($i != "") $i = sprintf("%.4f", $i * 1.073741824); print }' "$1"
}

# drv_col FILE NAME: true when the header of FILE has column NAME.
drv_col() { head -n 1 "$1" | tr ',' '\n' | grep -qxF "$2"; }

# drv_verdict SUBJECT RATIO LOW HIGH P N WHAT [COST]: one line in words.
# A difference is shown only when the 95% interval of the ratio excludes 1
# and, where there is a test (P not empty), it agrees at 5%.
drv_verdict() {
  local subject=$1 ratio=$2 lo=$3 hi=$4 p=$5 n=$6 what=$7 cost=${8-} pt=
  [ -n "$p" ] && pt=$(printf ', p = %.2g' "$p")
  if [ -z "$lo" ] || [ -z "$hi" ]; then
    if [ "${n:-0}" -lt 2 ]; then
      printf '%s: %.2fx %s, n = %s: too few runs for an interval\n' "$subject" "$ratio" "$what" "$n"
    else
      # bench-summarize leaves it empty where none exists at this n, the
      # values are all equal, or the base is not clearly away from zero.
      printf '%s: %.2fx %s, n = %s: no 95%% interval from these runs\n' "$subject" "$ratio" "$what" "$n"
    fi
  elif awk -v lo="$lo" -v hi="$hi" -v p="$p" 'BEGIN { exit !((lo > 1 || hi < 1) && (p == "" || p < 0.05)) }'; then
    printf '%s: %.2fx %s [%.2f, %.2f]%s%s, n = %s\n' "$subject" "$ratio" "$what" "$lo" "$hi" "$cost" "$pt" "$n"
  else
    printf '%s: no difference shown at 95%% (%.2fx %s [%.2f, %.2f]%s, n = %s)\n' "$subject" "$ratio" "$what" "$lo" "$hi" "$pt" "$n"
  fi
}

# drv_gnuplot PNG: run the gnuplot script on stdin into PNG (pngcairo), or
# say why no figure is drawn.
drv_gnuplot() {
  if ! command -v gnuplot >/dev/null 2>&1; then
    echo "$prog: note: gnuplot not installed (Debian: gnuplot-nox); no figure drawn" >&2; return 0
  fi
  if ! gnuplot -e 'set terminal pngcairo' >/dev/null 2>&1; then
    echo "$prog: note: this gnuplot has no pngcairo terminal; no figure drawn" >&2; return 0
  fi
  { printf 'set terminal pngcairo size %s noenhanced font ",11"\nset output "%s"\n' "${drv_png_size:-1000,600}" "$1"; cat; } \
    | gnuplot && echo "$prog: figure '$1'" >&2
}

# drv_human BYTES: "8MiB" style label for a byte count.
drv_human() {
  awk -v b="$1" 'BEGIN { split("B KiB MiB GiB TiB", u, " "); i = 1
    while (b >= 1024 && b % 1024 == 0 && i < 5) { b /= 1024; i++ } printf "%d%s\n", b, u[i] }'
}
