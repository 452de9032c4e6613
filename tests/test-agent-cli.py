#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""test-agent-cli: scalacn-agent as a program, against tests/agent-faketc.py (a stand-in
for tc on hosts without cls_flower): the dry run changes nothing and prints tc lines; the
daemon moves the hot RoCE prio in front of 20 never-matching decap prios, checks forwarding
and writes its metrics; --restore gives back the original table; the control model (2.5%
predicted) applies nothing; SIGTERM stops it (exit 0); a failing tc batch is fatal (exit 3)
and restores; configuration and firmware errors exit 2 naming file, line and key.
Usage: test-agent-cli.py AGENT MKMODEL FAKETC
"""
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time

AGENT, MKMODEL, FAKETC = sys.argv[1:4]
TMP = tempfile.mkdtemp(prefix="test-agent-cli.")
STATE = os.path.join(TMP, "tc.json")
ENV = dict(os.environ, FAKETC_STATE=STATE)
failures = []


def wait_for(lines, text, timeout=30):
    """Until a line of LINES (filled by a reader thread) contains TEXT, or TIMEOUT s."""
    end = time.monotonic() + timeout
    while time.monotonic() < end and not any(text in line for line in list(lines)):
        time.sleep(0.05)


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def table():
    """(pref, handle, actions) of every filter."""
    with open(STATE, encoding="utf-8") as f:
        return sorted((x["pref"], x["handle"], tuple(x["actions"]))
                      for x in json.load(f)["filters"])


def initial_table(roce_packets):
    st = {"filters": [], "actions": {}}
    for m in range(20):
        # prio 21 (m 19) shares prio 2's mask, as the generators' tables do: merged first
        keys = {"eth_type": "ipv4", "dst_ip": f"10.0.{m}.1", "src_ip": f"10.1.0.{m}",
                "enc_dst_ip": f"172.20.0.0/{(m + 8) if m < 19 else 8}", "enc_key_id": 1000 + m,
                "enc_dst_port": 4789}
        st["actions"][f"tunnel_key/{m + 1}"] = {"kind": "tunnel_key", "mode": "unset",
                                                 "index": m + 1}
        st["actions"][f"mirred/{m + 1}"] = {"kind": "mirred", "direction": "egress",
                                             "mirred_action": "redirect", "to_dev": "veth1",
                                             "index": m + 1}
        st["filters"].append({"pref": m + 2, "handle": 1, "proto": "ip", "keys": keys,
                              "actions": [f"tunnel_key/{m + 1}", f"mirred/{m + 1}"]})
    st["actions"]["gact/1"] = {"kind": "gact", "control_action": {"type": "pass"}, "index": 1,
                               "packets": roce_packets}
    st["filters"].append({"pref": 300, "handle": 1, "proto": "ip",
                          "keys": {"eth_type": "ipv4", "dst_mac": "52:54:00:77:00:02",
                                   "ip_proto": "udp", "dst_ip": "192.168.77.2",
                                   "dst_port": 4791}, "actions": ["gact/1"]})
    with open(STATE, "w", encoding="utf-8") as f:
        json.dump(st, f)


def config(name, model, extra=""):
    path = os.path.join(TMP, name)
    with open(path, "w", encoding="utf-8") as f:
        f.write(f"devices: [veth1]\nmodel: {{file: {model}, verb: write, metric: bw}}\n"
                f"rnic: {{firmware: 0.0.0}}\ninputs: {{side: server}}\n"
                f"budgets: {{updates_per_s: 2000, tick_s: 0.05}}\n"
                f"state_dir: {TMP}/state\nmetrics: {{textfile_dir: {TMP}}}\ntc: {FAKETC}\n{extra}")
    return path


def agent(*args, env=None):
    return subprocess.run([AGENT, *args], env=env or ENV, capture_output=True, text=True,
                          timeout=120)


def metric(name):
    with open(os.path.join(TMP, "scalacn_agent.prom"), encoding="utf-8") as f:
        for line in f:
            if line.startswith(name + "{"):
                return float(line.split()[-1])
    return None


def model(path, k, firmware="0.0.0"):
    subprocess.run([MKMODEL, path, "Soft-RoCE (rxe)", firmware, "write", "bw", "service",
                    "server.decap_masks", "25", str(k)], check=True)


def main():
    hot, flat = os.path.join(TMP, "hot.model"), os.path.join(TMP, "flat.model")
    model(hot, 0.05)     # 1 - 1/(1 + 0.05 * 21) = 51% predicted at 21 masks
    model(flat, 0.0001)  # 0.2%: the control
    initial_table(10 ** 6)
    original = table()
    cfg = config("agent.yaml", hot)

    r = agent("--config", cfg, "--dry-run", "--once")
    check(r.returncode == 0 and "filter add dev veth1 ingress protocol ip chain 0 prio" in r.stdout
          and table() == original, f"dry run: exit {r.returncode}, prints tc lines, table unchanged")

    r = agent("--config", config("flat.yaml", flat), "--ticks", "4")
    check(r.returncode == 0 and table() == original and "plan:" not in r.stderr,
          f"control model: exit {r.returncode}, no plan, table unchanged")

    r = agent("--config", cfg, "--ticks", "4", "--metrics-stdout")
    moved = table()
    roce = [f for f in moved if f[2] == ("gact/1",)][0]
    check(r.returncode == 0 and roce[0] < min(f[0] for f in moved if f != roce),
          f"daemon: exit {r.returncode}, the RoCE prio moved in front (prio {roce[0]})")
    check(metric("scalacn_agent_plans_applied_total") == 1 and
          metric("scalacn_agent_forwarding_changed_total") == 0 and
          metric("scalacn_agent_forwarding_checked_total") >= 1 and
          metric("scalacn_agent_rule_operations_total") >= 2,
          "metrics: 1 plan applied, forwarding checked, 0 changed, tc operations counted")
    check("0 changed action" in r.stderr and "21 prios hold 20 masks: merging" in r.stderr,
          "log: prios sharing a mask merged, the forwarding checks")

    r = agent("--config", cfg, "--restore")
    check(r.returncode == 0 and table() == original,
          f"--restore: exit {r.returncode}, the table equals the original")

    # signals only once the agent says it runs (its handlers are in place by then: a fixed
    # sleep lost that race on a loaded host, and SIGHUP's default action killed it)
    p = subprocess.Popen([AGENT, "--config", cfg], env=ENV, stderr=subprocess.PIPE, text=True)
    lines = []
    reader = threading.Thread(target=lambda: lines.extend(iter(p.stderr.readline, "")))
    reader.start()
    wait_for(lines, "mirrored")
    p.send_signal(signal.SIGHUP)
    wait_for(lines, "SIGHUP: model")
    p.send_signal(signal.SIGTERM)
    p.wait(timeout=20)
    reader.join(timeout=20)
    err = "".join(lines)
    check(p.returncode == 0 and "SIGHUP: model" in err and "stopping (signal)" in err,
          f"SIGHUP reloads, SIGTERM stops: exit {p.returncode}")
    agent("--config", cfg, "--restore")

    r = agent("--config", cfg, "--ticks", "3", env=dict(ENV, FAKETC_FAIL_BATCH="1"))
    check(r.returncode == 3 and "fatal" in r.stderr and table() == original,
          f"failing tc batch: exit {r.returncode}, original order kept")

    bad = config("bad.yaml", hot, "budget: {tick_s: 1}\n")
    r = agent("--config", bad)
    check(r.returncode == 2 and "bad.yaml:9:1: budget" in r.stderr,
          f"unknown key: exit {r.returncode}: {r.stderr.strip()}")
    model(os.path.join(TMP, "other.model"), 0.05, firmware="9.9.9")
    r = agent("--config", config("fw.yaml", os.path.join(TMP, "other.model")), "--once")
    check(r.returncode == 2 and "fitted on firmware 9.9.9, this host runs 0.0.0" in r.stderr,
          f"firmware mismatch: exit {r.returncode}")
    r = agent("--config", config("fw.yaml", os.path.join(TMP, "other.model")), "--once",
              "--dry-run", "--allow-firmware-mismatch")
    check(r.returncode == 0, f"--allow-firmware-mismatch: exit {r.returncode}")


if __name__ == "__main__":
    main()
    subprocess.run(["rm", "-rf", TMP], check=False)
    sys.exit(1 if failures else 0)
