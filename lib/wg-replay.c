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
#include "wg-replay.h"

#include <string.h>

#include "util.h"

/* Bitmap layout.
 *
 * The window tracks "positions" rather than counters: position p stands for
 * counter p - 1, so that r->greatest (the highest position seen, 0 when
 * nothing was accepted yet) can start at zero.  Position p lives in bit
 * (p % 64) of word (p / 64) % N_WORDS.  The ring holds N_WORDS * 64 bits,
 * but the word that contains 'greatest' is only partly in use, so only
 * WG_REPLAY_WINDOW_SIZE positions behind 'greatest' are guaranteed to be
 * tracked: anything older is rejected. */

#define N_WORDS (WG_REPLAY_BITS_TOTAL / WG_REPLAY_WORD_BITS)

BUILD_ASSERT_DECL(WG_REPLAY_BITS_TOTAL % WG_REPLAY_WORD_BITS == 0);
BUILD_ASSERT_DECL((N_WORDS & (N_WORDS - 1)) == 0);

void
wg_replay_init(struct wg_replay *r)
{
    memset(r, 0, sizeof *r);
}

/* Returns true if 'pos' is too far behind the greatest position seen. */
static bool
wg_replay_too_old(const struct wg_replay *r, uint64_t pos)
{
    return (r->greatest > WG_REPLAY_WINDOW_SIZE
            && pos < r->greatest - WG_REPLAY_WINDOW_SIZE);
}

/* Moves the window forward so that 'pos' (> r->greatest) becomes the
 * greatest position, clearing the words that the window enters. */
static void
wg_replay_advance(struct wg_replay *r, uint64_t pos)
{
    uint64_t cur_word = r->greatest / WG_REPLAY_WORD_BITS;
    uint64_t new_word = pos / WG_REPLAY_WORD_BITS;
    uint64_t n_clear = new_word - cur_word;

    if (n_clear > N_WORDS) {
        n_clear = N_WORDS;
    }
    for (uint64_t i = 1; i <= n_clear; i++) {
        r->bitmap[(cur_word + i) & (N_WORDS - 1)] = 0;
    }
    r->greatest = pos;
}

bool
wg_replay_check_and_update(struct wg_replay *r, uint64_t counter,
                           uint64_t limit)
{
    uint64_t pos, bit, *word;

    /* counter < limit <= UINT64_MAX, so counter + 1 cannot wrap. */
    if (counter >= limit) {
        return false;
    }
    pos = counter + 1;
    if (wg_replay_too_old(r, pos)) {
        return false;
    }
    if (pos > r->greatest) {
        wg_replay_advance(r, pos);
    }

    word = &r->bitmap[(pos / WG_REPLAY_WORD_BITS) & (N_WORDS - 1)];
    bit = UINT64_C(1) << (pos % WG_REPLAY_WORD_BITS);
    if (*word & bit) {
        return false;
    }
    *word |= bit;
    return true;
}
