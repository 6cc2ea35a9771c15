#!/usr/bin/env bats
# --trace FILE (arena-consume, h2d-check): the exact tracks and events of
# a run's timeline, every item's stages in the order they happen; on a GPU
# also the copy-engine idle columns and --calibrate's ceiling row.

load test-helper

setup() {
  common_setup
  command -v python3 > /dev/null || skip "python3 is needed to read the JSON"
}

teardown() {
  common_teardown
}

# trace_shape FILE: the tracks, then per item (by sequence) its events as
# NAME@PID/TID in file order, and whether their times run in stage order.
trace_shape() {
  python3 - "$1" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
assert set(doc) == {"displayTimeUnit", "traceEvents"}, sorted(doc)
meta, items = [], {}
for e in doc["traceEvents"]:
    if e["ph"] == "M":
        kind = e["name"].split("_")[0]
        where = str(e["pid"]) + ("" if kind == "process" else " " + str(e["tid"]))
        meta.append("%s %s %s" % (kind, where, e["args"]["name"]))
        continue
    assert e["ph"] in ("X", "i"), e
    items.setdefault(e["args"]["sequence"], []).append(e)
print("\n".join(meta))
for seq in sorted(items):
    evs = items[seq]
    names = " ".join("%s@%d/%d" % (e["name"], e["pid"], e["tid"]) for e in evs)
    at = {e["name"]: e for e in evs}
    start = lambda n: at[n]["ts"]
    end = lambda n: at[n]["ts"] + at[n].get("dur", 0)
    # Each pair (A, B): B begins no earlier than A ended, to the printed
    # nanosecond; the wait ends at the read.
    order = [("fill", "row"), ("row", "read row"), ("read row", "check"), ("read row", "submit"),
             ("submit", "copy"), ("copy", "check"), ("copy", "release")]
    if "copy" not in at:
        order.append(("check", "release"))
    ok = all(start(b) + 0.0015 >= end(a) for a, b in order if a in at and b in at)
    if "wait for row" in at and abs(end("wait for row") - start("read row")) > 0.0015:
        ok = False
    print("%d: %s %s" % (seq, names, "in order" if ok else "OUT OF ORDER"))
PY
}

@test "arena-consume --trace: a track per producer and the consumer's, every item's six stages in order" {
  arena-produce --workers 2 --items 2 --epochs 2 --size 4KiB --share static \
    | arena-consume --warmup-epochs 1 --report run --trace "$TMP/t.json" > /dev/null
  run trace_shape "$TMP/t.json"
  assert_status 0
  assert_output "process 1 producers
process 2 arena-consume
thread 1 0 producer 0
thread 1 1 producer 1
thread 2 0 consumer
0: fill@1/0 row@1/0 wait for row@2/0 read row@2/0 check@2/0 release@2/0 in order
1: fill@1/0 row@1/0 wait for row@2/0 read row@2/0 check@2/0 release@2/0 in order
2: fill@1/1 row@1/1 wait for row@2/0 read row@2/0 check@2/0 release@2/0 in order
3: fill@1/1 row@1/1 wait for row@2/0 read row@2/0 check@2/0 release@2/0 in order
4: fill@1/0 row@1/0 wait for row@2/0 read row@2/0 check@2/0 release@2/0 in order
5: fill@1/0 row@1/0 wait for row@2/0 read row@2/0 check@2/0 release@2/0 in order
6: fill@1/1 row@1/1 wait for row@2/0 read row@2/0 check@2/0 release@2/0 in order
7: fill@1/1 row@1/1 wait for row@2/0 read row@2/0 check@2/0 release@2/0 in order"
}

@test "arena-consume --trace --no-verify: no check events" {
  arena-produce --items 2 --size 4KiB | arena-consume --no-verify --trace "$TMP/t.json" > /dev/null
  run trace_shape "$TMP/t.json"
  assert_status 0
  assert_output "process 1 producers
process 2 arena-consume
thread 1 0 producer 0
thread 2 0 consumer
0: fill@1/0 row@1/0 wait for row@2/0 read row@2/0 release@2/0 in order
1: fill@1/0 row@1/0 wait for row@2/0 read row@2/0 release@2/0 in order"
}

