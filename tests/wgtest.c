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

/* The checks, hex helpers and random generator that wgtest.h declares,
 * shared by the "wgtest" unit tests and the libFuzzer targets (so no
 * main() here: that is tests/wgtest-main.c). */

#include <config.h>
#include "wgtest.h"

#include <ctype.h>
#include <unistd.h>

#include "util.h"

/* Reports the failed check and ends the process at once: a check fails on
 * a worker thread too, and exit() would run the libraries' exit handlers
 * (OpenSSL's cleanup) under the threads still using them, burying the
 * report under a crash or a spurious library failure. */
void
wgtest_fail(const char *file, int line, const char *what)
{
    fprintf(stderr, "%s:%d: check failed: %s\n", file, line, what);
    fflush(stdout);
    fflush(stderr);
    _exit(1);
}

void
wgtest_dump_mismatch(const void *a_, const void *b_, size_t len)
{
    const unsigned char *a = a_;
    const unsigned char *b = b_;

    for (size_t i = 0; i < len; i++) {
        if (a[i] != b[i]) {
            fprintf(stderr, "offset %zu: %02x != %02x\n", i, a[i], b[i]);
        }
    }
}

size_t
wgtest_unhex(const char *hex, void *out_, size_t out_size)
{
    unsigned char *out = out_;
    size_t n = 0;
    int hi = -1;

    for (; *hex; hex++) {
        int c = (unsigned char) *hex;
        int v;

        if (isspace(c)) {
            continue;
        } else if (isdigit(c)) {
            v = c - '0';
        } else if (isxdigit(c)) {
            v = tolower(c) - 'a' + 10;
        } else {
            fprintf(stderr, "wgtest_unhex: bad character '%c'\n", c);
            exit(2);
        }
        if (hi < 0) {
            hi = v;
        } else {
            if (n >= out_size) {
                fprintf(stderr, "wgtest_unhex: output too small\n");
                exit(2);
            }
            out[n++] = (hi << 4) | v;
            hi = -1;
        }
    }
    return n;
}

bool
wgtest_hex_equal(const void *got, size_t len, const char *hex)
{
    size_t size = strlen(hex) / 2 + 1;
    unsigned char *want = xmalloc(size);
    size_t n = wgtest_unhex(hex, want, size);
    bool equal = n == len && !memcmp(got, want, len);

    if (n != len) {
        fprintf(stderr, "%zu bytes, expected %zu\n", len, n);
    } else if (!equal) {
        wgtest_dump_mismatch(got, want, len);
    }
    free(want);
    return equal;
}

/* splitmix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number
 * generators", OOPSLA 2014). */
static uint64_t random_state;

void
wgtest_random_seed(uint64_t seed)
{
    random_state = seed;
}

uint64_t
wgtest_random(void)
{
    uint64_t z = (random_state += UINT64_C(0x9e3779b97f4a7c15));

    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

void
wgtest_random_fill(void *p_, size_t n)
{
    uint8_t *p = p_;

    for (size_t i = 0; i < n; i++) {
        p[i] = wgtest_random();
    }
}
