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

# Shell library (bash) for the two-host topology used by the demo, the
# system tests and the benchmark.  Source it; needs root.
#
#   "hosts" are network namespaces PREFIX-hN, each running its own
#   ovsdb-server and our ovs-vswitchd with a datapath_type=netdev bridge br0,
#   joined by a veth underlay (192.168.100.N/24, fd00:100::N/64);
#   "guests" are namespaces PREFIX-gNAME attached to a host's bridge by veth
#   (a "system" port) or by TAP (a "tap" port, vnet_hdr).
#
# Variables the caller sets: WGT_PREFIX (names, default ovswg), WGT_DIR
# (state directory), OVS_BUILDDIR (pinned OVS build), WG_BUILDDIR (this
# project's build), optionally WGT_KEEP_DIR (non-empty: wgt_stop leaves
# WGT_DIR and its logs in place, as the system tests want, but not the VMs'
# disk images).

: "${WGT_PREFIX:=ovswg}"
: "${WGT_DIR:=/tmp/$WGT_PREFIX}"

wgt_ovs_path() {
    echo "$WG_BUILDDIR/vswitchd:$OVS_BUILDDIR/utilities:$OVS_BUILDDIR/ovsdb"
}

# wgt_env N: the environment that points OVS tools at host N.
wgt_env() {
    local d=$WGT_DIR/h$1
    echo "OVS_RUNDIR=$d OVS_DBDIR=$d OVS_LOGDIR=$d OVS_SYSCONFDIR=$d"
}

# wgt_on N CMD...: runs an OVS tool (ovs-vsctl, ovs-appctl...) for host N.
wgt_on() {
    local n=$1; shift
    env $(wgt_env $n) PATH="$(wgt_ovs_path):$PATH" "$@"
}

# wgt_vswitchd N: host N's ovs-vswitchd: $WGT_VSWITCHD_HN if set (host 1
# of a mixed topology may run the DPDK build), else the one host N last
# started (so that a restart from another shell keeps it), else this
# project's build.
wgt_vswitchd() {
    local v=WGT_VSWITCHD_H$1 f=$WGT_DIR/h$1/vswitchd.path
    if [ -n "${!v:-}" ]; then
        echo "${!v}"
    elif [ -s "$f" ]; then
        cat "$f"
    else
        echo "$WG_BUILDDIR/vswitchd/ovs-vswitchd"
    fi
}

# wgt_host_up N [OTHER_CONFIG...]: starts host N.  OTHER_CONFIG are
# key=value pairs for Open_vSwitch other_config (userspace-tso-enable=true).
wgt_host_up() {
    local n=$1 d=$WGT_DIR/h$1 ns=$WGT_PREFIX-h$1; shift
    mkdir -p "$d"
    ip netns add $ns
    ip netns exec $ns ip link set lo up
    wgt_on $n ovsdb-tool create "$d/conf.db" \
        "$OVS_BUILDDIR/../src/vswitchd/vswitch.ovsschema"
    wgt_on $n ovsdb-server --detach --no-chdir --pidfile --log-file \
        --remote=punix:"$d/db.sock" "$d/conf.db" 2>/dev/null
    wgt_on $n ovs-vsctl --no-wait init
    local kv
    for kv in "$@"; do
        wgt_on $n ovs-vsctl --no-wait set Open_vSwitch . "other_config:$kv"
    done
    wgt_vswitchd_start $n
    wgt_on $n ovs-vsctl add-br br0 -- set bridge br0 datapath_type=netdev
}

# wgt_vswitchd_start N: starts host N's ovs-vswitchd (its database is
# already up); returns once the daemon has applied the database.
wgt_vswitchd_start() {
    local bin
    bin=$(wgt_vswitchd $1)
    echo "$bin" > "$WGT_DIR/h$1/vswitchd.path"
    ip netns exec $WGT_PREFIX-h$1 env $(wgt_env $1) \
        "$bin" --detach --no-chdir --pidfile --log-file -vconsole:off \
        2>>"$WGT_DIR/h$1/ovs-vswitchd.stderr"
}

