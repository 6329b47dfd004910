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

# Shell library (bash): an OVS-DPDK host in the two-host topology of
# ovs-wg-lib.sh (source that first).  Needs root.
#
#   Host N runs this project built against the DPDK flavor of OVS
#   ($WG_DPDK_BUILDDIR/vswitchd/ovs-vswitchd) with dpdk-init=true, no PCI
#   devices, small socket memory, its own file prefix, the main thread on
#   core 0 and one PMD thread on core 1; the other host may run the plain
#   build.  VMs attach to it through vhost-user (ovs-wg-vm-lib.sh,
#   backend=vhost-user).  wgt_dpdk_memif_join joins two such hosts'
#   bridges by a net_memif pair, the only link between them.
#
# Variables: WG_DPDK_BUILDDIR (this project's DPDK build), WGT_DPDK_MEM
# (MB of hugepage memory for the host, default 256), WGT_DPDK_LCORE_MASK
# (the main thread's cores, default 0x1) and WGT_DPDK_PMD_MASK (the PMD
# threads' cores, default 0x2: one PMD on core 1); WGT_DPDK_VSWITCHD, if
# set, is the daemon to run instead (the DPDK build's test daemon
# tests/hooked/ovs-vswitchd, for a test hook).

: "${WGT_DPDK_MEM:=256}"
: "${WGT_DPDK_LCORE_MASK:=0x1}"
: "${WGT_DPDK_PMD_MASK:=0x2}"

# wgt_dpdk_hugepages MBYTES: makes sure the machine has MBYTES of free 2 MB
# hugepages and hugetlbfs mounted on /dev/hugepages; says what it did.
wgt_dpdk_hugepages() {
    local want=$(($1 / 2)) free total
    free=$(cat /sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages)
    total=$(cat /proc/sys/vm/nr_hugepages)
    if [ $free -lt $want ]; then
        echo $((total + want - free)) > /proc/sys/vm/nr_hugepages
        echo "hugepages: $total -> $(cat /proc/sys/vm/nr_hugepages) of 2 MB"
    fi
    free=$(cat /sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages)
    [ $free -ge $want ] || { echo "only $free free hugepages" >&2; return 1; }
    if ! grep -qs ' /dev/hugepages hugetlbfs ' /proc/mounts; then
        mkdir -p /dev/hugepages
        mount -t hugetlbfs none /dev/hugepages || return 1
        echo "mounted hugetlbfs on /dev/hugepages"
    fi
    echo "hugepages: $free of $(cat /proc/sys/vm/nr_hugepages) free (2 MB)"
}

# wgt_dpdk_host_up N [OTHER_CONFIG...]: starts host N on the DPDK build
# (wgt_host_up with the DPDK settings above) and waits for DPDK and its
# PMD thread.
wgt_dpdk_host_up() {
    local n=$1
    shift
    wgt_dpdk_hugepages $WGT_DPDK_MEM || return 1
    eval WGT_VSWITCHD_H$n='${WGT_DPDK_VSWITCHD:-$WG_DPDK_BUILDDIR/vswitchd/ovs-vswitchd}'
    wgt_host_up $n dpdk-init=true dpdk-socket-mem=$WGT_DPDK_MEM \
        "dpdk-extra=\"--no-pci --file-prefix=$WGT_PREFIX-h$n\"" \
        dpdk-lcore-mask=$WGT_DPDK_LCORE_MASK \
        pmd-cpu-mask=$WGT_DPDK_PMD_MASK "$@" || return 1
    wgt_on $n ovs-vsctl get Open_vSwitch . dpdk_initialized | grep -q true \
        && return 0
    echo "host $n: DPDK is not initialized: $(grep -E '[|](ERR|EMER)[|]' \
        "$WGT_DIR/h$n/ovs-vswitchd.log" | tail -1)" >&2
    return 1
}

# wgt_dpdk_memif_join BRIDGE: joins hosts 1 and 2 (both on OVS-DPDK) by a
# net_memif pair, port m1 of host 1's BRIDGE (the server) and m2 of host
# 2's (the client), whose socket is the file $WGT_DIR/memif.sock; creates
# BRIDGE (datapath_type=netdev) where it is missing and waits until the
# client is up.  Both ports get n_rxq=2: a memif pair connects only when
# each side's transmit rings match the other's receive rings, and OVS gives
# a port one transmit queue per thread that may send (here the main thread
# and one PMD thread).
wgt_dpdk_memif_join() {
    local br=$1 n role i
    for n in 1 2; do
        role=server
        [ $n = 2 ] && role=client
        wgt_on $n ovs-vsctl --may-exist add-br $br -- set bridge $br \
            datapath_type=netdev -- add-port $br m$n -- set interface m$n \
            type=dpdk options:n_rxq=2 \
            "options:dpdk-devargs=net_memif0,role=$role,socket=$WGT_DIR/memif.sock,socket-abstract=no" \
            || return 1
    done
    for i in $(seq 100); do
        [ "$(wgt_on 2 ovs-vsctl get interface m2 link_state)" = up ] \
            && return 0
        sleep 0.1
    done
    echo "wgt_dpdk_memif_join: m2 is not up" >&2
    return 1
}
