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

dnl OVSWG_CHECK_OVS
dnl
dnl Locates the Open vSwitch source tree (--with-ovs-source) and its finished
dnl build (--with-ovs-build, defaults to the source tree), checks that they
dnl are a supported Open vSwitch line (OVSWG_OVS_LINES), and sets OVS_SRCDIR,
dnl OVS_BUILDDIR, OVS_VERSION, OVS_CPPFLAGS, OVS_LIBS and OVS_VSWITCHD_OBJS.
dnl What differs between the lines is found by OVSWG_CHECK_OVS_API.
AC_DEFUN([OVSWG_CHECK_OVS], [
  AC_ARG_WITH([ovs-source],
    [AS_HELP_STRING([--with-ovs-source=DIR],
                    [Open vSwitch source tree (required; 3.1, 3.3, 3.5,
                     3.6, 3.7 or 4.0)])],
    [OVS_SRCDIR=`cd "$withval" 2>/dev/null && pwd`],
    [OVS_SRCDIR=])
  AC_ARG_WITH([ovs-build],
    [AS_HELP_STRING([--with-ovs-build=DIR],
                    [finished build of that tree (default: the source tree)])],
    [OVS_BUILDDIR=`cd "$withval" 2>/dev/null && pwd`],
    [OVS_BUILDDIR=$OVS_SRCDIR])

  AS_IF([test -z "$OVS_SRCDIR"],
    [AC_MSG_ERROR([--with-ovs-source=DIR is required and must exist (an
Open vSwitch source tree; ./quickstart fills it in for you)])])
  AS_IF([test ! -f "$OVS_SRCDIR/lib/netdev-provider.h" ||
         test ! -f "$OVS_SRCDIR/vswitchd/bridge.c"],
    [AC_MSG_ERROR([$OVS_SRCDIR does not look like an Open vSwitch source tree
(no lib/netdev-provider.h or vswitchd/bridge.c)])])
  AS_IF([test -z "$OVS_BUILDDIR" || test ! -f "$OVS_BUILDDIR/config.h"],
    [AC_MSG_ERROR([--with-ovs-build: no configured Open vSwitch build (config.h
missing) in '$OVS_BUILDDIR'])])

  AC_MSG_CHECKING([Open vSwitch version])
  ovs_version=`sed -n 's/^#define PACKAGE_VERSION "\(.*\)"$/\1/p' \
               "$OVS_BUILDDIR/config.h"`
  AC_MSG_RESULT([$ovs_version])
  case $ovs_version in
    3.1.*|3.3.*|3.5.*|3.6.*|3.7.*|4.0.*) ;;
    *) AC_MSG_ERROR([Open vSwitch '$ovs_version' in $OVS_BUILDDIR is not
supported: use 3.1.x, 3.3.x, 3.5.x, 3.6.x, 3.7.x or 4.0.x]) ;;
  esac
  OVS_VERSION=$ovs_version
  AC_SUBST([OVS_VERSION])

  AC_MSG_CHECKING([for a finished Open vSwitch build])
  ovs_missing=
  for f in lib/libopenvswitch.la lib/libsflow.la ofproto/libofproto.la \
           vswitchd/bridge.o vswitchd/ovs-vswitchd.o \
           vswitchd/system-stats.o vswitchd/ovs-vswitchd \
           ovsdb/ovsdb-server utilities/ovs-vsctl; do
    test -e "$OVS_BUILDDIR/$f" || ovs_missing="$ovs_missing $f"
  done
  AS_IF([test -n "$ovs_missing"],
    [AC_MSG_RESULT([no])
     AC_MSG_ERROR([the Open vSwitch build in $OVS_BUILDDIR is not finished
(missing:$ovs_missing); run 'make' there first])])
  AC_MSG_RESULT([yes])

  OVS_CPPFLAGS="-I$OVS_BUILDDIR -I$OVS_SRCDIR/include -I$OVS_BUILDDIR/include"
  OVS_CPPFLAGS="$OVS_CPPFLAGS -I$OVS_SRCDIR/lib -I$OVS_BUILDDIR/lib"
  OVS_CPPFLAGS="$OVS_CPPFLAGS -I$OVS_SRCDIR -I$OVS_SRCDIR/tests"
  OVS_LIBS="$OVS_BUILDDIR/ofproto/libofproto.la"
  OVS_LIBS="$OVS_LIBS $OVS_BUILDDIR/lib/libsflow.la"
  OVS_LIBS="$OVS_LIBS $OVS_BUILDDIR/lib/libopenvswitch.la"
  OVS_VSWITCHD_OBJS="$OVS_BUILDDIR/vswitchd/bridge.o"
  OVS_VSWITCHD_OBJS="$OVS_VSWITCHD_OBJS $OVS_BUILDDIR/vswitchd/ovs-vswitchd.o"
  OVS_VSWITCHD_OBJS="$OVS_VSWITCHD_OBJS $OVS_BUILDDIR/vswitchd/system-stats.o"
  dnl A build --with-dpdk: its dp_packet is an rte_mbuf, so every file that
  dnl includes dp-packet.h needs DPDK's headers (not its -march).
  OVS_DPDK_CFLAGS=`sed -n 's/^DPDK_CFLAGS = //p' "$OVS_BUILDDIR/Makefile" \
                   | sed 's/-march=[[^ ]]*//g'`
  OVS_CPPFLAGS="$OVS_CPPFLAGS $OVS_DPDK_CFLAGS"
  AC_MSG_CHECKING([whether Open vSwitch is built with DPDK])
  AS_IF([grep -q '^#define DPDK_NETDEV 1' "$OVS_BUILDDIR/config.h"],
    [ovs_with_dpdk=yes], [ovs_with_dpdk=no])
  AC_MSG_RESULT([$ovs_with_dpdk])
  AM_CONDITIONAL([OVS_WITH_DPDK], [test $ovs_with_dpdk = yes])
  dnl Its resolver (lib/dns-resolve.c) resolves host names only when built
  dnl with libunbound; the host-name endpoint tests skip without it.
  AC_MSG_CHECKING([whether Open vSwitch is built with libunbound])
  AS_IF([grep -q '^#define HAVE_UNBOUND 1' "$OVS_BUILDDIR/config.h"],
    [OVS_HAVE_UNBOUND=yes], [OVS_HAVE_UNBOUND=no])
  AC_MSG_RESULT([$OVS_HAVE_UNBOUND])
  AC_SUBST([OVS_HAVE_UNBOUND])
  OVS_DPDK_LIBS=`sed -n 's/^DPDK_LIBS = //p' "$OVS_BUILDDIR/Makefile"`
  dnl What OVS's own programs link besides its archives (libnuma and
  dnl friends in a DPDK build), for links that bypass libtool (fuzzers).
  dnl libopenvswitch.la lists them all (libcap-ng is outside LIBS), and
  dnl libtool archives (.la), which the fuzzers' link takes as .a itself.
  OVS_BUILD_LIBS=`sed -n "s/^dependency_libs='\(.*\)'$/\1/p" \
                  "$OVS_BUILDDIR/lib/libopenvswitch.la" | tr ' ' '\n' \
                  | grep -v '\.la$' | tr '\n' ' '`
  AC_SUBST([OVS_BUILD_LIBS])
  OVS_DPDK_LDFLAGS=`sed -n 's/^DPDK_vswitchd_LDFLAGS = //p' \
                    "$OVS_BUILDDIR/Makefile"`
  AC_SUBST([OVS_SRCDIR])
  AC_SUBST([OVS_BUILDDIR])
  AC_SUBST([OVS_CPPFLAGS])
  AC_SUBST([OVS_LIBS])
  AC_SUBST([OVS_VSWITCHD_OBJS])
  AC_SUBST([OVS_DPDK_LIBS])
  AC_SUBST([OVS_DPDK_LDFLAGS])
])

