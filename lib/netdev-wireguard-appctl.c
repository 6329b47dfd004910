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

#include <string.h>

#include "netdev-wireguard-private.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/list.h"
#include "openvswitch/poll-loop.h"
#include "pkt-pool.h"
#include "svec.h"
#include "timeval.h"
#include "unixctl.h"
#include "wg-crypto.h"
#include "wg-crypto-selftest.h"
#include "wg-device.h"
#include "wg-show.h"

/* "ovs-appctl wireguard/show [--offload] [PORT]": what `wg show` prints for
 * each wireguard port (never a private key), and with --offload what the
 * segmentation offload paths did.  A port of 10,000 peers takes a third of
 * a second to print, so the command is served in slices of
 * NETDEV_WG_SLICE_US from the main loop (netdev_wg_appctl_run()), as the
 * UAPI is, and replies when done: the ports that match when it arrives,
 * each port's peers when its turn comes, a peer at a time, each as it is
 * then. */

static void
netdev_wg_put_ratio(struct ds *out, uint64_t num, uint64_t den)
{
    if (den) {
        ds_put_format(out, " (%.1f per", (double) num / den);
    } else {
        ds_put_cstr(out, " (- per");
    }
}

static void
netdev_wg_put_sock_offload(struct ds *out, const char *family,
                           const struct udp_batch_sock *sock)
{
    struct udp_batch_stats st;
    struct udp_batch_info info;

    if (!sock) {
        return;
    }
    udp_batch_get_info(sock, &info);
    udp_batch_get_stats(sock, &st);
    ds_put_format(out, "  %s socket: udp_gso %s, udp_gro %s\n", family,
                  info.gso_active ? "active"
                  : info.gso_failed ? "off after a send error" : "off",
                  info.gro_active ? "active" : "off");
    ds_put_format(out, "    tx: %"PRIu64" UDP GSO sends carrying %"PRIu64
                  " datagrams", st.tx_gso_sends, st.tx_gso_segments);
    netdev_wg_put_ratio(out, st.tx_gso_segments, st.tx_gso_sends);
    ds_put_format(out, " send), %"PRIu64" datagrams in all, %"PRIu64
                  " fallbacks\n", st.tx_datagrams, st.tx_gso_fallbacks);
    ds_put_format(out, "    rx: %"PRIu64" UDP GRO reads carrying %"PRIu64
                  " datagrams", st.rx_gro_reads, st.rx_gro_segments);
    netdev_wg_put_ratio(out, st.rx_gro_segments, st.rx_gro_reads);
    ds_put_format(out, " read), %"PRIu64" datagrams in all\n",
                  st.rx_datagrams);
}

/* What receive queue 'i' ('q', nullable) read and how much of it went
 * without the port's lock. */
static void
netdev_wg_show_rxq(struct ds *out, int i, const struct netdev_wg_rxq *q)
{
    const struct netdev_wg_rx_counts *c = q ? &q->counts : NULL;

    ds_put_format(out, "  rx queue %d: %"PRIu64" messages, %"PRIu64
                  " bytes, %"PRIu64" of them ended without the port's lock;"
                  " %"PRIu64" of %"PRIu64" rounds handed to the bridge "
                  "without it\n", i,
                  c ? netdev_wg_counter_get(&c->messages) : 0,
                  c ? netdev_wg_counter_get(&c->bytes) : 0,
                  c ? netdev_wg_counter_get(&c->unlocked) : 0,
                  c ? netdev_wg_counter_get(&c->rounds_unlocked) : 0,
                  c ? netdev_wg_counter_get(&c->rounds) : 0);
}

