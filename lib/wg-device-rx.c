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

#include <arpa/inet.h>
#include <endian.h>
#include <netinet/in.h>
#include <string.h>
#include "coverage.h"
#include "openvswitch/vlog.h"
#include "pkt-ip.h"
#include "unaligned.h"
#include "util.h"
#include "wg-allowedips.h"
#include "wg-device-private.h"
#include "wg-messages.h"
#include "wg-ratelimiter.h"

VLOG_DEFINE_THIS_MODULE(wg_device_rx);

static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 20);

/* Every outcome: its enum value, name and coverage counter. */
#define WG_DEVICE_RX_OUTCOMES                                           \
    RX(WG_DEVICE_RX_DATA, "data", wg_rx_data)                           \
    RX(WG_DEVICE_RX_KEEPALIVE, "keepalive", wg_rx_keepalive)            \
    RX(WG_DEVICE_RX_HANDSHAKE, "handshake", wg_rx_handshake)            \
    RX(WG_DEVICE_RX_COOKIE_SENT, "cookie-sent", wg_rx_cookie_sent)      \
    RX(WG_DEVICE_RX_COOKIE_STORED, "cookie-stored", wg_rx_cookie_stored) \
    RX(WG_DEVICE_DROP_TOO_SHORT, "too-short", wg_drop_too_short)        \
    RX(WG_DEVICE_DROP_BAD_LENGTH, "bad-length", wg_drop_bad_length)     \
    RX(WG_DEVICE_DROP_BAD_TYPE, "bad-type", wg_drop_bad_type)           \
    RX(WG_DEVICE_DROP_NO_IDENTITY, "no-identity", wg_drop_no_identity)  \
    RX(WG_DEVICE_DROP_BAD_MAC1, "bad-mac1", wg_drop_bad_mac1)           \
    RX(WG_DEVICE_DROP_RATELIMITED, "ratelimited", wg_drop_ratelimited)  \
    RX(WG_DEVICE_DROP_HANDSHAKE_AUTH, "handshake-auth",                 \
       wg_drop_handshake_auth)                                          \
    RX(WG_DEVICE_DROP_UNKNOWN_PEER, "unknown-peer", wg_drop_unknown_peer) \
    RX(WG_DEVICE_DROP_HANDSHAKE_REPLAY, "handshake-replay",             \
       wg_drop_handshake_replay)                                        \
    RX(WG_DEVICE_DROP_HANDSHAKE_FLOOD, "handshake-flood",               \
       wg_drop_handshake_flood)                                         \
    RX(WG_DEVICE_DROP_UNKNOWN_INDEX, "unknown-index",                   \
       wg_drop_unknown_index)                                           \
    RX(WG_DEVICE_DROP_STALE_HANDSHAKE, "stale-handshake",               \
       wg_drop_stale_handshake)                                         \
    RX(WG_DEVICE_DROP_BAD_COOKIE, "bad-cookie", wg_drop_bad_cookie)     \
    RX(WG_DEVICE_DROP_KEY_EXPIRED, "key-expired", wg_drop_key_expired)  \
    RX(WG_DEVICE_DROP_BAD_TAG, "bad-tag", wg_drop_bad_tag)              \
    RX(WG_DEVICE_DROP_REPLAYED, "replayed", wg_drop_replayed)           \
    RX(WG_DEVICE_DROP_BAD_INNER, "bad-inner", wg_drop_bad_inner)        \
    RX(WG_DEVICE_DROP_NOT_ALLOWED, "not-allowed", wg_drop_not_allowed) \
    RX(WG_DEVICE_DROP_CRYPTO, "crypto-failed", wg_drop_crypto_failed)

#define RX(ENUM, NAME, COUNTER) COVERAGE_DEFINE(COUNTER);
WG_DEVICE_RX_OUTCOMES
#undef RX
COVERAGE_DEFINE(wg_handshake_forgotten_session);

const char *
wg_device_rx_name(enum wg_device_rx rx)
{
    switch (rx) {
#define RX(ENUM, NAME, COUNTER) case ENUM: return NAME;
    WG_DEVICE_RX_OUTCOMES
#undef RX
    case WG_DEVICE_N_RX:
    default:
        return "<invalid>";
    }
}

