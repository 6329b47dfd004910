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

# Shell library (bash): QEMU virtual machines as guests of the two-host
# topology of ovs-wg-lib.sh (source that first).  Needs root.
#
#   A VM NAME on host N has a TAP device vmNAME, created in host N's
#   namespace with vnet_hdr and added to br0 as an ordinary (system) port;
#   QEMU runs in host N's namespace with a virtio-net device on that TAP
#   (QEMU's own virtio-net, vhost=off, offloads on), the guest image of
#   utilities/ovs-wg-vm-image, its console logged to $WGT_DIR/vm-NAME/
#   console.log and its command agent on $WGT_DIR/vm-NAME/agent.sock.
#   wgt_stop kills every VM (their pid files are $WGT_DIR/vm-NAME.pid) and
#   deleting the host namespace deletes the TAP.
#
# Accelerator: KVM is probed once per boot of the machine (a guest must
# reach its init within a few seconds) and TCG is used when it fails; the
# result is cached in $OVSWG_CACHE/vm/accel.*.  OVSWG_VM_ACCEL=kvm|tcg
# skips the probe.

WGT_VM_LIBDIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
: "${OVSWG_CACHE:=${XDG_CACHE_HOME:-$HOME/.cache}/ovs-wireguard}"
: "${WGT_VM_MEM:=256}"
WGT_VM_KCMDLINE="console=ttyS0 panic=-1 quiet mitigations=off tsc=reliable
    no_timer_check audit=0 i8042.noaux i8042.nokbd i8042.nopnp"

# wgt_vm_image: sets WGT_VM_IMAGE to the guest image directory (built on
# first use, see utilities/ovs-wg-vm-image).
wgt_vm_image() {
    [ -n "${WGT_VM_IMAGE:-}" ] && return 0
    WGT_VM_IMAGE=$(OVSWG_CACHE=$OVSWG_CACHE \
                   "$WGT_VM_LIBDIR/ovs-wg-vm-image" | tail -1) || return 1
    [ -f "$WGT_VM_IMAGE/initrd.img" ]
}

# wgt_vm_qemu_args ACCEL DIR APPEND: the machine part of a QEMU command
# line; the console goes to DIR/console.log.
wgt_vm_qemu_args() {
    local accel=$1 dir=$2 append=$3 cpu=max
    [ $accel = kvm ] && cpu=host,-arch-capabilities
    echo -machine q35,accel=$accel -cpu $cpu -m $WGT_VM_MEM -smp 1 \
         -nodefaults -no-user-config -display none -no-reboot \
         -kernel "$WGT_VM_IMAGE/vmlinuz" -initrd "$WGT_VM_IMAGE/initrd.img" \
         -chardev file,id=con,path="$dir/console.log" -serial chardev:con \
         -append "\"$(echo $WGT_VM_KCMDLINE) $append\""
}

# wgt_vm_wait_console FILE PATTERN SECONDS: waits until FILE has a line
# matching PATTERN.
wgt_vm_wait_console() {
    local i
    for i in $(seq $(($3 * 10))); do
        grep -qs "$2" "$1" && return 0
        sleep 0.1
    done
    return 1
}

# wgt_vm_probe_kvm: succeeds if a KVM guest reaches its init in 15 s.
wgt_vm_probe_kvm() {
    local dir pid ok=1
    [ -w /dev/kvm ] || return 1
    dir=$(mktemp -d)
    eval qemu-system-x86_64 $(wgt_vm_qemu_args kvm "$dir" "") \
        -pidfile "$dir/pid" -daemonize 2> "$dir/err" || { rm -rf "$dir"; return 1; }
    wgt_vm_wait_console "$dir/console.log" 'wgvm: init' 15 && ok=0
    pid=$(cat "$dir/pid" 2>/dev/null) && kill $pid 2>/dev/null
    rm -rf "$dir"
    return $ok
}

# wgt_vm_accel: sets WGT_VM_ACCEL to kvm or tcg and says which.
wgt_vm_accel() {
    local f
    wgt_vm_image || return 1
    if [ -z "${OVSWG_VM_ACCEL:-}" ]; then
        f=$OVSWG_CACHE/vm/accel.$(cat /proc/sys/kernel/random/boot_id)
        if [ ! -s "$f" ]; then
            mkdir -p "${f%/*}"
            if wgt_vm_probe_kvm; then echo kvm > "$f"; else echo tcg > "$f"; fi
        fi
        OVSWG_VM_ACCEL=$(cat "$f")
    fi
    WGT_VM_ACCEL=$OVSWG_VM_ACCEL
    echo "VM accelerator: $WGT_VM_ACCEL"
}