static void
netdev_wg_show_offload(struct ds *out, const struct netdev_wireguard *wg)
{
    struct netdev_wg_offload_stats offload = wg->offload, *o = &offload;
    struct netdev_stats stats = { .tx_packets = 0 };
    uint64_t unlocked;

    netdev_wg_sock_add_counts(wg, &stats, o);
    netdev_wg_rx_add_counts(wg, &stats, o);
    ds_put_format(out, "offload: userspace-tso %s, tcp_gro %s\n",
                  wg->tso ? "on" : "off",
                  wg->cfg.tcp_gro ? "on" : "off");
    ds_put_format(out, "  tx: %"PRIu64" super-packets segmented into %"
                  PRIu64" segments", o->super_packets, o->segments);
    netdev_wg_put_ratio(out, o->segments, o->super_packets);
    ds_put_format(out, " super-packet), %"PRIu64" checksums completed\n",
                  o->csum_filled);
    ds_put_format(out, "  rx: %"PRIu64" super-packets coalesced from %"
                  PRIu64" segments", o->coalesced, o->coalesced + o->merged);
    netdev_wg_put_ratio(out, o->coalesced + o->merged, o->coalesced);
    ds_put_cstr(out, " super-packet)\n");
    ds_put_format(out, "  rx: %"PRIu64" packets to the bridge in pooled "
                  "buffers, %"PRIu64" in allocated ones\n", o->rx_pooled,
                  o->rx_allocated);
    pkt_pool_describe(out);
    netdev_wg_put_sock_offload(out, "IPv4", wg->sock4[0]);
    netdev_wg_put_sock_offload(out, "IPv6", wg->sock6[0]);
    for (int i = 0; i < wg->n_rxq; i++) {
        netdev_wg_show_rxq(out, i, wg->rxqs[i]);
    }
    for (int i = 0; i < wg->n_txq; i++) {
        uint64_t n = netdev_wg_sock_messages(&wg->txqs[i]->tx, &unlocked);

        ds_put_format(out, "  tx queue %d: %"PRIu64" messages, %"PRIu64
                      " of them begun without the port's lock\n", i, n,
                      unlocked);
    }
    ds_put_format(out, "  tx by the port itself: %"PRIu64" messages\n",
                  netdev_wg_sock_messages(&wg->tx, &unlocked));
}

struct netdev_wg_show_job {
    struct ovs_list node;           /* In 'show_jobs'. */
    struct unixctl_conn *conn;
    bool offload;
    struct svec ports;              /* Names of the ports to show. */
    size_t next_port;
    struct wg_device_peer_walk walk;    /* The port's peers at its turn. */
    struct ds out;
};

/* Jobs in the order they came, only touched by the main thread (unixctl
 * commands and the class's run/wait hooks). */
static struct ovs_list show_jobs = OVS_LIST_INITIALIZER(&show_jobs);

static void
netdev_wg_show_unixctl(struct unixctl_conn *conn, int argc,
                       const char *argv[], void *aux OVS_UNUSED)
{
    struct netdev_wg_show_job *job = xzalloc(sizeof *job);
    struct netdev_wireguard *wg;
    const char *name = NULL;

    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--offload")) {
            job->offload = true;
        } else {
            name = argv[i];
        }
    }
    job->conn = conn;
    svec_init(&job->ports);
    ds_init(&job->out);
    ovs_mutex_lock(&netdev_wg_list_mutex);
    LIST_FOR_EACH (wg, list_node, &netdev_wg_list) {
        if (!name || !strcmp(name, netdev_get_name(&wg->up))) {
            svec_add(&job->ports, netdev_get_name(&wg->up));
        }
    }
    ovs_mutex_unlock(&netdev_wg_list_mutex);
    if (name && !job->ports.n) {
        unixctl_command_reply_error(conn, "no such wireguard port");
        svec_destroy(&job->ports);
        free(job);
        return;
    }
    ovs_list_push_back(&show_jobs, &job->node);
}

/* The port named 'name' (the caller holds netdev_wg_list_mutex, which
 * keeps it), or NULL if it is gone. */
static struct netdev_wireguard *
netdev_wg_show_find_port(const char *name)
    OVS_REQUIRES(netdev_wg_list_mutex)
{
    struct netdev_wireguard *wg;

    LIST_FOR_EACH (wg, list_node, &netdev_wg_list) {
        if (!strcmp(name, netdev_get_name(&wg->up))) {
            return wg;
        }
    }
    return NULL;
}

/* One step of 'job' on port 'wg' (NULL: gone): its head, a peer, or its
 * offload lines and the move to the next port. */
static void
netdev_wg_show_port_step(struct netdev_wg_show_job *job,
                         struct netdev_wireguard *wg)
{
    const char *name = job->ports.names[job->next_port];
    const struct wg_peer *peer = NULL;

    if (wg && !wg_device_peer_walk_started(&job->walk)) {
        if (job->out.length) {
            ds_put_char(&job->out, '\n');
        }
        wg_show_device_head(&job->out, name, wg->dev, wg->bound_port);
        wg_device_peer_walk_start(&job->walk, wg->dev);
    } else if (wg && (peer = wg_device_peer_walk_next(&job->walk, wg->dev))) {
        wg_show_peer(&job->out, wg->dev, peer);
    } else {
        if (wg && job->offload) {
            ds_put_char(&job->out, '\n');
            netdev_wg_show_offload(&job->out, wg);
        }
        wg_device_peer_walk_destroy(&job->walk);
        job->next_port++;
    }
}

