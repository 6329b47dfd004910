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

# Autotest suites built with Open vSwitch's own macros (tests/ovs-macros.at,
# tests/ofproto-macros.at) used in place from the OVS source tree.
#
# "make check" runs tests/testsuite (unit + sandbox tests, any user).
# "make check-system" runs tests/system-testsuite (network namespaces,
# root only; skipped with the reason printed otherwise).
#
# Add new unit/sandbox .at files to TESTSUITE_AT and m4_include them from
# tests/testsuite.at; system ones to SYSTEM_TESTSUITE_AT and
# tests/system-testsuite.at.

TESTSUITE_AT = \
	tests/testsuite.at \
	tests/skip-macros.at \
	tests/sanitizer-macros.at \
	tests/layering.at \
	tests/pkt-csum.at \
	tests/pkt-gro.at \
	tests/pkt-gso.at \
	tests/pkt-ecn.at \
	tests/pkt-ip.at \
	tests/pkt-mtu.at \
	tests/wg-device.at \
	tests/wg-uapi.at \
	tests/udp-batch.at \
	tests/bridge-l2.at \
	tests/ul-underlay.at \
	tests/wg-config.at \
	tests/wg-crypto.at \
	tests/wg-allowedips.at \
	tests/wg-ratelimiter.at \
	tests/wg-replay.at \
	tests/wg-rcu.at \
	tests/wireguard-macros.at \
	tests/wireguard-port.at \
	tests/wireguard-ops.at \
	tests/wireguard-dns.at \
	tests/wireguard-traffic.at \
	tests/wireguard-forgery.at \
	tests/ovn-agent.at

SYSTEM_TESTSUITE_AT = \
	tests/system-testsuite.at \
	tests/skip-macros.at \
	tests/sanitizer-macros.at \
	tests/system-macros.at \
	tests/system-wireguard.at \
	tests/system-wg-underlay.at \
	tests/system-wg-interop.at \
	tests/system-wg-flood.at \
	tests/system-wg-faults.at \
	tests/system-wg-dns.at \
	tests/system-wg-ecn.at \
	tests/system-wg-queues.at \
	tests/system-vm.at \
	tests/system-dpdk.at \
	tests/system-bench.at \
	tests/system-package.at \
	tests/system-ovn.at

# The handshake flood generator of tests/system-wg-flood.at.
noinst_PROGRAMS += tests/wg-handshake-flood
tests_wg_handshake_flood_SOURCES = tests/wg-handshake-flood.c
tests_wg_handshake_flood_LDADD = $(WG_LDADD)

EXTRA_DIST += $(TESTSUITE_AT) $(SYSTEM_TESTSUITE_AT) tests/atlocal.in \
	tests/isolate.sh \
	tests/tsan.supp \
	tests/wg-frames.py tests/system-relay.py tests/wg-forge-relay.py \
	tests/wg-dns-stub.py tests/wg-ecn-relay.py \
	tests/wg-paced-xfer.py tests/wg-uapi-abuse.py tests/wg-pcap-replay.py \
	tests/wg-uapi-publish.py

TESTSUITE = tests/testsuite
SYSTEM_TESTSUITE = tests/system-testsuite
AUTOTEST = $(AUTOM4TE) -l autotest
AUTOTEST_INCLUDES = -I '$(srcdir)' -I '$(OVS_SRCDIR)'
AUTOTEST_PATH = $(abs_builddir)/vswitchd:$(abs_builddir)/tests:$(abs_srcdir)/utilities:$(OVS_BUILDDIR)/utilities:$(OVS_BUILDDIR)/ovsdb:$(OVS_BUILDDIR)/tests
noinst_DATA += $(TESTSUITE) $(SYSTEM_TESTSUITE) tests/ovs-links.stamp
CLEANFILES += $(TESTSUITE) $(SYSTEM_TESTSUITE) tests/package.m4 \
	tests/ovs-links.stamp

tests/package.m4: $(top_srcdir)/configure.ac
	$(AM_V_GEN){ \
	  echo '# Signature of the current package.'; \
	  echo 'm4_define([AT_PACKAGE_NAME],      [$(PACKAGE_NAME)])'; \
	  echo 'm4_define([AT_PACKAGE_TARNAME],   [$(PACKAGE_TARNAME)])'; \
	  echo 'm4_define([AT_PACKAGE_VERSION],   [$(PACKAGE_VERSION)])'; \
	  echo 'm4_define([AT_PACKAGE_STRING],    [$(PACKAGE_STRING)])'; \
	  echo 'm4_define([AT_PACKAGE_BUGREPORT], [$(PACKAGE_BUGREPORT)])'; \
	} > $@

