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

#ifndef WG_UAPI_PRIVATE_H
#define WG_UAPI_PRIVATE_H 1

/* Internals shared by the UAPI's two files: its text (wg-uapi-text.c: a
 * set request's lines parsed into ops, a get's lines printed into buffers
 * that hold secrets) and its requests (wg-uapi.c: jobs that apply or list,
 * a slice at a time).  Not for users of the UAPI. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <netinet/in.h>
#include "openvswitch/compiler.h"
#include "wg-addr.h"
#include "wg-crypto.h"

struct ds;

/* One parsed line of a set request. */
enum uapi_key {
    K_PRIVATE_KEY,
    K_LISTEN_PORT,
    K_FWMARK,
    K_REPLACE_PEERS,
    K_PUBLIC_KEY,
    K_REMOVE,
    K_UPDATE_ONLY,
    K_PRESHARED_KEY,
    K_ENDPOINT,
    K_KEEPALIVE,
    K_REPLACE_ALLOWED_IPS,
    K_ALLOWED_IP,
    K_PROTOCOL_VERSION,
};

struct uapi_op {
    enum uapi_key key;
    union {
        uint8_t key[WG_KEY_LEN];
        uint32_t num;
        struct {
            /* Large enough for AF_INET and AF_INET6, and much smaller than
             * a sockaddr_storage: a request may hold millions of ops. */
            struct sockaddr_in6 sa;
            socklen_t len;
        } ep;
        struct wg_addr_prefix ip;
    } u;
};

/* The lines of a set request's body, read one at a time. */
struct uapi_cursor {
    const char *body;           /* Not null-terminated, not modified. */
    size_t len;                 /* Up to the blank line. */
    size_t pos;                 /* Start of the next line. */
    size_t line;                /* Lines read. */
    bool in_peer;               /* After a public_key line. */
};

/* Whether 'cur' has read its last line. */
bool wg_uapi_cursor_at_end(const struct uapi_cursor *cur);

/* Parses the next line at 'cur' into 'op'.  Returns 0 or a positive errno
 * value, with a description (no request data) in '*what'. */
int wg_uapi_parse_next(struct uapi_cursor *cur, struct uapi_op *op,
                       const char **what);

/* Appends a line (at most 255 bytes) to 'out', a buffer that may hold
 * secrets (wg_uapi_ds_put_secret()), wiping the copy it formats in. */
void wg_uapi_put_line(struct ds *out, const char *format, ...)
    OVS_PRINTF_FORMAT(2, 3);

/* Appends "'name'=HEX\n" for key 'key' to 'out', the same way. */
void wg_uapi_put_key_line(struct ds *out, const char *name,
                          const uint8_t key[WG_KEY_LEN]);

#endif /* wg-uapi-private.h */
