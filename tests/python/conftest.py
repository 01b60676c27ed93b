# Copyright 2026 gr-beamform authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""Shared pytest fixtures: seeded random data and the devices to test on."""
import zlib

import numpy as np
import pytest

from gnuradio import beamform


@pytest.fixture
def rng(request):
    # A fresh stream per test (never zeros), the same in every run: seeded by a
    # checksum of the test's id (Python's hash() of a string changes from one
    # interpreter to the next, which made a failure impossible to reproduce).
    seed = zlib.crc32(request.node.nodeid.encode())
    return np.random.default_rng(seed)


def gpu_devices():
    """The GPU devices present, for tests that compare GPU with CPU."""
    return [d for d in beamform.available_devices() if d.startswith(("cuda", "hip"))]


# Devices every CPU machine can run: the CPU reference, and the host-memory
# GPU stand-in that exercises device_buffer.
HOST_DEVICES = ["cpu", "emu:0"]


# Raw input formats: the beamform enum and the numpy type of one I or Q value.
FORMATS = {
    "sc8": (beamform.sc8, np.int8),
    "sc16": (beamform.sc16, np.int16),
    "fc32": (beamform.fc32, np.float32),
}


def assert_same_powers(got, want):
    """Beam powers of two flowgraphs that run the same CPU engines on the same
    samples (a split station against the whole one, a generated GRC script
    against the app): equal to 2e-6 of the largest power (Stokes Q, U and V
    cross zero, so no bound relative to each value). They were bit-identical on the
    machines where these tests were written. On an AMD EPYC test machine
    (2026-11-24) two runs of the very same CPU station flowgraph differed by
    up to 3e-7 in the integration windows that begin a beamformer work call,
    while the beamformer's input (the front end's output, tapped in the same
    runs) was bit-identical. Part of it is OpenBLAS: cblas_cgemm's result for
    one time step depends on how many rows the call has, so the CPU
    beamformer alone, fed the same samples in calls of other sizes, differs in
    the last bit (calls of a fixed row count made it reproducible alone, but
    not the whole flowgraph: the rest is not found). A cut that moves or mixes
    data gives errors of order 1, far beyond this bound."""
    np.testing.assert_allclose(got, want, rtol=0, atol=2e-6 * float(np.max(np.abs(want))))


def random_samples(rng, fmt, n_items, n_rx):
    """Interleaved I/Q of the given format, shape (n_items, n_rx, 2)."""
    dtype = FORMATS[fmt][1]
    if dtype == np.float32:
        return rng.standard_normal((n_items, n_rx, 2)).astype(np.float32)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max + 1, (n_items, n_rx, 2)).astype(dtype)


def byte_source(array, item_bytes, tags=(), repeat=False):
    """A vector_source_b streaming the raw bytes of `array` as items of item_bytes."""
    from gnuradio import blocks

    data = np.ascontiguousarray(array).view(np.uint8).ravel()
    return blocks.vector_source_b(data.tolist(), repeat, item_bytes, list(tags))


def pytest_terminal_summary(terminalreporter):
    """Say how many fuzz cases ran (test_fuzz.py), each in a process of its own."""
    import isolated

    total = sum(isolated.FUZZ_CASES.values())
    if total:
        terminalreporter.write_line(
            f"fuzz suite: {total} cases in {len(isolated.FUZZ_CASES)} tests, each in a "
            "process of its own")