dnl OVSWG_OVS_API_CHECK(MACRO, DESCRIPTION, BODY)
dnl
dnl Compiles BODY against the Open vSwitch headers (dp-packet.h and
dnl netdev-provider.h included) and, if it compiles, adds -DMACRO=1 to
dnl OVSWG_COMPAT_CPPFLAGS.  Only lib/ovs-compat.h may test MACRO.
AC_DEFUN([OVSWG_OVS_API_CHECK], [
  AC_MSG_CHECKING([whether Open vSwitch has $2])
  AC_COMPILE_IFELSE(
    [AC_LANG_PROGRAM([[#include <config.h>
#include "dp-packet.h"
#include "netdev-provider.h"
]], [[$3]])],
    [AC_MSG_RESULT([yes])
     OVSWG_COMPAT_CPPFLAGS="$OVSWG_COMPAT_CPPFLAGS -D$1=1"],
    [AC_MSG_RESULT([no])])
])

dnl OVSWG_CHECK_OVS_API
dnl
dnl What differs between the supported Open vSwitch lines, found by
dnl compiling against the tree rather than by its version number.  The
dnl macros are tested only in lib/ovs-compat.h (the layering check says so).
AC_DEFUN([OVSWG_CHECK_OVS_API], [
  OVSWG_COMPAT_CPPFLAGS=
  save_CPPFLAGS=$CPPFLAGS
  CPPFLAGS="$CPPFLAGS $OVS_CPPFLAGS"
  dnl 3.3+: the guest's TCP segment size travels with the packet.
  OVSWG_OVS_API_CHECK([OVSWG_OVS_TSO_SEGSZ],
    [a per-packet TSO segment size],
    [(void) &dp_packet_get_tso_segsz;])
  dnl Up to 3.5: offload requests are 'ol_flags' behind dp_packet_hwol_*().
  OVSWG_OVS_API_CHECK([OVSWG_OVS_HWOL],
    [dp_packet_hwol_*() offload flags],
    [(void) &dp_packet_hwol_is_tso;])
  dnl 3.6+: checksum state per layer (good, bad, partial, unknown).
  OVSWG_OVS_API_CHECK([OVSWG_OVS_CSUM_STATE],
    [per-layer checksum states],
    [(void) &dp_packet_l4_checksum_set_partial;])
  dnl 4.0: compose_nd_ns() can address a unicast neighbor.
  OVSWG_OVS_API_CHECK([OVSWG_OVS_ND_NS_UNICAST],
    [compose_nd_ns() with a unicast choice],
    [compose_nd_ns(NULL, true, eth_addr_zero, eth_addr_zero, NULL, NULL);])
  dnl 4.0: batches grow; the caller owns the array, a callee only resets.
  OVSWG_OVS_API_CHECK([OVSWG_OVS_BATCH_RESET],
    [dp_packet_batch_reset()],
    [(void) &dp_packet_batch_reset;])
  CPPFLAGS=$save_CPPFLAGS
  dnl For the tests: whether netdev_send() segments a TSO packet in software
  dnl for a port without TSO (with the segment size, 3.3+) or drops it.
  AS_CASE([$OVSWG_COMPAT_CPPFLAGS], [*OVSWG_OVS_TSO_SEGSZ*],
    [OVS_SOFTWARE_GSO=yes], [OVS_SOFTWARE_GSO=no])
  AC_SUBST([OVS_SOFTWARE_GSO])
  AS_IF([echo "$OVSWG_COMPAT_CPPFLAGS" | grep -q 'OVSWG_OVS_HWOL\|OVSWG_OVS_CSUM_STATE'],
    [], [AC_MSG_ERROR([Open vSwitch $OVS_VERSION has neither the
dp_packet_hwol_*() nor the per-layer checksum API; supported lines: 3.1.x,
3.3.x, 3.5.x, 3.6.x, 3.7.x, 4.0.x])])
  AC_SUBST([OVSWG_COMPAT_CPPFLAGS])
])