static void
count_outcome(enum wg_device_rx rx)
{
    switch (rx) {
#define RX(ENUM, NAME, COUNTER) case ENUM: COVERAGE_INC(COUNTER); break;
    WG_DEVICE_RX_OUTCOMES
#undef RX
    case WG_DEVICE_N_RX:
    default:
        break;
    }
}

static void
log_drop(enum wg_device_rx rx, const struct sockaddr *src)
{
    char addr[INET6_ADDRSTRLEN] = "?";

    if (VLOG_DROP_DBG(&rl)) {
        return;
    }
    if (src && src->sa_family == AF_INET) {
        inet_ntop(AF_INET, &((const struct sockaddr_in *) src)->sin_addr,
                  addr, sizeof addr);
    } else if (src && src->sa_family == AF_INET6) {
        inet_ntop(AF_INET6, &((const struct sockaddr_in6 *) src)->sin6_addr,
                  addr, sizeof addr);
    }
    VLOG_DBG("datagram from %s dropped: %s", addr, wg_device_rx_name(rx));
}

/* Transport data. */

/* Returns the length of the inner IP packet 'p' according to its own
 * header (so that the padding is stripped), or 0 if pkt_ip_parse_l3()
 * refuses it.  Stores its family and a pointer to its source address. */
static size_t
inner_packet_len(const uint8_t *p, size_t len, int *family,
                 const uint8_t **src)
{
    struct pkt_ip_info info;

    if (pkt_ip_parse_l3(p, len, &info)) {
        return 0;
    }
    *family = info.ipv6 ? AF_INET6 : AF_INET;
    *src = p + pkt_ip_addrs_ofs(info.ipv6);
    return info.pkt_len;
}

/* Key confirmation, roaming, receive-side rekey and timers, for a data
 * message that authenticated under 'kp'. */
static void
data_authenticated(struct wg_device *dev, struct wg_peer *peer,
                   struct wg_noise_keypair *kp, const struct sockaddr *src,
                   socklen_t src_len, long long int now)
{
    struct wg_noise_keypair *current;

    wg_device_authenticated_from(peer, src, src_len, now);
    if (wg_noise_keypairs_confirm(&peer->keypairs, kp)) {
        wg_timers_handshake_complete(&peer->timers);
        wg_device_wall_clock(dev, &peer->last_handshake);
        wg_device_session_ready(dev, peer);
    }
    wg_noise_keypairs_drop_stale(&peer->keypairs, kp);

    /* An initiator rekeys before the keypair gets too old to receive. */
    current = wg_noise_keypairs_current(&peer->keypairs);
    if (current && current->i_am_initiator
        && !peer->timers.sent_lastminute_handshake
        && now - current->birth_ms >= WG_REKEY_ON_RECEIVE_AFTER_TIME_MS) {
        peer->timers.sent_lastminute_handshake = true;
        wg_device_send_initiation(dev, peer, false);
    }
}

/* Counts one handshake for a forgotten session against the device-wide
 * budget.  Returns false if the budget of this second is spent. */
static bool
forgotten_session_budget(struct wg_device *dev, long long int now)
{
    if (now - dev->forgotten_window_start_ms >= 1000) {
        dev->forgotten_window_start_ms = now;
        dev->forgotten_window_handshakes = 0;
    }
    return (dev->forgotten_window_handshakes++
            < WG_FORGOTTEN_SESSION_HANDSHAKES_PER_SECOND);
}

/* A data message for no session of this device came from the endpoint of
 * a peer with which it has no session either: most likely the peer still
 * sends on a session this device forgot (its daemon restarted, or a key
 * changed), and would keep doing so until its own timers give up on it,
 * KEEPALIVE_TIMEOUT + REKEY_TIMEOUT (15 s) later.  A handshake now
 * replaces that session at once.  The message is not authenticated, so
 * this never happens under load, while a handshake with the peer is in
 * flight (its retries and their give-up stay as they are), more than once
 * per REKEY_TIMEOUT per peer, or beyond the device-wide budget. */
