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
#include "unixctl.h"
#include "wg-crypto.h"
#include "wg-crypto-selftest.h"
#include "wg-device.h"
#include "wg-show.h"

/* "ovs-appctl wireguard/show [--offload] [PORT]": what `wg show` prints for
 * each wireguard port (never a private key), and with --offload what the
 * segmentation offload paths did. */

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

static void
netdev_wg_show_offload(struct ds *out, const struct netdev_wireguard *wg)
{
    const struct netdev_wg_offload_stats *o = &wg->offload;

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
    netdev_wg_put_sock_offload(out, "IPv4", wg->sock4);
    netdev_wg_put_sock_offload(out, "IPv6", wg->sock6);
}

static void
netdev_wg_show_unixctl(struct unixctl_conn *conn, int argc,
                              const char *argv[], void *aux OVS_UNUSED)
{
    struct ds out = DS_EMPTY_INITIALIZER;
    struct netdev_wireguard *wg;
    const char *name = NULL;
    bool offload = false;
    bool found = false;

    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--offload")) {
            offload = true;
        } else {
            name = argv[i];
        }
    }

    ovs_mutex_lock(&netdev_wg_list_mutex);
    LIST_FOR_EACH (wg, list_node, &netdev_wg_list) {
        if (name && strcmp(name, netdev_get_name(&wg->up))) {
            continue;
        }
        ovs_mutex_lock(&wg->mutex);
        if (found) {
            ds_put_char(&out, '\n');
        }
        wg_show_device(&out, netdev_get_name(&wg->up), wg->dev,
                       wg->bound_port);
        if (offload) {
            ds_put_char(&out, '\n');
            netdev_wg_show_offload(&out, wg);
        }
        ovs_mutex_unlock(&wg->mutex);
        found = true;
    }
    ovs_mutex_unlock(&netdev_wg_list_mutex);

    if (name && !found) {
        unixctl_command_reply_error(conn, "no such wireguard port");
    } else {
        unixctl_command_reply(conn, ds_cstr(&out));
    }
    ds_destroy(&out);
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
