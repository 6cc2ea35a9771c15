# shellcheck shell=bash disable=SC2034,SC2154
# driver-lib.sh -- what the benchmark drivers in contrib/ share: option
# parsing, the results folder, the receipt, progress, interruption, unit
# conversion of older rows, and gnuplot.  Sourced, never run; each driver
# sets $prog before sourcing it.  Functions are named drv_*.

# The same bytes in every locale: awk, printf and sort read and write
# numbers with the locale's decimal point (de_DE's and tr_TR's comma made
# ragged raw.csv rows) and sort in its collation.  The drivers' output is
# data, and their messages are English anyway.
LC_ALL=C
export LC_ALL

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

# drv_backends: the arena backends, one a line, from arena-produce's table
# of them (--list-backends), so that a new backend reaches every driver.
drv_backends() { arena-produce --list-backends; }

# drv_backend_check OPTION NAME: NAME is a backend, or a usage error.
drv_backend_check() {
  local all
  all=$(drv_backends) || drv_fail 69 "arena-produce --list-backends failed"
  grep -qxF -- "$2" <<<"$all" || drv_die "$1: '$2' is not a backend ($(paste -sd, <<<"$all" | sed 's/,/, /g'))"
}
# Exit with STATUS and one line.
drv_fail() { local st=$1; shift; echo "$prog: $*" >&2; exit "$st"; }

# drv_put FILE: stdin becomes FILE, checked: written to a new file beside
# it, then renamed over it, so that a link at FILE (a --from folder is
# anyone's) is replaced, never written through, and a write that fails (a
# full file system) leaves FILE as it was and exits 74 with one line.
# Call it in the driver's own shell (stdin a redirection, not a pipe's
# subshell) so that the exit ends the driver.
drv_put() {
  local f=$1 t err
  t=$(mktemp "$(dirname -- "$f")/.${f##*/}.XXXXXX" 2>&1) || drv_fail 74 "cannot write '$f': ${t##*: }"
  if ! err=$(cat 2>&1 > "$t") || ! chmod "$(printf '%o' $((0666 & ~$(umask))))" "$t" || ! err=$(mv -f -- "$t" "$f" 2>&1); then
    rm -f -- "$t"
    drv_fail 74 "cannot write '$f': ${err##*: }"
  fi
}

# drv_put_lines FILE LINE...: FILE with LINEs added at its end (drv_put).
drv_put_lines() {
  local f=$1; shift
  { cat -- "$f" 2> /dev/null; printf '%s\n' "$@"; } > "$drv_tmp/put-lines" || drv_fail 74 "cannot write '$drv_tmp/put-lines'"
  drv_put "$f" < "$drv_tmp/put-lines"
}

# drv_init "$@": remember the command line exactly as given (shell-quoted),
# and a private scratch folder that goes away at exit (no plot data left).
drv_init() {
  drv_cmdline=$(printf '%q ' "$prog" "$@"); drv_cmdline=${drv_cmdline% }
  drv_tmp=$(mktemp -d "${TMPDIR:-/tmp}/$prog.XXXXXX") || drv_fail 70 "cannot create a scratch folder"
  # gnuplot's scripts name the plot data by this path: one with a quote or
  # a backquote in it (from TMPDIR) would be gnuplot syntax; /tmp instead.
  case $drv_tmp in
    *[!A-Za-z0-9/._+-]*) rmdir "$drv_tmp"
      drv_tmp=$(mktemp -d "/tmp/$prog.XXXXXX") || drv_fail 70 "cannot create a scratch folder" ;;
  esac
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

# drv_rank: this process's rank as the consumers read it from the
# launcher's variables (arena-consume --print-rank: the one table of them,
# launcher.c), into drv_launcher (none, torchrun, openmpi, mpich, slurm),
# drv_rank_id, drv_local_rank, drv_world_size and drv_local_world_size
# (empty where the launcher did not say).  Variables that disagree exit
# 64 with arena-consume's message.
drv_rank() {
  local line
  line=$(arena-consume --print-rank) || exit 64
  IFS='|' read -r drv_launcher drv_rank_id drv_local_rank drv_world_size drv_local_world_size \
    < <(printf '%s\n' "$line" | awk '{ for (i = 1; i <= NF; i++) { sub(/^[a-z_]*=/, "", $i); printf "%s%s", $i, (i < NF ? "|" : "\n") } }')
}

# drv_check CMD ARG...: CMD's own option parser judges the ARGs a run will
# give it, before any run: its options are read in order, so every one is
# parsed before --help exits, touching nothing.  A value it refuses is the
# driver's usage error (64), in CMD's words; nothing is run or written.
# Another status (a stand-in, a command that cannot start) is left to the
# run, which says why.
drv_check() {
  local err st=0
  err=$("$@" --help 2>&1 > /dev/null < /dev/null) || st=$?
  [ "$st" -ne 64 ] || drv_die "$(printf '%s\n' "$err" | head -n 1)"
}

