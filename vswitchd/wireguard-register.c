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

#include "netdev-provider.h"

/* Links Open vSwitch's ovs-vswitchd with the wireguard netdev class.
 *
 * The program is built from OVS's own vswitchd objects and linked with
 * -Wl,--wrap=bridge_init, so main() in OVS's ovs-vswitchd.o reaches this
 * file's wrapper, which registers our class before the bridge creates any
 * port. */

void __real_bridge_init(const char *remote);
void __wrap_bridge_init(const char *remote);

/* Registers the wireguard netdev class, then runs OVS's bridge_init().
 * Nothing else: the process's settings (malloc's among them) are the
 * operator's, e.g. GLIBC_TUNABLES=glibc.malloc.trim_threshold=N. */
void
__wrap_bridge_init(const char *remote)
{
    netdev_wireguard_register();
    __real_bridge_init(remote);
}
