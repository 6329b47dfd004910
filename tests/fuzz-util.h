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

#ifndef FUZZ_UTIL_H
#define FUZZ_UTIL_H 1

/* What every libFuzzer target of tests/ shares: its entry point and the
 * invariant check, which aborts (so that libFuzzer records the input). */

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_CHECK(COND)                                                \
    do {                                                                \
        if (!(COND)) {                                                  \
            ovs_abort(0, "%s:%d: check failed: %s", __FILE__, __LINE__, \
                      #COND);                                           \
        }                                                               \
    } while (0)

/* wg_device hooks for targets that need a device but not what it sends: a
 * send hook that drops every message and a clock that stands still. */
static inline void
fuzz_drop_send(void *aux OVS_UNUSED, const struct sockaddr *dst OVS_UNUSED,
               socklen_t dst_len OVS_UNUSED, const void *msg OVS_UNUSED,
               size_t len OVS_UNUSED)
{
}

static inline long long int
fuzz_fixed_clock(void *aux OVS_UNUSED)
{
    return 1000;
}

#endif /* fuzz-util.h */