# wgt_kill_wait PIDFILE [SIGNAL]: sends SIGNAL (default TERM) to the
# process of PIDFILE and waits until it is gone.
wgt_kill_wait() {
    local pid
    pid=$(cat "$1") || return 1
    kill -${2:-TERM} $pid || return 1
    while kill -0 $pid 2>/dev/null; do
        sleep 0.05
    done
}

# wgt_vswitchd_kill N: kills host N's ovs-vswitchd with SIGKILL (a crash,
# no cleanup) and waits until it is gone.
wgt_vswitchd_kill() {
    wgt_kill_wait "$WGT_DIR/h$1/ovs-vswitchd.pid" KILL
}

# wgt_underlay N M: a veth cable between hosts N and M.
wgt_underlay() {
    local a=$WGT_PREFIX-h$1 b=$WGT_PREFIX-h$2
    ip link add ul$1$2 netns $a type veth peer name ul$2$1 netns $b
    ip -n $a addr add 192.168.100.$1/24 dev ul$1$2
    ip -n $b addr add 192.168.100.$2/24 dev ul$2$1
    ip -n $a addr add fd00:100::$1/64 dev ul$1$2 nodad
    ip -n $b addr add fd00:100::$2/64 dev ul$2$1 nodad
    ip -n $a link set ul$1$2 up
    ip -n $b link set ul$2$1 up
}

# wgt_guest_ns NAME: creates guest namespace NAME.
wgt_guest_ns() {
    ip netns add $WGT_PREFIX-g$1
    ip netns exec $WGT_PREFIX-g$1 ip link set lo up
}

# wgt_guest_veth N NAME: guest NAME attached to host N by veth; inside the
# guest the interface is eth0.
wgt_guest_veth() {
    local n=$1 g=$2 hns=$WGT_PREFIX-h$1
    wgt_guest_ns $g
    ip link add v$g netns $hns type veth peer name eth0 \
        netns $WGT_PREFIX-g$g
    ip -n $hns link set v$g up
    wgt_on $n ovs-vsctl add-port br0 v$g
}

# wgt_guest_tap N NAME: guest NAME attached to host N by a TAP port.  OVS
# creates the TAP device; then it moves into the guest as eth0.
wgt_guest_tap() {
    local n=$1 g=$2 hns=$WGT_PREFIX-h$1
    wgt_guest_ns $g
    wgt_on $n ovs-vsctl add-port br0 t$g -- set interface t$g type=tap
    local i
    for i in $(seq 50); do
        ip -n $hns link show t$g >/dev/null 2>&1 && break
        sleep 0.1
    done
    ip -n $hns link set t$g netns $WGT_PREFIX-g$g
    ip -n $WGT_PREFIX-g$g link set t$g name eth0
}

# wgt_guest_addr NAME MTU ADDR...: addresses (with prefix) on the guest's
# eth0, which comes up with MTU.
wgt_guest_addr() {
    local g=$WGT_PREFIX-g$1 mtu=$2 a; shift 2
    ip -n $g link set eth0 mtu $mtu up
    for a in "$@"; do
        case $a in
            *:*) ip -n $g addr add $a dev eth0 nodad ;;
            *) ip -n $g addr add $a dev eth0 ;;
        esac
    done
}

# wgt_keys N: private key file $WGT_DIR/hN/wg.key (0600) and public key
# wg.pub for host N.
wgt_keys() {
    local d=$WGT_DIR/h$1
    mkdir -p "$d"
    (umask 077 && wg genkey > "$d/wg.key")
    wg pubkey < "$d/wg.key" > "$d/wg.pub"
}

# wgt_stop: stops every daemon of the topology and removes its namespaces.
wgt_stop() {
    local pid ns pids=
    for pid in "$WGT_DIR"/h*/*.pid "$WGT_DIR"/*.pid; do
        [ -f "$pid" ] && pids="$pids $(cat "$pid")"
    done
    [ -z "$pids" ] || kill $pids 2>/dev/null
    wgt_reap $pids
    for ns in $(ip netns list | awk '{print $1}' | grep "^$WGT_PREFIX-"); do
        pids=$(ip netns pids $ns 2>/dev/null)
        [ -z "$pids" ] || { kill $pids 2>/dev/null; wgt_reap $pids; }
        ip netns del $ns
    done
    if [ -z "${WGT_KEEP_DIR:-}" ]; then
        rm -rf "$WGT_DIR"
    else
        rm -f "$WGT_DIR"/vm-*/*.img     # VM disks: up to 512 MB each
    fi
    rm -f /var/run/wireguard/$WGT_PREFIX*.sock
    rm -rf /var/run/dpdk/$WGT_PREFIX-h*     # DPDK's run files (--file-prefix)
}

