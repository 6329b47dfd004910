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

#ifndef WG_DEVICE_H
#define WG_DEVICE_H 1

/* A WireGuard device over plain buffers: one identity (static key pair),
 * its peers, cryptokey routing (allowed IPs), the receiver-index table, the
 * handshake rate limiter and cookie checker, and per-peer timers.
 *
 * The device never touches sockets or OVS packets.  The caller:
 *
 *   - encrypts inner IP packets in place with wg_device_encrypt(), or
 *     from where they are into a message buffer with
 *     wg_device_encrypt_from(), and sends the resulting UDP payloads to
 *     wg_device_peer_endpoint();
 *   - hands every received UDP datagram to wg_device_receive(), which
 *     decrypts data in place or consumes handshake messages;
 *   - calls wg_device_run() when the deadline it returned has passed;
 *   - gets messages the device itself originates (handshake initiations and
 *     responses, cookie replies, keepalives) through the 'send' callback.
 *
 * Not thread-safe: the caller serializes all calls on one device.  Per-peer
 * state is kept inside each peer so that finer locking can come later. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <time.h>
#include "wg-crypto.h"

struct wg_device;
struct wg_peer;

/* Callbacks and clocks, given at creation.  Every function pointer may be
 * NULL except 'send'. */
struct wg_device_hooks {
    /* Sends 'msg' ('len' bytes) as one UDP payload to 'dst'.  Used for
     * handshake messages, cookie replies and keepalives.  May be called
     * from within any wg_device_*() function. */
    void (*send)(void *aux, const struct sockaddr *dst, socklen_t dst_len,
                 const void *msg, size_t len);

    /* 'peer' has a usable session now (after a handshake it initiated
     * completes, or after key confirmation as a responder): flush the
     * packets queued for it with wg_device_encrypt().  As initiator, if
     * nothing was sent from the callback, the device then sends a
     * keepalive itself so that the responder can confirm the session.
     * Hooks must not add or remove peers. */
    void (*session_ready)(void *aux, struct wg_peer *peer);

    /* Handshake attempts for 'peer' gave up after REKEY_ATTEMPT_TIME: drop
     * the packets queued for it. */
    void (*handshake_failed)(void *aux, struct wg_peer *peer);

    /* wg_device_run() is due at once (from wg_device_set_deferred()'s
     * deferral): wake the thread that runs it.  May be called from within
     * any wg_device_*() function. */
    void (*wake)(void *aux);

    /* Monotonic clock in milliseconds.  NULL: OVS's time_msec(). */
    long long int (*now_ms)(void *aux);

    /* Wall clock, for TAI64N timestamps and last-handshake times.  NULL:
     * clock_gettime(CLOCK_REALTIME). */
    void (*wall_clock)(void *aux, struct timespec *ts);
};

/* Lifecycle and identity. */

/* Creates a device without private key or peers.  'hooks' is copied; 'aux'
 * is passed to every hook. */
struct wg_device *wg_device_create(const struct wg_device_hooks *hooks,
                                   void *aux);

/* Destroys 'dev' and all its peers, wiping every secret (NULL allowed). */
void wg_device_destroy(struct wg_device *dev);

/* Sets the static private key (NULL removes it), clearing sessions if it
 * changed; every peer's static-static DH is then computed anew by the next
 * runs of wg_device_run(), WG_DEVICE_SS_PER_RUN peers every
 * WG_DEVICE_SS_PACE_MS, or at once for a peer that a handshake needs
 * first.  A
 * peer whose public key equals the new public key is removed, as the
 * kernel does.  Returns 0 or EINVAL for an unusable key. */
int wg_device_set_private_key(struct wg_device *dev,
                              const uint8_t priv[WG_KEY_LEN]);

/* Copies the private/public key out.  Returns false when none is set. */
bool wg_device_get_private_key(const struct wg_device *dev,
                               uint8_t priv[WG_KEY_LEN]);
bool wg_device_get_public_key(const struct wg_device *dev,
                              uint8_t pub[WG_KEY_LEN]);

/* Inner MTU used to cap padding (0: pad to the next multiple of 16 only). */
void wg_device_set_mtu(struct wg_device *dev, unsigned int mtu);

