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

/* The "wgtest" command: the registry WGTEST_REGISTER fills and main(),
 * which runs the test named by its first argument.  Only the unit-test
 * program links this file; the libFuzzer targets bring their own main(). */

#include <config.h>
#include "wgtest.h"

#include "ovs-rcu.h"

#define WGTEST_MAX 128

struct wgtest_command {
    const char *name;
    wgtest_func func;
};

static struct wgtest_command commands[WGTEST_MAX];
static size_t n_commands;

void
wgtest_register(const char *name, wgtest_func func)
{
    if (n_commands >= WGTEST_MAX) {
        fprintf(stderr, "wgtest: too many tests registered\n");
        exit(2);
    }
    commands[n_commands].name = name;
    commands[n_commands].func = func;
    n_commands++;
}

static void
usage(void)
{
    printf("usage: wgtest TEST [ARG...]\navailable tests:\n");
    for (size_t i = 0; i < n_commands; i++) {
        printf("  %s\n", commands[i].name);
    }
}

int
main(int argc, char *argv[])
{
    if (argc < 2 || !strcmp(argv[1], "--help")) {
        usage();
        return argc < 2 ? 2 : 0;
    }
    for (size_t i = 0; i < n_commands; i++) {
        if (!strcmp(commands[i].name, argv[1])) {
            commands[i].func(argc - 1, argv + 1);
            /* What the engine left for after a grace period (peers,
             * keypairs, trie nodes) is freed before exit, for the leak
             * checkers. */
            ovsrcu_quiesce();   /* Also sets OVS RCU up if unused. */
            ovsrcu_exit();
            return 0;
        }
    }
    fprintf(stderr, "wgtest: unknown test \"%s\" (try --help)\n", argv[1]);
    return 2;
}
