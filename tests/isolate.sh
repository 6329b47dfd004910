#!/bin/sh
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

# tests/isolate.sh COMMAND...: runs COMMAND (the system suite) in a network
# and mount namespace of its own, with a private /run/netns and loopback
# up.  Two suites on one machine (two checkouts, or Open vSwitch's own
# suite beside ours) then cannot see, reuse or delete each other's
# namespaces (at_ns0, ovswg-h1, ...), devices (br0, tap ports) or UDP
# ports, and nothing a test leaves behind reaches the machine's own
# namespaces.
#
# /sys is mounted anew inside, so that /sys/class/net shows the suite's
# own devices.  The machine's namespaces stay reachable for the one test
# that needs Debian's mirror (the package test: a fresh root, apt-get
# inside), through the process OVSWG_OUTER_PID: "tests/isolate.sh --outer
# COMMAND..." runs COMMAND in that process's network and mount namespaces
# (and its root directory, so a suite run in a chroot stays in it).
#
# Not root, no unshare(1), or OVSWG_ISOLATE=0: COMMAND runs as it is, and
# the reason is printed (the suites then skip what needs root themselves).

if [ "${1:-}" = --outer ]; then
    shift
    [ -n "${OVSWG_OUTER_PID:-}" ] || exec "$@"
    exec nsenter -t "$OVSWG_OUTER_PID" -n -m -r -w \
        sh -c 'cd "$0" && exec "$@"' "$PWD" "$@"
fi
if [ "${OVSWG_ISOLATE:-1}" = 0 ]; then
    echo "isolate.sh: OVSWG_ISOLATE=0: the suite runs in this machine's namespaces" >&2
    exec "$@"
fi
if [ "$(id -u)" != 0 ]; then
    echo "isolate.sh: not root: the suite runs in this machine's namespaces" >&2
    exec "$@"
fi
for tool in unshare nsenter mount ip; do
    command -v $tool >/dev/null && continue
    echo "isolate.sh: no $tool (util-linux, mount, iproute2): cannot give the suite namespaces of its own" >&2
    exit 1
done
if [ -n "${OVSWG_ISOLATED:-}" ]; then
    exec "$@"                   # already inside (a nested make)
fi

# A process that stays in the machine's namespaces for the suite's life:
# its /proc entry is how the package test reaches the mirror.
sleep 2147483647 &
holder=$!
trap 'kill $holder 2>/dev/null' EXIT INT TERM
OVSWG_OUTER_PID=$holder
OVSWG_ISOLATED=1
export OVSWG_OUTER_PID OVSWG_ISOLATED

unshare --net --mount --propagation private -- sh -c '
    set -e
    mkdir -p /run/netns
    mount -t tmpfs -o mode=0755 ovswg-suite-netns /run/netns
    mount -t sysfs ovswg-suite-sys /sys
    ip link set lo up
    exec "$@"' isolate.sh "$@"
rc=$?
kill $holder 2>/dev/null
exit $rc
