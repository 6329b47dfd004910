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
	utilities/ovs-wg-bench.1 \
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
# OVS's ovs-monitor-ipsec, and the manual pages: the port
# (ovs-wireguard(7)) and the agent.
dist_sbin_SCRIPTS = utilities/ovs-monitor-wireguard
dist_man_MANS = \
	Documentation/ovs-wireguard.7 \
	utilities/ovs-monitor-wireguard.8

# The how-tos the manual pages point to, installed as documentation.
dist_doc_DATA = \
	Documentation/howto/install.rst \
	Documentation/howto/ovn.rst \
	Documentation/topics/userspace-wireguard.rst

# The agent's systemd unit, installed into systemd's unit directory when
# pkg-config knows systemd (or into systemdunitdir=DIR given to make), and
# its settings file as an example beside the documentation.  The unit runs
# beside Open vSwitch's daemons, in their run and log directories.
ovsrundir = /run/openvswitch
ovslogdir = /var/log/openvswitch
EXTRA_DIST += \
	utilities/ovs-monitor-wireguard.service.in \
	utilities/ovs-monitor-wireguard.default
# The unit is made at install time, so that it names the directories of
# that "make install" (sbindir=... given to it too).
UNIT_SED = sed -e 's|@sbindir[@]|$(sbindir)|g' \
	-e 's|@sysconfdir[@]|$(sysconfdir)|g' \
	-e 's|@ovsrundir[@]|$(ovsrundir)|g' \
	-e 's|@ovslogdir[@]|$(ovslogdir)|g'
install-data-local:
	@dir='$(systemdunitdir)'; \
	test -n "$$dir" || dir=`$(PKG_CONFIG) --variable=systemdsystemunitdir systemd 2>/dev/null`; \
	if test -n "$$dir"; then \
	    echo " installing ovs-monitor-wireguard.service in $$dir"; \
	    $(MKDIR_P) "$(DESTDIR)$$dir" && \
	    $(UNIT_SED) $(srcdir)/utilities/ovs-monitor-wireguard.service.in \
	        > "$(DESTDIR)$$dir/ovs-monitor-wireguard.service" && \
	    chmod 0644 "$(DESTDIR)$$dir/ovs-monitor-wireguard.service" || exit 1; \
	else \
	    echo " no systemd here (pkg-config systemd): ovs-monitor-wireguard.service not installed"; \
	fi
	$(MKDIR_P) "$(DESTDIR)$(docdir)"
	$(INSTALL_DATA) $(srcdir)/utilities/ovs-monitor-wireguard.default \
	    "$(DESTDIR)$(docdir)/ovs-monitor-wireguard.default"
uninstall-local:
	@dir='$(systemdunitdir)'; \
	test -n "$$dir" || dir=`$(PKG_CONFIG) --variable=systemdsystemunitdir systemd 2>/dev/null`; \
	if test -n "$$dir"; then \
	    rm -f "$(DESTDIR)$$dir/ovs-monitor-wireguard.service"; \
	fi
	rm -f "$(DESTDIR)$(docdir)/ovs-monitor-wireguard.default"

# intel-ipsec-mb's ways of sealing a message, timed one against another
# (Documentation/topics/performance.rst); standalone, so that it also
# builds by hand in a Debian root of another release.
if HAVE_IPSEC_MB
noinst_PROGRAMS += utilities/ovs-wg-ipsecmb-bench
endif
utilities_ovs_wg_ipsecmb_bench_SOURCES = utilities/ovs-wg-ipsecmb-bench.c
utilities_ovs_wg_ipsecmb_bench_LDADD = $(IPSEC_MB_LIBS)
EXTRA_DIST += utilities/ovs-wg-ipsecmb-bench.c
