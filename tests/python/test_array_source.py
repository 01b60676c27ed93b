# Copyright 2026 gr-beamform authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""array_source: simulated plane waves on an array, against the exact model."""
import math

import numpy as np
import pmt
import pytest
from gnuradio import beamform, blocks, gr

C = 299792458.0


def run_source(src, n_items, item_bytes):
    tb = gr.top_block()
    head = blocks.head(item_bytes, n_items)
    snk = blocks.vector_sink_b(item_bytes)
    tb.connect(src, head, snk)
    tb.run()
    return np.frombuffer(bytes(snk.data()), dtype=np.uint8), snk.tags()


def run_fc32(src, n_items):
    n_rx = src.n_receivers()
    raw, tags = run_source(src, n_items, 8 * n_rx)
    return raw.view(np.complex64).reshape(n_items, n_rx), tags


def model(positions, fs, fc, azimuths, elevations, offsets, amplitudes, phases, n_items):
    """x_a[n] = sum_k A_k exp(i (2 pi (f_off n / fs + f_sky tau_ak) + phi_k))."""
    n = np.arange(n_items)
    x = np.zeros((n_items, len(positions)), dtype=np.complex128)
    for az, el, f_off, amp, ph in zip(azimuths, elevations, offsets, amplitudes, phases):
        tau = np.array(beamform.geometric_delays(positions, az, el))
        carrier = 2 * np.pi * ((fc + f_off) * tau)
        x += amp * np.exp(1j * (2 * np.pi * f_off * n[:, None] / fs + carrier[None, :] + ph))
    return x


def test_tone_has_the_inter_receiver_phase_of_its_delay(rng):
    positions = rng.uniform(-5, 5, (7, 3))
    fs, fc, f_off = 2e6, 1.4204e9, 234_567.8
    az, el = 57.0, 21.0
    src = beamform.array_source(positions, fs, fc, [az], [el], [f_off], [0.8], [0.3])
    out, _ = run_fc32(src, 4000)
    tau = np.array(beamform.geometric_delays(positions, az, el))
    assert np.allclose(src.source_delays(), tau, rtol=0, atol=1e-20)
    # Phase of every receiver relative to the reference: 2 pi f_sky tau_a, every sample.
    rel = np.angle(out * np.conj(out[:, :1]))
    want = np.angle(np.exp(2j * np.pi * (fc + f_off) * tau))
    err = np.angle(np.exp(1j * (rel - want[None, :])))
    assert np.max(np.abs(err)) < 2e-6
    expected = model(positions, fs, fc, [az], [el], [f_off], [0.8], [0.3], 4000)
    assert np.linalg.norm(out - expected) / np.linalg.norm(expected) < 1e-6


def test_receiver_nearer_the_source_leads():
    # Source due east: the eastern receiver sees the wavefront d/c earlier, so its
    # phase leads the reference by 2 pi f d / c (x_a = x_ref exp(+2 pi i f tau)).
    d = 0.05
    fs, fc = 1e6, 1e9
    src = beamform.array_source([[0, 0, 0], [d, 0, 0]], fs, fc, [90.0], [0.0], [0.0])
    out, _ = run_fc32(src, 16)
    lead = np.angle(out[:, 1] * np.conj(out[:, 0]))
    assert np.allclose(lead, 2 * np.pi * fc * d / C, atol=1e-6)


def test_sum_of_sources_and_seeded_noise(rng):
    positions = rng.uniform(-2, 2, (4, 3))
    fs, fc = 1e6, 4.0e8
    args = (positions, fs, fc, [10.0, 200.0], [80.0, 15.0], [-300_000.0, 125_000.0], [1.0, 0.25], [0.0, 1.0])
    clean, _ = run_fc32(beamform.array_source(*args), 20000)
    expected = model(*args, 20000)
    assert np.linalg.norm(clean - expected) / np.linalg.norm(expected) < 1e-6

    noisy_a, _ = run_fc32(beamform.array_source(*args, noise_amplitude=0.5, seed=11), 20000)
    noisy_b, _ = run_fc32(beamform.array_source(*args, noise_amplitude=0.5, seed=11), 20000)
    noisy_c, _ = run_fc32(beamform.array_source(*args, noise_amplitude=0.5, seed=12), 20000)
    assert np.array_equal(noisy_a, noisy_b)
    assert not np.array_equal(noisy_a, noisy_c)
    noise = noisy_a - clean
    power = np.mean(np.abs(noise) ** 2, axis=0)
    assert np.allclose(power, 0.25, rtol=0.05)
    # Independent receivers, circular noise.
    corr = np.abs(noise[:, 0] @ np.conj(noise[:, 1])) / len(noise) / 0.25
    assert corr < 0.05
    assert abs(np.mean(noise.real ** 2) - np.mean(noise.imag ** 2)) < 0.02


