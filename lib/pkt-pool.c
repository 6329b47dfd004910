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

#include "pkt-pool.h"

#include "dp-packet.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/vlog.h"
#include "ovs-thread.h"
#include "packets.h"
#include "util.h"
#include "wg-test-hooks.h"

#ifdef DPDK_NETDEV
#include <rte_errno.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "dpdk.h"
#endif

/* See pkt-pool.h for the contract. */

VLOG_DEFINE_THIS_MODULE(pkt_pool);

#ifdef DPDK_NETDEV
BUILD_ASSERT_DECL(RTE_PKTMBUF_HEADROOM == PKT_POOL_HEADROOM);
BUILD_ASSERT_DECL(PKT_POOL_HEADROOM + PKT_POOL_LARGE_ROOM <= UINT16_MAX);

/* One pool: what it is for and, once made, the mempool. */
struct pkt_pool {
    const char *name;           /* DPDK's name for it (process-wide). */
    size_t room;                /* Data bytes after the headroom. */
    unsigned int n_mbufs;       /* Asked for. */
    unsigned int cache;         /* Per-lcore cache asked for. */
    struct rte_mempool *mp;     /* NULL if not made. */
    unsigned int n_made;        /* Mbufs it has. */
};

/* Smallest room first: a packet takes the first pool it fits.  Written
 * once, by the first caller after DPDK started (pkt_pool_ready()). */
static struct pkt_pool pools[] = {
    { "ovswg_rx_small", PKT_POOL_SMALL_ROOM, PKT_POOL_SMALL_MBUFS, 256,
      NULL, 0 },
    { "ovswg_rx_large", PKT_POOL_LARGE_ROOM, PKT_POOL_LARGE_MBUFS, 16,
      NULL, 0 },
};

/* rte_mempool_obj_iter() callback: marks an mbuf of a new pool as the
 * dp_packet it is (the rest is set each time it is taken). */
static void
pkt_pool_init_mbuf(struct rte_mempool *mp OVS_UNUSED, void *aux OVS_UNUSED,
                   void *obj, unsigned int idx OVS_UNUSED)
{
    dp_packet_init_dpdk(obj);
}

/* The DPDK memory the objects of 'mp' take, in kB. */
static size_t
pkt_pool_kb(const struct rte_mempool *mp)
{
    size_t obj = mp->header_size + mp->elt_size + mp->trailer_size;

    return obj * mp->size / 1024;
}

/* Makes the mempool of 'p' with 'n' mbufs, each marked as the dp_packet
 * it is.  Returns true if it did, else false with rte_errno set. */
static bool
pkt_pool_try(struct pkt_pool *p, unsigned int n)
{
    /* An mbuf's private area holds the rest of the dp_packet. */
    uint16_t priv = sizeof(struct dp_packet) - sizeof(struct rte_mbuf);
    uint16_t data_room = PKT_POOL_HEADROOM + p->room;

    p->mp = rte_pktmbuf_pool_create(p->name, n, MIN(p->cache, n / 4), priv,
                                    data_room, SOCKET_ID_ANY);
    if (!p->mp) {
        return false;
    } else if (rte_mempool_obj_iter(p->mp, pkt_pool_init_mbuf, NULL) != n) {
        rte_mempool_free(p->mp);
        p->mp = NULL;
        rte_errno = EINVAL;
        return false;
    }
    p->n_made = n;
    return true;
}

/* Makes the mempool of 'p' with as many of its mbufs as DPDK has memory
 * for, halving down to PKT_POOL_MIN_MBUFS (a test build may ask for fewer:
 * wg-test-hooks.h). */
static void
pkt_pool_make(struct pkt_pool *p)
{
    unsigned long long int cap = wg_test_rx_pool_mbufs();
    unsigned int n = cap && cap < p->n_mbufs ? cap : p->n_mbufs;
    unsigned int min = MIN(n, PKT_POOL_MIN_MBUFS);

    for (; n >= min; n /= 2) {
        if (pkt_pool_try(p, n)) {
            VLOG_INFO("%s: %u mbufs of %"PRIuSIZE" bytes for received "
                      "packets, %zu kB of DPDK memory", p->name, n, p->room,
                      pkt_pool_kb(p->mp));
            return;
        } else if (rte_errno != ENOMEM) {
            break;
        }
    }
    VLOG_WARN("%s: no DPDK mempool (%s): received packets are allocated "
              "on the heap", p->name, rte_strerror(rte_errno));
}