/* The data-path ChaCha20-Poly1305 backend of the sessions that the peers
 * make from now on (one keeps its backend until it is replaced, within
 * two minutes); wg_crypto_aead_default() unless set.  'backend' must be
 * usable (wg_crypto_aead_backend_usable()).  Returns true if it changed. */
bool wg_device_set_aead(struct wg_device *dev,
                        enum wg_crypto_aead_backend backend);
enum wg_crypto_aead_backend wg_device_get_aead(const struct wg_device *dev);

#ifdef WG_TEST_HOOKS
/* Test hook (test builds only, wg-test-hooks.h): send-side rekeying after
 * 'n' messages of a session instead of REKEY_AFTER_MESSAGES (2^60, which no
 * test reaches), so that tests see rekeys under traffic.  A larger 'n'
 * keeps REKEY_AFTER_MESSAGES. */
void wg_device_set_rekey_after_messages_for_test(struct wg_device *dev,
                                                 uint64_t n);

/* Forces the device "under load" (see below) while 'under_load'. */
void wg_device_set_under_load_for_test(struct wg_device *dev,
                                       bool under_load);

/* Sizes of the structures of a device that grow with its configuration,
 * for leak and scale tests: all zero once every peer is removed. */
struct wg_device_sizes {
    size_t n_peers;             /* Peers (hash table by public key). */
    size_t n_prefixes;          /* Allowed-IPs prefixes. */
    size_t n_trie_nodes;        /* Allowed-IPs trie nodes. */
    size_t n_prefix_lists;      /* Peers with a list of their prefixes. */
    size_t n_indices;           /* Receiver indices in use. */
    size_t n_due;               /* Peers in the order of their timers. */
};
void wg_device_get_sizes_for_test(const struct wg_device *dev,
                                  struct wg_device_sizes *sizes);

/* How many times wg_device_run() has run a peer's timers: for tests that
 * check that it only looks at the peers whose timers are due. */
uint64_t wg_device_timer_runs_for_test(const struct wg_device *dev);
#endif

/* Load: the device is "under load" (handshakes need a valid mac2, otherwise
 * they get a cookie reply, and are rate limited per source) while the
 * forced flag is set (tests), or for WG_UNDER_LOAD_HOLD_MS after either the
 * caller reported at least WG_UNDER_LOAD_PENDING_HANDSHAKES handshake
 * messages pending in one receive round, or wg_device_receive() saw
 * WG_UNDER_LOAD_WINDOW_HANDSHAKES of them within WG_UNDER_LOAD_WINDOW_MS.
 * Entering the state is counted (coverage counter wg_under_load_enter) and
 * logged. */
void wg_device_note_pending_handshakes(struct wg_device *dev, size_t n);
bool wg_device_is_under_load(const struct wg_device *dev);

/* True if the 'len'-byte datagram at 'msg' looks like a handshake initiation
 * or response (type and size only), for
 * wg_device_note_pending_handshakes(). */
bool wg_device_is_handshake_msg(const void *msg, size_t len);

/* Current monotonic time of the device's clock, in ms. */
long long int wg_device_now(const struct wg_device *dev);

/* Makes wg_device_now() return the current time until
 * wg_device_clock_thaw(), so that a batch of packets handled in one go
 * reads the clock once rather than once per packet.  The caller freezes
 * it only around one batch, a few milliseconds at most: the protocol's
 * timers count seconds. */
void wg_device_clock_freeze(struct wg_device *dev);
void wg_device_clock_thaw(struct wg_device *dev);

/* Peers. */

/* Adds a peer with public key 'pub'.  Returns 0 and stores the peer in
 * '*peerp', EEXIST if the key is already a peer, or EINVAL for an all-zero
 * or low-order key (DH with it would be zero) or our own public key. */
int wg_device_peer_add(struct wg_device *dev, const uint8_t pub[WG_KEY_LEN],
                       struct wg_peer **peerp);

/* Removes 'peer', its allowed IPs, indices and sessions, wiping secrets. */
void wg_device_peer_remove(struct wg_device *dev, struct wg_peer *peer);

