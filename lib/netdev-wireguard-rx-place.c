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

#include "dp-packet.h"
#include "netdev-wireguard-private.h"
#include "netdev-wireguard-rx.h"
#include "pkt-gro.h"
#include "pkt-pool.h"
#include "util.h"
#include "wg-device.h"

/* Step 3 of a receive round (netdev-wireguard-rx.c): opening the round's
 * data messages, without the port's lock, without copying what coalescing
 * will join.
 *
 * Messages are opened one after another.  One that opened and could head
 * a coalesced run (pkt_gro_pred_start()) becomes the prediction for the
 * next message of its keypair: that one's first bytes, as many as the
 * head's headers, are decrypted in place, and if they continue the run
 * (pkt_gro_pred_match()) the cipher writes the rest of it straight behind
 * the run in the head's buffer, a pooled packet of NETDEV_WG_GRO_MAX bytes
 * into which the head is copied when a first message continues it.  Then
 * pkt-gro merges it there without copying.  Nothing of the prediction is
 * trusted: pkt-gro decides on the authenticated headers after step 4, and
 * moves back what it does not merge.  A message whose tag fails leaves
 * zeros past the run (wg_aead_open_placed()), the run's bytes before it
 * untouched, and the next message continues at the same place. */

/* Where the bytes of the message being opened go (wg_aead_place_func). */
static uint8_t *
netdev_wg_rx_place_cb(void *q_, const uint8_t *first, size_t split,
                      size_t rest)
{
    struct netdev_wg_rxq *q = q_;
    struct netdev_wg_rx_place *pl = &q->place;
    struct netdev_wg_rx_msg *head = &q->msgs[pl->head];
    struct dp_packet *pkt = head->pkt;

    pl->placing = false;
    if (!pkt_gro_pred_match(&pl->pred, first, split, &pl->payload,
                            &pl->ends)) {
        return NULL;
    }
    if (!pkt) {
        pkt = head->pkt = pkt_pool_new(NETDEV_WG_GRO_MAX,
                                       NETDEV_WG_RX_HEADROOM);
        dp_packet_put(pkt, pl->pred.head, pl->pred.total);
    }
    if (pl->pred.total + rest
        > dp_packet_size(pkt) + dp_packet_tailroom(pkt)) {
        return NULL;
    }
    pl->placing = true;
    return (uint8_t *) dp_packet_data(pkt) + pl->pred.total;
}

/* After message 'i' opened, not placed: it opens the prediction or ends
 * it. */
static void
netdev_wg_rx_place_start(struct netdev_wg_rxq *q, size_t i)
{
    struct netdev_wg_rx_msg *m = &q->msgs[i];
    struct netdev_wg_rx_place *pl = &q->place;
    const uint8_t *text = m->data + WG_MSG_DATA_HEADER_LEN;

    pl->kp = NULL;
    if (pkt_gro_pred_start(&pl->pred, text, m->len - WG_MSG_DATA_MIN_LEN)) {
        pl->kp = m->opener.kp;
        pl->head = i;
    }
}

/* Opens message 'i', continuing the prediction (see above). */
static void
netdev_wg_rx_open_one(struct netdev_wg_rxq *q, size_t i, bool gro)
{
    struct netdev_wg_rx_msg *m = &q->msgs[i];
    struct netdev_wg_rx_place *pl = &q->place;
    uint8_t *rest;

    m->placed = NULL;
    m->pkt = NULL;
    pl->placing = false;
    if (pl->kp && pl->kp == m->opener.kp) {
        wg_device_decrypt_finish_placed(&m->opener, m->data, m->len,
                                        pl->pred.hdr_len,
                                        netdev_wg_rx_place_cb, q, &rest);
    } else {
        wg_device_decrypt_finish(&m->opener, m->data, m->len);
    }
    if (!m->opener.opened) {
        return;
    } else if (pl->placing) {
        m->placed = rest;
        m->placed_ofs = pl->pred.hdr_len;
        pkt_gro_pred_advance(&pl->pred, pl->payload);
        pl->kp = pl->ends ? NULL : pl->kp;
    } else if (gro) {
        netdev_wg_rx_place_start(q, i);
    }
}

void
netdev_wg_rx_open(struct netdev_wg_rxq *q, bool gro)
{
    q->place.kp = NULL;
    for (size_t i = 0; i < q->n_msgs; i++) {
        netdev_wg_rx_open_one(q, i, gro);
    }
}

void
netdev_wg_rx_place_release(struct netdev_wg_rxq *q)
{
    for (size_t i = 0; i < q->n_msgs; i++) {
        dp_packet_delete(q->msgs[i].pkt);
        q->msgs[i].pkt = NULL;
    }
}
