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
#include "wg-timers.h"

#include "random.h"
#include "util.h"
#include "wg-messages.h"

/* A random delay for handshake timers, so that peers do not act in step.
 * It needs no secrecy: OVS's fast generator, not a system call to the
 * kernel's, which a busy port would make on every send after a receive
 * (every received packet stops the new-handshake timer, every sent one
 * starts it again). */
static long long int
jitter_ms(void)
{
    return random_range(WG_REKEY_TIMEOUT_JITTER_MAX_MS + 1);
}

static void
timer_set(struct wg_timers *t, enum wg_timer timer, long long int when)
{
    t->deadline_ms[timer] = when;
    if (t->armed) {
        t->armed(t->armed_aux, when);
    }
}

static void
timer_del(struct wg_timers *t, enum wg_timer timer)
{
    t->deadline_ms[timer] = WG_TIMER_OFF;
}

static bool
timer_pending(const struct wg_timers *t, enum wg_timer timer)
{
    return t->deadline_ms[timer] != WG_TIMER_OFF;
}

void
wg_timers_init(struct wg_timers *t)
{
    memset(t, 0, sizeof *t);
    wg_timers_stop(t);
}

void
wg_timers_stop(struct wg_timers *t)
{
    for (int i = 0; i < WG_N_TIMERS; i++) {
        timer_del(t, i);
    }
}

/* Hooks. */

void
wg_timers_data_sent(struct wg_timers *t, long long int now_ms)
{
    if (!timer_pending(t, WG_TIMER_NEW_HANDSHAKE)) {
        timer_set(t, WG_TIMER_NEW_HANDSHAKE,
                  now_ms + WG_KEEPALIVE_TIMEOUT_MS + WG_REKEY_TIMEOUT_MS
                  + jitter_ms());
    }
}

void
wg_timers_data_received(struct wg_timers *t, long long int now_ms)
{
    if (!timer_pending(t, WG_TIMER_SEND_KEEPALIVE)) {
        timer_set(t, WG_TIMER_SEND_KEEPALIVE,
                  now_ms + WG_KEEPALIVE_TIMEOUT_MS);
    } else {
        t->need_another_keepalive = true;
    }
}

void
wg_timers_any_authenticated_packet_sent(struct wg_timers *t)
{
    timer_del(t, WG_TIMER_SEND_KEEPALIVE);
}

void
wg_timers_any_authenticated_packet_received(struct wg_timers *t)
{
    timer_del(t, WG_TIMER_NEW_HANDSHAKE);
}

void
wg_timers_any_authenticated_packet_traversed(struct wg_timers *t,
                                             long long int now_ms)
{
    if (t->persistent_keepalive_s) {
        timer_set(t, WG_TIMER_PERSISTENT_KEEPALIVE,
                  now_ms + t->persistent_keepalive_s * 1000LL);
    }
}

void
wg_timers_handshake_initiated(struct wg_timers *t, long long int now_ms)
{
    timer_set(t, WG_TIMER_RETRANSMIT_HANDSHAKE,
              now_ms + WG_REKEY_TIMEOUT_MS + jitter_ms());
}

void
wg_timers_handshake_complete(struct wg_timers *t)
{
    timer_del(t, WG_TIMER_RETRANSMIT_HANDSHAKE);
    t->handshake_attempts = 0;
    t->sent_lastminute_handshake = false;
}

void
wg_timers_session_derived(struct wg_timers *t, long long int now_ms)
{
    timer_set(t, WG_TIMER_ZERO_KEY_MATERIAL,
              now_ms + WG_ZERO_KEYS_AFTER_TIME_MS);
}

void
wg_timers_ephemeral_key_created(struct wg_timers *t, long long int now_ms)
{
    t->last_initiation_sent_ms = now_ms;
    t->sent_any_initiation = true;
}