/* Removes every peer. */
void wg_device_peer_remove_all(struct wg_device *dev);

/* Removes the peer whose public key is that of private key 'priv' (a key
 * about to become the device's own: no peer may carry it), calling
 * 'removing' (if nonnull) with 'aux' and the peer first, so that the
 * caller lets go of what it attached to the peer.  Does nothing if no peer
 * has that key or 'priv' is not a usable key. */
void wg_device_peer_remove_own(struct wg_device *dev,
                               const uint8_t priv[WG_KEY_LEN],
                               void (*removing)(void *aux, struct wg_peer *),
                               void *aux);

/* Returns the peer with public key 'pub', or NULL. */
struct wg_peer *wg_device_peer_lookup(const struct wg_device *dev,
                                      const uint8_t pub[WG_KEY_LEN]);

/* Peers in the order they were added: first, then next after 'peer';
 * NULL at the end.  Do not add or remove peers while iterating. */
struct wg_peer *wg_device_peer_first(const struct wg_device *dev);
struct wg_peer *wg_device_peer_next(const struct wg_device *dev,
                                    const struct wg_peer *peer);
size_t wg_device_peer_count(const struct wg_device *dev);

/* A walk over the device's peers that may span many slices of the main
 * loop (a long listing): it holds the public keys of the peers there when
 * it started, in their order, and looks each up again at its turn, so that
 * a peer removed in between is skipped and one added is not listed.  A
 * zeroed walk has not started. */
struct wg_device_peer_walk {
    uint8_t (*keys)[WG_KEY_LEN];
    size_t n, next;
};

/* Starts 'walk' over the peers of 'dev'. */
void wg_device_peer_walk_start(struct wg_device_peer_walk *walk,
                               const struct wg_device *dev);

/* Whether 'walk' has started and not been destroyed since. */
bool wg_device_peer_walk_started(const struct wg_device_peer_walk *walk);

/* Returns the next peer of 'walk' still in 'dev', or NULL at its end. */
const struct wg_peer *wg_device_peer_walk_next(
    struct wg_device_peer_walk *walk, const struct wg_device *dev);

/* Frees what 'walk' holds and makes it a walk that has not started. */
void wg_device_peer_walk_destroy(struct wg_device_peer_walk *walk);

/* Copies the preshared key of 'peer' into 'psk' and returns true, or
 * returns false if it has none.  For the UAPI's get reply only; the caller
 * wipes 'psk'. */
bool wg_device_peer_get_psk(const struct wg_device *dev,
                            const struct wg_peer *peer,
                            uint8_t psk[WG_KEY_LEN]);

/* Sets the preshared key (NULL or all zeros: none). */
void wg_device_peer_set_psk(struct wg_device *dev, struct wg_peer *peer,
                            const uint8_t psk[WG_KEY_LEN]);

/* Sets the endpoint (AF_INET or AF_INET6; NULL clears it).  Returns 0 or
 * EAFNOSUPPORT. */
int wg_device_peer_set_endpoint(struct wg_device *dev, struct wg_peer *peer,
                                const struct sockaddr *sa, socklen_t len);

/* Returns the current endpoint and stores its length in '*lenp' (if
 * nonnull), or NULL if the peer has none yet.  It changes when an
 * authenticated packet arrives from another address (roaming). */
const struct sockaddr *wg_device_peer_endpoint(const struct wg_peer *peer,
                                               socklen_t *lenp);

/* Persistent keepalive interval in seconds (0 disables).  Enabling it sends
 * a keepalive at once (starting a handshake if needed). */
void wg_device_peer_set_persistent_keepalive(struct wg_device *dev,
                                             struct wg_peer *peer,
                                             unsigned int seconds);

/* Allowed IPs ('addr' is 4 bytes for AF_INET, 16 for AF_INET6, network
 * order).  A prefix moves from any other peer that had it.  Return 0 or an
 * errno value (EINVAL, ENOENT), as wg-allowedips.h. */
int wg_device_peer_allowed_ip_add(struct wg_device *dev, struct wg_peer *peer,
                                  int family, const void *addr,
                                  unsigned int prefix_len);
