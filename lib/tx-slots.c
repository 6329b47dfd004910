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

#include "util.h"

void
tx_slots_init(struct tx_slots *s, size_t n_slots, size_t slot_size)
{
    s->mem = xmalloc(n_slots * slot_size);
    s->slot_size = slot_size;
    s->n_slots = n_slots;
    s->next = 0;
}

void
tx_slots_destroy(struct tx_slots *s)
{
    free(s->mem);
    s->mem = NULL;
    s->n_slots = s->next = 0;
}

size_t
tx_slots_room(const struct tx_slots *s)
{
    return s->n_slots - s->next;
}

uint8_t *
tx_slots_acquire(struct tx_slots *s, size_t n)
{
    uint8_t *first;

    if (n > tx_slots_room(s)) {
        return NULL;
    }
    first = s->mem + s->next * s->slot_size;
    s->next += n;
    return first;
}

void
tx_slots_release_tail(struct tx_slots *s, const uint8_t *first, size_t n)
{
    if (n && n <= s->next
        && first == s->mem + (s->next - n) * s->slot_size) {
        s->next -= n;
    }
}

void
tx_slots_reset(struct tx_slots *s)
{
    s->next = 0;
}
