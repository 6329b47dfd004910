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

/* Compiled into lib/libovswireguard-test.la only (see wg-test-hooks.h). */

#include <config.h>
#include "wg-test-hooks.h"

#include <stdlib.h>

#include "openvswitch/vlog.h"
#include "ovs-atomic.h"
#include "util.h"

#ifndef WG_TEST_HOOKS
#error "wg-test-hooks.c belongs to test builds only"
#endif

VLOG_DEFINE_THIS_MODULE(wg_test_hooks);

#define WG_TEST_BREAK_AEAD_ENV "OVS_WIREGUARD_TEST_BREAK_AEAD"
#define WG_TEST_REKEY_ENV "OVS_WIREGUARD_TEST_REKEY_AFTER_MESSAGES"
#define WG_TEST_RX_POOL_ENV "OVS_WIREGUARD_TEST_RX_POOL_MBUFS"
#define WG_TEST_SEAL_FAIL_ENV "OVS_WIREGUARD_TEST_SEAL_FAIL_EVERY"
#define WG_TEST_DNS_REFRESH_ENV "OVS_WIREGUARD_TEST_DNS_REFRESH_MS"

static struct {
    bool armed;
    enum wg_test_fault fault;
    unsigned int skip;          /* Calls of 'fault' still to pass. */
    bool aead_broken;
    unsigned long long int rekey_after;
    unsigned long long int rx_pool_mbufs;
    unsigned long long int seal_fail_every;
    unsigned long long int dns_refresh_ms;
} wg_test;

/* Seals finished so far, for 'seal_fail_every' (any thread). */
static struct atomic_count wg_test_seals = ATOMIC_COUNT_INIT(0);

bool
wg_test_fault(enum wg_test_fault fault)
{
    if (!wg_test.armed || fault != wg_test.fault) {
        return false;
    } else if (wg_test.skip) {
        wg_test.skip--;
        return false;
    }
    wg_test.armed = false;
    return true;
}

void
wg_test_fault_arm(enum wg_test_fault fault, unsigned int skip)
{
    wg_test.armed = true;
    wg_test.fault = fault;
    wg_test.skip = skip;
}

void
wg_test_fault_disarm(void)
{
    wg_test.armed = false;
}

/* True if the armed failure has not happened yet. */
bool
wg_test_fault_pending(void)
{
    return wg_test.armed;
}

const char *
wg_test_fault_name(enum wg_test_fault fault)
{
    static const char *const names[WG_TEST_N_FAULTS] = {
        [WG_TEST_FAULT_HASH] = "hash",
        [WG_TEST_FAULT_KEYED_HASH] = "keyed-hash",
        [WG_TEST_FAULT_HMAC] = "hmac",
        [WG_TEST_FAULT_XAEAD_SEAL] = "xaead-seal",
    };

    return fault < WG_TEST_N_FAULTS ? names[fault] : "?";
}

/* Reads the positive number in environment variable 'name' into '*n'.
 * Returns true if it did. */
static bool
wg_test_read_count_env(const char *name, unsigned long long int *n)
{
    const char *value = getenv(name);

    if (!value) {
        return false;
    } else if (str_to_ullong(value, 10, n) && *n > 0) {
        return true;
    }
    *n = 0;
    VLOG_WARN("%s=%s: not a positive number, ignored", name, value);
    return false;
}

void
wg_test_hooks_read_env(void)
{
    unsigned long long int *n;

    if (getenv(WG_TEST_BREAK_AEAD_ENV)) {
        wg_test_break_aead();
    }
    n = &wg_test.rekey_after;
    if (wg_test_read_count_env(WG_TEST_REKEY_ENV, n)) {
        VLOG_WARN("%s=%llu: test hook, sessions rekey after %llu messages",
                  WG_TEST_REKEY_ENV, *n, *n);
    }
    n = &wg_test.rx_pool_mbufs;
    if (wg_test_read_count_env(WG_TEST_RX_POOL_ENV, n)) {
        VLOG_WARN("%s=%llu: test hook, receive pools of at most %llu mbufs",
                  WG_TEST_RX_POOL_ENV, *n, *n);
    }
    n = &wg_test.seal_fail_every;
    if (wg_test_read_count_env(WG_TEST_SEAL_FAIL_ENV, n)) {
        VLOG_WARN("%s=%llu: test hook, one data message in %llu fails to "
                  "seal", WG_TEST_SEAL_FAIL_ENV, *n, *n);
    }
    n = &wg_test.dns_refresh_ms;
    if (wg_test_read_count_env(WG_TEST_DNS_REFRESH_ENV, n)) {
        VLOG_WARN("%s=%llu: test hook, host names resolved again every "
                  "%llu ms", WG_TEST_DNS_REFRESH_ENV, *n, *n);
    }
}

/* From now on the data-path AEAD behaves like the defect fixed in November
 * 2026 (messages copied, not encrypted, with an all-zero tag; any tag
 * accepted), so that tests can prove that the start-up self-test
 * (wg-crypto-selftest.h) catches such a library.  wg_crypto_describe()
 * says so in the log. */
void
wg_test_break_aead(void)
{
    wg_test.aead_broken = true;
}

bool
wg_test_aead_broken(void)
{
    return wg_test.aead_broken;
}

unsigned long long int
wg_test_rekey_after(void)
{
    return wg_test.rekey_after;
}

unsigned long long int
wg_test_rx_pool_mbufs(void)
{
    return wg_test.rx_pool_mbufs;
}

unsigned long long int
wg_test_dns_refresh_ms(void)
{
    return wg_test.dns_refresh_ms;
}

bool
wg_test_seal_fails(void)
{
    unsigned long long int every = wg_test.seal_fail_every;

    return every && (atomic_count_inc(&wg_test_seals) + 1) % every == 0;
}
