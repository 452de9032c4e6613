#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""agent-faketc: a stand-in for iproute2's tc in scalacn-agent's command-line test
(tests/test-agent-cli.py), for hosts without cls_flower. It keeps one device's chain-0
flower filters in the JSON file $FAKETC_STATE and understands exactly what the agent runs:
  tc -s -j filter show dev DEV ingress      (prints the filters as tc 6.1 does, counters in)
  tc -batch FILE                            (filter add ... / filter del ... prio N [handle H])
An add binds its actions by index: an existing action keeps its counter (as the kernel
does). $FAKETC_FAIL_BATCH=1 makes every batch fail (exit 2) before changing anything.
"""
import json
import os
import sys

STATE = os.environ["FAKETC_STATE"]


def load():
    with open(STATE, encoding="utf-8") as f:
        return json.load(f)


def save(st):
    with open(STATE + ".tmp", "w", encoding="utf-8") as f:
        json.dump(st, f)
    os.replace(STATE + ".tmp", STATE)


def show(st):
    out = []
    for flt in sorted(st["filters"], key=lambda x: (x["pref"], x["handle"])):
        acts = []
        for order, ref in enumerate(flt["actions"], 1):
            a = dict(st["actions"][ref])
            a["order"] = order
            a["stats"] = {"bytes": 0, "packets": a.pop("packets", 0), "drops": 0}
            acts.append(a)
        out.append({"protocol": flt["proto"], "pref": flt["pref"], "kind": "flower", "chain": 0})
        out.append({"protocol": flt["proto"], "pref": flt["pref"], "kind": "flower", "chain": 0,
                    "options": {"handle": flt["handle"], "keys": flt["keys"],
                                "not_in_hw": True, "actions": acts}})
    print(json.dumps(out))


NUMERIC = {"src_port", "dst_port", "enc_key_id", "enc_dst_port"}


def parse_action(words):
    """'gact pass index 3' -> (ref, action object)."""
    kind, idx = words[0], int(words[words.index("index") + 1])
    a = {"kind": kind, "index": idx}
    if kind == "gact":
        a["control_action"] = {"type": words[1]}
    elif kind == "mirred":
        a.update(direction=words[1], mirred_action=words[2], to_dev=words[4],
                 control_action={"type": "stolen"})
    elif kind == "tunnel_key":
        a["mode"] = words[1]
        if words[1] == "set":
            a.update(src_ip=words[3], dst_ip=words[5])
    return f"{kind}/{idx}", a


def add(st, w):
    proto, pref, handle = w[w.index("protocol") + 1], int(w[w.index("prio") + 1]), \
        int(w[w.index("handle") + 1])
    rest = w[w.index("flower") + 1:]
    cut = rest.index("action")
    match, keys = rest[:cut], {}
    if proto == "ip":
        keys["eth_type"] = "ipv4"
    i = 0
    while i < len(match):
        k = match[i]
        if k in ("skip_hw", "skip_sw"):
            i += 1
            continue
        keys[k] = int(match[i + 1]) if k in NUMERIC else match[i + 1]
        i += 2
    refs, words = [], " ".join(rest[cut:]).split("action ")[1:]
    for aw in words:
        ref, a = parse_action(aw.split())
        st["actions"].setdefault(ref, a)
        refs.append(ref)
    if any(f["pref"] == pref and f["handle"] == handle for f in st["filters"]):
        raise ValueError("RTNETLINK answers: File exists")
    st["filters"].append({"pref": pref, "handle": handle, "proto": proto, "keys": keys,
                          "actions": refs})


def batch(st, path):
    if os.environ.get("FAKETC_FAIL_BATCH") == "1":
        raise ValueError("RTNETLINK answers: Operation not permitted")
    with open(path, encoding="utf-8") as f:
        for line in f:
            w = line.split()
            if w[:2] == ["filter", "add"]:
                add(st, w)
            elif w[:2] == ["filter", "del"]:
                pref = int(w[w.index("prio") + 1])
                handle = int(w[w.index("handle") + 1]) if "handle" in w else None
                before = len(st["filters"])
                st["filters"] = [x for x in st["filters"] if x["pref"] != pref or
                                 (handle is not None and x["handle"] != handle)]
                if len(st["filters"]) == before:
                    raise ValueError("Error: Filter with specified priority/protocol not found.")
            else:
                raise ValueError("unknown batch line: " + line.strip())


def main(argv):
    st = load()
    try:
        if argv[:2] == ["-batch", argv[1] if len(argv) > 1 else ""] and len(argv) == 2:
            batch(st, argv[1])
            save(st)
        elif argv[:5] == ["-s", "-j", "filter", "show", "dev"]:
            show(st)
        else:
            raise ValueError("faketc: unsupported: " + " ".join(argv))
    except ValueError as e:
        print(e, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