dnl OVSWG_CHECK_CRYPTO_LIBS
dnl
dnl libsodium (X25519, XChaCha20-Poly1305, randomness, wiping) and OpenSSL 3
dnl libcrypto (bulk ChaCha20-Poly1305, BLAKE2s).
AC_DEFUN([OVSWG_CHECK_CRYPTO_LIBS], [
  PKG_CHECK_MODULES([SODIUM], [libsodium >= 1.0.18], [],
    [AC_MSG_ERROR([libsodium is required (Debian: apt install libsodium-dev)])])
  PKG_CHECK_MODULES([LIBCRYPTO], [libcrypto >= 3.0], [],
    [AC_MSG_ERROR([OpenSSL 3 libcrypto is required (Debian: apt install
libssl-dev)])])
])

dnl OVSWG_CHECK_IPSEC_MB
dnl
dnl intel-ipsec-mb (Debian: libipsec-mb-dev, x86-64 only) for the data-path
dnl ChaCha20-Poly1305: used when found, unless --without-ipsec-mb;
dnl --with-ipsec-mb makes its absence an error.
AC_DEFUN([OVSWG_CHECK_IPSEC_MB], [
  AC_ARG_WITH([ipsec-mb],
    [AS_HELP_STRING([--without-ipsec-mb],
      [use OpenSSL for the data-path ChaCha20-Poly1305 even where
       intel-ipsec-mb is available])],
    [], [with_ipsec_mb=check])
  have_ipsec_mb=no
  IPSEC_MB_LIBS=
  AS_IF([test "$with_ipsec_mb" != no],
    [AS_CASE([$host_cpu], [x86_64],
       [AC_CHECK_HEADER([intel-ipsec-mb.h],
          [AC_CHECK_LIB([IPSec_MB], [alloc_mb_mgr], [have_ipsec_mb=yes])])])])
  AS_IF([test "$have_ipsec_mb" = yes],
    [IPSEC_MB_LIBS=-lIPSec_MB],
    [test "$with_ipsec_mb" = yes],
    [AC_MSG_ERROR([--with-ipsec-mb: intel-ipsec-mb not found (Debian: apt
                   install libipsec-mb-dev; x86-64 only)])])
  AC_MSG_CHECKING([for the data-path ChaCha20-Poly1305])
  AS_IF([test "$have_ipsec_mb" = yes],
    [AC_MSG_RESULT([intel-ipsec-mb, OpenSSL as run-time alternative])],
    [AC_MSG_RESULT([OpenSSL])])
  AC_SUBST([IPSEC_MB_LIBS])
  AM_CONDITIONAL([HAVE_IPSEC_MB], [test "$have_ipsec_mb" = yes])
])

