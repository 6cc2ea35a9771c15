#!/usr/bin/env bats
# The machine a run report records (arenabench(7), "Machine columns"), and
# its placement warnings, against a fake sysfs tree: ARENABENCH_TEST_SYSFS
# points the commands at it and ARENABENCH_TEST_PCI names the device a CPU
# consumer pretends to feed (both for tests only), so every warning is
# exercised without a GPU or a second NUMA node.  The pages' nodes come
# from the kernel (move_pages), so the producers bind them to node 0, which
# every Linux host has.

load test-helper   # its setup and teardown: a fresh $TMP, no arena left

DEV=0000:17:00.0

# fake_sysfs SPEED WIDTH NODE [NODE0-CPUS NODE1-CPUS]: a tree in $TMP/sys
# whose device $DEV has a link at SPEED GT/s xWIDTH (maximum 32.0 x16) on
# NUMA node NODE; nodes 0 and 1 (node 0: this host's CPUs by default,
# node 1: CPUs it does not have), performance governors, THP madvise.
fake_sysfs() {
  local s=$TMP/sys c possible
  possible=$(cat /sys/devices/system/cpu/possible)
  mkdir -p "$s/bus/pci/devices/$DEV" "$s/devices/system/node/node0" "$s/devices/system/node/node1" \
    "$s/kernel/mm/transparent_hugepage"
  echo "$1 GT/s PCIe" > "$s/bus/pci/devices/$DEV/current_link_speed"
  echo "32.0 GT/s PCIe" > "$s/bus/pci/devices/$DEV/max_link_speed"
  echo "$2" > "$s/bus/pci/devices/$DEV/current_link_width"
  echo 16 > "$s/bus/pci/devices/$DEV/max_link_width"
  echo "$3" > "$s/bus/pci/devices/$DEV/numa_node"
  echo "${4:-$possible}" > "$s/devices/system/node/node0/cpulist"
  echo "${5:-4000-4001}" > "$s/devices/system/node/node1/cpulist"
  echo 0-1 > "$s/devices/system/node/online"
  for c in $(seq 0 "${possible##*-}"); do
    mkdir -p "$s/devices/system/cpu/cpu$c/cpufreq"
    echo performance > "$s/devices/system/cpu/cpu$c/cpufreq/scaling_governor"
  done
  echo 'always [madvise] never' > "$s/kernel/mm/transparent_hugepage/enabled"
  echo 'always within_size advise [never] deny force' > "$s/kernel/mm/transparent_hugepage/shmem_enabled"
}

# run_report ARGS...: a two-worker run (arenas on node 0) into
# arena-consume --report run with the fake tree and device; the report in
# $TMP/run.csv, the consumer's errors in $TMP/err.
run_report() {
  ARENABENCH_TEST_SYSFS=$TMP/sys ARENABENCH_TEST_PCI=$DEV \
    bash -c "arena-produce --numa-node 0 --size 64K --items 8 --workers 2 --timeout 10 $* \
      | arena-consume --report run > '$TMP/run.csv' 2> '$TMP/err'"
}

# cells COLUMN...: those columns of $TMP/run.csv's row, '|'-separated.
cells() {
  awk -F, -v want="$*" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    { n = split(want, w, " "); for (i = 1; i <= n; i++) printf "%s%s", (i > 1 ? "|" : ""), $c[w[i]]; print "" }' \
    "$TMP/run.csv"
}

@test "the run report records the device's link and node, the nodes of pages and CPUs, THP and governors" {
  fake_sysfs 32.0 16 0
  run_report
  [ ! -s "$TMP/err" ]
  run cells device_pci link link_max device_numa arena_numa producer_numa consumer_numa thp thp_shmem governor
  assert_status 0
  assert_output "$DEV|32.0 GT/s x16|32.0 GT/s x16|0|0|0|0|madvise|never|performance"
  # The CPUs each side ran on, as the kernel last saw them: a list.
  run cells producer_cpus consumer_cpus
  assert_status 0
  [[ $output =~ ^[0-9][0-9\;-]*\|[0-9][0-9\;-]*$ ]]
}

