# Copyright 2026 gr-beamform authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""The multi-host split (apps/station_split.py over gr-zeromq) under faults.

The front and beams roles run as separate processes in two network namespaces
joined by a veth pair that this test creates and removes (`ip netns`, `ip
link`); their only traffic is between the pair's two addresses. Scenarios:

  * the beams role is killed (SIGKILL) mid-run and restarted: the front waits
    (back-pressure at the zeromq high-water mark), its memory stays bounded, it
    logs the stall and ends once the restarted role has taken the rest; the
    restarted role starts at a whole integration, logs where it joined, and its
    files' tstart and data are those of the single flowgraph from that spectrum;
  * the beams role is paused (SIGSTOP) long enough to fill the high-water mark,
    then continued (SIGCONT): the front waits with bounded memory, nothing is
    lost, and the files equal the single flowgraph's;
  * the beams role is paused and its TCP connection destroyed (`ss -K`): the
    queued spectra are lost, ZeroMQ reconnects, and the beams role counts and
    logs them (number, index and rx_time range) and finishes the run.

Where namespaces cannot be made (not root, no iproute2, EPERM in a container)
the scenarios skip and say why. The beams role's gap counting itself (spectra
lost inside one run) is checked in-process without a network.
"""
import importlib.util
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import uuid

import numpy as np
import pmt
import pytest
from gnuradio import beamform, blocks, gr

APPS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "apps")
SPLIT = os.path.join(APPS, "station_split.py")
FRONT_IP, BEAMS_IP = "10.231.0.1", "10.231.0.2"
ADDRESS = f"tcp://{FRONT_IP}:5600"
PROCESS_TIMEOUT_S = 40
N_INT = 16
SPECTRA = 524288  # about 6 s of streaming here: a kill lands mid-run
STATION = ["--receivers", "4", "--channels", "8", "--beams-per-side", "2", "--spectra",
           str(SPECTRA), "--n-int", str(N_INT), "--field-half-width", "0.4",
           "--source=0.3,0.2,5,0.6", "--seed", "7", "--device", "cpu"]
LINK = ["--subbands", "1", "--hwm", "2", "--timeout-ms", "20"]
HEADER_LIMIT = 1024  # a beam file larger than this holds data (headers are ~300 B)


def load(name):
    spec = importlib.util.spec_from_file_location(name, os.path.join(APPS, name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


single_app = load("station_beamformer")
split_app = load("station_split")


def ip(*args):
    return subprocess.run(["ip", *args], capture_output=True, text=True, timeout=10)


@pytest.fixture
def namespaces():
    """(front namespace, beams namespace), joined by a veth pair: FRONT_IP and
    BEAMS_IP (/30). Removed afterwards, with any process still in them."""
    if shutil.which("ip") is None:
        pytest.skip("iproute2's `ip` command is not installed")
    if os.geteuid() != 0:
        pytest.skip(f"`ip netns add` needs root; running as uid {os.geteuid()}")
    tag = uuid.uuid4().hex[:8]
    front, beams = f"bf-front-{tag}", f"bf-beams-{tag}"
    veth_front, veth_beams = f"bff{tag}", f"bfb{tag}"  # at most 15 characters
    made = []
    try:
        for ns in (front, beams):
            r = ip("netns", "add", ns)
            if r.returncode:
                pytest.skip(f"cannot create a network namespace: ip netns add: "
                            f"{r.stderr.strip()}")
            made.append(ns)
        for r in (ip("link", "add", veth_front, "netns", front, "type", "veth", "peer", "name",
                     veth_beams, "netns", beams),
                  ip("-n", front, "addr", "add", FRONT_IP + "/30", "dev", veth_front),
                  ip("-n", beams, "addr", "add", BEAMS_IP + "/30", "dev", veth_beams),
                  ip("-n", front, "link", "set", veth_front, "up"),
                  ip("-n", beams, "link", "set", veth_beams, "up")):
            assert r.returncode == 0, f"ip: {r.args}: {r.stderr}"
        yield front, beams
    finally:
        for ns in made:
            pids = ip("netns", "pids", ns).stdout.split()
            for pid in pids:  # our own processes, started in this namespace
                try:
                    os.kill(int(pid), signal.SIGKILL)
                except ProcessLookupError:
                    pass
            ip("netns", "del", ns)  # also removes the veth pair


class Role:
    """One station_split.py process in a namespace, its output in a log file."""

    def __init__(self, ns, argv, log_path):
        self.log_path = log_path
        self.log = open(log_path, "w")
        self.process = subprocess.Popen(
            ["ip", "netns", "exec", ns, sys.executable, SPLIT, *argv, *LINK, *STATION],
            stdout=self.log, stderr=subprocess.STDOUT, text=True)  # ip execs python

    def text(self):
        with open(self.log_path) as f:
            return f.read()

    def rss_kib(self):
        with open(f"/proc/{self.process.pid}/status") as f:
            return int(re.search(r"VmRSS:\s+(\d+)", f.read()).group(1))

    def finish(self, timeout=PROCESS_TIMEOUT_S):
        try:
            self.process.wait(timeout=timeout)
        finally:
            self.kill()
        return self.process.returncode

    def kill(self):
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self.log.close()


def wait_for(condition, what, timeout=PROCESS_TIMEOUT_S):
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def beam_file(out_dir):
    return os.path.join(out_dir, "station_sb0_beam0000.fil")


def has_data(out_dir):
    path = beam_file(out_dir)
    return os.path.exists(path) and os.path.getsize(path) > HEADER_LIMIT


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The single flowgraph's beam 0 over all channels (header, data)."""
    out = tmp_path_factory.mktemp("single")
    single_app.Station(single_app.parse_args(STATION + ["--out", str(out)])).run(progress=False)
    return beamform.read_filterbank(os.path.join(out, "station_beam0000.fil"))


