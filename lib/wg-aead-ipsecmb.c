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
#include "wg-aead-ipsecmb.h"

#include <intel-ipsec-mb.h>

#include "openvswitch/vlog.h"
#include "ovs-thread.h"
#include "util.h"

VLOG_DEFINE_THIS_MODULE(wg_aead_ipsecmb);

static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 5);

/* RFC 8439 sizes (the 1.3 header names none of them). */
#define KEY_LEN 32
#define NONCE_LEN 12
#define TAG_LEN 16

/* The calling thread's manager (IMB_MGR *), freed when the thread exits. */
static ovsthread_key_t mgr_key;

static void
mgr_free(void *mgr)
{
    free_mb_mgr(mgr);
}

static void
mgr_key_init(void)
{
    static struct ovsthread_once once = OVSTHREAD_ONCE_INITIALIZER;

    if (ovsthread_once_start(&once)) {
        ovsthread_key_create(&mgr_key, mgr_free);
        ovsthread_once_done(&once);
    }
}

/* Allocates a manager with the best CPU code for this machine, or returns
 * NULL if the library cannot run here. */
static IMB_MGR *
mgr_create(void)
{
    IMB_MGR *mgr = alloc_mb_mgr(0);
    IMB_ARCH arch = IMB_ARCH_NONE;

    if (!mgr) {
        return NULL;
    }
    init_mb_mgr_auto(mgr, &arch);
    if (arch == IMB_ARCH_NONE || imb_get_errno(mgr) != 0) {
        VLOG_WARN_RL(&rl, "intel-ipsec-mb cannot start: %s",
                     imb_get_strerror(imb_get_errno(mgr)));
        free_mb_mgr(mgr);
        return NULL;
    }
    return mgr;
}

/* The calling thread's manager, allocated on first use; NULL if the library
 * cannot run here. */
static IMB_MGR *
mgr_get(void)
{
    IMB_MGR *mgr;

    mgr_key_init();
    mgr = ovsthread_getspecific(mgr_key);
    if (!mgr) {
        mgr = mgr_create();
        if (mgr) {
            ovsthread_setspecific(mgr_key, mgr);
        }
    }
    return mgr;
}

bool
wg_aead_ipsecmb_available(void)
{
    static struct ovsthread_once once = OVSTHREAD_ONCE_INITIALIZER;
    static bool available;

    if (ovsthread_once_start(&once)) {
        available = mgr_get() != NULL;
        ovsthread_once_done(&once);
    }
    return available;
}

const char *
wg_aead_ipsecmb_arch(void)
{
    IMB_MGR *mgr = mgr_get();

    switch (mgr ? mgr->used_arch : IMB_ARCH_NONE) {
    case IMB_ARCH_AVX512:
        return "AVX512";
    case IMB_ARCH_AVX2:
        return "AVX2";
    case IMB_ARCH_SSE:
        return "SSE";
#if IMB_VERSION_NUM < IMB_VERSION(2, 0, 0)
    /* intel-ipsec-mb 2.0 (Debian 13) dropped its AVX and no-AES-NI code. */
    case IMB_ARCH_AVX:
        return "AVX";
    case IMB_ARCH_NOAESNI:
        return "no AESNI";
#endif
    default:
        return "unavailable";
    }
}

const char *
wg_aead_ipsecmb_version(void)
{
    return imb_get_version_str();
}

/* Fills 'job' for one message (see wg_aead_ipsecmb_run()). */
static void
fill_job(IMB_JOB *job, const uint8_t key[32], const uint8_t nonce[12],
         bool encrypt, uint8_t *dst, const uint8_t *src, size_t len,
         const uint8_t *ad, size_t ad_len, uint8_t tag[16])
{
    job->cipher_direction = encrypt ? IMB_DIR_ENCRYPT : IMB_DIR_DECRYPT;
    job->chain_order = IMB_ORDER_HASH_CIPHER;
    job->cipher_mode = IMB_CIPHER_CHACHA20_POLY1305;
    job->hash_alg = IMB_AUTH_CHACHA20_POLY1305;
    job->enc_keys = key;
    job->dec_keys = key;
    job->key_len_in_bytes = KEY_LEN;
    job->iv = nonce;
    job->iv_len_in_bytes = NONCE_LEN;
    job->u.CHACHA20_POLY1305.aad = ad;
    job->u.CHACHA20_POLY1305.aad_len_in_bytes = ad_len;
    job->src = src;
    job->dst = dst;
    job->cipher_start_src_offset_in_bytes = 0;
    job->msg_len_to_cipher_in_bytes = len;
    job->hash_start_src_offset_in_bytes = 0;
    job->msg_len_to_hash_in_bytes = len;
    job->auth_tag_output = tag;
    job->auth_tag_output_len_in_bytes = TAG_LEN;
}

/* The nonce goes to the job from a copy with room to spare, as the key
 * does (see WG_AEAD_IPSECMB_KEY_ROOM): it is not secret, and 12 bytes are
 * cheap to copy. */
bool
wg_aead_ipsecmb_run(const uint8_t key[WG_AEAD_IPSECMB_KEY_ROOM],
                    const uint8_t nonce[12],
                    bool encrypt, uint8_t *dst, const uint8_t *src,
                    size_t len, const uint8_t *ad, size_t ad_len,
                    uint8_t tag[16])
{
    IMB_MGR *mgr = mgr_get();
    OVS_ALIGNED_VAR(32) uint8_t iv[32] = { 0 };
    IMB_JOB *job, *done;

    if (!mgr) {
        return false;
    }
    memcpy(iv, nonce, NONCE_LEN);
    job = IMB_GET_NEXT_JOB(mgr);
    fill_job(job, key, iv, encrypt, dst, src, len, ad, ad_len, tag);
    done = IMB_SUBMIT_JOB(mgr);
    while (!done && imb_get_errno(mgr) == 0 && IMB_QUEUE_SIZE(mgr)) {
        done = IMB_FLUSH_JOB(mgr);
    }
    if (done != job || job->status != IMB_STATUS_COMPLETED) {
        VLOG_WARN_RL(&rl, "ChaCha20-Poly1305 job refused: %s",
                     imb_get_strerror(imb_get_errno(mgr)));
        while (IMB_FLUSH_JOB(mgr)) {
            continue;
        }
        return false;
    }
    return true;
}
