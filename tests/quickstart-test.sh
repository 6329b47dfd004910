#!/usr/bin/env bash
# Copyright (c) 2026 The ovs-wireguard authors.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at:
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

# tests/quickstart-test.sh [--dpdk]: what ./quickstart promises about the
# machine it runs on, checked on the machine itself (as root, after
# "./quickstart check" has built everything; .ci/run runs it in its fresh
# Debian 12 root):
#
#   1. skips: the closing summary fails "check" on a skip quickstart could
#      have removed, naming the test, and passes on the host's own skips;
#   2. "./quickstart demo" leaves the machine as it found it: no service
#      link added, no policy-rc.d, the same hugepages, no namespace, UAPI
#      socket or daemon of the demo left;
#   3. the same when the demo is interrupted (SIGINT, as Ctrl-C sends it)
#      while it installs a package;
#   4. "./quickstart demo --keep" leaves the demo running and "demo --stop"
#      ends it;
#   5. with --dpdk, "./quickstart demo --dpdk" (OVS-DPDK, hugepages, a
#      vhost-user VM) gives back the hugepages it reserved.
#
# Prints PASS or FAIL: lines; exits 0 only if every check passed.

set -uo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP" || exit 1
LOG=$(mktemp -d /tmp/quickstart-test.XXXXXX)
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
pass() { echo "PASS: $*"; }

# machine_state: what the demo must leave as it found it.
machine_state() {
    find /etc/systemd/system /etc/rc[0-6S].d -type l 2>/dev/null | sort
    ls -l /usr/sbin/policy-rc.d 2>/dev/null
    echo "hugepages $(cat /proc/sys/vm/nr_hugepages)"
    ip netns list 2>/dev/null | grep '^ovswg-'
    ls /var/run/wireguard/ovswg* /var/run/dpdk/ovswg-* 2>/dev/null
    pgrep -a -f '/tmp/ovswg/' | grep -v pgrep
}

# same_state WHAT BEFORE: the machine's state is BEFORE again after WHAT.
same_state() {
    local after
    after=$(machine_state)
    if [ "$after" = "$2" ]; then
        pass "$1: the machine is as it was"
    else
        fail "$1: the machine changed:"
        diff <(echo "$2") <(echo "$after") | sed 's/^/    /'
    fi
}

# skips: quickstart's skip_summary over planted skip lines.
check_skips() {
    local out rc
    out=$(bash -c 'set -euo pipefail
        eval "$(sed -n "/^TOP=/,/^# Command line/p" ./quickstart)"
        trap - EXIT
        SKIPS=$(mktemp)
        printf "plain, system suite\tvm - ping: skipped (host): no /dev/net/tun\n" >> "$SKIPS"
        printf "DPDK flavor\t(all of it): skipped (host): no 2 MB hugepages\n" >> "$SKIPS"
        [ "$1" = removable ] && printf "plain, system suite\tinterop - handshake: skipped (removable): no wireguard-go\n" >> "$SKIPS"
        skip_summary; rc=$?; rm -f "$SKIPS"; exit $rc' - "$1" 2>&1)
    rc=$?
    echo "$out" | sed 's/^/    /'
    case $1:$rc in
        removable:0) fail "a removable skip passed the summary" ;;
        removable:*) echo "$out" | grep -q 'interop - handshake: skipped (removable)' \
                         && pass "a removable skip fails check, naming the test" \
                         || fail "the failing summary does not name the test" ;;
        host:0) pass "the host's own skips pass, listed with their counts" ;;
        host:*) fail "the host's own skips failed the summary" ;;
    esac
}

# demo_interrupted BEFORE: a demo that must install iperf3 again, sent
# SIGINT (to its whole process group, as a terminal's Ctrl-C) while
# apt-get runs.
demo_interrupted() {
    local pid i rc caught=false
    apt-get remove -y -qq iperf3 libiperf0 >/dev/null 2>&1
    # Job control: the demo in a process group of its own, with SIGINT
    # not ignored (a non-interactive shell ignores it in what it starts
    # in the background).
    set -m
    ./quickstart demo > "$LOG/demo-int.log" 2>&1 &
    pid=$!
    set +m
    for i in $(seq 1 600); do
        if pgrep -f 'apt-get install .*iperf3' >/dev/null; then
            sleep 0.3
            kill -INT -- -"$pid"
            caught=true
            break
        fi
        sleep 0.1
    done
    wait "$pid"
    rc=$?
    echo "    interrupted demo exited with status $rc (log: $LOG/demo-int.log)"
    $caught || fail "the demo's package installation was never seen running"
    [ $rc != 0 ] || fail "the interrupted demo went on to the end"
    dpkg --configure -a >/dev/null 2>&1
    apt-get install -f -y -qq >/dev/null 2>&1
}

[ "$(id -u)" = 0 ] || { echo "SKIP: needs root"; exit 77; }

check_skips removable
check_skips host

before=$(machine_state)
if ./quickstart demo > "$LOG/demo.log" 2>&1; then
    pass "./quickstart demo ran (log: $LOG/demo.log)"
else
    fail "./quickstart demo failed (log: $LOG/demo.log)"
    tail -20 "$LOG/demo.log"
fi
same_state "./quickstart demo" "$before"

demo_interrupted
same_state "./quickstart demo interrupted during apt-get" "$before"

./quickstart demo --keep > "$LOG/demo-keep.log" 2>&1 \
    || fail "./quickstart demo --keep failed (log: $LOG/demo-keep.log)"
if ip netns list | grep -q '^ovswg-h1' \
   && grep -q 'demo --stop' "$LOG/demo-keep.log"; then
    pass "./quickstart demo --keep leaves it running and says how to stop it"
else
    fail "./quickstart demo --keep: no demo running, or no word of --stop"
fi
./quickstart demo --stop > "$LOG/demo-stop.log" 2>&1 || fail "./quickstart demo --stop failed"
same_state "./quickstart demo --keep, then --stop" "$before"

if [ "${1:-}" = --dpdk ]; then
    if ./quickstart demo --dpdk > "$LOG/demo-dpdk.log" 2>&1; then
        pass "./quickstart demo --dpdk ran (log: $LOG/demo-dpdk.log)"
    else
        fail "./quickstart demo --dpdk failed (log: $LOG/demo-dpdk.log)"
        tail -20 "$LOG/demo-dpdk.log"
    fi
    same_state "./quickstart demo --dpdk" "$before"
fi

[ $failures = 0 ] && { echo PASS; exit 0; }
echo "FAIL: $failures checks"
exit 1
