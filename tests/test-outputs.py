#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# tests/test-outputs.py SCALACN: the outputs people and CI rely on (issue 15).
#  - every command `scalacn --help` lists takes --help and -h (exit 0, usage on stdout) and
#    accepts every option its help lists (the option table drives both);
#  - every command's --json validates against tests/schemas/CMD.schema.json (JSON Schema,
#    python3-jsonschema), or is refused with the common error (exit 2);
#  - the JUnit of the quickstart, of a plan without criteria, of a testbed error and of a
#    configuration error validates with xmllint against tests/junit.xsd (what Jenkins and
#    GitLab read).
# A command added to the table must be added to JSON_ARGS or REFUSES below.
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile

import warnings

with warnings.catch_warnings():  # RefResolver: Debian 12's python3-jsonschema (4.10) has it
    warnings.simplefilter("ignore", DeprecationWarning)
    from jsonschema import Draft202012Validator, RefResolver

SRC = os.environ.get("SCALACN_SOURCE_ROOT", os.path.dirname(os.path.dirname(__file__)))
BIN = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(SRC, "build", "scalacn"))
SCHEMAS = os.path.join(SRC, "tests", "schemas")
PLANS = os.path.join(SRC, "examples", "plans")
TBS = os.path.join(SRC, "examples", "testbeds")
failures = []
WORK = None  # the temporary directory every command runs in (options write files there)


def check(ok, what):
    print(("ok    " if ok else "FAIL  ") + what)
    if not ok:
        failures.append(what)


def scalacn(*args):
    return subprocess.run([BIN, *args], capture_output=True, text=True, cwd=WORK, timeout=600)


def commands():
    out = scalacn("--help").stdout
    block = out.split("Commands:\n", 1)[1].split("\n\n", 1)[0]
    return [line.split()[0] for line in block.splitlines() if line.strip()]


def help_options(text):
    """(name, takes an argument) of each option the Options section lists."""
    opts = []
    section = text.split("\nOptions:\n", 1)[1] if "\nOptions:\n" in text else ""
    for line in section.splitlines():
        m = re.match(r"^  (?:-\w, )?--([\w-]+)( [A-Z])?", line)
        if m and m.group(1) != "help":
            opts.append((m.group(1), bool(m.group(2))))
    return opts


def subcommand(usage, c):
    """A command whose synopsis starts with subcommands ("perftest parse|import ..."):
    the first one, which options follow."""
    m = re.match(r"usage: scalacn " + re.escape(c) + r" (\w+)\|", usage)
    return [m.group(1)] if m else []


def test_help(cmds):
    for c in cmds:
        for flag in ("--help", "-h"):
            r = scalacn(c, flag)
            check(r.returncode == 0 and r.stdout.startswith("usage: scalacn " + c) and
                  not r.stderr, f"{c} {flag}: exit 0, usage on stdout")
        r = scalacn(c, "--help")
        sub = subcommand(r.stdout, c)
        for name, arg in help_options(r.stdout):
            args = [c, *sub, "--" + name] + (["x"] if arg else [])
            e = scalacn(*args)
            check("unknown or incomplete option" not in e.stderr and e.returncode != 139,
                  f"{c} accepts --{name} (listed in its help)")
        e = scalacn(c, *sub, "--no-such-option")
        check(e.returncode == 2 and "unknown or incomplete option '--no-such-option'" in
              e.stderr, f"{c}: an unknown option is the common usage error, exit 2")


def prepare(d):
    """The stores and files the commands read."""
    q, m = os.path.join(d, "q.db"), os.path.join(d, "m.db")
    scalacn("run", os.path.join(PLANS, "quickstart.yaml"), "--db", q, "--quiet")
    scalacn("run", os.path.join(PLANS, "quickstart-model.yaml"), "--db", m, "--quiet")
    scalacn("fit", "--db", m, "--inputs", "causes")
    scalacn("gen-trace", "--flows", "200", "--popularity", "zipf:1.0", "--duration", "3",
            "--churn", "5", "--seed", "1", "-o", os.path.join(d, "t.csv"))
    small = os.path.join(d, "small.yaml")  # compare: a plan brute force finishes quickly
    with open(os.path.join(PLANS, "quickstart.yaml")) as f:
        text = f.read().replace("../testbeds/sim-cx6.yaml", os.path.join(TBS, "sim-cx6.yaml"))
    text = text.replace("sweep: {from: 1K, to: 16K, ratio: 2}", "levels: [4K, 16K]")
    text = text.replace("levels: [2, 4, 8, 16, 32, 64]", "levels: [8, 64]")
    with open(small, "w") as f:
        f.write(text)
    return q, m, small