void wg_device_peer_allowed_ips_clear(struct wg_device *dev,
                                      struct wg_peer *peer);

/* Calls 'cb' for each allowed IP of 'peer' (IPv4 first, address order). */
void wg_device_peer_allowed_ips_walk(const struct wg_device *dev,
                                     const struct wg_peer *peer,
                                     void (*cb)(void *aux, int family,
                                                const uint8_t *addr,
                                                unsigned int prefix_len),
                                     void *aux);

/* Cryptokey routing: the peer whose allowed IPs hold destination 'addr'
 * (4 or 16 bytes per 'family'), or NULL. */
struct wg_peer *wg_device_route(const struct wg_device *dev, int family,
                                const void *addr);

/* What a `wg show` or UAPI printer needs about a peer. */
struct wg_peer_info {
    uint8_t public_key[WG_KEY_LEN];
    bool has_psk;
    struct sockaddr_storage endpoint;   /* ss_family AF_UNSPEC if none. */
    socklen_t endpoint_len;             /* 0 if none. */
    struct timespec last_handshake;     /* Wall time; 0/0 if never. */
    uint64_t rx_bytes;                  /* UDP payload bytes, like the */
    uint64_t tx_bytes;                  /* kernel: data and handshakes. */
    uint64_t rx_packets;                /* Data packets (incl. keepalives). */
    uint64_t tx_packets;
    unsigned int persistent_keepalive_s;
    bool has_session;                   /* A keypair is usable to send. */
};

/* Fills 'info' for 'peer'. */
void wg_device_peer_get_info(const struct wg_device *dev,
                             const struct wg_peer *peer,
                             struct wg_peer_info *info);

/* Opaque pointer the caller may attach to a peer (e.g. its packet queue). */
void wg_device_peer_set_user_data(struct wg_peer *peer, void *data);
void *wg_device_peer_get_user_data(const struct wg_peer *peer);

/* Receive steering over 'n' queues (1 to 256; a new device has 1): the
 * peers get receive classes 0 to n - 1 round robin, in their order, and
 * each peer added later the next one.  Every receiver index that a peer
 * is given from then on (at its next handshake) has a lowest byte equal
 * to its class modulo 'n'.  Indices travel little-endian, so that byte is
 * the first of the index in data messages and cookie replies (offset 4)
 * and in handshake responses (offset 8): a socket filter that reads it
 * sends all of a session's messages to the queue of its peer's class. */
void wg_device_set_rx_classes(struct wg_device *dev, unsigned int n);
unsigned int wg_device_peer_rx_class(const struct wg_peer *peer);

/* True if 'peer' has a keypair usable for sending now. */
bool wg_device_peer_has_session(const struct wg_device *dev,
                                const struct wg_peer *peer);

/* Starts a handshake with 'peer' now (subject to the one initiation per
 * REKEY_TIMEOUT limit).  Returns 0, EAGAIN when rate limited, ENOTCONN
 * without endpoint, EINVAL without private key or with an unusable peer
 * key. */
int wg_device_peer_initiate(struct wg_device *dev, struct wg_peer *peer);

/* Sends a keepalive (empty data message) to 'peer' through the 'send'
 * hook; starts a handshake instead if there is no session. */
void wg_device_peer_send_keepalive(struct wg_device *dev,
                                   struct wg_peer *peer);

/* Data path. */

/* Room the caller leaves around an inner packet for wg_device_encrypt(). */
#define WG_DEVICE_HEADROOM 16           /* struct wg_msg_data. */
#define WG_DEVICE_TAILROOM 31           /* Up to 15 padding + 16 tag. */

/* Status of wg_device_encrypt() when it produced nothing (negative). */
enum wg_device_tx {
    WG_DEVICE_TX_NO_SESSION = -1,   /* No usable keypair: queue the packet,
                                     * a handshake has been started. */
    WG_DEVICE_TX_NO_ROOM = -2,      /* 'msg_size' too small. */
    WG_DEVICE_TX_NO_ENDPOINT = -3,  /* Peer has no endpoint yet. */
    WG_DEVICE_TX_CRYPTO_ERROR = -4, /* Library failure. */
    WG_DEVICE_TX_LOCKED = -5,       /* Not without the lock: no usable
                                     * keypair, or a rekey is due (see
                                     * wg_device_encrypt_begin_unlocked()). */
};

