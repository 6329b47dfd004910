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
#include "wg-device.h"

#include <errno.h>
#include <string.h>
#include "openvswitch/vlog.h"
#include "timeval.h"
#include "util.h"
#include "wg-device-private.h"
#include "wg-test-hooks.h"

/* The device's timers: one run (wg_device_run()) fires every peer's due
 * timers, sends the initiations left for it and takes in what unlocked
 * senders and receivers did.  The top of the device: calls its send side
 * (wg-device-tx.c) and its core (wg-device.c), and nothing calls it but
 * the device's user. */

VLOG_DEFINE_THIS_MODULE(wg_device_timers);

static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 20);

/* Timers. */

struct timer_ctx {
    struct wg_device *dev;
    struct wg_peer *peer;
};

static void
timer_send_initiation(void *ctx_, bool is_retry)
{
    struct timer_ctx *ctx = ctx_;

    wg_device_send_initiation(ctx->dev, ctx->peer, is_retry);
}

static void
timer_give_up(void *ctx_)
{
    struct timer_ctx *ctx = ctx_;
    char name[WG_PEER_NAME_LEN];

    VLOG_INFO_RL(&rl, "peer %s: handshake did not complete after %d s, "
                 "giving up", wg_peer_name(ctx->peer, name),
                 WG_REKEY_ATTEMPT_TIME_MS / 1000);
    if (ctx->dev->hooks.handshake_failed) {
        ctx->dev->hooks.handshake_failed(ctx->dev->aux, ctx->peer);
    }
}

static void
timer_send_keepalive(void *ctx_)
{
    struct timer_ctx *ctx = ctx_;

    wg_device_peer_send_keepalive(ctx->dev, ctx->peer);
}

static void
timer_zero_key_material(void *ctx_)
{
    struct timer_ctx *ctx = ctx_;

    wg_peer_clear_sessions(ctx->peer);
}

static const struct wg_timers_actions timer_actions = {
    .send_initiation = timer_send_initiation,
    .give_up = timer_give_up,
    .send_keepalive = timer_send_keepalive,
    .zero_key_material = timer_zero_key_material,
};

/* Sends at most WG_DEVICE_INITIATIONS_PER_RUN of the initiations deferred
 * since the last run, in the order they were asked for (each checked
 * again against its rate limit); the next run, due at 'now' if some are
 * left, sends the next ones. */
static void
run_deferred_initiations(struct wg_device *dev, long long int now)
{
    struct wg_peer *peer;
    size_t n = 0;

    LIST_FOR_EACH_POP (peer, wanted_node, &dev->initiations_wanted) {
        peer->initiation_wanted = false;
        wg_device_send_initiation(dev, peer, false);
        if (++n >= WG_DEVICE_INITIATIONS_PER_RUN) {
            break;
        }
    }
    if (!ovs_list_is_empty(&dev->initiations_wanted)) {
        dev->run_asked_ms = now;
    }
}

void
wg_device_set_deferred(struct wg_device *dev, bool defer)
{
    dev->defer_initiations = defer;
}

/* When senders without the lock last sent and wg_device_run() should
 * take in what they did, or WG_TIMER_OFF. */
static long long int
sync_deadline(const struct wg_device *dev)
{
    bool sends;

    atomic_read_relaxed(&CONST_CAST(struct wg_device *, dev)->unlocked_work,
                        &sends);
    return sends ? dev->last_sync_ms + WG_DEVICE_SYNC_MS : WG_TIMER_OFF;
}

