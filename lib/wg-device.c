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
#include "wg-device.h"

#include <endian.h>
#include <errno.h>
#include <string.h>
#include "coverage.h"
#include "hash.h"
#include "openvswitch/vlog.h"
#include "timeval.h"
#include "util.h"
#include "wg-allowedips.h"
#include "wg-device-private.h"
#include "wg-messages.h"
#include "wg-ratelimiter.h"
#include "wg-test-hooks.h"

VLOG_DEFINE_THIS_MODULE(wg_device);

COVERAGE_DEFINE(wg_under_load_enter);
COVERAGE_DEFINE(wg_initiation_deferred);

static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 20);

/* Clocks. */

long long int
wg_device_now(const struct wg_device *dev)
{
    if (dev->clock_frozen) {
        return dev->frozen_now_ms;
    }
    return dev->hooks.now_ms ? dev->hooks.now_ms(dev->aux) : time_msec();
}

void
wg_device_clock_freeze(struct wg_device *dev)
{
    dev->frozen_now_ms = wg_device_now(dev);
    dev->clock_frozen = true;
}

void
wg_device_clock_thaw(struct wg_device *dev)
{
    dev->clock_frozen = false;
}

void
wg_device_wall_clock(const struct wg_device *dev, struct timespec *ts)
{
    if (dev->hooks.wall_clock) {
        dev->hooks.wall_clock(dev->aux, ts);
    } else {
        clock_gettime(CLOCK_REALTIME, ts);
    }
}

/* Lifecycle and identity. */

struct wg_device *
wg_device_create(const struct wg_device_hooks *hooks, void *aux)
{
    struct wg_device *dev = xzalloc(sizeof *dev);

    ovs_assert(hooks && hooks->send);
    wg_crypto_init();
    dev->hooks = *hooks;
    dev->aux = aux;
    hmap_init(&dev->peers_by_key);
    ovs_list_init(&dev->peers);
    ovs_list_init(&dev->initiations_wanted);
    heap_init(&dev->due_peers);
    dev->run_asked_ms = WG_TIMER_OFF;
    wg_peer_index_table_init(&dev->indices);
    wg_peer_endpoint_table_init(&dev->endpoints);
    dev->allowedips = wg_allowedips_create();
    dev->ratelimiter = wg_ratelimiter_create(0);
    wg_cookie_checker_init(&dev->cookie_checker, NULL);
    dev->rekey_after_messages = WG_REKEY_AFTER_MESSAGES;
    atomic_init(&dev->mtu, 0);
    atomic_init(&dev->unlocked_work, false);
    return dev;
}

void
wg_device_destroy(struct wg_device *dev)
{
    if (dev) {
        wg_device_peer_remove_all(dev);
        heap_destroy(&dev->due_peers);
        hmap_destroy(&dev->peers_by_key);
        wg_peer_index_table_destroy(&dev->indices);
        wg_peer_endpoint_table_destroy(&dev->endpoints);
        wg_allowedips_destroy(dev->allowedips);
        wg_ratelimiter_destroy(dev->ratelimiter);
        wg_noise_identity_clear(&dev->identity);
        wg_cookie_checker_clear(&dev->cookie_checker);
        wg_crypto_wipe(dev, sizeof *dev);
        free(dev);
    }
}

/* Removes the peer with public key 'pub', if any, calling 'removing' (if
 * nonnull) first. */
static void
remove_peer_with_key(struct wg_device *dev, const uint8_t pub[WG_KEY_LEN],
                     void (*removing)(void *aux, struct wg_peer *),
                     void *aux)
{
    struct wg_peer *peer = wg_device_peer_lookup(dev, pub);

    if (peer) {
        if (removing) {
            removing(aux, peer);
        }
        wg_device_peer_remove(dev, peer);
    }
}

/* After an identity change: fresh cookie keys, every peer's static-static
 * DH recomputed and its sessions dropped. */
static void
identity_changed(struct wg_device *dev)
{
    struct wg_peer *peer;

    wg_cookie_checker_init(&dev->cookie_checker,
                           dev->identity.has_key
                           ? dev->identity.static_public : NULL);
    LIST_FOR_EACH (peer, list_node, &dev->peers) {
        wg_peer_clear_sessions(peer);
        wg_timers_stop(&peer->timers);
        wg_noise_handshake_precompute(&peer->handshake, &dev->identity);
    }
}

int
wg_device_set_private_key(struct wg_device *dev,
                          const uint8_t priv[WG_KEY_LEN])
{
    struct wg_noise_identity id;

    memset(&id, 0, sizeof id);
    if (!wg_noise_identity_set(&id, priv)) {
        return EINVAL;
    }
    if (id.has_key == dev->identity.has_key
        && !memcmp(&id, &dev->identity, sizeof id)) {
        wg_noise_identity_clear(&id);
        return 0;
    }
    if (id.has_key) {
        remove_peer_with_key(dev, id.static_public, NULL, NULL);
    }
    dev->identity = id;
    wg_noise_identity_clear(&id);
    identity_changed(dev);
    return 0;
}

bool
wg_device_get_private_key(const struct wg_device *dev,
                          uint8_t priv[WG_KEY_LEN])
{
    if (dev->identity.has_key) {
        memcpy(priv, dev->identity.static_private, WG_KEY_LEN);
    }
    return dev->identity.has_key;
}

bool
wg_device_get_public_key(const struct wg_device *dev,
                         uint8_t pub[WG_KEY_LEN])
{
    if (dev->identity.has_key) {
        memcpy(pub, dev->identity.static_public, WG_KEY_LEN);
    }
    return dev->identity.has_key;
}