/* Encrypts, in place, the inner IP packet of 'inner_len' bytes found at
 * msg + WG_DEVICE_HEADROOM into a transport data message for 'peer' that
 * starts at 'msg'.  'msg_size' is the room at 'msg' (at least
 * WG_DEVICE_HEADROOM + inner_len + WG_DEVICE_TAILROOM is always enough).
 * An 'inner_len' of 0 makes a keepalive.  Returns the UDP payload length
 * (> 0), to be sent to wg_device_peer_endpoint(), or an enum wg_device_tx
 * value.  Runs the peer's send-side timers and may start a rekey. */
int wg_device_encrypt(struct wg_device *dev, struct wg_peer *peer,
                      uint8_t *msg, size_t inner_len, size_t msg_size);

/* The same, reading the inner packet where it is: the 'inner_len' bytes at
 * 'inner', which are only read, become the data message at 'msg' through
 * wg_aead_seal_padded(), straight from 'inner' when the packet needs no
 * padding (a packet at the MTU, or of a multiple of 16 bytes) and through a
 * copy at msg + WG_DEVICE_HEADROOM otherwise.  'inner' is either
 * msg + WG_DEVICE_HEADROOM (then this is wg_device_encrypt()) or apart from
 * the 'msg_size' bytes at 'msg' (NULL for a keepalive, whose 'inner_len' is
 * 0).  The message, its length and the result are the ones
 * wg_device_encrypt() gives for the same packet and counter, byte for
 * byte. */
int wg_device_encrypt_from(struct wg_device *dev, struct wg_peer *peer,
                           uint8_t *msg, size_t msg_size,
                           const uint8_t *inner, size_t inner_len);

/* Encryption in two steps, for a caller whose lock serializes its calls
 * on the device but who wants the cipher to run outside that lock, on
 * several threads at once.  wg_device_encrypt_begin() does all that
 * wg_device_encrypt() does (checks, header with the next counter, the
 * peer's counters and timers) but the padding and the cipher, and holds
 * the keypair for '*sealer', without reading the inner packet (the caller
 * may write it into 'msg' until the finish); wg_device_encrypt_finish()
 * then seals the message in place without the caller's lock (it touches
 * only that keypair's key,
 * which a rekey or removal meanwhile does not free) and releases the
 * keypair.  Every successful begin must be finished (or cancelled) once,
 * and the message may leave only if its finish returned true (on false,
 * the buffer may hold anything, plaintext included). */
struct wg_noise_keypair;
struct wg_device_sealer {
    struct wg_noise_keypair *kp;
    uint64_t counter;
    const uint8_t *inner;       /* msg + WG_DEVICE_HEADROOM. */
    size_t inner_len;
    size_t padded;
};
int wg_device_encrypt_begin(struct wg_device *dev, struct wg_peer *peer,
                            uint8_t *msg, size_t inner_len, size_t msg_size,
                            struct wg_device_sealer *sealer);
bool wg_device_encrypt_finish(struct wg_device_sealer *sealer, uint8_t *msg);

/* Releases the keypair of a begun message that will not be sent. */
void wg_device_encrypt_cancel(struct wg_device_sealer *sealer);

/* Sending without the caller's lock, on any thread, at the same time as
 * the device's other functions run under it: a peer that
 * wg_device_route() returned, and its endpoint
 * (wg_device_peer_endpoint_copy()), stay valid until the calling thread
 * quiesces (OVS RCU).  wg_device_encrypt_begin_unlocked() is
 * wg_device_encrypt_begin() for a peer whose current keypair can send and
 * needs no rekey; for any other it returns WG_DEVICE_TX_LOCKED, and the
 * caller takes its lock and calls wg_device_encrypt_begin(), which starts
 * the handshake.  It neither counts the message nor runs timers: once the
 * messages of a packet are begun, the caller reports them with
 * wg_device_note_sent_unlocked(), and the device takes that in under its
 * lock (wg_device_run(), which wakes for it within WG_DEVICE_SYNC_MS, or
 * the peer's next received message). */