def json_args(d, q, m, small):
    pt = os.path.join(SRC, "tests", "fixtures", "perftest", "scalacn-artifact",
                      "cen_0_cde_0_sen_0_sde_20_write_bw_pod.log")
    return {
        "run": ["run", os.path.join(PLANS, "quickstart.yaml"), "--db",
                os.path.join(d, "r.db"), "--quiet"],
        "enumerate": ["enumerate", os.path.join(PLANS, "quickstart.yaml"), "--limit", "3"],
        "measure": ["measure", "--testbed", os.path.join(TBS, "sim-cx7.yaml"), "--metric",
                    "lat"],
        "dimensions": ["dimensions", "--testbed", os.path.join(TBS, "sim-cx6.yaml")],
        "status": ["status", "--db", q],
        "trials": ["trials", "--db", q, "--limit", "5"],
        "analyze": ["analyze", "--db", q],
        "causes": ["causes", "--db", q],
        "explain": ["explain", "--db", q, "1"],
        "compare": ["compare", small, "--db", os.path.join(d, "c.db"), "--quiet"],
        "fit": ["fit", "--db", m, "--inputs", "causes"],
        "models": ["models", "--db", m],
        "predict": ["predict", "--db", m, "--model", "1", "--masks-local", "1",
                    "--masks-remote", "1"],
        "perftest": ["perftest", "parse", pt],
        "diff": ["diff", q, m],
    }


# Commands with no JSON form: --json is the common refusal.
REFUSES = {
    "export-csv": ["export-csv"],
    "export": ["export", "--rnic", "x", "-o", "x"],
    "keygen": ["keygen", "-o", "x"],
    "gen-trace": ["gen-trace"],
    "replay": ["replay"],
    "report": ["report", "-o", "x"],  # its JSON is a file: --format json (test_report_json)
}


def validator(cmd):
    with open(os.path.join(SCHEMAS, cmd + ".schema.json")) as f:
        schema = json.load(f)
    resolver = RefResolver(base_uri="file://" + SCHEMAS + "/", referrer=schema)
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema, resolver=resolver)


def test_json(cmds, d):
    args = json_args(d, *prepare(d))
    for c in cmds:
        if c in REFUSES:
            r = scalacn(*REFUSES[c], "--json")
            check(r.returncode == 2 and f"--json: '{c}' has no JSON output" in r.stderr and
                  not r.stdout, f"{c} --json: the common refusal, exit 2")
            continue
        if c not in args:
            check(False, f"{c}: no --json case in tests/test-outputs.py (JSON_ARGS or REFUSES)")
            continue
        r = scalacn(*args[c], "--json")
        try:
            doc = json.loads(r.stdout)
        except ValueError as e:
            check(False, f"{c} --json: parses ({e}; exit {r.returncode}, {r.stderr[:200]})")
            continue
        errors = list(validator(c).iter_errors(doc))
        check(not errors, f"{c} --json: valid against tests/schemas/{c}.schema.json" +
              (f" ({errors[0].json_path}: {errors[0].message})" if errors else ""))
        check(doc.get("scalacn_version") == scalacn("--version").stdout.split()[1],
              f"{c} --json: scalacn_version is the program's")
    # a document's numbers keep full precision (the store's double, not 6 digits)
    t = json.loads(scalacn("trials", "--db", args["status"][2], "--json", "--limit",
                           "1").stdout)["trials"][0]
    check(len(repr(t["bw_gbps"]).replace(".", "")) > 7, "trials --json: full precision")
    check(t["evidence"] is None, "trials --json: a simulated trial has no evidence (null)")
    # a trial with the evidence the perftest backend stores (docs/json.md): passed through
    ev_db = os.path.join(d, "evidence.db")
    shutil.copy(args["status"][2], ev_db)
    ev = {"attempts": 2, "lines": ["client: line 6: 65536 1000 inf inf inf inf"],
          "completion": {"message": "client: Failed status 12: wr_id 0", "wc_status": 12},
          "devices": [{"host": "server", "device": "rxe1", "port": 1,
                       "counters": {"rcvd_pkts": 6400}},
                      {"host": "client", "device": "rxe0", "port": 1,
                       "counters": {"sent_pkts": 6500, "completer_retry_err": 3}}],
          "tc": [{"host": "server", "dev": "veth1", "filters": 2, "packets": 6400,
                  "hits": [[0, 1, 1, 0], [0, 65535, 1, 6400]]}]}
    with sqlite3.connect(ev_db) as c:
        c.execute("UPDATE trials SET evidence_json = ? WHERE id = 1", (json.dumps(ev),))
    doc = json.loads(scalacn("trials", "--db", ev_db, "--json", "--limit", "1").stdout)
    errors = list(validator("trials").iter_errors(doc))
    check(not errors and doc["trials"][0]["evidence"] == ev,
          "trials --json: a trial's evidence as stored, valid against the schema" +
          (f" ({errors[0].json_path}: {errors[0].message})" if errors else ""))