# wgt_vm_features KIND: virtio-net device offload properties.  "tso": the
# guest sends and receives TSO super-packets with partial checksums (what
# QEMU offers on a vnet_hdr TAP); "rx-notso": it still sends them but
# takes only MTU-sized packets; "notso": no offload either way.
wgt_vm_features() {
    local rx="guest_csum=on,guest_tso4=on,guest_tso6=on"
    local tx="csum=on,host_tso4=on,host_tso6=on"
    case $1 in
        tso) echo "$tx,$rx" ;;
        rx-notso) echo "$tx,guest_tso4=off,guest_tso6=off,guest_ecn=off,guest_ufo=off" ;;
        notso) echo "csum=off,gso=off,host_tso4=off,host_tso6=off,host_ecn=off,host_ufo=off,guest_csum=off,guest_tso4=off,guest_tso6=off,guest_ecn=off,guest_ufo=off" ;;
        *) echo "wgt_vm_features: unknown kind $1" >&2; return 1 ;;
    esac
}

# wgt_vm_disks DIR MBYTES: the two disks of a VM that takes part in
# wgt_vm_xfer: DIR/src.img, MBYTES of random data (the guest's /dev/vda,
# read-only), and DIR/dst.img, as large and all zeros (its /dev/vdb).
wgt_vm_disks() {
    head -c $(($2 * 1048576)) /dev/urandom > "$1/src.img"
    truncate -s $(($2 * 1048576)) "$1/dst.img"
}

# wgt_tap_offload NS TAP: turns on checksum offload and TSO of persistent
# TAP device TAP in namespace NS, as QEMU does (TUNSETOFFLOAD) once its
# guest's virtio-net driver asks for them.  Open vSwitch 3.3 and later read
# a system port's offloads once, when the port is added: a TAP added before
# its VM runs would stay a port without TSO, and OVS would segment every
# super-packet for it.  QEMU sets what its guest takes afterwards.
wgt_tap_offload() {
    ip netns exec $1 python3 -c '
import fcntl, os, struct, sys
TUNSETIFF, TUNSETOFFLOAD = 0x400454ca, 0x400454d0
IFF_TAP, IFF_NO_PI, IFF_VNET_HDR = 0x0002, 0x1000, 0x4000
TUN_F_CSUM, TUN_F_TSO4, TUN_F_TSO6 = 0x01, 0x02, 0x04
fd = os.open("/dev/net/tun", os.O_RDWR)
fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH", sys.argv[1].encode(),
                                       IFF_TAP | IFF_NO_PI | IFF_VNET_HDR))
fcntl.ioctl(fd, TUNSETOFFLOAD, TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6)
os.close(fd)' "$2"
}

# wgt_vm_tap N NAME MTU: VM NAME's network backend on host N: TAP vmNAME
# (vnet_hdr) in host N's namespace, a port of its br0 (of bridge
# $WGT_VM_BRIDGE if set, with interface settings $WGT_VM_IFACE_ARGS, such
# as OVN's external_ids:iface-id=PORT).  Prints QEMU's -netdev option.
wgt_vm_tap() {
    local n=$1 tap=vm$2 hns=$WGT_PREFIX-h$1
    ip -n $hns tuntap add dev $tap mode tap vnet_hdr || return 1
    ip -n $hns link set $tap mtu $3 up
    wgt_tap_offload $hns $tap || return 1
    wgt_on $n ovs-vsctl add-port ${WGT_VM_BRIDGE:-br0} $tap \
        ${WGT_VM_IFACE_ARGS:+-- set interface $tap $WGT_VM_IFACE_ARGS} \
        || return 1
    echo -netdev tap,id=n0,ifname=$tap,script=no,downscript=no,vhost=off,vnet_hdr=on
}

# wgt_vm_underlay N NAME MTU: VM NAME as a host of the underlay rather than
# a guest of the bridge: TAP vmNAME (vnet_hdr) in host N's namespace is an
# interface of host N itself, up with MTU, not a port of br0 (the caller
# gives it addresses).  Prints QEMU's -netdev option.
wgt_vm_underlay() {
    local tap=vm$2 hns=$WGT_PREFIX-h$1
    ip -n $hns tuntap add dev $tap mode tap vnet_hdr || return 1
    ip -n $hns link set $tap mtu $3 up
    echo -netdev tap,id=n0,ifname=$tap,script=no,downscript=no,vhost=off,vnet_hdr=on
}

