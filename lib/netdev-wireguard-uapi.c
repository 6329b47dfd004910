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

#include "netdev-wireguard-private.h"
#include "smap.h"

/* The UAPI socket of a wireguard port.  Not served yet: status says so. */

void
netdev_wg_uapi_update(struct netdev_wireguard *wg OVS_UNUSED,
                      const struct wg_config *cfg OVS_UNUSED)
{
}

void
netdev_wg_uapi_stop(struct netdev_wireguard *wg OVS_UNUSED)
{
}

void
netdev_wg_uapi_run(struct netdev_wireguard *wg OVS_UNUSED)
{
}

void
netdev_wg_uapi_wait(struct netdev_wireguard *wg OVS_UNUSED)
{
}

void
netdev_wg_uapi_status(const struct netdev_wireguard *wg OVS_UNUSED,
                      struct smap *smap)
{
    smap_add(smap, "uapi_socket", "not served by this build");
}
