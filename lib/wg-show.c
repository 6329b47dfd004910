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
#include "wg-show.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <time.h>

#include "openvswitch/dynamic-string.h"
#include "util.h"
#include "wg-addr.h"
#include "wg-device.h"

void
wg_show_bytes(struct ds *out, uint64_t bytes)
{
    static const char *const units[] = { "KiB", "MiB", "GiB", "TiB" };
    double v = bytes;
    int unit = -1;

    if (bytes < 1024) {
        ds_put_format(out, "%"PRIu64" B", bytes);
        return;
    }
    while (v >= 1024 && unit < (int) ARRAY_SIZE(units) - 1) {
        v /= 1024;
        unit++;
    }
    ds_put_format(out, "%.2f %s", v, units[unit]);
}

static void
put_unit(struct ds *out, long long int n, const char *unit, bool *first)
{
    if (n) {
        ds_put_format(out, "%s%lld %s%s", *first ? "" : ", ", n, unit,
                      n == 1 ? "" : "s");
        *first = false;
    }
}

void
wg_show_duration(struct ds *out, long long int seconds)
{
    bool first = true;

    if (seconds <= 0) {
        ds_put_cstr(out, "Now");
        return;
    }
    put_unit(out, seconds / (365LL * 86400), "year", &first);
    put_unit(out, seconds / 86400 % 365, "day", &first);
    put_unit(out, seconds / 3600 % 24, "hour", &first);
    put_unit(out, seconds / 60 % 60, "minute", &first);
    put_unit(out, seconds % 60, "second", &first);
}

static void
put_allowed_ip(void *out_, int family, const uint8_t *addr,
               unsigned int prefix_len)
{
    struct ds *out = out_;
    char buf[INET6_ADDRSTRLEN];

    inet_ntop(family, addr, buf, sizeof buf);
    if (out->string[out->length - 1] != ' ') {
        ds_put_cstr(out, ", ");
    }
    ds_put_format(out, "%s/%u", buf, prefix_len);
}

void
wg_show_peer(struct ds *out, const struct wg_device *dev,
             const struct wg_peer *peer)
{
    struct wg_peer_info info;
    char b64[WG_KEY_B64_LEN];

    wg_device_peer_get_info(dev, peer, &info);
    wg_crypto_key_to_base64(b64, info.public_key);
    ds_put_format(out, "\npeer: %s\n", b64);
    if (info.has_psk) {
        ds_put_cstr(out, "  preshared key: (hidden)\n");
    }
    if (info.endpoint_len) {
        ds_put_cstr(out, "  endpoint: ");
        wg_addr_format_endpoint(out, &info.endpoint);
        ds_put_char(out, '\n');
    }
    ds_put_cstr(out, "  allowed ips: ");
    size_t len = out->length;
    wg_device_peer_allowed_ips_walk(dev, peer, put_allowed_ip, out);
    if (out->length == len) {
        ds_put_cstr(out, "(none)");
    }
    ds_put_char(out, '\n');
    if (info.last_handshake.tv_sec) {
        ds_put_cstr(out, "  latest handshake: ");
        wg_show_duration(out, time(NULL) - info.last_handshake.tv_sec);
        ds_put_cstr(out, " ago\n");
    }
    if (info.rx_bytes || info.tx_bytes) {
        ds_put_cstr(out, "  transfer: ");
        wg_show_bytes(out, info.rx_bytes);
        ds_put_cstr(out, " received, ");
        wg_show_bytes(out, info.tx_bytes);
        ds_put_cstr(out, " sent\n");
    }
    if (info.persistent_keepalive_s) {
        ds_put_format(out, "  persistent keepalive: every %u seconds\n",
                      info.persistent_keepalive_s);
    }
}

void
wg_show_device_head(struct ds *out, const char *name,
                    const struct wg_device *dev, int listen_port)
{
    uint8_t pub[WG_KEY_LEN];

    ds_put_format(out, "interface: %s\n", name);
    if (wg_device_get_public_key(dev, pub)) {
        char b64[WG_KEY_B64_LEN];
        wg_crypto_key_to_base64(b64, pub);
        ds_put_format(out, "  public key: %s\n", b64);
        ds_put_cstr(out, "  private key: (hidden)\n");
    }
    if (listen_port) {
        ds_put_format(out, "  listening port: %d\n", listen_port);
    }
    ds_put_format(out, "  handshake load: %s\n",
                  wg_device_is_under_load(dev) ? "under load" : "normal");
}

void
wg_show_device(struct ds *out, const char *name, const struct wg_device *dev,
               int listen_port)
{
    wg_show_device_head(out, name, dev, listen_port);
    for (const struct wg_peer *peer = wg_device_peer_first(dev); peer;
         peer = wg_device_peer_next(dev, peer)) {
        wg_show_peer(out, dev, peer);
    }
}