# wgt_vm_vhost_user N NAME MTU: VM NAME's backend on OVS-DPDK host N: a
# dpdkvhostuserclient port vhuNAME whose socket QEMU serves (OVS
# reconnects when the VM restarts).  Prints QEMU's options: the guest's
# memory must be shared with OVS.
wgt_vm_vhost_user() {
    local n=$1 port=vhu$2 sock=$WGT_DIR/vm-$2/vhu.sock
    wgt_on $n ovs-vsctl --may-exist add-port br0 $port -- set interface $port \
        type=dpdkvhostuserclient options:vhost-server-path="$sock" \
        mtu_request=$3 || return 1
    echo -object memory-backend-memfd,id=mem,size=${WGT_VM_MEM}M,share=on \
         -numa node,memdev=mem \
         -chardev socket,id=vhu,path="$sock",server=on \
         -netdev vhost-user,id=n0,chardev=vhu,vhostforce=on
}

# wgt_vm_mac NAME: the MAC address of VM NAME's virtio-net device.
wgt_vm_mac() {
    echo 52:54:00:$(echo "$WGT_PREFIX $1" | md5sum \
                    | sed 's/^\(..\)\(..\)\(..\).*/\1:\2:\3/')
}

# wgt_vm_start N NAME [KEY=VALUE...]: starts VM NAME on host N and returns
# once QEMU runs (wgt_vm_wait waits for the guest).  Keys: ip (comma-
# separated addresses with prefix), mtu (default 1420, also the TAP's),
# route (comma-separated PREFIX@GATEWAY), offload (ethtool -K settings as
# K:V,...), features (tso, rx-notso or notso; default tso), disk (MBYTES:
# disks for wgt_vm_xfer, see wgt_vm_disks), backend (tap, the default,
# vhost-user on an OVS-DPDK host, or underlay: the VM is on host N's own
# link, see wgt_vm_underlay), modules (module sets the guest loads, e.g.
# wireguard), run (a shell command the guest's init runs once before it
# says it is ready, its output on the console).
wgt_vm_start() {
    local n=$1 name=$2 hns=$WGT_PREFIX-h$1 dir=$WGT_DIR/vm-$2
    local mtu=1420 features=tso append="wgvm.name=$2" kv mac disk=
    local backend=tap net vectors=
    mkdir -p "$dir"
    shift 2
    for kv in "$@"; do
        case $kv in
            mtu=*) mtu=${kv#*=} ;;
            features=*) features=${kv#*=} ;;
            backend=tap) ;;
            backend=underlay) backend=underlay ;;
            backend=vhost-user) backend=vhost_user
                                # QEMU 7.2 under TCG crashes starting
                                # vhost-user with MSI-X.
                                vectors=,vectors=0 ;;
            disk=*) wgt_vm_disks "$dir" ${kv#*=}
                    disk="-drive file=$dir/src.img,format=raw,if=virtio,readonly=on
                          -drive file=$dir/dst.img,format=raw,if=virtio,cache=unsafe" ;;
            ip=*|route=*|offload=*|modules=*) append="$append wgvm.$kv" ;;
            run=*) append="$append wgvm.run=$(printf '%s\n' "${kv#*=}" \
                                                | base64 -w0)" ;;
            *) echo "wgt_vm_start: unknown key $kv" >&2; return 1 ;;
        esac
    done
    wgt_vm_image && wgt_vm_accel > /dev/null || return 1
    features=$(wgt_vm_features $features) || return 1
    mac=$(wgt_vm_mac $name)
    net=$(wgt_vm_$backend $n $name $mtu) || return 1
    # QEMU binds the agent socket by a name relative to 'dir' (its working
    # directory), so that a long $WGT_DIR stays within the 108 bytes of a
    # Unix socket name; ovs-wg-vm-exec connects through the directory.
    (cd "$dir" && eval ip netns exec $hns qemu-system-x86_64 -name $name \
        $(wgt_vm_qemu_args $WGT_VM_ACCEL "$dir" "$append wgvm.mtu=$mtu") \
        -chardev socket,id=agent,path=agent.sock,server=on,wait=off \
        -serial chardev:agent $net \
        -device virtio-net-pci,netdev=n0,mac=$mac,$features$vectors $disk \
        -pidfile "$WGT_DIR/vm-$name.pid" -daemonize 2> "$dir/qemu.err") \
        || { cat "$dir/qemu.err" >&2; return 1; }
}