#define WG_DEVICE_SYNC_MS 100
int wg_device_encrypt_begin_unlocked(struct wg_device *dev,
                                     struct wg_peer *peer, uint8_t *msg,
                                     size_t inner_len, size_t msg_size,
                                     long long int now,
                                     struct wg_device_sealer *sealer);

/* The same for several messages to one peer (a super-packet's segments):
 * wg_device_reserve_unlocked() returns 0 and reserves 'n' of them in '*r'
 * (one keypair reference and one nonce each, taken at once), or returns
 * WG_DEVICE_TX_LOCKED and reserves none; each
 * wg_device_encrypt_begin_reserved() begins one as
 * wg_device_encrypt_begin() would (its length, or WG_DEVICE_TX_NO_ROOM
 * without using the reservation); wg_device_reservation_release() gives
 * back what is left unused. */
struct wg_device_reservation {
    struct wg_noise_keypair *kp;
    uint64_t next;              /* Nonce of the next message. */
    size_t left;                /* Messages left to begin. */
};
int wg_device_reserve_unlocked(struct wg_device *dev, struct wg_peer *peer,
                               size_t n, long long int now,
                               struct wg_device_reservation *r);
int wg_device_encrypt_begin_reserved(struct wg_device *dev,
                                     struct wg_device_reservation *r,
                                     uint8_t *msg, size_t inner_len,
                                     size_t msg_size,
                                     struct wg_device_sealer *sealer);
void wg_device_reservation_release(struct wg_device_reservation *r);
void wg_device_note_sent_unlocked(struct wg_device *dev,
                                  struct wg_peer *peer, size_t n_msgs,
                                  size_t bytes, bool data,
                                  long long int now);

/* The device's clock for them ('now' above: read it once per batch), on
 * any thread. */
long long int wg_device_now_unlocked(const struct wg_device *dev);
bool wg_device_peer_endpoint_copy(const struct wg_peer *peer,
                                  struct sockaddr_storage *ss,
                                  socklen_t *len);

/* What wg_device_receive() did with a datagram.  Values from
 * WG_DEVICE_DROP_TOO_SHORT on are drops; each has a distinct reason. */
enum wg_device_rx {
    WG_DEVICE_RX_DATA,              /* Inner packet in 'out'. */
    WG_DEVICE_RX_KEEPALIVE,         /* Authenticated empty data message. */
    WG_DEVICE_RX_HANDSHAKE,         /* Initiation/response consumed. */
    WG_DEVICE_RX_COOKIE_SENT,       /* Under load: answered with a cookie. */
    WG_DEVICE_RX_COOKIE_STORED,     /* Cookie reply accepted. */
    WG_DEVICE_DROP_TOO_SHORT,       /* Shorter than its message type. */
    WG_DEVICE_DROP_BAD_LENGTH,      /* Handshake message of wrong size. */
    WG_DEVICE_DROP_BAD_TYPE,        /* Unknown type or reserved bytes. */
    WG_DEVICE_DROP_NO_IDENTITY,     /* No private key configured. */
    WG_DEVICE_DROP_BAD_MAC1,
    WG_DEVICE_DROP_RATELIMITED,     /* Under load, source over its rate. */
    WG_DEVICE_DROP_HANDSHAKE_AUTH,  /* Handshake does not decrypt/verify. */
    WG_DEVICE_DROP_UNKNOWN_PEER,    /* Initiation from an unknown key. */
    WG_DEVICE_DROP_HANDSHAKE_REPLAY,/* Timestamp not newer than last. */
    WG_DEVICE_DROP_HANDSHAKE_FLOOD, /* Initiations from a peer too fast. */
    WG_DEVICE_DROP_UNKNOWN_INDEX,   /* No such receiver index. */
    WG_DEVICE_DROP_STALE_HANDSHAKE, /* Response to no pending initiation. */
    WG_DEVICE_DROP_BAD_COOKIE,      /* Cookie reply does not decrypt. */
    WG_DEVICE_DROP_KEY_EXPIRED,     /* Keypair too old or exhausted. */
    WG_DEVICE_DROP_BAD_TAG,         /* Data does not authenticate. */
    WG_DEVICE_DROP_REPLAYED,        /* Counter seen or out of window. */
    WG_DEVICE_DROP_BAD_INNER,       /* Inner IP header invalid. */
    WG_DEVICE_DROP_NOT_ALLOWED,     /* Inner source not in allowed IPs. */
    WG_DEVICE_DROP_CRYPTO,          /* The crypto library failed (fail
                                     * closed: handshake or cookie reply
                                     * abandoned, counter wg_crypto_failure
                                     * too). */
    WG_DEVICE_N_RX
};