#ifdef WG_TEST_HOOKS
void
wg_device_set_rekey_after_messages_for_test(struct wg_device *dev,
                                            uint64_t n)
{
    dev->rekey_after_messages = MIN(n, WG_REKEY_AFTER_MESSAGES);
}
#endif

void
wg_device_set_mtu(struct wg_device *dev, unsigned int mtu)
{
    atomic_store_relaxed(&dev->mtu, mtu);
}

/* Load. */

/* Records that 'dev' is under load at 'now', counting and logging the
 * transition into that state. */
static void
mark_under_load(struct wg_device *dev, long long int now)
{
    static struct vlog_rate_limit load_rl = VLOG_RATE_LIMIT_INIT(1, 5);

    if (!wg_device_is_under_load(dev)) {
        COVERAGE_INC(wg_under_load_enter);
        VLOG_INFO_RL(&load_rl, "under handshake load: initiations without a "
                     "valid mac2 get cookie replies, rate limited per "
                     "source");
    }
    dev->load_seen = true;
    dev->last_under_load_ms = now;
}

void
wg_device_note_pending_handshakes(struct wg_device *dev, size_t n)
{
    if (n >= WG_UNDER_LOAD_PENDING_HANDSHAKES) {
        mark_under_load(dev, wg_device_now(dev));
    }
}

void
wg_device_count_handshake(struct wg_device *dev, long long int now)
{
    if (now - dev->load_window_start_ms >= WG_UNDER_LOAD_WINDOW_MS) {
        dev->load_window_start_ms = now;
        dev->load_window_handshakes = 0;
    }
    if (++dev->load_window_handshakes >= WG_UNDER_LOAD_WINDOW_HANDSHAKES) {
        mark_under_load(dev, now);
    }
}

bool
wg_device_is_handshake_msg(const void *msg, size_t len)
{
    const uint8_t *type = msg;

    return ((len == WG_MSG_INITIATION_LEN && type[0] == WG_MSG_INITIATION)
            || (len == WG_MSG_RESPONSE_LEN && type[0] == WG_MSG_RESPONSE));
}

bool
wg_device_is_under_load(const struct wg_device *dev)
{
    return (dev->forced_under_load
            || (dev->load_seen
                && wg_device_now(dev) - dev->last_under_load_ms
                   < WG_UNDER_LOAD_HOLD_MS));
}

/* Peers. */

static uint32_t
key_hash(const uint8_t pub[WG_KEY_LEN])
{
    return hash_bytes(pub, WG_KEY_LEN, 0);
}

struct wg_peer *
wg_device_peer_lookup(const struct wg_device *dev,
                      const uint8_t pub[WG_KEY_LEN])
{
    struct wg_peer *peer;

    HMAP_FOR_EACH_WITH_HASH (peer, key_node, key_hash(pub),
                             &dev->peers_by_key) {
        if (!memcmp(peer->public_key, pub, WG_KEY_LEN)) {
            return peer;
        }
    }
    return NULL;
}

/* True if X25519 with 'pub' gives zero (all-zero or low-order point). */
static bool
key_is_unusable(const uint8_t pub[WG_KEY_LEN])
{
    uint8_t priv[WG_KEY_LEN], shared[WG_KEY_LEN];
    bool bad;

    wg_crypto_generate_private_key(priv);
    bad = !wg_crypto_dh(shared, priv, pub);
    wg_crypto_wipe(priv, sizeof priv);
    wg_crypto_wipe(shared, sizeof shared);
    return bad;
}

/* Gives 'peer' the next receive class, round robin. */
static void
wg_device_next_rx_class(struct wg_device *dev, struct wg_peer *peer)
{
    peer->rx_n_classes = MAX(dev->rx_n_classes, 1);
    peer->rx_class = dev->rx_next_class++ % peer->rx_n_classes;
    dev->rx_next_class %= peer->rx_n_classes;
}

/* The priority of a peer whose timers are next due at 'when' in the
 * device's heap, which puts the highest first. */
static uint64_t
due_priority(long long int when)
{
    return (uint64_t) LLONG_MAX - (uint64_t) MAX(when, 0);
}

/* When the timers of 'peer' are due, as its place in the heap says. */
static long long int
peer_due_ms(const struct wg_peer *peer)
{
    return LLONG_MAX - (long long int) peer->due_node.priority;
}

/* Puts 'peer' in its device's heap as due at 'when'. */
static void
peer_set_due(struct wg_peer *peer, long long int when)
{
    heap_change(peer->due_heap, &peer->due_node, due_priority(when));
}

/* The 'armed' hook of the timers of peer 'peer_': a timer of the peer was
 * set to go off at 'when'. */
static void
peer_timer_armed(void *peer_, long long int when)
{
    struct wg_peer *peer = peer_;

    if (when < peer_due_ms(peer)) {
        peer_set_due(peer, when);
    }
}

int
wg_device_peer_add(struct wg_device *dev, const uint8_t pub[WG_KEY_LEN],
                   struct wg_peer **peerp)
{
    struct wg_peer *peer;

    *peerp = NULL;
    if (wg_device_peer_lookup(dev, pub)) {
        return EEXIST;
    }
    if (key_is_unusable(pub)
        || (dev->identity.has_key
            && !memcmp(pub, dev->identity.static_public, WG_KEY_LEN))) {
        return EINVAL;
    }
    peer = wg_peer_create(pub, &dev->identity, &dev->indices,
                          &dev->endpoints);
    if (!peer) {
        return EINVAL;
    }
    peer->due_heap = &dev->due_peers;
    heap_insert(&dev->due_peers, &peer->due_node, due_priority(WG_TIMER_OFF));
    peer->timers.armed = peer_timer_armed;
    peer->timers.armed_aux = peer;
    wg_device_next_rx_class(dev, peer);
    hmap_insert(&dev->peers_by_key, &peer->key_node, key_hash(pub));
    ovs_list_push_back(&dev->peers, &peer->list_node);
    *peerp = peer;
    return 0;
}

