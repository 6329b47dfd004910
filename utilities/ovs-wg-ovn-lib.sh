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

# Shell library (bash) for an OVN topology whose Geneve tunnels ride on our
# WireGuard port (tests/system-ovn.at, utilities/ovs-wg-bench).  Source it
# after utilities/ovs-wg-lib.sh (it uses wgt_on, wgt_env, wgt_keys,
# wgt_vswitchd_start and wgt_stop).  Needs root and Debian's ovn-central,
# ovn-host and python3-openvswitch.
#
#   central: ovsdb-servers for the Northbound and Southbound databases and
#     ovn-northd in the caller's namespace, reached through Unix sockets
#     $WGT_DIR/nb.sock and $WGT_DIR/sb.sock (their pid files in $WGT_DIR,
#     which wgt_stop kills);
#   underlay: namespace PREFIX-ul with Linux bridge "ulbr"; chassis N has
#     interface "ul" on it with 192.168.150.N/24 and fd00:150::N/64;
#   chassis N: namespace PREFIX-hN, its own ovsdb-server and our
#     ovs-vswitchd, br-phy (netdev) holding the encap IP 172.31.0.N/24 and
#     wireguard port ${WGT_PREFIX}wN (UDP 51820 on the underlay, inner MTU
#     WGO_WG_MTU), br-int (netdev, made by ovn-controller), ovn-controller
#     (system-id chN) and ovs-monitor-wireguard (with WGO_PLAIN set:
#     br-phy holds the underlay interface instead, no encryption, no agent);
#   guest N: namespace PREFIX-gN on br-int (logical port lspN of logical
#     switch ls0): MAC 0a:00:00:00:00:NN, 10.0.0.N/24, fd00:db8::N/64, MTU
#     WGO_GUEST_MTU.
#
# With WGO_PKI set (a directory that wgo_pki filled), the Southbound
# database is also served over TLS with RBAC (role ovn-controller) on
# 192.168.150.254:6642 from the underlay namespace, and every chassis'
# ovn-controller and agent connect there with the chassis' own
# certificate (CN = chassis name); call wgo_underlay_up before
# wgo_central_up then.
#
# With WGO_IPV6 set, the encap IPs are fd00:31::N/64 and the WireGuard
# endpoints the underlay's fd00:150::N (set WGO_WG_MTU=1420 and
# WGO_GUEST_MTU=1342 then: 1500 - 80, and 1420 - 78 for Geneve over IPv6).
#
# The MTU rule: underlay 1500 - WireGuard over IPv4 (60) = 1440 for the
# port; 1440 - Geneve as OVN sends it (58) = 1382 for the guests.

: "${WGO_WG_MTU:=1440}"
: "${WGO_GUEST_MTU:=1382}"
: "${WGO_AGENT:=${WG_SRCDIR:-$(dirname "${BASH_SOURCE[0]}")/..}/utilities/ovs-monitor-wireguard}"

# wgo_nbctl ARG...: ovn-nbctl on the topology's Northbound database.
wgo_nbctl() {
    ovn-nbctl --db=unix:"$WGT_DIR/nb.sock" "$@"
}

# wgo_sbctl ARG...: ovn-sbctl on the Southbound database.
wgo_sbctl() {
    ovn-sbctl --db=unix:"$WGT_DIR/sb.sock" "$@"
}

# wgo_db_start DB: the ovsdb-server of database DB (nb or sb), made on
# first use.  With WGO_PKI, the Southbound one runs in the underlay
# namespace and serves the remotes of its Connection rows too, with TLS.
wgo_db_start() {
    local d=$WGT_DIR db=$1 ns=
    local tls=()
    mkdir -p "$d"
    if [ ! -f "$d/$db.db" ]; then
        wgt_on 0 ovsdb-tool create "$d/$db.db" \
            /usr/share/ovn/ovn-$db.ovsschema || return 1
    fi
    if [ $db = sb ] && [ -n "${WGO_PKI:-}" ]; then
        ns="ip netns exec $WGT_PREFIX-ul"
        tls=(--remote=db:OVN_Southbound,SB_Global,connections
             --private-key="$WGO_PKI/sb-privkey.pem"
             --certificate="$WGO_PKI/sb-cert.pem"
             --ca-cert="$WGO_PKI/switchca/cacert.pem")
    fi
    $ns env $(wgt_env 0) PATH="$(wgt_ovs_path):$PATH" \
        ovsdb-server --detach --no-chdir --pidfile="$d/ovsdb-$db.pid" \
        --log-file="$d/ovsdb-$db.log" --unixctl="$d/ovsdb-$db.ctl" \
        --remote=punix:"$d/$db.sock" "${tls[@]}" "$d/$db.db" 2>/dev/null
}