/* Returns a short constant name for 'rx' (e.g. "bad-mac1"). */
const char *wg_device_rx_name(enum wg_device_rx rx);

/* True if 'rx' is a drop reason. */
static inline bool
wg_device_rx_is_drop(enum wg_device_rx rx)
{
    return rx >= WG_DEVICE_DROP_TOO_SHORT;
}

/* Result of wg_device_receive() for WG_DEVICE_RX_DATA (inner packet, inside
 * the caller's buffer, padding stripped) and for other outcomes tied to a
 * peer ('peer' nonnull, 'inner' NULL). */
struct wg_device_rx_result {
    struct wg_peer *peer;
    uint8_t *inner;
    size_t inner_len;
};

/* Processes one UDP datagram 'buf' of 'len' bytes received from 'src' (an
 * AF_INET or AF_INET6 address; the handshake rate limiter and cookies key on
 * it, and it becomes the peer's endpoint if the datagram authenticates).
 * Data messages are decrypted in place.  Replies (handshake responses,
 * cookie replies, keepalives) go out through the 'send' hook. */
enum wg_device_rx wg_device_receive(struct wg_device *dev,
                                    const struct sockaddr *src,
                                    socklen_t src_len,
                                    uint8_t *buf, size_t len,
                                    struct wg_device_rx_result *out);

/* Decryption in three steps, the receive side of wg_device_encrypt_begin():
 * for a caller whose lock serializes its calls on the device but who wants
 * the cipher to run outside that lock, on several threads at once.
 *
 * wg_device_decrypt_begin() does with a handshake or cookie message, or a
 * datagram it drops, all that wg_device_receive() does, and returns false
 * with the outcome in '*rxp' (and '*out').  With a data message for a live
 * keypair it returns true and holds that keypair for '*opener'; then
 * wg_device_decrypt_finish() opens the message in place without the
 * caller's lock (it reads only that keypair's receive key, which a rekey or
 * removal meanwhile does not free), and wg_device_decrypt_end(), under the
 * lock again with the same 'buf' and 'len', does the rest (the replay
 * window, the peer's endpoint, timers and counters, cryptokey routing),
 * releases the keypair and returns the outcome wg_device_receive() would
 * have.  A message whose keypair left its peer meanwhile is dropped as of
 * an unknown index.  Every begin that returned true must be ended once. */
struct wg_device_opener {
    struct wg_noise_keypair *kp;
    struct wg_peer *peer;       /* Whose keypair 'kp' was at the start. */
    uint32_t index;
    uint64_t counter;
    bool opened;                /* wg_device_decrypt_finish() succeeded. */
};
bool wg_device_decrypt_begin(struct wg_device *dev,
                             const struct sockaddr *src, socklen_t src_len,
                             uint8_t *buf, size_t len,
                             struct wg_device_opener *opener,
                             struct wg_device_rx_result *out,
                             enum wg_device_rx *rxp);
void wg_device_decrypt_finish(struct wg_device_opener *opener, uint8_t *buf,
                              size_t len);
/* wg_device_decrypt_finish() with the text going to 'dst' (len - 32
 * bytes, apart from 'buf') instead of in place; zeros there if the message
 * fails to open. */
void wg_device_decrypt_finish_to(struct wg_device_opener *opener,
                                 const uint8_t *buf, size_t len,
                                 uint8_t *dst);