bool
wg_timers_handshake_in_flight(const struct wg_timers *t)
{
    return t->deadline_ms[WG_TIMER_RETRANSMIT_HANDSHAKE] != WG_TIMER_OFF;
}

bool
wg_timers_initiation_allowed(const struct wg_timers *t, long long int now_ms)
{
    return (!t->sent_any_initiation
            || now_ms - t->last_initiation_sent_ms
               >= WG_MIN_INITIATION_SEND_INTERVAL_MS);
}

void
wg_timers_reset_initiation_limit(struct wg_timers *t)
{
    t->sent_any_initiation = false;
}

void
wg_timers_set_persistent_keepalive(struct wg_timers *t, unsigned int seconds,
                                   long long int now_ms)
{
    t->persistent_keepalive_s = seconds;
    if (!seconds) {
        timer_del(t, WG_TIMER_PERSISTENT_KEEPALIVE);
    }
}

/* Expiry handlers. */

static void
expired_retransmit_handshake(struct wg_timers *t, long long int now_ms,
                             const struct wg_timers_actions *actions,
                             void *aux)
{
    if (t->handshake_attempts > WG_MAX_TIMER_HANDSHAKES) {
        /* Give up: REKEY_ATTEMPT_TIME has passed. */
        timer_del(t, WG_TIMER_SEND_KEEPALIVE);
        actions->give_up(aux);
        if (!timer_pending(t, WG_TIMER_ZERO_KEY_MATERIAL)) {
            timer_set(t, WG_TIMER_ZERO_KEY_MATERIAL,
                      now_ms + WG_ZERO_KEYS_AFTER_TIME_MS);
        }
    } else {
        t->handshake_attempts++;
        actions->send_initiation(aux, true);
    }
}

static void
expired_send_keepalive(struct wg_timers *t, long long int now_ms,
                       const struct wg_timers_actions *actions, void *aux)
{
    actions->send_keepalive(aux);
    if (t->need_another_keepalive) {
        t->need_another_keepalive = false;
        timer_set(t, WG_TIMER_SEND_KEEPALIVE,
                  now_ms + WG_KEEPALIVE_TIMEOUT_MS);
    }
}

static void
fire(struct wg_timers *t, enum wg_timer timer, long long int now_ms,
     const struct wg_timers_actions *actions, void *aux)
{
    switch (timer) {
    case WG_TIMER_RETRANSMIT_HANDSHAKE:
        expired_retransmit_handshake(t, now_ms, actions, aux);
        break;
    case WG_TIMER_SEND_KEEPALIVE:
        expired_send_keepalive(t, now_ms, actions, aux);
        break;
    case WG_TIMER_NEW_HANDSHAKE:
        /* Data went out KEEPALIVE_TIMEOUT + REKEY_TIMEOUT ago and nothing
         * came back: start over with a new handshake. */
        actions->send_initiation(aux, false);
        break;
    case WG_TIMER_ZERO_KEY_MATERIAL:
        actions->zero_key_material(aux);
        break;
    case WG_TIMER_PERSISTENT_KEEPALIVE:
        if (t->persistent_keepalive_s) {
            actions->send_keepalive(aux);
        }
        break;
    case WG_N_TIMERS:
    default:
        OVS_NOT_REACHED();
    }
}

long long int
wg_timers_run(struct wg_timers *t, long long int now_ms,
              const struct wg_timers_actions *actions, void *aux)
{
    for (int i = 0; i < WG_N_TIMERS; i++) {
        if (t->deadline_ms[i] <= now_ms) {
            timer_del(t, i);
            fire(t, i, now_ms, actions, aux);
        }
    }
    return wg_timers_next_deadline(t);
}

long long int
wg_timers_next_deadline(const struct wg_timers *t)
{
    long long int next = WG_TIMER_OFF;

    for (int i = 0; i < WG_N_TIMERS; i++) {
        next = MIN(next, t->deadline_ms[i]);
    }
    return next;
}
