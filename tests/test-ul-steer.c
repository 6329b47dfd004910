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
#include "netdev-wireguard-underlay.h"
#include "netdev-wireguard-underlay-private.h"

#include <string.h>
#include "dp-packet.h"
#include "test-ul.h"
#include "udp-batch.h"
#include "util.h"
#include "wg-messages.h"
#include "wgtest.h"

/* The datapath underlay's receive queues (lib/netdev-wireguard-underlay-
 * rx.c): a batch of WireGuard frames handed to a companion whose port has
 * several receive queues reaches each queue by the socket mode's steering
 * rule (data messages and cookie replies by the lowest byte of their
 * receiver index, responses by that of theirs, modulo n_rxq; initiations
 * to queue 0), every datagram exactly once, and lowering n_rxq drops what
 * waited for a queue removed. */

#define UST_N_RXQ 4
static const struct eth_addr ust_mac = ETH_ADDR_C(02, 00, 00, 00, 00, 01);
static const struct eth_addr ust_peer_mac
    = ETH_ADDR_C(52, 54, 00, 00, 00, 0a);

static struct ul_frame_host
ust_host(const char *ip4, struct eth_addr mac)
{
    struct ul_frame_host h = { .mac = mac, .port = 51820, .mtu = 1500 };
    struct in6_addr a = ult_addr(ip4);

    h.ip4 = in6_addr_get_mapped_ipv4(&a);
    return h;
}

/* A companion, paired, with 'n_rxq' queues, outside any netdev class. */
static struct netdev_wg_ul *
ust_companion(int n_rxq)
{
    struct netdev_wg_ul *ul = xzalloc(sizeof *ul);

    ovs_mutex_init(&ul->mutex);
    ovs_mutex_init(&ul->dp_mutex);
    ovs_mutex_lock(&ul->mutex);
    ul->host = ust_host("192.0.2.1", ust_mac);
    ul->neigh = ul_neigh_create(NULL);
    ul->paired = true;
    ovs_mutex_unlock(&ul->mutex);
    netdev_wg_ul_rx_init(ul);
    netdev_wg_ul_set_n_rxq(ul, n_rxq);
    return ul;
}

static void
ust_destroy(struct netdev_wg_ul *ul)
{
    netdev_wg_ul_rx_destroy(ul);
    ovs_mutex_lock(&ul->mutex);
    ul_neigh_destroy(ul->neigh);
    ovs_mutex_unlock(&ul->mutex);
    ovs_mutex_destroy(&ul->mutex);
    ovs_mutex_destroy(&ul->dp_mutex);
    free(ul);
}

/* A frame from the peer to the companion holding a message of 'type' and
 * 'len' bytes whose receiver index (if it has one) starts with byte
 * 'idx'. */
static struct dp_packet *
ust_frame(uint8_t type, size_t len, uint8_t idx)
{
    struct ul_frame_host peer = ust_host("192.0.2.2", ust_peer_mac);
    struct ul_frame_tx tx = {
        .dst_mac = ust_mac, .dst = ult_addr("192.0.2.1"),
        .dst_port = 51820, .ttl = 64,
    };
    uint8_t frame[UL_FRAME_HEADROOM4 + WG_MSG_INITIATION_LEN];
    uint8_t *msg = frame + UL_FRAME_HEADROOM4;
    size_t flen;

    memset(frame, 0, sizeof frame);
    msg[0] = type;
    msg[type == WG_MSG_RESPONSE ? 8 : 4] = idx;
    flen = ul_frame_encap(frame, len, &peer, &tx);
    WGTEST_CHECK(flen == UL_FRAME_HEADROOM4 + len);
    return dp_packet_clone_data(frame, flen);
}

/* Reads queue 'q' of 'ul' dry; checks that every datagram there belongs
 * to it among 'n_q' queues.  Returns how many there were. */
static size_t
ust_drain(struct netdev_wg_ul *ul, int q, int n_q)
{
    static uint8_t mem[4][UDP_BATCH_RX_BUF_SIZE];
    struct udp_batch_rx_buf bufs[4];
    size_t n_bufs, total = 0;

    for (size_t i = 0; i < ARRAY_SIZE(bufs); i++) {
        bufs[i] = (struct udp_batch_rx_buf) {
            .data = mem[i], .size = sizeof mem[i],
        };
    }
    while ((n_bufs = netdev_wg_ul_read(ul, q, bufs, ARRAY_SIZE(bufs)))) {
        for (size_t i = 0; i < n_bufs; i++) {
            struct udp_batch_seg seg;
            const uint8_t *m;
            size_t len;

            udp_batch_seg_init(&seg, bufs[i].data, bufs[i].len,
                               bufs[i].gro_size);
            while (udp_batch_seg_next(&seg, (const void **) &m, &len)) {
                int want = (m[0] == WG_MSG_INITIATION ? 0
                            : m[m[0] == WG_MSG_RESPONSE ? 8 : 4] % n_q);

                WGTEST_CHECK(want == q);
                total++;
            }
        }
    }
    return total;
}

/* Hands 'ul' data messages with receiver bytes 0..n-1, one response with
 * byte 6, one cookie reply with byte 5 and one initiation, in one batch. */
static void
ust_send(struct netdev_wg_ul *ul, size_t n)
{
    struct dp_packet_batch batch;

    dp_packet_batch_init(&batch);
    for (size_t i = 0; i < n; i++) {
        dp_packet_batch_add(&batch, ust_frame(WG_MSG_DATA,
                                              WG_MSG_DATA_MIN_LEN, i));
    }
    dp_packet_batch_add(&batch, ust_frame(WG_MSG_RESPONSE,
                                          WG_MSG_RESPONSE_LEN, 6));
    dp_packet_batch_add(&batch, ust_frame(WG_MSG_COOKIE_REPLY,
                                          WG_MSG_COOKIE_REPLY_LEN, 5));
    dp_packet_batch_add(&batch, ust_frame(WG_MSG_INITIATION,
                                          WG_MSG_INITIATION_LEN, 0));
    netdev_wg_ul_rx_frames(ul, &batch);
}

static void
test_ul_steer(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    struct netdev_wg_ul *ul = ust_companion(UST_N_RXQ);
    size_t got[UST_N_RXQ];

    /* 8 data messages: 2 per queue; response 6 -> 2, cookie 5 -> 1,
     * initiation -> 0. */
    ust_send(ul, 8);
    for (int q = 0; q < UST_N_RXQ; q++) {
        got[q] = ust_drain(ul, q, UST_N_RXQ);
    }
    WGTEST_CHECK(got[0] == 3 && got[1] == 3 && got[2] == 3 && got[3] == 2);

    /* One queue left: everything there; what waited elsewhere is gone. */
    ust_send(ul, 8);
    netdev_wg_ul_set_n_rxq(ul, 1);
    WGTEST_CHECK(ust_drain(ul, 0, 1) == 3);
    ust_send(ul, 8);
    WGTEST_CHECK(ust_drain(ul, 0, 1) == 11);

    /* The queues back: nothing stale in them. */
    netdev_wg_ul_set_n_rxq(ul, UST_N_RXQ);
    for (int q = 1; q < UST_N_RXQ; q++) {
        WGTEST_CHECK(ust_drain(ul, q, UST_N_RXQ) == 0);
    }
    ust_destroy(ul);
}
WGTEST_REGISTER("ul-steer", test_ul_steer);