enum wg_device_rx wg_device_decrypt_end(struct wg_device *dev,
                                        const struct sockaddr *src,
                                        socklen_t src_len,
                                        uint8_t *buf, size_t len,
                                        struct wg_device_opener *opener,
                                        struct wg_device_rx_result *out);

/* Receiving without the caller's lock, on any thread, at the same time as
 * the device's other functions run under it (OVS RCU, as for sending).
 *
 * wg_device_decrypt_begin_unlocked() is wg_device_decrypt_begin() for a
 * data message to the current keypair of its peer, if that keypair can
 * still receive: it holds the keypair for '*opener' and returns true.  For
 * any other datagram (a handshake or cookie message, an index of a previous
 * or unconfirmed keypair or of none, a short or malformed one) it returns
 * false, holding nothing and counting nothing, and the caller takes its
 * lock and calls wg_device_decrypt_begin().  Either way, the message is
 * then opened by wg_device_decrypt_finish().
 *
 * wg_device_decrypt_end_unlocked() is wg_device_decrypt_end() for a
 * message that opened, whose keypair is still its peer's current one, that
 * came from the peer's endpoint ('src') and that needs no rekey on receive:
 * it consults the keypair's replay window (which has its own lock, as the
 * kernel's does), does cryptokey routing, releases the keypair, stores the
 * outcome in '*rxp' and returns true.  The peer's counters and timers are
 * left for the device to take in under its lock, as for unlocked sends.
 * For any other message (roaming, key confirmation, a rekey, a tag that
 * did not verify...) it returns false with the keypair still held, and the
 * caller ends the message with wg_device_decrypt_end() under its lock.
 *
 * Messages ended one after the other make a run ('*run', set up by
 * wg_device_rx_run_init()): the peer's counters and times are handed over
 * once per peer, when the run ends (wg_device_rx_run_end()).  Each message
 * takes and leaves its keypair's replay window lock on its own, so no lock
 * is held between calls.  End a run before taking the caller's lock or
 * quiescing. */
struct wg_device_rx_run {
    struct wg_peer *peer;           /* Whose messages are counted below. */
    uint64_t packets;
    uint64_t bytes;
    long long int first_data_ms;    /* 0: no data message. */
    long long int last_ms;          /* 0: no message. */
};
bool wg_device_decrypt_begin_unlocked(struct wg_device *dev,
                                      const uint8_t *buf, size_t len,
                                      long long int now,
                                      struct wg_device_opener *opener);
void wg_device_rx_run_init(struct wg_device_rx_run *run);
bool wg_device_decrypt_end_unlocked(struct wg_device *dev,
                                    struct wg_device_rx_run *run,
                                    const struct sockaddr *src,
                                    socklen_t src_len, uint8_t *buf,
                                    size_t len, long long int now,
                                    struct wg_device_opener *opener,
                                    struct wg_device_rx_result *out,
                                    enum wg_device_rx *rxp);
void wg_device_rx_run_end(struct wg_device *dev,
                          struct wg_device_rx_run *run);

/* Timers. */

/* Fires every due timer of every peer (handshake retransmission and give
 * up, keepalives, new handshakes, key zeroing, persistent keepalive).
 * Returns the next deadline in the device clock's ms (LLONG_MAX: none), for
 * the caller to wake up then (e.g. poll_timer_wait_until()).  The deadline
 * may be early (a timer stopped since it was set), never late; a call
 * before it is due costs the same whatever the number of peers. */
long long int wg_device_run(struct wg_device *dev);

/* Deferral of handshake work ('defer' true; false by default): every
 * handshake initiation that a call other than wg_device_run() would send
 * (a packet for a peer without a session, a rekey after so many messages or
 * seconds, wg_device_peer_initiate()...) is instead sent by the next
 * wg_device_run(), which becomes due at once (the 'wake' hook is called).
 * The X25519 computations of an initiation then run on the thread that
 * runs the device's timers, not on the data path's. */
void wg_device_set_deferred(struct wg_device *dev, bool defer);

/* The next deadline without running anything, as wg_device_run() returns
 * it (possibly early, never late), in constant time. */
long long int wg_device_next_deadline(const struct wg_device *dev);

#endif /* wg-device.h */