# wgo_pki DIR N...: a PKI in DIR (ovs-pki): the Southbound server's
# certificate (sb-*.pem, controller CA) and one per chassis N (chN-*.pem,
# switch CA, CN = chN).
wgo_pki() {
    local dir=$1 n; shift
    ovs-pki --dir="$dir" -l "$dir.log" init >/dev/null || return 1
    (cd "$dir" && ovs-pki --dir="$dir" -l "$dir.log" -u req+sign sb \
         controller >/dev/null) || return 1
    for n in "$@"; do
        (cd "$dir" && ovs-pki --dir="$dir" -l "$dir.log" -u req+sign ch$n \
             switch >/dev/null) || return 1
    done
}

# wgo_tls N: the TLS options of chassis N's clients (empty without
# WGO_PKI).
wgo_tls() {
    [ -n "${WGO_PKI:-}" ] || return 0
    echo --private-key="$WGO_PKI/ch$1-privkey.pem" \
         --certificate="$WGO_PKI/ch$1-cert.pem" \
         --ca-cert="$WGO_PKI/controllerca/cacert.pem"
}

# wgo_sb_remote: the Southbound database as the chassis reach it.
wgo_sb_remote() {
    if [ -n "${WGO_PKI:-}" ]; then
        echo ssl:192.168.150.254:6642
    else
        echo unix:"$WGT_DIR/sb.sock"
    fi
}

# wgo_db_stop DB: stops the ovsdb-server of database DB (nb or sb).
wgo_db_stop() {
    wgt_kill_wait "$WGT_DIR/ovsdb-$1.pid"
}

# wgo_central_up: the Northbound and Southbound databases and ovn-northd.
wgo_central_up() {
    local d=$WGT_DIR db
    for db in nb sb; do
        wgo_db_start $db || return 1
    done
    ovn-northd --detach --no-chdir --pidfile="$d/ovn-northd.pid" \
        --log-file="$d/ovn-northd.log" --unixctl="$d/ovn-northd.ctl" \
        --ovnnb-db=unix:"$d/nb.sock" --ovnsb-db=unix:"$d/sb.sock" \
        2>/dev/null || return 1
    wgo_nbctl --wait=sb ls-add ls0 || return 1
    if [ -n "${WGO_PKI:-}" ]; then
        ip -n $WGT_PREFIX-ul addr add 192.168.150.254/24 dev ulbr
        wgo_sbctl set-connection role=ovn-controller \
            pssl:6642:192.168.150.254
    fi
}

# wgo_underlay_up: the underlay namespace and its bridge.
wgo_underlay_up() {
    local ns=$WGT_PREFIX-ul
    ip netns add $ns || return 1
    ip -n $ns link set lo up
    ip -n $ns link add ulbr type bridge
    ip -n $ns link set ulbr up
}

# wgo_encap_ip N: chassis N's encap IP.
wgo_encap_ip() {
    if [ -n "${WGO_IPV6:-}" ]; then
        echo fd00:31::$1
    else
        echo 172.31.0.$1
    fi
}

# wgo_endpoint N: chassis N's WireGuard endpoint on the underlay.
wgo_endpoint() {
    if [ -n "${WGO_IPV6:-}" ]; then
        echo "[fd00:150::$1]:51820"
    else
        echo 192.168.150.$1:51820
    fi
}

