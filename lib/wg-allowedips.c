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
#include "wg-allowedips.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "openvswitch/hmap.h"
#include "openvswitch/list.h"
#include "ovs-rcu.h"
#include "util.h"

/* A path-compressed binary trie per address family.
 *
 * Every node stands for the prefix key/plen ('key' holds the address with
 * all bits past 'plen' cleared).  Its children hold longer prefixes that
 * extend it: child[b] those whose bit number 'plen' (counting from the most
 * significant bit of the address) is b.  A node with a NULL 'peer' is a
 * pure branching node and always has both children; removals keep that
 * invariant, so the trie never holds more than 2 * count - 1 nodes.
 *
 * Every node with a peer is also on the list of that peer's prefixes (a
 * struct wg_aip_peer, found by hashing the peer pointer), so removing or
 * listing one peer's prefixes costs in proportion to that peer's prefixes,
 * not to the whole table: with thousands of peers, removing them one by
 * one (as "replace_peers" and "replace_allowed_ips" in the UAPI do) would
 * otherwise be quadratic.
 *
 * Readers and the writer.  A lookup may run on any thread at the same time
 * as one writer (the caller serializes writers), under OVS RCU: a node's
 * key and length never change once it is in the trie, its children and its
 * peer are RCU pointers, a new node is complete before a slot points to it,
 * and a node taken out is freed only after a grace period.  A removed
 * peer's pointer may be returned by a lookup that began before the removal,
 * so the caller keeps its peers for a grace period too. */

#define WG_AIP_MAX_BYTES 16

/* Where a node hangs: a root or a child pointer. */
struct wg_aip_slot {
    OVSRCU_TYPE(struct wg_aip_node *) node;
};

struct wg_aip_node {
    struct wg_aip_slot child[2];
    OVSRCU_TYPE(void *) peer;   /* NULL for a branching node. */
    struct ovs_list peer_node;  /* In 'nodes' of the peer's wg_aip_peer. */
    uint8_t plen;
    uint8_t family;             /* AF_INET or AF_INET6. */
    uint8_t key[WG_AIP_MAX_BYTES];
};

/* The prefixes of one peer. */
struct wg_aip_peer {
    struct hmap_node hmap_node; /* In 'peers' of struct wg_allowedips. */
    const void *peer;
    struct ovs_list nodes;      /* Contains struct wg_aip_node. */
    size_t n;                   /* Length of 'nodes'. */
};

struct wg_allowedips {
    struct wg_aip_slot root4;
    struct wg_aip_slot root6;
    struct hmap peers;          /* Contains struct wg_aip_peer. */
    size_t count;               /* Prefixes (nodes with a peer). */
    size_t n_nodes;             /* All nodes. */
};

/* Returns the root slot and the address length in bits for 'family', or
 * NULL for an unknown family. */
static struct wg_aip_slot *
wg_aip_root(struct wg_allowedips *t, int family, unsigned int *bits)
{
    if (family == AF_INET) {
        *bits = 32;
        return &t->root4;
    } else if (family == AF_INET6) {
        *bits = 128;
        return &t->root6;
    }
    return NULL;
}

/* The writer's view of what 'slot' points to. */
static struct wg_aip_node *
wg_aip_get(const struct wg_aip_slot *slot)
{
    return ovsrcu_get_protected(struct wg_aip_node *, &slot->node);
}

/* Makes 'slot' point to 'n', which readers may reach from then on. */
static void
wg_aip_set(struct wg_aip_slot *slot, struct wg_aip_node *n)
{
    ovsrcu_set(&slot->node, n);
}

/* The writer's view of the peer of 'n'. */
static void *
wg_aip_owner(const struct wg_aip_node *n)
{
    return ovsrcu_get_protected(void *, &n->peer);
}

/* Returns bit number 'i' (0 is the most significant) of 'addr'. */
static unsigned int
wg_aip_bit(const uint8_t *addr, unsigned int i)
{
    return (addr[i / 8] >> (7 - i % 8)) & 1;
}

/* Returns the number of leading bits that 'a' and 'b' have in common, at
 * most 'max'. */
