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

#include <stdio.h>
#include <string.h>

#include "openvswitch/compiler.h"
#include "wg-crypto.h"
#include "wgtest.h"

/* Key helpers for the autotest suites, like `wg genkey` and `wg pubkey`,
 * so sandbox tests do not depend on wireguard-tools.  They are tools, not
 * tests: the suites use their output as configuration. */

/* wgtest genkey: prints a new base64 private key. */
static void
test_genkey_main(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    uint8_t priv[WG_KEY_LEN];
    char b64[WG_KEY_B64_LEN];

    WGTEST_CHECK(!wg_crypto_init());
    wg_crypto_generate_private_key(priv);
    wg_crypto_key_to_base64(b64, priv);
    printf("%s\n", b64);
    wg_crypto_wipe(priv, sizeof priv);
    wg_crypto_wipe(b64, sizeof b64);
}
WGTEST_REGISTER("genkey", test_genkey_main);

/* wgtest pubkey: reads a base64 private key on stdin, prints its public
 * key. */
static void
test_pubkey_main(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    uint8_t priv[WG_KEY_LEN], pub[WG_KEY_LEN];
    char line[128], b64[WG_KEY_B64_LEN];

    WGTEST_CHECK(!wg_crypto_init());
    WGTEST_CHECK(fgets(line, sizeof line, stdin) != NULL);
    line[strcspn(line, "\r\n")] = '\0';
    WGTEST_CHECK(wg_crypto_key_from_base64(priv, line));
    WGTEST_CHECK(wg_crypto_public_key(pub, priv));
    wg_crypto_key_to_base64(b64, pub);
    printf("%s\n", b64);
    wg_crypto_wipe(priv, sizeof priv);
    wg_crypto_wipe(line, sizeof line);
}
WGTEST_REGISTER("pubkey", test_pubkey_main);
