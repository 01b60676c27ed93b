# Copyright 2026 gr-beamform authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""rfi_flagger: spectral kurtosis against numpy, the false-alarm rate of its
thresholds on Gaussian noise, detection of injected RFI, replacement, the flags
messages, and bad parameters."""
import numpy as np
import pmt
import pytest
from gnuradio import beamform, blocks, gr

from conftest import HOST_DEVICES, gpu_devices

DEVICES = HOST_DEVICES + gpu_devices()
PFA_3SIGMA = 0.0013499


def gaussian(rng, shape, sigma=1.0):
    return (sigma * (rng.standard_normal(shape) + 1j * rng.standard_normal(shape))
            / np.sqrt(2)).astype(np.complex64)


def run_flagger(spectra, block, tmp_path):
    """Runs spectra [items][channels][receivers] through block; returns the
    output and the flag messages' masks as [blocks][channels][receivers]."""
    n_items, n_channels, n_receivers = spectra.shape
    vlen = n_channels * n_receivers
    path = str(tmp_path / "spectra.c64")
    spectra.tofile(path)
    out_path = str(tmp_path / "out.c64")
    tb = gr.top_block()
    src = blocks.file_source(8 * vlen, path, False)
    snk = blocks.file_sink(8 * vlen, out_path)
    debug = blocks.message_debug()
    tb.connect(src, block, snk)
    tb.msg_connect(block, "flags", debug, "store")
    tb.run()
    snk.close()
    out = np.fromfile(out_path, dtype=np.complex64).reshape(-1, n_channels, n_receivers)
    masks, offsets = [], []
    for i in range(debug.num_messages()):
        msg = debug.get_message(i)
        assert pmt.to_long(pmt.dict_ref(msg, pmt.intern("M"), pmt.PMT_NIL)) == block.block_size()
        assert pmt.to_long(pmt.dict_ref(msg, pmt.intern("n_channels"), pmt.PMT_NIL)) == n_channels
        assert pmt.to_long(pmt.dict_ref(msg, pmt.intern("n_receivers"), pmt.PMT_NIL)) == n_receivers
        offsets.append(pmt.to_uint64(pmt.dict_ref(msg, pmt.intern("offset"), pmt.PMT_NIL)))
        mask = pmt.u8vector_elements(pmt.dict_ref(msg, pmt.intern("mask"), pmt.PMT_NIL))
        masks.append(np.array(mask, dtype=np.uint8).reshape(n_channels, n_receivers))
    order = np.argsort(offsets)
    assert list(np.array(offsets)[order]) == list(range(0, n_items, block.block_size()))
    return out, np.array(masks)[order]


def spectral_kurtosis(spectra, m):
    """SK per [block][channel][receiver] in float64 (Nita & Gary 2010, N = d = 1)."""
    p = np.abs(spectra.astype(np.complex128)) ** 2
    p = p.reshape(-1, m, *spectra.shape[1:])
    s1, s2 = p.sum(axis=1), (p * p).sum(axis=1)
    return (m + 1) / (m - 1) * (m * s2 / s1**2 - 1)


@pytest.mark.parametrize("block_size", [16, 100])
def test_false_alarm_rate_of_gaussian_noise(tmp_path, block_size):
    """On Gaussian noise the fraction of flagged (block, channel, receiver)
    estimates is 2 pfa: within 10% relative (and so well within 1 percentage
    point). 512 000 estimates at the 3-sigma pfa expect 1382 false alarms
    (Poisson spread 2.7%; the thresholds' own uncertainty about 2.5%), so 10%
    is about three standard deviations. The masks are also checked against SK
    computed here in float64 with the block's thresholds."""
    rng = np.random.default_rng(20260115 + block_size)
    n_channels, n_receivers = 64, 32
    n_blocks = 512000 // (n_channels * n_receivers)
    spectra = gaussian(rng, (n_blocks * block_size, n_channels, n_receivers))
    blk = beamform.rfi_flagger(n_channels, n_receivers, block_size, PFA_3SIGMA,
                               device="cpu")
    out, masks = run_flagger(spectra, blk, tmp_path)
    sk = spectral_kurtosis(spectra, block_size)
    expected = (sk < blk.lower_threshold()) | (sk > blk.upper_threshold())
    near = np.isclose(sk, blk.lower_threshold(), rtol=1e-9) | \
        np.isclose(sk, blk.upper_threshold(), rtol=1e-9)
    assert np.array_equal(masks[~near], expected[~near])
    rate = masks.mean()
    assert abs(rate / (2 * PFA_3SIGMA) - 1) < 0.10, rate
    below = (sk < blk.lower_threshold()).mean()
    above = (sk > blk.upper_threshold()).mean()
    # Each side on its own, a looser bound (half the count: about 3.5 sigma at 15%).
    assert abs(below / PFA_3SIGMA - 1) < 0.15 and abs(above / PFA_3SIGMA - 1) < 0.15, \
        (below, above)
    assert blk.flagged_count() == masks.sum() * block_size
    assert blk.total_count() == spectra.size