static unsigned int
wg_aip_common_bits(const uint8_t *a, const uint8_t *b, unsigned int max)
{
    for (unsigned int i = 0; i * 8 < max; i++) {
        uint8_t diff = a[i] ^ b[i];

        if (diff) {
            unsigned int n = i * 8 + raw_clz64(diff) - 56;

            return MIN(n, max);
        }
    }
    return max;
}

/* Returns true if 'addr' lies within the prefix of 'n'. */
static bool
wg_aip_contains(const struct wg_aip_node *n, const uint8_t *addr)
{
    return wg_aip_common_bits(n->key, addr, n->plen) == n->plen;
}

/* Copies 'addr' into the WG_AIP_MAX_BYTES of 'key' with every bit past
 * 'plen' cleared.  Reads only the bytes of 'addr' that 'plen' covers. */
static void
wg_aip_mask(uint8_t *key, const uint8_t *addr, unsigned int plen)
{
    memset(key, 0, WG_AIP_MAX_BYTES);
    memcpy(key, addr, plen / 8);
    if (plen % 8) {
        key[plen / 8] = addr[plen / 8] & (0xff << (8 - plen % 8));
    }
}

/* The per-peer lists. */

static struct wg_aip_peer *
wg_aip_peer_find(const struct wg_allowedips *t, const void *peer)
{
    struct wg_aip_peer *p;

    HMAP_FOR_EACH_WITH_HASH (p, hmap_node, hash_pointer(peer, 0),
                             &t->peers) {
        if (p->peer == peer) {
            return p;
        }
    }
    return NULL;
}

/* Gives node 'n' (a branching node until now) to 'peer'. */
static void
wg_aip_attach(struct wg_allowedips *t, struct wg_aip_node *n, void *peer)
{
    struct wg_aip_peer *p = wg_aip_peer_find(t, peer);

    if (!p) {
        p = xzalloc(sizeof *p);
        p->peer = peer;
        ovs_list_init(&p->nodes);
        hmap_insert(&t->peers, &p->hmap_node, hash_pointer(peer, 0));
    }
    ovs_list_push_back(&p->nodes, &n->peer_node);
    p->n++;
    ovsrcu_set(&n->peer, peer);
}

/* Takes 'n', which has a peer, off the list of that peer's prefixes; its
 * peer pointer stays as it is for readers. */
static void
wg_aip_unlist(struct wg_allowedips *t, struct wg_aip_node *n)
{
    struct wg_aip_peer *p = wg_aip_peer_find(t, wg_aip_owner(n));

    ovs_list_remove(&n->peer_node);
    if (!--p->n) {
        hmap_remove(&t->peers, &p->hmap_node);
        free(p);
    }
}

/* Makes 'n', which has a peer, a branching node. */
static void
wg_aip_detach(struct wg_allowedips *t, struct wg_aip_node *n)
{
    wg_aip_unlist(t, n);
    ovsrcu_set(&n->peer, NULL);
}

static struct wg_aip_node *
wg_aip_node_create(struct wg_allowedips *t, int family, const uint8_t *addr,
                   unsigned int plen, void *peer)
{
    struct wg_aip_node *n = xzalloc(sizeof *n);

    t->n_nodes++;
    ovsrcu_init(&n->child[0].node, NULL);
    ovsrcu_init(&n->child[1].node, NULL);
    ovsrcu_init(&n->peer, NULL);
    wg_aip_mask(n->key, addr, plen);
    n->plen = plen;
    n->family = family;
    if (peer) {
        wg_aip_attach(t, n, peer);
    }
    return n;
}

/* Returns what should replace 'n' in its parent once 'n' may have become a
 * branching node with fewer than two children: 'n' itself, its only child,
 * or NULL.  A node replaced is freed after a grace period: readers may
 * still be on it, and its children stay as they were. */
static struct wg_aip_node *
wg_aip_compact(struct wg_allowedips *t, struct wg_aip_node *n)
{
    struct wg_aip_node *c0 = wg_aip_get(&n->child[0]);
    struct wg_aip_node *c1 = wg_aip_get(&n->child[1]);

    if (wg_aip_owner(n) || (c0 && c1)) {
        return n;
    }
    ovsrcu_postpone(free, n);
    t->n_nodes--;
    return c0 ? c0 : c1;
}

