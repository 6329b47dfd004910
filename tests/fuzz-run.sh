#! /bin/sh
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

# fuzz-run.sh FUZZER SEED-CORPUS WORKDIR RUNS [DICT]
#
# One target of "make fuzz-long": runs libFuzzer binary FUZZER for RUNS
# inputs starting from a fresh copy of SEED-CORPUS in WORKDIR/corpus (the
# seed corpus itself is never written), with DICT if given and nonempty,
# logging to WORKDIR/log and leaving any crash, leak, timeout or OOM input
# in WORKDIR.  Prints one summary line:
#
#   TARGET runs=N cov=N ft=N corpus=FILES/BYTES crashes=0|PATH... time=Ns
#
# and exits 1 if the run found something (or did not finish), 0 otherwise.
# A nonempty FUZZ_MAX_TIME in the environment caps the run at that many
# seconds (libFuzzer's -max_total_time): "runs" then says how far it got.

set -u

if [ $# -lt 4 ] || [ $# -gt 5 ]; then
    echo "usage: $0 FUZZER SEED-CORPUS WORKDIR RUNS [DICT]" >&2
    exit 2
fi
fuzzer=$1 seeds=$2 work=$3 runs=$4 dict=${5:-}
name=$(basename "$fuzzer")

rm -rf "$work"
mkdir -p "$work/corpus"
if [ -d "$seeds" ]; then
    cp "$seeds"/* "$work/corpus/" 2>/dev/null
    chmod -R u+w "$work/corpus"
fi

start=$(date +%s)
max_time=${FUZZ_MAX_TIME:-}
"$fuzzer" -runs="$runs" -print_final_stats=1 -timeout=60 \
    ${max_time:+-max_total_time="$max_time"} \
    -artifact_prefix="$work/" ${dict:+-dict="$dict"} \
    "$work/corpus" > "$work/log" 2>&1
rc=$?
end=$(date +%s)

# The last status line ("#N DONE cov: C ft: F corp: ...") and the final
# statistics.
status=$(grep -E '^#[0-9]+' "$work/log" | tail -1)
cov=$(echo "$status" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
ft=$(echo "$status" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
executed=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log")
files=$(ls "$work/corpus" | wc -l)
bytes=$(cat "$work/corpus"/* 2>/dev/null | wc -c)
crashes=$(ls "$work" | grep -E '^(crash|leak|timeout|oom|slow-unit)-' \
          | sed "s|^|$work/|" | tr '\n' ' ' | sed 's/ $//')
if [ -z "$crashes" ] && [ $rc -ne 0 ]; then
    crashes="exit status $rc, see $work/log"
fi

echo "$name runs=${executed:-?} cov=${cov:-?} ft=${ft:-?}" \
     "corpus=$files/${bytes}b crashes=${crashes:-0} time=$((end - start))s"
[ -z "$crashes" ]