dnl OVSWG_ENABLE_SANITIZERS
dnl
dnl --enable-asan builds everything of ours with AddressSanitizer and
dnl UndefinedBehaviorSanitizer; --enable-tsan with ThreadSanitizer, against
dnl an Open vSwitch built with it too.  One or the other.
AC_DEFUN([OVSWG_ENABLE_SANITIZERS], [
  AC_ARG_ENABLE([asan],
    [AS_HELP_STRING([--enable-asan],
                    [build with AddressSanitizer and UBSan (debug)])],
    [], [enable_asan=no])
  AC_ARG_ENABLE([tsan],
    [AS_HELP_STRING([--enable-tsan],
                    [build with ThreadSanitizer (debug; needs an Open vSwitch
                     built with -fsanitize=thread too)])],
    [], [enable_tsan=no])
  AS_IF([test "$enable_asan" = yes && test "$enable_tsan" = yes],
    [AC_MSG_ERROR([--enable-asan and --enable-tsan exclude each other (the
sanitizers cannot share a program): configure one build directory for each])])
  SANITIZER_CFLAGS=
  SANITIZER_LDFLAGS=
  AS_IF([test "$enable_asan" = yes],
    [SANITIZER_CFLAGS="-fsanitize=address,undefined -fno-omit-frame-pointer"
     SANITIZER_CFLAGS="$SANITIZER_CFLAGS -fno-sanitize-recover=undefined"
     SANITIZER_LDFLAGS="-fsanitize=address,undefined"])
  dnl ThreadSanitizer sees the synchronization only of instrumented code: an
  dnl uninstrumented Open vSwitch (its atomics, seq, RCU) would make every
  dnl hand-over through it look like a race in our code.
  AS_IF([test "$enable_tsan" = yes],
    [AC_MSG_CHECKING([whether Open vSwitch is built with -fsanitize=thread])
     AS_IF([sed -n 's/^CFLAGS = //p' "$OVS_BUILDDIR/Makefile" \
              | grep -q -- '-fsanitize=thread'],
       [AC_MSG_RESULT([yes])],
       [AC_MSG_RESULT([no])
        AC_MSG_ERROR([--enable-tsan needs an Open vSwitch build configured
with CFLAGS="-fsanitize=thread ..." LDFLAGS=-fsanitize=thread (the whole
program instrumented); $OVS_BUILDDIR is not ('./quickstart build --tsan'
builds one)])])
     SANITIZER_CFLAGS="-fsanitize=thread -fno-omit-frame-pointer"
     SANITIZER_LDFLAGS="-fsanitize=thread"
     dnl In CFLAGS, which come after AM_CFLAGS on the command line: -O1
     dnl wins over the default -O2 (ThreadSanitizer's advice).
     CFLAGS="$CFLAGS -O1 -g"])
  AC_SUBST([SANITIZER_CFLAGS])
  AC_SUBST([SANITIZER_LDFLAGS])
  AM_CONDITIONAL([ASAN], [test "$enable_asan" = yes])
])

dnl OVSWG_CHECK_FUZZER
dnl
dnl Looks for clang with libFuzzer support for the fuzz targets (none in a
dnl --enable-tsan build).
AC_DEFUN([OVSWG_CHECK_FUZZER], [
  AC_CHECK_PROGS([FUZZ_CC], [clang clang-14], [])
  dnl The targets link Open vSwitch's library with AddressSanitizer, which
  dnl cannot link a library built with ThreadSanitizer.
  AS_IF([test -n "$FUZZ_CC" && test "$enable_tsan" = yes],
    [AC_MSG_NOTICE([no libFuzzer targets in a ThreadSanitizer build])
     FUZZ_CC=])
  AS_IF([test -n "$FUZZ_CC"],
    [AC_MSG_CHECKING([whether $FUZZ_CC supports -fsanitize=fuzzer])
     echo 'int LLVMFuzzerTestOneInput(const char *d, long n) { return 0; }' \
       > conftest-fuzz.c
     AS_IF([$FUZZ_CC -fsanitize=fuzzer,address conftest-fuzz.c \
            -o conftest-fuzz >/dev/null 2>&1],
       [AC_MSG_RESULT([yes])],
       [AC_MSG_RESULT([no]); FUZZ_CC=])
     rm -f conftest-fuzz conftest-fuzz.c])
  AM_CONDITIONAL([HAVE_FUZZER], [test -n "$FUZZ_CC"])
])
