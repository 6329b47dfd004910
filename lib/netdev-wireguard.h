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

#ifndef NETDEV_WIREGUARD_H
#define NETDEV_WIREGUARD_H 1

/* The "wireguard" netdev class for the userspace datapath. */

/* Registers the "wireguard" netdev class and its unixctl commands.  Must be
 * called before the bridge creates ports; our ovs-vswitchd calls it from
 * its bridge_init() wrapper.  Safe to call more than once. */
void netdev_wireguard_register(void);

/* The class itself, for tests and type checks. */
struct netdev_class;
extern const struct netdev_class netdev_wireguard_class;

#endif /* netdev-wireguard.h */
