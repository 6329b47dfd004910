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

#ifndef WG_RATELIMITER_H
#define WG_RATELIMITER_H 1

/* Per-source rate limiter for handshake messages under load: a token bucket
 * per IPv4 address or IPv6 /64, WG_RATELIMITER_PACKETS_PER_SECOND with a
 * burst of WG_RATELIMITER_BURST, in a bounded table whose idle entries are
 * garbage-collected.  Time is passed in by the caller (milliseconds), so
 * tests drive it with a fake clock.  The caller serializes calls (one
 * limiter per device, which its owner serializes). */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define WG_RATELIMITER_PACKETS_PER_SECOND 20
#define WG_RATELIMITER_BURST 5
#define WG_RATELIMITER_MAX_ENTRIES 8192
#define WG_RATELIMITER_GC_INTERVAL_MS 1000

struct wg_ratelimiter;

/* Creates a limiter with room for 'max_entries' sources (0 for the default
 * WG_RATELIMITER_MAX_ENTRIES). */
struct wg_ratelimiter *wg_ratelimiter_create(size_t max_entries);

/* Frees 'rl' (NULL is allowed). */
void wg_ratelimiter_destroy(struct wg_ratelimiter *rl);

/* Returns true if a handshake from 'addr' ('family' AF_INET: 4 bytes,
 * AF_INET6: 16 bytes, only its /64 counts) may be processed at 'now_ms',
 * consuming one token.  When the table is full, new sources are refused;
 * so is any other 'family'.  When the last collection is
 * WG_RATELIMITER_GC_INTERVAL_MS old, first forgets the sources idle for
 * more than WG_RATELIMITER_GC_INTERVAL_MS (their buckets are full again,
 * so this changes no verdict). */
bool wg_ratelimiter_allow(struct wg_ratelimiter *rl, int family,
                          const void *addr, long long int now_ms);

#ifdef WG_TEST_HOOKS
/* Test-only (test builds, wg-test-hooks.h): runs that collection at
 * 'now_ms'; the number of sources tracked. */
void wg_ratelimiter_gc_for_test(struct wg_ratelimiter *rl,
                                long long int now_ms);
size_t wg_ratelimiter_count_for_test(const struct wg_ratelimiter *rl);
#endif

#endif /* wg-ratelimiter.h */
