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

#ifndef WG_TEST_HOOKS_H
#define WG_TEST_HOOKS_H 1

/* Test hooks, which exist only in test builds.
 *
 * The library is built twice (Makefile.am): lib/libovswireguard.la, linked
 * into the ovs-vswitchd that "make" builds and the package installs, and
 * lib/libovswireguard-test.la, compiled with WG_TEST_HOOKS defined and
 * linked only into the unit tests and the test daemon
 * tests/hooked/ovs-vswitchd.  Without WG_TEST_HOOKS every hook below is a
 * constant inline function, so that the compiler removes the hook and the
 * code it guards: the shipped daemon reads no test variable from its
 * environment and has no test code path.
 *
 * In a test build:
 *
 *   - wg_test_fault(F) is true for the one call of the failure point F
 *     that wg_test_fault_arm(F, SKIP) chose (the call after SKIP calls that
 *     passed); the crypto seam (wg-crypto.h) then fails as its library
 *     would, so that tests can show that nothing is accepted on a failure.
 *
 *   - wg_test_hooks_read_env(), called when the netdev class registers,
 *     reads OVS_WIREGUARD_TEST_BREAK_AEAD (the data-path AEAD copies
 *     instead of encrypting, for the start-up self-test's test) and
 *     OVS_WIREGUARD_TEST_REKEY_AFTER_MESSAGES=N (sessions rekey after N
 *     messages) and OVS_WIREGUARD_TEST_RX_POOL_MBUFS=N (pkt-pool.h's DPDK
 *     pools have at most N mbufs each, so that tests can empty them) and
 *     OVS_WIREGUARD_TEST_SEAL_FAIL_EVERY=N (every Nth data message whose
 *     sealing was begun, wg_device_encrypt_finish(), fails as a failed
 *     library call would: wg_test_seal_fails(), thread-safe) and
 *     OVS_WIREGUARD_TEST_DNS_REFRESH_MS=N (a host-name endpoint that
 *     resolves is resolved again every N ms instead of every 30 s:
 *     wg_test_dns_refresh_ms(), so that a test of the periodic resolution
 *     waits seconds), and logs a warning for each.
 *
 * Not thread-safe: meant for single-threaded tests and start-up. */

#include <stdbool.h>

enum wg_test_fault {
    WG_TEST_FAULT_HASH,         /* BLAKE2s-256. */
    WG_TEST_FAULT_KEYED_HASH,   /* Keyed BLAKE2s (MAC1, MAC2, cookies). */
    WG_TEST_FAULT_HMAC,         /* HMAC-BLAKE2s (every KDF step). */
    WG_TEST_FAULT_XAEAD_SEAL,   /* XChaCha20-Poly1305 sealing (cookies). */
    WG_TEST_N_FAULTS
};

#ifdef WG_TEST_HOOKS
bool wg_test_fault(enum wg_test_fault);
void wg_test_fault_arm(enum wg_test_fault, unsigned int skip);
void wg_test_fault_disarm(void);
bool wg_test_fault_pending(void);
const char *wg_test_fault_name(enum wg_test_fault);

void wg_test_hooks_read_env(void);
bool wg_test_aead_broken(void);
void wg_test_break_aead(void);
unsigned long long int wg_test_rekey_after(void);
unsigned long long int wg_test_rx_pool_mbufs(void);
bool wg_test_seal_fails(void);
unsigned long long int wg_test_dns_refresh_ms(void);
#else
static inline bool
wg_test_fault(enum wg_test_fault fault)
{
    (void) fault;
    return false;
}

static inline void
wg_test_hooks_read_env(void)
{
}

static inline bool
wg_test_aead_broken(void)
{
    return false;
}

static inline unsigned long long int
wg_test_rekey_after(void)
{
    return 0;
}

static inline unsigned long long int
wg_test_rx_pool_mbufs(void)
{
    return 0;
}

static inline bool
wg_test_seal_fails(void)
{
    return false;
}

static inline unsigned long long int
wg_test_dns_refresh_ms(void)
{
    return 0;
}
#endif

#endif /* wg-test-hooks.h */
