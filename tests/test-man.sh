#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/test-man.sh MESON BUILD_ROOT: `DESTDIR=$d meson install` puts the man pages and the
# bash completion where man and bash-completion look, `man -l` renders every page (with
# the COMMANDS section generated from the command table), and the completion script loads
# and completes a command and an option's values.
set -eu
meson=$1 build=$2
d=$(mktemp -d "${TMPDIR:-/tmp}/scalacn-man.XXXXXX")
trap 'rm -rf "$d"' EXIT
DESTDIR=$d "$meson" install -C "$build" --no-rebuild --quiet >/dev/null
fail=0
check() { if [ "$1" = 0 ]; then echo "ok    $2"; else echo "FAIL  $2"; fail=1; fi; }
for page in man1/scalacn.1 man5/scalacn-plan.5 man5/scalacn-testbed.5; do
	f=$(find "$d" -path "*/man/$page" | head -n 1)
	check "$([ -n "$f" ] && echo 0 || echo 1)" "meson install puts $page under share/man"
	[ -n "$f" ] || continue
	out=$(MANWIDTH=80 man -l "$f" 2>&1 | col -b)
	check "$(echo "$out" | grep -q '^NAME' && echo 0 || echo 1)" "man -l $page renders (NAME)"
done
f=$(find "$d" -path '*/man/man1/scalacn.1' | head -n 1)
out=$(MANWIDTH=80 man -l "$f" 2>/dev/null | col -b)
for cmd in run trials causes export perftest; do
	check "$(echo "$out" | grep -q "^   $cmd\$" && echo 0 || echo 1)" "scalacn(1) has a section for $cmd"
done
check "$(echo "$out" | grep -q -- '--junit FILE' && echo 0 || echo 1)" "scalacn(1) lists run's --junit"
c=$(find "$d" -path '*/bash-completion/completions/scalacn' | head -n 1)
check "$([ -n "$c" ] && echo 0 || echo 1)" "meson install puts the bash completion in bash-completion/completions"
words=$(bash -c '. "$1"; COMP_WORDS=(scalacn ana); COMP_CWORD=1; _scalacn; echo "${COMPREPLY[*]}"' sh "$c")
check "$([ "$words" = analyze ] && echo 0 || echo 1)" "completion: 'scalacn ana' -> analyze ($words)"
words=$(bash -c '. "$1"; COMP_WORDS=(scalacn analyze --strategy ""); COMP_CWORD=3; _scalacn; echo "${COMPREPLY[*]}"' sh "$c")
check "$([ "$words" = "cct brute anneal" ] && echo 0 || echo 1)" "completion: --strategy values ($words)"
exit $fail