static void
handshake_for_forgotten_session(struct wg_device *dev,
                                const struct sockaddr *src,
                                socklen_t src_len, long long int now)
{
    struct wg_peer *peer = wg_peer_endpoint_lookup(&dev->endpoints, src,
                                                   src_len);

    if (peer
        && !wg_noise_keypair_can_send(
            wg_noise_keypairs_current(&peer->keypairs), now)
        && !wg_timers_handshake_in_flight(&peer->timers)
        && wg_timers_initiation_allowed(&peer->timers, now)
        && !wg_device_is_under_load(dev)
        && forgotten_session_budget(dev, now)
        && !wg_device_send_initiation(dev, peer, false)) {
        COVERAGE_INC(wg_handshake_forgotten_session);
    }
}

/* Makes '*op' hold 'kp' of 'peer' (a reference taken) for the message
 * 'hdr'. */
static void
opener_init(struct wg_device_opener *op, struct wg_peer *peer,
            struct wg_noise_keypair *kp, const struct wg_msg_data *hdr)
{
    op->kp = kp;
    op->peer = peer;
    op->index = le32toh(hdr->receiver);
    op->counter = le64toh(hdr->counter);
    op->opened = false;
}

/* Finds the keypair that data message 'hdr' is for, if it can still
 * receive at 'now', and holds it in '*op' (a reference taken).  With the
 * device's lock held ('any'), any keypair of the peer will do: previous,
 * current or next.  Without it, only the peer's current one, read under
 * RCU, and only while its last reference is not gone.  Returns
 * WG_DEVICE_RX_DATA, or why there is none. */
static enum wg_device_rx
hold_keypair(struct wg_device *dev, const struct wg_msg_data *hdr,
             long long int now, bool any, struct wg_device_opener *op)
{
    uint32_t index = le32toh(hdr->receiver);
    struct wg_peer *peer = wg_peer_index_lookup(&dev->indices, index);
    struct wg_noise_keypair *kp;

    kp = (!peer ? NULL
          : any ? wg_noise_keypairs_find(&peer->keypairs, index)
          : wg_noise_keypairs_current_for(&peer->keypairs, index));
    if (!kp) {
        return WG_DEVICE_DROP_UNKNOWN_INDEX;
    }
    if (!wg_noise_keypair_can_receive(kp, now)
        || !wg_noise_keypair_try_ref(kp)) {
        return WG_DEVICE_DROP_KEY_EXPIRED;
    }
    opener_init(op, peer, kp, hdr);
    return WG_DEVICE_RX_DATA;
}

/* The first step of a data message, under the device's lock: finds the
 * live keypair it is for and holds it in '*op'.  A message for no session
 * may bring a handshake for a session this device forgot. */
static enum wg_device_rx
data_begin(struct wg_device *dev, const struct sockaddr *src,
           socklen_t src_len, const uint8_t *buf, long long int now,
           struct wg_device_opener *op)
{
    enum wg_device_rx rx = hold_keypair(dev, (const void *) buf, now, true,
                                        op);

    if (rx == WG_DEVICE_DROP_UNKNOWN_INDEX) {
        handshake_for_forgotten_session(dev, src, src_len, now);
    }
    return rx;
}

/* The last step's checks: the message opened, its keypair is still its
 * peer's (stored in '*peerp'), and its counter is new. */
static enum wg_device_rx
data_accept(struct wg_device *dev, struct wg_device_opener *op,
            struct wg_peer **peerp)
{
    struct wg_peer *peer;

    if (!op->opened) {
        return WG_DEVICE_DROP_BAD_TAG;
    }
    peer = wg_peer_index_lookup(&dev->indices, op->index);
    if (!peer
        || wg_noise_keypairs_find(&peer->keypairs, op->index) != op->kp) {
        return WG_DEVICE_DROP_UNKNOWN_INDEX;
    }
    if (!wg_noise_keypair_replay_accept(op->kp, op->counter)) {
        return WG_DEVICE_DROP_REPLAYED;
    }
    *peerp = peer;
    return WG_DEVICE_RX_DATA;
}