$(TESTSUITE): tests/package.m4 $(TESTSUITE_AT)
	$(AM_V_GEN)$(AUTOTEST) -I tests $(AUTOTEST_INCLUDES) \
	  -o $@.tmp $(srcdir)/tests/testsuite.at && mv $@.tmp $@

$(SYSTEM_TESTSUITE): tests/package.m4 $(SYSTEM_TESTSUITE_AT)
	$(AM_V_GEN)$(AUTOTEST) -I tests $(AUTOTEST_INCLUDES) \
	  -o $@.tmp $(srcdir)/tests/system-testsuite.at && mv $@.tmp $@

# OVS's macros look for the schema and helper scripts under
# $abs_top_srcdir; tests/atlocal points that at tests/ovs-tree, a directory
# of symbolic links into the OVS source tree (nothing is copied).
tests/ovs-links.stamp: Makefile
	$(AM_V_GEN)rm -rf tests/ovs-tree && mkdir -p tests/ovs-tree/tests && \
	for d in vswitchd python utilities ovsdb m4; do \
	  ln -s '$(OVS_SRCDIR)'/$$d tests/ovs-tree/$$d; \
	done && \
	for f in '$(OVS_SRCDIR)'/tests/*.py '$(OVS_SRCDIR)'/tests/*.at; do \
	  ln -s "$$f" tests/ovs-tree/tests/; \
	done && touch $@

clean-local: clean-ovs-links
clean-ovs-links:
	rm -rf tests/ovs-tree tests/testsuite.dir tests/system-testsuite.dir

TESTSUITEFLAGS ?=
check-local: $(TESTSUITE) tests/ovs-links.stamp tests/atconfig tests/atlocal
	@rm -f tests/testsuite-skips.log
	$(SHELL) '$(TESTSUITE)' -C tests AUTOTEST_PATH='$(AUTOTEST_PATH)' \
	  $(TESTSUITEFLAGS); rc=$$?; \
	  if test -s tests/testsuite-skips.log; then \
	    echo "Skipped tests and why:"; cat tests/testsuite-skips.log; \
	  fi; exit $$rc

# Root-only tests in network namespaces, run in a network and mount
# namespace of their own (tests/isolate.sh), so that two suites on one
# machine cannot touch each other's namespaces, devices or ports.
check-system: all $(SYSTEM_TESTSUITE) tests/ovs-links.stamp tests/atconfig \
		tests/atlocal
	@rm -f tests/system-testsuite-skips.log tests/system-testsuite-report.log
	$(srcdir)/tests/isolate.sh $(SHELL) '$(SYSTEM_TESTSUITE)' -C tests \
	  AUTOTEST_PATH='$(AUTOTEST_PATH)' $(TESTSUITEFLAGS); rc=$$?; \
	  if test -s tests/system-testsuite-report.log; then \
	    echo "Measured by the tests:"; \
	    cat tests/system-testsuite-report.log; \
	  fi; \
	  if test -s tests/system-testsuite-skips.log; then \
	    echo "Skipped tests and why:"; cat tests/system-testsuite-skips.log; \
	  fi; exit $$rc

# libFuzzer targets, built with clang when configure found one that supports
# -fsanitize=fuzzer; the suites run each for a bounded number of inputs and
# skip, saying why, when they are not built.
FUZZ_SOURCES = \
	tests/fuzz-pkt-gro.c \
	tests/fuzz-wg-device.c \
	tests/fuzz-bridge-l2.c \
	tests/fuzz-wg-uapi.c \
	tests/fuzz-wg-config.c
FUZZ_TARGETS = $(FUZZ_SOURCES:.c=)
# The targets are test programs: they are built like
# lib/libovswireguard-test.la, with the test hooks and the test-only
# accessors (WG_TEST_HOOKS, lib/wg-test-hooks.h).
FUZZ_LIB = $(filter lib/bridge-l2% lib/wg-% lib/pkt-% lib/udp-batch%, \
	$(filter %.c,$(lib_libovswireguard_test_la_SOURCES)))
FUZZ_CFLAGS = -g -O1 -fsanitize=fuzzer,address,undefined -DWG_TEST_HOOKS=1
EXTRA_DIST += $(FUZZ_SOURCES) tests/fuzz-util.h tests/fuzz-wg-uapi.dict \
	tests/fuzz-wg-config.dict tests/fuzz-seeds.py tests/fuzz-run.sh \
	tests/fuzz-corpus
CLEANFILES += $(FUZZ_TARGETS)
if HAVE_FUZZER
noinst_DATA += $(FUZZ_TARGETS)
endif
$(FUZZ_TARGETS): %: %.c tests/fuzz-util.h $(FUZZ_LIB)
	$(AM_V_GEN)$(FUZZ_CC) $(FUZZ_CFLAGS) $(AM_CPPFLAGS) $(SODIUM_CFLAGS) \
	  -o $@ $< $(FUZZ_EXTRA) $(addprefix $(srcdir)/,$(FUZZ_LIB)) \
	  $(OVS_BUILDDIR)/lib/.libs/libopenvswitch.a \
	  $(wildcard $(OVS_BUILDDIR)/lib/.libs/libopenvswitchavx512.a) \
	  $(SODIUM_LIBS) -lssl $(LIBCRYPTO_LIBS) $(IPSEC_MB_LIBS) $(OVS_DPDK_LIBS) \
	  $(OVS_BUILD_LIBS) \
	  -latomic -lm \
	  -lpthread

# Test fixtures a target links besides its own source (not wgtest-main.c:
# libFuzzer brings main()).
tests/fuzz-pkt-gro: FUZZ_EXTRA = $(srcdir)/tests/test-pkt-util.c
tests/fuzz-pkt-gro: tests/test-pkt-util.c tests/test-pkt-util.h
tests/fuzz-wg-device: FUZZ_EXTRA = $(srcdir)/tests/test-wg-pair.c \
	$(srcdir)/tests/wgtest.c
tests/fuzz-wg-device: tests/test-wg-pair.c tests/test-wg-pair.h \
	tests/wgtest.c tests/wgtest.h

# Seed corpora: tests/fuzz-corpus/TARGET/ holds the inputs each target
# starts from, in the bounded runs of "make check" (on a copy) and in "make
# fuzz-long".  "make fuzz-corpus" rebuilds them: tests/fuzz-seeds.py writes
# the raw seeds, and libFuzzer's -merge=1 keeps those that add coverage
# (files named by their SHA-1).  It writes to the source tree: commit the
# result.
FUZZ_NAMES = $(notdir $(FUZZ_TARGETS))
fuzz-corpus: $(FUZZ_TARGETS)
	@set -e; for t in $(FUZZ_NAMES); do \
	  rm -rf fuzz-seeds/$$t '$(srcdir)'/tests/fuzz-corpus/$$t; \
	  mkdir -p '$(srcdir)'/tests/fuzz-corpus/$$t; \
	  python3 '$(srcdir)'/tests/fuzz-seeds.py $$t fuzz-seeds/$$t; \
	  tests/$$t -merge=1 '$(srcdir)'/tests/fuzz-corpus/$$t fuzz-seeds/$$t \
	    > fuzz-seeds/$$t.log 2>&1; \
	  echo "$$t: $$(ls fuzz-seeds/$$t | wc -l) seeds," \
	    "$$(ls '$(srcdir)'/tests/fuzz-corpus/$$t | wc -l) kept"; \
	done

# "make fuzz-long": every target (or those of FUZZ_TARGETS_LONG, e.g.
# "fuzz-wg-config fuzz-wg-uapi") for FUZZ_RUNS inputs each, from a copy of
# its seed corpus in fuzz-long/TARGET/, with ASan and UBSan (FUZZ_CFLAGS);
# one summary line per target (tests/fuzz-run.sh), all of them in
# fuzz-long/summary.txt with the CPU model.  "make -j2 fuzz-long" runs two
# targets at a time.  Not part of "make check".  Fails if any target found
# a crash, leak or timeout (its input is left in fuzz-long/TARGET/).
# FUZZ_MAX_TIME=SECONDS caps each target's run (the summary's "runs" then
# says how far it got).
FUZZ_RUNS = 1000000
FUZZ_MAX_TIME =
FUZZ_TARGETS_LONG = $(FUZZ_NAMES)
FUZZ_LONG_SUMMARIES = $(FUZZ_TARGETS_LONG:%=fuzz-long/%.summary)
fuzz-long: $(FUZZ_TARGETS)
	@rm -f $(FUZZ_LONG_SUMMARIES)
	@$(MAKE) $(AM_MAKEFLAGS) $(FUZZ_LONG_SUMMARIES)
	@cat $(FUZZ_LONG_SUMMARIES) > fuzz-long/summary.txt && \
	echo "CPU: $$(lscpu | sed -n 's/^Model name: *//p')" \
	  >> fuzz-long/summary.txt && \
	echo "== fuzz-long summary (FUZZ_RUNS=$(FUZZ_RUNS))" && \
	cat fuzz-long/summary.txt && \
	! grep -v -e ' crashes=0 ' -e '^CPU: ' fuzz-long/summary.txt >/dev/null