/* One step of 'job'.  Returns true when it is done. */
static bool
netdev_wg_show_step(struct netdev_wg_show_job *job)
{
    struct netdev_wireguard *wg;

    if (job->next_port >= job->ports.n) {
        return true;
    }
    ovs_mutex_lock(&netdev_wg_list_mutex);
    wg = netdev_wg_show_find_port(job->ports.names[job->next_port]);
    if (wg) {
        ovs_mutex_lock(&wg->mutex);
        netdev_wg_show_port_step(job, wg);
        ovs_mutex_unlock(&wg->mutex);
    } else {
        netdev_wg_show_port_step(job, NULL);
    }
    ovs_mutex_unlock(&netdev_wg_list_mutex);
    return false;
}

void
netdev_wg_appctl_run(void)
{
    struct netdev_wg_show_job *job;
    long long int deadline;

    if (ovs_list_is_empty(&show_jobs)) {
        return;             /* Every main-loop pass: no clock read. */
    }
    deadline = time_usec() + NETDEV_WG_SLICE_US;
    job = CONTAINER_OF(ovs_list_front(&show_jobs), struct netdev_wg_show_job,
                       node);
    while (!netdev_wg_show_step(job)) {
        if (time_usec() >= deadline) {
            return;
        }
    }
    unixctl_command_reply(job->conn, ds_cstr(&job->out));
    ovs_list_remove(&job->node);
    svec_destroy(&job->ports);
    ds_destroy(&job->out);
    free(job);
}

void
netdev_wg_appctl_wait(void)
{
    if (!ovs_list_is_empty(&show_jobs)) {
        poll_immediate_wake();
    }
}

/* "ovs-appctl wireguard/crypto": which crypto the ports use and whether it
 * passed the start-up self-test (which this command runs if no port has
 * yet). */
static void
netdev_wg_crypto_unixctl(struct unixctl_conn *conn, int argc OVS_UNUSED,
                         const char *argv[] OVS_UNUSED, void *aux OVS_UNUSED)
{
    const char *failed = wg_crypto_selftest();
    struct ds out = DS_EMPTY_INITIALIZER;

    ds_put_format(&out, "%s\n", wg_crypto_describe());
    ds_put_format(&out, "libraries: %s\n", wg_crypto_library_versions());
    if (failed) {
        ds_put_format(&out, "self-test: FAILED: %s\n", failed);
    } else {
        ds_put_format(&out, "self-test: passed (%"PRIuSIZE" checks)\n",
                      wg_crypto_selftest_n_checks());
    }
    unixctl_command_reply(conn, ds_cstr(&out));
    ds_destroy(&out);
}

/* "ovs-appctl wireguard/reload-keys PORT": reads the port's private and
 * preshared key files again; a file that cannot be used leaves its key as
 * it is (netdev-wireguard-keys.c). */
static void
netdev_wg_reload_keys_unixctl(struct unixctl_conn *conn, int argc OVS_UNUSED,
                              const char *argv[], void *aux OVS_UNUSED)
{
    struct ds out = DS_EMPTY_INITIALIZER;
    struct netdev_wireguard *wg;
    bool found = false;

    ovs_mutex_lock(&netdev_wg_list_mutex);
    LIST_FOR_EACH (wg, list_node, &netdev_wg_list) {
        if (!strcmp(argv[1], netdev_get_name(&wg->up))) {
            ovs_mutex_lock(&wg->mutex);
            netdev_wg_keys_reload(wg, &out);
            ovs_mutex_unlock(&wg->mutex);
            found = true;
            break;
        }
    }
    ovs_mutex_unlock(&netdev_wg_list_mutex);

    if (!found) {
        unixctl_command_reply_error(conn, "no such wireguard port");
    } else {
        unixctl_command_reply(conn, ds_cstr(&out));
    }
    ds_destroy(&out);
}

/* Registers the wireguard/show, wireguard/crypto and wireguard/reload-keys
 * commands. */
void
netdev_wg_appctl_register(void)
{
    unixctl_command_register("wireguard/reload-keys", "PORT", 1, 1,
                             netdev_wg_reload_keys_unixctl, NULL);
    unixctl_command_register("wireguard/show", "[--offload] [PORT]", 0, 2,
                             netdev_wg_show_unixctl, NULL);
    unixctl_command_register("wireguard/crypto", "", 0, 0,
                             netdev_wg_crypto_unixctl, NULL);
}
