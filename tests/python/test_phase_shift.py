# Copyright 2026 gr-beamform authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""phase_shift: per-channel delay compensation of spectra, against numpy and exact
rational arithmetic."""
import math
import time
from fractions import Fraction

import numpy as np
import pmt
import pytest
from gnuradio import beamform, blocks, gr

from conftest import HOST_DEVICES, gpu_devices

DEVICES = HOST_DEVICES + gpu_devices()


def random_spectra(rng, n_items, n_channels, n_receivers):
    shape = (n_items, n_channels, n_receivers)
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(np.complex64)


def expected_output(spectra, freqs, period, delays, rates, gains, t0, first_item=0):
    """out[t][c][a] = g_a exp(-2 pi i f_c tau_a(t)) in[t][c][a], in float64."""
    n = first_item + np.arange(spectra.shape[0], dtype=np.float64)
    t = n * period
    tau = delays[None, :] + rates[None, :] * (t[:, None] - t0)  # [items][receivers]
    phase = -2 * np.pi * freqs[None, :, None] * tau[:, None, :]
    return gains[None, None, :] * np.exp(1j * phase) * spectra


def run_block(spectra, block, tags=()):
    n_items, n_channels, n_receivers = spectra.shape
    vlen = n_channels * n_receivers
    tb = gr.top_block()
    src = blocks.vector_source_c(spectra.reshape(-1).tolist(), False, vlen, list(tags))
    snk = blocks.vector_sink_c(vlen)
    tb.connect(src, block, snk)
    tb.run()
    out = np.array(snk.data(), dtype=np.complex64).reshape(-1, n_channels, n_receivers)
    return out, snk.tags()


def relative_error(a, b):
    return np.linalg.norm(a - b) / np.linalg.norm(b)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("n_channels, n_receivers", [(1, 1), (3, 5), (7, 13), (16, 3)])
def test_matches_numpy(rng, device, n_channels, n_receivers):
    n_items = 517
    spectra = random_spectra(rng, n_items, n_channels, n_receivers)
    freqs = 1.2e8 + rng.uniform(0, 6e7, n_channels)
    period = 5.12e-6
    delays = rng.uniform(-2e-7, 2e-7, n_receivers)
    rates = rng.uniform(-5e-9, 5e-9, n_receivers)
    gains = (rng.uniform(0.5, 2, n_receivers) * np.exp(1j * rng.uniform(-np.pi, np.pi, n_receivers))).astype(np.complex64)
    t0 = 1.7e-3
    blk = beamform.phase_shift(n_channels, n_receivers, list(freqs), period, list(delays),
                               list(rates), list(gains), t0, device)
    out, _ = run_block(spectra, blk)
    assert out.shape == spectra.shape
    expected = expected_output(spectra, freqs, period, delays, rates, gains.astype(np.complex128), t0)
    assert relative_error(out, expected) < 2e-7


@pytest.mark.parametrize("device", DEVICES)
def test_static_delays_without_rates(rng, device):
    # No rates: the CPU engine uses one phasor table for every item.
    spectra = random_spectra(rng, 301, 5, 4)
    freqs = np.linspace(1.0e9, 1.1e9, 5)
    delays = rng.uniform(-1e-8, 1e-8, 4)
    blk = beamform.phase_shift(5, 4, list(freqs), 1e-5, list(delays), [], [], 0.0, device)
    out, _ = run_block(spectra, blk)
    expected = expected_output(spectra, freqs, 1e-5, delays, np.zeros(4), np.ones(4), 0.0)
    assert relative_error(out, expected) < 2e-7


@pytest.mark.parametrize("device", DEVICES)
def test_gains_applied(rng, device):
    spectra = random_spectra(rng, 97, 3, 6)
    gains = (rng.standard_normal(6) + 1j * rng.standard_normal(6)).astype(np.complex64)
    blk = beamform.phase_shift(3, 6, [1e8, 2e8, 3e8], 1e-6, [], [], list(gains), 0.0, device)
    assert np.allclose(blk.gains(), gains)
    out, _ = run_block(spectra, blk)
    np.testing.assert_allclose(out, spectra * gains[None, None, :], rtol=1e-6, atol=1e-6)


def exact_phase_cycles(freq, delay, rate, period, t0, n):
    """f (delay + rate (n period - t0)) mod 1 in exact rational arithmetic on the
    float64 parameters, as a float in [-0.5, 0.5)."""
    f, d, r, p, z = (Fraction(x) for x in (freq, delay, rate, period, t0))
    cycles = f * (d + r * (n * p - z))
    frac = cycles - math.floor(cycles + Fraction(1, 2))
    return float(frac)


@pytest.mark.parametrize("device", DEVICES)
def test_tracking_over_ten_million_items(device):
    """After 10^7 items the phase still matches exact arithmetic to < 1e-6 rad.

    Demanding parameters: a 1.42 GHz channel and a 2.9e-6 s/s delay rate (a fast
    satellite) accumulate ~2e5 cycles over the 51 s of items; the same formula
    evaluated in float32 is off by ~0.04 rad here, so the bound has teeth.
    """
    n_items = 10_000_000
    n_channels, n_receivers = 2, 2
    freqs = [1.42e9 + 0.123, 1.37e9 - 7.77]
    period = 5.12e-6
    delays = [3.7e-6, -1.234567e-6]
    rates = [2.9e-6, -1.7e-9]
    t0 = 7.3
    tail = 64
    tb = gr.top_block()
    src = blocks.vector_source_c([1 + 0j] * (n_channels * n_receivers), True, n_channels * n_receivers)
    head = blocks.head(gr.sizeof_gr_complex * n_channels * n_receivers, n_items)
    blk = beamform.phase_shift(n_channels, n_receivers, freqs, period, delays, rates, [], t0, device)
    skip = blocks.skiphead(gr.sizeof_gr_complex * n_channels * n_receivers, n_items - tail)
    snk = blocks.vector_sink_c(n_channels * n_receivers)
    tb.connect(src, head, blk, skip, snk)
    tb.run()
    out = np.array(snk.data()).reshape(tail, n_channels, n_receivers)
    worst = 0.0
    for i in range(tail):
        n = n_items - tail + i
        for c in range(n_channels):
            for a in range(n_receivers):
                want = -2 * math.pi * exact_phase_cycles(freqs[c], delays[a], rates[a], period, t0, n)
                got = np.angle(out[i, c, a])
                err = abs((got - want + math.pi) % (2 * math.pi) - math.pi)
                worst = max(worst, err)
    print(f"phase_shift[{device}] phase error after 1e7 items: {worst:.3e} rad")
    assert np.allclose(np.abs(out), 1.0, atol=1e-6)
    assert worst < 1e-6, f"phase error after 1e7 items: {worst:.3e} rad"


def wait_for(predicate, timeout=20.0):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if predicate():
            return True
        time.sleep(0.002)
    return False


@pytest.mark.parametrize("device", DEVICES)
def test_message_update_lands_at_tagged_item(rng, device):
    """A `delays` message applies from the first item of the next work call, which
    carries a phase_shift_update tag: every item before it uses the old model and
    every item from it on the new one (never half a batch)."""
    n_channels, n_receivers = 2, 3
    vlen = n_channels * n_receivers
    pattern = random_spectra(rng, 1000, n_channels, n_receivers)
    n_items = 100_000
    freqs = np.array([1.5e8, 1.6e8])
    period = 1e-5
    old = dict(delays=np.array([1e-9, -2e-9, 3e-9]), rates=np.zeros(3), gains=np.ones(3), t0=0.0)
    new = dict(delays=np.array([-4e-9, 5e-9, 0.5e-9]), rates=np.array([1e-10, 0, -1e-10]),
               gains=np.array([2, 1j, 0.5 - 0.5j]), t0=0.25)

    tb = gr.top_block()
    src = blocks.vector_source_c(pattern.reshape(-1).tolist(), True, vlen)
    throttle = blocks.throttle(gr.sizeof_gr_complex * vlen, 2e5)
    head = blocks.head(gr.sizeof_gr_complex * vlen, n_items)
    blk = beamform.phase_shift(n_channels, n_receivers, list(freqs), period,
                               list(old["delays"]), [], [], 0.0, device)
    snk = blocks.vector_sink_c(vlen)
    tb.connect(src, throttle, head, blk, snk)
    tb.start()
    assert wait_for(lambda: snk.nitems_read(0) >= 1000), "flowgraph did not start"
    msg = pmt.make_dict()
    msg = pmt.dict_add(msg, pmt.intern("delays"), pmt.init_f64vector(3, list(new["delays"])))
    msg = pmt.dict_add(msg, pmt.intern("rates"), pmt.init_f64vector(3, list(new["rates"])))
    msg = pmt.dict_add(msg, pmt.intern("gains"), pmt.init_c32vector(3, list(new["gains"])))
    msg = pmt.dict_add(msg, pmt.intern("t0"), pmt.from_double(new["t0"]))
    blk._post(pmt.intern("delays"), msg)
    tb.wait()

    out = np.array(snk.data(), dtype=np.complex64).reshape(-1, n_channels, n_receivers)
    assert out.shape[0] == n_items
    updates = [t for t in snk.tags() if pmt.symbol_to_string(t.key) == "phase_shift_update"]
    assert len(updates) == 1, "exactly one update tag"
    boundary = updates[0].offset
    assert 1000 <= boundary < n_items, f"update landed at {boundary}"
    assert blk.updates_applied() == 1
    assert np.allclose(blk.delays(), new["delays"])
    applied = pmt.dict_ref(updates[0].value, pmt.intern("delays"), pmt.PMT_NIL)
    assert np.allclose(pmt.f64vector_elements(applied), new["delays"])

    spectra = np.tile(pattern, (n_items // 1000, 1, 1))
    before = expected_output(spectra[:boundary], freqs, period, **old)
    after = expected_output(spectra[boundary:], freqs, period, first_item=boundary, **new)
    assert relative_error(out[:boundary], before) < 2e-7
    assert relative_error(out[boundary:], after) < 2e-7
    # The last item before the boundary really differs from the new model.
    last_new = expected_output(spectra[boundary - 1:boundary], freqs, period, first_item=boundary - 1, **new)
    assert relative_error(out[boundary - 1:boundary], last_new) > 1e-2


@pytest.mark.parametrize("device", HOST_DEVICES)
def test_set_delays_before_start_applies_from_item_zero(rng, device):
    spectra = random_spectra(rng, 50, 2, 2)
    freqs = np.array([1e9, 1.001e9])
    blk = beamform.phase_shift(2, 2, list(freqs), 1e-6, [], [], [], 0.0, device)
    blk.set_delays([1e-10, -3e-10], [], [1.5 + 0j])
    out, tags = run_block(spectra, blk)
    assert [t.offset for t in tags if pmt.symbol_to_string(t.key) == "phase_shift_update"] == [0]
    expected = expected_output(spectra, freqs, 1e-6, np.array([1e-10, -3e-10]), np.zeros(2),
                               np.array([1.5, 1.5]), 0.0)
    assert relative_error(out, expected) < 2e-7


@pytest.mark.parametrize("device", HOST_DEVICES)
def test_az_el_message_and_bad_message(rng, device):
    positions = [[0, 0, 0], [3.1, -0.7, 0.2], [-1.3, 4.4, 0.0]]
    blk = beamform.phase_shift(1, 3, [1.4e9], 1e-4, [], [1e-9], [], 0.0, device)
    blk.set_geometry(positions)
    # Bad messages are logged and ignored; az_el pointing is applied.
    blk._post(pmt.intern("delays"), pmt.from_long(3))
    bad = pmt.dict_add(pmt.make_dict(), pmt.intern("delays"), pmt.init_f64vector(2, [1.0, 2.0]))
    blk._post(pmt.intern("delays"), bad)
    good = pmt.dict_add(pmt.make_dict(), pmt.intern("az_el"), pmt.cons(pmt.from_double(37.0), pmt.from_double(52.0)))
    blk._post(pmt.intern("delays"), good)
    spectra = random_spectra(rng, 20, 1, 3)
    out, _ = run_block(spectra, blk)
    want = beamform.geometric_delays(positions, 37.0, 52.0)
    assert np.allclose(blk.delays(), want, rtol=0, atol=1e-18)
    assert blk.rates() == [0.0, 0.0, 0.0]  # a fixed pointing, like point_at()
    assert blk.updates_applied() == 1
    expected = expected_output(spectra, np.array([1.4e9]), 1e-4, np.array(want), np.zeros(3), np.ones(3), 0.0)
    assert relative_error(out, expected) < 2e-7


@pytest.mark.parametrize("device", DEVICES)
def test_points_array_at_a_plane_wave(device):
    """End to end without a channelizer: a tone from (az, el) simulated with its true
    per-receiver delays, fed to phase_shift as one channel at the tone's sky
    frequency with delays = geometric_delays: all receivers come out in phase.
    The opposite sign leaves them spread, so the sign is what is tested."""
    rng = np.random.default_rng(7)
    positions = rng.uniform(-3, 3, (9, 3))
    positions[:, 2] *= 0.1
    fs, fc, f_off = 1e6, 1.4204e9, 123_456.7
    az, el = 211.0, 34.0
    n_items = 2000
    delays = beamform.geometric_delays(positions, az, el)
    results = {}
    for sign in (+1, -1):
        tb = gr.top_block()
        src = beamform.array_source(positions, fs, fc, [az], [el], [f_off])
        head = blocks.head(gr.sizeof_gr_complex * 9, n_items)
        blk = beamform.phase_shift(1, 9, [fc + f_off], 1 / fs, [sign * d for d in delays], [], [], 0.0, device)
        snk = blocks.vector_sink_c(9)
        tb.connect(src, head, blk, snk)
        tb.run()
        out = np.array(snk.data()).reshape(-1, 9)
        results[sign] = np.angle(out * np.conj(out[:, :1]))
    assert np.max(np.abs(results[+1])) < 1e-5
    assert np.max(np.abs(results[-1])) > 0.5


@pytest.mark.parametrize("device", HOST_DEVICES)
def test_point_at_equals_explicit_delays(rng, device):
    positions = rng.uniform(-10, 10, (4, 3)).tolist()
    blk = beamform.phase_shift(1, 4, [1e9], 1e-6, [], [], [], 0.0, device)
    blk.set_geometry(positions, 2, 299792458.0)
    blk.point_at(123.0, 45.0)
    assert np.allclose(blk.delays(), beamform.geometric_delays(positions, 123.0, 45.0, 2), atol=1e-18)
    with pytest.raises(ValueError, match="positions"):
        blk.set_geometry(positions[:3])


def test_warns_when_delay_exceeds_what_a_phase_represents(capfd):
    # Channels 100 kHz apart: a phase represents |delay| <= 0.25 / 100 kHz = 2.5 us.
    freqs = [1e9, 1.0001e9, 1.0002e9]
    blk = beamform.phase_shift(3, 2, freqs, 1e-5, [1e-6, -1e-6], [], [], 0.0, "cpu")
    assert blk.max_representable_delay() == pytest.approx(2.5e-6)
    assert "beyond" not in capfd.readouterr().out
    blk.set_delays([1e-6, 4e-6])
    captured = capfd.readouterr()
    assert "beyond" in captured.out + captured.err
    # A single channel: the bandwidth is the item rate.
    single = beamform.phase_shift(1, 1, [1e9], 1e-5, [], [], [], 0.0, "cpu")
    assert single.max_representable_delay() == pytest.approx(0.25e-5)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(n_channels=0), "n_channels"),
        (dict(n_receivers=-1), "n_receivers"),
        (dict(channel_frequencies=[1e8, 2e8]), "channel_frequencies"),
        (dict(channel_frequencies=[1e8, float("nan"), 3e8]), "channel_frequencies"),
        (dict(item_period=0.0), "item_period"),
        (dict(item_period=float("inf")), "item_period"),
        (dict(delays=[1e-9, 2e-9]), "delays"),
        (dict(delays=[float("nan")]), "delays"),
        (dict(rates=[0.0] * 5), "rates"),
        (dict(gains=[1, 2]), "gains"),
        (dict(t0=float("nan")), "t0"),
        (dict(device="bogus"), "device"),
    ],
)
def test_bad_parameters_raise(kwargs, message):
    args = dict(n_channels=3, n_receivers=4, channel_frequencies=[1e8, 2e8, 3e8], item_period=1e-6,
                delays=[], rates=[], gains=[], t0=0.0, device="cpu")
    args.update(kwargs)
    with pytest.raises(ValueError, match=message):
        beamform.phase_shift(**args)


def test_bad_set_delays_raise_and_keep_the_model():
    blk = beamform.phase_shift(1, 3, [1e9], 1e-6, [1e-9], [], [], 0.0, "cpu")
    with pytest.raises(ValueError, match="delays"):
        blk.set_delays([1e-9, 2e-9])
    with pytest.raises(ValueError, match="t0"):
        blk.set_delays([1e-9], [], [], float("nan"))
    assert blk.delays() == [1e-9] * 3
    with pytest.raises(ValueError, match="set_geometry"):
        blk.point_at(0.0, 90.0)
