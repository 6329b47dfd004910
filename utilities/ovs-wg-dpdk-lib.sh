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
#   backend=vhost-user).
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
    wgt_on $n ovs-vsctl get Open_vSwitch . dpdk_initialized | grep -q true
}