void
wg_device_peer_remove(struct wg_device *dev, struct wg_peer *peer)
{
    if (peer->initiation_wanted) {
        ovs_list_remove(&peer->wanted_node);
    }
    wg_allowedips_remove_peer(dev->allowedips, peer);
    hmap_remove(&dev->peers_by_key, &peer->key_node);
    ovs_list_remove(&peer->list_node);
    heap_remove(&dev->due_peers, &peer->due_node);
    wg_peer_destroy(peer);
}

void
wg_device_peer_remove_own(struct wg_device *dev,
                          const uint8_t priv[WG_KEY_LEN],
                          void (*removing)(void *aux, struct wg_peer *),
                          void *aux)
{
    uint8_t pub[WG_KEY_LEN];

    if (wg_crypto_public_key(pub, priv)) {
        remove_peer_with_key(dev, pub, removing, aux);
    }
}

void
wg_device_peer_remove_all(struct wg_device *dev)
{
    struct wg_peer *peer;

    LIST_FOR_EACH_SAFE (peer, list_node, &dev->peers) {
        wg_device_peer_remove(dev, peer);
    }
}

struct wg_peer *
wg_device_peer_first(const struct wg_device *dev)
{
    struct wg_peer *peer;

    LIST_FOR_EACH (peer, list_node, &dev->peers) {
        return peer;
    }
    return NULL;
}

struct wg_peer *
wg_device_peer_next(const struct wg_device *dev, const struct wg_peer *peer)
{
    return (peer->list_node.next == &dev->peers ? NULL
            : CONTAINER_OF(peer->list_node.next, struct wg_peer, list_node));
}

size_t
wg_device_peer_count(const struct wg_device *dev)
{
    return hmap_count(&dev->peers_by_key);
}

void
wg_device_peer_walk_start(struct wg_device_peer_walk *walk,
                          const struct wg_device *dev)
{
    const struct wg_peer *peer;

    walk->keys = xmalloc(MAX(1, wg_device_peer_count(dev))
                         * sizeof *walk->keys);
    walk->n = walk->next = 0;
    LIST_FOR_EACH (peer, list_node, &dev->peers) {
        memcpy(walk->keys[walk->n++], peer->public_key, WG_KEY_LEN);
    }
}

bool
wg_device_peer_walk_started(const struct wg_device_peer_walk *walk)
{
    return walk->keys != NULL;
}

const struct wg_peer *
wg_device_peer_walk_next(struct wg_device_peer_walk *walk,
                         const struct wg_device *dev)
{
    while (walk->next < walk->n) {
        const struct wg_peer *peer
            = wg_device_peer_lookup(dev, walk->keys[walk->next++]);

        if (peer) {
            return peer;
        }
    }
    return NULL;
}

void
wg_device_peer_walk_destroy(struct wg_device_peer_walk *walk)
{
    free(walk->keys);
    memset(walk, 0, sizeof *walk);
}

bool
wg_device_peer_get_psk(const struct wg_device *dev OVS_UNUSED,
                       const struct wg_peer *peer, uint8_t psk[WG_KEY_LEN])
{
    if (!peer->has_psk) {
        return false;
    }
    memcpy(psk, peer->handshake.preshared_key, WG_KEY_LEN);
    return true;
}

void
wg_device_peer_set_psk(struct wg_device *dev OVS_UNUSED,
                       struct wg_peer *peer, const uint8_t psk[WG_KEY_LEN])
{
    peer->has_psk = psk && !wg_crypto_is_zero(psk, WG_KEY_LEN);
    wg_noise_handshake_set_psk(&peer->handshake, peer->has_psk ? psk : NULL);
}

int
wg_device_peer_set_endpoint(struct wg_device *dev OVS_UNUSED,
                            struct wg_peer *peer, const struct sockaddr *sa,
                            socklen_t len)
{
    return wg_peer_set_endpoint(peer, sa, len) ? 0 : EAFNOSUPPORT;
}

const struct sockaddr *
wg_device_peer_endpoint(const struct wg_peer *peer, socklen_t *lenp)
{
    if (lenp) {
        *lenp = peer->endpoint_len;
    }
    return (peer->endpoint_len
            ? (const struct sockaddr *) &peer->endpoint : NULL);
}

void
wg_device_peer_set_persistent_keepalive(struct wg_device *dev,
                                        struct wg_peer *peer,
                                        unsigned int seconds)
{
    unsigned int old = peer->timers.persistent_keepalive_s;

    wg_timers_set_persistent_keepalive(&peer->timers, seconds,
                                       wg_device_now(dev));
    if (seconds && !old) {
        wg_device_peer_send_keepalive(dev, peer);
    }
}

int
wg_device_peer_allowed_ip_add(struct wg_device *dev, struct wg_peer *peer,
                              int family, const void *addr,
                              unsigned int prefix_len)
{
    return wg_allowedips_insert(dev->allowedips, family, addr, prefix_len,
                                peer);
}

void
wg_device_peer_allowed_ips_clear(struct wg_device *dev, struct wg_peer *peer)
{
    wg_allowedips_remove_peer(dev->allowedips, peer);
}

