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

#include "util.h"
#include "wgtest.h"

/* The send batch's slot pool (tx-slots.h), driven the way the port drives
 * it, with a message that fails in the middle of a super-packet. */

#define N_SLOTS 8
#define SLOT_SIZE 64

/* Index of 'slot' in 's'. */
static size_t
index_of(const struct tx_slots *s, const uint8_t *slot)
{
    return (slot - s->mem) / s->slot_size;
}

/* A super-packet of three segments whose middle one fails to encrypt, then
 * the next packet: it must get a slot of its own, not the third segment's
 * (whose message is queued and not sent yet). */
static void
test_partial_failure(struct tx_slots *s)
{
    uint8_t *segs = tx_slots_acquire(s, 3), *next;

    WGTEST_CHECK(segs == s->mem);
    memset(segs + 2 * SLOT_SIZE, 0xc3, SLOT_SIZE);      /* Queued. */
    /* Segment 2 failed: the port gives nothing back for it. */
    next = tx_slots_acquire(s, 1);
    WGTEST_CHECK(next && index_of(s, next) == 3);
    WGTEST_CHECK(segs[2 * SLOT_SIZE] == 0xc3);

    /* A failed single message is given back and reused. */
    tx_slots_release_tail(s, next, 1);
    WGTEST_CHECK(tx_slots_acquire(s, 1) == next);
    /* Giving back slots that are not the tail does nothing. */
    tx_slots_release_tail(s, segs + SLOT_SIZE, 1);
    WGTEST_CHECK(index_of(s, tx_slots_acquire(s, 1)) == 4);
}

/* Never more than the pool; nothing handed out twice before a reset. */
static void
test_capacity(struct tx_slots *s)
{
    size_t room = tx_slots_room(s);

    WGTEST_CHECK(room == N_SLOTS - 5);
    WGTEST_CHECK(tx_slots_acquire(s, room + 1) == NULL);
    WGTEST_CHECK(tx_slots_room(s) == room);
    WGTEST_CHECK(index_of(s, tx_slots_acquire(s, room)) == 5);
    WGTEST_CHECK(tx_slots_acquire(s, 1) == NULL);
    tx_slots_reset(s);
    WGTEST_CHECK(tx_slots_room(s) == N_SLOTS);
    WGTEST_CHECK(tx_slots_acquire(s, N_SLOTS) == s->mem);
}

static void
test_tx_slots_main(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    struct tx_slots s;

    tx_slots_init(&s, N_SLOTS, SLOT_SIZE);
    test_partial_failure(&s);
    test_capacity(&s);
    tx_slots_destroy(&s);
    printf("tx-slots ok\n");
}
WGTEST_REGISTER("tx-slots", test_tx_slots_main);