@pytest.mark.parametrize("device", DEVICES)
def test_detects_cw_and_bursts_and_replaces_with_zeros(rng, tmp_path, device):
    n_channels, n_receivers, m, n_blocks = 16, 8, 64, 60
    n_items = m * n_blocks
    spectra = gaussian(rng, (n_items, n_channels, n_receivers))
    t = np.arange(n_items)
    injected = np.zeros((n_blocks, n_channels, n_receivers), bool)
    # Narrow-band: a CW tone of three times the noise amplitude (INR 9) in 5
    # (channel, receiver)s: SK near (1 + 2 INR) / (1 + INR)^2 = 0.19.
    for c, a in [(0, 0), (3, 2), (7, 7), (8, 1), (15, 4)]:
        spectra[:, c, a] += 3.0 * np.exp(1j * (0.37 * t + c)).astype(np.complex64)
        injected[:, c, a] = True
    # Impulsive: a pulse of 3 samples at 12 times the noise amplitude (random
    # phase) once per block, at a random place.
    for c, a in [(2, 5), (9, 3), (12, 6)]:
        starts = rng.integers(0, m - 3, n_blocks) + np.arange(n_blocks) * m
        for s in starts:
            spectra[s:s + 3, c, a] += 12.0 * np.exp(2j * np.pi * rng.uniform(size=3))
        injected[:, c, a] = True
    blk = beamform.rfi_flagger(n_channels, n_receivers, m, PFA_3SIGMA, 0.0, "zeros", 0,
                               device)
    out, masks = run_flagger(spectra, blk, tmp_path)
    assert masks[injected].mean() >= 0.99
    assert masks[~injected].mean() < 0.02  # false alarms: 0.0027 expected
    flagged = np.repeat(masks, m, axis=0).astype(bool)
    assert np.all(out[flagged] == 0)
    assert np.array_equal(out[~flagged], spectra[~flagged])


@pytest.mark.parametrize("device", DEVICES)
def test_noise_replacement_has_the_unflagged_power(rng, tmp_path, device):
    n_channels, n_receivers, m, n_blocks = 32, 4, 128, 20
    sigma = np.array([0.5, 1.0, 2.0, 3.0], np.float32)
    spectra = gaussian(rng, (m * n_blocks, n_channels, n_receivers)) * sigma
    spectra[:, 5, :] += 4.0 * sigma  # a DC tone in channel 5 of every receiver
    blk = beamform.rfi_flagger(n_channels, n_receivers, m, PFA_3SIGMA, 0.0, "noise", 7,
                               device)
    out, masks = run_flagger(spectra, blk, tmp_path)
    assert masks[:, 5, :].all()
    replaced = out[:, 5, :]  # [items][receivers]
    power = (np.abs(replaced) ** 2).mean(axis=0)
    # 2560 noise values per receiver: power within 10% (about 3.5 sigma).
    np.testing.assert_allclose(power, sigma**2, rtol=0.10)
    assert abs(replaced.real.mean()) < 0.1 * sigma.mean()
    unflagged = ~np.repeat(masks, m, axis=0).astype(bool)
    assert np.array_equal(out[unflagged], spectra[unflagged])