/* What the plaintext of an authenticated, fresh data message 'buf' from
 * 'peer' is: a keepalive, an inner packet its source may send (in '*out'),
 * or a drop.  Changes nothing: safe on any thread under RCU. */
static enum wg_device_rx
data_inner(struct wg_device *dev, struct wg_peer *peer, uint8_t *buf,
           size_t len, struct wg_device_rx_result *out)
{
    size_t plain_len = len - WG_MSG_DATA_MIN_LEN;
    uint8_t *inner = buf + WG_MSG_DATA_HEADER_LEN;
    const uint8_t *inner_src;
    size_t inner_len;
    int family;

    out->peer = peer;
    if (!plain_len) {
        return WG_DEVICE_RX_KEEPALIVE;
    }
    inner_len = inner_packet_len(inner, plain_len, &family, &inner_src);
    if (!inner_len) {
        return WG_DEVICE_DROP_BAD_INNER;
    }
    if (wg_allowedips_lookup(dev->allowedips, family, inner_src) != peer) {
        return WG_DEVICE_DROP_NOT_ALLOWED;
    }
    out->inner = inner;
    out->inner_len = inner_len;
    return WG_DEVICE_RX_DATA;
}

/* Whether outcome 'rx' of an authenticated message counts in the peer's
 * received messages and bytes. */
static bool
rx_counted(enum wg_device_rx rx)
{
    return rx == WG_DEVICE_RX_DATA || rx == WG_DEVICE_RX_KEEPALIVE;
}

/* What an authenticated, fresh data message from 'peer' under 'kp' gives,
 * with its bookkeeping (data_authenticated(), timers, counters). */
static enum wg_device_rx
data_deliver(struct wg_device *dev, struct wg_peer *peer,
             struct wg_noise_keypair *kp, const struct sockaddr *src,
             socklen_t src_len, uint8_t *buf, size_t len, long long int now,
             struct wg_device_rx_result *out)
{
    enum wg_device_rx rx;

    data_authenticated(dev, peer, kp, src, src_len, now);
    rx = data_inner(dev, peer, buf, len, out);
    if (rx != WG_DEVICE_RX_KEEPALIVE) {
        wg_timers_data_received(&peer->timers, now);
    }
    if (rx_counted(rx)) {
        peer->rx_bytes += len;
        peer->rx_packets++;
    }
    return rx;
}

/* Dispatch. */

/* The first four bytes are the type and three reserved zero bytes. */
static size_t
expected_len(uint32_t type)
{
    switch (type) {
    case WG_MSG_INITIATION:
        return WG_MSG_INITIATION_LEN;
    case WG_MSG_RESPONSE:
        return WG_MSG_RESPONSE_LEN;
    case WG_MSG_COOKIE_REPLY:
        return WG_MSG_COOKIE_REPLY_LEN;
    case WG_MSG_DATA:
        return WG_MSG_DATA_MIN_LEN;
    default:
        return 0;
    }
}

static enum wg_device_rx
classify(const uint8_t *buf, size_t len, uint32_t *typep)
{
    size_t need;

    if (len < sizeof(uint32_t)) {
        return WG_DEVICE_DROP_TOO_SHORT;
    }
    *typep = le32toh(get_unaligned_u32((const uint32_t *) buf));
    need = expected_len(*typep);
    if (!need) {
        return WG_DEVICE_DROP_BAD_TYPE;
    } else if (len < need) {
        return WG_DEVICE_DROP_TOO_SHORT;
    } else if (len > need && *typep != WG_MSG_DATA) {
        return WG_DEVICE_DROP_BAD_LENGTH;
    }
    return WG_DEVICE_RX_DATA;
}

/* Counts and logs outcome 'rx'; a drop leaves no inner packet. */
static enum wg_device_rx
finish_outcome(enum wg_device_rx rx, const struct sockaddr *src,
               struct wg_device_rx_result *out)
{
    count_outcome(rx);
    if (wg_device_rx_is_drop(rx)) {
        log_drop(rx, src);
        out->inner = NULL;
        out->inner_len = 0;
    }
    return rx;
}

