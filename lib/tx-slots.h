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

#ifndef TX_SLOTS_H
#define TX_SLOTS_H 1

/* A pool of equal-sized outgoing message buffers ("slots") owned by one send
 * batch.
 *
 * tx_slots_acquire() hands out runs of slots, by index, that are not handed
 * out again until tx_slots_reset(), which the owner calls once every
 * message written into them has been sent.  A slot that ends up unused (its
 * message failed to encrypt, say) simply stays with the batch until then,
 * unless it is among the most recently acquired and tx_slots_release_tail()
 * gives it back.  So no failure between acquisition and reset can make a
 * slot serve two messages, and no slot leaks past a reset.
 *
 * The slots are of one of two kinds, chosen at tx_slots_init():
 *
 *   - 'front' 0: one array of plain memory, for messages that a socket
 *     sends (it copies them).
 *
 *   - 'front' > 0: each slot in a packet of pkt-pool (an mbuf of its DPDK
 *     mempools once DPDK runs), 'front' bytes after the start of the
 *     packet's data, so that a message sealed in the slot becomes a frame
 *     in place: its outer headers go into those bytes and
 *     tx_slots_take() hands the packet on, to the datapath, with no copy.
 *     A slot's packet is allocated when the slot is first acquired after
 *     its packet was taken (or at the first acquisition), from the pool and
 *     not per message otherwise; one that was acquired and not taken stays
 *     for the next acquisition.
 *
 * Index a slot only between its acquisition and the reset.  The caller
 * serializes calls. */

#include <stddef.h>
#include <stdint.h>

struct dp_packet;

/* What tx_slots_acquire() returns when it has not enough room. */
#define TX_SLOTS_NONE SIZE_MAX

struct tx_slots {
    uint8_t **at;               /* Slot i's first byte (valid once
                                 * acquired). */
    uint8_t *mem;               /* 'front' 0: every slot, in one array. */
    struct dp_packet **pkts;    /* 'front' > 0: slot i's packet or NULL. */
    size_t front;               /* Packet bytes before each slot. */
    size_t headroom;            /* Packet headroom before those. */
    size_t slot_size;
    size_t n_slots;
    size_t next;                /* First slot not handed out since reset. */
};

/* Makes 'n_slots' slots of 'slot_size' bytes: plain memory if 'front' is
 * 0, otherwise each in a packet, 'front' bytes into its data, with at least
 * 'headroom' bytes of headroom before that. */
void tx_slots_init(struct tx_slots *, size_t n_slots, size_t slot_size,
                   size_t front, size_t headroom);
void tx_slots_destroy(struct tx_slots *);

/* Number of slots that tx_slots_acquire() can still hand out. */
size_t tx_slots_room(const struct tx_slots *);

/* Hands out 'n' slots, returning the index of the first (the others
 * follow it), or returns TX_SLOTS_NONE, handing out nothing, if fewer than
 * 'n' are free. */
size_t tx_slots_acquire(struct tx_slots *, size_t n);

/* The first byte of slot 'i'. */
static inline uint8_t *
tx_slots_get(const struct tx_slots *s, size_t i)
{
    return s->at[i];
}

/* Gives back the 'n' slots from index 'first' on if they are the last ones
 * handed out (otherwise they stay with the batch until the reset). */
void tx_slots_release_tail(struct tx_slots *, size_t first, size_t n);

/* Returns the packet that holds acquired slot 'i' and forgets it: the
 * caller owns it from now on (its data still starts 'front' bytes before
 * the slot).  NULL for plain slots. */
struct dp_packet *tx_slots_take(struct tx_slots *, size_t i);

/* Takes every slot back.  Only once no message in them is waiting. */
void tx_slots_reset(struct tx_slots *);

#endif /* tx-slots.h */