/* The main loop calls wg_device_run() and wg_device_next_deadline() on
 * every iteration, and a port may have tens of thousands of peers: neither
 * looks at more peers than it has work for, and a run does a bounded slice
 * of it (WG_DEVICE_TIMERS_PER_RUN peers' timers, WG_DEVICE_INITIATIONS_PER_RUN
 * deferred initiations, WG_DEVICE_SS_PER_RUN static-static DHs after a key
 * change), so that the port's lock, which the caller holds over it, is
 * released between slices for the data path; what is left makes the next
 * run due at once (the DHs: WG_DEVICE_SS_PACE_MS later).  Each peer is in
 * 'dev->due_peers' by when it is due, which every deadline set lowers
 * (the timers' 'armed' hook) and which is thus never later than the
 * peer's next deadline; a timer stopped early at worst makes one look too
 * many, which sets it exact again.  A run takes in what senders and
 * receivers without the lock did for every peer only once per
 * WG_DEVICE_SYNC_MS while there is any, and otherwise only for the peers
 * whose timers are due. */

/* Takes in what unlocked senders and receivers did for every peer. */
static void
sync_all_peers(struct wg_device *dev, long long int now)
{
    struct wg_peer *peer;

    atomic_store_relaxed(&dev->unlocked_work, false);
    dev->last_sync_ms = now;
    LIST_FOR_EACH (peer, list_node, &dev->peers) {
        wg_device_peer_sync(peer);
    }
}

/* Takes at most WG_DEVICE_TIMERS_PER_RUN of the peers whose timers are due
 * at 'now' out of their order into 'due', due at WG_TIMER_OFF until they
 * have run: a timer that their actions set again for 'now' waits for the
 * next run, and so do the peers beyond the cap (still due, they make the
 * next run due at once). */
static void
take_due_peers(struct wg_device *dev, long long int now, struct ovs_list *due)
{
    for (size_t n = 0; n < WG_DEVICE_TIMERS_PER_RUN
                       && !heap_is_empty(&dev->due_peers); n++) {
        struct wg_peer *peer = CONTAINER_OF(heap_max(&dev->due_peers),
                                            struct wg_peer, due_node);

        if (wg_device_peer_due_ms(peer) > now) {
            break;
        }
        wg_device_peer_set_due(peer, WG_TIMER_OFF);
        ovs_list_push_back(due, &peer->due_run_node);
    }
}

/* Fires the timers of the peers whose timers are due at 'now'. */
static void
run_due_timers(struct wg_device *dev, long long int now)
{
    struct ovs_list due = OVS_LIST_INITIALIZER(&due);
    struct wg_peer *peer;

    take_due_peers(dev, now, &due);
    LIST_FOR_EACH_POP (peer, due_run_node, &due) {
        struct timer_ctx ctx = { .dev = dev, .peer = peer };
        long long int next;

        wg_device_peer_sync(peer);
        next = wg_timers_run(&peer->timers, now, &timer_actions, &ctx);
        dev->n_peer_timer_runs++;
        wg_device_peer_set_due(peer, next);
    }
}

long long int
wg_device_run(struct wg_device *dev)
{
    long long int now = wg_device_now(dev);

    if (now < wg_device_next_deadline(dev)) {
        return wg_device_next_deadline(dev);
    }
    dev->run_asked_ms = WG_TIMER_OFF;
    dev->in_run = true;
    run_deferred_initiations(dev, now);
    if (sync_deadline(dev) <= now) {
        sync_all_peers(dev, now);
    }
    run_due_timers(dev, now);
    wg_device_static_run(dev, WG_DEVICE_SS_PER_RUN, now);
    dev->in_run = false;
    return wg_device_next_deadline(dev);
}

long long int
wg_device_next_deadline(const struct wg_device *dev)
{
    long long int next = MIN(dev->run_asked_ms, sync_deadline(dev));

    next = MIN(next, wg_device_static_due(dev));

    if (!heap_is_empty(&dev->due_peers)) {
        const struct wg_peer *peer = CONTAINER_OF(heap_max(&dev->due_peers),
                                                  struct wg_peer, due_node);

        next = MIN(next, wg_device_peer_due_ms(peer));
    }
    return next;
}

#ifdef WG_TEST_HOOKS
uint64_t
wg_device_timer_runs_for_test(const struct wg_device *dev)
{
    return dev->n_peer_timer_runs;
}
#endif