/* Handshake and cookie messages, whole. */
static enum wg_device_rx
rx_control(struct wg_device *dev, uint32_t type, const struct sockaddr *src,
           socklen_t src_len, const uint8_t *buf, size_t len,
           long long int now, struct wg_device_rx_result *out)
{
    switch (type) {
    case WG_MSG_INITIATION:
        wg_device_count_handshake(dev, now);
        return wg_device_rx_initiation(dev, src, src_len, buf, len, now, out);
    case WG_MSG_RESPONSE:
        wg_device_count_handshake(dev, now);
        return wg_device_rx_response(dev, src, src_len, buf, len, now, out);
    case WG_MSG_COOKIE_REPLY:
    default:
        return wg_device_rx_cookie_reply(dev, buf, now, out);
    }
}

bool
wg_device_decrypt_begin(struct wg_device *dev, const struct sockaddr *src,
                        socklen_t src_len, uint8_t *buf, size_t len,
                        struct wg_device_opener *op,
                        struct wg_device_rx_result *out,
                        enum wg_device_rx *rxp)
{
    long long int now = wg_device_now(dev);
    enum wg_device_rx rx;
    uint32_t type = 0;

    memset(out, 0, sizeof *out);
    rx = classify(buf, len, &type);
    if (rx == WG_DEVICE_RX_DATA && type == WG_MSG_DATA) {
        rx = data_begin(dev, src, src_len, buf, now, op);
        if (rx == WG_DEVICE_RX_DATA) {
            return true;
        }
    } else if (rx == WG_DEVICE_RX_DATA) {
        rx = rx_control(dev, type, src, src_len, buf, len, now, out);
    }
    *rxp = finish_outcome(rx, src, out);
    return false;
}

void
wg_device_decrypt_finish(struct wg_device_opener *op, uint8_t *buf,
                         size_t len)
{
    uint8_t *text = buf + WG_MSG_DATA_HEADER_LEN;

    op->opened = wg_aead_open(op->kp->recv_key, op->counter, text, text,
                              len - WG_MSG_DATA_HEADER_LEN, NULL, 0);
}

void
wg_device_decrypt_finish_to(struct wg_device_opener *op, const uint8_t *buf,
                            size_t len, uint8_t *dst)
{
    op->opened = wg_aead_open(op->kp->recv_key, op->counter, dst,
                              buf + WG_MSG_DATA_HEADER_LEN,
                              len - WG_MSG_DATA_HEADER_LEN, NULL, 0);
}

enum wg_device_rx
wg_device_decrypt_end(struct wg_device *dev, const struct sockaddr *src,
                      socklen_t src_len, uint8_t *buf, size_t len,
                      struct wg_device_opener *op,
                      struct wg_device_rx_result *out)
{
    long long int now = wg_device_now(dev);
    struct wg_peer *peer = NULL;
    enum wg_device_rx rx;

    memset(out, 0, sizeof *out);
    rx = data_accept(dev, op, &peer);
    if (rx == WG_DEVICE_RX_DATA) {
        rx = data_deliver(dev, peer, op->kp, src, src_len, buf, len, now,
                          out);
    }
    wg_noise_keypair_unref(op->kp);
    op->kp = NULL;
    return finish_outcome(rx, src, out);
}

/* Without the lock. */

bool
wg_device_decrypt_begin_unlocked(struct wg_device *dev, const uint8_t *buf,
                                 size_t len, long long int now,
                                 struct wg_device_opener *op)
{
    uint32_t type = 0;

    return (classify(buf, len, &type) == WG_DEVICE_RX_DATA
            && type == WG_MSG_DATA
            && hold_keypair(dev, (const void *) buf, now, false, op)
               == WG_DEVICE_RX_DATA);
}

/* Whether an initiator's keypair 'kp' is old enough that a received
 * message should start a rekey (the locked path starts it, once). */
static bool
rekey_on_receive_due(const struct wg_noise_keypair *kp, long long int now)
{
    return (kp->i_am_initiator
            && now - kp->birth_ms >= WG_REKEY_ON_RECEIVE_AFTER_TIME_MS);
}