# wgt_vm_wait NAME [SECONDS]: waits (default 120 s) until VM NAME's init
# says it is ready.
wgt_vm_wait() {
    local log=$WGT_DIR/vm-$1/console.log
    wgt_vm_wait_console "$log" 'wgvm: ready' ${2:-120} && return 0
    echo "wgt_vm_wait: VM $1 not ready; its console:" >&2
    tail -20 "$log" >&2
    return 1
}

# wgt_vm_exec NAME COMMAND...: runs COMMAND in VM NAME (busybox sh) and
# prints its output; its exit status is COMMAND's.  WGT_VM_TIMEOUT
# (seconds, default 120) bounds it.
wgt_vm_exec() {
    local name=$1
    shift
    "$WGT_VM_LIBDIR/ovs-wg-vm-exec" --timeout ${WGT_VM_TIMEOUT:-120} \
        "$WGT_DIR/vm-$name/agent.sock" "$@"
}

# wgt_vm_stop NAME: stops VM NAME (its TAP stays, and so does its port).
wgt_vm_stop() {
    local pidf=$WGT_DIR/vm-$1.pid pid i
    [ -f "$pidf" ] || return 0
    pid=$(cat "$pidf")
    kill $pid 2>/dev/null
    for i in $(seq 50); do
        kill -0 $pid 2>/dev/null || break
        sleep 0.1
    done
    rm -f "$pidf"
}

# wgt_vm_site N NAME PEER_N [KEY=VALUE...]: VM NAME on host N as site N's
# guest (10.N.0.1/24, fd00:N::1/64, MTU 1420, routes to site PEER_N
# through host N's wireguard port); KEY=VALUE as for wgt_vm_start.
wgt_vm_site() {
    local n=$1 name=$2 pn=$3
    shift 3
    wgt_vm_start $n $name ip=10.$n.0.1/24,fd00:$n::1/64 \
        route=10.$pn.0.0/24@10.$n.0.254,fd00:$pn::/64@fd00:$n::fe "$@"
}

# wgt_vm_netdev NAME FIELD: a counter of VM NAME's eth0 as the guest sees
# it (rx_bytes, rx_packets, tx_bytes, tx_packets).
wgt_vm_netdev() {
    wgt_vm_exec $1 cat /sys/class/net/eth0/statistics/$2
}

# wgt_vm_xfer FROM TO ADDRESS: VM FROM sends its source disk over TCP to
# VM TO, which listens on ADDRESS (its own, IPv4 or IPv6) and writes what
# it receives to its target disk (both started with the same disk=MBYTES,
# see utilities/vm/wgvm-xfer).  Prints the bytes sent and the sha256 of
# both disk images, hashed on the host; fails unless they agree.  A target
# disk takes one transfer: it must not hold the data before.
wgt_vm_xfer() {
    local from=$1 to=$2 addr=$3 sent got i
    local src=$WGT_DIR/vm-$1/src.img dst=$WGT_DIR/vm-$2/dst.img
    if cmp -s "$src" "$dst"; then
        echo "wgt_vm_xfer: VM $to's target disk already holds the data" >&2
        return 1
    fi
    wgt_vm_exec $to "rm -f /tmp/xfer.out; wgvm-xfer recv $addr 5001 \
                     > /tmp/xfer.out 2>&1 &" || return 1
    for i in $(seq 50); do
        wgt_vm_exec $to 'netstat -ltn | grep -q ":5001 "' && break
        sleep 0.1
    done
    sent=$(wgt_vm_exec $from "wgvm-xfer send $addr 5001") || return 1
    for i in $(seq 100); do
        got=$(wgt_vm_exec $to 'cat /tmp/xfer.out')
        [ -n "$got" ] && break
        sleep 0.3
    done
    echo "VM $from sent $sent bytes; sha256 of its disk $(sha256sum < "$src" | cut -c1-64)"
    echo "VM $to $got; sha256 of its disk $(sha256sum < "$dst" | cut -c1-64)"
    [ "$got" = received ] && cmp -s "$src" "$dst"
}
