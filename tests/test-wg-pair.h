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

#ifndef TEST_WG_PAIR_H
#define TEST_WG_PAIR_H 1

/* Test harness shared by the unit tests and tests/fuzz-wg-device.c: two
 * in-memory WireGuard devices, "a" (0) and "b" (1), that are peers of each
 * other, wired by their 'send' hooks through a message queue, with a
 * shared fake clock.  Each node has fixed keys (so that a failure
 * reproduces with the same peers), UDP address 127.0.0.(id+1):51820+id,
 * inner addresses 10.0.0.(id+1) and fd00::(id+1), and allows the other's.
 * A message sent to an address that is neither node's is queued with
 * 'to' -1 and dropped on delivery.  Every receive's outcome is checked
 * (and handed to the optional 'rx_check' hook); a failed check ends the
 * process through wgtest_fail(). */

#include <stdbool.h>
#include <stdint.h>
#include <netinet/in.h>
#include "ovs-thread.h"
#include "wg-device.h"
#include "wg-messages.h"

#define WGPAIR_MAX_MSGS 256
#define WGPAIR_MSG_SIZE 2048
#define WGPAIR_MAX_PENDING 16
#define WGPAIR_MAX_DELIVERIES (4 * WGPAIR_MAX_MSGS) /* Per wgpair_deliver(). */

struct wgpair_msg {
    int from;                           /* Node index. */
    int to;                             /* -1: nobody at that address. */
    struct sockaddr_in src;             /* Sender's address when sent. */
    size_t len;
    uint8_t data[WGPAIR_MSG_SIZE];
};

struct wgpair_node {
    struct wgpair *pair;
    int id;
    struct wg_device *dev;
    struct wg_peer *peer;               /* The other node. */
    uint8_t priv[WG_KEY_LEN];
    uint8_t pub[WG_KEY_LEN];
    struct sockaddr_in addr;            /* Our UDP address. */
    bool blackhole;                     /* Drop everything we send. */

    /* Counters. */
    int sent[WG_MSG_DATA + 1];          /* Messages sent, by type. */
    int keepalives_sent;
    int rx[WG_DEVICE_N_RX];             /* Outcomes of our receives. */
    int session_ready;
    int handshake_failed;

    /* Packets waiting for a session (flushed by 'session_ready'). */
    size_t n_pending;
    size_t pending_len[WGPAIR_MAX_PENDING];
    uint8_t pending[WGPAIR_MAX_PENDING][WGPAIR_MSG_SIZE];

    /* Last inner packet delivered to us. */
    uint8_t last_inner[WGPAIR_MSG_SIZE];
    size_t last_inner_len;
};

/* Extra checks on one receive at 'node' of the 'len' bytes at 'msg'. */
typedef void wgpair_rx_check_func(const struct wgpair_node *node,
                                  enum wg_device_rx rx,
                                  const struct wg_device_rx_result *r,
                                  const uint8_t *msg, size_t len);

struct wgpair {
    long long int now_ms;               /* Set directly by single-threaded
                                         * tests, else by wgpair_advance(),
                                         * under 'clock_mutex'. */
    struct ovs_mutex clock_mutex;
    struct wgpair_node node[2];
    size_t n_msgs;
    struct wgpair_msg msgs[WGPAIR_MAX_MSGS];
    bool hold;                          /* Do not deliver automatically. */
    wgpair_rx_check_func *rx_check;     /* Optional, see above. */
};

/* Sets up two connected nodes with the given PSKs (NULL: none). */
void wgpair_init(struct wgpair *p, const uint8_t *psk_a,
                 const uint8_t *psk_b);

/* Removes the peer of node 'id' and adds it again as wgpair_init() did,
 * without a preshared key: it has no session. */
void wgpair_readd_peer(struct wgpair *p, int id);

/* Destroys both devices. */
void wgpair_destroy(struct wgpair *p);

/* Builds an IPv4 (or IPv6 if 'v6') UDP packet of 'len' bytes from node
 * 'from' to the other, with payload bytes seeded by 'seed', into 'buf'. */
size_t wgpair_make_ip(const struct wgpair *p, int from, bool v6, size_t len,
                      uint8_t seed, uint8_t *buf);

/* Node 'from' sends inner packet 'pkt': encrypts and queues it, or keeps it
 * pending if there is no session.  Returns wg_device_encrypt()'s result. */
int wgpair_send(struct wgpair *p, int from, const uint8_t *pkt, size_t len);

/* Shortcut: sends a fresh IPv4 packet of 'len' bytes. */
int wgpair_send_ip(struct wgpair *p, int from, size_t len);

/* Delivers queued messages (and those their processing queues) until the
 * queue is empty, unless 'hold' is set.  Fails the test if that takes more
 * than WGPAIR_MAX_DELIVERIES messages (the devices would never stop). */
void wgpair_deliver(struct wgpair *p);

/* Delivers one queued message, 'index' in the queue, to its node, removing
 * it.  Returns the outcome. */
enum wg_device_rx wgpair_deliver_one(struct wgpair *p, size_t index);

/* Removes and returns (copies) queued message 'index'. */
struct wgpair_msg wgpair_take(struct wgpair *p, size_t index);

/* Receives 'msg' at its destination node as if from its sender. */
enum wg_device_rx wgpair_inject(struct wgpair *p, const struct wgpair_msg *m);

/* Advances the clock by 'ms', firing every timer on time and delivering
 * messages after each step. */
void wgpair_advance(struct wgpair *p, long long int ms);

/* Runs a full handshake initiated by 'from' with one data packet, and
 * checks that both sides have a session. */
void wgpair_handshake(struct wgpair *p, int from);

/* Total counters over the run. */
int wgpair_sent(const struct wgpair *p, int node, enum wg_msg_type type);

/* The other node's index. */
static inline int
wgpair_other(int node)
{
    return !node;
}

#endif /* test-wg-pair.h */
