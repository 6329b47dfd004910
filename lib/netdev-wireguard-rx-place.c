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

#include <string.h>

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
 * next message of its keypair, which the cipher then opens straight into
 * the run's buffer, a pooled packet of NETDEV_WG_GRO_MAX bytes into which
 * the head is copied when a first message is opened behind it: its text
 * goes where its payload continues the run, its headers over the run's
 * last bytes, which are saved before and put back after (a few dozen
 * bytes).  If the message continues the run (pkt_gro_pred_match() on its
 * authenticated headers), its headers are copied in place for step 4 and
 * pkt-gro merges its payload where it is, without copying; otherwise its
 * whole text is copied in place, as if opened there.  The prediction is
 * not trusted: pkt-gro decides again after step 4, and moves back what it
 * does not merge.  A message whose tag fails leaves zeros past the run
 * (wg_aead_open()), the run's earlier bytes as they were, and the next
 * message goes to the same place.
 *
 * (Opening in two parts, the headers first in place and then the rest
 * where they say, measured 1.7 times as slow per message with
 * intel-ipsec-mb's scatter-gather calls as with its job API, which this
 * way uses.) */

/* Bytes of IP and TCP headers a prediction may have (pkt_gro_pred_start():
 * 40 + 60). */
#define NETDEV_WG_RX_PLACE_HDR_MAX 100

/* Where the 'rest' bytes of a message's text after its headers go behind
 * the prediction's run, making the head's buffer first, or NULL if they do
 * not fit. */
static uint8_t *
netdev_wg_rx_place_tail(struct netdev_wg_rxq *q, size_t rest)
{
    struct netdev_wg_rx_place *pl = &q->place;
    struct netdev_wg_rx_msg *head = &q->msgs[pl->head];
    struct dp_packet *pkt = head->pkt;

    if (!pkt) {
        pkt = head->pkt = pkt_pool_new(NETDEV_WG_GRO_MAX,
                                       NETDEV_WG_RX_HEADROOM);
        dp_packet_put(pkt, pl->pred.head, pl->pred.total);
    }
    if (pl->pred.total + rest
        > dp_packet_size(pkt) + dp_packet_tailroom(pkt)) {
        return NULL;
    }
    return (uint8_t *) dp_packet_data(pkt) + pl->pred.total;
}

/* Opens message 'm' with its payload at 'tail' (see above).  Returns true
 * if it opened and continues the prediction's run. */
static bool
netdev_wg_rx_open_behind(struct netdev_wg_rxq *q, struct netdev_wg_rx_msg *m,
                         uint8_t *tail)
{
    struct netdev_wg_rx_place *pl = &q->place;
    size_t hdr = pl->pred.hdr_len;
    size_t text_len = m->len - WG_MSG_DATA_MIN_LEN;
    uint8_t saved[NETDEV_WG_RX_PLACE_HDR_MAX];
    uint8_t *dst = tail - hdr;
    bool cont;

    memcpy(saved, dst, hdr);
    wg_device_decrypt_finish_to(&m->opener, m->data, m->len, dst);
    cont = (m->opener.opened
            && pkt_gro_pred_match(&pl->pred, dst, hdr, &pl->payload,
                                  &pl->ends));
    if (m->opener.opened) {
        memcpy(m->data + WG_MSG_DATA_HEADER_LEN, dst, cont ? hdr : text_len);
    }
    memcpy(dst, saved, hdr);
    return cont;
}

/* After message 'i' opened, not behind a run: it opens the prediction or
 * ends it. */
static void
netdev_wg_rx_place_start(struct netdev_wg_rxq *q, size_t i)
{
    struct netdev_wg_rx_msg *m = &q->msgs[i];
    struct netdev_wg_rx_place *pl = &q->place;
    const uint8_t *text = m->data + WG_MSG_DATA_HEADER_LEN;

    pl->kp = NULL;
    if (pkt_gro_pred_start(&pl->pred, text, m->len - WG_MSG_DATA_MIN_LEN)
        && pl->pred.hdr_len <= NETDEV_WG_RX_PLACE_HDR_MAX) {
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
    size_t text_len = m->len - WG_MSG_DATA_MIN_LEN;
    uint8_t *tail = NULL;

    m->placed = NULL;
    m->pkt = NULL;
    if (pl->kp && pl->kp == m->opener.kp && text_len > pl->pred.hdr_len) {
        tail = netdev_wg_rx_place_tail(q, text_len - pl->pred.hdr_len);
    }
    if (tail && netdev_wg_rx_open_behind(q, m, tail)) {
        m->placed = tail;
        m->placed_ofs = pl->pred.hdr_len;
        pkt_gro_pred_advance(&pl->pred, pl->payload);
        pl->kp = pl->ends ? NULL : pl->kp;
        return;
    } else if (!tail) {
        wg_device_decrypt_finish(&m->opener, m->data, m->len);
    }
    if (m->opener.opened && gro) {
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