@test "arena-consume --trace: rows without fill_start_ns and row_ns (an older producer) trace the consumer's side only" {
  arena-produce --items 2 --size 4KiB --share static | sed -u -E "s/,[^,]*,[^,]*,[^,]*$//" \
    | arena-consume --trace "$TMP/t.json" > /dev/null
  run trace_shape "$TMP/t.json"
  assert_status 0
  assert_output "process 1 producers
process 2 arena-consume
thread 1 0 producer 0
thread 2 0 consumer
0: wait for row@2/0 read row@2/0 check@2/0 release@2/0 in order
1: wait for row@2/0 read row@2/0 check@2/0 release@2/0 in order"
}

@test "arena-consume --trace: every item's fill lies within the run, its bytes and worker in the span's args" {
  arena-produce --workers 2 --items 3 --size 8KiB --dtype uint8 --share static \
    | arena-consume --trace "$TMP/t.json" > /dev/null
  run python3 - "$TMP/t.json" <<'PY'
import json, sys
ev = [e for e in json.load(open(sys.argv[1]))["traceEvents"] if e["name"] == "fill"]
print(len(ev), sorted(set((e["args"]["worker"], e["args"]["bytes"], e["args"]["epoch"]) for e in ev)),
      min(e["ts"] for e in ev) >= 0, all(e["dur"] > 0 for e in ev))
PY
  assert_status 0
  assert_output "6 [(0, 8192, 0), (1, 8192, 0)] True True"
}

@test "--trace naming a file that cannot be created: exit 74 before any row is read" {
  run arena-consume --trace "$TMP/no/such/dir/t.json" < /dev/null
  assert_status 74
  assert_output "arena-consume: --trace: cannot create '$TMP/no/such/dir/t.json': No such file or directory"
}

@test "--trace naming a FIFO nobody reads: exit 74 at once, never blocked before --timeout applies" {
  mkfifo "$TMP/fifo"
  # A blocking open would wait here for a reader forever; timeout(1)
  # stands for the harness' limit.
  run timeout 60 arena-consume --timeout 1 --trace "$TMP/fifo" < /dev/null
  assert_status 74
  assert_output "arena-consume: --trace: '$TMP/fifo' is a FIFO nobody reads"
}

@test "--trace naming a FIFO with a reader: the trace goes through it" {
  mkfifo "$TMP/fifo"
  cat "$TMP/fifo" > "$TMP/got.json" 3>&- &
  local reader=$!
  # The reader waits in open(2) for a writer.
  wait_until 30 in_kernel_wait "$reader" 'wait_for_partner|fifo'
  arena-produce --size 4K --items 2 | arena-consume --trace "$TMP/fifo" > /dev/null
  wait "$reader"
  run python3 -c 'import json, sys; print(len([e for e in json.load(open(sys.argv[1]))["traceEvents"] if e["ph"] != "M"]))' "$TMP/got.json"
  assert_status 0
  assert_output 12
}

@test "--trace: a run that fails leaves an earlier trace file as it was, and no file beside it" {
  mkdir "$TMP/d"
  printf 'earlier trace\n' > "$TMP/d/t.json"
  chmod 640 "$TMP/d/t.json"
  run bash -c "printf 'not,a,handle,header\n' | arena-consume --trace '$TMP/d/t.json'"
  assert_status 65
  run cat "$TMP/d/t.json"
  assert_status 0
  assert_output "earlier trace"
  run ls -A "$TMP/d"
  assert_status 0
  assert_output "t.json"
  # A run that succeeds replaces it, keeping its mode.
  arena-produce --size 4K --items 2 | arena-consume --trace "$TMP/d/t.json" > /dev/null
  run python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["traceEvents"]) > 0)' "$TMP/d/t.json"
  assert_status 0
  assert_output True
  run stat -c %a "$TMP/d/t.json"
  assert_status 0
  assert_output 640
  run ls -A "$TMP/d"
  assert_status 0
  assert_output "t.json"
}

