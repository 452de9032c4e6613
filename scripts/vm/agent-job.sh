#!/bin/sh
# SPDX-License-Identifier: MIT
# agent-job: the guest side of the agent's vm test (tests/test-vm-agent.sh runs it with
# `scripts/vm/run --job`; tests/check-vm-agent.py judges what lands in /out):
#  1. the model, by the real chain: a campaign (agent-model.yaml: write bw against
#     server.decap_masks) on the rxe pair, `scalacn fit`, `scalacn export`; then one
#     `scalacn measure` at 256 receive-side masks under a tc wrapper on PATH that keeps the
#     rule batch it programs (the generators' own shapes);
#  2. baseline: only the RoCE rule on veth1's ingress; perftest write bw and lat, 5 each,
#     each followed by the same run in the reverse direction (no filters on its path: how
#     loaded the shared host was just then; the agent's runs get the same control);
#  3. the 256 receive-side decap filters of the campaign's 256-mask point (one prio each,
#     never matching: the traffic is not VXLAN) in front of the RoCE rule; measured again;
#  4. scalacn-agent: a dry run, then the daemon until its plan is applied (SIGHUP reload on
#     the way); measured again with the agent running; SIGTERM; --restore; tc -j compared;
#  5. control: a model predicting < 5% at this table; the agent runs 8 ticks and must not act;
#  6. the baseline again (the decap prios removed), for the drift of a loaded host.
# busybox sh: tools by full path (busybox applets shadow iproute2).
set -u
TC=/sbin/tc
AGENT="env LD_LIBRARY_PATH=/job /job/scalacn-agent"
step() { echo "agent-job: $* ($(cut -d' ' -f1 /proc/uptime) s)"; }
PORT=18600

