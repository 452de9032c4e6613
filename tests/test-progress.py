#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# tests/test-progress.py SCALACN: the progress line on a real terminal (tmux). Runs
# `scalacn run examples/plans/qualify-full.yaml` on a paced simulated testbed (the CX-6
# profile, sleeping PACE real seconds per testbed-second, so the campaign takes ~30-60 s
# however fast the CPU is), reads the pane twice a second and checks that
#  - the line shows the phase, trials of the phase's (estimated) total, testbed-hours of the
#    budget and an ETA;
#  - the ETA is not 00:00 before the end (between 10% and 90% of the run);
#  - at the half-way point the ETA is within a factor 2 of the time actually left.
# Also: without a terminal, a line per phase and none in between for a short run.
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

SRC = os.environ.get("SCALACN_SOURCE_ROOT", os.path.dirname(os.path.dirname(__file__)))
BIN = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(SRC, "build", "scalacn"))
PACE = 0.0012  # qualify-full is ~28,000 testbed-seconds: ~34 s of sleeping
ETA = re.compile(r"ETA (\d\d):(\d\d)|ETA (\d+)h(\d\d)m")
failures = []


def check(ok, what):
    print(("ok    " if ok else "FAIL  ") + what)
    if not ok:
        failures.append(what)


def eta_seconds(line):
    m = ETA.search(line)
    if not m:
        return None
    if m.group(1):
        return int(m.group(1)) * 60 + int(m.group(2))
    return int(m.group(3)) * 3600 + int(m.group(4)) * 60


def paced_testbed(d):
    path = os.path.join(d, "paced-cx6.yaml")
    with open(path, "w") as f:
        f.write("kind: sim\nprofile: %s\nname: paced-cx6\npace: %g\n" %
                (os.path.join(SRC, "testbeds", "sim", "profiles", "cx6.yaml"), PACE))
    return path


def run_in_tmux(d, argv):
    """(samples [(t, line)], start, end, exit code) of ARGV run in a private tmux server."""
    sock, done = "scalacn-test-%d" % os.getpid(), os.path.join(d, "done")
    cmd = " ".join("'%s'" % a for a in argv) + "; echo $? > '%s'; sleep 30" % done
    tmux = ["tmux", "-L", sock]
    subprocess.run(tmux + ["new-session", "-d", "-x", "220", "-y", "12", "-s", "t",
                           "env", "NO_COLOR=1", "sh", "-c", cmd], check=True)
    start, samples = time.monotonic(), []
    try:
        while not os.path.exists(done) and time.monotonic() - start < 600:
            pane = subprocess.run(tmux + ["capture-pane", "-p", "-t", "t"],
                                  capture_output=True, text=True).stdout
            lines = [l for l in pane.splitlines() if "ETA" in l]
            if lines:
                samples.append((time.monotonic(), lines[-1]))
            time.sleep(0.5)
        end = time.monotonic()
        code = int(open(done).read().strip() or -1) if os.path.exists(done) else -1
    finally:
        subprocess.run(tmux + ["kill-server"], capture_output=True)
    return samples, start, end, code


def test_tty(d):
    plan = os.path.join(SRC, "examples", "plans", "qualify-full.yaml")
    samples, start, end, code = run_in_tmux(d, [BIN, "run", plan, "--testbed", paced_testbed(d),
                                                "--db", os.path.join(d, "p.db")])
    total = end - start
    check(code in (0, 1), f"qualify-full on the paced testbed ends (exit {code}, {total:.0f} s)")
    check(len(samples) > 10, f"the progress line was seen ({len(samples)} samples)")
    if not samples:
        return
    line = samples[len(samples) // 2][1]
    check(re.search(r"\d+/~?\d+ trials", line) and "testbed-h" in line and "/12.00" in line,
          "the line shows trials of the phase's total and testbed-hours of the budget: " + line.strip())
    middle = [(t, s) for t, s in samples if 0.1 * total < t - start < 0.9 * total]
    zero = [s for t, s in middle if eta_seconds(s) == 0]
    check(middle and not zero, "no ETA 00:00 between 10% and 90% of the run" +
          (": " + zero[0].strip() if zero else ""))
    half = start + total / 2
    t, s = min(samples, key=lambda x: abs(x[0] - half))
    eta, left = eta_seconds(s), end - t
    check(eta is not None and left / 2 <= eta <= 2 * left,
          f"half-way ETA {eta} s within a factor 2 of the {left:.0f} s actually left: {s.strip()}")


def test_no_tty(d):
    plan = os.path.join(SRC, "examples", "plans", "quickstart.yaml")
    r = subprocess.run([BIN, "run", plan, "--db", os.path.join(d, "q.db")], capture_output=True,
                       text=True, timeout=300)
    lines = [l for l in r.stderr.splitlines() if l.startswith("scalacn: phase ")]
    check(len(lines) >= 5 and "\r" not in r.stderr and "\033" not in r.stderr,
          f"without a terminal: plain lines, one per phase ({len(lines)})")
    check(not [l for l in r.stderr.splitlines() if l.startswith("scalacn: progress ")],
          "without a terminal: no line between phases in a run shorter than a minute")
    q = subprocess.run([BIN, "run", plan, "--db", os.path.join(d, "q2.db"), "--quiet"],
                       capture_output=True, text=True, timeout=300)
    check(q.stderr == "", "--quiet: nothing on stderr")


def main():
    if not shutil.which("tmux"):
        print("tmux missing (scripts/setup installs it)")
        return 1
    d = tempfile.mkdtemp(prefix="scalacn-progress-")
    try:
        test_no_tty(d)
        test_tty(d)
    finally:
        shutil.rmtree(d, ignore_errors=True)
    print(f"{len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
