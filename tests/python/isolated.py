# Copyright 2026 gr-beamform authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""Run a snippet of Python in a process of its own, so that a crash (SIGSEGV,
abort) or a hang of the code under test fails one test instead of killing
pytest. Used by the bad-input regression tests and the fuzz suite."""
import collections
import json
import os
import struct
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


# The snippet server: one interpreter imports PRELUDE once, then forks a fresh
# process per snippet. A new interpreter per snippet spent about a second
# importing numpy and GNU Radio before each case (most of the fuzz suite's
# time in CI). A forked process still ends alone when it crashes or hangs, and
# starts from the imports only (the server never runs a snippet itself).
# Protocol on the server's stdin / stdout: a 4-byte length, then JSON.
SERVER = """\
import gc, json, os, select, signal, struct, sys, tempfile, traceback
def _read(n):
    data = b""
    while len(data) < n:
        part = os.read(0, n - len(data))
        if not part:
            os._exit(0)  # the test process has gone
        data += part
    return data
def _send(obj):
    data = json.dumps(obj).encode()
    data = struct.pack("<I", len(data)) + data
    while data:
        data = data[os.write(1, data):]
exec(compile(sys.argv[1], "<prelude>", "exec"), {})
while True:
    request = json.loads(_read(struct.unpack("<I", _read(4))[0]))
    out, err = tempfile.TemporaryFile(), tempfile.TemporaryFile()
    pid = os.fork()
    if pid == 0:  # the snippet, as `python -c` would run it
        os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
        os.dup2(out.fileno(), 1)
        os.dup2(err.fileno(), 2)
        scope, status = {"__name__": "__main__"}, 0
        try:
            exec(compile(request["code"], "<string>", "exec"), scope)
        except BaseException:
            traceback.print_exc()
            status = 1
        # The snippet's objects go, so their destructors run as at the end of
        # `python -c`; the interpreter's own exit is skipped: GNU Radio's exit
        # handlers wait for threads of the server that a fork does not have.
        scope.clear()
        gc.collect()
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status)
    pidfd = os.pidfd_open(pid)
    timed_out = not select.select([pidfd], [], [], request["timeout"])[0]
    if timed_out:
        os.kill(pid, signal.SIGKILL)
    status = os.waitpid(pid, 0)[1]
    os.close(pidfd)
    logs = []
    for f in (out, err):
        f.seek(0)
        logs.append(f.read().decode(errors="replace"))
        f.close()
    _send({"returncode": os.waitstatus_to_exitcode(status), "timed_out": timed_out,
           "stdout": logs[0], "stderr": logs[1]})
"""

_server = None


def _run_in_server(code, timeout):
    """(returncode, stdout, stderr, timed_out) of `code` run by the server;
    starts it (again) where needed."""
    global _server
    if _server is None or _server.poll() is not None:
        env = dict(os.environ)
        env.setdefault("QT_QPA_PLATFORM", "offscreen")
        env["PYTHONPATH"] = os.pathsep.join(p for p in (HERE, env.get("PYTHONPATH")) if p)
        _server = subprocess.Popen([sys.executable, "-c", SERVER, PRELUDE],
                                   stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
    data = json.dumps({"code": code, "timeout": timeout}).encode()
    _server.stdin.write(struct.pack("<I", len(data)) + data)
    _server.stdin.flush()
    header = _server.stdout.read(4)
    if len(header) < 4:
        _server.wait()
        raise RuntimeError(f"isolated.py: the snippet server ended (exit status "
                           f"{_server.returncode}); its error is above")
    reply = json.loads(_server.stdout.read(struct.unpack("<I", header)[0]))
    return reply["returncode"], reply["stdout"], reply["stderr"], reply["timed_out"]


def run_isolated(body, timeout=60):
    """Run `body` (the statements of a function _case(); it may return a
    value) in a process of its own; returns an Outcome."""
    code = PRELUDE + "def _case():\n" + textwrap.indent(textwrap.dedent(body), "    ") + \
        "\n" + OUTCOME
    returncode, stdout, stderr, timed_out = _run_in_server(code, timeout)
    log = stdout + stderr
    if timed_out:
        return Outcome("timeout", f"no result within {timeout} s", None, log)
    for line in reversed(stdout.splitlines()):
        if line.startswith("@@outcome "):
            report = json.loads(line[len("@@outcome "):])
            if returncode != 0:  # reported, then crashed (at exit, in a destructor)
                return Outcome("crash", f"after {report['kind']}: exit status "
                               f"{returncode}", returncode, log)
            return Outcome(report["kind"], report["message"], returncode, log)
    return Outcome("crash", f"exit status {returncode}", returncode, log)