# wgo_chassis_up N [OTHER_CONFIG...]: chassis N with everything it runs
# (but its agent with WGO_NO_AGENT set).
# OTHER_CONFIG are key=value pairs for Open_vSwitch other_config.
wgo_chassis_up() {
    local n=$1 d=$WGT_DIR/h$1 ns=$WGT_PREFIX-h$1 kv; shift
    mkdir -p "$d"
    ip netns add $ns || return 1
    ip -n $ns link set lo up
    ip link add ul netns $ns type veth peer name ul$n netns $WGT_PREFIX-ul
    ip -n $WGT_PREFIX-ul link set ul$n master ulbr up
    ip -n $ns addr add 192.168.150.$n/24 dev ul
    ip -n $ns addr add fd00:150::$n/64 dev ul nodad
    ip -n $ns link set ul up

    wgt_on $n ovsdb-tool create "$d/conf.db" \
        "$OVS_BUILDDIR/../src/vswitchd/vswitch.ovsschema" || return 1
    wgt_on $n ovsdb-server --detach --no-chdir --pidfile --log-file \
        --remote=punix:"$d/db.sock" "$d/conf.db" 2>/dev/null || return 1
    wgt_on $n ovs-vsctl --no-wait init
    for kv in "$@"; do
        wgt_on $n ovs-vsctl --no-wait set Open_vSwitch . "other_config:$kv"
    done
    wgt_on $n ovs-vsctl --no-wait set Open_vSwitch . \
        external_ids:system-id=ch$n \
        external_ids:ovn-remote="$(wgo_sb_remote)" \
        external_ids:ovn-encap-type=geneve \
        external_ids:ovn-encap-ip=$(wgo_encap_ip $n) \
        external_ids:ovn-bridge-datapath-type=netdev \
        external_ids:wireguard-endpoint=$(wgo_endpoint $n)
    wgt_vswitchd_start $n || return 1
    if [ -n "${WGO_PLAIN:-}" ]; then
        wgo_phy_plain $n || return 1
    else
        wgo_phy_wireguard $n || return 1
    fi
    if [ -n "${WGO_IPV6:-}" ]; then
        ip -n $ns addr add $(wgo_encap_ip $n)/64 dev br-phy nodad
    else
        ip -n $ns addr add $(wgo_encap_ip $n)/24 dev br-phy
    fi
    ip -n $ns link set br-phy up
    wgo_controller_start $n || return 1
    [ -n "${WGO_PLAIN:-}${WGO_NO_AGENT:-}" ] || wgo_agent_start $n
}

# wgo_phy_wireguard N: chassis N's br-phy with its wireguard port.
wgo_phy_wireguard() {
    local n=$1 d=$WGT_DIR/h$1
    wgt_keys $n
    wgt_on $n ovs-vsctl add-br br-phy -- set bridge br-phy \
        datapath_type=netdev \
        -- add-port br-phy ${WGT_PREFIX}w$n -- set interface ${WGT_PREFIX}w$n \
        type=wireguard options:private_key_file="$d/wg.key" \
        options:listen_port=51820 mtu_request=$WGO_WG_MTU
}

# wgo_phy_plain N: chassis N's br-phy without encryption (WGO_PLAIN set):
# the underlay interface is its port, and Geneve goes on the underlay as
# it is (the baseline of utilities/ovs-wg-bench's ovn-plain).
wgo_phy_plain() {
    local n=$1
    ip -n $WGT_PREFIX-h$n addr flush dev ul
    wgt_on $n ovs-vsctl add-br br-phy -- set bridge br-phy \
        datapath_type=netdev -- add-port br-phy ul
}

# wgo_controller_start N: ovn-controller of chassis N.
wgo_controller_start() {
    local d=$WGT_DIR/h$1
    ip netns exec $WGT_PREFIX-h$1 env $(wgt_env $1) OVN_RUNDIR="$d" \
        OVN_LOGDIR="$d" ovn-controller --detach --no-chdir --pidfile \
        --log-file $(wgo_tls $1) unix:"$d/db.sock" 2>/dev/null
}

# wgo_controller_stop N: stops ovn-controller of chassis N (its Chassis
# row stays, as after a crash).
wgo_controller_stop() {
    wgt_kill_wait "$WGT_DIR/h$1/ovn-controller.pid"
}

# wgo_agent_start N: ovs-monitor-wireguard of chassis N, on Debian's
# python3-openvswitch as installed (not the Python tree of the Open vSwitch
# build that the test suite's PYTHONPATH names).
# Chassis listed in WGO_AGENT_SSL_TABLE give it no TLS option: it takes the
# files of their local OVSDB's SSL table (ovs-vsctl set-ssl), as
# ovn-controller can.
wgo_agent_start() {
    local tls
    tls=$(wgo_tls $1)
    case " ${WGO_AGENT_SSL_TABLE:-} " in
        *" $1 "*)
            [ -z "$tls" ] || wgt_on $1 ovs-vsctl set-ssl \
                "$WGO_PKI/ch$1-privkey.pem" "$WGO_PKI/ch$1-cert.pem" \
                "$WGO_PKI/controllerca/cacert.pem" || return 1
            tls= ;;
    esac
    ip netns exec $WGT_PREFIX-h$1 env -u PYTHONPATH $(wgt_env $1) \
        "$WGO_AGENT" \
        --detach --no-chdir --pidfile --log-file $tls \
        --unixctl="$WGT_DIR/h$1/ovs-monitor-wireguard.ctl" 2>/dev/null
}

