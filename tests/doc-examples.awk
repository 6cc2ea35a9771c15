# doc-examples.awk: the examples a document shows, as commands to run.
#
#   awk -f tests/doc-examples.awk README man/arena-produce.1 ...
#
# Prints each example as a line "== FILE:LINE[ gpu][ long]" (where its
# block begins, and its marks), then its command lines as a shell reads
# them.  With -v join=1 it prints one
# command a line instead, continuation lines joined, and no "==" lines.
#
# README (plain text): every block of lines indented by 4 or more spaces
# after a blank line (a blank line ends it; lines that go on from a line
# of text, as a table's, are not one), the indent removed, but in the
# Results section, which shows output.
#
# A man page: every .EX/.EE (or .nf/.fi) block of its EXAMPLES section,
# roff escapes undone.  Where a block has lines starting with "$ ", those
# are the commands (with the lines that continue them: a line ending in
# '\e'), and the rest is output shown; else every line is a command.  A
# comment line '.\" example: gpu long' in the block marks it: gpu, it
# needs a GPU where its commands do not say so themselves (a driver that
# would run its CPU arms without one); long, it runs for minutes, as the
# page says.

function flush(   i) {
  if (n == 0) return
  if (!join) print "== " where (gpu ? " gpu" : "") (long ? " long" : "")
  for (i = 1; i <= n; i++) {
    if (join) {
      # A line ending in '\' goes on, and so does one ending in a pipe.
      if (sub(/[ \t]*\\$/, " ", text[i])) { cmd = cmd text[i]; continue }
      if (text[i] ~ /(\||&&)[ \t]*$/) { cmd = cmd text[i] " "; continue }
      print cmd text[i]
      cmd = ""
    } else
      print text[i]
  }
  if (join && cmd != "") { print cmd; cmd = "" }
  n = 0; gpu = 0; long = 0
}

# The roff escapes our pages use, as a shell needs them.
function unroff(s) {
  gsub(/\\-/, "-", s); gsub(/\\\(aq/, "'", s); gsub(/\\\(dq/, "\"", s)
  gsub(/\\\(ti/, "~", s); gsub(/\\\(ha/, "^", s); gsub(/\\&/, "", s)
  gsub(/\\e/, "\\", s)
  return s
}

FNR == 1 {
  flush()
  man = FILENAME ~ /\.[1-9]$/
  section = ""; inex = 0; prompts = 0; cont = 0; prev = ""
}

# --- README -------------------------------------------------------------
!man && /^(-+|=+)$/ && prev != "" { section = prev }
!man && /^    / && section != "Results" && (n > 0 || prev == "") {
  if (n == 0) where = FILENAME ":" FNR
  text[++n] = substr($0, 5)
  prev = $0
  next
}
!man { flush() }
!man { prev = $0; next }

# --- a man page ---------------------------------------------------------
/^\.SH / { section = $0; sub(/^\.SH +"?/, "", section); sub(/"$/, "", section) }
section != "EXAMPLES" { next }
/^\.(EX|nf)( |$)/ { inex = 1; start = FNR; n = 0; gpu = 0; long = 0; prompts = 0; cont = 0; m = 0; next }
/^\.(EE|fi)( |$)/ {
  inex = 0
  where = FILENAME ":" start
  # Lines after a prompt and its continuations are output shown.
  for (i = 1; i <= m; i++) {
    line = block[i]
    if (prompts) {
      if (sub(/^\$ /, "", line)) keep = 1
      else if (!cont) keep = 0
      cont = keep && line ~ /\\$/
      if (!keep) continue
    }
    text[++n] = line
  }
  flush()
  next
}
inex && /^\.\\" example:/ { gpu = / gpu( |$)/; long = / long( |$)/; next }
inex && /^\.(RS|RE|PP|br)( |$)/ { next }
inex && /^\.\\"/ { next }
inex {
  block[++m] = unroff($0)
  if (block[m] ~ /^\$ /) prompts = 1
}

END { flush() }