# one perftest run: ib_write_T (bw: 64 KiB x 200; lat: 4 KiB x 500) into FILE. DIR fwd:
# rxe0 -> rxe1, the data arrives at veth1 (the managed table); rev: rxe1 -> rxe0, the data
# arrives at veth0 (no filters): the load control, measured right after each forward run
run1() {
	PORT=$((PORT + 1))
	srv=rxe1 cli=rxe0 addr=192.168.77.2
	[ "$3" = rev ] && { srv=rxe0; cli=rxe1; addr=192.168.77.1; }
	size="-s 65536 -n 200"
	[ $1 = lat ] && size="-s 4096 -n 500"
	/usr/bin/ib_write_$1 -d $srv -x 1 $size -p $PORT > /dev/null 2>&1 &
	spid=$!
	# until the server's port is in LISTEN (0A): a fixed pause loses the race on a loaded host
	hex=$(printf '%04X' $PORT) n=0
	while ! grep -qsE ":$hex 0+:0000 0A" /proc/net/tcp /proc/net/tcp6 && [ $n -lt 300 ]; do
		sleep 0.2; n=$((n + 1))
	done
	timeout 90 /usr/bin/ib_write_$1 -d $cli -x 1 $size -p $PORT $addr > "$2" 2>&1
	rc=$?
	kill $spid 2>/dev/null; wait $spid 2>/dev/null
	return $rc
}
# a latency run whose numbers are inf (perftest's clock estimate fails under a loaded TCG
# host: "Correlation coefficient r^2 < 0.9") is run again, at most 3 times
lat1() {
	for try in 1 2 3; do
		run1 lat "$1" $2
		echo "$1: exit $? (try $try)"
		grep -q "^ 4096 .* inf " "$1" || break
	done
}
# perftest LABEL [rev]: 5 write bw and 5 write lat runs into /out/LABEL-{bw,lat}-N.txt;
# with rev, each followed by the reverse direction's run (/out/LABEL-rev-...)
perftest() {
	for i in 1 2 3 4 5; do
		run1 bw /out/$1-bw-$i.txt fwd
		echo "$1 bw $i: exit $?"
		[ $# -gt 1 ] && { run1 bw /out/$1-rev-bw-$i.txt rev; echo "$1 rev bw $i: exit $?"; }
		lat1 /out/$1-lat-$i.txt fwd
		[ $# -gt 1 ] && lat1 /out/$1-rev-lat-$i.txt rev
	done
}

show() { $TC -s -j filter show dev veth1 ingress > "/out/$1.json"; }

step "1 model: campaign, fit, export"
sh /job/wire up || exit 3
mkdir -p /tmp/wbin
cat > /tmp/wbin/tc <<'EOW'
#!/bin/sh
# keeps every batch the campaign programs (/out/batch.N), then runs the real tc
case " $* " in
*" -batch "*)
	n=$(ls /tmp/batch.* 2>/dev/null | wc -l)
	cat > /tmp/batch.$n
	exec /sbin/tc "$@" < /tmp/batch.$n ;;
esac
exec /sbin/tc "$@"
EOW
chmod +x /tmp/wbin/tc
PATH=/tmp/wbin:$PATH /job/scalacn run /job/agent-model.yaml --testbed /job/rxe-vm.yaml \
	--db /out/model.db > /out/model-run.out 2> /out/model-run.err
echo "campaign exit $?"
/job/scalacn fit --db /out/model.db --inputs server.decap_masks --verb write --metric bw \
	--form service2 > /out/fit.out 2>&1
echo "fit exit $?"
if /job/scalacn export --db /out/model.db --rnic "Soft-RoCE (rxe)" -o /out/rxe.model \
	> /out/export.out 2>&1; then
	echo "exported" > /out/export.how
else
	/job/scalacn export --db /out/model.db --rnic "Soft-RoCE (rxe)" -o /out/rxe.model \
		--force >> /out/export.out 2>&1 && echo "forced" > /out/export.how
fi
cat /out/fit.out /out/export.out
# the 256-mask point of the same plan (its fixed levels), measured once by `scalacn measure`
# under the wrapper: the generators program its rules, the wrapper keeps the batch
PATH=/tmp/wbin:$PATH /job/scalacn measure --testbed /job/rxe-vm.yaml --verb write \
	--size 65536 --set mtu=1024 --set iterations=200 --set page_size=4096 --set flows=256 \
	--set client.encap_masks=1 --set client.decap_masks=1 --set server.encap_masks=1 \
	--set server.decap_masks=256 > /out/measure-256.out 2>&1
echo "measure at 256 masks: exit $?"
# its batch for the server (veth1): the one with the most prios (masks)
best=""; most=0
for b in /tmp/batch.*; do
	k=$(grep "^filter add dev veth1 " "$b" |
		awk '{ for (i = 1; i < NF; i++) if ($i == "prio") print $(i + 1) }' | sort -u | wc -l)
	[ "$k" -gt "$most" ] && { most=$k; best=$b; }
done
echo "generator batch: $best, $most prios on veth1"
# (without the testbed's tail counter, prio 65535: the agent's table is the generator's masks)
grep "^filter add dev veth1 " "$best" | grep -v " prio 65535 " > /out/decap-256.batch

step "2 baseline: the RoCE rule alone"
$TC qdisc del dev veth1 ingress 2>/dev/null
$TC qdisc add dev veth1 ingress
MAC=$(cat /sys/class/net/veth1/address)
$TC filter add dev veth1 ingress protocol ip chain 0 prio 300 handle 1 flower dst_mac $MAC \
	dst_ip 192.168.77.2 ip_proto udp dst_port 4791 action gact pass
perftest base rev

step "3 256 prios in front of the RoCE rule"
# prio 1 is the optimiser's hyper prio: the generator's prios 1..256 become 2..257
awk '{ for (i = 1; i < NF; i++) if ($i == "prio") $(i + 1) = $(i + 1) + 1; print }' \
	/out/decap-256.batch > /tmp/decap.batch
$TC -batch /tmp/decap.batch || echo "decap batch failed"
show walled-before
perftest walled
show original

step "4 the agent"
# rxe has no firmware string in sysfs; ibv_devinfo says 0.0.0, as the campaign recorded
FW=$(/usr/bin/ibv_devinfo -d rxe1 | awk '/fw_ver/ { print $2 }')
echo "rxe1 firmware: '$FW' (sysfs: '$(cat /sys/class/infiniband/rxe1/fw_ver 2>/dev/null)')" \
	> /out/fw.txt
mkdir -p /tmp/metrics
cat > /tmp/agent.yaml <<EOC
devices: [veth1]
model: {file: /out/rxe.model, verb: write, metric: bw}
rnic: {firmware: "$FW"}
inputs: {side: server, fixed: {client.encap_masks: 1, client.decap_masks: 1}}
budgets: {updates_per_s: 2000, tick_s: 1}
state_dir: /tmp/agent-state
metrics: {textfile_dir: /tmp/metrics}
tc: /sbin/tc
EOC
cp /tmp/agent.yaml /out/agent.yaml
$AGENT --config /tmp/agent.yaml --dry-run --once > /out/dryrun.txt 2> /out/dryrun.log
echo "$?" > /out/dryrun.rc
show after-dryrun
$AGENT --config /tmp/agent.yaml > /out/agent.out 2> /out/agent.log &
apid=$!
n=0
until grep -qs '^scalacn_agent_plans_applied_total{device="veth1"} [1-9]' \
	/tmp/metrics/scalacn_agent.prom; do
	sleep 1; n=$((n + 1))
	kill -0 $apid 2>/dev/null || { echo "the agent exited"; break; }
	[ $n -lt 120 ] || { echo "no plan applied after 120 s"; break; }
done
step "plan applied after $n s"
kill -HUP $apid
sleep 3
perftest agent rev
cp /tmp/metrics/scalacn_agent.prom /out/agent-metrics.prom
show optimised
kill -TERM $apid
wait $apid
echo "$?" > /out/agent.rc
$AGENT --config /tmp/agent.yaml --restore > /out/restore.out 2> /out/restore.log
echo "$?" > /out/restore.rc
show restored
cat /out/agent.log /out/restore.log

step "5 control: a model predicting < 5% here"
/job/agent-mkmodel /out/control.model "Soft-RoCE (rxe)" "${FW:-0.0.0}" write bw service \
	server.decap_masks 25 0.0001
sed 's#/out/rxe.model#/out/control.model#; s#/tmp/agent-state#/tmp/control-state#; s#/tmp/metrics#/tmp/control-metrics#' \
	/tmp/agent.yaml > /tmp/control.yaml
mkdir -p /tmp/control-metrics
show control-before
$AGENT --config /tmp/control.yaml --ticks 8 > /out/control.out 2> /out/control.log
echo "$?" > /out/control.rc
cp /tmp/control-metrics/scalacn_agent.prom /out/control-metrics.prom
show control-after
cat /out/control.log

step "6 baseline again (drift): the decap prios removed"
for p in $(awk '{ for (i = 1; i < NF; i++) if ($i == "prio") print $(i + 1) }' /tmp/decap.batch | sort -un); do
	echo "filter del dev veth1 ingress protocol ip chain 0 prio $p"
done > /tmp/undo.batch
$TC -batch /tmp/undo.batch || echo "undo batch failed"
show base2-table
perftest base2 rev

step "7 teardown"
$TC qdisc del dev veth1 ingress
sh /job/wire down
step "done"
exit 0
