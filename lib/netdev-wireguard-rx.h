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

#ifndef NETDEV_WIREGUARD_RX_H
#define NETDEV_WIREGUARD_RX_H 1

/* Internals of the receive path, shared by its files: the round
 * (netdev-wireguard-rx.c: reading, beginning and ending messages), its
 * step 3 (netdev-wireguard-rx-place.c: opening them, each continuing a
 * coalesced run where the one before it opened it) and the last steps
 * (netdev-wireguard-rx-bridge.c: coalescing and handing inner packets to
 * the bridge). */

#include <stdbool.h>
#include <stddef.h>
#include "netdev-wireguard-private.h"

/* Step 3: opens the round's data messages of 'q' without the port's lock:
 * in place, but, if 'gro', the bytes of a message that continues the
 * coalesced run of the previous one from its keypair go straight to the
 * run's head's buffer (m->placed, the head's m->pkt). */
void netdev_wg_rx_open(struct netdev_wg_rxq *q, bool gro);

/* Frees the buffers of step 3 that no inner packet took (messages that
 * failed or were dropped): the end of a round. */
void netdev_wg_rx_place_release(struct netdev_wg_rxq *q);

/* Step 5: coalesces the round's 'n' inner packets of 'q' (if 'gro'),
 * without the port's lock. */
void netdev_wg_rx_coalesce(struct netdev_wg_rxq *q, size_t n, bool gro);

/* Step 6: hands the round's 'n' inner packets of 'q', as coalesced, to the
 * bridge through the layer-2 adapter, at 'now' (the adapter's clock, read
 * once a round). */
void netdev_wg_rx_deliver(struct netdev_wireguard *wg,
                          struct netdev_wg_rxq *q, size_t n,
                          long long int now)
    OVS_REQUIRES(wg->mutex);

/* Step 6 without the port's lock, for a round that took it nowhere: if
 * every inner packet's destination was resolved by the adapter within
 * NETDEV_WG_RX_RESOLVED_MS (and no probe is due), hands the 'n' inner
 * packets to the bridge with those headers, and returns true.  Otherwise
 * returns false, having done nothing. */
bool netdev_wg_rx_deliver_unlocked(struct netdev_wg_rxq *q, size_t n,
                                   long long int now);

#endif /* netdev-wireguard-rx.h */
