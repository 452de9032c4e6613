#!/bin/bash
# SPDX-License-Identifier: MIT
# test-vm-resume (suite vm): `scripts/vm/run --resume` continues an interrupted guest
# campaign. Run 1 stops the campaign of scripts/vm/resume.yaml after 30 s (--stop-after: the
# guest sends SIGINT, exit 130) and brings the database back; run 2 resumes from it and
# finishes. (Run 1 used to rely on its deadline alone, which left the campaign 60 s: on a
# quiet host a guest finished it in that time, and the test failed.) Checks: every trial of run 1 is still stored, run 2 reused them ("from the
# store") and the campaign ends done. Skips (exit 77) without qemu.
# Usage: tests/test-vm-resume.sh SCALACN_BINARY
set -uo pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
BIN=${1:?usage: test-vm-resume.sh SCALACN_BINARY}
if ! command -v qemu-system-x86_64 >/dev/null || ! command -v cpio >/dev/null; then
	echo "test-vm-resume: qemu-system-x86_64 or cpio missing: skipped"
	exit 77
fi
OUT=$(mktemp -d "${TMPDIR:-/tmp}/test-vm-resume.XXXXXX")
DB=$OUT/results.db
fail() { echo "FAIL  $*"; tail -n 30 "$OUT"/o*/run.log 2>/dev/null; exit 1; }
q() { python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone()[0])' "$DB" "$1"; }
run() { "$SRC/scripts/vm/run" "$SRC/scripts/vm/resume.yaml" --scalacn "$BIN" --db "$DB" "$@"; }

run --out "$OUT/o1" --timeout 200 --stop-after 30
rc=$?
[ "$rc" = 130 ] || fail "run 1: expected the guest to stop the campaign (exit 130), got $rc"
n1=$(q "SELECT COUNT(*) FROM trials")
st=$(q "SELECT status FROM campaigns")
[ "$n1" -gt 0 ] && [ "$st" = interrupted ] || fail "run 1: $n1 trials, campaign $st"
keys1=$(python3 -c 'import sqlite3,sys; print(",".join(r[0] for r in sqlite3.connect(sys.argv[1]).execute("SELECT key FROM trials ORDER BY key")))' "$DB")
echo "ok    run 1 stopped after 30 s: $n1 trials stored, campaign $st"

run --out "$OUT/o2" --timeout "${SCALACN_VM_TEST_TIMEOUT:-2200}" --resume
rc=$?
[ "$rc" = 0 ] || [ "$rc" = 1 ] || fail "run 2 (--resume): exit $rc"
st=$(q "SELECT status FROM campaigns ORDER BY id DESC LIMIT 1")
camps=$(q "SELECT COUNT(*) FROM campaigns")
[ "$st" = done ] && [ "$camps" = 1 ] || fail "run 2: $camps campaigns, the last $st"
lost=$(python3 -c 'import sqlite3,sys; have={r[0] for r in sqlite3.connect(sys.argv[1]).execute("SELECT key FROM trials")}; print(sum(k not in have for k in sys.argv[2].split(",")))' "$DB" "$keys1")
[ "$lost" = 0 ] || fail "run 2: $lost trials of run 1 are gone"
reused=$(sed -n 's/^Trials: .*measured now, \([0-9]*\) from the store.*/\1/p' "$OUT/o2/run.log")
[ "${reused:-0}" -ge "$n1" ] || fail "run 2 reused ${reused:-0} stored trials, run 1 stored $n1"
echo "ok    run 2 resumed: $reused trials from the store, $(q 'SELECT COUNT(*) FROM trials') in all, campaign done"
rm -rf "$OUT"