# wgt_reap PID...: waits up to 5 s for the processes to exit, then kills
# those left with SIGKILL, saying so: a daemon left behind (an OVS-DPDK one
# keeps its hugepages and its PMD thread polling a core) would slow or
# break whatever runs next on the machine.
wgt_reap() {
    local i pid alive
    for i in $(seq 50); do
        alive=
        for pid in "$@"; do
            kill -0 $pid 2>/dev/null && alive="$alive $pid"
        done
        [ -n "$alive" ] || return 0
        sleep 0.1
    done
    echo "wgt_stop: killing$alive, not gone 5 s after SIGTERM" >&2
    kill -KILL $alive 2>/dev/null
}

# The helpers below are used by the system tests (tests/system-wireguard.at)
# and fit any script built on this topology.  Site N's guests use
# 10.N.0.0/24 and fd00:N::/64; a wireguard port on host N owns 10.N.0.254 and
# fd00:N::fe so that guests can route the other site through it.

# wgt_port N PORT PEER_N ENDPOINT [KEY=VALUE...]: wireguard port PORT on
# host N listening on UDP 51820, with one peer "hPEER_N" (host PEER_N's
# key, allowed IPs: site PEER_N) at ENDPOINT ("IPv4:port", "[IPv6]:port", or
# empty for none).  Each KEY=VALUE becomes options:KEY=VALUE, for example
# udp_gso=false or peer.h2.persistent_keepalive=1.
wgt_port() {
    local n=$1 port=$2 pn=$3 ep=$4 kv
    shift 4
    for kv in "$@"; do
        shift
        set -- "$@" "options:$kv"
    done
    set -- "$@" "options:peer.h$pn.public_key=$(cat "$WGT_DIR/h$pn/wg.pub")" \
        "options:peer.h$pn.allowed_ips=10.$pn.0.0/24,fd00:$pn::/64"
    if [ -n "$ep" ]; then
        set -- "$@" "options:peer.h$pn.endpoint=\"$ep\""
    fi
    wgt_on $n ovs-vsctl add-port br0 $port -- set interface $port \
        type=wireguard options:private_key_file="$WGT_DIR/h$n/wg.key" \
        options:listen_port=51820 \
        options:address=10.$n.0.254/24,fd00:$n::fe/64 "$@"
}

# wgt_guest_routes N NAME PEER_N: guest NAME (on host N) reaches site
# PEER_N through host N's wireguard port.
wgt_guest_routes() {
    local g=$WGT_PREFIX-g$2 n=$1 pn=$3
    ip -n $g route add 10.$pn.0.0/24 via 10.$n.0.254
    ip -n $g -6 route add fd00:$pn::/64 via fd00:$n::fe
}

# wgt_guest_no_offload NAME: turns off checksum offload, TSO and GSO on the
# guest's eth0, as veth guests need with userspace-tso off: OVS 3.1 drops
# their GSO packets ("Too big"), and without vnet_hdr it reads their
# CHECKSUM_PARTIAL packets with an unfinished TCP/UDP checksum that it
# forwards as is, so the far end drops them ("tx off").
wgt_guest_no_offload() {
    ip netns exec $WGT_PREFIX-g$1 ethtool -K eth0 tx off tso off gso off \
        >/dev/null
}