# wgo_agent N ARG...: ovs-appctl to chassis N's agent.
wgo_agent() {
    local n=$1; shift
    wgt_on $n ovs-appctl -t "$WGT_DIR/h$n/ovs-monitor-wireguard.ctl" "$@"
}

# wgo_guest N: guest N on chassis N's br-int, bound to logical port lspN.
# With WGO_GUEST_NO_OFFLOAD non-empty, the guest's checksum offload, TSO
# and GSO are off (what a veth guest needs with userspace-tso off, see
# wgt_guest_no_offload).
wgo_guest() {
    local n=$1 g=$WGT_PREFIX-g$1 hns=$WGT_PREFIX-h$1 mac
    mac=$(printf '0a:00:00:00:00:%02x' $n)
    wgo_nbctl lsp-add ls0 lsp$n -- lsp-set-addresses lsp$n \
        "$mac 10.0.0.$n fd00:db8::$n" || return 1
    ip netns add $g || return 1
    ip -n $g link set lo up
    ip link add vg$n netns $hns type veth peer name eth0 netns $g
    ip -n $hns link set vg$n up
    ip -n $g link set eth0 address $mac mtu $WGO_GUEST_MTU up
    ip -n $g addr add 10.0.0.$n/24 dev eth0
    ip -n $g addr add fd00:db8::$n/64 dev eth0 nodad
    if [ -n "${WGO_GUEST_NO_OFFLOAD:-}" ]; then
        ip netns exec $g ethtool -K eth0 tx off tso off gso off >/dev/null
    fi
    wgt_on $n ovs-vsctl --may-exist add-br br-int -- set bridge br-int \
        datapath_type=netdev fail-mode=secure \
        -- add-port br-int vg$n -- set interface vg$n \
        external_ids:iface-id=lsp$n
}

# wgo_peers N: the public keys of chassis N's wireguard port's peers, one a
# line, sorted (through its UAPI socket).
wgo_peers() {
    wg show ${WGT_PREFIX}w$1 peers | sort
}

# wgo_keys_of N...: the public keys of chassis N..., one a line, sorted.
wgo_keys_of() {
    local n
    for n in "$@"; do
        wgo_pub $n
    done | sort
}

# wgo_stop_chassis N: stops every daemon of chassis N (as a host that goes
# away) and removes its namespaces.
wgo_stop_chassis() {
    local f
    for f in "$WGT_DIR"/h$1/*.pid; do
        [ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null
    done
    sleep 0.2
    ip netns del $WGT_PREFIX-g$1 2>/dev/null
    ip netns del $WGT_PREFIX-h$1
}

# wgo_pub N: chassis N's current public key.
wgo_pub() {
    wg pubkey < "$WGT_DIR/h$1/wg.key"
}

# wgo_now: seconds since the epoch, with fractions.
wgo_now() {
    date +%s.%N
}

# wgo_since T0: seconds elapsed since wgo_now printed T0, two decimals.
wgo_since() {
    awk -v t0="$1" -v t1="$(wgo_now)" 'BEGIN { printf "%.2f\n", t1 - t0 }'
}

# wgo_reach FROM TO... [TIMEOUT]: waits until guest FROM gets an echo reply
# from each guest TO (IPv4) within TIMEOUT seconds (default 30) overall.
wgo_reach() {
    local from=$1 to deadline; shift
    deadline=$(( $(date +%s) + ${WGO_REACH_TIMEOUT:-30} ))
    for to in "$@"; do
        until ip netns exec $WGT_PREFIX-g$from ping -q -c 1 -W 0.3 \
                10.0.0.$to >/dev/null 2>&1; do
            [ $(date +%s) -lt $deadline ] || {
                echo "guest $from cannot reach guest $to" >&2; return 1; }
        done
    done
}

# wgo_capture_start NAME [FILTER...]: captures the underlay bridge (every
# chassis' traffic) into $WGT_DIR/NAME.pcap, as wgt_capture_start does
# (wgt_capture_stop and wgt_capture_count take NAME).
wgo_capture_start() {
    local name=$1
    shift
    wgt_capture_ns $WGT_PREFIX-ul ulbr "$name" "$@"
}
