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
#include <string.h>
#include "unaligned.h"
#include "util.h"
#include "wg-device-private.h"
#include "wg-messages.h"
#include "wg-ratelimiter.h"

/* Handshake and cookie messages received, under the device's lock: their
 * MACs, load and rate limiting, an initiation answered (responder side), a
 * response that completes our handshake (initiator side), a cookie reply
 * stored.  Called by the receive dispatch of wg-device-rx.c, above; calls
 * the core and the send side of the device, below. */

/* Answers 'msg' with a cookie reply.  Returns WG_DEVICE_RX_COOKIE_SENT, or
 * WG_DEVICE_DROP_CRYPTO when the reply could not be made (nothing sent). */
static enum wg_device_rx
send_cookie_reply(struct wg_device *dev, const struct sockaddr *src,
                  socklen_t src_len, const uint8_t *msg, size_t len,
                  long long int now)
{
    /* The sender's index, at the same place in an initiation and in a
     * response. */
    uint32_t sender = le32toh(get_unaligned_u32((const uint32_t *) (msg + 4)));
    struct wg_msg_cookie_reply reply;

    if (!wg_cookie_make_reply(&dev->cookie_checker, &reply, msg, len, sender,
                              src, now)) {
        return WG_DEVICE_DROP_CRYPTO;
    }
    dev->hooks.send(dev->aux, src, src_len, &reply, sizeof reply);
    return WG_DEVICE_RX_COOKIE_SENT;
}

static bool
ratelimiter_allow(struct wg_device *dev, const struct sockaddr *src,
                  long long int now)
{
    if (!src) {
        return false;
    } else if (src->sa_family == AF_INET) {
        return wg_ratelimiter_allow(
            dev->ratelimiter, AF_INET,
            &((const struct sockaddr_in *) src)->sin_addr, now);
    } else if (src->sa_family == AF_INET6) {
        return wg_ratelimiter_allow(
            dev->ratelimiter, AF_INET6,
            &((const struct sockaddr_in6 *) src)->sin6_addr, now);
    }
    return false;
}

/* Checks mac1 always and, under load, mac2 (answering with a cookie reply
 * when it is missing) and the per-source rate.  Returns
 * WG_DEVICE_RX_HANDSHAKE to go on, or what happened instead. */
static enum wg_device_rx
check_handshake_macs(struct wg_device *dev, const struct sockaddr *src,
                     socklen_t src_len, const uint8_t *msg, size_t len,
                     long long int now)
{
    bool under_load = wg_device_is_under_load(dev);

    if (!dev->identity.has_key) {
        return WG_DEVICE_DROP_NO_IDENTITY;
    }
    switch (wg_cookie_validate(&dev->cookie_checker, msg, len, src,
                               under_load, now)) {
    case WG_COOKIE_BAD_MAC1:
        return WG_DEVICE_DROP_BAD_MAC1;
    case WG_COOKIE_MAC1_OK:
        return WG_DEVICE_RX_HANDSHAKE;
    case WG_COOKIE_MAC1_OK_NO_COOKIE:
        return send_cookie_reply(dev, src, src_len, msg, len, now);
    case WG_COOKIE_MAC1_OK_WITH_COOKIE:
    default:
        return (ratelimiter_allow(dev, src, now) ? WG_DEVICE_RX_HANDSHAKE
                : WG_DEVICE_DROP_RATELIMITED);
    }
}

/* Bookkeeping common to every authenticated packet from 'peer'. */
void
wg_device_authenticated_from(struct wg_peer *peer, const struct sockaddr *src,
                             socklen_t src_len, long long int now)
{
    wg_peer_update_endpoint(peer, src, src_len);
    wg_device_peer_sync(peer);
    wg_timers_any_authenticated_packet_received(&peer->timers);
    wg_timers_any_authenticated_packet_traversed(&peer->timers, now);
}

/* Initiation (responder side). */

/* The handshake state of the peer with 'remote_static', with its
 * static-static DH computed now if a key change left it to a later run. */
static struct wg_noise_handshake *
lookup_handshake(void *dev_, const uint8_t remote_static[WG_KEY_LEN])
{
    struct wg_peer *peer = wg_device_peer_lookup(dev_, remote_static);

    if (peer) {
        wg_device_peer_static_ready(dev_, peer);
    }
    return peer ? &peer->handshake : NULL;
}

static enum wg_device_rx
noise_result_to_rx(enum wg_noise_result r)
{
    switch (r) {
    case WG_NOISE_OK:
        return WG_DEVICE_RX_HANDSHAKE;
    case WG_NOISE_ERR_UNKNOWN_PEER:
        return WG_DEVICE_DROP_UNKNOWN_PEER;
    case WG_NOISE_ERR_REPLAY:
        return WG_DEVICE_DROP_HANDSHAKE_REPLAY;
    case WG_NOISE_ERR_FLOOD:
        return WG_DEVICE_DROP_HANDSHAKE_FLOOD;
    case WG_NOISE_ERR_STATE:
        return WG_DEVICE_DROP_STALE_HANDSHAKE;
    case WG_NOISE_ERR_AUTH:
    default:
        return WG_DEVICE_DROP_HANDSHAKE_AUTH;
    }
}

