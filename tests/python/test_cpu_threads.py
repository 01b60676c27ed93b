# Copyright 2026 gr-beamform authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""The `threads` argument of the blocks with a threaded CPU engine: one thread
and several give the same output on random input, through a flowgraph (equal
for the beamformer, whose work items do not depend on the thread count; to
float rounding for the channelizer, whose FFTW plans are measured per block,
and the phase shift, whose phasor blocks start where work calls start); a
negative count is a ValueError naming the parameter."""
import numpy as np
import pytest
from gnuradio import blocks, gr

from gnuradio import beamform


def run(block, x, in_vlen, out_vlen, out_dtype=np.complex64):
    tb = gr.top_block()
    src = blocks.vector_source_c(x.ravel().tolist(), False, in_vlen)
    sink = blocks.vector_sink_c(out_vlen) if out_dtype == np.complex64 else blocks.vector_sink_f(out_vlen)
    tb.connect(src, block, sink)
    tb.run()
    return np.array(sink.data(), dtype=out_dtype)


def random_complex(rng, n):
    return (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(np.complex64)


def test_tensor_beamformer_threads_agree():
    rng = np.random.default_rng(1)
    C, R, B, T = 3, 7, 5, 64
    w = random_complex(rng, C * B * R)
    x = random_complex(rng, T * C * R)
    out = [run(beamform.tensor_beamformer(C, R, B, w.tolist(), beamform.beam_precision.float16,
                                          beamform.beam_output.power, 4,
                                          beamform.polarization_layout.single,
                                          beamform.stokes_mode.I, "cpu", threads),
               x, C * R, B * C, np.float32)
           for threads in (1, 0)]
    assert out[0].size == T // 4 * B * C
    np.testing.assert_array_equal(out[0], out[1])


def test_pfb_channelizer_threads_agree():
    rng = np.random.default_rng(2)
    N, R, T = 8, 3, 40
    x = random_complex(rng, T * N * R)
    out = [run(beamform.pfb_channelizer(N, [], 4, beamform.fc32, R, 1, False, 0.0, 1.0, "cpu",
                                        threads), x, R, N * R)
           for threads in (1, 3)]
    assert out[0].size == T * N * R
    assert np.all(np.isfinite(out[0])) and np.any(out[0] != 0)
    np.testing.assert_allclose(out[1], out[0], rtol=0, atol=1e-5 * np.abs(out[0]).max())


def test_phase_shift_threads_agree():
    rng = np.random.default_rng(3)
    C, R, T = 4, 5, 300
    freqs = [1.4e9 + 1e5 * c for c in range(C)]
    delays = rng.uniform(-1e-6, 1e-6, R).tolist()
    rates = rng.uniform(-1e-8, 1e-8, R).tolist()
    x = random_complex(rng, T * C * R)
    out = [run(beamform.phase_shift(C, R, freqs, 1e-5, delays, rates, [], 0.0, "cpu", threads),
               x, C * R, C * R)
           for threads in (1, 2)]
    assert out[0].size == T * C * R
    np.testing.assert_allclose(out[1], out[0], rtol=0, atol=1e-6 * np.abs(out[0]).max())


@pytest.mark.parametrize("make", [
    lambda: beamform.tensor_beamformer(1, 2, 1, [1 + 0j, 1 + 0j], device="cpu", threads=-1),
    lambda: beamform.pfb_channelizer(4, device="cpu", threads=-1),
    lambda: beamform.phase_shift(1, 1, [1e9], 1e-5, device="cpu", threads=-1),
])
def test_negative_threads_is_an_error(make):
    with pytest.raises(ValueError, match="threads"):
        make()