def test_noise_is_reproducible_and_the_same_on_every_host_device(rng, tmp_path):
    n_channels, n_receivers, m = 7, 5, 17
    spectra = gaussian(rng, (17 * 6, n_channels, n_receivers))
    spectra[:, 1, 2] += 3.0  # flagged
    outs = []
    for device in HOST_DEVICES + HOST_DEVICES:
        blk = beamform.rfi_flagger(n_channels, n_receivers, m, PFA_3SIGMA, 4.0, "noise",
                                   99, device)
        out, masks = run_flagger(spectra, blk, tmp_path)
        outs.append((out, masks))
    for out, masks in outs[1:]:
        assert np.array_equal(out.view(np.uint64), outs[0][0].view(np.uint64))
        assert np.array_equal(masks, outs[0][1])


def test_power_outliers_only_with_mad_threshold(rng, tmp_path):
    n_channels, n_receivers, m = 33, 3, 32
    spectra = gaussian(rng, (m * 10, n_channels, n_receivers))
    spectra[:, 20, 1] *= 10.0  # Gaussian, so SK does not see it; 100 times the power
    plain = beamform.rfi_flagger(n_channels, n_receivers, m, PFA_3SIGMA, 0.0, "zeros", 0,
                                 "cpu")
    _, masks = run_flagger(spectra, plain, tmp_path)
    assert masks[:, 20, 1].mean() < 0.5
    mad = beamform.rfi_flagger(n_channels, n_receivers, m, PFA_3SIGMA, 10.0, "zeros", 0,
                               "cpu")
    _, masks = run_flagger(spectra, mad, tmp_path)
    assert masks[:, 20, 1].all()
    assert masks[:, 20, [0, 2]].mean() < 0.2


def test_accessors():
    blk = beamform.rfi_flagger(4, 2, 32, 0.001, 3.0, "noise", 5, "cpu", 2)
    assert blk.block_size() == 32 and blk.pfa() == 0.001 and blk.mad_threshold() == 3.0
    assert blk.replace() == "noise"
    assert 0 < blk.lower_threshold() < 1 < blk.upper_threshold()
    assert blk.flagged_count() == 0 and blk.total_count() == 0


@pytest.mark.parametrize("kwargs, words", [
    (dict(block_size=1), ["block_size", "1", "[2, 65536]"]),
    (dict(block_size=70000), ["block_size", "70000"]),
    (dict(pfa=0.0), ["pfa", "[1e-7, 0.25]", "got 0"]),
    (dict(pfa=1e-9), ["pfa", "1e-09"]),
    (dict(pfa=0.3), ["pfa", "0.3"]),
    (dict(pfa=float("nan")), ["pfa"]),
    (dict(mad_threshold=-2.0), ["mad_threshold", "-2"]),
    (dict(replace="random"), ["replace", "random", "zeros", "noise"]),
    (dict(n_channels=0), ["n_channels", "0"]),
    (dict(n_receivers=-3), ["n_receivers", "-3"]),
    (dict(threads=-1), ["threads", "-1"]),
    (dict(seed=-1), ["seed", "-1"]),
    (dict(n_channels=1 << 20, n_receivers=1 << 10), ["n_channels * n_receivers"]),
])
def test_bad_parameters_are_named(kwargs, words):
    args = dict(n_channels=4, n_receivers=2, device="cpu")
    args.update(kwargs)
    with pytest.raises(ValueError) as e:
        beamform.rfi_flagger(**args)
    for word in words:
        assert word in str(e.value), (word, str(e.value))


def test_bad_device_is_refused():
    with pytest.raises((ValueError, RuntimeError)) as e:
        beamform.rfi_flagger(4, 2, device="gpu")
    assert "gpu" in str(e.value)


def test_threads_agree(rng, tmp_path):
    spectra = gaussian(rng, (24 * 5, 9, 6))
    spectra[:, 2, 3] += 2.5
    spectra[3::24, 7, 1] += 30.0
    results = []
    for threads in (1, 3):
        blk = beamform.rfi_flagger(9, 6, 24, PFA_3SIGMA, 5.0, "noise", 3, "cpu", threads)
        results.append(run_flagger(spectra, blk, tmp_path))
    assert results[0][1][:, 2, 3].all() and results[0][1][:, 7, 1].all()
    assert np.array_equal(results[0][1], results[1][1])
    assert np.array_equal(results[0][0].view(np.uint64), results[1][0].view(np.uint64))
