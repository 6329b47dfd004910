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
 * tx_slots_acquire() hands out contiguous slots that are not handed out
 * again until tx_slots_reset(), which the owner calls once every message
 * written into them has been sent.  A slot that ends up unused (its message
 * failed to encrypt, say) simply stays with the batch until then, unless it
 * is among the most recently acquired and tx_slots_release_tail() gives it
 * back.  So no failure between acquisition and reset can make a slot serve
 * two messages, and no slot leaks past a reset.
 *
 * Plain buffers only; the caller serializes calls. */

#include <stddef.h>
#include <stdint.h>

struct tx_slots {
    uint8_t *mem;               /* 'n_slots' * 'slot_size' bytes. */
    size_t slot_size;
    size_t n_slots;
    size_t next;                /* First slot not handed out since reset. */
};

void tx_slots_init(struct tx_slots *, size_t n_slots, size_t slot_size);
void tx_slots_destroy(struct tx_slots *);

/* Number of slots that tx_slots_acquire() can still hand out. */
size_t tx_slots_room(const struct tx_slots *);

/* Hands out 'n' contiguous slots (slot i at the returned pointer + i *
 * slot_size), or returns NULL, handing out nothing, if fewer than 'n' are
 * free. */
uint8_t *tx_slots_acquire(struct tx_slots *, size_t n);

/* Gives back the 'n' slots that start at 'first' if they are the last ones
 * handed out (otherwise they stay with the batch until the reset). */
void tx_slots_release_tail(struct tx_slots *, const uint8_t *first, size_t n);

/* Takes every slot back.  Only once no message in them is waiting. */
void tx_slots_reset(struct tx_slots *);

#endif /* tx-slots.h */
