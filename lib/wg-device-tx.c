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
#include "openvswitch/vlog.h"
#include "timeval.h"
#include "util.h"
#include "wg-allowedips.h"
#include "wg-device-private.h"
#include "wg-messages.h"
#include "wg-test-hooks.h"

/* The device's send side: handshake initiations and keepalives to a peer,
 * the sealing of data messages under the caller's lock
 * (wg_device_encrypt*()) and without it (reservations of the current
 * keypair, wg_device_reserve_unlocked()), and the taking in, under the
 * lock, of what senders and receivers without it did
 * (wg_device_peer_sync()).  Calls the core of wg-device.c (clocks, peers)
 * below it, never the timers or the receive path. */

VLOG_DEFINE_THIS_MODULE(wg_device_tx);

COVERAGE_DEFINE(wg_initiation_deferred);

static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 20);

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
    if (!dev->identity.has_key) {
        return EINVAL;
    }
    if (!peer->endpoint_len) {
        return ENOTCONN;
    }
    if (dev->defer_initiations && !dev->in_run) {
        defer_initiation(dev, peer, now);
        return 0;
    }
    if (!wg_device_peer_static_ready(dev, peer)) {
        return EINVAL;          /* Not reached: the device has a key. */
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

/* What sealing at once and sealing later share: checks the message of
 * 'inner_len' bytes 'inner' to 'peer' for 'msg' of 'msg_size' bytes, takes
 * its counter and writes its header, the rest in '*sealer' (its keypair
 * in sealer->kp).  Returns the message's length or an enum wg_device_tx
 * value. */
static int
encrypt_start(struct wg_device *dev, struct wg_peer *peer, uint8_t *msg,
              size_t msg_size, const uint8_t *inner, size_t inner_len,
              long long int now, struct wg_device_sealer *sealer)
{
    struct wg_noise_keypair *kp;
    int total = encrypt_check(dev, peer, inner_len, msg_size, now, &kp);

    if (total >= 0
        && !begin_seal(kp, msg, inner, inner_len, padded_len(dev, inner_len),
                       sealer)) {
        return WG_DEVICE_TX_NO_SESSION;
    }
    return total;
}

int
wg_device_encrypt_from(struct wg_device *dev, struct wg_peer *peer,
                       uint8_t *msg, size_t msg_size,
                       const uint8_t *inner, size_t inner_len)
{
    long long int now = wg_device_now(dev);
    struct wg_device_sealer sealer;
    int total;

    total = encrypt_start(dev, peer, msg, msg_size, inner, inner_len, now,
                          &sealer);
    if (total < 0) {
        return total;
    } else if (!finish_seal(&sealer, msg)) {
        VLOG_WARN_RL(&rl, "encryption failed");
        return WG_DEVICE_TX_CRYPTO_ERROR;
    }
    note_data_sent(dev, peer, sealer.kp, inner_len, total, now);
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
    int total;

    total = encrypt_start(dev, peer, msg, msg_size, msg + WG_DEVICE_HEADROOM,
                          inner_len, now, sealer);
    if (total < 0) {
        return total;
    }
    wg_noise_keypair_ref(sealer->kp);
    note_data_sent(dev, peer, sealer->kp, inner_len, total, now);
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
