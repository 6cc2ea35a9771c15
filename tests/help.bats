#!/usr/bin/env bats
# Help that cannot drift: every long option a command accepts (its
# getopt_long table in src/, or a driver's getopt(1) list in contrib/)
# appears in its --help and in its man page; every command's --help fits in
# 80 columns, every contrib tool answers --help and --version, and mandoc
# finds no warning in the man pages.

load test-helper   # its setup and teardown: a fresh $TMP, no arena left

# The long options of C command $1: the names in its long_options[] table,
# with the table macros (OPTIONS_COMMON_LONG, CONSUMER_LONG_OPTIONS, ...)
# expanded from the headers.
c_options() {
  awk '
    FNR == 1 { file_is_c = FILENAME ~ /\.c$/ }
    !file_is_c && /^#define [A-Z_]+ *\\$/ { macro = $2; next }
    !file_is_c && macro != "" { body[macro] = body[macro] "\n" $0; if ($0 !~ /\\$/) macro = ""; next }
    file_is_c && /long_options\[\] = \{/ { table = 1; next }
    file_is_c && table && /^\};/ { table = 0 }
    file_is_c && table { lines = lines "\n" $0 }
    END {
      for (pass = 0; pass < 3; pass++)        # macros that name macros
        for (m in body) gsub("(^|[^A-Z_])" m "[ ,]", "\n" body[m] "\n", lines)
      n = split(lines, l, "\n")
      for (i = 1; i <= n; i++)
        if (match(l[i], /\{ *"[a-z0-9-]+"/)) { s = substr(l[i], RSTART, RLENGTH); sub(/^\{ *"/, "", s); sub(/"$/, "", s); print s }
    }' "$top_srcdir"/src/*.h "$top_srcdir/src/$1.c" | sort -u
}

# The long options of driver $1: its drv_getopt list and the library's.
driver_options() {
  {
    sed -n 's/.*drv_getopt "\{0,1\}\([a-z0-9:,-]*\)"\{0,1\} "\$@".*/\1/p' "$top_srcdir/contrib/$1"
    sed -n 's/.*-l "\$longs,\([a-z0-9:,-]*\)".*/\1/p' "$top_srcdir/contrib/driver-lib.sh"
  } | tr ',' '\n' | sed 's/:*$//' | grep . | sort -u
}

# check PROG OPTIONS...: each --OPTION in PROG --help and in man/PROG.1.
check() {
  local prog=$1 option help missing=
  shift
  [ $# -ge 3 ] || { echo "$prog: only $# options found: the table parser broke" >&2; return 1; }
  help=$("$prog" --help)
  for option; do
    grep -qE -- "--$option([^a-z0-9-]|\$)" <<< "$help" || missing+=" --help:--$option"
    # roff writes each '-' of an option as '\-'.
    grep -qE -- "\\\\-\\\\-${option//-/\\\\-}([^a-z0-9\\]|\\\\[^-]|\$)" "$top_srcdir/man/$prog.1" || missing+=" man:--$option"
  done
  if [ -n "$missing" ]; then
    echo "$prog: not documented:$missing" >&2
    return 1
  fi
}

@test "the table parsers find the options (arena-produce, pinned-arena)" {
  run c_options arena-produce
  assert_status 0
  assert_output "$(printf '%s\n' backend cpu-list dtype epochs fill fill-chunk fill-rate help items kind list-backends numa-node pin share size slots sweep timeout version workers)"
  run driver_options pinned-arena
  assert_status 0
  assert_output "$(printf '%s\n' compute-us cpu dtype fill fill-rate force from help inflight items kind out plot repeats size slots staging-threads static-workers timeout trace version workers)"
}

@test "every long option of each command is in its --help and its man page" {
  local prog failed=0
  for prog in arena-produce arena-consume h2d-check d2h-overlap bench-summarize; do
    check "$prog" $(c_options "$prog") || failed=1
  done
  return "$failed"
}

@test "every long option of each driver is in its --help and its man page" {
  local prog failed=0
  [ "$(drivers | wc -l)" -ge 4 ]
  for prog in $(drivers); do
    check "$prog" $(driver_options "$prog") || failed=1
  done
  return "$failed"
}

# The commands: bin_PROGRAMS in Makefile.am, then every executable in
# contrib/ (drivers and tools alike), one name a line.
c_commands() {
  sed -n '/^bin_PROGRAMS *=/,/^$/p' "$top_srcdir/Makefile.am" | grep -o 'src/[a-z0-9-]*' | sed 's|^src/||'
}
contrib_tools() {
  local f
  for f in "$top_srcdir"/contrib/*; do
    [ -f "$f" ] && [ -x "$f" ] && basename "$f"
  done
}

@test "the command lists are found (bin_PROGRAMS, contrib/)" {
  run c_commands
  assert_status 0
  assert_output "$(printf '%s\n' arena-produce arena-consume h2d-check d2h-overlap bench-summarize)"
  run contrib_tools
  assert_status 0
  [ "${#lines[@]}" -ge 10 ] || { echo "only ${#lines[@]} executables in contrib/: $output" >&2; return 1; }
  grep -qx pinned-arena <<< "$output"
}

# Run from an empty directory, so that a tool that took --help for an
# argument creates nothing in the tree; timeout only stops a hang.
@test "no line of any command's --help is wider than 80 columns" {
  local prog line n bad= LC_ALL=C.UTF-8
  cd "$TMP"
  for prog in $(c_commands) $(contrib_tools); do
    n=0
    while IFS= read -r line; do
      n=$((n + 1))
      [ "${#line}" -le 80 ] || bad+=$'\n'"  $prog --help line $n, ${#line} columns: $line"
    done < <(timeout 120 "$prog" --help 2>&1 | expand)
  done
  if [ -n "$bad" ]; then
    echo "help wider than 80 columns:$bad" >&2
    return 1
  fi
}

# The options of a --help: each description starts in the column its
# continuation lines are indented to (an option too long for that column
# has its description on the next line).  Prints the lines that do not.
misaligned_options() {
  awk '
    /^  --/ { opt = 1; n = match($0, /^  --[^ ]+( [^ ]+)?/); head[++k] = $0; len[k] = RLENGTH; next }
    opt && /^ +[^ ]/ { if (!col) col = match($0, /[^ ]/) - 1; if (match($0, /[^ ]/) - 1 != col) bad[++b] = $0; next }
    { opt = 0 }
    END {
      for (i = 1; i <= k; i++) {
        l = head[i]
        if (len[i] == length(l)) continue                    # description below
        if (len[i] >= col || substr(l, col + 1, 1) == " " || substr(l, len[i] + 1, col - len[i]) !~ /^ +$/)
          bad[++b] = l
      }
      for (i = 1; i <= b; i++) print bad[i]
    }'
}

@test "every driver's option descriptions begin in one column" {
  local prog bad= out
  cd "$TMP"
  # The drivers whose --help ends with driver-lib.sh's common options.
  for prog in $(grep -l '^\$(drv_usage_common)' "$top_srcdir"/contrib/*); do
    prog=${prog##*/}
    out=$(timeout 120 "$prog" --help 2>&1 | expand | misaligned_options)
    [ -z "$out" ] || bad+=$'\n'"  $prog --help:"$'\n'"$out"
  done
  if [ -n "$bad" ]; then
    echo "option descriptions out of their column:$bad" >&2
    return 1
  fi
}

@test "every contrib tool answers --help and --version with exit 0" {
  local prog bad=
  cd "$TMP"
  for prog in $(contrib_tools); do
    run timeout 120 "$prog" --help
    if [ "$status" -ne 0 ] || [ -z "${lines[0]:-}" ]; then
      bad+=$'\n'"  $prog --help: exit $status, first line '${lines[0]:-}'"
    fi
    run timeout 120 "$prog" --version
    if [ "$status" -ne 0 ] || [[ "${lines[0]:-}" != "$prog (arenabench)"* ]]; then
      bad+=$'\n'"  $prog --version: exit $status, first line '${lines[0]:-}'"
    fi
  done
  if [ -n "$bad" ]; then
    echo "contrib tools that do not answer --help/--version:$bad" >&2
    return 1
  fi
}

# Warnings (not style notes): mandoc is what the distributions' man(1)
# checks use; without it the test says so.
@test "mandoc -Tlint finds no warning in any man page" {
  command -v mandoc > /dev/null || skip "mandoc not installed (apt-get install mandoc)"
  run mandoc -Tlint -W warning "$top_srcdir"/man/*.1 "$top_srcdir"/man/*.7
  assert_output ""
  assert_status 0
}

# groff is what man(1) runs on Debian: every warning (-ww) on the pages
# as man formats them (tbl, for the pages that say '\" t), for a
# typesetter, a UTF-8 terminal and plain ASCII.
@test "groff -ww finds no warning in any man page, typeset, in UTF-8 or ASCII" {
  command -v groff > /dev/null || skip "groff not installed (apt-get install groff)"
  local page dev out=
  for page in "$top_srcdir"/man/*.1 "$top_srcdir"/man/*.7; do
    for dev in ps utf8 ascii; do
      out+=$(groff -t -man -ww -T"$dev" "$page" 2>&1 > /dev/null)
    done
  done
  [ -z "$out" ] || { echo "$out" >&2; false; }
}

# Every line of an example ends where a shell would continue it: a line
# that is a lone backslash (a '\e' on a line of its own) breaks the
# command when pasted.
@test "no example in a man page has a line that is a lone backslash" {
  run grep -nx '[[:space:]]*\\e[[:space:]]*' "$top_srcdir"/man/*.1 "$top_srcdir"/man/*.7
  assert_output ""
  assert_status 1
}

# NEWS has one section per version, and the newest names the version
# configure builds.
@test "NEWS: one section per version, the first for this version" {
  run bash -c "grep '^\* ' '$top_srcdir/NEWS' | sed 's/.*release \([^ ]*\).*/\1/' | sort | uniq -d"
  assert_status 0
  assert_output ""
  run bash -c "grep -m 1 '^\* ' '$top_srcdir/NEWS'"
  assert_status 0
  [[ "$output" == "* Noteworthy changes in release $ARENABENCH_VERSION "* ]]
}

# man_columns PAGE FIRST: the column list of man page PAGE that begins
# with column FIRST, from its example blocks (.EX ... .EE), its lines
# joined (a line ending in a comma goes on).
man_columns() {
  awk -v first="$2" '
    /^\.EX/ { ex = 1; text = ""; next }
    /^\.EE/ { ex = 0; if (index(text, first ",") == 1) { print text; exit } next }
    ex { text = text $0 }' "$top_srcdir/man/$1"
}

@test "each man page's column lists are the headers the commands write (from their column tables)" {
  arena-produce --size 4K --items 1 | tee "$TMP/rows.csv" | arena-consume > "$TMP/items.csv"
  [ "$(man_columns arena-produce.1 arena)" = "$(head -n 1 "$TMP/rows.csv")" ]
  arena-produce --size 4K --items 1 | arena-consume --report run > "$TMP/run.csv"
  local config
  config=$(man_columns arena-consume.1 arm)
  [ "$config,$(man_columns arena-consume.1 sequence)" = "$(head -n 1 "$TMP/items.csv")" ]
  [ "$config,$(man_columns arena-consume.1 items)" = "$(head -n 1 "$TMP/run.csv")" ]
  config=$(man_columns arenabench.7 arm)
  # arenabench(7) gives the rank columns that end every row a list of their own.
  [ "$config,$(man_columns arenabench.7 sequence),$(man_columns arenabench.7 rank)" = "$(head -n 1 "$TMP/items.csv")" ]
  # arenabench(7) names the run report's first columns, then points on.
  [[ "$(head -n 1 "$TMP/run.csv")" == "$config,$(man_columns arenabench.7 items),"* ]]
}

# help_statuses PROG: the exit statuses PROG --help names, one a line.
help_statuses() {
  "$1" --help | sed -n '/^Exit status:/,/^\(See \|$\)/p' | tr '\n' ' ' \
    | grep -oE '(status:|,) [0-9]+ ' | grep -oE '[0-9]+' | sort -n
}

# man_statuses PAGE: the exit statuses listed in man page PAGE's EXIT
# STATUS section (each .TP's tag, "N" or ".B N"; 128+N left out).
man_statuses() {
  sed -n '/^\.SH EXIT STATUS/,/^\.SH [^E]/p' "$top_srcdir/man/$1" \
    | awk 'tp { sub(/^\.B /, ""); if ($0 ~ /^[0-9]+$/) print; tp = 0; next } /^\.TP/ { tp = 1 }' | sort -n
}

@test "each command's --help, its man page and README name the same exit statuses" {
  local prog
  for prog in arena-produce arena-consume h2d-check d2h-overlap bench-summarize; do
    [ "$(help_statuses "$prog")" = "$(man_statuses "$prog.1")" ] || { echo "$prog: --help and $prog(1) differ" >&2; return 1; }
  done
  # README's one sentence names arenabench(7)'s list but 0.
  run bash -c "sed -n '/Exit statuses follow sysexits/,/^\$/p' '$top_srcdir/README' | grep -oE '(^|[^0-9])[0-9]{1,2} [a-z]' | grep -oE '[0-9]+' | sort -n"
  assert_status 0
  assert_output "$(man_statuses arenabench.7 | grep -vx 0)"
  # arenabench(7) lists every status some command's --help names.
  local all
  all=$(for prog in arena-produce arena-consume h2d-check d2h-overlap bench-summarize; do help_statuses "$prog"; done | sort -nu)
  [ "$all" = "$(man_statuses arenabench.7)" ]
}

@test "--help's exit statuses come from one table: each status once, ascending, the paragraph ends with a full stop" {
  local prog
  for prog in arena-produce arena-consume h2d-check d2h-overlap bench-summarize; do
    [ "$(help_statuses "$prog")" = "$(help_statuses "$prog" | sort -nu)" ]
    run "$prog" --help
    assert_status 0
    [[ "$(printf '%s\n' "$output" | sed -n '/^Exit status:/,/^\(See \|$\)/p' | grep -v '^See ' | tail -n 1)" == *. ]]
  done
}

@test "arena-produce --help and its man page list every backend --list-backends names" {
  run arena-produce --list-backends
  assert_status 0
  local backend backends=$output
  run arena-produce --help
  assert_status 0
  # Under "--backend NAME", a line per backend: its name at column 27.
  [ "$(printf '%s\n' "$output" | sed -n '/^  --backend /,/^  --list-backends/s/^                          \([a-z][a-z0-9-]*\) .*/\1/p')" = "$backends" ]
  run sed -n '/^\.BR \\-\\-backend/,/^\.TP/p' "$top_srcdir/man/arena-produce.1"
  assert_status 0
  for backend in $backends; do
    printf '%s\n' "$output" | grep -qE "^\.BR? $backend( |\$)" ||
      { echo "arena-produce(1) --backend does not describe $backend" >&2; return 1; }
  done
}