@test "h2d-check --trace: producer, consumer, copy-stream, check and release tracks, every item's stages in order" {
  require_gpu
  arena-produce --pin --workers 2 --items 2 --epochs 2 --size 1MiB --share static \
    | h2d-check --warmup-epochs 1 --report run --copy-streams 2 --trace "$TMP/t.json" > /dev/null
  run trace_shape "$TMP/t.json"
  assert_status 0
  [ "${lines[0]}" = "process 1 producers" ]
  [ "${lines[1]}" = "process 2 h2d-check" ]
  [ "${lines[2]}" = "thread 1 0 producer 0" ]
  [ "${lines[3]}" = "thread 1 1 producer 1" ]
  [ "${lines[4]}" = "thread 2 0 consumer" ]
  [ "${lines[5]}" = "thread 2 1 copy stream 0" ]
  [ "${lines[6]}" = "thread 2 2 copy stream 1" ]
  [ "${lines[7]}" = "thread 2 100 checks (GPU)" ]
  [ "${lines[8]}" = "thread 2 101 releases" ]
  [ "${#lines[@]}" -eq 17 ]
  local l
  for l in "${lines[@]:9}"; do
    [[ $l =~ ^[0-7]:\ fill@1/[01]\ row@1/[01]\ wait\ for\ row@2/0\ read\ row@2/0\ submit@2/0\ copy@2/[12]\ check@2/100\ release@2/101\ in\ order$ ]]
  done
}

@test "h2d-check's run report: the copy engine's idle causes add up to idle_s, within the window" {
  require_gpu
  run bash -c 'arena-produce --pin --workers 2 --items 16 --epochs 2 --size 1MiB \
    | h2d-check --warmup-epochs 1 --report run'
  assert_status 0
  run awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    { sum = $c["idle_no_row_s"] + $c["idle_no_slot_s"] + $c["idle_check_s"] + $c["idle_release_s"] + $c["idle_other_s"]
      d = sum - $c["idle_s"]; if (d < 0) d = -d
      print (d <= 6e-6 ? "adds up" : "differs by " d), ($c["idle_s"] >= 0 && $c["idle_s"] <= $c["seconds"] ? "within" : "outside") }' <<<"$output"
  assert_status 0
  assert_output "adds up within"
}

@test "h2d-check --calibrate: the two ceiling rows with the run's workers and slots, after the raw rows" {
  require_gpu
  run bash -c 'arena-produce --pin --workers 2 --slots 3 --items 8 --epochs 2 --size 1MiB \
    | h2d-check --warmup-epochs 1 --calibrate'
  assert_status 0
  run awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    { print $c["arm"], $c["backend"], $c["pinned"], $c["workers"], $c["slots"], ($c["items"] > 0 && $c["items_per_s"] > 0 ? "measured" : "empty"), ($c["idle_s"] == "" ? "no idle" : "idle") }' <<<"$output"
  assert_status 0
  assert_output "pool-pinned pool 1 2 3 measured idle
raw-pinned  1   measured no idle
raw-pageable  0   measured no idle
raw-pageable-shm  0   measured no idle
raw-registered-shm  1   measured no idle
ceiling  1 2 3 measured no idle
ceiling-registered-shm  1 2 3 measured no idle"
}

@test "--trace: an existing file in a folder the user may not write is written in place, and kept as it was by a failed run" {
  [ "$(id -u)" -eq 0 ] || skip "needs root to run the consumer as nobody"
  command -v setpriv > /dev/null || skip "setpriv(1) is not installed"
  local nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)
  "${nobody[@]}" test -x "$(command -v arena-consume)" || skip "nobody cannot run $(command -v arena-consume)"
  mkdir "$TMP/ro"
  printf 'earlier trace, longer than nothing\n' > "$TMP/ro/t.json"
  chmod 666 "$TMP/ro/t.json"
  chmod 755 "$TMP"
  chmod 555 "$TMP/ro"
  run bash -c "printf 'not,a,handle,header\n' | ${nobody[*]} arena-consume --trace '$TMP/ro/t.json'"
  assert_status 65
  run cat "$TMP/ro/t.json"
  assert_status 0
  assert_output "earlier trace, longer than nothing"
  run bash -c "set -o pipefail; ${nobody[*]} arena-produce --size 4K --items 2 | ${nobody[*]} arena-consume --trace '$TMP/ro/t.json' > /dev/null"
  assert_status 0
  # The whole file is the new trace: no bytes of the old one after it.
  run python3 -c 'import json, sys; print(len([e for e in json.load(open(sys.argv[1]))["traceEvents"] if e["ph"] != "M"]))' "$TMP/ro/t.json"
  assert_status 0
  assert_output 12
  chmod 755 "$TMP/ro"
}