void
wg_device_peer_allowed_ips_walk(const struct wg_device *dev,
                                const struct wg_peer *peer,
                                void (*cb)(void *aux, int family,
                                           const uint8_t *addr,
                                           unsigned int prefix_len),
                                void *aux)
{
    wg_allowedips_walk_peer(dev->allowedips, peer, cb, aux);
}

struct wg_peer *
wg_device_route(const struct wg_device *dev, int family, const void *addr)
{
    return wg_allowedips_lookup(dev->allowedips, family, addr);
}

/* A counter that unlocked callers add to. */
static uint64_t
read_u64(const atomic_uint64_t *var)
{
    uint64_t value;

    atomic_read_relaxed(CONST_CAST(atomic_uint64_t *, var), &value);
    return value;
}

void
wg_device_peer_get_info(const struct wg_device *dev,
                        const struct wg_peer *peer,
                        struct wg_peer_info *info)
{
    memset(info, 0, sizeof *info);
    memcpy(info->public_key, peer->public_key, WG_KEY_LEN);
    info->has_psk = peer->has_psk;
    info->endpoint = peer->endpoint;
    info->endpoint_len = peer->endpoint_len;
    info->last_handshake = peer->last_handshake;
    info->rx_bytes = peer->rx_bytes + read_u64(&peer->unlocked_rx_bytes);
    info->rx_packets = (peer->rx_packets
                        + read_u64(&peer->unlocked_rx_packets));
    info->tx_bytes = peer->tx_bytes + read_u64(&peer->unlocked_tx_bytes);
    info->tx_packets = (peer->tx_packets
                        + read_u64(&peer->unlocked_tx_packets));
    info->persistent_keepalive_s = peer->timers.persistent_keepalive_s;
    info->has_session = wg_device_peer_has_session(dev, peer);
}

void
wg_device_peer_set_user_data(struct wg_peer *peer, void *data)
{
    peer->user_data = data;
}

void
wg_device_set_rx_classes(struct wg_device *dev, unsigned int n)
{
    struct wg_peer *peer;

    ovs_assert(n >= 1 && n <= 256);
    dev->rx_n_classes = n;
    dev->rx_next_class = 0;
    LIST_FOR_EACH (peer, list_node, &dev->peers) {
        wg_device_next_rx_class(dev, peer);
    }
}

unsigned int
wg_device_peer_rx_class(const struct wg_peer *peer)
{
    return peer->rx_class;
}

void *
wg_device_peer_get_user_data(const struct wg_peer *peer)
{
    return peer->user_data;
}

bool
wg_device_peer_has_session(const struct wg_device *dev,
                           const struct wg_peer *peer)
{
    return wg_noise_keypair_can_send(
        wg_noise_keypairs_current(&peer->keypairs), wg_device_now(dev));
}

/* Transmit. */

void
wg_device_send_to_peer(struct wg_device *dev, struct wg_peer *peer,
                       const void *msg, size_t len)
{
    if (peer->endpoint_len) {
        dev->hooks.send(dev->aux, (const struct sockaddr *) &peer->endpoint,
                        peer->endpoint_len, msg, len);
        peer->tx_bytes += len;
    }
}

/* Leaves the initiation to 'peer' to the next wg_device_run(), which is due
 * at once, and wakes the thread that runs it. */
static void
defer_initiation(struct wg_device *dev, struct wg_peer *peer,
                 long long int now)
{
    if (!peer->initiation_wanted) {
        COVERAGE_INC(wg_initiation_deferred);
        peer->initiation_wanted = true;
        ovs_list_push_back(&dev->initiations_wanted, &peer->wanted_node);
    }
    dev->run_asked_ms = MIN(dev->run_asked_ms, now);
    if (dev->hooks.wake) {
        dev->hooks.wake(dev->aux);
    }
}

int
wg_device_send_initiation(struct wg_device *dev, struct wg_peer *peer,
                          bool is_retry)
{
    long long int now = wg_device_now(dev);
    struct wg_msg_initiation msg;
    struct timespec wall;
    uint32_t index;

    if (!is_retry) {
        peer->timers.handshake_attempts = 0;
    }
    if (!wg_timers_initiation_allowed(&peer->timers, now)) {
        return EAGAIN;
    }
    if (!dev->identity.has_key || !peer->handshake.static_static_valid) {
        return EINVAL;
    }
    if (!peer->endpoint_len) {
        return ENOTCONN;
    }
    if (dev->defer_initiations && !dev->in_run) {
        defer_initiation(dev, peer, now);
        return 0;
    }
    wg_device_wall_clock(dev, &wall);
    wg_timers_ephemeral_key_created(&peer->timers, now);
    index = wg_peer_new_handshake_index(peer);
    if (!wg_noise_create_initiation(&msg, &peer->handshake, &dev->identity,
                                    index, &wall)) {
        wg_peer_index_free(peer->indices, index);
        return EINVAL;
    }
    if (!wg_cookie_add_macs(&peer->cookie, &msg, sizeof msg, now)) {
        wg_noise_handshake_clear(&peer->handshake);
        wg_peer_index_free(peer->indices, index);
        return EIO;
    }
    wg_device_peer_sync(peer);
    wg_timers_any_authenticated_packet_traversed(&peer->timers, now);
    wg_timers_any_authenticated_packet_sent(&peer->timers);
    wg_device_send_to_peer(dev, peer, &msg, sizeof msg);
    wg_timers_handshake_initiated(&peer->timers, now);
    return 0;
}

void
wg_device_session_ready(struct wg_device *dev, struct wg_peer *peer)
{
    if (dev->hooks.session_ready) {
        dev->hooks.session_ready(dev->aux, peer);
    }
}