/* Answers a consumed initiation and derives the (unconfirmed) keypair. */
static void
send_response(struct wg_device *dev, struct wg_peer *peer, long long int now)
{
    uint32_t index = wg_peer_new_handshake_index(peer);
    struct wg_msg_response msg;

    wg_timers_ephemeral_key_created(&peer->timers, now);
    if (!wg_noise_create_response(&msg, &peer->handshake, &dev->identity,
                                  index)) {
        wg_peer_index_free(peer->indices, index);
        return;
    }
    if (!wg_cookie_add_macs(&peer->cookie, &msg, sizeof msg, now)) {
        wg_noise_handshake_clear(&peer->handshake);
        wg_peer_index_free(peer->indices, index);
        return;
    }
    if (wg_noise_begin_session(&peer->handshake, &peer->keypairs, now)) {
        wg_timers_session_derived(&peer->timers, now);
        wg_device_peer_sync(peer);
        wg_timers_any_authenticated_packet_traversed(&peer->timers, now);
        wg_timers_any_authenticated_packet_sent(&peer->timers);
        wg_device_send_to_peer(dev, peer, &msg, sizeof msg);
    }
}

enum wg_device_rx
wg_device_rx_initiation(struct wg_device *dev, const struct sockaddr *src,
                        socklen_t src_len, const uint8_t *buf, size_t len,
                        long long int now, struct wg_device_rx_result *out)
{
    const struct wg_msg_initiation *msg = (const void *) buf;
    struct wg_noise_handshake *hs;
    struct wg_peer *peer;
    enum wg_device_rx rx;

    rx = check_handshake_macs(dev, src, src_len, buf, len, now);
    if (rx != WG_DEVICE_RX_HANDSHAKE) {
        return rx;
    }
    rx = noise_result_to_rx(wg_noise_consume_initiation(
                                msg, &dev->identity, lookup_handshake, dev,
                                now, &hs));
    if (rx != WG_DEVICE_RX_HANDSHAKE) {
        return rx;
    }
    peer = CONTAINER_OF(hs, struct wg_peer, handshake);
    peer->rx_bytes += len;
    wg_device_authenticated_from(peer, src, src_len, now);
    send_response(dev, peer, now);
    out->peer = peer;
    return WG_DEVICE_RX_HANDSHAKE;
}

/* Response (initiator side). */

/* The session is usable: let the caller flush its queue, and make sure
 * the responder gets something to confirm the keypair with. */
static void
initiator_session_ready(struct wg_device *dev, struct wg_peer *peer,
                        struct wg_noise_keypair *kp)
{
    wg_device_session_ready(dev, peer);
    if (wg_noise_keypairs_current(&peer->keypairs) == kp
        && !wg_noise_keypair_send_counter(kp)) {
        wg_device_peer_send_keepalive(dev, peer);
    }
}

enum wg_device_rx
wg_device_rx_response(struct wg_device *dev, const struct sockaddr *src,
                      socklen_t src_len, const uint8_t *buf, size_t len,
                      long long int now, struct wg_device_rx_result *out)
{
    const struct wg_msg_response *msg = (const void *) buf;
    uint32_t index = le32toh(msg->receiver);
    struct wg_noise_keypair *kp;
    struct wg_peer *peer;
    enum wg_device_rx rx;

    rx = check_handshake_macs(dev, src, src_len, buf, len, now);
    if (rx != WG_DEVICE_RX_HANDSHAKE) {
        return rx;
    }
    peer = wg_peer_index_lookup(&dev->indices, index);
    if (!peer) {
        return WG_DEVICE_DROP_UNKNOWN_INDEX;
    }
    if (peer->handshake.local_index != index) {
        return WG_DEVICE_DROP_STALE_HANDSHAKE;
    }
    rx = noise_result_to_rx(wg_noise_consume_response(msg, &peer->handshake,
                                                      &dev->identity));
    if (rx != WG_DEVICE_RX_HANDSHAKE) {
        return rx;
    }
    peer->rx_bytes += len;
    wg_device_authenticated_from(peer, src, src_len, now);
    kp = wg_noise_begin_session(&peer->handshake, &peer->keypairs, now);
    if (kp) {
        wg_timers_session_derived(&peer->timers, now);
        wg_timers_handshake_complete(&peer->timers);
        wg_device_wall_clock(dev, &peer->last_handshake);
        initiator_session_ready(dev, peer, kp);
    }
    out->peer = peer;
    return WG_DEVICE_RX_HANDSHAKE;
}

/* Cookie reply. */

enum wg_device_rx
wg_device_rx_cookie_reply(struct wg_device *dev, const uint8_t *buf,
                          long long int now, struct wg_device_rx_result *out)
{
    const struct wg_msg_cookie_reply *msg = (const void *) buf;
    struct wg_peer *peer;

    peer = wg_peer_index_lookup(&dev->indices, le32toh(msg->receiver));
    if (!peer) {
        return WG_DEVICE_DROP_UNKNOWN_INDEX;
    }
    if (!wg_cookie_consume_reply(&peer->cookie, msg, now)) {
        return WG_DEVICE_DROP_BAD_COOKIE;
    }
    out->peer = peer;
    return WG_DEVICE_RX_COOKIE_STORED;
}