def start_front(ns, tmp_path):
    return Role(ns, ["--role", "front", "--bind", ADDRESS, "--stall-log", "1", "--linger", "1"],
                tmp_path / "front.log")


def start_beams(ns, tmp_path, name):
    out = tmp_path / name
    return Role(ns, ["--role", "beams", "--connect", ADDRESS, "--out", str(out)],
                tmp_path / f"{name}.log"), str(out)


RSS_INTERVAL_S = 0.25


def sample_rss(role, seconds):
    samples = []
    for _ in range(int(seconds / RSS_INTERVAL_S)):
        samples.append(role.rss_kib())
        time.sleep(RSS_INTERVAL_S)
    return samples


def test_beams_killed_and_restarted(namespaces, tmp_path, reference):
    front_ns, beams_ns = namespaces
    roles = []
    try:
        first, first_out = start_beams(beams_ns, tmp_path, "first")
        roles.append(first)
        front = start_front(front_ns, tmp_path)
        roles.append(front)
        wait_for(lambda: has_data(first_out), "the first beams role's data")
        first.process.kill()
        first.kill()
        # No peer: the front waits at the high-water mark, its memory flat.
        rss = sample_rss(front, 3)
        assert front.process.poll() is None, front.text()
        assert max(rss) - rss[0] < 16 * 1024, f"front RSS grew: {rss} KiB"
        assert "nothing sent for" in front.text()

        again, again_out = start_beams(beams_ns, tmp_path, "restarted")
        roles.append(again)
        assert again.finish() == 0, again.text()
        assert front.finish() == 0, front.text()
    finally:
        for role in roles:
            role.kill()
    assert "sending again after" in front.text()
    joined = re.search(r"joined the stream at spectrum (\d+) \(rx_time ([\d.]+) s\)",
                       again.text())
    assert joined, again.text()
    k = int(joined.group(1))
    assert 0 < k < SPECTRA and k % N_INT == 0
    # The killed connection's queue went with it: the restarted role gets the
    # spectra the front sent after the stall, from the first whole integration.
    stalled = int(re.search(r"nothing sent for \d+ s after spectrum (\d+)", front.text())[1])
    assert k == -(-stalled // N_INT) * N_INT
    assert "dropped" not in again.text()  # nothing lost within the restarted run

    # tstart and data are the single flowgraph's from spectrum k on.
    h_ref, d_ref = reference
    h, d = beamform.read_filterbank(beam_file(again_out))
    period = 8 / 10e6  # channels / sample rate
    assert h["tstart"] == pytest.approx(h_ref["tstart"] + k * period / 86400, abs=1e-6 / 86400)
    assert float(joined.group(2)) == pytest.approx(
        (h_ref["tstart"] - 40587) * 86400 + k * period, abs=1e-5)
    assert h["tsamp"] == h_ref["tsamp"]
    assert d.shape[0] == (SPECTRA - k) // N_INT
    np.testing.assert_array_equal(d, d_ref[k // N_INT:])


def test_beams_paused_then_continued(namespaces, tmp_path, reference):
    front_ns, beams_ns = namespaces
    roles = []
    try:
        beams, out = start_beams(beams_ns, tmp_path, "paused")
        roles.append(beams)
        front = start_front(front_ns, tmp_path)
        roles.append(front)
        wait_for(lambda: has_data(out), "the beams role's data")
        os.kill(beams.process.pid, signal.SIGSTOP)
        try:
            # The first second the send queue fills up to its high-water mark
            # (a bounded step, measured up to 25 MB); after it the front must
            # block, not grow: RSS over the next 3 s against the sample at 1 s.
            rss = sample_rss(front, 4)
            assert front.process.poll() is None, front.text()
        finally:
            os.kill(beams.process.pid, signal.SIGCONT)
        filled = rss[int(1.0 / RSS_INTERVAL_S):]
        assert max(filled) - filled[0] < 16 * 1024, f"front RSS grew: {rss} KiB"
        assert beams.finish() == 0, beams.text()
        assert front.finish() == 0, front.text()
    finally:
        for role in roles:
            role.kill()
    assert "nothing sent for" in front.text() and "sending again after" in front.text()
    assert "dropped" not in beams.text() and "joined" not in beams.text()
    h_ref, d_ref = reference
    h, d = beamform.read_filterbank(beam_file(out))
    assert h["tstart"] == h_ref["tstart"]
    np.testing.assert_array_equal(d, d_ref)  # back-pressure: nothing lost


def test_connection_cut_loses_counted_spectra(namespaces, tmp_path, reference):
    """The beams role is paused until every queue is full, then its TCP
    connection is destroyed (`ss -K`): what was queued is lost inside ZeroMQ and
    the kernel, ZeroMQ reconnects, and the beams role counts and logs the lost
    spectra with their range and carries on to the front's last spectrum."""
    if shutil.which("ss") is None:
        pytest.skip("iproute2's `ss` command is not installed")
    front_ns, beams_ns = namespaces
    roles = []
    try:
        beams, out = start_beams(beams_ns, tmp_path, "cut")
        roles.append(beams)
        front = start_front(front_ns, tmp_path)
        roles.append(front)
        wait_for(lambda: has_data(out), "the beams role's data")
        os.kill(beams.process.pid, signal.SIGSTOP)
        try:
            wait_for(lambda: "nothing sent for" in front.text(), "the front's stall")
            cut = subprocess.run(["ip", "netns", "exec", beams_ns, "ss", "-K", "dst", FRONT_IP],
                                 capture_output=True, text=True, timeout=10)
        finally:
            os.kill(beams.process.pid, signal.SIGCONT)
        if FRONT_IP not in cut.stdout:
            pytest.skip(f"`ss -K` cannot destroy sockets here (kernel without "
                        f"INET_DIAG_DESTROY?): {cut.stdout} {cut.stderr}")
        assert beams.finish() == 0, beams.text()
        assert front.finish() == 0, front.text()
    finally:
        for role in roles:
            role.kill()
    lost = re.search(r"dropped (\d+) spectra \((\d+)\.\.(\d+), rx_time ([\d.]+) to ([\d.]+) s\); "
                     r"\1 in all", beams.text())
    assert lost, beams.text()
    n, first, last = (int(lost[i]) for i in (1, 2, 3))
    assert n > 0 and last - first + 1 == n and 0 < first and last < SPECTRA - 1
    period = 8 / 10e6
    t0 = (reference[0]["tstart"] - 40587) * 86400
    assert float(lost[4]) == pytest.approx(t0 + first * period, abs=1e-5)
    assert float(lost[5]) == pytest.approx(t0 + last * period, abs=1e-5)
    assert f"{n} spectra dropped in all" in beams.text()
    # The gap ends where the front, stalled by the pause, sent again.
    resumed = int(re.search(r"sending again after [\d.]+ s, from spectrum (\d+)",
                            front.text())[1])
    assert last + 1 == resumed
    # Before the gap the files are the single flowgraph's; after it they are
    # shorter by the lost spectra.
    h, d = beamform.read_filterbank(beam_file(out))
    assert h["tstart"] == reference[0]["tstart"]
    assert d.shape[0] == (SPECTRA - n) // N_INT
    np.testing.assert_array_equal(d[:first // N_INT], reference[1][:first // N_INT])


def test_gap_check_counts_and_logs_lost_spectra(capsys):
    """Spectra lost inside one beams run (a connection that broke and came back)
    are counted and logged with their index and rx_time range."""
    vlen, n_int, period = 2, 4, 0.5
    indices = [4, 5, 6, 7, 8, 9, 12, 13, 14, 15, 16, 17, 18, 19]  # 0..3 before, 10, 11 lost
    data = np.arange(len(indices) * vlen, dtype=np.complex64)
    tags = [gr.tag_utils.python_to_tag((i, split_app.SPECTRUM_KEY, pmt.from_uint64(k)))
            for i, k in enumerate(indices)]
    tb = gr.top_block()
    src = blocks.vector_source_c(data, False, vlen, tags)
    check = split_app.SpectrumGapCheck(vlen, 20, n_int, 1000.25, period)
    sink = blocks.vector_sink_c(vlen)
    tb.connect(src, check, sink)
    tb.run()
    err = capsys.readouterr().err
    assert check.dropped == 2 and check.passed == len(indices) and check.done
    assert "joined the stream at spectrum 4 (rx_time 1002.250000 s)" in err
    assert "dropped 2 spectra (10..11, rx_time 1005.250000 to 1005.750000 s); 2 in all" in err
    np.testing.assert_array_equal(sink.data(), data)
    rx = [t for t in sink.tags() if pmt.symbol_to_string(t.key) == "rx_time"]
    assert len(rx) == 1 and rx[0].offset == 0
    assert pmt.to_uint64(pmt.tuple_ref(rx[0].value, 0)) == 1002
    assert pmt.to_double(pmt.tuple_ref(rx[0].value, 1)) == 0.25


def test_gap_check_waits_for_a_whole_integration(capsys):
    """A role joining mid-integration skips to the next multiple of n_int."""
    vlen = 1
    indices = list(range(5, 12))
    tags = [gr.tag_utils.python_to_tag((i, split_app.SPECTRUM_KEY, pmt.from_uint64(k)))
            for i, k in enumerate(indices)]
    tb = gr.top_block()
    src = blocks.vector_source_c(np.arange(len(indices), dtype=np.complex64), False, vlen, tags)
    check = split_app.SpectrumGapCheck(vlen, 100, 4, 0.0, 1.0)
    sink = blocks.vector_sink_c(vlen)
    tb.connect(src, check, sink)
    tb.run()
    assert "joined the stream at spectrum 8 " in capsys.readouterr().err
    np.testing.assert_array_equal(sink.data(), np.arange(3, 7, dtype=np.complex64))
    assert check.passed == 4 and check.dropped == 0 and not check.done


def test_gap_check_with_one_tag_per_message():
    """As the front sends: one index tag per block of 4 spectra; the block
    8..11 is lost, the spectra 22, 23 of an incomplete integration are not
    passed, and the untagged spectra follow their block's tag."""
    vlen, n_int = 3, 4
    indices = [0, 1, 2, 3, 4, 5, 6, 7, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21]
    data = np.repeat(np.array(indices, dtype=np.complex64), vlen)
    tags = [gr.tag_utils.python_to_tag((i, split_app.SPECTRUM_KEY, pmt.from_uint64(k)))
            for i, k in enumerate(indices) if k % n_int == 0]
    tb = gr.top_block()
    src = blocks.vector_source_c(data, False, vlen, tags)
    check = split_app.SpectrumGapCheck(vlen, 22, n_int, 0.0, 1.0)
    sink = blocks.vector_sink_c(vlen)
    tb.connect(src, check, sink)
    tb.run()
    assert check.dropped == 4 and check.done and check.passed == 16
    np.testing.assert_array_equal(np.real(sink.data())[::vlen], indices[:16])


def test_message_block_divides_n_int_within_the_limit():
    assert split_app.message_block(16, 256) == 16
    assert split_app.message_block(16, 3 << 20) == 4  # 4 x 3 MiB fit in 16 MiB
    assert split_app.message_block(12, 100 << 20) == 1


def test_hwm_option_is_range_checked(capsys):
    with pytest.raises(SystemExit):
        split_app.parse_args(["--role", "front", "--hwm", "-2", *STATION])
    assert "--hwm" in capsys.readouterr().err
