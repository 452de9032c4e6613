#!/bin/sh
# SPDX-License-Identifier: MIT
# selftest-job: the guest side of the vm test suite (tests/test-vm.sh runs it with
# `scripts/vm/run --job`). Every step leaves evidence in /out for the host to check:
#  1. the wire (rxe0, rxe1 on a veth pair) and rdma-core's view of it (ibv_devinfo -v);
#  2. a counting flower rule on UDP 4791 at veth1's ingress and one ib_write_bw: the rule's
#     packet counter (tc -s -j) must show the RoCE packets;
#  3. a small campaign (selftest.yaml) on rxe-vm.yaml: real trials in /out/selftest.db, each
#     with its evidence (also as `scalacn trials --json`: /out/selftest-trials.json);
#  4. the fault test: a flower drop on UDP 4791 (veth0 egress, a prio qdisc the campaign does
#     not own) until the first trial's client is killed by its deadline; fault.yaml's
#     trials go to /out/fault.db (first a timeout, then ok trials);
#  5. teardown: no filter left on veth0/veth1 ingress, the rxe devices deleted.
# Assumes busybox sh: tools are called by full path (busybox applets shadow iproute2).
set -u
TC=/sbin/tc
step() { echo "selftest: $* ($(cut -d' ' -f1 /proc/uptime) s)"; }

step "1 wire"
sh /job/wire up || exit 3
/usr/bin/rdma link show > /out/rdma-link.txt
/usr/bin/ibv_devinfo -v -d rxe0 > /out/devinfo-rxe0.txt 2>/dev/null
/usr/bin/ibv_devinfo -v -d rxe1 > /out/devinfo-rxe1.txt 2>/dev/null
cat /out/rdma-link.txt

step "2 counting rule"
$TC qdisc add dev veth1 ingress
$TC filter add dev veth1 ingress protocol ip chain 0 prio 1 flower ip_proto udp \
	dst_port 4791 action pass
# the server's TCP port 18400 (47E0) in LISTEN (0A): a loaded host can take far more than a
# fixed pause to get there (a 2 s sleep lost the race beside stress-ng)
listening() { grep -qsE ':47E0 0+:0000 0A' /proc/net/tcp /proc/net/tcp6; }
for try in 1 2 3; do
	/usr/bin/ib_write_bw -d rxe1 -x 1 -n 100 -p 18400 > /out/count-srv.out 2>&1 &
	srv=$!
	n=0
	while ! listening && [ $n -lt 600 ]; do sleep 0.2; n=$((n + 1)); done
	timeout 120 /usr/bin/ib_write_bw -d rxe0 -x 1 -n 100 -p 18400 192.168.77.2 \
		> /out/count-cli.out 2>/out/count-cli.err
	rc=$?
	echo "count client exit $rc (try $try, server listening after $n polls)"
	kill $srv 2>/dev/null; wait $srv 2>/dev/null
	[ $rc = 0 ] && break
done
$TC -s -j filter show dev veth1 ingress > /out/count-tc.json
$TC qdisc del dev veth1 ingress

step "3 campaign"
/job/scalacn run /job/selftest.yaml --testbed /job/rxe-vm.yaml --db /out/selftest.db \
	--junit /out/selftest-junit.xml > /out/selftest.out 2> /out/selftest.err
echo "$?" > /out/selftest.rc
tail -n 15 /out/selftest.err
/job/scalacn trials --db /out/selftest.db
/job/scalacn trials --db /out/selftest.db --json > /out/selftest-trials.json 2>&1

step "4 fault"
# a shorter deadline for the hanging trial: setup 8 + run 4 + slack 4 s
sed 's/run_s: [0-9.]*/run_s: 4/; s/slack_s: [0-9.]*/slack_s: 4/' /job/rxe-vm.yaml > /tmp/fault-tb.yaml
$TC qdisc add dev veth0 root handle 1: prio
$TC filter add dev veth0 parent 1: protocol ip prio 1 flower ip_proto udp dst_port 4791 \
	action drop
# busybox has no pgrep: a perftest client is the process whose argv holds the server address.
# The drop stays until the first client is gone: that process, not any client (under TCG the
# campaign's next trial started its client within the 0.2 s poll, every trial after the
# first found the drop still there and timed out too).
client_pid() {
	for f in /proc/[0-9]*/cmdline; do
		if grep -qs 192.168.77.2 "$f"; then
			f=${f#/proc/}
			echo "${f%/cmdline}"
			return 0
		fi
	done
	return 1
}
(
	n=0
	while ! pid=$(client_pid); do
		sleep 0.2; n=$((n + 1)); [ $n -lt 600 ] || break
	done
	echo "fault: client $pid up ($(cut -d' ' -f1 /proc/uptime) s)"
	while [ -n "$pid" ] && [ -d "/proc/$pid" ]; do sleep 0.2; done
	$TC -s -j filter show dev veth0 parent 1: > /out/fault-drop.json
	$TC qdisc del dev veth0 root
	echo "fault: client gone, drop removed ($(cut -d' ' -f1 /proc/uptime) s)"
) &
watcher=$!
/job/scalacn run /job/fault.yaml --testbed /tmp/fault-tb.yaml --db /out/fault.db \
	> /out/fault.out 2> /out/fault.err
echo "$?" > /out/fault.rc
wait $watcher
tail -n 10 /out/fault.err
/job/scalacn trials --db /out/fault.db

step "5 teardown"
$TC filter show dev veth0 ingress > /out/left-veth0.txt 2>&1
$TC filter show dev veth1 ingress > /out/left-veth1.txt 2>&1
sh /job/wire down
/usr/bin/rdma link show > /out/rdma-link-after.txt 2>&1
step "done"
exit 0
