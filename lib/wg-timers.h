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

#ifndef WG_TIMERS_H
#define WG_TIMERS_H 1

/* Per-peer protocol timers (whitepaper section 6), as event hooks that arm
 * or disarm deadlines, and a run function that fires the due ones through
 * caller-supplied actions.  Time is always passed in (monotonic ms), so
 * tests drive it with a fake clock.
 *
 * The five timers:
 *   retransmit-handshake  REKEY_TIMEOUT + jitter after an initiation is
 *                         sent; retries until REKEY_ATTEMPT_TIME, then gives
 *                         up.
 *   send-keepalive        KEEPALIVE_TIMEOUT after data was received with
 *                         nothing sent back.
 *   new-handshake         KEEPALIVE_TIMEOUT + REKEY_TIMEOUT + jitter after
 *                         data was sent with nothing received back.
 *   zero-key-material     REJECT_AFTER_TIME * 3 after a session was derived.
 *   persistent-keepalive  every persistent keepalive interval after any
 *                         authenticated packet went either way. */

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

enum wg_timer {
    WG_TIMER_RETRANSMIT_HANDSHAKE,
    WG_TIMER_SEND_KEEPALIVE,
    WG_TIMER_NEW_HANDSHAKE,
    WG_TIMER_ZERO_KEY_MATERIAL,
    WG_TIMER_PERSISTENT_KEEPALIVE,
    WG_N_TIMERS
};

#define WG_TIMER_OFF LLONG_MAX

struct wg_timers {
    long long int deadline_ms[WG_N_TIMERS];     /* WG_TIMER_OFF: disarmed. */
    unsigned int handshake_attempts;
    bool need_another_keepalive;
    bool sent_lastminute_handshake;
    unsigned int persistent_keepalive_s;
    long long int last_initiation_sent_ms;
    bool sent_any_initiation;

    /* If nonnull (the owner sets it after wg_timers_init()): called with
     * 'armed_aux' and every deadline set, so that the owner of many
     * timers keeps them in the order of their next deadline without
     * looking at each (see wg_device_run()). */
    void (*armed)(void *armed_aux, long long int when);
    void *armed_aux;
};

/* What firing timers do to the peer; 'aux' is the run's 'aux'. */
struct wg_timers_actions {
    void (*send_initiation)(void *aux, bool is_retry);
    void (*give_up)(void *aux);         /* Drop queued packets. */
    void (*send_keepalive)(void *aux);
    void (*zero_key_material)(void *aux);
};

/* Disarms all timers of 't' and resets its counters. */
void wg_timers_init(struct wg_timers *t);

/* Disarms all timers (peer removal, key change). */
void wg_timers_stop(struct wg_timers *t);

/* True while an initiation of ours awaits its response (the
 * retransmit-handshake timer is armed). */
bool wg_timers_handshake_in_flight(const struct wg_timers *t);

/* Event hooks.  Each is named after the event it follows. */

/* An authenticated data packet (not a keepalive) was sent. */
void wg_timers_data_sent(struct wg_timers *t, long long int now_ms);

/* An authenticated data packet (not a keepalive) was received. */
void wg_timers_data_received(struct wg_timers *t, long long int now_ms);

/* Any authenticated packet (handshake, keepalive, data) was sent. */
void wg_timers_any_authenticated_packet_sent(struct wg_timers *t);

/* Any authenticated packet was received. */
void wg_timers_any_authenticated_packet_received(struct wg_timers *t);

/* Any authenticated packet went either way. */
void wg_timers_any_authenticated_packet_traversed(struct wg_timers *t,
                                                  long long int now_ms);

/* A handshake initiation was sent. */
void wg_timers_handshake_initiated(struct wg_timers *t, long long int now_ms);

/* A handshake completed: response consumed, or first data on a responder's
 * new keypair. */
void wg_timers_handshake_complete(struct wg_timers *t);

/* A new keypair was derived (response sent or consumed). */
void wg_timers_session_derived(struct wg_timers *t, long long int now_ms);

/* An ephemeral key was created (initiation or response sent).  The
 * handshake send rate limit counts from here. */
void wg_timers_ephemeral_key_created(struct wg_timers *t,
                                     long long int now_ms);

/* True if a new initiation may be sent now: at most one per
 * WG_MIN_INITIATION_SEND_INTERVAL_MS. */
bool wg_timers_initiation_allowed(const struct wg_timers *t,
                                  long long int now_ms);

/* Lets the next initiation go at once (our own key changed: the sessions
 * must be replaced without waiting out the rate limit). */
void wg_timers_reset_initiation_limit(struct wg_timers *t);

/* Sets the persistent keepalive interval (0 disables). */
void wg_timers_set_persistent_keepalive(struct wg_timers *t,
                                        unsigned int seconds,
                                        long long int now_ms);

/* Fires every timer of 't' due at 'now_ms' through 'actions'.  Returns the
 * next deadline (WG_TIMER_OFF if none). */
long long int wg_timers_run(struct wg_timers *t, long long int now_ms,
                            const struct wg_timers_actions *actions,
                            void *aux);

/* Returns the earliest armed deadline of 't' (WG_TIMER_OFF if none). */
long long int wg_timers_next_deadline(const struct wg_timers *t);

#endif /* wg-timers.h */