def test_report_json(d, q):
    """report --format json writes report.json: a document of the same contract."""
    out = os.path.join(d, "report-json")
    r = scalacn("report", "--db", q, "-o", out, "--format", "json")
    path = os.path.join(out, "report.json")
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        check(False, f"report --format json: report.json parses ({e}; exit {r.returncode}, "
              f"{r.stderr[:200]})")
        return
    check(r.returncode == 0 and doc.get("command") == "report" and
          doc.get("scalacn_version") == scalacn("--version").stdout.split()[1],
          "report --format json: report.json carries scalacn_version and command")


def xmllint_ok(path):
    r = subprocess.run(["xmllint", "--noout", "--schema",
                        os.path.join(SRC, "tests", "junit.xsd"), path],
                       capture_output=True, text=True)
    return r.returncode == 0, r.stderr.strip()


def test_junit(d):
    qs = os.path.join(PLANS, "quickstart.yaml")
    cases = []
    x = os.path.join(d, "quickstart.xml")
    cases.append(("quickstart", scalacn("run", qs, "--db", os.path.join(d, "j1.db"), "--quiet",
                                        "--junit", x), x, 1))
    nocrit = os.path.join(d, "nocrit.yaml")
    with open(qs) as f:
        text = f.read().split("\ncriteria:")[0]
    with open(nocrit, "w") as f:
        f.write(text.replace("../testbeds/sim-cx6.yaml", os.path.join(TBS, "sim-cx6.yaml")))
    x = os.path.join(d, "nocrit.xml")
    cases.append(("a plan without criteria", scalacn("run", nocrit, "--db",
                  os.path.join(d, "j2.db"), "--quiet", "--junit", x), x, 0))
    dead = os.path.join(d, "dead-testbed.yaml")
    with open(os.path.join(TBS, "local-loopback.yaml")) as f:
        text = f.read().replace("device: mlx5_0", "device: scalacn_no_such_rnic0")
    with open(dead, "w") as f:
        f.write(text)
    x = os.path.join(d, "error.xml")
    cases.append(("a testbed error", scalacn("run", qs, "--testbed", dead, "--db",
                  os.path.join(d, "j3.db"), "--quiet", "--junit", x), x, 3))
    bad = os.path.join(d, "bad-plan.yaml")
    with open(bad, "w") as f:
        f.write("name: bad\nrepeats: 0\n")
    x = os.path.join(d, "config.xml")
    cases.append(("a configuration error", scalacn("run", bad, "--db", os.path.join(d, "j4.db"),
                                                   "--quiet", "--junit", x), x, 2))
    for what, r, path, code in cases:
        check(r.returncode == code, f"JUnit of {what}: run exits {code} (got {r.returncode})")
        ok, why = xmllint_ok(path) if os.path.exists(path) else (False, "no file")
        check(ok, f"JUnit of {what}: xmllint validates it against tests/junit.xsd {why}")
        xml = open(path).read() if os.path.exists(path) else ""
        check('name="rnic_model"' in xml or code >= 2, f"JUnit of {what}: RNIC property")
        check('timestamp="' in xml and "<system-out>" in xml,
              f"JUnit of {what}: timestamp and system-out")
    xml = open(cases[0][2]).read()
    check("no cause in range: flows" in xml and 'failures="3"' in xml,
          "JUnit of the quickstart: the cause inside the qualified range fails, beside the "
          "criterion and the wall")
    xml = open(cases[1][2]).read()
    check(xml.count("<testcase") >= 4 and "cause: flows" in xml and "wall: flows" in xml,
          "JUnit without criteria: a testcase per wall and per cause")
    xml = open(cases[2][2]).read()
    check('errors="1"' in xml and "<error " in xml and "scalacn_no_such_rnic0" in xml,
          "JUnit of a testbed error: an <error> testcase naming the cause")
    xml = open(cases[3][2]).read()
    check('errors="1"' in xml and "exit 2: " in xml and "repeats: 0 is out of range" in xml,
          "JUnit of a configuration error: an <error> testcase with the file, line and key")


def main():
    global WORK
    d = WORK = tempfile.mkdtemp(prefix="scalacn-outputs-")
    try:
        cmds = commands()
        check(len(cmds) >= 21, f"scalacn --help lists the commands ({len(cmds)})")
        test_help(cmds)
        test_json(cmds, d)
        test_report_json(d, os.path.join(d, "q.db"))
        test_junit(d)
    finally:
        shutil.rmtree(d, ignore_errors=True)
    print(f"{len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