int
wg_device_peer_initiate(struct wg_device *dev, struct wg_peer *peer)
{
    return wg_device_send_initiation(dev, peer, false);
}

void
wg_device_peer_send_keepalive(struct wg_device *dev, struct wg_peer *peer)
{
    uint8_t msg[WG_MSG_KEEPALIVE_LEN];
    int len = wg_device_encrypt_from(dev, peer, msg, sizeof msg, NULL, 0);

    if (len > 0) {
        dev->hooks.send(dev->aux, (const struct sockaddr *) &peer->endpoint,
                        peer->endpoint_len, msg, len);
    }
}

/* Size of the inner packet once padded: a multiple of 16, but not past the
 * MTU. */
static size_t
padded_len(const struct wg_device *dev, size_t len)
{
    size_t padded = ROUND_UP(len, WG_MESSAGE_PADDING_MULTIPLE);
    unsigned int mtu;

    atomic_read_relaxed(&CONST_CAST(struct wg_device *, dev)->mtu, &mtu);
    return mtu && len <= mtu ? MIN(padded, mtu) : padded;
}

/* Send-side rekeying: after REKEY_AFTER_MESSAGES, or REKEY_AFTER_TIME for
 * the initiator of the session. */
static bool
rekey_due(const struct wg_device *dev, const struct wg_noise_keypair *kp,
          long long int now)
{
    return (wg_noise_keypair_send_counter(kp) > dev->rekey_after_messages
            || (kp->i_am_initiator
                && now - kp->birth_ms >= WG_REKEY_AFTER_TIME_MS));
}

static void
keep_key_fresh_send(struct wg_device *dev, struct wg_peer *peer,
                    const struct wg_noise_keypair *kp, long long int now)
{
    if (rekey_due(dev, kp, now)) {
        wg_device_send_initiation(dev, peer, false);
    }
}

/* Writes the header of a data message with counter 'counter' of 'kp';
 * '*sealer' is what finish_seal() needs to seal the inner packet 'inner'
 * of 'inner_len' bytes, padded to 'padded', into it. */
static void
write_header(struct wg_noise_keypair *kp, uint64_t counter, uint8_t *msg,
             const uint8_t *inner, size_t inner_len, size_t padded,
             struct wg_device_sealer *sealer)
{
    struct wg_msg_data *hdr = (struct wg_msg_data *) msg;

    sealer->kp = kp;
    sealer->counter = counter;
    sealer->inner = inner;
    sealer->inner_len = inner_len;
    sealer->padded = padded;
    hdr->type = htole32(WG_MSG_DATA);
    hdr->receiver = htole32(kp->remote_index);
    hdr->counter = htole64(counter);
}

/* The same with the next counter of 'kp'.  Returns false if 'kp' has no
 * counter left (another sender may have taken the last one since the
 * caller checked). */
static bool
begin_seal(struct wg_noise_keypair *kp, uint8_t *msg, const uint8_t *inner,
           size_t inner_len, size_t padded, struct wg_device_sealer *sealer)
{
    uint64_t counter;

    sealer->kp = kp;
    if (!wg_noise_keypair_take_counters(kp, 1, &counter)) {
        return false;
    }
    write_header(kp, counter, msg, inner, inner_len, padded, sealer);
    return true;
}

/* Seals the inner packet, with its padding, into 'msg' (in place if it is
 * at msg + WG_DEVICE_HEADROOM).  Reads only the keypair's send key. */
static bool
finish_seal(const struct wg_device_sealer *sealer, uint8_t *msg)
{
    return wg_aead_seal_padded(sealer->kp->send_key, sealer->counter,
                               msg + WG_DEVICE_HEADROOM, sealer->inner,
                               sealer->inner_len,
                               sealer->padded - sealer->inner_len);
}

/* After a message of 'total' bytes ('inner_len' of them inner packet) went
 * to 'peer' with 'kp': its counters, its timers, a rekey if due. */
static void
note_data_sent(struct wg_device *dev, struct wg_peer *peer,
               const struct wg_noise_keypair *kp, size_t inner_len,
               size_t total, long long int now)
{
    wg_device_peer_sync(peer);
    peer->tx_bytes += total;
    peer->tx_packets++;
    wg_timers_any_authenticated_packet_traversed(&peer->timers, now);
    wg_timers_any_authenticated_packet_sent(&peer->timers);
    if (inner_len) {
        wg_timers_data_sent(&peer->timers, now);
    }
    keep_key_fresh_send(dev, peer, kp, now);
}

/* The checks of an encryption for 'peer' of 'inner_len' bytes into
 * 'msg_size': returns the message's length, or an enum wg_device_tx value,
 * and the keypair to use in '*kpp'. */
static int
encrypt_check(struct wg_device *dev, struct wg_peer *peer, size_t inner_len,
              size_t msg_size, long long int now,
              struct wg_noise_keypair **kpp)
{
    struct wg_noise_keypair *kp = wg_noise_keypairs_current(&peer->keypairs);
    size_t total;

    if (!peer->endpoint_len) {
        return WG_DEVICE_TX_NO_ENDPOINT;
    }
    if (!wg_noise_keypair_can_send(kp, now)) {
        wg_device_send_initiation(dev, peer, false);
        return WG_DEVICE_TX_NO_SESSION;
    }
    total = WG_DEVICE_HEADROOM + padded_len(dev, inner_len) + WG_AEAD_TAG_LEN;
    if (total > msg_size || total > INT_MAX) {
        return WG_DEVICE_TX_NO_ROOM;
    }
    *kpp = kp;
    return total;
}