# drv_operands "$@": the drivers take options only.
drv_operands() { [ $# -eq 0 ] || drv_die "extra operand '$1'"; }

# drv_bars MEANS RUNS OFFSET COLOUR TITLE DOT: gnuplot plot clauses for a
# bar chart: bars of the means (columns x, mean, low, high) with their
# interval, every run of RUNS (x, value) a grey dot of size DOT.
drv_bars() {
  printf "'%s' using (\$1 + %s):2 with boxes lc %s title '%s'" "$1" "$3" "$4" "$5"
  printf ", '' using (\$1 + %s):2:3:4 with yerrorbars pt 1 ps 0 lw 1.5 lc rgb 'black' notitle" "$3"
  printf ", '%s' using (\$1 + %s):2 with points pt 7 ps %s lc rgb '#333333' notitle" "$2" "$3" "$6"
}

drv_version() {
  local v
  v=$(arena-produce --version 2>/dev/null | sed -n '1s/.* //p')
  echo "$prog (arenabench) ${v:-unknown}"
}

# The common part of every --help.
drv_usage_common() {
  cat <<USAGE
  --out DIR         results folder; one that exists and is not empty only
                    with --force (default $prog-YYYYmmdd-HHMMSS)
  --force           write into an existing --out folder, replacing its files
  --plot            draw the figure with gnuplot (pngcairo), if installed
  --from DIR        summarize and draw DIR/raw.csv of an earlier run of
                    this driver again (DIR/receipt.txt must name it), into
                    DIR or into --out
  --help            display this help and exit
  --version         output version information and exit

A progress line with the time left goes to stderr when it is a terminal.
Ctrl-C stops after the run in progress, keeps the rows so far and writes
their summary, marked as interrupted.  bench-summarize's warnings go to
stderr and DIR/warnings.txt, never into DIR/summary.txt.

Exit status:
  0    every run succeeded and every item was checked
  64   a bad option or value, or --out exists without --force
  69   no CUDA GPU here, or a build without CUDA, where one is needed
  70   a run failed (its status is on stderr); the others are summarized
  130  interrupted; the rows so far are in DIR/raw.csv, their summary in
       DIR/summary.txt
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

# drv_from: --from DIR reads DIR/raw.csv of an earlier run of this same
# driver (its receipt's command names it: another driver's folder is never
# summarized, let alone overwritten); results go to --out when given.
drv_from() {
  local maker
  [ -s "$from/raw.csv" ] || drv_die "--from: no '$from/raw.csv'"
  maker=$(sed -n 's/^command: \([^ ]*\).*/\1/p' "$from/receipt.txt" 2>/dev/null | head -n 1)
  [ "${maker##*/}" = "$prog" ] ||
    drv_die "--from: '$from' was not made by $prog (its receipt.txt names ${maker:-no driver})"
  raw=$from/raw.csv
  # An interrupted run stays one: its receipt says so (or, before the
  # receipt did, its summary's first line); the summary is marked again
  # and the driver exits 130, as the run did.
  local cut
  cut=$(sed -n 's/^interrupted: after \([0-9]*\) of \([0-9]*\) runs$/\1 \2/p' "$from/receipt.txt" | tail -n 1)
  [ -n "$cut" ] || cut=$(sed -n '1s/^INTERRUPTED after \([0-9]*\) of \([0-9]*\) runs: .*/\1 \2/p' "$from/summary.txt" 2> /dev/null)
  if [ -n "$cut" ]; then
    drv_interrupted=yes status=130
    read -r drv_done drv_total <<< "$cut"
    echo "$prog: '$from' holds an interrupted run ($drv_done of $drv_total runs): its summary says so" >&2
  fi
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
  drv_receipt_machine
  # A loaded machine: in the receipt, so in the summary too, and on stderr.
  local w
  w=$(drv_load_warning)
  [ -z "$w" ] || { echo "$w"; echo "$prog: $w" >&2; }
}

# drv_receipt_machine: where the session ran, as sysfs says ("unknown"
# where it does not; $ARENABENCH_TEST_SYSFS names a fake tree, for tests
# only): the NUMA nodes and their CPUs, transparent huge pages (and for
# shmem, which /dev/shm's arenas are), the CPU frequency governors, and
# each GPU's PCI link and node (bus ids from nvidia-smi, or for tests only
# $ARENABENCH_TEST_PCI).
drv_receipt_machine() {
  local sys=${ARENABENCH_TEST_SYSFS:-/sys} n bus gov pci=
  drv_sysfs() { local v; v=$(head -n 1 "$sys/$1" 2> /dev/null); echo "${v:-unknown}"; }
  drv_choice() { local v; v=$(sed -n 's/.*\[\([^]]*\)\].*/\1/p' "$sys/$1" 2> /dev/null); echo "${v:-unknown}"; }
  echo "numa nodes: $(drv_sysfs devices/system/node/online)"
  for n in "$sys"/devices/system/node/node[0-9]*; do
    [ -d "$n" ] && echo "numa node ${n##*/node}: cpus $(drv_sysfs "devices/system/node/${n##*/}/cpulist")"
  done
  echo "thp: $(drv_choice kernel/mm/transparent_hugepage/enabled), shmem $(drv_choice kernel/mm/transparent_hugepage/shmem_enabled)"
  gov=$(cat "$sys"/devices/system/cpu/cpu[0-9]*/cpufreq/scaling_governor 2> /dev/null | sort | uniq -c \
        | awk '{ printf "%s%s (%s CPUs)", (NR > 1 ? ", " : ""), $2, $1 }')
  echo "cpu governor: ${gov:-unknown}"
  if [ -n "${ARENABENCH_TEST_SYSFS:-}" ]; then pci=${ARENABENCH_TEST_PCI:-}
  elif command -v nvidia-smi > /dev/null 2>&1; then
    # nvidia-smi writes the domain in 8 digits and upper case: sysfs in 4, lower.
    pci=$(nvidia-smi --query-gpu=pci.bus_id --format=csv,noheader 2> /dev/null \
          | tr 'A-F' 'a-f' | sed 's/^0000\([0-9a-f]\{4\}:\)/\1/')
  fi
  for bus in $pci; do
    n=bus/pci/devices/$bus
    echo "gpu pci $bus: link $(drv_sysfs "$n/current_link_speed") x$(drv_sysfs "$n/current_link_width"), max $(drv_sysfs "$n/max_link_speed") x$(drv_sysfs "$n/max_link_width"), numa node $(drv_sysfs "$n/numa_node")"
  done
}

# drv_machine_warnings ROWS: the placement warnings of the run reports in
# ROWS (their machine columns, arenabench(7)), each once, in words: a link
# below its maximum, arena pages or producers on another NUMA node than the
# device.  Nothing for rows without those columns or a device.
drv_machine_warnings() {
  awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; if (!("device_numa" in c)) exit; next }
    function others(list, node,   n, a, i, r, lo, hi, k) {   # list "0;2-3": nodes other than node?
      n = split(list, a, ";")
      for (i = 1; i <= n; i++) { lo = a[i]; hi = a[i]; if (a[i] ~ /-/) { split(a[i], r, "-"); lo = r[1]; hi = r[2] }
        if (lo !~ /^[0-9]+$/) continue
        for (k = lo + 0; k <= hi + 0; k++) if (k != node) return 1 }
      return 0 }
    $c["device_pci"] != "" {
      d = $c["device_pci"]; node = $c["device_numa"]
      if ($c["link"] != "unknown" && $c["link_max"] != "unknown" && $c["link"] != $c["link_max"])
        w["warning: GPU " d ": its PCIe link ran at " $c["link"] ", below its maximum " $c["link_max"] ": every copy is capped by it"]
      if (node ~ /^[0-9]+$/) {
        if (others($c["arena_numa"], node))
          w["warning: arena pages on NUMA node " $c["arena_numa"] ", GPU " d " on node " node ": copies crossed between sockets (arena-produce --numa-node " node ")"]
        if (others($c["producer_numa"], node))
          w["warning: producers ran on NUMA node " $c["producer_numa"] ", GPU " d " on node " node " (arena-produce --numa-node " node ")"]
      } }
    END { for (m in w) print m }' "$1" | sort
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
# drv_interrupted and calls drv_stop, which keeps the rows and summarizes
# them (the driver's summarize function), saying the run was cut short.
drv_trap() { trap 'drv_interrupted=yes' INT TERM; }
drv_stop() {
  drv_progress_end
  # The receipt says so too: --from keeps the mark (drv_from).
  drv_put_lines "$out/receipt.txt" "interrupted: after $drv_done of $drv_total runs"
  [ -s "$raw" ] && summarize
  echo "$prog: interrupted after $drv_done of $drv_total runs; rows so far are in '$raw'" >&2
  exit 130
}

# drv_loop_check: at the top of each run, stop when interrupted.
drv_loop_check() { [ "$drv_interrupted" = no ] || drv_stop; }

# drv_run_failed WHAT STATUS: a failed run (or the interruption that
# failed it); the other runs go on and the driver exits 70.
drv_run_failed() {
  drv_loop_check
  drv_progress_end
  echo "$prog: run of $1 failed with status $2" >&2
  status=70
}

# drv_rows_or_from: after the runs, at least one row; or read --from.
drv_rows_or_from() {
  if [ -z "$from" ]; then
    drv_progress_end
    # No run at all because every size was refused (64): the usage error
    # is the status, not a failed run.
    [ -s "$raw" ] || drv_fail "$([ "${status:-0}" -eq 64 ] && echo 64 || echo 70)" "no run succeeded"
  else
    drv_from
  fi
}

# drv_bs ARGS: bench-summarize, its notes and warnings kept apart from the
# summary (DIR/warnings.txt and stderr, see drv_write_summary).
drv_bs() { bench-summarize --seed 1 "$@" 2>> "$drv_tmp/warnings"; }

# drv_bs_to FILE ARGS...: drv_bs ARGS into FILE, checked.  bench-summarize
# refusing the rows (no rows, a column missing: nothing to summarize)
# exits 65 saying why; a write that fails (its 74) exits 74.
drv_bs_to() {
  local f=$1 st why; shift
  drv_bs "$@" > "$f"; st=$?
  [ "$st" -ne 0 ] || return 0
  [ "$st" -ne 74 ] || drv_fail 74 "cannot write '$f'"
  why=$(grep '^bench-summarize: ' "$drv_tmp/warnings" | tail -n 1)
  why=${why//"$drv_tmp/rows.csv"/$raw}   # the rows in GB/s: raw.csv's, line for line
  drv_fail 65 "'$raw': bench-summarize refused its rows (${why#bench-summarize: }): no summary written"
}

# drv_log_scale: --log-scale (mean intervals on the log scale, always
# positive) where this bench-summarize has it, for rate columns.
drv_log_scale() {
  bench-summarize --help 2>/dev/null | grep -q -- --log-scale && echo --log-scale
}

# drv_write_summary: DIR/summary.txt from the driver's summary_body (its
# headline first), shown on stdout; an interrupted run says so on top.
# bench-summarize's warnings go to stderr and DIR/warnings.txt; those that
# say an interval printed above tells nothing (too few runs for their
# spread) go into the summary too, beside the numbers they are about.
drv_write_summary() {
  : > "$drv_tmp/warnings"
  # Put together in the scratch folder, then in place (drv_put).
  {
    [ "$drv_interrupted" = no ] ||
      printf 'INTERRUPTED after %s of %s runs: this summary covers those runs only.\n\n' "$drv_done" "$drv_total"
    summary_body
    drv_advice
    grep -h 'too few values for their spread to say anything' "$drv_tmp/warnings" | sort -u \
      | sed 's/^bench-summarize: /# warning: /' | awk '{ print } END { if (NR) print "" }'
    drv_receipt_warnings
    drv_provenance
  } > "$drv_tmp/summary.txt" || drv_fail 74 "cannot write '$drv_tmp/summary.txt'"
  drv_put "$out/summary.txt" < "$drv_tmp/summary.txt"
  cat "$drv_tmp/summary.txt"
  if [ -s "$drv_tmp/warnings" ]; then
    # A warning about the rows in GB/s names raw.csv (line for line the same).
    RAW=$raw ROWS=$drv_tmp/rows.csv awk '{ while ((i = index($0, ENVIRON["ROWS"])) > 0)
        $0 = substr($0, 1, i - 1) ENVIRON["RAW"] substr($0, i + length(ENVIRON["ROWS"])); print }' "$drv_tmp/warnings" \
      | sort -u > "$drv_tmp/warnings.txt" || drv_fail 74 "cannot write '$drv_tmp/warnings.txt'"
    drv_put "$out/warnings.txt" < "$drv_tmp/warnings.txt"
    cat "$drv_tmp/warnings.txt" >&2
  else
    rm -f "$out/warnings.txt"
  fi
}

# drv_advice: bench-summarize's warnings advise its own options; here
# the driver chose them, so the advice names what the user can do: more
# runs through the driver's own option ($drv_more_runs), bench-summarize's
# options as bench-summarize's, on DIR/raw.csv.  Once, after summary_body.
drv_more_runs="$prog --repeats"
drv_advice() {
  sed -i -e "s|; more runs, or --log-scale\$|; more runs ($drv_more_runs)|" \
    -e 's|; --log-scale or --ci-stat gmean hold better|; bench-summarize --log-scale or --ci-stat gmean on raw.csv hold better|' \
    -e 's|(use --ci \([a-z]*\))|(bench-summarize --ci \1 on raw.csv)|' "$drv_tmp/warnings"
}

# drv_receipt_warnings: the receipt's warnings about the machine (load,
# too few CPUs), then a blank line; nothing without any.
drv_receipt_warnings() {
  grep -h '^warning: ' "${from:-$out}/receipt.txt" 2> /dev/null | awk '{ print } END { if (NR) print "" }'
}

# drv_provenance: the summary's last line, where its rows came from as
# their receipt says (the earlier run's with --from): the arenabench
# version and commit, and the exact command line, shell-quoted.
drv_provenance() {
  local r=${from:-$out}/receipt.txt v c cmd
  v=$(sed -n 's/^arenabench: //p' "$r" 2> /dev/null | head -n 1)
  c=$(sed -n 's/^commit: //p' "$r" 2> /dev/null | head -n 1)
  cmd=$(sed -n 's/^command: //p' "$r" 2> /dev/null | head -n 1)
  echo "# arenabench ${v:-unknown} (commit ${c:-unknown}): ${cmd:-no command recorded}"
}

# drv_load_warning: a warning line when the 1-minute load average is at
# least the online CPUs (other processes compete with the runs), or
# nothing.  ($ARENABENCH_TEST_LOADAVG names a fake /proc/loadavg, for
# tests only.)
drv_load_warning() {
  local load cores
  cores=$(nproc)
  load=$(awk '{ print $1; exit }' "${ARENABENCH_TEST_LOADAVG:-/proc/loadavg}" 2> /dev/null)
  [ -n "$load" ] && awk -v l="$load" -v c="$cores" 'BEGIN { exit !(l + 0 >= c + 0) }' || return 0
  echo "warning: load average $load on $cores online CPU(s) when the runs began: other processes compete with them, and the figures measure that"
}

# drv_finish: say where the results are, and exit with $status.
drv_finish() {
  echo "$prog: raw rows, receipt and summary in '$out/'" >&2
  exit "${status:-0}"
}

# drv_append FILE [NAME=VALUE...]: add a run report (header + rows) to $raw
# under one header, the NAME columns first.  Columns are matched by name:
# a report with a column $raw lacks (another consumer's, a newer build's)
# widens $raw, earlier rows getting empty cells there.
drv_append() {
  local file=$1 tmp=$drv_tmp/append.csv; shift
  awk -F, -v OFS=, -v pre="$*" -v raw="$raw" '
    BEGIN { np = split(pre, p, " ")
      for (i = 1; i <= np; i++) { e = index(p[i], "="); pn[i] = substr(p[i], 1, e - 1); pv[i] = substr(p[i], e + 1) }
      if ((getline line < raw) > 0) { nh = split(line, h, ","); for (i = 1; i <= nh; i++) at[h[i]] = i; old = 1 } }
    NR == 1 { for (i = 1; i <= np; i++) if (!(pn[i] in at)) { h[++nh] = pn[i]; at[pn[i]] = nh }
              for (i = 1; i <= NF; i++) { name[i] = $i; if (!(($i) in at)) { h[++nh] = $i; at[$i] = nh } }
              nf = NF; next }
    { for (k = 1; k <= nh; k++) cell[k] = ""
      for (i = 1; i <= np; i++) cell[at[pn[i]]] = pv[i]
      for (i = 1; i <= nf; i++) cell[at[name[i]]] = $i
      r = cell[1]; for (k = 2; k <= nh; k++) r = r "," cell[k]; rows[++nr] = r }
    END { hdr = h[1]; for (k = 2; k <= nh; k++) hdr = hdr "," h[k]; print hdr
      if (old) { oh = line; no = split(oh, x, ",")
        while ((getline line < raw) > 0) { pad = ""; for (k = no + 1; k <= nh; k++) pad = pad ","; print line pad } }
      for (i = 1; i <= nr; i++) print rows[i] }' "$file" > "$tmp" || drv_fail 74 "cannot write '$tmp'"
  drv_put "$raw" < "$tmp"
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
    # A cell that is no number stays as it is (bench-summarize says so).
    { for (i in conv) if ($i ~ /^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$/) $i = sprintf("%.4f", $i * 1.073741824); print }' "$1"
}

# drv_col FILE NAME: true when the header of FILE has column NAME.
drv_col() { head -n 1 "$1" | tr ',' '\n' | grep -qxF "$2"; }

# The awk functions of the headline: dig(lo, hi) is the decimal place
# that keeps 2 significant digits of the interval's half-width (3
# significant digits of x when there is no interval), but at least one of
# a positive x, so that an interval far wider than its mean (n = 2) never
# rounds the mean to 0; num(x, d) writes x rounded there.
drv_awk_num='
function flr(x) { return x == int(x) ? x : x < 0 ? int(x) - 1 : int(x) }
function dig(x, lo, hi,   h, d) {
  h = (lo == "" || hi == "") ? 0 : (hi - lo) / 2
  if (h > 0) { d = flr(log(h) / log(10)) - 1
    if (x > 0 && d > flr(log(x) / log(10))) d = flr(log(x) / log(10))
    return d }
  return x > 0 ? flr(log(x) / log(10)) - 2 : 0 }
function num(x, d) {
  if (d >= 0) return sprintf("%.0f", sprintf("%.0f", x / 10 ^ d) * 10 ^ d)
  return sprintf("%." (-d) "f", x) }
function ci(x, lo, hi,   d) {
  d = dig(x, lo, hi)
  return (lo == "" || hi == "") ? num(x, d) " (no CI)" : num(x, d) " [" num(lo, d) ", " num(hi, d) "]" }'

# drv_table: tab-separated lines on stdin, a header first, as columns
# aligned to their widest cell (two spaces apart).
drv_table() {
  awk -F'\t' '{ row[NR] = $0; for (i = 1; i <= NF; i++) if (length($i) > w[i]) w[i] = length($i); if (NF > nf) nf = NF }
    END { for (r = 1; r <= NR; r++) { n = split(row[r], f, "\t"); line = ""
            for (i = 1; i <= n; i++) line = line (i < n ? sprintf("%-" w[i] "s  ", f[i]) : f[i])
            print line } }'
}

# drv_says SUBJECT RATIO LOW HIGH N [WHAT]: the verdict on a ratio of means in
# words.  A difference is shown when the 95% interval excludes 1: "faster"
# (the ratio) or "slower" (its inverse, with the inverted interval).
drv_says() {
  awk -v s="$1" -v r="$2" -v lo="$3" -v hi="$4" -v n="$5" -v what="${6:-per arm}" "$drv_awk_num"'
    BEGIN {
      if (lo == "" || hi == "") {
        printf "%s: %sx, no 95%% CI from these runs (n=%s %s)\n", s, num(r, dig(r)), n, what; exit }
      if (lo > 1) printf "%s: %sx faster [%s, %s] (95%% CI, n=%s %s)\n", s, num(r, d = dig(r, lo, hi)), num(lo, d), num(hi, d), n, what
      else if (hi < 1 && lo > 0) { d = dig(1 / r, 1 / hi, 1 / lo)
        printf "%s: %sx slower [%s, %s] (95%% CI, n=%s %s)\n", s, num(1 / r, d), num(1 / hi, d), num(1 / lo, d), n, what }
      else { d = dig(r, lo, hi)
        printf "%s: no difference shown (%sx [%s, %s], 95%% CI, n=%s %s)\n", s, num(r, d), num(lo, d), num(hi, d), n, what } }'
}

# drv_ratios BY COL=BASE VALUE: per group of BY, the ratio of the mean
# VALUE of the other level of COL over BASE, of the rows on stdin, as
# "GROUP-VALUES...|ratio|low|high|n" (bench-summarize --compare, Fieller).
drv_ratios() {
  drv_bs --by "$1" --compare "$2" --value "$3" --format csv \
    | awk -F, -v by="$1" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; nb = split(by, b, ","); next }
        $c["ratio"] != "" { g = ""; for (i = 1; i <= nb; i++) g = g $c[b[i]] "|"
          print g $c["ratio"] "|" $c["ratio_ci_low"] "|" $c["ratio_ci_high"] "|" $c["n"] }'
}

# gp(s) in awk, drv_gp_text TEXT in the shell: text from raw.csv (an arm,
# a backend, a GPU's name, a column's value: --from reads rows anyone may
# have written) fit for any gnuplot string literal, single- or
# double-quoted.  Every character but letters, digits, space and
# ._,:;+/()%=#- becomes '?': no quote to end the string, no backquote
# (gnuplot runs `...` as a command), backslash, '@', '$' or line end.
drv_awk_gp='
function gp(s) { gsub(/[^A-Za-z0-9 ._,:;+\/()%=#-]/, "?", s); return s }'
drv_gp_text() { awk -v s="$1" "$drv_awk_gp"' BEGIN { printf "%s", gp(s) }'; }

# drv_gnuplot PNG: run the gnuplot script on stdin into PNG (pngcairo), or
# say why no figure is drawn.  gnuplot writes figure.png in the scratch
# folder, which is then moved to PNG: the path (--out) is never pasted
# into gnuplot's script, where a quote or backquote in it ran commands
# and wrote other files.
drv_gnuplot() {
  if ! command -v gnuplot >/dev/null 2>&1; then
    echo "$prog: note: gnuplot not installed (Debian: gnuplot-nox); no figure drawn" >&2; return 0
  fi
  if ! gnuplot -e 'set terminal pngcairo' >/dev/null 2>&1; then
    echo "$prog: note: this gnuplot has no pngcairo terminal; no figure drawn" >&2; return 0
  fi
  local rc
  rm -f "$drv_tmp/figure.png"
  { printf 'set terminal pngcairo size %s noenhanced font ",11"\nset output "figure.png"\n' "${drv_png_size:-1000,600}"; cat; } \
    > "$drv_tmp/plot.gp"
  # No script of ours has a backquote: one there came from data that
  # missed gp(), and gnuplot would run it.
  if grep -q '`' "$drv_tmp/plot.gp"; then
    echo "$prog: warning: the gnuplot script holds a backquote (from the rows?): no figure drawn" >&2; return 0
  fi
  (cd "$drv_tmp" && gnuplot < plot.gp)
  rc=$?
  if [ -s "$drv_tmp/figure.png" ] && mv -f "$drv_tmp/figure.png" "$1"; then
    echo "$prog: figure '$1'" >&2
    [ "$rc" -eq 0 ] || echo "$prog: note: gnuplot reported errors (above): the figure may lack a plot" >&2
  else
    echo "$prog: warning: gnuplot drew no figure (its messages are above)" >&2
  fi
}

# drv_no_gpu CMD: why CMD (h2d-check, d2h-overlap) ran no GPU, in words:
# its --version says whether it was built with CUDA; if it was, this
# machine has no CUDA GPU it can use.
drv_no_gpu() {
  local cs
  if "$1" --version 2> /dev/null | grep -q '^CUDA support: not built in'; then
    # Why, where the build tree says: its config.status has configure's
    # options (--without-cuda: the user's choice); installed, unknown.
    cs=$(dirname -- "$(command -v "$1")")/../config.status
    if [ ! -x "$cs" ]; then
      echo "$1 was built without CUDA"
    elif "$cs" --config 2> /dev/null | grep -Eq "(^| |')--with(out-cuda|-cuda=no)('| |\$)"; then
      echo "$1 was built without CUDA (configure --without-cuda)"
    else
      echo "$1 was built without CUDA (configure found no CUDA toolkit)"
    fi
  else
    echo "$1 finds no CUDA GPU here"
  fi
}

# drv_count N NOUN: "1 producer", "4 producers".
drv_count() { if [ "$1" = 1 ]; then echo "1 $2"; else echo "$1 $2s"; fi; }

# drv_human BYTES: "8MiB" style label for a byte count (human(b) in awk).
drv_awk_human='
function human(b,   i, u) { split("B KiB MiB GiB TiB", u, " "); i = 1
  while (b >= 1024 && b % 1024 == 0 && i < 5) { b /= 1024; i++ } return sprintf("%d%s", b, u[i]) }'
drv_human() { awk -v b="$1" "$drv_awk_human"' BEGIN { print human(b) }'; }

# The arms that are not a pipeline's: the raw copies and the ceiling of
# h2d-check --calibrate, the memcpy reference, the fill-only arms.
drv_not_pipeline='^(raw-|memcpy$|ceiling(-registered-shm)?$|[a-z]+-fill$)'

# drv_limits KEY VALUE MODE NOTES UNIT < STATS: each pipeline arm's limit, from
# bench-summarize's csv STATS (--by KEY,arm; rows of column VALUE), as
# "KEY|ARM|mean|low|high|n|limit|bound|% of limit|pct|limit low|limit high".
# The candidates (bound): "ceiling", the fill+copy ceiling (the ceiling
# arm at KEY) or, where there is none, "fill alone", the fill rate alone
# (BACKEND-fill at KEY); and "link", the highest raw-pinned mean of any
# KEY, not with MODE cpu.  The limit is the smallest candidate the row
# does not exceed beyond both 95% CIs (its low end above the candidate's
# high end; a mean without a CI is its own interval): one it exceeds so
# is no limit of these runs, and a "note: ..." line in NOTES says so.  The
# % is the measured one (summary.csv's pct_of_limit); above the limit's
# mean but within the CIs it is marked "*": the runs cannot tell the two apart.
drv_limits() {
  awk -F, -v key="$1" -v val="$2" -v mode="$3" -v notes="$4" -v unit="$5" -v skip="$drv_not_pipeline" "$drv_awk_num$drv_awk_human"'
    function label(k, a) { return (key == "workers" ? k (k == 1 ? " producer" : " producers") "," : human(k)) " " a }
    function lo(K) { return L[K] == "" ? M[K] : L[K] }
    function hi(K) { return H[K] == "" ? M[K] : H[K] }
    function cell(K) { return ci(M[K], L[K], H[K]) }
    BEGIN { long["ceiling"] = "fill+copy ceiling"; long["link"] = "link (raw-pinned peak)"; long["fill alone"] = "fill rate alone" }
    NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    $c["column"] != val { next }
    { K = $c[key] SUBSEP $c["arm"]; M[K] = $c["mean"]; L[K] = $c["ci_low"]; H[K] = $c["ci_high"]; N[K] = $c["n"]
      if ($c["arm"] == "raw-pinned" && (peak == "" || M[K] + 0 > M[peak] + 0)) peak = K
      if ($c["arm"] !~ skip) keys[++nk] = K }
    END {
      for (i = 1; i <= nk; i++) {
        K = keys[i]; split(K, p, SUBSEP); b = p[2]; sub(/-.*/, "", b); nc = 0
        if (mode != "cpu" && ((p[1] SUBSEP "ceiling") in M)) { C[++nc] = p[1] SUBSEP "ceiling"; W[nc] = "ceiling" }
        else if ((p[1] SUBSEP b "-fill") in M) { C[++nc] = p[1] SUBSEP b "-fill"; W[nc] = "fill alone" }
        if (mode != "cpu" && peak != "") { C[++nc] = peak; W[nc] = "link" }
        if (nc == 2 && M[C[2]] + 0 < M[C[1]] + 0) { t = C[1]; C[1] = C[2]; C[2] = t; t = W[1]; W[1] = W[2]; W[2] = t }
        lim = ""; bound = "-"; pct = "-"; pnum = ""; nd = 0
        for (j = 1; j <= nc; j++) {
          if (lo(K) + 0 > hi(C[j]) + 0) { drop[++nd] = j; continue }
          lim = C[j]; bound = W[j]; pnum = sprintf("%.1f", 100 * M[K] / M[lim])
          pct = sprintf("%.0f%%", 100 * M[K] / M[lim]) (M[K] + 0 <= M[lim] + 0 ? "" : "*")
          break }
        if (nd) { t = ""; for (j = 1; j <= nd; j++) t = t (j > 1 ? " and its " : "") long[W[drop[j]]] ", " cell(C[drop[j]])
          printf "note: %s: %s %s is above its %s, beyond both 95%% CIs: %s in these runs; %s\n", label(p[1], p[2]), cell(K), unit,
            t, (nd > 1 ? "neither is a limit" : "that is no limit"), (lim == "" ? "no limit claimed" : "limit used: the " long[bound]) > notes }
        print p[1] "|" p[2] "|" M[K] "|" L[K] "|" H[K] "|" N[K] "|" (lim == "" ? "" : M[lim]) "|" bound "|" pct "|" pnum "|" \
          (lim == "" ? "" : L[lim]) "|" (lim == "" ? "" : H[lim]) } }'
}

# drv_arm_order: "KEY|ARM|..." lines by KEY (numeric), backend, then
# pinned, staged, pageable and the rest.
drv_arm_order() {
  awk -F'|' '{ v = $2; sub(/^[a-z]+-/, "", v); o = v == "pinned" ? 1 : v == "staged" ? 2 : v == "pageable" ? 3 : 4
               print $1 "|" substr($2, 1, index($2, "-")) "|" o "|" $0 }' \
    | sort -t'|' -k1,1n -k2,2 -k3,3n -k4 | cut -d'|' -f4-
}

# drv_limit_csv LIMITS KEY VALUE < STATS: bench-summarize's csv STATS with
# the limit columns of drv_limits' LIMITS on the arms' VALUE rows.
drv_limit_csv() {
  awk -F, -v OFS=, -v key="$2" 'NR == FNR { split($0, f, "|"); k = f[1] SUBSEP f[2]
      if (f[7] != "") { lim[k] = f[7]; llo[k] = f[11]; lhi[k] = f[12]; pct[k] = f[10]; bd[k] = f[8] } next }
    FNR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; print $0, "limit", "limit_ci_low", "limit_ci_high", "pct_of_limit", "bound"; next }
    { k = $c[key] SUBSEP $c["arm"]
      if ((k in lim) && $c["column"] == val) print $0, lim[k], llo[k], lhi[k], pct[k], bd[k]; else print $0, "", "", "", "", "" }' \
    FS='|' "$1" FS=, val="$3" -
}

# drv_idle KEY ROWS: where the copy engine sat idle, per KEY and pipeline
# arm of the run rows ROWS that carry h2d-check's idle_* columns, as
# "KEY|ARM|n|mean idle ms|idle %|no row %|no slot %|check %|release %|other %",
# each % the mean over the runs of that share of the run's measured seconds.
drv_idle() {
  awk -F, -v key="$1" -v skip="$drv_not_pipeline" '
    NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i
      nw = split("idle_s idle_no_row_s idle_no_slot_s idle_check_s idle_release_s idle_other_s", w, " ")
      for (j = 1; j <= nw; j++) if (!(w[j] in c)) exit
      next }
    $c["idle_s"] == "" || $c["arm"] ~ skip || $c["seconds"] + 0 <= 0 { next }
    { K = $c[key] "|" $c["arm"]; if (!(K in n)) order[++nk] = K; n[K]++; s[K] += $c["idle_s"]
      for (j = 1; j <= nw; j++) pc[K, j] += 100 * $c[w[j]] / $c["seconds"] }
    END { for (i = 1; i <= nk; i++) { K = order[i]; ms = 1000 * s[K] / n[K]; printf "%s|%d|" (ms >= 100 ? "%.0f" : "%.3g"), K, n[K], ms
            for (j = 1; j <= nw; j++) printf "|%.1f%%", pc[K, j] / n[K]
            print "" } }' "$2" | drv_arm_order
}

# The idle table's legend, for drv_idle's causes (copy-idle.h).
drv_idle_legend() {
  echo "# time by cause: no row (producers still filling), no slot (producers"
  echo "# waiting for space), check and release (the consumer waiting for a"
  echo "# buffer's check, or its items' release), other (driver and engine)"
}
