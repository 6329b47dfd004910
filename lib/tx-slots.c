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

#include <stdlib.h>

#include "dp-packet.h"
#include "pkt-pool.h"
#include "util.h"

void
tx_slots_init(struct tx_slots *s, size_t n_slots, size_t slot_size,
              size_t front, size_t headroom)
{
    s->at = xcalloc(n_slots, sizeof *s->at);
    s->mem = front ? NULL : xmalloc(n_slots * slot_size);
    s->pkts = front ? xcalloc(n_slots, sizeof *s->pkts) : NULL;
    s->front = front;
    s->headroom = headroom;
    s->slot_size = slot_size;
    s->n_slots = n_slots;
    s->next = 0;
    for (size_t i = 0; s->mem && i < n_slots; i++) {
        s->at[i] = s->mem + i * slot_size;
    }
}

void
tx_slots_destroy(struct tx_slots *s)
{
    for (size_t i = 0; s->pkts && i < s->n_slots; i++) {
        dp_packet_delete(s->pkts[i]);
    }
    free(s->pkts);
    free(s->mem);
    free(s->at);
    s->pkts = NULL;
    s->mem = NULL;
    s->at = NULL;
    s->n_slots = s->next = 0;
}

size_t
tx_slots_room(const struct tx_slots *s)
{
    return s->n_slots - s->next;
}

/* Gives slot 'i' a packet if it has none. */
static void
tx_slots_fill(struct tx_slots *s, size_t i)
{
    if (!s->pkts[i]) {
        size_t size = s->front + s->slot_size;

        s->pkts[i] = pkt_pool_new(size, s->headroom);
        s->at[i] = dp_packet_put_uninit(s->pkts[i], size);
        s->at[i] += s->front;
    }
}

size_t
tx_slots_acquire(struct tx_slots *s, size_t n)
{
    size_t first = s->next;

    if (n > tx_slots_room(s)) {
        return TX_SLOTS_NONE;
    }
    for (size_t i = first; s->pkts && i < first + n; i++) {
        tx_slots_fill(s, i);
    }
    s->next += n;
    return first;
}

void
tx_slots_release_tail(struct tx_slots *s, size_t first, size_t n)
{
    if (n && n <= s->next && first == s->next - n) {
        s->next -= n;
    }
}

struct dp_packet *
tx_slots_take(struct tx_slots *s, size_t i)
{
    struct dp_packet *pkt = NULL;

    if (s->pkts && i < s->next) {
        pkt = s->pkts[i];
        s->pkts[i] = NULL;
    }
    return pkt;
}

void
tx_slots_reset(struct tx_slots *s)
{
    s->next = 0;
}