@pytest.mark.parametrize("fmt, dtype, scale", [("sc16", np.int16, 30000.0), ("sc8", np.int8, 100.0)])
def test_integer_formats_round_and_saturate(fmt, dtype, scale):
    positions = [[0, 0, 0], [0.3, 0, 0], [0, 0.3, 0]]
    args = (positions, 1e6, 1e9, [45.0], [30.0], [50_000.0], [1.5])
    ref, _ = run_fc32(beamform.array_source(*args), 1000)
    src = beamform.array_source(*args, output_format=getattr(beamform, fmt), scale=scale)
    raw, _ = run_source(src, 1000, 2 * np.dtype(dtype).itemsize * 3)
    got = raw.view(dtype).reshape(1000, 3, 2)
    info = np.iinfo(dtype)
    want_re = np.clip(np.round(scale * ref.real.astype(np.float64)), info.min, info.max)
    want_im = np.clip(np.round(scale * ref.imag.astype(np.float64)), info.min, info.max)
    assert np.array_equal(got[..., 0], want_re.astype(dtype))
    assert np.array_equal(got[..., 1], want_im.astype(dtype))
    assert got[..., 0].max() == info.max  # amplitude 1.5 * scale saturates


def test_tags_on_item_zero():
    src = beamform.array_source([[0, 0, 0]], 2.5e6, 1.42e9, [], [], [], start_time=1234.75)
    _, tags = run_fc32(src, 100)
    by_key = {pmt.symbol_to_string(t.key): t for t in tags}
    assert set(by_key) == {"rx_time", "rx_freq", "rx_rate"}
    assert all(t.offset == 0 for t in tags)
    rx_time = by_key["rx_time"].value
    assert pmt.to_uint64(pmt.tuple_ref(rx_time, 0)) == 1234
    assert pmt.to_double(pmt.tuple_ref(rx_time, 1)) == pytest.approx(0.75)
    assert pmt.to_double(by_key["rx_freq"].value) == 1.42e9
    assert pmt.to_double(by_key["rx_rate"].value) == 2.5e6


def test_restarted_flowgraph_keeps_the_large_buffer(capfd):
    # GNU Radio sets max_output_buffer to what it allocated at each start, and
    # a max makes the next start skip min_output_buffer; the block forgets it.
    src = beamform.array_source([[0, 0, 0], [1, 0, 0]], 1e6, 1e9, [30.0], [10.0], [1e4],
                                noise_amplitude=0.5)
    items = src.min_output_buffer(0)
    assert items * 16 >= 8 << 20  # about 8 MiB of 16-B items
    tb = gr.top_block()
    head = blocks.head(16, 1000)
    snk = blocks.vector_sink_c(2)
    tb.connect(src, head, snk)
    for _ in range(3):
        head.reset()
        tb.run()
    captured = capfd.readouterr()
    assert "max output buffer set to" not in captured.out + captured.err
    assert f"output buffer {items} items" in captured.out + captured.err
    assert len(snk.data()) == 3 * 1000 * 2
    assert src.max_output_buffer(0) == -1


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(positions=[]), "positions"),
        (dict(sample_rate=0.0), "sample_rate"),
        (dict(center_freq=float("nan")), "center_freq"),
        (dict(elevations=[10.0, 20.0]), "azimuths, elevations and frequency_offsets"),
        (dict(elevations=[95.0]), "elevations"),
        (dict(frequency_offsets=[6e5]), "frequency_offsets"),
        (dict(amplitudes=[1.0, 2.0]), "amplitudes"),
        (dict(phases=[float("inf")]), "phases"),
        (dict(noise_amplitude=-1.0), "noise_amplitude"),
        (dict(scale=0.0), "scale"),
        (dict(reference_index=2), "reference_index"),
        (dict(propagation_speed=-1.0), "propagation_speed"),
        (dict(start_time=-1.0), "start_time"),
    ],
)
def test_bad_parameters_raise(kwargs, message):
    args = dict(positions=[[0, 0, 0], [1, 0, 0]], sample_rate=1e6, center_freq=1e9, azimuths=[0.0],
                elevations=[45.0], frequency_offsets=[1e3])
    args.update(kwargs)
    with pytest.raises(ValueError, match=message):
        beamform.array_source(**args)