@test "a link below its maximum, pages and producers on another node than the device: three warnings" {
  fake_sysfs 16.0 8 1
  run_report
  run cat "$TMP/err"
  assert_status 0
  [ "${#lines[@]}" -eq 3 ]
  [ "${lines[0]}" = "arena-consume: warning: device $DEV: its PCIe link runs at 16.0 GT/s x8, below its maximum 32.0 GT/s x16 (a link trained at a lower speed or width): every copy is capped by it" ]
  [ "${lines[1]}" = "arena-consume: warning: arena pages on NUMA node 0, device $DEV on node 1: every copy crosses between sockets (arena-produce --numa-node 1 places them)" ]
  [[ ${lines[2]} =~ ^arena-consume:\ warning:\ producers\ ran\ on\ CPUs\ [0-9][0-9\;-]*\ \(NUMA\ node\ 0\),\ device\ $DEV\ on\ node\ 1\ \(arena-produce\ --numa-node\ 1\ runs\ them\ there\)$ ]]
  run cells link link_max device_numa arena_numa producer_numa
  assert_status 0
  assert_output "16.0 GT/s x8|32.0 GT/s x16|1|0|0"
}

@test "a narrower link alone is named; the node of a device the kernel ties to none (-1) judges nothing" {
  fake_sysfs 32.0 8 -1
  run_report
  run cat "$TMP/err"
  assert_status 0
  assert_output "arena-consume: warning: device $DEV: its PCIe link runs at 32.0 GT/s x8, below its maximum 32.0 GT/s x16 (a link trained at a lower speed or width): every copy is capped by it"
  run cells device_numa
  assert_status 0
  assert_output "-1"
}

@test "what sysfs does not say is unknown, never guessed; a CPU consumer without a device leaves its cells empty" {
  mkdir -p "$TMP/sys/devices/system/node/node0"
  run_report 2> "$TMP/perr"
  [ ! -s "$TMP/err" ]
  # A node that lists no CPUs (one of memory only): the workers run anywhere.
  run cat "$TMP/perr"
  assert_status 0
  assert_output "arena-produce: warning: NUMA node 0 lists no CPUs (memory only?): the workers run where the kernel puts them (name CPUs with --cpu-list)"
  run cells device_pci link link_max device_numa producer_numa thp thp_shmem governor
  assert_status 0
  assert_output "$DEV|unknown|unknown|unknown|unknown|unknown|unknown|unknown"
  run bash -c "arena-produce --size 64K --items 4 --timeout 10 | arena-consume --report run > '$TMP/run.csv'"
  assert_status 0
  run cells device_pci link link_max device_numa
  assert_status 0
  assert_output "|||"
}

@test "arena-produce --numa-node: a node the host lacks is a usage error naming its nodes" {
  fake_sysfs 32.0 16 0
  ARENABENCH_TEST_SYSFS=$TMP/sys run arena-produce --numa-node 2 --items 1
  assert_status 64
  assert_output "arena-produce: --numa-node: this host has no NUMA node 2 (its nodes: 0-1)"
  run arena-produce --numa-node 1023 --items 1
  assert_status 64
  [[ $output =~ ^arena-produce:\ --numa-node:\ this\ host\ has\ no\ NUMA\ node\ 1023\ \(its\ nodes:\ [0-9,-]+\)$ ]]
  run arena-produce --numa-node 1024
  assert_status 64
  assert_output "arena-produce: --numa-node: '1024' out of range [0, 1023]"
}

@test "arena-produce --numa-node with a --cpu-list CPU on another node: a warning, and the run goes on" {
  fake_sysfs 32.0 16 0 4000-4001 0-4095
  ARENABENCH_TEST_SYSFS=$TMP/sys run bash -c "arena-produce --numa-node 0 --cpu-list 0 --size 4K --items 2 --timeout 10 2> '$TMP/perr' | arena-consume > /dev/null"
  assert_status 0
  run cat "$TMP/perr"
  assert_status 0
  assert_output "arena-produce: warning: --cpu-list CPU 0 is on NUMA node 1, not on --numa-node 0: its worker fills the arena across sockets"
}

@test "a pinned run reports what page-locking and unlocking cost, per GiB" {
  run bash -c "arena-produce --pin --size 64K --items 8 --timeout 10 | arena-consume --report run > '$TMP/run.csv'"
  assert_status 0
  run cells pinned mlock_ms unpin_ms pin_s_per_gib unpin_s_per_gib
  assert_status 0
  [[ $output =~ ^1\|[0-9]+\.[0-9]{3}\|[0-9]+\.[0-9]{3}\|[0-9]+\.[0-9]{6}\|[0-9]+\.[0-9]{6}$ ]]
  run bash -c "arena-produce --size 64K --items 8 --timeout 10 | arena-consume --report run > '$TMP/run.csv'"
  assert_status 0
  run cells pinned mlock_ms unpin_ms pin_s_per_gib unpin_s_per_gib
  assert_status 0
  assert_output "0||||"
}
