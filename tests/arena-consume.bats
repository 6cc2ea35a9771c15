#!/usr/bin/env bats
# arena-consume: every refusal of bad input, with its exact message and
# exit status, and the checks that catch corrupt or replayed items.

load test-helper
load checks

HEADER=$HANDLE_HEADER
# A well-formed row naming an arena that does not exist: rows are parsed
# before any arena is opened, so parse errors need no producer.
FAKE_ROW='/arenabench.1.dead,pool,0,4096,4096,1,0,0,0,1,2,4096,fp32,tensor,0:1024,0,4,1000,1'
NAME_RE='/arenabench\.[0-9]+\.[0-9a-f]{24}'

setup() {
  common_setup
  PRODUCERS=()
  HOLDERS=()
  FORGED=
}

teardown() {
  local pid
  for pid in "${PRODUCERS[@]}"; do
    kill -TERM "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  if [ -n "$FORGED" ]; then rm -f "$FORGED"; fi
  for pid in "${HOLDERS[@]}"; do kill "$pid" 2> /dev/null || true; done
  arena_teardown
}

# start_producer ROWS FILE ARGS...: arena-produce ARGS in the background,
# its rows in FILE; returns once ROWS rows are there.  The consumer fed
# from FILE unlinks the name; the producer then waits for releases up to
# its --timeout (teardown ends it in any case).
start_producer() {
  local want=$1 file=$2
  shift 2
  : > "$file"   # emptied first: the background redirection truncates it only once it runs
  arena-produce --timeout 10 "$@" > "$file" 2> "$file.err" 3>&- &
  PRODUCERS+=("$!")
  PRODUCER=$!
  local i
  for i in $(seq 100); do
    if [ "$(wc -l < "$file")" -gt "$want" ]; then return 0; fi
    sleep 0.05
  done
  echo "producer wrote no $want rows in 5 s: $(cat "$file.err")" >&2
  return 1
}

# Wait (at most 5 s) for the background producer and check how it ended.
producer_ended() {
  local want_status=$1 i
  for i in $(seq 100); do
    kill -0 "$PRODUCER" 2>/dev/null || break
    sleep 0.05
  done
  local got=0
  wait "$PRODUCER" || got=$?
  if [ "$got" -ne "$want_status" ]; then
    echo "producer exit $got, want $want_status: $(cat "$TMP/rows.csv.err")" >&2
    return 1
  fi
}

# edit LINE FIELD VALUE: the rows with one field changed, on stdout.
edit() {
  awk -F, -v OFS=, -v l="$1" -v f="$2" -v v="$3" 'NR == l { $f = v } { print }' "$TMP/rows.csv"
}

arena_name() {
  column arena < "$TMP/rows.csv" | head -n 1
}

# ---------------------------------------------------------------- options

@test "bad options exit 64 with one exact message" {
  mkdir "$TMP/dir"
  touch "$TMP/file"
  usage_errors arena-consume <<'EOF'
--report json|arena-consume: --report: invalid choice 'json' (choose from 'items', 'run')
--report ''|arena-consume: --report: invalid choice '' (choose from 'items', 'run')
--warmup-epochs -1|arena-consume: --warmup-epochs: invalid number '-1'
--warmup-epochs ''|arena-consume: --warmup-epochs: invalid number ''
--warmup-epochs 1.5|arena-consume: --warmup-epochs: invalid number '1.5'
--warmup-epochs 1000001|arena-consume: --warmup-epochs: '1000001' out of range [0, 1000000]
--save-dir @TMP@/missing|arena-consume: --save-dir: '@TMP@/missing': No such file or directory
--save-dir @TMP@/file|arena-consume: --save-dir: '@TMP@/file' is not a directory
EOF
}

@test "usage errors print the getopt message and the --help hint" {
  local args first
  while IFS='|' read -r args first; do
    run bash -c "arena-consume $args < /dev/null"
    assert_status 64
    assert_output "$first
Try 'arena-consume --help' for more information."
  done <<'EOF'
--report|arena-consume: option '--report' requires an argument
--no-verify=1|arena-consume: option '--no-verify' doesn't allow an argument
--verify|arena-consume: unrecognized option '--verify'
rows.csv|arena-consume: unexpected argument 'rows.csv'
EOF
}

# ---------------------------------------------------------- empty input

@test "empty stdin: exit 66" {
  run arena-consume < /dev/null
  assert_status 66
  assert_output "arena-consume: stdin: no handle rows (empty input)"
}

@test "stdin closed: exit 66, no input at all" {
  run bash -c 'arena-consume <&-'
  assert_status 66
  assert_output "arena-consume: stdin: Bad file descriptor"
  run bash -c 'arena-consume --report run <&-'
  assert_status 66
  assert_output "arena-consume: stdin: Bad file descriptor"
}

