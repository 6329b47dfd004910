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

# Scripts: the sandbox helper behind "./quickstart demo" and benchmarks;
# checks of the source tree ("make check-layering", "make
# check-doc-figures").
EXTRA_DIST += \
	utilities/checks/doc-figures \
	utilities/checks/lib-layering \
	utilities/ovs-wg-demo \
	utilities/ovs-wg-mkdeb \
	utilities/ovs-wg-package-test \
	utilities/ovs-wg-bench \
	utilities/ovs-wg-bench-rxq \
	utilities/ovs-wg-bench-txq \
	utilities/ovs-wg-soak \
	utilities/ovs-wg-scale \
	utilities/ovs-wg-lib.sh \
	utilities/ovs-wg-vm-lib.sh \
	utilities/ovs-wg-dpdk-lib.sh \
	utilities/ovs-wg-ovn-lib.sh \
	utilities/ovs-wg-vm-image \
	utilities/ovs-wg-vm-exec \
	utilities/vm/init \
	utilities/vm/wgvm-xfer

# The OVN agent (Documentation/howto/ovn.rst), a daemon of its own like
# OVS's ovs-monitor-ipsec; the Debian package adds its systemd unit.
dist_sbin_SCRIPTS = utilities/ovs-monitor-wireguard
dist_man_MANS = utilities/ovs-monitor-wireguard.8

# intel-ipsec-mb's ways of sealing a message, timed one against another
# (Documentation/topics/performance.rst); standalone, so that it also
# builds by hand in a Debian root of another release.
if HAVE_IPSEC_MB
noinst_PROGRAMS += utilities/ovs-wg-ipsecmb-bench
endif
utilities_ovs_wg_ipsecmb_bench_SOURCES = utilities/ovs-wg-ipsecmb-bench.c
utilities_ovs_wg_ipsecmb_bench_LDADD = $(IPSEC_MB_LIBS)
EXTRA_DIST += utilities/ovs-wg-ipsecmb-bench.c
