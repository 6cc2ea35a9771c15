# Checks shared by messages.bats, receipts.bats and h2d-check.bats, for
# arena-consume and for h2d-check on the GPU.

# A 4-slot pool of 8 MiB items: one 4 KiB header page and four slots.
MAPPING=$((4096 + 4 * 8388608))

# unprivileged COMMAND: run COMMAND (bash) as nobody with an ordinary
# user's 8 MiB RLIMIT_MEMLOCK; skips visibly when that cannot be arranged.
unprivileged() {
  require_nobody
  command -v prlimit > /dev/null || skip "prlimit(1) is not installed"
  run setpriv --reuid=nobody --regid=nogroup --clear-groups prlimit --memlock=8388608 \
    env PATH="$PATH" bash -c "$1"
}

# Mismatches: corrupt one element of an item and check the message.

# One corruption per line: dtype, --size, element index, bytes written
# there (printf escapes, little-endian), and the message's values.  A low
# bit flipped, in each dtype, and in the last element of a ragged item;
# the largest fp16 subnormal's bits (2^-15, not the normal 0x0000).
CORRUPTIONS='fp32 64KiB 1000 \001\000\167\103 expected 247 (0x43770000), found 247.00002 (0x43770001)
fp16 64KiB 1000 \271\133 expected 247 (0x5bb8), found 247.125 (0x5bb9)
fp16 64KiB 1000 \000\002 expected 247 (0x5bb8), found 3.0517578125e-05 (0x0200)
uint8 64KiB 1000 \366 expected 247, found 246
fp32 4100 1024 \001\000\240\101 expected 20 (0x41a00000), found 20.000002 (0x41a00001)
fp16 2002 1000 \271\133 expected 247 (0x5bb8), found 247.125 (0x5bb9)
uint8 1001 1000 \366 expected 247, found 246'

# check_corruptions CONSUMER [PRODUCER-OPTION...]: each corruption of the
# table, in the first item of a two-item run (arena-produce given the
# options: --pin), is reported by CONSUMER with exit 1.
check_corruptions() {
  local consumer=$1 dtype size index bytes values itemsize arena offset
  shift
  while read -r dtype size index bytes values; do
    case $dtype in fp32) itemsize=4 ;; fp16) itemsize=2 ;; *) itemsize=1 ;; esac
    : > "$TMP/rows.csv"   # emptied first: the background redirection truncates it only once it runs
    arena-produce --dtype "$dtype" --size "$size" --items 2 --timeout 60 "$@" > "$TMP/rows.csv" &
    PRODUCER=$!
    for _ in $(seq 200); do
      [ "$(wc -l < "$TMP/rows.csv")" -ge 3 ] && break
      sleep 0.05
    done
    arena=$(column arena < "$TMP/rows.csv" | head -n 1)
    offset=$(column offset < "$TMP/rows.csv" | head -n 1)
    printf "$bytes" | dd of="/dev/shm$arena" bs=1 seek=$((offset + itemsize * index)) \
      conv=notrunc status=none
    run bash -c "$consumer 2>&1 > /dev/null" < "$TMP/rows.csv"
    wait "$PRODUCER"
    assert_status 1 || { echo "$dtype $size" >&2; return 1; }
    assert_output "${consumer%% *}: line 2: sequence 0 leaf 0 index $index: $values (1 mismatched element in the item)" \
      || return 1
  done <<< "$CORRUPTIONS"
}

# Padding: the zero bytes between the leaves of a nested item.  One case
# per line: backend, dtype, --size, the row of the item, byte offsets in
# the item set to 255, the receipt's mismatches, and the message after
# "line N: sequence S ".  Nested uint8 of 101 bytes has leaves at 0 (50
# bytes), 64 (51) and 128 (3): padding 50-63 and 115-127; fp16 of 101
# bytes at 0, 64 and 128 (50, 50, 6 bytes): padding 50-63 and 114-127;
# fp32 of 4100 bytes at 0, 2048 and 4160 (2048, 2052, 12): padding
# 4100-4159.  Byte 70 is leaf 1's element 6: (6 + 29) % 251 = 35.
PADDING_CORRUPTIONS='pool uint8 101 2 60 1 padding byte 60: expected 0, found 255 (1 nonzero padding byte in the item)
ring uint8 101 3 50 1 padding byte 50: expected 0, found 255 (1 nonzero padding byte in the item)
pool fp16 101 3 127 1 padding byte 127: expected 0, found 255 (1 nonzero padding byte in the item)
ring fp32 4100 2 4159,4100 2 padding byte 4100: expected 0, found 255 (2 nonzero padding bytes in the item)
pool uint8 101 2 115,120,70 3 leaf 1 index 6: expected 35, found 255 (1 mismatched element and 2 nonzero padding bytes in the item)'

# check_padding_corruptions CONSUMER [PRODUCER-OPTION...]: each case of the
# table, in a two-item nested run, is reported by CONSUMER with exit 1, and
# the other item passes.
check_padding_corruptions() {
  local consumer=$1 backend dtype size line bytes count message arena offset byte
  shift
  while read -r backend dtype size line bytes count message; do
    : > "$TMP/rows.csv"   # emptied first: the background redirection truncates it only once it runs
    arena-produce --backend "$backend" --kind nested --dtype "$dtype" --size "$size" \
      --items 2 --timeout 60 "$@" > "$TMP/rows.csv" 3>&- &
    PRODUCER=$!
    wait_rows "$TMP/rows.csv" 3 || return 1
    arena=$(awk -F, -v l="$line" 'NR == l { print $1 }' "$TMP/rows.csv")
    offset=$(awk -F, -v l="$line" 'NR == l { print $4 }' "$TMP/rows.csv")
    for byte in ${bytes//,/ }; do
      printf '\377' | dd of="/dev/shm$arena" bs=1 seek=$((offset + byte)) conv=notrunc status=none
    done
    run bash -c "$consumer > '$TMP/receipts.csv'" < "$TMP/rows.csv"
    wait "$PRODUCER"   # exits 0: every item was released
    assert_status 1 || { echo "case: $backend $dtype $size $line $bytes" >&2; return 1; }
    assert_output "${consumer%% *}: line $line: sequence $((line - 2)) $message" || return 1
    # The receipts count the bad bytes of the corrupted item only.
    run column mismatches < "$TMP/receipts.csv"
    assert_status 0
    if [ "$line" = 2 ]; then assert_output "$count
0"; else assert_output "0
$count"; fi || return 1
  done <<< "$PADDING_CORRUPTIONS"
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
    : > "$TMP/rows.csv"   # emptied first: the background redirection truncates it only once it runs
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