/* The peer of an opened message whose keypair is still its peer's current
 * one, that came from the peer's endpoint and needs no rekey: the messages
 * that wg_device_decrypt_end_unlocked() ends (and keeps no keypairs made
 * before our key changed, which the locked path forgets once the peer uses
 * a new one).  NULL for any other.  The
 * peer found when the message was begun is still valid (RCU: the caller
 * has not quiesced since), and while 'op->kp' is its current keypair the
 * receiver index is still that keypair's, so no second lookup is needed;
 * a removed peer's keypairs are no longer current. */
static struct wg_peer *
unlocked_end_peer(const struct sockaddr *src, socklen_t src_len,
                  const struct wg_device_opener *op, long long int now)
{
    struct wg_peer *peer = op->peer;

    if (!op->opened
        || wg_noise_keypairs_current_for(&peer->keypairs, op->index) != op->kp
        || !wg_peer_endpoint_is(peer, src, src_len)
        || rekey_on_receive_due(op->kp, now)
        || wg_noise_keypairs_has_stale(&peer->keypairs)) {
        return NULL;
    }
    return peer;
}

void
wg_device_rx_run_init(struct wg_device_rx_run *run)
{
    memset(run, 0, sizeof *run);
}

/* Hands what 'run' counted to its peer. */
static void
run_flush_counts(struct wg_device *dev, struct wg_device_rx_run *run)
{
    if (run->peer) {
        wg_device_note_received_unlocked(dev, run);
    }
    run->peer = NULL;
    run->packets = run->bytes = 0;
    run->first_data_ms = run->last_ms = 0;
}

/* Counts in 'run' an authenticated message of 'len' bytes from 'peer'
 * whose outcome is 'rx'. */
static void
run_count(struct wg_device *dev, struct wg_device_rx_run *run,
          struct wg_peer *peer, size_t len, enum wg_device_rx rx,
          long long int now)
{
    if (run->peer != peer) {
        run_flush_counts(dev, run);
        run->peer = peer;
    }
    if (rx_counted(rx)) {
        run->packets++;
        run->bytes += len;
    }
    if (rx != WG_DEVICE_RX_KEEPALIVE && !run->first_data_ms) {
        run->first_data_ms = now;
    }
    run->last_ms = now;
}

bool
wg_device_decrypt_end_unlocked(struct wg_device *dev,
                               struct wg_device_rx_run *run,
                               const struct sockaddr *src, socklen_t src_len,
                               uint8_t *buf, size_t len, long long int now,
                               struct wg_device_opener *op,
                               struct wg_device_rx_result *out,
                               enum wg_device_rx *rxp)
{
    struct wg_peer *peer = unlocked_end_peer(src, src_len, op, now);
    enum wg_device_rx rx;

    if (!peer) {
        return false;
    }
    memset(out, 0, sizeof *out);
    if (!wg_noise_keypair_replay_accept(op->kp, op->counter)) {
        rx = WG_DEVICE_DROP_REPLAYED;
    } else {
        rx = data_inner(dev, peer, buf, len, out);
        run_count(dev, run, peer, len, rx, now);
    }
    wg_noise_keypair_unref(op->kp);
    op->kp = NULL;
    *rxp = finish_outcome(rx, src, out);
    return true;
}

void
wg_device_rx_run_end(struct wg_device *dev, struct wg_device_rx_run *run)
{
    run_flush_counts(dev, run);
}

enum wg_device_rx
wg_device_receive(struct wg_device *dev, const struct sockaddr *src,
                  socklen_t src_len, uint8_t *buf, size_t len,
                  struct wg_device_rx_result *out)
{
    struct wg_device_opener op;
    enum wg_device_rx rx;

    if (wg_device_decrypt_begin(dev, src, src_len, buf, len, &op, out,
                                &rx)) {
        wg_device_decrypt_finish(&op, buf, len);
        rx = wg_device_decrypt_end(dev, src, src_len, buf, len, &op, out);
    }
    return rx;
}
