# Copyright 2026 gr-beamform authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""The harness of the bad-input tests and the fuzz suite (isolated.py): every
way a snippet can end is told apart, and one snippet leaves nothing behind for
the next (each runs in a process forked from a server that only imported)."""
from isolated import run_isolated


def test_result_and_exception_are_reported():
    ok = run_isolated("return 6 * 7")
    assert (ok.kind, ok.message, ok.returncode) == ("ok", "42", 0), ok
    error = run_isolated("raise ValueError('receivers must be at least 1, got 0')")
    assert (error.kind, error.message) == ("ValueError", "receivers must be at least 1, got 0")


def test_a_crash_by_a_signal_is_a_crash():
    crash = run_isolated("import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)")
    assert (crash.kind, crash.returncode) == ("crash", -11), crash


def test_a_crash_in_a_destructor_after_the_report_is_a_crash():
    # The snippet's objects are destroyed after it reported, as at the end of
    # `python -c`: a block whose destructor crashes must not pass as "ok".
    body = """
    import os, signal
    class Dies:
        def __del__(self):
            os.kill(os.getpid(), signal.SIGABRT)
    global keep
    keep = Dies()
    """
    outcome = run_isolated(body)
    assert outcome.kind == "crash" and outcome.message == "after ok: exit status -6", outcome


def test_a_hang_is_a_timeout_and_the_next_snippet_runs():
    hang = run_isolated("import time\ntime.sleep(30)", timeout=1)
    assert hang.kind == "timeout", hang
    assert run_isolated("return 1").kind == "ok"


def test_output_is_captured_and_state_does_not_leak():
    first = run_isolated("""
    import os
    print("to stdout")
    sys.stderr.write("to stderr")
    os.environ["BEAMFORM_ISOLATED_PROBE"] = "set"
    bf.available_devices()
    """)
    assert first.kind == "ok" and "to stdout" in first.log and "to stderr" in first.log, first
    second = run_isolated("import os\nreturn str(os.environ.get('BEAMFORM_ISOLATED_PROBE'))")
    assert (second.kind, second.message) == ("ok", "None"), second
    assert "to stdout" not in second.log