/* Frees the subtree at 'n' at once: only when no reader is left. */
static void
wg_aip_free_tree(struct wg_aip_node *n)
{
    if (n) {
        wg_aip_free_tree(wg_aip_get(&n->child[0]));
        wg_aip_free_tree(wg_aip_get(&n->child[1]));
        free(n);
    }
}

struct wg_allowedips *
wg_allowedips_create(void)
{
    struct wg_allowedips *t = xzalloc(sizeof *t);

    hmap_init(&t->peers);
    return t;
}

void
wg_allowedips_destroy(struct wg_allowedips *t)
{
    if (t) {
        struct wg_aip_peer *p;

        wg_aip_free_tree(wg_aip_get(&t->root4));
        wg_aip_free_tree(wg_aip_get(&t->root6));
        HMAP_FOR_EACH_POP (p, hmap_node, &t->peers) {
            free(p);
        }
        hmap_destroy(&t->peers);
        free(t);
    }
}

/* Inserts 'key'/'plen' (already masked) below 'slot'. */
static void
wg_aip_insert__(struct wg_allowedips *t, struct wg_aip_slot *slot,
                int family, const uint8_t *key, unsigned int plen,
                void *peer)
{
    struct wg_aip_node *n, *up;
    unsigned int common;

    /* Go down while the node's prefix is a proper prefix of the new one. */
    while ((n = wg_aip_get(slot)) != NULL) {
        common = wg_aip_common_bits(key, n->key, MIN(plen, n->plen));
        if (common < n->plen) {
            break;
        } else if (n->plen == plen) {
            if (wg_aip_owner(n) != peer) {
                /* A reader sees the old peer or the new, never none. */
                if (wg_aip_owner(n)) {
                    wg_aip_unlist(t, n);
                } else {
                    t->count++;
                }
                wg_aip_attach(t, n, peer);
            }
            return;
        }
        slot = &n->child[wg_aip_bit(key, n->plen)];
    }

    t->count++;
    if (!n) {
        wg_aip_set(slot, wg_aip_node_create(t, family, key, plen, peer));
        return;
    }

    /* 'n' diverges from the new prefix after 'common' bits: a node for the
     * common part takes its place, with 'n' (and the new prefix, unless that
     * is the common part itself) below it, complete before readers see
     * it. */
    up = wg_aip_node_create(t, family, key, common,
                            common == plen ? peer : NULL);
    wg_aip_set(&up->child[wg_aip_bit(n->key, common)], n);
    if (common < plen) {
        wg_aip_set(&up->child[wg_aip_bit(key, common)],
                   wg_aip_node_create(t, family, key, plen, peer));
    }
    wg_aip_set(slot, up);
}

int
wg_allowedips_insert(struct wg_allowedips *t, int family, const void *addr,
                     unsigned int prefix_len, void *peer)
{
    uint8_t key[WG_AIP_MAX_BYTES];
    struct wg_aip_slot *root;
    unsigned int bits;

    root = wg_aip_root(t, family, &bits);
    if (!root || prefix_len > bits || !peer) {
        return EINVAL;
    }
    wg_aip_mask(key, addr, prefix_len);
    wg_aip_insert__(t, root, family, key, prefix_len, peer);
    return 0;
}

/* Removes 'key'/'plen' (already masked) from the subtree at 'slot' if it
 * belongs to 'peer', compacting the nodes on the way back up. */
static int
wg_aip_remove__(struct wg_allowedips *t, struct wg_aip_slot *slot,
                const uint8_t *key, unsigned int plen, const void *peer)
{
    struct wg_aip_node *n = wg_aip_get(slot), *up;
    int error;

    if (!n || n->plen > plen || !wg_aip_contains(n, key)) {
        return ENOENT;
    }
    if (n->plen < plen) {
        error = wg_aip_remove__(t, &n->child[wg_aip_bit(key, n->plen)],
                                key, plen, peer);
        if (error) {
            return error;
        }
    } else if (!wg_aip_owner(n) || wg_aip_owner(n) != peer) {
        return ENOENT;
    } else {
        wg_aip_detach(t, n);
        t->count--;
    }
    up = wg_aip_compact(t, n);
    if (up != n) {
        wg_aip_set(slot, up);
    }
    return 0;
}

