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

#ifndef WG_SHOW_H
#define WG_SHOW_H 1

/* Human-readable state of a WireGuard device in the format of `wg show`,
 * for "ovs-appctl wireguard/show".  Never prints a private or preshared
 * key. */

#include <stdint.h>

struct ds;
struct wg_device;
struct wg_peer;

/* Appends to 'out' what `wg show` prints for interface 'name' backed by
 * 'dev' listening on UDP port 'listen_port'. */
void wg_show_device(struct ds *out, const char *name,
                    const struct wg_device *dev, int listen_port);

/* The same in parts: the interface's lines, then each peer's. */
void wg_show_device_head(struct ds *out, const char *name,
                         const struct wg_device *dev, int listen_port);
void wg_show_peer(struct ds *out, const struct wg_device *dev,
                  const struct wg_peer *peer);

/* Appends a `wg show`-style amount of bytes ("1.50 KiB") to 'out'. */
void wg_show_bytes(struct ds *out, uint64_t bytes);

/* Appends a `wg show`-style duration ("1 minute, 5 seconds") to 'out'. */
void wg_show_duration(struct ds *out, long long int seconds);

#endif /* wg-show.h */
