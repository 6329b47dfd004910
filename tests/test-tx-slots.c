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
#include "tx-slots.h"

#include <string.h>

#include "dp-packet.h"
#include "util.h"
#include "wgtest.h"

/* The send batch's slot pool (tx-slots.h), driven the way the port drives
 * it, with a message that fails in the middle of a super-packet, for both
 * kinds of slots: plain memory and slots in packets. */

#define N_SLOTS 8
#define SLOT_SIZE 64
#define FRONT 64
#define HEADROOM 32

/* A super-packet of three segments whose middle one fails to encrypt, then
 * the next packet: it must get a slot of its own, not the third segment's
 * (whose message is queued and not sent yet). */
static void
test_partial_failure(struct tx_slots *s)
{
    size_t segs = tx_slots_acquire(s, 3), next;

    WGTEST_CHECK(segs == 0);
    memset(tx_slots_get(s, segs + 2), 0xc3, SLOT_SIZE);     /* Queued. */
    /* Segment 2 failed: the port gives nothing back for it. */
    next = tx_slots_acquire(s, 1);
    WGTEST_CHECK(next == 3);
    WGTEST_CHECK(tx_slots_get(s, segs + 2)[0] == 0xc3);

    /* A failed single message is given back and reused. */
    tx_slots_release_tail(s, next, 1);
    WGTEST_CHECK(tx_slots_acquire(s, 1) == next);
    /* Giving back slots that are not the tail does nothing. */
    tx_slots_release_tail(s, segs + 1, 1);
    WGTEST_CHECK(tx_slots_acquire(s, 1) == 4);
}

/* Never more than the pool; nothing handed out twice before a reset. */
static void
test_capacity(struct tx_slots *s)
{
    size_t room = tx_slots_room(s);

    WGTEST_CHECK(room == N_SLOTS - 5);
    WGTEST_CHECK(tx_slots_acquire(s, room + 1) == TX_SLOTS_NONE);
    WGTEST_CHECK(tx_slots_room(s) == room);
    WGTEST_CHECK(tx_slots_acquire(s, room) == 5);
    WGTEST_CHECK(tx_slots_acquire(s, 1) == TX_SLOTS_NONE);
    tx_slots_reset(s);
    WGTEST_CHECK(tx_slots_room(s) == N_SLOTS);
    WGTEST_CHECK(tx_slots_acquire(s, N_SLOTS) == 0);
}

/* Every acquired slot has 'slot_size' bytes of its own: none overlaps
 * another. */
static void
test_disjoint(struct tx_slots *s)
{
    for (size_t i = 0; i < N_SLOTS; i++) {
        memset(tx_slots_get(s, i), (int) i, SLOT_SIZE);
    }
    for (size_t i = 0; i < N_SLOTS; i++) {
        const uint8_t *b = tx_slots_get(s, i);

        WGTEST_CHECK(b[0] == i && b[SLOT_SIZE - 1] == i);
    }
}

/* Slots in packets: each slot 'front' bytes into its packet's data, which
 * tx_slots_take() hands on and forgets; a slot not taken keeps its packet
 * for the next acquisition. */
static void
test_packets(struct tx_slots *s)
{
    struct dp_packet *taken, *kept;
    size_t first;

    tx_slots_reset(s);
    first = tx_slots_acquire(s, 2);
    taken = tx_slots_take(s, first);
    WGTEST_CHECK(taken != NULL);
    WGTEST_CHECK((uint8_t *) dp_packet_data(taken) + FRONT
                 == tx_slots_get(s, first));
    WGTEST_CHECK(dp_packet_size(taken) == FRONT + SLOT_SIZE);
    WGTEST_CHECK(dp_packet_headroom(taken) >= HEADROOM);
    WGTEST_CHECK(tx_slots_take(s, first) == NULL);      /* Forgotten. */
    WGTEST_CHECK(tx_slots_take(s, first + 2) == NULL);  /* Not acquired. */

    kept = s->pkts[first + 1];
    tx_slots_reset(s);
    WGTEST_CHECK(tx_slots_acquire(s, 2) == first);
    WGTEST_CHECK(s->pkts[first] && s->pkts[first] != taken);
    WGTEST_CHECK(s->pkts[first + 1] == kept);
    dp_packet_delete(taken);
}

static void
test_tx_slots_main(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    static const size_t fronts[] = { 0, FRONT };

    for (size_t k = 0; k < ARRAY_SIZE(fronts); k++) {
        struct tx_slots s;

        tx_slots_init(&s, N_SLOTS, SLOT_SIZE, fronts[k], HEADROOM);
        test_partial_failure(&s);
        test_capacity(&s);
        test_disjoint(&s);
        if (fronts[k]) {
            test_packets(&s);
        } else {
            WGTEST_CHECK(tx_slots_take(&s, 0) == NULL);
        }
        tx_slots_destroy(&s);
    }
    printf("tx-slots ok\n");
}
WGTEST_REGISTER("tx-slots", test_tx_slots_main);
