# Copyright 2026 gr-beamform authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""The station beamformer split by sub-bands (apps/station_split.py) gives the
same filterbank data as the single flowgraph (apps/station_beamformer.py) on
the same simulated sky:

  * over hosts: a front flowgraph and one beams flowgraph per sub-band, each a
    separate process, connected by gr-zeromq PUSH/PULL on 127.0.0.1;
  * over devices: one flowgraph, a tensor_beamformer per sub-band on its own
    device ("cpu" and "emu:0" here; cuda:0 and cuda:1 on a two-GPU machine),
    the beam powers recombined on the host into one set of files.

Every step before the cut is the same code on the same samples, the cut only
moves bytes (vector_to_streams, zeromq, interleave), and the beamformer's
arithmetic for one channel does not depend on which other channels share its
call (a channel's beams are one independent product; float16 rounding is per
element), so the files were bit-identical where these tests were written. They
are compared to 2e-6 of the largest power (conftest.assert_same_powers says why: on one
test machine two runs of the same CPU flowgraph were not bit-identical), which
any cut that moves or mixes data exceeds by far. Across different engines
compare to float tolerance instead.
"""
import importlib.util
import os
import socket
import subprocess
import sys

import numpy as np
import pytest
from gnuradio import beamform

from conftest import assert_same_powers, gpu_devices

APPS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "apps")
SPLIT = os.path.join(APPS, "station_split.py")
TIMEOUT_S = 90


def load(name):
    spec = importlib.util.spec_from_file_location(name, os.path.join(APPS, name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


single_app = load("station_beamformer")
split_app = load("station_split")

STATION = ["--receivers", "16", "--channels", "32", "--beams-per-side", "4", "--spectra",
           "2048", "--n-int", "16", "--field-half-width", "0.4", "--source=0.3,0.2,5,0.6",
           "--source=-0.1,0.4,20,0.6", "--seed", "7"]


def single_flowgraph(out_dir):
    station = single_app.Station(single_app.parse_args(STATION + ["--device", "cpu", "--out",
                                                                  str(out_dir)]))
    station.run(progress=False)
    return station


def beam_files(out_dir, prefix):
    return sorted(f for f in os.listdir(out_dir) if f.startswith(prefix + "_beam"))


def assert_same_files(single_dir, split_dir, prefix="station"):
    names = beam_files(single_dir, "station")
    assert names and beam_files(split_dir, prefix) == names
    for name in names:
        h1, d1 = beamform.read_filterbank(os.path.join(single_dir, name))
        h2, d2 = beamform.read_filterbank(os.path.join(split_dir, name))
        assert h1 == h2
        assert_same_powers(d1, d2)


def free_port_pair():
    """A base port with base and base + 1 free on 127.0.0.1."""
    for _ in range(50):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            base = s.getsockname()[1]
        try:
            with socket.socket() as s:
                s.bind(("127.0.0.1", base + 1))
            return base
        except OSError:
            continue
    pytest.skip("no two consecutive free ports on 127.0.0.1")


@pytest.mark.parametrize("front_first", [False, True], ids=["beams_first", "front_first"])
def test_zeromq_split_matches_single_flowgraph(tmp_path, front_first):
    single_dir, split_dir = tmp_path / "single", tmp_path / "split"
    single_dir.mkdir()
    split_dir.mkdir()
    station = single_flowgraph(single_dir)

    address = f"tcp://127.0.0.1:{free_port_pair()}"
    common = STATION + ["--device", "cpu", "--subbands", "2"]
    def start(argv):
        return subprocess.Popen([sys.executable, SPLIT, *argv, *common], stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True)

    front_argv = ["--role", "front", "--bind", address]
    processes = [start(front_argv)] if front_first else []
    processes += [start(["--role", "beams", "--connect", address, "--subband", str(g),
                         "--out", str(split_dir)]) for g in range(2)]
    if not front_first:
        processes.append(start(front_argv))
    outputs = []
    try:
        for p in processes:  # each flowgraph within the timeout
            outputs.append(p.communicate(timeout=TIMEOUT_S)[0])
    finally:
        for p in processes:
            if p.poll() is None:
                p.kill()
    for p, out in zip(processes, outputs):
        assert p.returncode == 0, out

    # Each beams flowgraph wrote its sub-band: reassemble the channels (files
    # hold descending frequency) and compare with the single flowgraph's files.
    freqs = station.frequencies
    for b in range(station.n_beams):
        h1, whole = beamform.read_filterbank(single_dir / f"station_beam{b:04d}.fil")
        parts, part_freqs = [], []
        for g in range(2):
            h2, part = beamform.read_filterbank(split_dir / f"station_sb{g}_beam{b:04d}.fil")
            assert h2["tstart"] == h1["tstart"] and h2["tsamp"] == h1["tsamp"]
            assert h2["nchans"] == 16 and part.shape[0] == whole.shape[0] == 2048 // 16
            channels = split_app.subband_channels(32, 2, g)
            parts.append(part)
            part_freqs.append(np.sort(freqs[list(channels)])[::-1])
        joined = np.concatenate(parts, axis=2)
        joined_freqs = np.concatenate(part_freqs)
        order = np.argsort(-joined_freqs, kind="stable")  # into descending frequency
        assert_same_powers(joined[:, :, order], whole)


@pytest.mark.parametrize("devices", ["cpu,emu:0", "emu:0,cpu"] + (
    [",".join(gpu_devices()[:2])] if len(gpu_devices()) >= 2 else []))
def test_channel_split_across_devices_matches_single_chain(tmp_path, devices):
    single_dir, split_dir = tmp_path / "single", tmp_path / "multi"
    single_dir.mkdir()
    split_dir.mkdir()
    single_flowgraph(single_dir)
    split_args, station_args = split_app.parse_args(
        ["--role", "multi", "--subbands", "2", "--devices", devices, "--device", "cpu",
         "--out", str(split_dir), *STATION])
    split = split_app.Split(split_args, station_args)
    assert [b.device() for b in split.beamformers] == devices.split(",")
    split.run()
    assert_same_files(single_dir, split_dir)


def test_four_subbands_across_devices(tmp_path):
    single_dir, split_dir = tmp_path / "single", tmp_path / "multi"
    single_dir.mkdir()
    split_dir.mkdir()
    single_flowgraph(single_dir)
    split = split_app.Split(*split_app.parse_args(
        ["--role", "multi", "--subbands", "4", "--devices", "cpu,emu:0,cpu,emu:0",
         "--device", "cpu", "--out", str(split_dir), *STATION]))
    split.run()
    assert_same_files(single_dir, split_dir)


def test_bad_split_parameters_raise(capsys):
    with pytest.raises(ValueError, match="subbands"):
        split_app.subband_channels(32, 3, 0)
    with pytest.raises(ValueError, match="subband"):
        split_app.subband_channels(32, 2, 2)
    for args, message in ((["--role", "multi", "--subbands", "2", "--devices", "cpu"],
                           "argument --devices: must name one device per sub-band"),
                          (["--role", "beams", "--subbands", "3"],
                           "argument --subbands: --subbands (3) must divide"),
                          (["--role", "beams", "--subband", "2"],
                           "argument --subband: --subband must be in [0, 1], got 2")):
        with pytest.raises(SystemExit) as usage_error:
            split_app.parse_args(args + STATION)
        assert usage_error.value.code == 2
        assert message in capsys.readouterr().err
    with pytest.raises(ValueError, match="address"):
        split_app.port_address("udp://1.2.3.4:5", 1)
