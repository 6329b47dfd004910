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
# project's build).

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
        --remote=punix:"$d/db.sock" "$d/conf.db"
    wgt_on $n ovs-vsctl --no-wait init
    local kv
    for kv in "$@"; do
        wgt_on $n ovs-vsctl --no-wait set Open_vSwitch . "other_config:$kv"
    done
    ip netns exec $ns env $(wgt_env $n) \
        "$WG_BUILDDIR/vswitchd/ovs-vswitchd" --detach --no-chdir --pidfile \
        --log-file -vconsole:off
    wgt_on $n ovs-vsctl add-br br0 -- set bridge br0 datapath_type=netdev
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
    local pid ns
    for pid in "$WGT_DIR"/h*/*.pid "$WGT_DIR"/*.pid; do
        [ -f "$pid" ] && kill "$(cat "$pid")" 2>/dev/null
    done
    sleep 0.2
    for ns in $(ip netns list | awk '{print $1}' | grep "^$WGT_PREFIX-"); do
        ip netns pids $ns 2>/dev/null | xargs -r kill 2>/dev/null
        ip netns del $ns
    done
    rm -rf "$WGT_DIR"
    rm -f /var/run/wireguard/$WGT_PREFIX*.sock
}
