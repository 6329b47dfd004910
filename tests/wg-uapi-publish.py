#! /usr/bin/env python3
# Copyright (c) 2026 The ovs-wireguard authors.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at:
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

"""Starts a UAPI server N times and connects the moment its socket appears.

  wg-uapi-publish.py WGTEST KEY N

Each round runs "WGTEST uapi-serve DIR wgp KEY", polls for DIR/wgp.sock
without pausing and connects as soon as it is a socket, as wg(8) or a
script would that waits for the file.  A socket that is visible before it
listens refuses the connection; run on one CPU (taskset), the server is
often preempted in that window.  Prints how many of the N connections were
refused and exits 1 if any was.
"""

import os
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
import time


def wait_for_socket(path, server):
    deadline = time.monotonic() + 10
    while True:
        try:
            if stat.S_ISSOCK(os.lstat(path).st_mode):
                return
        except FileNotFoundError:
            pass
        if server.poll() is not None or time.monotonic() > deadline:
            server.kill()
            sys.exit("the server made no socket %s (exit status %r)"
                     % (path, server.returncode))


def one_round(wgtest, key):
    tmp = tempfile.mkdtemp(dir=".")
    path = os.path.join(tmp, "wgp.sock")
    server = subprocess.Popen([wgtest, "uapi-serve", tmp, "wgp", key, "10"],
                              stderr=subprocess.DEVNULL)
    wait_for_socket(path, server)
    refused = False
    with socket.socket(socket.AF_UNIX) as s:
        try:
            s.connect(path)
        except ConnectionRefusedError:
            refused = True
    server.kill()
    server.wait()
    shutil.rmtree(tmp)
    return refused


def main():
    wgtest, key, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    refused = sum(one_round(wgtest, key) for _ in range(n))
    print("%d of %d connections refused" % (refused, n))
    sys.exit(1 if refused else 0)


if __name__ == "__main__":
    main()
