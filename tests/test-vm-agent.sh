#!/bin/bash
# SPDX-License-Identifier: MIT
# test-vm-agent: the agent's acceptance test in the vm suite (meson test --suite vm):
# boots the Soft-RoCE guest with scripts/vm/agent-job.sh (model by the real chain, 256
# receive-side prios in front of the RoCE rule, perftest before / with scalacn-agent,
# --restore, a control run) and judges the evidence with tests/check-vm-agent.py.
# Skips (exit 77) without qemu. Usage: tests/test-vm-agent.sh SCALACN AGENT LIBOPT MKMODEL
set -uo pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
BIN=${1:?usage: test-vm-agent.sh SCALACN AGENT LIBOPT MKMODEL}
AGENT=${2:?} LIBOPT=${3:?} MKMODEL=${4:?}
if ! command -v qemu-system-x86_64 >/dev/null || ! command -v cpio >/dev/null; then
	echo "test-vm-agent: qemu-system-x86_64 or cpio missing: skipped"
	exit 77
fi
OUT=${SCALACN_VM_AGENT_OUT:-$(mktemp -d "${TMPDIR:-/tmp}/test-vm-agent.XXXXXX")}
LIBDIR=$(mktemp -d "${TMPDIR:-/tmp}/test-vm-agent-lib.XXXXXX")
# the shared library under its soname, as the dynamic loader looks it up
cp -L "$LIBOPT" "$LIBDIR/$(objdump -p "$LIBOPT" | awk '/SONAME/ { print $2 }')"
t0=$(date +%s)
"$SRC/scripts/vm/run" --job "$SRC/scripts/vm/agent-job.sh" --out "$OUT" \
	--timeout "${SCALACN_VM_TEST_TIMEOUT:-3000}" --scalacn "$BIN" \
	"$AGENT" "$LIBDIR"/* "$MKMODEL" "$SRC/scripts/vm/agent-model.yaml" \
	"$SRC/examples/testbeds/rxe-vm.yaml"
rc=$?
rm -rf "$LIBDIR"
echo "test-vm-agent: guest job exit $rc after $(( $(date +%s) - t0 )) s; evidence in $OUT"
[ $rc = 0 ] || { tail -n 40 "$OUT/console.log"; exit 1; }
python3 "$SRC/tests/check-vm-agent.py" "$OUT" || exit 1
echo "test-vm-agent: total $(( $(date +%s) - t0 )) s"
