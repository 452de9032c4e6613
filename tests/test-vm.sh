#!/bin/bash
# SPDX-License-Identifier: MIT
# test-vm: the vm suite (meson test --suite vm): boots the Soft-RoCE QEMU guest
# (scripts/vm/run), runs scripts/vm/selftest-job.sh in it and checks what came back with
# tests/check-vm.py (devices, flower counters, real trials in SQLite, the fault test,
# teardown). Needs qemu-system-x86_64, cpio, apt-get access to a Debian mirror (first run:
# the image is built into the cache) and python3. Skips (exit 77) without qemu.
# Usage: tests/test-vm.sh SCALACN_BINARY
set -uo pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
BIN=${1:?usage: test-vm.sh SCALACN_BINARY}
if ! command -v qemu-system-x86_64 >/dev/null || ! command -v cpio >/dev/null; then
	echo "test-vm: qemu-system-x86_64 or cpio missing: skipped"
	exit 77
fi
OUT=$(mktemp -d "${TMPDIR:-/tmp}/test-vm.XXXXXX")
t0=$(date +%s)
"$SRC/scripts/vm/run" --job "$SRC/scripts/vm/selftest-job.sh" --out "$OUT" \
	--timeout "${SCALACN_VM_TEST_TIMEOUT:-2200}" --scalacn "$BIN" \
	"$SRC/scripts/vm/selftest.yaml" "$SRC/scripts/vm/fault.yaml" \
	"$SRC/examples/testbeds/rxe-vm.yaml"
rc=$?
echo "test-vm: guest job exit $rc after $(( $(date +%s) - t0 )) s; evidence in $OUT"
[ $rc = 0 ] || { tail -n 40 "$OUT/console.log"; exit 1; }
python3 "$SRC/tests/check-vm.py" "$OUT" || exit 1
rm -rf "$OUT"
echo "test-vm: total $(( $(date +%s) - t0 )) s"