int
wg_device_encrypt_from(struct wg_device *dev, struct wg_peer *peer,
                       uint8_t *msg, size_t msg_size,
                       const uint8_t *inner, size_t inner_len)
{
    long long int now = wg_device_now(dev);
    struct wg_device_sealer sealer;
    struct wg_noise_keypair *kp;
    int total;

    total = encrypt_check(dev, peer, inner_len, msg_size, now, &kp);
    if (total < 0) {
        return total;
    }
    if (!begin_seal(kp, msg, inner, inner_len, padded_len(dev, inner_len),
                    &sealer)) {
        return WG_DEVICE_TX_NO_SESSION;
    } else if (!finish_seal(&sealer, msg)) {
        VLOG_WARN_RL(&rl, "encryption failed");
        return WG_DEVICE_TX_CRYPTO_ERROR;
    }
    note_data_sent(dev, peer, kp, inner_len, total, now);
    return total;
}

int
wg_device_encrypt(struct wg_device *dev, struct wg_peer *peer,
                  uint8_t *msg, size_t inner_len, size_t msg_size)
{
    return wg_device_encrypt_from(dev, peer, msg, msg_size,
                                  msg + WG_DEVICE_HEADROOM, inner_len);
}

int
wg_device_encrypt_begin(struct wg_device *dev, struct wg_peer *peer,
                        uint8_t *msg, size_t inner_len, size_t msg_size,
                        struct wg_device_sealer *sealer)
{
    long long int now = wg_device_now(dev);
    uint8_t *inner = msg + WG_DEVICE_HEADROOM;
    struct wg_noise_keypair *kp;
    int total;

    total = encrypt_check(dev, peer, inner_len, msg_size, now, &kp);
    if (total < 0) {
        return total;
    }
    if (!begin_seal(kp, msg, inner, inner_len, padded_len(dev, inner_len),
                    sealer)) {
        return WG_DEVICE_TX_NO_SESSION;
    }
    wg_noise_keypair_ref(kp);
    note_data_sent(dev, peer, kp, inner_len, total, now);
    return total;
}

long long int
wg_device_now_unlocked(const struct wg_device *dev)
{
    return dev->hooks.now_ms ? dev->hooks.now_ms(dev->aux) : time_msec();
}

int
wg_device_reserve_unlocked(struct wg_device *dev, struct wg_peer *peer,
                           size_t n, long long int now,
                           struct wg_device_reservation *r)
{
    struct wg_noise_keypair *kp = wg_noise_keypairs_current(&peer->keypairs);

    memset(r, 0, sizeof *r);
    if (!n || !wg_noise_keypair_can_send(kp, now) || rekey_due(dev, kp, now)
        || !wg_noise_keypair_try_ref(kp)) {
        return WG_DEVICE_TX_LOCKED;
    } else if (!wg_noise_keypair_take_counters(kp, n, &r->next)) {
        wg_noise_keypair_unref(kp);
        return WG_DEVICE_TX_LOCKED;
    }
    for (size_t i = 1; i < n; i++) {
        wg_noise_keypair_ref(kp);
    }
    r->kp = kp;
    r->left = n;
    return 0;
}

int
wg_device_encrypt_begin_reserved(struct wg_device *dev,
                                 struct wg_device_reservation *r,
                                 uint8_t *msg, size_t inner_len,
                                 size_t msg_size,
                                 struct wg_device_sealer *sealer)
{
    size_t padded = padded_len(dev, inner_len);
    size_t total = WG_DEVICE_HEADROOM + padded + WG_AEAD_TAG_LEN;

    ovs_assert(r->left);
    if (total > msg_size || total > INT_MAX) {
        return WG_DEVICE_TX_NO_ROOM;
    }
    write_header(r->kp, r->next++, msg, msg + WG_DEVICE_HEADROOM, inner_len,
                 padded, sealer);
    r->left--;
    return total;
}

void
wg_device_reservation_release(struct wg_device_reservation *r)
{
    for (; r->left; r->left--) {
        wg_noise_keypair_unref(r->kp);
    }
}

int
wg_device_encrypt_begin_unlocked(struct wg_device *dev, struct wg_peer *peer,
                                 uint8_t *msg, size_t inner_len,
                                 size_t msg_size, long long int now,
                                 struct wg_device_sealer *sealer)
{
    struct wg_device_reservation r;
    int n = wg_device_reserve_unlocked(dev, peer, 1, now, &r);

    if (!n) {
        n = wg_device_encrypt_begin_reserved(dev, &r, msg, inner_len,
                                             msg_size, sealer);
        wg_device_reservation_release(&r);
    }
    return n;
}

/* Stores 'value' in '*var' unless it is there already: senders on several
 * threads then share the cache line rather than bounce it. */
static void
store_if_new(atomic_llong *var, long long int value)
{
    long long int old;

    atomic_read_relaxed(var, &old);
    if (old != value) {
        atomic_store_relaxed(var, value);
    }
}

/* Stores 'value' in '*var' if it holds 0 (nothing since the last sync). */
static void
store_if_first(atomic_llong *var, long long int value)
{
    long long int none;

    atomic_read_relaxed(var, &none);
    if (!none) {
        atomic_compare_exchange_strong_relaxed(var, &none, value);
    }
}

/* Asks wg_device_run() to take in what unlocked callers left. */
static void
flag_unlocked_work(struct wg_device *dev)
{
    bool flagged;

    atomic_read_relaxed(&dev->unlocked_work, &flagged);
    if (!flagged) {
        atomic_store_relaxed(&dev->unlocked_work, true);
    }
}

