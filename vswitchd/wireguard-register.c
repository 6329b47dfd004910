/*
 * Copyright (c) 2026 The ovs-wireguard authors.
 *
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at:
 *
 *     http://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */

#include <config.h>
#include "netdev-wireguard.h"

#include <limits.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "netdev-provider.h"
#include "openvswitch/vlog.h"

VLOG_DEFINE_THIS_MODULE(wireguard_register);

/* Links Open vSwitch's ovs-vswitchd with the wireguard netdev class.
 *
 * The program is built from OVS's own vswitchd objects and linked with
 * -Wl,--wrap=bridge_init, so main() in OVS's ovs-vswitchd.o reaches this
 * file's wrapper, which registers our class before the bridge creates any
 * port, and with -Wl,--wrap=main, so that this file can choose OpenSSL's
 * CPU features before OVS's main() starts. */

void __real_bridge_init(const char *remote);
void __wrap_bridge_init(const char *remote);

/* Freed heap that glibc keeps before returning memory to the kernel.
 *
 * With userspace TSO, the datapath allocates a buffer for every 64 KB
 * super-packet (TAP receive, TCP coalescing at the wireguard port) and frees
 * it once the packet is sent.  With glibc's default 128 KB trim threshold,
 * those frees at the top of the heap give the memory back and the next
 * allocation faults it in again page by page: about 40,000 page faults a
 * second, 10% of the throughput of one TCP stream.  Keeping up to 32 MB of
 * freed heap removes them.  GLIBC_TUNABLES=glibc.malloc.trim_threshold=N
 * still wins when given. */
#define WG_MALLOC_TRIM_THRESHOLD (32 * 1024 * 1024)

/* AddressSanitizer replaces malloc, and its mallopt() does nothing. */
#ifdef __SANITIZE_ADDRESS__
#define WG_GLIBC_MALLOC false
#else
#define WG_GLIBC_MALLOC true
#endif

static void
keep_freed_heap(void)
{
    const char *tunables = getenv("GLIBC_TUNABLES");

    if (WG_GLIBC_MALLOC && (!tunables || !strstr(tunables, "trim_threshold"))
        && !mallopt(M_TRIM_THRESHOLD, WG_MALLOC_TRIM_THRESHOLD)) {
        VLOG_WARN("could not set the malloc trim threshold");
    }
}

/* OpenSSL's view of the CPU for this process, unless OPENSSL_ia32cap says
 * otherwise: everything the CPU has except AVX512F (bit 16 of the second
 * word, CPUID leaf 7 EBX), so that ChaCha20 and Poly1305 take their 256-bit
 * paths instead of the 512-bit ones.
 *
 * Sealing one 1420-byte packet after another in a loop, the 512-bit code is
 * about 15% faster; in the daemon, where every packet's encryption sits
 * between checksums, copies and system calls, it made a single TCP stream
 * through two hosts 1 to 17% slower (9% in the median of seven alternating
 * runs) on our 2-vCPU Xeon machine (the Linux kernel avoids 512-bit
 * registers in its own ChaCha20 and Poly1305 on CPUs that slow down with
 * them).  OPENSSL_ia32cap=~0:~0 gives OpenSSL back its own choice. */
#define WG_OPENSSL_IA32CAP ":~0x10000"

/* This program, for starting it again. */
#define WG_SELF_EXE "/proc/self/exe"

int __real_main(int argc, char *argv[]);
int __wrap_main(int argc, char *argv[]);

/* Starts this program again with 'argv'.  Through the binary's own path
 * rather than WG_SELF_EXE, whose last component ("exe") would become the
 * process name that ps, top and pgrep show; WG_SELF_EXE if the path cannot
 * be read whole or no longer names the binary (a deleted file reads as
 * "PATH (deleted)", which execv() does not find).  Returns only on
 * failure. */
static void
exec_self(char *argv[])
{
    char path[PATH_MAX];
    ssize_t n = readlink(WG_SELF_EXE, path, sizeof path);

    if (n > 0 && (size_t) n < sizeof path) {
        path[n] = '\0';
        execv(path, argv);
    }
    execv(WG_SELF_EXE, argv);
}

/* Runs before OVS's main() (the program is linked with -Wl,--wrap=main).
 * libcrypto reads OPENSSL_ia32cap once, when it is loaded, before any code
 * of ours runs: to give it our default, set the variable and start the
 * program again.  If that fails, OpenSSL keeps its own choice. */
int
__wrap_main(int argc, char *argv[])
{
    if (!getenv("OPENSSL_ia32cap")
        && !setenv("OPENSSL_ia32cap", WG_OPENSSL_IA32CAP, 0)) {
        exec_self(argv);
        unsetenv("OPENSSL_ia32cap");
    }
    return __real_main(argc, argv);
}

/* Registers the wireguard netdev class and tunes malloc, then runs OVS's
 * bridge_init(). */
void
__wrap_bridge_init(const char *remote)
{
    keep_freed_heap();
    netdev_wireguard_register();
    __real_bridge_init(remote);
}
