#!/usr/bin/env bats
# Messages and refusals every command shares: closed standard descriptors,
# names quoted when they hold newlines or escape bytes, directories given
# as input, system refusals, exact mismatch values.

load test-helper
load corruptions

setup() {
  common_setup
}

teardown() {
  assert_no_arena_left
  common_teardown
}

# ------------------------------------------------ descriptors 0, 1 and 2

@test "a consumer with stdout closed: exit 74, a write error, nothing written into an arena" {
  run bash -c 'arena-produce --size 4K --items 2000 --timeout 5 2> /dev/null | arena-consume >&-'
  assert_status 74
  assert_output "arena-consume: write error: Bad file descriptor"
}

@test "a producer with stdout closed: exit 74, its rows are not written into its own arena" {
  run bash -c 'arena-produce --size 4K --items 20 >&-'
  assert_status 74
  assert_output "arena-produce: write error: Bad file descriptor"
}

@test "a consumer with stderr closed still writes its receipts, and exits 0" {
  run bash -c 'arena-produce --size 4K --items 20 | arena-consume --report run 2>&- | cut -d, -f1,9'
  assert_status 0
  assert_output "arm,items
pool-pageable,20"
}

# ------------------------------------------- mismatches, printed exactly

@test "arena-consume prints a mismatch's values exactly: a flipped low bit, each dtype, a ragged tail" {
  check_corruptions arena-consume
}