# One target's run; its summary line is the target file (written even when
# the run found something, which "fuzz-long" then reports).
fuzz-long/%.summary: tests/%
	@mkdir -p fuzz-long; dict='$(srcdir)'/tests/$*.dict; \
	test -f $$dict || dict=; \
	FUZZ_MAX_TIME='$(FUZZ_MAX_TIME)' \
	  $(SHELL) '$(srcdir)'/tests/fuzz-run.sh tests/$* \
	  '$(srcdir)'/tests/fuzz-corpus/$* fuzz-long/$* $(FUZZ_RUNS) $$dict \
	  > $@.tmp; mv $@.tmp $@; cat $@

clean-local: clean-fuzz
clean-fuzz:
	rm -rf fuzz-long fuzz-seeds
.PHONY: clean-fuzz fuzz-corpus fuzz-long

# OVS's utilities/checkpatch.py, from the OVS tree, over our C files.
STYLE_FILES = $(filter %.c %.h,$(lib_libovswireguard_la_SOURCES) \
	$(vswitchd_ovs_vswitchd_SOURCES) $(tests_wgtest_SOURCES) \
	$(tests_wg_handshake_flood_SOURCES) $(FUZZ_SOURCES) tests/fuzz-util.h \
	$(utilities_ovs_wg_ipsecmb_bench_SOURCES))
