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
    """Say how many fuzz cases ran (test_fuzz.py), each in its own interpreter."""
    import isolated

    total = sum(isolated.FUZZ_CASES.values())
    if total:
        terminalreporter.write_line(
            f"fuzz suite: {total} cases in {len(isolated.FUZZ_CASES)} tests, each in its "
            "own interpreter")
