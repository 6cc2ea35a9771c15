# Checks shared by messages.bats, receipts.bats and h2d-check.bats, for
# arena-consume and for h2d-check on the GPU.

# Print column NAME of every data row of the CSV on stdin.
column() {
  awk -F, -v name="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i; next }
                        { print $c }'
}

# A 4-slot pool of 8 MiB items: one 4 KiB header page and four slots.
MAPPING=$((4096 + 4 * 8388608))

# unprivileged COMMAND: run COMMAND (bash) as nobody with an ordinary
# user's 8 MiB RLIMIT_MEMLOCK; skips visibly when that cannot be arranged.
unprivileged() {
  [ "$(id -u)" -eq 0 ] || skip "needs root to become nobody"
  command -v setpriv > /dev/null && command -v prlimit > /dev/null \
    || skip "setpriv or prlimit missing"
  setpriv --reuid=nobody --regid=nogroup --clear-groups test -x "$(command -v arena-produce)" \
    || skip "nobody cannot run $(command -v arena-produce)"
  run setpriv --reuid=nobody --regid=nogroup --clear-groups prlimit --memlock=8388608 \
    env PATH="$PATH" bash -c "$1"
}

# Mismatches: corrupt one element of an item and check the message.

# One corruption per line: dtype, --size, element index, bytes written
# there (printf escapes, little-endian), and the message's values.  A low
# bit flipped, in each dtype, and in the last element of a ragged item.
CORRUPTIONS='fp32 64KiB 1000 \001\000\167\103 expected 247 (0x43770000), found 247.00002 (0x43770001)
fp16 64KiB 1000 \271\133 expected 247 (0x5bb8), found 247.125 (0x5bb9)
uint8 64KiB 1000 \366 expected 247, found 246
fp32 4100 1024 \001\000\240\101 expected 20 (0x41a00000), found 20.000002 (0x41a00001)
fp16 2002 1000 \271\133 expected 247 (0x5bb8), found 247.125 (0x5bb9)
uint8 1001 1000 \366 expected 247, found 246'

# check_corruptions CONSUMER: each corruption of the table, in the first
# item of a two-item run, is reported by CONSUMER with exit 1.
check_corruptions() {
  local consumer=$1 dtype size index bytes values itemsize arena offset
  while read -r dtype size index bytes values; do
    case $dtype in fp32) itemsize=4 ;; fp16) itemsize=2 ;; *) itemsize=1 ;; esac
    arena-produce --dtype "$dtype" --size "$size" --items 2 --timeout 60 > "$TMP/rows.csv" &
    PRODUCER=$!
    for _ in $(seq 200); do
      [ "$(wc -l < "$TMP/rows.csv")" -ge 3 ] && break
      sleep 0.05
    done
    arena=$(awk -F, 'NR == 2 { print $1 }' "$TMP/rows.csv")
    offset=$(awk -F, 'NR == 2 { print $4 }' "$TMP/rows.csv")
    printf "$bytes" | dd of="/dev/shm$arena" bs=1 seek=$((offset + itemsize * index)) \
      conv=notrunc status=none
    run bash -c "$consumer 2>&1 > /dev/null" < "$TMP/rows.csv"
    wait "$PRODUCER"
    assert_status 1 || { echo "$dtype $size" >&2; return 1; }
    assert_output "${consumer%% *}: line 2: sequence 0 leaf 0 index $index: $values (1 mismatched element in the item)" \
      || return 1
  done <<< "$CORRUPTIONS"
}