# wgt_site N GUEST KIND PEER_N ENDPOINT [KEY=VALUE...]: one site of a
# two-site tunnel: host N's wireguard port ${WGT_PREFIX}wN (wgt_port with
# ENDPOINT and KEY=VALUE...) and guest GUEST attached by KIND ("tap" or
# "veth"; "veth-nogso" also turns the guest's offloads off), with addresses
# 10.N.0.1/24 and fd00:N::1/64, MTU 1420, and routes to site PEER_N.
wgt_site() {
    local n=$1 g=$2 kind=$3 pn=$4 ep=$5
    shift 5
    wgt_port $n ${WGT_PREFIX}w$n $pn "$ep" "$@" || return 1
    case $kind in
        tap) wgt_guest_tap $n $g ;;
        veth*) wgt_guest_veth $n $g ;;
        *) echo "wgt_site: unknown guest kind $kind" >&2; return 1 ;;
    esac
    wgt_guest_addr $g 1420 10.$n.0.1/24 fd00:$n::1/64
    wgt_guest_routes $n $g $pn
    if [ $kind = veth-nogso ]; then
        wgt_guest_no_offload $g
    fi
}

# wgt_counter N NAME: prints the coverage counter NAME of host N's
# ovs-vswitchd (0 if it was never hit).
wgt_counter() {
    wgt_on $1 ovs-appctl coverage/read-counter $2
}

# wgt_udp_rx_counts N: prints two numbers for host N's IPv4 stack: IP
# packets received (InReceives) and UDP datagrams read by sockets
# (InDatagrams).  A UDP GSO packet from the underlay counts once in the
# first; in the second once when the socket reads it whole with UDP_GRO,
# once per segment otherwise.
wgt_udp_rx_counts() {
    ip netns exec $WGT_PREFIX-h$1 awk '
        $1 == "Ip:" && $2 ~ /^[0-9]/ { ip = $4 }
        $1 == "Udp:" && $2 ~ /^[0-9]/ { udp = $2 }
        END { print ip, udp }' /proc/net/snmp
}

# wgt_capture_start N NAME FILTER...: captures the packets of host N's
# underlay interface that match the pcap FILTER into $WGT_DIR/NAME.pcap,
# in the background (its pid in $WGT_DIR/NAME.pid, which wgt_stop kills);
# returns once tcpdump listens.
wgt_capture_start() {
    local n=$1 name=$2
    shift 2
    wgt_capture_if $n ul$n$((3 - n)) $name "$@"
}

# wgt_capture_if N IFACE NAME [TCPDUMP-OPTION...] FILTER...: the same on
# interface IFACE of host N (options such as "-Q in" go before the filter).
wgt_capture_if() {
    local n=$1
    shift
    wgt_capture_ns $WGT_PREFIX-h$n "$@"
}

# wgt_capture_ns NETNS IFACE NAME [TCPDUMP-OPTION...] FILTER...: the same
# on interface IFACE of network namespace NETNS.
wgt_capture_ns() {
    local ns=$1 iface=$2 name=$3 i
    shift 3
    ip netns exec $ns tcpdump -i $iface -nn -U -s 128 \
        -w "$WGT_DIR/$name.pcap" "$@" > /dev/null 2> "$WGT_DIR/$name.err" &
    echo $! > "$WGT_DIR/$name.pid"
    for i in $(seq 100); do
        grep -q 'listening on' "$WGT_DIR/$name.err" && return 0
        sleep 0.1
    done
    return 1
}

# wgt_capture_stop NAME: stops capture NAME.
wgt_capture_stop() {
    local pid i
    pid=$(cat "$WGT_DIR/$1.pid")
    kill $pid
    for i in $(seq 50); do
        # Gone, or a zombie (it may be the caller's child): written out.
        grep -qs '^State:[[:space:]]*[^Z]' /proc/$pid/status || break
        sleep 0.1
    done
    rm -f "$WGT_DIR/$1.pid"
}

# wgt_capture_count NAME [FILTER...]: prints how many packets of capture
# NAME match FILTER.
wgt_capture_count() {
    local name=$1
    shift
    tcpdump -nn -r "$WGT_DIR/$name.pcap" "$@" 2>/dev/null | wc -l
}

# wgt_daemons_report: says for each host whether its ovs-vswitchd still
# runs (a diagnostic for failed tests: a daemon that died, for example
# under a sanitizer, shows up otherwise only as lost traffic).
wgt_daemons_report() {
    local f
    for f in "$WGT_DIR"/h*/ovs-vswitchd.pid; do
        [ -f "$f" ] || continue
        if kill -0 "$(cat "$f")" 2>/dev/null; then
            echo "$f: ovs-vswitchd is running"
        else
            echo "$f: ovs-vswitchd is NOT running"
        fi
    done
}
