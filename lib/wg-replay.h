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

#ifndef WG_REPLAY_H
#define WG_REPLAY_H 1

/* Sliding-window replay protection for transport data counters, with the
 * semantics of the Linux kernel's WireGuard (RFC 6479 style bitmap of
 * 8192 bits of which WG_REPLAY_WINDOW_SIZE = 8128 are usable). */

#include <stdbool.h>
#include <stdint.h>

#define WG_REPLAY_BITS_TOTAL 8192
#define WG_REPLAY_WORD_BITS 64
#define WG_REPLAY_WINDOW_SIZE (WG_REPLAY_BITS_TOTAL - WG_REPLAY_WORD_BITS)

struct wg_replay {
    uint64_t greatest;          /* Highest counter accepted so far + 1. */
    uint64_t bitmap[WG_REPLAY_BITS_TOTAL / WG_REPLAY_WORD_BITS];
};

/* Resets 'r' to accept any counter. */
void wg_replay_init(struct wg_replay *r);

/* Checks 'counter' against the window and, if acceptable, marks it as seen.
 * 'limit' is the first counter that must always be rejected (WireGuard's
 * REJECT_AFTER_MESSAGES).  Returns true if the packet is new and within the
 * window, false if it is a replay, too old, or >= limit.  Call it only after
 * the packet authenticated. */
bool wg_replay_check_and_update(struct wg_replay *r, uint64_t counter,
                                uint64_t limit);

#endif /* wg-replay.h */