/* True once DPDK runs; makes the pools at the first call that sees it. */
static bool
pkt_pool_ready(void)
{
    static struct ovsthread_once once = OVSTHREAD_ONCE_INITIALIZER;

    if (!dpdk_available()) {
        return false;
    }
    if (ovsthread_once_start(&once)) {
        for (size_t i = 0; i < ARRAY_SIZE(pools); i++) {
            pkt_pool_make(&pools[i]);
        }
        ovsthread_once_done(&once);
    }
    return true;
}

/* A packet taken from the first pool 'room' and 'headroom' fit, as
 * dp_packet_new() would leave it, or NULL. */
static struct dp_packet *
pkt_pool_get(size_t room, size_t headroom)
{
    if (headroom > PKT_POOL_HEADROOM || !pkt_pool_ready()) {
        return NULL;
    }
    for (size_t i = 0; i < ARRAY_SIZE(pools); i++) {
        if (room <= pools[i].room) {
            struct rte_mbuf *m = pools[i].mp
                                 ? rte_pktmbuf_alloc(pools[i].mp) : NULL;
            struct dp_packet *pkt = (struct dp_packet *) m;

            if (pkt) {
                dp_packet_reset_offsets(pkt);
                pkt_metadata_init(&pkt->md, 0);
                dp_packet_reset_cutlen(pkt);
                dp_packet_reset_offload(pkt);
                dp_packet_init_specific(pkt);
                pkt->packet_type = htonl(PT_ETH);
            }
            return pkt;
        }
    }
    return NULL;
}

bool
pkt_pool_is_pooled(const struct dp_packet *pkt)
{
    const struct rte_mbuf *m = &pkt->mbuf;

    for (size_t i = 0; pkt->source == DPBUF_DPDK && i < ARRAY_SIZE(pools);
         i++) {
        if (pools[i].mp && m->pool == pools[i].mp) {
            return true;
        }
    }
    return false;
}

void
pkt_pool_describe(struct ds *out)
{
    ds_put_cstr(out, "  rx buffers: ");
    if (!pkt_pool_ready()) {
        ds_put_cstr(out, "malloc (DPDK is not initialized)\n");
        return;
    }
    for (size_t i = 0; i < ARRAY_SIZE(pools); i++) {
        const struct pkt_pool *p = &pools[i];

        ds_put_format(out, "%s%s: ", i ? ", " : "", p->name);
        if (p->mp) {
            ds_put_format(out, "%u of %u mbufs free (%zu kB)",
                          rte_mempool_avail_count(p->mp), p->n_made,
                          pkt_pool_kb(p->mp));
        } else {
            ds_put_cstr(out, "not made (malloc)");
        }
    }
    ds_put_char(out, '\n');
}
#else  /* !DPDK_NETDEV */
static struct dp_packet *
pkt_pool_get(size_t room OVS_UNUSED, size_t headroom OVS_UNUSED)
{
    return NULL;
}

bool
pkt_pool_is_pooled(const struct dp_packet *pkt OVS_UNUSED)
{
    return false;
}

void
pkt_pool_describe(struct ds *out)
{
    ds_put_cstr(out, "  rx buffers: malloc (not a DPDK build)\n");
}
#endif /* DPDK_NETDEV */

struct dp_packet *
pkt_pool_new(size_t room, size_t headroom)
{
    struct dp_packet *pkt = pkt_pool_get(room, headroom);

    return pkt ? pkt : dp_packet_new_with_headroom(room, headroom);
}

struct dp_packet *
pkt_pool_clone(const void *data, size_t len, size_t headroom)
{
    struct dp_packet *pkt = pkt_pool_new(len, headroom);

    dp_packet_put(pkt, data, len);
    return pkt;
}

bool
pkt_pool_same_source(const struct dp_packet *a, const struct dp_packet *b)
{
    return a->source == b->source;
}