@test "a row replayed after its run was let go and forgotten: exit 65, still called a replay" {
  # The last row again after the run's last release: the consumer has
  # unmapped the arena and dropped its bookkeeping, but keeps its name.
  run bash -c 'set -o pipefail; arena-produce --size 4K --items 2 \
               | { while IFS= read -r l; do printf "%s\n" "$l"; last=$l; done; printf "%s\n" "$last"; } \
               | arena-consume 2>&1 >/dev/null'
  assert_status 65
  [[ "$output" =~ ^arena-consume:\ line\ 4:\ arena\ \'/arenabench\.[0-9]+\.[0-9a-f]+\':\ a\ row\ after\ every\ item\ of\ the\ arena\ was\ released\ \(a\ replayed\ row\)$ ]]
}

@test "a header and no rows: exit 66" {
  run bash -c "printf '%s\n' '$HEADER' | arena-consume"
  assert_status 66
  assert_output "arena-consume: stdin: a header but no handle rows"
  run bash -c "printf '%s\r\n\n' '$HEADER' | arena-consume"
  assert_status 66
  assert_output "arena-consume: stdin: a header but no handle rows"
}

@test "warm-up epochs that swallow every row: exit 66" {
  run bash -c "arena-produce --size 64 --items 2 | arena-consume --warmup-epochs 1"
  assert_status 66
  assert_output "arena-consume: no measured items: every row belongs to the 1 warm-up epoch"
  run bash -c "arena-produce --size 64 --items 2 --epochs 2 | arena-consume --warmup-epochs 5 --report run"
  assert_status 66
  assert_output "arena-consume: no measured items: every row belongs to the 5 warm-up epochs"
}

# ------------------------------------------------------ malformed input

@test "malformed header rows: exit 65 naming line 1" {
  local header want
  while IFS='|' read -r header want; do
    run bash -c "printf '%s\n%s\n' '$header' '$FAKE_ROW' | arena-consume"
    assert_status 65
    assert_output "$want"
  done <<EOF
${HEADER/gen_ns/bogus}|arena-consume: line 1: unknown column 'bogus' (not a handle row header)
${HEADER},extra|arena-consume: line 1: unknown column 'extra' (not a handle row header)
${HEADER/,gen_ns/}|arena-consume: line 1: missing column 'gen_ns'
${HEADER/arena,/}|arena-consume: line 1: missing column 'arena'
${HEADER/gen_ns/arena}|arena-consume: line 1: column 'arena' appears twice
sequence,worker|arena-consume: line 1: missing column 'arena'
EOF
}

@test "ragged and unparsable rows: exit 65 naming the line" {
  run bash -c "printf '%s\n%s\n%s\n' '$HEADER' '$FAKE_ROW' '${FAKE_ROW%,*}' | arena-consume"
  assert_status 66
  # The first row names a missing arena: the ragged line 3 is never reached.
  assert_output "arena-consume: line 2: arena '/arenabench.1.dead': no such arena (its producer exited or it was consumed already)"
  run bash -c "printf '%s\n%s\n' '$HEADER' '${FAKE_ROW%,*}' | arena-consume"
  assert_status 65
  assert_output "arena-consume: line 2: expected 19 fields, found 18"
  run bash -c "printf '%s\n%s\n' '$HEADER' '$FAKE_ROW,1' | arena-consume"
  assert_status 65
  assert_output "arena-consume: line 2: expected 19 fields, found 20"
  run bash -c "printf '%s\n\"%s\n' '$HEADER' '$FAKE_ROW' | arena-consume"
  assert_status 65
  assert_output "arena-consume: stdin: line 2: malformed CSV (unterminated or misplaced quote)"
  run bash -c "printf '%s\n/a,\"b\n' '$HEADER' | arena-consume"
  assert_status 65
  assert_output "arena-consume: stdin: line 2: malformed CSV (unterminated or misplaced quote)"
}

@test "the handle-row reader: text after a closing quote is malformed, a quoted field with blanks around it is not" {
  # The arena field quoted, then text after the quote.
  run bash -c "printf '%s\n\"%s\"x,%s\n' '$HEADER' '${FAKE_ROW%%,*}' '${FAKE_ROW#*,}' | arena-consume"
  assert_status 65
  assert_output "arena-consume: stdin: line 2: malformed CSV (unterminated or misplaced quote)"
  # Quoted with blanks after the quote: the field is read, and its arena looked for.
  run bash -c "printf '%s\n\"%s\" ,%s\n' '$HEADER' '${FAKE_ROW%%,*}' '${FAKE_ROW#*,}' | arena-consume"
  assert_status 66
  assert_output "arena-consume: line 2: arena '/arenabench.1.dead': no such arena (its producer exited or it was consumed already)"
}

@test "the handle-row reader: a UTF-8 byte order mark before the header is skipped" {
  run bash -c "printf '\357\273\277%s\n%s\n' '$HEADER' '$FAKE_ROW' | arena-consume"
  assert_status 66
  assert_output "arena-consume: line 2: arena '/arenabench.1.dead': no such arena (its producer exited or it was consumed already)"
}

@test "bad field values: exit 65 naming line, column and value" {
  local field value why row choices
  choices=$(backends_quoted " or")
  while IFS='|' read -r field value why; do
    why=${why//@BACKENDS@/$choices}
    row=$(awk -F, -v OFS=, -v f="$field" -v v="$value" '{ $f = v; print }' <<< "$FAKE_ROW")
    run bash -c "printf '%s\n%s\n' '$HEADER' '$row' | arena-consume"
    assert_status 65
    assert_output "arena-consume: line 2: $why"
  done <<'EOF'
1|arenabench.1.dead|column 'arena': 'arenabench.1.dead' is not an arena name
1|/arenabench.1.0000000000000000000000000000000000000000000000000000000000|column 'arena': '/arenabench.1.0000000000000000000000000000000000000000000000000000000000' is not an arena name
2|tape|column 'backend': 'tape' is not @BACKENDS@
3||column 'slot': '' is not a number in range
3|65536|column 'slot': '65536' is not a number in range
3|-1|column 'slot': '-1' is not a number in range
4|-1|column 'offset': '-1' is not a number in range
4|18446744073709551616|column 'offset': '18446744073709551616' is not a number in range
4|0x1000|column 'offset': '0x1000' is not a number in range
4|1234567:|column 'offset': '1234567:' is not a number in range
4|12345/78|column 'offset': '12345/78' is not a number in range
4|:2345678|column 'offset': ':2345678' is not a number in range
4|123456781234567x|column 'offset': '123456781234567x' is not a number in range
4|123456789012345678x|column 'offset': '123456789012345678x' is not a number in range
4|0000000000000000000000x|column 'offset': '0000000000000000000000x' is not a number in range
4|99999999999999999999|column 'offset': '99999999999999999999' is not a number in range
5|x|column 'bytes': 'x' is not a number in range
5||column 'bytes': '' is not a number in range
5|4100|column 'bytes': '4100' does not match size_bytes, dtype and kind
6|0|column 'generation': '0' is not a generation (they start at 1)
6|9223372036854775808|column 'generation': '9223372036854775808' is not a number in range
7|2|column 'sequence': '2' does not belong to this worker and epoch
7|+1|column 'sequence': '+1' is not a number in range
7|1 1|column 'sequence': '1 1' is not a number in range
8|1|column 'worker': '1' is not below the workers column
9|1|column 'epoch': '1' is not below the epochs column
9|4294967296|column 'epoch': '4294967296' is not a number in range
10|0|column 'worker': '0' is not below the workers column
11|0|column 'items': '0' is not a positive count
12|0|column 'size_bytes': '0' is not a size from 1 byte to 1 TiB
12|4000|column 'leaves': '0:1024' does not match size_bytes, dtype and kind
13|fp64|column 'dtype': 'fp64' is not fp32, fp16 or uint8
13|FP32|column 'dtype': 'FP32' is not fp32, fp16 or uint8
14|list|column 'kind': 'list' is not 'tensor' or 'nested'
15|0:1023|column 'leaves': '0:1023' does not match size_bytes, dtype and kind
16|2|column 'pinned': '2' is not a number in range
17|65537|column 'slots': '65537' is not a number in range
18|abc|column 'gen_ns': 'abc' is not a number in range
19|0|column 'epoch': '0' is not below the epochs column
19|1000001|column 'epochs': '1000001' is not a number in range
19||column 'epochs': '' is not a number in range
EOF
  # A ring item has no slot.
  row=$(awk -F, -v OFS=, '{ $2 = "ring"; print }' <<< "$FAKE_ROW")
  run bash -c "printf '%s\n%s\n' '$HEADER' '$row' | arena-consume"
  assert_status 65
  assert_output "arena-consume: line 2: column 'slot': '0' must be empty for a ring item"
}

# ------------------------------------------- arenas that are not ours

@test "names that are not arenabench arenas: exit 65; missing arenas: exit 66" {
  local name status why row
  while IFS='|' read -r name status why; do
    row=$(awk -F, -v OFS=, -v v="$name" '{ $1 = v; print }' <<< "$FAKE_ROW")
    run bash -c "printf '%s\n%s\n' '$HEADER' '$row' | arena-consume"
    assert_status "$status"
    assert_output "arena-consume: line 2: arena '$name': $why"
  done <<'EOF'
/etc/passwd|65|not an arenabench arena name
/arenabench.1.DEAD|65|not an arenabench arena name
/arenabench.|65|not an arenabench arena name
/arenabench.1/../../etc/passwd|65|not an arenabench arena name
/dev/shm/arenabench.1.dead|65|not an arenabench arena name
/arenabench.1.dead|66|no such arena (its producer exited or it was consumed already)
EOF
}

# forge HEADER-OPTIONS: write /dev/shm/arenabench.PID.f0f0 by hand: a pool
# arena of one 4096-byte slot (8192 bytes), fields overridable as
# python keyword arguments (magic, version, backend, share, mode, size, fill,
# and item_size, dtype, kind: what the header says its items are).
forge() {
  FORGED=/dev/shm/arenabench.$$.f0f0
  local holder
  holder=$(python3 - "$FORGED" "$@" 3>&- <<'PY'
import os, struct, sys
path = sys.argv[1]
kw = dict(a.split('=', 1) for a in sys.argv[2:])
magic = kw.get('magic', 'ABAREN01').encode()
version = int(kw.get('version', 4))
backend = int(kw.get('backend', 0))
size = int(kw.get('size', 8192))
mode = int(kw.get('mode', '600'), 8)
# magic, version, backend, header_bytes, capacity, slot_bytes, slot_count,
# flags, producer_pid: the start of struct arena_header.
header = magic + struct.pack('<IIQQQIIi', version, backend, 4096, 4096, 4096, 1, 0, 0)
# run_id, items, worker, workers, epochs, share: the identity of the run
# at 104.
header = header.ljust(104, b'\0') + struct.pack('<QQIIII', 7, 2, 0, 1, 1,
                                                 int(kw.get('share', 0)))
# size_bytes, dtype, kind: what its items are (4096 bytes, fp32, tensor).
header = header.ljust(136, b'\0') + struct.pack(
    '<QII', int(kw.get('item_size', 4096)), int(kw.get('dtype', 0)), int(kw.get('kind', 0)))
data = bytearray(size)
data[:len(header)] = header[:size]
if size >= 296:
    data[256:264] = struct.pack('<Q', 1 << 1 | 1)   # slot 0 full, generation 1
    # Its record: generation 1, sequence 0, 4096 bytes, worker 0, epoch 0.
    data[264:296] = struct.pack('<QQQII', 1, 0, 4096, 0, 0)
fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
# Hold the producer's lock (an OFD write lock on byte 0), as a live
# producer does, so that no sweep running beside the test removes it.
import fcntl
fcntl.fcntl(fd, 37, struct.pack('hhxxxxqqixxxx', fcntl.F_WRLCK, os.SEEK_SET, 0, 1, 0))
os.write(fd, bytes(data))
os.fchmod(fd, mode)
pid = os.fork()
if pid == 0:
    os.setsid()
    devnull = os.open('/dev/null', os.O_RDWR)
    for d in (0, 1, 2):
        os.dup2(devnull, d)
    import time
    time.sleep(60)
    os._exit(0)
print(pid)
os.close(fd)
PY
)
  HOLDERS+=("$holder")
  FORGED_NAME=${FORGED#/dev/shm}
}

consume_forged() {
  local row
  # The forged arena has one slot.
  row=$(awk -F, -v OFS=, -v v="$FORGED_NAME" '{ $1 = v; $17 = 1; print }' <<< "$FAKE_ROW")
  printf '%s\n%s\n' "$HEADER" "$row" | arena-consume > /dev/null
}

@test "forged objects: wrong magic, wrong version, bad mode, too small, symlink: exit 65, left alone" {
  command -v python3 > /dev/null || skip "python3 is needed to forge an arena"
  local args why count
  count=$(backends | wc -l)
  while IFS='|' read -r args why; do
    forge ${args//@COUNT@/$count}
    run consume_forged
    assert_status 65
    assert_output "arena-consume: line 2: arena '$FORGED_NAME': $why"
    [ -f "$FORGED" ]
    rm -f "$FORGED"
  done <<'EOF'
magic=ABAREN02|wrong magic number (not an arenabench arena)
magic=NUMPY001|wrong magic number (not an arenabench arena)
version=1|unsupported arena layout version 1 (this program reads version 4)
version=2|unsupported arena layout version 2 (this program reads version 4)
version=5|unsupported arena layout version 5 (this program reads version 4)
version=0|unsupported arena layout version 0 (this program reads version 4)
backend=@COUNT@|unknown backend in header
share=2|bad workers, epochs, items or share in header
item_size=0|bad size_bytes, dtype or kind in header
dtype=3|bad size_bytes, dtype or kind in header
kind=2|bad size_bytes, dtype or kind in header
size=12288|header sizes do not match the object's size
size=100|too small to be an arena
size=0|too small to be an arena
mode=644|accessible to other users (mode is not 0600)
mode=640|accessible to other users (mode is not 0600)
EOF
  # A symbolic link under an arena name, pointing at a well-formed one.
  forge
  local link=/dev/shm/arenabench.$$.11
  ln -s "$FORGED" "$link"
  local row
  row=$(awk -F, -v OFS=, -v v="${link#/dev/shm}" '{ $1 = v; print }' <<< "$FAKE_ROW")
  run bash -c "printf '%s\n%s\n' '$HEADER' '$row' | arena-consume"
  rm -f "$link"
  assert_status 65
  assert_output "arena-consume: line 2: arena '${link#/dev/shm}': is a symbolic link"
}

@test "an arena owned by another user: exit 65" {
  command -v python3 > /dev/null || skip "python3 is needed to forge an arena"
  [ "$(id -u)" -eq 0 ] || skip "only root can give an object to another user"
  forge
  chown 65534 "$FORGED"
  run consume_forged
  assert_status 65
  assert_output "arena-consume: line 2: arena '$FORGED_NAME': owned by another user"
}

@test "a forged arena with a valid header: its zero bytes are reported, not trusted" {
  command -v python3 > /dev/null || skip "python3 is needed to forge an arena"
  forge
  run consume_forged
  # Zeros match the five elements whose value is 0 (indexes 0, 251, ...);
  # nobody published anything, so the stream is also truncated.
  assert_status 75
  assert_output "arena-consume: line 2: sequence 0 leaf 0 index 1: expected 1 (0x3f800000), found 0 (0x00000000) (1019 mismatched elements in the item)
arena-consume: arena '$FORGED_NAME': truncated stream: producer (pid 0) stopped after 0 items, 1 rows received
arena-consume: worker 0 epoch 0: sequence 1 missing (1 of 2 items)
arena-consume: 1 of 2 announced items missing"
  # Attach unlinked it.
  [ ! -e "$FORGED" ]
}

# --------------------------------- handles that do not match the arena

@test "pool: offset, length and slot that do not match the arena: exit 65" {
  local field value why
  while IFS='|' read -r field value why; do
    start_producer 2 "$TMP/rows.csv" --size 4096 --items 2 --slots 4
    edit 2 "$field" "$value" > "$TMP/in.csv"
    run bash -c "arena-consume < '$TMP/in.csv' > /dev/null"
    assert_status 65
    assert_output "arena-consume: line 2: arena '$(arena_name)': $why"
    producer_ended 75
  done <<'EOF'
4|999999999|offset and length reach outside the arena
4|18446744073709551615|offset and length reach outside the arena
4|0|offset and length reach outside the arena
4|20480|offset and length reach outside the arena
4|8192|offset or length does not match the slot
4|4097|offset or length does not match the slot
3|9|slot out of range
3|1|offset or length does not match the slot
6|7|stale generation: the slot holds another item
EOF
  run grep -cE "^arena-produce: worker 0: waiting for the consumer to release every item: the consumer went away \(arena '$NAME_RE'\)\$" "$TMP/rows.csv.err"
  assert_status 0
  assert_output 1
}

@test "pool: a row replayed after its release is a stale generation" {
  start_producer 2 "$TMP/rows.csv" --size 4096 --items 2 --slots 4
  run bash -c "sed -n '1,2p;2p' '$TMP/rows.csv' | arena-consume > /dev/null"
  assert_status 65
  assert_output "arena-consume: line 3: arena '$(arena_name)': stale generation: the slot is not filled"
  producer_ended 75
}

@test "pool: a slot reused by the producer makes the old row stale" {
  # One slot, three items: the producer waits for space after row 1.  Once
  # row 1 is released it refills the slot, so row 1 replayed is stale.
  start_producer 1 "$TMP/rows.csv" --size 4096 --items 3 --slots 1
  # Row 2 appears once row 1 is released and its slot refilled.
  run bash -c "{ sed -n 1,2p '$TMP/rows.csv'; wait_rows '$TMP/rows.csv' 3; sed -n 2p '$TMP/rows.csv'; } | arena-consume > /dev/null"
  assert_status 65
  assert_output "arena-consume: line 3: arena '$(arena_name)': stale generation: the slot holds another item"
  producer_ended 75
}

@test "ring: replays, reordering, stale generations and foreign offsets: exit 65" {
  local script why
  while IFS='|' read -r script why; do
    start_producer 2 "$TMP/rows.csv" --share static --backend ring --size 4096 --items 2 --slots 4
    awk -F, -v OFS=, "$script" "$TMP/rows.csv" > "$TMP/in.csv"
    run bash -c "arena-consume < '$TMP/in.csv' > /dev/null"
    # A row missing before one that is there is a gap (75); the rest, 65.
    case $why in *missing*) assert_status 75 ;; *) assert_status 65 ;; esac
    assert_output "arena-consume: ${why//@NAME@/$(arena_name)}"
    producer_ended 75
  done <<'EOF'
{ print } NR == 2 { print }|line 3: arena '@NAME@': ring item out of FIFO order
NR == 1 { print } NR == 2 { first = $0 } NR == 3 { print; print first }|line 2: worker 0 epoch 0: sequence 0 is missing: the row of sequence 1 came in its place (a row was dropped or reordered on the way)
NR == 2 { $6 = 2 } { print }|line 2: arena '@NAME@': stale generation: the ring record holds another item
NR == 2 { $4 += 8 } { print }|line 2: arena '@NAME@': offset is not a ring record's payload
NR == 2 { $4 = 4096 } { print }|line 2: arena '@NAME@': offset is not a ring record's payload
NR == 2 { $4 += 128 } { print }|line 2: arena '@NAME@': no ring record at this offset
NR == 2 { $4 = 1e9 } { print }|line 2: arena '@NAME@': offset and length reach outside the arena
NR == 2 { $12 = 2048; $15 = "0:512"; $5 = 2048 } { print }|line 2: arena '@NAME@': size_bytes, dtype or kind differ from its header (size_bytes 4096, dtype fp32, kind tensor)
EOF
}

@test "rows that disagree with their arena's header or earlier rows: exit 65" {
  local script why
  while IFS='|' read -r script why; do
    start_producer 2 "$TMP/rows.csv" --size 4096 --items 2 --slots 4
    awk -F, -v OFS=, "$script" "$TMP/rows.csv" > "$TMP/in.csv"
    run bash -c "arena-consume < '$TMP/in.csv' > /dev/null"
    assert_status 65
    assert_output "arena-consume: ${why//@NAME@/$(arena_name)}"
    producer_ended 75
  done <<'EOF'
NR > 1 { $17 = 8 } { print }|line 2: arena '@NAME@': backend, pinned or slots differ from its header
NR > 1 { $16 = 1 } { print }|line 2: arena '@NAME@': backend, pinned or slots differ from its header
NR > 1 { $2 = "ring"; $3 = "" } { print }|line 2: arena '@NAME@': backend, pinned or slots differ from its header
NR == 3 { $11 = 3 } { print }|line 3: configuration differs from earlier rows of arena '@NAME@'
NR > 1 { $19 = 2 } { print }|line 2: arena '@NAME@': worker, workers, items, epochs or share differ from its header (worker 0 of 1, 2 items, 1 epochs, share pull)
NR > 1 { $10 = 2 } { print }|line 2: arena '@NAME@': worker, workers, items, epochs or share differ from its header (worker 0 of 1, 2 items, 1 epochs, share pull)
NR > 1 { $22 = "static" } { print }|line 2: arena '@NAME@': worker, workers, items, epochs or share differ from its header (worker 0 of 1, 2 items, 1 epochs, share pull)
EOF
}

@test "rows that lie about size_bytes, dtype, kind or leaves: exit 65, pool and ring" {
  check_forged_rows arena-consume pool
  check_forged_rows arena-consume ring
}

@test "an arena header that says another dtype than the rows: exit 65, the header's values" {
  command -v python3 > /dev/null || skip "python3 is needed to forge an arena"
  forge dtype=1
  run consume_forged
  assert_status 65
  assert_output "arena-consume: line 2: arena '$FORGED_NAME': size_bytes, dtype or kind differ from its header (size_bytes 4096, dtype fp16, kind tensor)"
}

@test "columns in any order are accepted" {
  start_producer 3 "$TMP/rows.csv" --size 4096 --items 3
  awk -F, -v OFS=, '{ t = $1; $1 = $18; $18 = t; s = $3; $3 = $7; $7 = s; print }' "$TMP/rows.csv" > "$TMP/in.csv"
  run bash -c "set -o pipefail; arena-consume < '$TMP/in.csv' | columns sequence mismatches"
  assert_status 0
  assert_output "sequence,mismatches
0,0
1,0
2,0"
  producer_ended 0
}

# ---------------------------------------------- corrupt and cut streams

@test "a corrupted value: exit 1, the message names sequence, leaf, index, expected and actual" {
  start_producer 2 "$TMP/rows.csv" --size 4096 --items 2 --slots 4
  # Element 10 of sequence 0 is 10.0f (00 00 20 41); make it 12.0f (00 00 40 41).
  printf '\x40' | dd of="/dev/shm$(arena_name)" bs=1 seek=$((4096 + 10 * 4 + 2)) conv=notrunc status=none
  run bash -c "arena-consume < '$TMP/rows.csv' > '$TMP/receipts.csv'"
  assert_status 1
  assert_output "arena-consume: line 2: sequence 0 leaf 0 index 10: expected 10 (0x41200000), found 12 (0x41400000) (1 mismatched element in the item)"
  run bash -c "columns sequence mismatches < '$TMP/receipts.csv'"
  assert_status 0
  assert_output "sequence,mismatches
0,1
1,0"
  producer_ended 0
}

@test "a nonzero padding byte between leaves: exit 1, the message names the byte" {
  check_padding_corruptions arena-consume
}

@test "the exit status of a mismatch is 1; --no-verify does not look" {
  start_producer 2 "$TMP/rows.csv" --size 4096 --items 2 --slots 4 --dtype uint8 --kind nested
  # Last leaf (offset 4096 in the item) of sequence 1, element 2: 1*17 + 2*29 + 2 = 77.
  printf '\xff' | dd of="/dev/shm$(arena_name)" bs=1 seek=$((4096 + 8192 + 4096 + 2)) conv=notrunc status=none
  run bash -c "arena-consume < '$TMP/rows.csv' > /dev/null"
  assert_status 1
  assert_output "arena-consume: line 3: sequence 1 leaf 2 index 2: expected 77, found 255 (1 mismatched element in the item)"
  producer_ended 0

  start_producer 2 "$TMP/rows.csv" --size 4096 --items 2 --slots 4 --dtype uint8 --kind nested
  printf '\xff' | dd of="/dev/shm$(arena_name)" bs=1 seek=$((4096 + 8192 + 4096 + 2)) conv=notrunc status=none
  run bash -c "set -o pipefail; arena-consume --no-verify < '$TMP/rows.csv' | columns sequence verify_ns mismatches"
  assert_status 0
  assert_output "sequence,verify_ns,mismatches
0,,
1,,"
  producer_ended 0
}

@test "a stream cut short: exit 75, truncated stream with the producer's pid and counts" {
  start_producer 2 "$TMP/rows.csv" --share static --size 4096 --items 2 --slots 4
  run bash -c "head -n 2 '$TMP/rows.csv' | arena-consume > /dev/null"
  assert_status 75
  assert_output "arena-consume: arena '$(arena_name)': truncated stream: producer (pid $PRODUCER) finished after 2 items, 1 rows received
arena-consume: worker 0 epoch 0: sequence 1 missing (1 of 2 items)
arena-consume: 1 of 2 announced items missing"
  producer_ended 75
}

@test "a producer that is still running when the rows stop: truncated stream, stopped" {
  # Three items, one slot: the producer waits for space after the first.
  start_producer 1 "$TMP/rows.csv" --share static --size 4096 --items 3 --slots 1
  run bash -c "head -n 2 '$TMP/rows.csv' | arena-consume > /dev/null"
  assert_status 75
  [ "${#lines[@]}" -eq 3 ]
  [[ ${lines[0]} =~ ^arena-consume:\ arena\ \'$NAME_RE\':\ truncated\ stream:\ producer\ \(pid\ $PRODUCER\)\ (stopped\ after\ [12]|finished\ after\ 3)\ items,\ 1\ rows\ received$ ]]
  [ "${lines[1]}" = "arena-consume: worker 0 epoch 0: sequences 1-2 missing (2 of 3 items)" ]
  [ "${lines[2]}" = "arena-consume: 2 of 3 announced items missing" ]
  producer_ended 75
}

@test "--report run refuses rows of two configurations; per-item receipts take them" {
  start_producer 2 "$TMP/a.csv" --size 4096 --items 2
  local first=$PRODUCER
  start_producer 2 "$TMP/b.csv" --size 8192 --items 2
  run bash -c "{ cat '$TMP/a.csv'; tail -n +2 '$TMP/b.csv'; } | arena-consume --report run"
  assert_status 65
  assert_output "arena-consume: line 4: rows mix configurations; --report run needs one"
  wait "$first" || true
  wait "$PRODUCER" || true

  # Pinned and pageable arenas of one size are two configurations too.
  start_producer 2 "$TMP/a.csv" --size 4096 --items 2
  first=$PRODUCER
  start_producer 2 "$TMP/b.csv" --size 4096 --items 2 --pin
  run bash -c "{ cat '$TMP/a.csv'; tail -n +2 '$TMP/b.csv'; } | arena-consume --report run"
  assert_status 65
  assert_output "arena-consume: line 4: rows mix configurations; --report run needs one"
  wait "$first" || true
  wait "$PRODUCER" || true

  start_producer 2 "$TMP/a.csv" --size 4096 --items 2
  start_producer 2 "$TMP/b.csv" --size 8192 --items 2
  run bash -c "set -o pipefail; { cat '$TMP/a.csv'; tail -n +2 '$TMP/b.csv'; } | arena-consume | columns arm size_bytes sequence mismatches"
  assert_status 0
  assert_output "arm,size_bytes,sequence,mismatches
pool-pageable,4096,0,0
pool-pageable,4096,1,0
pool-pageable,8192,0,0
pool-pageable,8192,1,0"
}

# ------------------------------------------------------- completeness

@test "one worker's rows filtered out: exit 75 naming the worker, epochs and sequences" {
  # Worker 1's arena is never attached: it waits at the end of epoch 0
  # for releases, worker 0 for it, until --timeout ends the producer.
  run bash -c "set -o pipefail; arena-produce --size 4096 --items 2 --epochs 2 --workers 2 --share static --timeout 1 2> /dev/null \
    | grep --line-buffered -v -E '^([^,]*,){7}1,' | arena-consume > /dev/null"
  assert_status 75
  [[ "${lines[0]}" =~ ^arena-consume:\ arena\ \'/arenabench\.[0-9]+\.[0-9a-f]{24}\':\ truncated\ stream:\ producer\ \(pid\ [0-9]+\)\ stopped\ after\ 2\ items,\ 2\ rows\ received$ ]]
  unset 'lines[0]'
  run printf '%s\n' "${lines[@]}"
  assert_status 0
  assert_output "arena-consume: worker 0 epoch 1: sequences 4-5 missing (2 of 2 items)
arena-consume: worker 1 epoch 0: sequences 2-3 missing (2 of 2 items; no row of this worker arrived)
arena-consume: worker 1 epoch 1: sequences 6-7 missing (2 of 2 items; no row of this worker arrived)
arena-consume: 6 of 8 announced items missing"
}

@test "a row dropped in the middle, every backend: exit 75 at the next row, naming the missing sequence" {
  local backend
  for backend in $(backends); do
    start_producer 4 "$TMP/rows.csv" --share static --backend "$backend" --size 4096 --items 4 --slots 4
    run bash -c "sed 3d '$TMP/rows.csv' | arena-consume > /dev/null"
    assert_status 75
    assert_output "arena-consume: line 3: worker 0 epoch 0: sequence 1 is missing: the row of sequence 2 came in its place (a row was dropped or reordered on the way)"
    producer_ended 75
  done
}

@test "a row of another item at the right place (sequence + 251, the pattern's period): refused (65)" {
  start_producer 2 "$TMP/rows.csv" --size 4096 --items 300 --slots 2
  edit 2 7 251 > "$TMP/in.csv"
  run bash -c "head -n 2 '$TMP/in.csv' | arena-consume > /dev/null"
  assert_status 65
  assert_output "arena-consume: line 2: arena '$(arena_name)': the row is not the item in the slot: it holds sequence 0 of worker 0, epoch 0"
  producer_ended 75
  start_producer 2 "$TMP/rows.csv" --backend ring --size 4096 --items 300 --slots 2
  edit 2 7 251 > "$TMP/in.csv"
  run bash -c "head -n 2 '$TMP/in.csv' | arena-consume > /dev/null"
  assert_status 65
  assert_output "arena-consume: line 2: arena '$(arena_name)': the row is not the item in the ring record: it holds sequence 0 of worker 0, epoch 0"
  producer_ended 75
}

@test "rows claiming half the size that was written: refused (65) by the header; by the record if it says so" {
  local backend why
  while IFS='|' read -r backend why; do
    start_producer 1 "$TMP/rows.csv" --backend "$backend" --size 8192 --items 1 --slots 1
    awk -F, -v OFS=, 'NR == 2 { $5 = 4096; $12 = 4096; $15 = "0:1024" } { print }' "$TMP/rows.csv" > "$TMP/in.csv"
    run bash -c "arena-consume < '$TMP/in.csv' > /dev/null"
    assert_status 65
    assert_output "arena-consume: line 2: arena '$(arena_name)': size_bytes, dtype or kind differ from its header (size_bytes 8192, dtype fp32, kind tensor)"
    producer_ended 75
    # The arena's own record of the item's length, halved: the true rows
    # no longer match it.  A pool slot's record (one slot) is at 264, its
    # bytes 16 further; a ring record is the 64 bytes before the payload.
    start_producer 1 "$TMP/rows.csv" --backend "$backend" --size 8192 --items 1 --slots 1
    local at=280
    [ "$backend" = ring ] && at=$(( $(column offset < "$TMP/rows.csv" | head -n 1) - 64 + 16 ))
    printf '\0\020\0\0\0\0\0\0' | dd of="/dev/shm$(arena_name)" bs=1 seek="$at" conv=notrunc status=none
    run bash -c "arena-consume < '$TMP/rows.csv' > /dev/null"
    assert_status 65
    assert_output "arena-consume: line 2: arena '$(arena_name)': $why"
    producer_ended 75
  done <<'EOF2'
pool|length does not match the item in the slot
ring|length does not match the ring record
EOF2
}

@test "a row naming another worker than its arena's: refused (65)" {
  start_producer 2 "$TMP/rows.csv" --size 4096 --items 1 --workers 2
  # The first row, moved to the other worker (its sequence too).
  awk -F, -v OFS=, 'NR == 2 { $7 = 1 - $8; $8 = 1 - $8 } NR <= 2 { print }' "$TMP/rows.csv" > "$TMP/in.csv"
  run bash -c "arena-consume < '$TMP/in.csv' > /dev/null"
  assert_status 65
  [[ $output =~ ^arena-consume:\ line\ 2:\ arena\ \'$NAME_RE\':\ worker,\ workers,\ items,\ epochs\ or\ share\ differ\ from\ its\ header\ \(worker\ [01]\ of\ 2,\ 1\ items,\ 1\ epochs,\ share\ pull\)$ ]]
}

# ----------------------------------------------------------- --timeout

@test "--timeout: rows that stop coming (a stopped producer) end the wait with exit 75" {
  start_producer 2 "$TMP/rows.csv" --size 4096 --items 3 --slots 4
  run timeout 20 bash -c "{ head -n 3 '$TMP/rows.csv'; sleep 10; } | arena-consume --timeout 0.5 > /dev/null"
  assert_status 75
  assert_output "arena-consume: stdin: no handle row for 0.5 s after 3 lines: the producer stalled, or a filter in the pipe holds the rows"
  run arena-consume --timeout 0
  assert_status 64
  assert_output "arena-consume: --timeout: '0' out of range [0.001, 1e+06]"
}

# receipts_whole FILE: "RECEIPTS BAD" -- the receipt lines of FILE after
# its header, and how many of them have another field count than the
# header (a line cut short); the file must end with a newline.
receipts_whole() {
  [ "$(tail -c 1 "$1" | od -An -c | tr -d ' ')" = '\n' ] || { echo "no newline at the end of $1" >&2; return 1; }
  awk -F, 'NR == 1 { n = NF; next } NF != n { bad++ } END { print NR - 1, bad + 0 }' "$1"
}

# consume_fifo ARGS...: arena-consume ARGS in the background, reading the
# FIFO $TMP/pipe that descriptor 4 holds open (so the input never ends by
# itself), receipts in $TMP/out, errors in $TMP/err; sets CONSUMER.
consume_fifo() {
  mkfifo "$TMP/pipe"
  arena-consume "$@" < "$TMP/pipe" > "$TMP/out" 2> "$TMP/err" 3>&- &
  CONSUMER=$!
  exec 4> "$TMP/pipe"
}

@test "--timeout: every item handled before the wait ended has its receipt, whole" {
  start_producer 50 "$TMP/rows.csv" --size 4096 --items 50 --slots 50
  consume_fifo --timeout 0.5
  # Taken before the last row goes: the wait cannot end sooner than 0.5 s
  # after this, however loaded the machine (a timer ten times early did).
  local start
  start=$(date +%s%N)
  head -n 51 "$TMP/rows.csv" >&4
  local st=0
  wait "$CONSUMER" || st=$?
  local waited_ms=$((($(date +%s%N) - start) / 1000000))
  exec 4>&-
  [ "$st" -eq 75 ]
  [ "$waited_ms" -ge 500 ]
  [ "$(cat "$TMP/err")" = "arena-consume: stdin: no handle row for 0.5 s after 51 lines: the producer stalled, or a filter in the pipe holds the rows" ]
  run receipts_whole "$TMP/out"
  assert_status 0
  assert_output "50 0"
  # The producer saw every item released, and the consumer leave.
  producer_ended 0
}

# (SIGINT is handled the same way, but a background job of a script starts
# with it ignored, and an ignored signal stays so.)
@test "SIGTERM and SIGHUP: every item handled has its receipt, whole, and the consumer dies of the signal" {
  local sig
  for sig in TERM HUP; do
    rm -f "$TMP/pipe"
    start_producer 50 "$TMP/rows.csv" --size 4096 --items 50 --slots 50
    consume_fifo
    cat "$TMP/rows.csv" >&4
    # The producer exits once the consumer has released all 50 items.
    producer_ended 0
    kill -"$sig" "$CONSUMER"
    local st=0
    wait "$CONSUMER" || st=$?
    exec 4>&-
    [ "$st" -eq $((128 + $(kill -l "$sig"))) ]
    [ ! -s "$TMP/err" ]
    run receipts_whole "$TMP/out"
    assert_status 0
    assert_output "50 0"
  done
}

@test "a malformed row after 50 handled: exit 65, and the 50 receipts written first" {
  start_producer 50 "$TMP/rows.csv" --size 4096 --items 50 --slots 50
  { cat "$TMP/rows.csv"; echo 'not,a,row'; } > "$TMP/in.csv"
  run bash -c "arena-consume < '$TMP/in.csv' > '$TMP/out'"
  assert_status 65
  assert_output "arena-consume: line 52: expected 22 fields, found 3"
  run receipts_whole "$TMP/out"
  assert_status 0
  assert_output "50 0"
}

@test "--timeout: a SIGSTOPped producer does not hold the consumer forever" {
  mkfifo "$TMP/pipe"
  arena-produce --size 64K --items 1000000 --slots 2 --timeout 30 > "$TMP/pipe" 2> /dev/null 3>&- &
  PRODUCERS+=("$!")
  local producer=$!
  timeout 20 arena-consume --timeout 0.5 < "$TMP/pipe" > /dev/null 2> "$TMP/err" 3>&- &
  local consumer=$!
  # Rows are flowing once the consumer (timeout's child) has attached.
  wait_until 10 eval 'maps_arena "$(pgrep -P "$consumer")"'
  # The worker writes the rows: stop it and its parent.
  local stopped="$producer $(pgrep -P "$producer")"
  kill -STOP $stopped
  local st=0
  wait "$consumer" || st=$?
  kill -CONT $stopped
  [ "$st" -eq 75 ]
  [[ $(cat "$TMP/err") =~ ^arena-consume:\ stdin:\ no\ handle\ row\ for\ 0\.5\ s\ after\ [0-9]+\ lines:\ the\ producer\ stalled,\ or\ a\ filter\ in\ the\ pipe\ holds\ the\ rows$ ]]
}

# ------------------------------------------------- a long-lived consumer

@test "one consumer reading many producer runs: descriptors and mappings stay flat" {
  ! valgrind_build || skip "valgrind's own heap is in the consumer's VmData and grows as valgrind runs"
  mkfifo "$TMP/pipe"
  arena-consume < "$TMP/pipe" > "$TMP/receipts.csv" 2> "$TMP/err" 3>&- &
  local consumer=$! i fds5= data5= maps
  exec 4> "$TMP/pipe"
  for i in $(seq 12); do
    # Each producer waits until every item is released before it exits.
    if [ "$i" -eq 1 ]; then
      arena-produce --size 1MiB --items 3 --timeout 10 >&4
    else
      arena-produce --size 1MiB --items 3 --timeout 10 | sed -u 1d >&4
    fi
    # The producer may exit between the consumer's last release and its
    # unmapping of the arena: give the consumer a moment, not forever.
    for _ in $(seq 100); do
      maps=$(grep -c "/dev/shm/arenabench\\." /proc/$consumer/maps || true)
      [ "$maps" -eq 0 ] && break
      sleep 0.1
    done
    [ "$maps" -eq 0 ] || { echo "run $i: $maps arena mappings still held" >&2; exec 4>&-; false; }
    [ "$i" -ne 5 ] || fds5=$(ls /proc/$consumer/fd | wc -l)
    [ "$i" -ne 5 ] || data5=$(awk '/^VmData:/ { print $2 }' /proc/$consumer/status)
  done
  local fds12 data12
  fds12=$(ls /proc/$consumer/fd | wc -l)
  # Each finished run's bookkeeping is freed too: the heap does not grow.
  data12=$(awk '/^VmData:/ { print $2 }' /proc/$consumer/status)
  exec 4>&-
  local st=0
  wait "$consumer" || st=$?
  [ "$st" -eq 0 ]
  [ "$fds5" -eq "$fds12" ]
  [ "$data5" -eq "$data12" ] || { echo "VmData $data5 kB after run 5, $data12 kB after 12" >&2; false; }
  [ "$(tail -n +2 "$TMP/receipts.csv" | wc -l)" -eq 36 ]
}

@test "a run's arenas stay mapped until every worker of the run is done" {
  # Two workers, two items each, all rows written at once (two slots).
  arena-produce --workers 2 --size 64K --items 2 --slots 2 --share static --timeout 30 > "$TMP/rows.csv" &
  local producer=$! consumer workers maps=
  for _ in $(seq 200); do
    [ "$(wc -l < "$TMP/rows.csv")" -ge 5 ] && break
    sleep 0.05
  done
  mkfifo "$TMP/pipe"
  arena-consume < "$TMP/pipe" > /dev/null 2> "$TMP/err" 3>&- &
  consumer=$!
  exec 4> "$TMP/pipe"
  # Worker 1's first row (its arena is attached and not done), then every
  # row of worker 0: worker 0's arena is done, its run is not.
  awk -F, 'NR == 1 || ($8 == 1 && !seen++)' "$TMP/rows.csv" >&4
  awk -F, 'NR > 1 && $8 == 0' "$TMP/rows.csv" >&4
  # Worker 0 exits once the consumer has released both its items.
  for _ in $(seq 200); do
    workers=$(pgrep -P "$producer" | wc -l)
    [ "$workers" -eq 1 ] && break
    sleep 0.05
  done
  [ "$workers" -eq 1 ]
  maps=$(grep -c "/dev/shm/arenabench\\." /proc/$consumer/maps || true)
  awk -F, 'NR > 1 && $8 == 1' "$TMP/rows.csv" | tail -n +2 >&4
  exec 4>&-
  local st=0
  wait "$consumer" || st=$?
  wait "$producer"
  [ "$st" -eq 0 ]
  [ "$maps" -eq 2 ] || { echo "$maps arena mappings while worker 1 was still running" >&2; false; }
}

# ------------------------------------------------- truncated under us

@test "an arena truncated by another process mid-run: exit 65 naming it, never SIGBUS" {
  ! valgrind_build || skip "memcheck: the siglongjmp out of the read on SIGBUS leaves the intake's buffers unreachable, lost at exit (reported in issue 22)"
  ! asan_build || skip "AddressSanitizer takes SIGBUS for itself"
  start_producer 3 "$TMP/rows.csv" --size 64K --items 3 --slots 4
  mkfifo "$TMP/pipe"
  arena-consume < "$TMP/pipe" > /dev/null 2> "$TMP/err" 3>&- &
  local consumer=$! fd
  exec 4> "$TMP/pipe"
  head -n 2 "$TMP/rows.csv" >&4
  # The consumer attached (and unlinked the name): find its descriptor.
  for _ in $(seq 100); do
    for fd in /proc/$consumer/fd/*; do
      case $(readlink "$fd") in /dev/shm/arenabench.*) break ;; esac
      fd=
    done
    [ -z "$fd" ] || break
    sleep 0.05
  done
  [ -n "$fd" ]
  truncate -s 0 "$fd"
  sed -n 3p "$TMP/rows.csv" >&4
  exec 4>&-
  local st=0
  wait "$consumer" || st=$?
  [ "$st" -eq 65 ]
  [ "$(cat "$TMP/err")" = "arena-consume: arena '$(arena_name)': truncated by another process while in use" ]
}

@test "contrib/small-items: runs each arm, keeps every run report and summarizes per arm" {
  run small-items --items 40 --runs 2 --slots 16 --label t --out "$TMP/si"
  assert_status 0
  [ "$(grep -c '' "$TMP/si/raw.csv")" -eq 5 ]
  [ "$(columns bench_arm bench_run bench_label items mismatches < "$TMP/si/raw.csv" | sort | tr '\n' ' ')" = \
    'bench_arm,bench_run,bench_label,items,mismatches no-verify,1,t,80, no-verify,2,t,80, verify,1,t,80,0 verify,2,t,80,0 ' ]
  [ "$(awk '$1 == "verify" || $1 == "no-verify" { print $1, $2, $NF }' "$TMP/si/summary.txt" | sort | tr '\n' ' ')" = \
    'no-verify 2 0 verify 2 0 ' ]
  grep -q '^commit: ' "$TMP/si/receipt.txt"
  run small-items --arms fast --out "$TMP/si2"
  assert_status 64
  assert_output "small-items: --arms: 'fast' is not verify or no-verify"
  assert_no_arena_left
}
