# Copyright 2026 gr-beamform authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""Run a snippet of Python in its own interpreter, so that a crash (SIGSEGV,
abort) or a hang of the code under test fails one test instead of killing
pytest. Used by the bad-input regression tests and the fuzz suite."""
import collections
import json
import os
import subprocess
import sys
import textwrap

HERE = os.path.dirname(os.path.abspath(__file__))

# Fuzz cases run so far, per test (test_fuzz.py counts; conftest.py reports).
FUZZ_CASES = collections.Counter()

# Every snippet starts with the reproducers' common prefix (and the helpers of
# snippet_helpers.py).
PRELUDE = """\
import json, sys
import numpy as np, pmt
from gnuradio import gr, blocks
from gnuradio import beamform as bf
from snippet_helpers import arguments, stream_random, to_pmt
"""

# The snippet's last act: print one JSON line saying how it ended.
OUTCOME = """
def _report(kind, message=""):
    sys.stdout.write("\\n@@outcome " + json.dumps({"kind": kind, "message": message}) + "\\n")
    sys.stdout.flush()
try:
    _result = _case()
except Exception as _e:
    _report(type(_e).__name__, str(_e))
else:
    _report("ok", "" if _result is None else str(_result))
"""


class Outcome:
    """How a snippet ended: kind is "ok", an exception's class name, "crash"
    (killed by a signal or exited without reporting) or "timeout"; log is
    what it printed (GNU Radio's logger writes to stdout, Python to stderr)."""

    def __init__(self, kind, message, returncode, log):
        self.kind, self.message = kind, message
        self.returncode, self.log = returncode, log

    def __repr__(self):
        return (f"Outcome({self.kind!r}, {self.message!r}, rc={self.returncode}, "
                f"log tail={self.log[-2000:]!r})")


def run_isolated(body, timeout=60, env=None, preexec_fn=None):
    """Run `body` (the statements of a function _case(); it may return a
    value) in a fresh interpreter; returns an Outcome."""
    code = PRELUDE + "def _case():\n" + textwrap.indent(textwrap.dedent(body), "    ") + \
        "\n" + OUTCOME
    full_env = dict(os.environ)
    full_env.setdefault("QT_QPA_PLATFORM", "offscreen")
    full_env.update(env or {})
    full_env["PYTHONPATH"] = os.pathsep.join(
        p for p in (HERE, full_env.get("PYTHONPATH")) if p)
    try:
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True,
                              text=True, timeout=timeout, env=full_env,
                              preexec_fn=preexec_fn)
    except subprocess.TimeoutExpired as e:
        log = "".join(x.decode(errors="replace") if isinstance(x, bytes) else (x or "")
                      for x in (e.stdout, e.stderr))
        return Outcome("timeout", f"no result within {timeout} s", None, log)
    log = proc.stdout + proc.stderr
    for line in reversed(proc.stdout.splitlines()):
        if line.startswith("@@outcome "):
            report = json.loads(line[len("@@outcome "):])
            if proc.returncode != 0:  # reported, then crashed (at exit, in a destructor)
                return Outcome("crash", f"after {report['kind']}: exit status "
                               f"{proc.returncode}", proc.returncode, log)
            return Outcome(report["kind"], report["message"], proc.returncode, log)
    return Outcome("crash", f"exit status {proc.returncode}", proc.returncode, log)
