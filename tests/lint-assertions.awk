# lint-assertions.awk -- assertions in .bats files that can never fail.
#
# Bats runs a test with `set -e`, which ignores the status of a command
# negated with `!` and of every command but the last in an `a && b` list.
# So, anywhere but as the last statement of a test or function body,
#   ! kill -0 "$pid"                  passes whether the process lives or not
#   [ -L "$link" ] && [ -f "$file" ]  passes whatever the first test says
# This prints FILE:LINE: WHY for each such statement:
#   - a statement negated with `!` without a `|| ...` after it;
#   - an `a && b` list without a `|| ...` after it whose last command is an
#     assertion (`[`, `[[`, `test`, `assert_*`, `grep -q`, `cmp`, `diff`):
#     `[ $# -gt 0 ] && shift` is a condition, and is left alone.
# Conditions (if, elif, while, until) are never assertions.  The scanner
# knows quotes, $( ), [[ ]], comments and here-documents; a statement is
# split at newlines, `;`, `&`, and the keywords then, do, else.
# Run: awk -f tests/lint-assertions.awk FILE...  (exit 1 when it found any).

function flush_statement(   s, r, parts, n, last, words, has_status, raw) {
  s = stmt
  stmt = ""
  has_status = stmt_status
  stmt_status = 0
  raw = stmt_raw
  stmt_raw = ""
  gsub(/^[ \t]+|[ \t]+$/, "", s)
  if (s == "" || !in_body)
    return
  # Keywords that open or close compound commands.
  while (match(s, /^(then|do|else|\{|\(|\}|\)|done|fi|esac)([ \t]|$)/)) {
    kw = substr(s, 1, RLENGTH)
    gsub(/[ \t]/, "", kw)
    if (kw == "{" || kw == "(") depth++
    if (kw == "}" || kw == ")" || kw == "done" || kw == "fi" || kw == "esac") depth--
    s = substr(s, RLENGTH + 1)
    gsub(/^[ \t]+/, "", s)
  }
  if (s == "")
    return
  # A `run` sets $status; the body must look at it before the next `run`
  # or its end (bats' `run -N` checks it itself).
  r = s                         # `VAR=value run ...` is a run too
  while (match(r, /^[A-Za-z_][A-Za-z0-9_]*=[^ \t]*[ \t]+/))
    r = substr(r, RLENGTH + 1)
  if (r ~ /^run([ \t]|$)/) {
    if (pending_run)
      report_run()
    pending_run = r !~ /^run[ \t]+-[0-9]+[ \t]/
    run_line = stmt_line
    run_end = FNR
    if (piped_away(raw))
      report(stmt_line, "a command under test piped into a filter: the filter's status hides its own (run it alone and filter $output, or set -o pipefail)")
    run_followed = 0
  } else if (has_status || s ~ /(^|[^A-Za-z0-9_])(assert_status|assert_success|assert_failure)([ \t]|$)/)
    pending_run = 0
  else
    run_followed = 1
  if (s ~ /^(if|elif|while|until)[ \t]/) {
    depth++
    return                      # a condition: its status is meant to vary
  }
  if (s ~ /^(for|case|select)[ \t]/) {
    depth++
    return
  }
  if (s ~ /(^|[ \t])(done|fi|esac)$/)
    depth--
  # The body's statements at its top level: only the last one's status is
  # the body's, so a candidate is final only while nothing follows it.
  pending_final = 0
  why = ""
  if (s ~ /^![ \t]/ && s !~ /\|\|/)
    why = "a command negated with '!' is ignored by set -e: use 'run ! CMD' or '! CMD || false'"
  else if (s ~ /&&/ && s !~ /\|\|/) {
    n = split(s, parts, /&&/)
    last = parts[n]
    gsub(/^[ \t]+/, "", last)
    if (last ~ /^(\[|\[\[|test|assert_[a-z_]*|grep[ \t]+-[a-zA-Z]*q|cmp|diff|!)([ \t]|$)/)
      why = "only the last command of 'a && b' can fail a test: one assertion per line"
  }
  if (why != "") {
    cand_line = stmt_line
    cand_why = why
    pending_final = depth == 0
    if (!pending_final)
      report(stmt_line, why)
  }
  last_top = depth == 0
}

# piped_away(TEXT): TEXT runs `sh -c`/`bash -c` with one of our commands
# in a pipeline whose last command is not one of ours, and no pipefail:
# the status `run` sees is the filter's.
function piped_away(text,   script, seg, n, k, last) {
  if (!match(text, /run[ \t]+(-[^ \t]+[ \t]+)*(ba)?sh[ \t]+-c[ \t]/) || text ~ /pipefail|PIPESTATUS/)
    return 0
  script = substr(text, RSTART + RLENGTH)
  gsub(/\|\|/, " or ", script)
  n = split(script, seg, /\|/)
  if (n < 2)
    return 0
  last = seg[n]
  gsub(/^[ \t\n'"{(]+/, "", last)
  if (last ~ ("^" ours "([ \t\n'\"]|$)"))
    return 0
  for (k = 1; k < n; k++)
    if (seg[k] ~ ("(^|[ \t\n;{('\"])" ours "([ \t\n'\"]|$)"))
      return 1
  return 0
}

# awk -v ends=1: FILE:LINE-END: for a `run` unchecked (the lines it spans).
function report_run() {
  report(ends ? run_line "-" run_end : run_line, run_why)
}

function report(line, why) {
  printf "%s:%s: %s\n", FILENAME, line, why
  found++
}

function end_body() {
  # The body's last statement was a candidate at its top level: its status
  # is the body's, so it can fail.  One that is not the last was reported
  # when the next statement came.
  pending_final = 0
  # A helper whose last statement is a `run` leaves $status to its caller.
  if (pending_run && (in_test || run_followed))
    report_run()
  pending_run = 0
  in_body = 0
  depth = 0
}

BEGIN {
  ours = "(arena-produce|arena-consume|bench-summarize|h2d-check|d2h-overlap|pinned-arena|h2d-sweep|" \
         "multi-gpu-h2d|transfer-overlap|results-tables|arena-speed|h2d-tune|fault-soak|h200-session)"
  run_why = "a 'run' whose $status is never checked (assert_status, or run -N) before the next 'run' or the end" }

FNR == 1 { in_body = 0; depth = 0; heredoc = ""; sq = 0; dq = 0; stmt = ""; pending_final = 0; pending_run = 0; stmt_status = 0 }

{
  line = $0
  if (heredoc != "") {
    t = line
    gsub(/^\t+/, "", t)
    if (t == heredoc)
      heredoc = ""
    next
  }
  if (!in_body && !sq && !dq) {
    if (line ~ /^@test .*\{[ \t]*$/ || line ~ /^[A-Za-z_][A-Za-z0-9_]*\(\)[ \t]*\{[ \t]*$/) {
      in_body = 1
      in_test = line ~ /^@test/
      depth = 0
      stmt = ""
      next
    }
    next
  }
  stmt_raw = stmt_raw "\n" line
  if (in_body && !sq && !dq && line ~ /^\}[ \t]*$/) {
    flush_statement()
    end_body()
    next
  }
  # Scan character by character, keeping what is outside quotes.
  n = length(line)
  for (i = 1; i <= n; i++) {
    c = substr(line, i, 1)
    if (sq) { if (c == "'") sq = 0; continue }
    if (c == "$" && !sq && substr(line, i + 1) ~ /^(status|\{status)([^A-Za-z0-9_]|$)/)
      stmt_status = 1
    if (dq) {
      if (c == "\\") { i++; continue }
      if (c == "\"") dq = 0
      continue
    }
    if (c == "\\") { i++; stmt = stmt "_"; continue }
    if (c == "'") { sq = 1; stmt = stmt "''"; continue }
    if (c == "\"") { dq = 1; stmt = stmt "\"\""; continue }
    if (c == "#" && (i == 1 || substr(line, i - 1, 1) ~ /[ \t;]/)) break
    if (c == "$" && substr(line, i + 1, 1) == "(") {
      # Skip to the matching parenthesis (quotes inside are rare here).
      d = 0
      for (j = i + 1; j <= n; j++) {
        cj = substr(line, j, 1)
        if (cj == "(") d++
        else if (cj == ")") { d--; if (d == 0) break }
      }
      stmt = stmt "$_"
      i = j
      continue
    }
    if (c == "[" && substr(line, i + 1, 1) == "[") {
      j = index(substr(line, i + 2), "]]")
      if (j) { stmt = stmt "[[ _ ]]"; i = i + 1 + j + 1; continue }
    }
    if (c == "<" && substr(line, i + 1, 1) == "<" && substr(line, i + 2, 1) == "<") {
      stmt = stmt "<<<"         # a here-string, not a here-document
      i += 2
      continue
    }
    if (c == "<" && substr(line, i + 1, 1) == "<") {
      rest = substr(line, i + 2)
      sub(/^-/, "", rest)
      gsub(/^[ \t]*/, "", rest)
      match(rest, /^['"]?[A-Za-z_][A-Za-z0-9_]*['"]?/)
      if (RLENGTH > 0) {
        heredoc = substr(rest, 1, RLENGTH)
        gsub(/['"]/, "", heredoc)
      }
      stmt = stmt "<<"
      i++
      continue
    }
    if (c == ";" && substr(line, i + 1, 1) == ";") { i++; stmt = stmt " "; flush_statement(); continue }
    if (c == ";" || (c == "&" && substr(line, i + 1, 1) != "&" && substr(line, i - 1, 1) != "&" \
                     && substr(line, i - 1, 1) != ">" && substr(line, i + 1, 1) != ">")) {
      if (pending_final) { report(cand_line, cand_why); pending_final = 0 }
      flush_statement()
      stmt_raw = substr(line, i + 1)
      stmt_line = FNR
      continue
    }
    if (stmt == "" || stmt ~ /^[ \t]*$/)
      stmt_line = FNR
    stmt = stmt c
  }
  if (sq || dq) {
    stmt = stmt " "
    next                        # a string goes on: the statement too
  }
  # A line that ends in an operator or a backslash goes on.
  raw = line
  sub(/[ \t]+$/, "", raw)
  t = stmt
  sub(/[ \t]+$/, "", t)
  if (substr(raw, length(raw)) == "\\" || t ~ /(&&|\|\||\|)$/) {
    stmt = stmt " "
    next
  }
  if (stmt !~ /^[ \t]*$/ && pending_final) { report(cand_line, cand_why); pending_final = 0 }
  flush_statement()
}

END { exit found ? 1 : 0 }