void
wg_device_note_sent_unlocked(struct wg_device *dev, struct wg_peer *peer,
                             size_t n_msgs, size_t bytes, bool data,
                             long long int now)
{
    uint64_t orig;

    atomic_add_relaxed(&peer->unlocked_tx_bytes, bytes, &orig);
    atomic_add_relaxed(&peer->unlocked_tx_packets, n_msgs, &orig);
    store_if_new(&peer->unlocked_last_ms, now);
    if (data) {
        store_if_first(&peer->unlocked_first_data_ms, now);
    }
    flag_unlocked_work(dev);
}

void
wg_device_note_received_unlocked(struct wg_device *dev,
                                 const struct wg_device_rx_run *run)
{
    struct wg_peer *peer = run->peer;
    uint64_t orig;

    if (run->packets) {
        atomic_add_relaxed(&peer->unlocked_rx_bytes, run->bytes, &orig);
        atomic_add_relaxed(&peer->unlocked_rx_packets, run->packets, &orig);
    }
    store_if_new(&peer->unlocked_rx_last_ms, run->last_ms);
    if (run->first_data_ms) {
        store_if_first(&peer->unlocked_rx_first_data_ms, run->first_data_ms);
    }
    flag_unlocked_work(dev);
}

bool
wg_device_peer_endpoint_copy(const struct wg_peer *peer,
                             struct sockaddr_storage *ss, socklen_t *len)
{
    return wg_peer_endpoint_copy(peer, ss, len);
}

static uint64_t
take_u64(atomic_uint64_t *var)
{
    return atomic_exchange_explicit(var, 0, memory_order_relaxed);
}

static long long int
take_ms(atomic_llong *var)
{
    return atomic_exchange_explicit(var, 0, memory_order_relaxed);
}

/* The timer events of unlocked sends: the latest message at 'last', the
 * first data message at 'first' (0: none). */
static void
sync_sent(struct wg_peer *peer, long long int first, long long int last)
{
    if (last) {
        wg_timers_any_authenticated_packet_traversed(&peer->timers, last);
        wg_timers_any_authenticated_packet_sent(&peer->timers);
    }
    if (first) {
        wg_timers_data_sent(&peer->timers, first);
    }
}

/* The same for unlocked receives. */
static void
sync_received(struct wg_peer *peer, long long int first, long long int last)
{
    if (last) {
        wg_timers_any_authenticated_packet_received(&peer->timers);
        wg_timers_any_authenticated_packet_traversed(&peer->timers, last);
    }
    if (first) {
        wg_timers_data_received(&peer->timers, first);
    }
}

void
wg_device_peer_sync(struct wg_peer *peer)
{
    long long int tx_first, tx_last, rx_first, rx_last;

    peer->tx_bytes += take_u64(&peer->unlocked_tx_bytes);
    peer->tx_packets += take_u64(&peer->unlocked_tx_packets);
    peer->rx_bytes += take_u64(&peer->unlocked_rx_bytes);
    peer->rx_packets += take_u64(&peer->unlocked_rx_packets);
    tx_first = take_ms(&peer->unlocked_first_data_ms);
    tx_last = take_ms(&peer->unlocked_last_ms);
    rx_first = take_ms(&peer->unlocked_rx_first_data_ms);
    rx_last = take_ms(&peer->unlocked_rx_last_ms);

    /* Each side's events in one go, the side that acted last after the
     * other: the timers end as the later events leave them (a receive
     * stops the new-handshake timer that a send before it started, a send
     * stops the keepalive that a receive before it asked for), and each
     * deadline is set from a real event's time, at most one sync period
     * from where the kernel's per-packet timers would put it. */
    if (rx_last > tx_last) {
        sync_sent(peer, tx_first, tx_last);
        sync_received(peer, rx_first, rx_last);
    } else {
        sync_received(peer, rx_first, rx_last);
        sync_sent(peer, tx_first, tx_last);
    }
}

void
wg_device_encrypt_cancel(struct wg_device_sealer *sealer)
{
    wg_noise_keypair_unref(sealer->kp);
    sealer->kp = NULL;
}

bool
wg_device_encrypt_finish(struct wg_device_sealer *sealer, uint8_t *msg)
{
    bool ok = !wg_test_seal_fails() && finish_seal(sealer, msg);

    if (!ok) {
        VLOG_WARN_RL(&rl, "encryption failed");
    }
    wg_noise_keypair_unref(sealer->kp);
    sealer->kp = NULL;
    return ok;
}

/* Timers. */

struct timer_ctx {
    struct wg_device *dev;
    struct wg_peer *peer;
};

static void
timer_send_initiation(void *ctx_, bool is_retry)
{
    struct timer_ctx *ctx = ctx_;

    wg_device_send_initiation(ctx->dev, ctx->peer, is_retry);
}

static void
timer_give_up(void *ctx_)
{
    struct timer_ctx *ctx = ctx_;
    char name[WG_PEER_NAME_LEN];

    VLOG_INFO_RL(&rl, "peer %s: handshake did not complete after %d s, "
                 "giving up", wg_peer_name(ctx->peer, name),
                 WG_REKEY_ATTEMPT_TIME_MS / 1000);
    if (ctx->dev->hooks.handshake_failed) {
        ctx->dev->hooks.handshake_failed(ctx->dev->aux, ctx->peer);
    }
}

static void
timer_send_keepalive(void *ctx_)
{
    struct timer_ctx *ctx = ctx_;

    wg_device_peer_send_keepalive(ctx->dev, ctx->peer);
}