# Rows that lie about what an item is, in a run of two 4096-byte fp32
# tensor items (leaves 0:1024).  One case per line: the awk edit of the
# rows and the message after "CONSUMER: ".  Rows that describe the items
# consistently (size_bytes, dtype or kind with the leaves and bytes that
# follow) are refused against the arena's header; a row that changes
# them after the first, against that row; a leaves or bytes column that
# does not follow from the row's own description, by itself.
FORGED_ROWS=$(cat <<'EOF'
NR > 1 { $12 = 4099 }|line 2: arena '@NAME@': size_bytes, dtype or kind differ from its header (size_bytes 4096, dtype fp32, kind tensor)
NR > 1 { $12 = 2048; $15 = "0:512"; $5 = 2048 }|line 2: arena '@NAME@': size_bytes, dtype or kind differ from its header (size_bytes 4096, dtype fp32, kind tensor)
NR > 1 { $13 = "fp16"; $15 = "0:2048" }|line 2: arena '@NAME@': size_bytes, dtype or kind differ from its header (size_bytes 4096, dtype fp32, kind tensor)
NR > 1 { $13 = "uint8"; $15 = "0:4096" }|line 2: arena '@NAME@': size_bytes, dtype or kind differ from its header (size_bytes 4096, dtype fp32, kind tensor)
NR > 1 { $14 = "nested"; $15 = "0:512;2048:512;4096:3"; $5 = 4108 }|line 2: arena '@NAME@': size_bytes, dtype or kind differ from its header (size_bytes 4096, dtype fp32, kind tensor)
NR == 3 { $12 = 4099 }|line 3: configuration differs from earlier rows of arena '@NAME@'
NR == 3 { $13 = "fp16"; $15 = "0:2048" }|line 3: configuration differs from earlier rows of arena '@NAME@'
NR == 3 { $14 = "nested"; $15 = "0:512;2048:512;4096:3"; $5 = 4108 }|line 3: configuration differs from earlier rows of arena '@NAME@'
NR == 3 { $19 = 5 }|line 3: configuration differs from earlier rows of arena '@NAME@'
NR > 1 { $12 = 2048 }|line 2: column 'leaves': '0:1024' does not match size_bytes, dtype and kind
NR > 1 { $13 = "fp16" }|line 2: column 'leaves': '0:1024' does not match size_bytes, dtype and kind
NR > 1 { $14 = "nested" }|line 2: column 'leaves': '0:1024' does not match size_bytes, dtype and kind
NR > 1 { $15 = "0:1023" }|line 2: column 'leaves': '0:1023' does not match size_bytes, dtype and kind
NR > 1 { $15 = "0:512;512:512" }|line 2: column 'leaves': '0:512;512:512' does not match size_bytes, dtype and kind
NR > 1 { $5 = 2048 }|line 2: column 'bytes': '2048' does not match size_bytes, dtype and kind
EOF
)

# check_forged_rows CONSUMER BACKEND: each forgery of the table is refused
# by CONSUMER with exit 65 and its message, before any item of the row is
# read; the producer sees the consumer go (75) or, when it never attached,
# is ended here.
check_forged_rows() {
  local consumer=$1 backend=$2 script why arena got
  while IFS='|' read -r script why; do
    arena-produce --backend "$backend" --size 4096 --items 2 --slots 4 --timeout 60 \
      > "$TMP/rows.csv" 3>&- &
    PRODUCER=$!
    wait_rows "$TMP/rows.csv" 3 || return 1
    arena=$(awk -F, 'NR == 2 { print $1 }' "$TMP/rows.csv")
    awk -F, -v OFS=, "$script { print }" "$TMP/rows.csv" > "$TMP/in.csv"
    run bash -c "$consumer > /dev/null" < "$TMP/in.csv"
    assert_status 65 || { echo "case ($backend): $script" >&2; return 1; }
    assert_output "${consumer%% *}: ${why//@NAME@/$arena}" || return 1
    case $why in
      *header*|*configuration*)
        got=0
        wait "$PRODUCER" || got=$?
        [ "$got" -eq 75 ] || { echo "producer exit $got, want 75" >&2; return 1; } ;;
      *) kill -TERM "$PRODUCER"; wait "$PRODUCER" || true ;;
    esac
  done <<< "$FORGED_ROWS"
}
