# Copyright 2026 gr-beamform authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""incoherent_beam: receiver powers summed per channel, against numpy; tags;
into a filterbank file; bad parameters."""
import numpy as np
import pmt
import pytest
from gnuradio import beamform, blocks, gr

from conftest import HOST_DEVICES, gpu_devices

DEVICES = HOST_DEVICES + gpu_devices()


def spectra_of(rng, n_items, n_channels, n_receivers):
    shape = (n_items, n_channels, n_receivers)
    x = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(np.complex64)
    x *= rng.uniform(0.5, 2.0, n_receivers).astype(np.float32)  # unequal receivers
    return x


def expected_beam(x, n_int, pairs, iquv):
    """[n_out][n_stokes][n_channels] in float64."""
    x = x.astype(np.complex128)
    n_out = x.shape[0] // n_int
    x = x[:n_out * n_int].reshape(n_out, n_int, *x.shape[1:])
    if not iquv:
        return (np.abs(x) ** 2).sum(axis=(1, 3))[:, None, :]
    X, Y = x[..., 0::2], x[..., 1::2]
    xy = X * np.conj(Y)
    stokes = [np.abs(X) ** 2 + np.abs(Y) ** 2, np.abs(X) ** 2 - np.abs(Y) ** 2,
              2 * xy.real, 2 * xy.imag]
    return np.stack([s.sum(axis=(1, 3)) for s in stokes], axis=1)


def run_block(x, block, tags=()):
    n_items, n_channels, n_receivers = x.shape
    tb = gr.top_block()
    src = blocks.vector_source_c(x.reshape(-1).tolist(), False, n_channels * n_receivers,
                                 list(tags))
    snk = blocks.vector_sink_f(block.n_stokes() * n_channels)
    tb.connect(src, block, snk)
    tb.run()
    out = np.array(snk.data(), np.float32).reshape(-1, block.n_stokes(), n_channels)
    return out, snk.tags()


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("n_channels, n_receivers, n_int, pol, stokes", [
    (7, 5, 3, "single", "I"),
    (1, 1, 1, "single", "I"),
    (16, 6, 8, "xy_pairs", "I"),
    (9, 10, 5, "xy_pairs", "IQUV"),
])
def test_matches_numpy(rng, device, n_channels, n_receivers, n_int, pol, stokes):
    n_out = 37
    x = spectra_of(rng, n_out * n_int + n_int - 1, n_channels, n_receivers)  # a partial last
    if pol == "xy_pairs":  # correlated X and Y: Q, U, V far from 0
        x[..., 1::2] = 0.7 * x[..., 0::2] * np.exp(0.4j) + 0.5 * x[..., 1::2]
    blk = beamform.incoherent_beam(n_channels, n_receivers, n_int,
                                   getattr(beamform.polarization_layout, pol),
                                   getattr(beamform.stokes_mode, stokes), device)
    out, _ = run_block(x, blk)
    want = expected_beam(x, n_int, pol == "xy_pairs", stokes == "IQUV")
    assert out.shape == want.shape
    scale = want[:, :1, :]  # Stokes I, per output and channel
    assert np.all(np.abs(out - want) <= 2e-6 * scale), np.abs(out - want).max()


def test_emu_equals_cpu(rng):
    x = spectra_of(rng, 4 * 33, 11, 6)
    outs = [run_block(x, beamform.incoherent_beam(11, 6, 4, beamform.polarization_layout.xy_pairs,
                                                  beamform.stokes_mode.IQUV, d))[0]
            for d in HOST_DEVICES]
    assert np.array_equal(outs[0], outs[1])


def test_tags_go_to_their_output_item(rng):
    x = spectra_of(rng, 40, 3, 2)
    tags = [gr.tag_utils.python_to_tag((off, pmt.intern("k"), pmt.from_long(off), pmt.PMT_F))
            for off in (0, 7, 8, 39)]
    _, got = run_block(x, beamform.incoherent_beam(3, 2, 8, device="cpu"), tags)
    assert sorted((t.offset, pmt.to_long(t.value)) for t in got) == [(0, 0), (0, 7), (1, 8), (4, 39)]


def test_writes_a_filterbank_file(rng, tmp_path):
    n_channels, n_receivers, n_int = 16, 4, 4
    x = spectra_of(rng, 20 * n_int, n_channels, n_receivers)
    freqs = [1.4e9 + 1e5 * k for k in range(n_channels)]
    blk = beamform.incoherent_beam(n_channels, n_receivers, n_int, device="cpu")
    sink = beamform.filterbank_sink(str(tmp_path), "incoherent", 1, n_channels, 1, freqs,
                                    n_int * 1e-5, "test", [0.0, 90.0])
    tb = gr.top_block()
    tb.connect(blocks.vector_source_c(x.reshape(-1).tolist(), False, n_channels * n_receivers),
               blk, sink)
    tb.run()
    header, data = beamform.read_filterbank(sink.file_paths()[0])
    want = expected_beam(x, n_int, False, False)  # [time][1][channel], in freqs' order
    # File channel i holds the channel of frequency filterbank_frequencies(header)[i].
    file_freqs = np.asarray(beamform.filterbank_frequencies(header)) * 1e6  # MHz
    index = [int(np.argmin(np.abs(np.asarray(freqs) - f))) for f in file_freqs]
    assert sorted(index) == list(range(n_channels))
    assert data.shape == (20, 1, n_channels)
    np.testing.assert_allclose(data[:, 0, :], want[:, 0, index], rtol=2e-6)


@pytest.mark.parametrize("args, words", [
    (dict(n_int=0), ["n_int", "0", "[1, 1048576]"]),
    (dict(n_channels=0), ["n_channels", "0"]),
    (dict(n_receivers=-1), ["n_receivers", "-1"]),
    (dict(n_receivers=5, polarization=beamform.polarization_layout.xy_pairs), ["even", "5"]),
    (dict(stokes=beamform.stokes_mode.IQUV), ["IQUV", "xy_pairs"]),
    (dict(threads=-2), ["threads", "-2"]),
    (dict(n_channels=1 << 20, n_receivers=1 << 10), ["n_channels * n_receivers"]),
])
def test_bad_parameters_are_named(args, words):
    kwargs = dict(n_channels=4, n_receivers=2, device="cpu")
    kwargs.update(args)
    with pytest.raises(ValueError) as e:
        beamform.incoherent_beam(**kwargs)
    for word in words:
        assert word in str(e.value), (word, str(e.value))


def test_bad_device_is_refused():
    with pytest.raises((ValueError, RuntimeError)) as e:
        beamform.incoherent_beam(4, 2, device="gpu")
    assert "gpu" in str(e.value)


def test_flagger_then_beam_chain_on_every_host_device(rng):
    """rfi_flagger -> incoherent_beam, connected directly (on emu the items go
    through the GPU-style buffers): the same numbers on cpu and emu, and the
    flagged CW channel is zero in the beam."""
    n_channels, n_receivers, m, n_int = 6, 4, 32, 8
    x = spectra_of(rng, 5 * m, n_channels, n_receivers)
    x[:, 2, :] += 20.0  # a strong carrier (INR >= 50) in channel 2 of every receiver
    outs = []
    for device in HOST_DEVICES:
        tb = gr.top_block()
        src = blocks.vector_source_c(x.reshape(-1).tolist(), False, n_channels * n_receivers)
        flagger = beamform.rfi_flagger(n_channels, n_receivers, m, 0.0013499, 0.0, "zeros",
                                       0, device)
        beam = beamform.incoherent_beam(n_channels, n_receivers, n_int, device=device)
        snk = blocks.vector_sink_f(n_channels)
        tb.connect(src, flagger, beam, snk)
        tb.run()
        outs.append(np.array(snk.data(), np.float32).reshape(-1, n_channels))
    assert outs[0].shape == (5 * m // n_int, n_channels)
    assert np.array_equal(outs[0], outs[1])
    assert np.all(outs[0][:, 2] == 0) and np.all(outs[0][:, [0, 1, 3, 4, 5]] > 0)