static void
timer_zero_key_material(void *ctx_)
{
    struct timer_ctx *ctx = ctx_;

    wg_peer_clear_sessions(ctx->peer);
}

static const struct wg_timers_actions timer_actions = {
    .send_initiation = timer_send_initiation,
    .give_up = timer_give_up,
    .send_keepalive = timer_send_keepalive,
    .zero_key_material = timer_zero_key_material,
};

/* Sends the initiations deferred since the last run, in the order they
 * were asked for (each checked again against its rate limit). */
static void
run_deferred_initiations(struct wg_device *dev)
{
    struct wg_peer *peer;

    LIST_FOR_EACH_POP (peer, wanted_node, &dev->initiations_wanted) {
        peer->initiation_wanted = false;
        wg_device_send_initiation(dev, peer, false);
    }
}

void
wg_device_set_deferred(struct wg_device *dev, bool defer)
{
    dev->defer_initiations = defer;
}

/* When senders without the lock last sent and wg_device_run() should
 * take in what they did, or WG_TIMER_OFF. */
static long long int
sync_deadline(const struct wg_device *dev)
{
    bool sends;

    atomic_read_relaxed(&CONST_CAST(struct wg_device *, dev)->unlocked_work,
                        &sends);
    return sends ? dev->last_sync_ms + WG_DEVICE_SYNC_MS : WG_TIMER_OFF;
}

/* The main loop calls wg_device_run() and wg_device_next_deadline() on
 * every iteration, and a port may have tens of thousands of peers: neither
 * looks at more peers than it has work for.  Each peer is in
 * 'dev->due_peers' by when it is due, which every deadline set lowers
 * (the timers' 'armed' hook) and which is thus never later than the
 * peer's next deadline; a timer stopped early at worst makes one look too
 * many, which sets it exact again.  A run takes in what senders and
 * receivers without the lock did for every peer only once per
 * WG_DEVICE_SYNC_MS while there is any, and otherwise only for the peers
 * whose timers are due. */

/* Takes in what unlocked senders and receivers did for every peer. */
static void
sync_all_peers(struct wg_device *dev, long long int now)
{
    struct wg_peer *peer;

    atomic_store_relaxed(&dev->unlocked_work, false);
    dev->last_sync_ms = now;
    LIST_FOR_EACH (peer, list_node, &dev->peers) {
        wg_device_peer_sync(peer);
    }
}

/* Takes the peers whose timers are due at 'now' out of their order into
 * 'due', due at WG_TIMER_OFF until they have run: a timer that
 * their actions set again for 'now' waits for the next run. */
static void
take_due_peers(struct wg_device *dev, long long int now, struct ovs_list *due)
{
    while (!heap_is_empty(&dev->due_peers)) {
        struct wg_peer *peer = CONTAINER_OF(heap_max(&dev->due_peers),
                                            struct wg_peer, due_node);

        if (peer_due_ms(peer) > now) {
            break;
        }
        peer_set_due(peer, WG_TIMER_OFF);
        ovs_list_push_back(due, &peer->due_run_node);
    }
}

/* Fires the timers of the peers whose timers are due at 'now'. */
static void
run_due_timers(struct wg_device *dev, long long int now)
{
    struct ovs_list due = OVS_LIST_INITIALIZER(&due);
    struct wg_peer *peer;

    take_due_peers(dev, now, &due);
    LIST_FOR_EACH_POP (peer, due_run_node, &due) {
        struct timer_ctx ctx = { .dev = dev, .peer = peer };
        long long int next;

        wg_device_peer_sync(peer);
        next = wg_timers_run(&peer->timers, now, &timer_actions, &ctx);
        dev->n_peer_timer_runs++;
        peer_set_due(peer, next);
    }
}

long long int
wg_device_run(struct wg_device *dev)
{
    long long int now = wg_device_now(dev);

    if (now < wg_device_next_deadline(dev)) {
        return wg_device_next_deadline(dev);
    }
    dev->run_asked_ms = WG_TIMER_OFF;
    dev->in_run = true;
    run_deferred_initiations(dev);
    if (sync_deadline(dev) <= now) {
        sync_all_peers(dev, now);
    }
    run_due_timers(dev, now);
    dev->in_run = false;
    return wg_device_next_deadline(dev);
}

long long int
wg_device_next_deadline(const struct wg_device *dev)
{
    long long int next = MIN(dev->run_asked_ms, sync_deadline(dev));

    if (!heap_is_empty(&dev->due_peers)) {
        const struct wg_peer *peer = CONTAINER_OF(heap_max(&dev->due_peers),
                                                  struct wg_peer, due_node);

        next = MIN(next, peer_due_ms(peer));
    }
    return next;
}

#ifdef WG_TEST_HOOKS
/* Test-only accessors (test builds, wg-test-hooks.h). */

void
wg_device_set_under_load_for_test(struct wg_device *dev, bool under_load)
{
    dev->forced_under_load = under_load;
}

void
wg_device_get_sizes_for_test(const struct wg_device *dev,
                             struct wg_device_sizes *sizes)
{
    sizes->n_peers = hmap_count(&dev->peers_by_key);
    sizes->n_prefixes = wg_allowedips_count(dev->allowedips);
    sizes->n_trie_nodes = wg_allowedips_n_nodes(dev->allowedips);
    sizes->n_prefix_lists = wg_allowedips_n_peers(dev->allowedips);
    sizes->n_indices = wg_peer_index_count(&dev->indices);
    sizes->n_due = heap_count(&dev->due_peers);
}

uint64_t
wg_device_timer_runs_for_test(const struct wg_device *dev)
{
    return dev->n_peer_timer_runs;
}
#endif
