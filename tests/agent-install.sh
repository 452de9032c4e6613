#!/bin/sh
# SPDX-License-Identifier: MIT
# agent-install: stage `meson install --destdir` of the build, build examples/agent against
# the staged library with pkg-config only (no build-tree paths), check that the binary
# resolves libscalacn-opt from the stage, run it on a model file from the corpus, and check
# that with a public key (SCALACN_MODEL_KEY) it refuses that unsigned file.
# Usage: agent-install.sh BUILD_ROOT SOURCE_ROOT [SANITIZE_FLAGS]
set -eu
build=$1
src=$2
san=${3:-}
stage=$(mktemp -d "${TMPDIR:-/tmp}/agent-stage-XXXXXX")
trap 'rm -rf "$stage"' EXIT
meson install -C "$build" --destdir "$stage" --no-rebuild >"$stage/install.log" 2>&1 ||
	{ cat "$stage/install.log"; exit 1; }
pc=$(find "$stage" -name scalacn-opt.pc | head -n 1)
test -n "$pc" || { echo "no scalacn-opt.pc in the stage"; exit 1; }
test -f "$(dirname "$pc")/../libscalacn-opt.so" || { echo "no shared library next to the .pc"; exit 1; }
hdr=$(find "$stage" -name scalacn-opt.h | head -n 1)
test -n "$hdr" || { echo "no scalacn-opt.h in the stage"; exit 1; }
mkdir "$stage/agent"
cp "$src/examples/agent/agent.c" "$src/examples/agent/Makefile" "$stage/agent/"
export PKG_CONFIG_PATH="$(dirname "$pc")" PKG_CONFIG_SYSROOT_DIR="$stage"
unset PKG_CONFIG_LIBDIR || true
make -s -C "$stage/agent" CFLAGS="-O1 -g -Werror $san" LDFLAGS="$san"
libdir=$(cd "$(dirname "$pc")/.." && pwd)
LD_LIBRARY_PATH="$libdir" ldd "$stage/agent/agent" | grep scalacn-opt | grep -q "$stage" ||
	{ echo "agent does not resolve libscalacn-opt from the stage"; exit 1; }
LD_LIBRARY_PATH="$libdir" "$stage/agent/agent" "$src/tests/corpus/optimiser/ok-model.db" sim-cx7 5
# a (verb, metric) the file lacks: exit 2 and the reason names what the file holds
set +e
LD_LIBRARY_PATH="$libdir" "$stage/agent/agent" "$src/tests/corpus/optimiser/ok-model.db" sim-cx7 \
	5 read > "$stage/out" 2> "$stage/err"
rc=$?
set -e
[ "$rc" -eq 2 ] || { echo "agent with no read/bw model exited $rc, not 2"; exit 1; }
grep -q "no read/bw model; it holds" "$stage/err" ||
	{ echo "agent's error does not name the models the file holds:"; cat "$stage/err"; exit 1; }
# given a public key, the agent refuses the same (unsigned) model file
"$build/scalacn" keygen -o "$stage/key" >/dev/null
set +e
SCALACN_MODEL_KEY="$stage/key.pub" LD_LIBRARY_PATH="$libdir" \
	"$stage/agent/agent" "$src/tests/corpus/optimiser/ok-model.db" sim-cx7 1 2>"$stage/err"
rc=$?
set -e
[ "$rc" -eq 2 ] && grep -q "is not signed" "$stage/err" ||
	{ echo "agent with SCALACN_MODEL_KEY loaded an unsigned model (exit $rc)"; exit 1; }