void
wg_allowedips_remove_peer(struct wg_allowedips *t, const void *peer)
{
    struct wg_aip_peer *p;

    /* Each removal may free the node, and the last one 'p'. */
    while ((p = wg_aip_peer_find(t, peer)) != NULL) {
        struct wg_aip_node *n = CONTAINER_OF(ovs_list_front(&p->nodes),
                                             struct wg_aip_node, peer_node);
        uint8_t key[WG_AIP_MAX_BYTES];
        unsigned int plen = n->plen;
        struct wg_aip_slot *root;
        unsigned int bits;
        int error;

        memcpy(key, n->key, sizeof key);
        root = wg_aip_root(t, n->family, &bits);
        error = wg_aip_remove__(t, root, key, plen, peer);
        ovs_assert(!error);
    }
}

void *
wg_allowedips_lookup(const struct wg_allowedips *t, int family,
                     const void *addr_)
{
    const struct wg_aip_node *n;
    const uint8_t *addr = addr_;
    unsigned int bits;
    void *best = NULL;

    if (family == AF_INET) {
        n = ovsrcu_get(struct wg_aip_node *, &t->root4.node);
        bits = 32;
    } else if (family == AF_INET6) {
        n = ovsrcu_get(struct wg_aip_node *, &t->root6.node);
        bits = 128;
    } else {
        return NULL;
    }
    while (n && wg_aip_contains(n, addr)) {
        void *peer = ovsrcu_get(void *, &n->peer);

        if (peer) {
            best = peer;
        }
        if (n->plen >= bits) {
            break;
        }
        n = ovsrcu_get(struct wg_aip_node *,
                       &n->child[wg_aip_bit(addr, n->plen)].node);
    }
    return best;
}

/* Orders nodes by family (IPv4 first), then address, then prefix length:
 * the order of a pre-order walk of the trie, 0-side first. */
static int
wg_aip_node_compare(const void *a_, const void *b_)
{
    const struct wg_aip_node *const *a = a_;
    const struct wg_aip_node *const *b = b_;
    int cmp;

    if ((*a)->family != (*b)->family) {
        return (*a)->family == AF_INET ? -1 : 1;
    }
    cmp = memcmp((*a)->key, (*b)->key, WG_AIP_MAX_BYTES);
    return cmp ? cmp : (int) (*a)->plen - (int) (*b)->plen;
}

void
wg_allowedips_walk_peer(const struct wg_allowedips *t, const void *peer,
                        wg_allowedips_cb *cb, void *aux)
{
    const struct wg_aip_peer *p = wg_aip_peer_find(t, peer);
    const struct wg_aip_node **nodes, *n;
    size_t i = 0;

    if (!p) {
        return;
    }
    nodes = xmalloc(p->n * sizeof *nodes);
    LIST_FOR_EACH (n, peer_node, &p->nodes) {
        nodes[i++] = n;
    }
    qsort(nodes, p->n, sizeof *nodes, wg_aip_node_compare);
    for (i = 0; i < p->n; i++) {
        cb(aux, nodes[i]->family, nodes[i]->key, nodes[i]->plen);
    }
    free(nodes);
}

size_t
wg_allowedips_count(const struct wg_allowedips *t)
{
    return t->count;
}

size_t
wg_allowedips_n_nodes(const struct wg_allowedips *t)
{
    return t->n_nodes;
}

size_t
wg_allowedips_n_peers(const struct wg_allowedips *t)
{
    return hmap_count(&t->peers);
}

#ifdef WG_TEST_HOOKS
/* Test-only accessors (test builds, wg-test-hooks.h). */

int
wg_allowedips_remove_for_test(struct wg_allowedips *t, int family,
                              const void *addr, unsigned int prefix_len,
                              const void *peer)
{
    uint8_t key[WG_AIP_MAX_BYTES];
    struct wg_aip_slot *root;
    unsigned int bits;

    root = wg_aip_root(t, family, &bits);
    if (!root || prefix_len > bits) {
        return EINVAL;
    }
    wg_aip_mask(key, addr, prefix_len);
    return wg_aip_remove__(t, root, key, prefix_len, peer);
}
#endif