# OVS 3.5.0's checkpatch also checks a mail subject in file mode (the file
# name): those lines are not about our code and are left out.
check-style: check-layering check-doc-figures check-flake8 check-thread-safety
	@cd $(srcdir) && { python3 '$(OVS_SRCDIR)/utilities/checkpatch.py' -q \
	  -f $(STYLE_FILES) 2>&1; echo "checkpatch exit status $$?"; } \
	  | grep -v -e '^Subject missing! ' -e '^Subject: ' -e '^$$' \
	      -e '^WARNING: The subject summary should ' -e '^Lines checked: ' \
	      -e '^checkpatch exit status [01]$$' \
	  && { echo "check-style: OVS's checkpatch.py found the problems above"; \
	       exit 1; } \
	  || echo "check-style: $(words $(STYLE_FILES)) files OK"

# Documentation/topics/design.rst ("Layering") on lib/: no two files call
# each other in a circle;
# wg-* and udp-batch include no packet header (utilities/checks/lib-layering
# says what counts).  Part of check-style, which the README test command
# runs.
check-layering:
	@python3 '$(srcdir)/utilities/checks/lib-layering' '$(srcdir)/lib'

# The documentation's figures (Documentation/figures.inc): no two pages
# state one measurement with different values, every figure has its date
# and machine (utilities/checks/doc-figures says what counts).
check-doc-figures:
	@python3 '$(srcdir)/utilities/checks/doc-figures' '$(srcdir)'

# clang's thread safety analysis (-Wthread-safety, errors) over the
# library: OVS's lock annotations (OVS_REQUIRES, OVS_EXCLUDED, OVS_GUARDED_BY,
# lib/compiler.h) hold.  Skipped, saying so, without clang.
THREAD_SAFETY_FILES = $(filter %.c,$(lib_libovswireguard_la_SOURCES))
check-thread-safety:
	@if test -n '$(FUZZ_CC)'; then \
	  for f in $(THREAD_SAFETY_FILES); do \
	    $(FUZZ_CC) -fsyntax-only -Wthread-safety -Werror=thread-safety \
	      $(DEFS) -I. $(AM_CPPFLAGS) $(SODIUM_CFLAGS) '$(srcdir)'/$$f \
	      || exit 1; \
	  done; \
	  echo "check-thread-safety: $(words $(THREAD_SAFETY_FILES)) files OK"; \
	else echo "check-thread-safety: skipped (no clang)"; fi

# flake8 (with the hacking plugin OVS's own Python is checked with, when
# installed) over our Python daemon; skipped, saying so, without flake8.
FLAKE8_FILES = utilities/ovs-monitor-wireguard
check-flake8:
	@if /usr/bin/python3 -m flake8 --version >/dev/null 2>&1; then \
	  cd '$(srcdir)' && /usr/bin/python3 -m flake8 $(FLAKE8_FILES) \
	  && echo "check-flake8: $(words $(FLAKE8_FILES)) files OK"; \
	else echo "check-flake8: skipped (no flake8 for /usr/bin/python3)"; fi

.PHONY: check-doc-figures check-flake8 check-layering check-system \
	check-style \
	check-thread-safety clean-ovs-links
