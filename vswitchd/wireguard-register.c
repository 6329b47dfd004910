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

#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#include "netdev-provider.h"
#include "openvswitch/vlog.h"

VLOG_DEFINE_THIS_MODULE(wireguard_register);

/* Links Open vSwitch's ovs-vswitchd with the wireguard netdev class.
 *
 * The program is built from OVS's own vswitchd objects and linked with
 * -Wl,--wrap=bridge_init, so main() in OVS's ovs-vswitchd.o reaches this
 * file's wrapper, which registers our class before the bridge creates any
 * port. */

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

/* Registers the wireguard netdev class and tunes malloc, then runs OVS's
 * bridge_init(). */
void
__wrap_bridge_init(const char *remote)
{
    keep_freed_heap();
    netdev_wireguard_register();
    __real_bridge_init(remote);
}
