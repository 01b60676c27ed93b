# Copyright 2026 gr-beamform authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""pfb_channelizer: against GNU Radio's pfb_channelizer_ccf and a numpy model,
tones in the right channels, the documented filter design values, 2x
oversampling without aliasing at the band edges, independence of work-call
sizes, every input format, tags, and parameter checks."""
import warnings

import numpy as np
import pmt
import pytest
from gnuradio import beamform, blocks, filter, gr
from gnuradio.beamform import pfb_taps

from conftest import FORMATS, HOST_DEVICES, gpu_devices, random_samples

DEVICES = HOST_DEVICES + gpu_devices()


# ---------------------------------------------------------------- helpers

def as_complex(raw):
    return raw[..., 0].astype(np.float64) + 1j * raw[..., 1].astype(np.float64)


def source_for(raw, tags=()):
    """A typed vector source emitting items of [n_rx] raw samples."""
    n_rx = raw.shape[1]
    if raw.dtype == np.float32:
        data = (raw[..., 0] + 1j * raw[..., 1]).astype(np.complex64).ravel()
        return blocks.vector_source_c(data.tolist(), False, n_rx, list(tags))
    if raw.dtype == np.int16:
        return blocks.vector_source_s(raw.ravel().tolist(), False, 2 * n_rx, list(tags))
    return blocks.vector_source_b(raw.view(np.uint8).ravel().tolist(), False, 2 * n_rx,
                                  list(tags))


def run_block(raw, n_channels, device, taps=(), taps_per_branch=16, oversample=1,
              fft_shift=False, center_freq=0.0, sample_rate=1.0, tags=(),
              max_noutput_items=None):
    """Run the block over raw (n_items, n_rx, 2); spectra (n_out, N, n_rx), tags, block."""
    n_rx = raw.shape[1]
    fmt = {np.dtype(np.int8): beamform.sc8, np.dtype(np.int16): beamform.sc16,
           np.dtype(np.float32): beamform.fc32}[raw.dtype]
    tb = gr.top_block()
    ch = beamform.pfb_channelizer(n_channels, list(taps), taps_per_branch, fmt, n_rx,
                                  oversample, fft_shift, center_freq, sample_rate, device)
    snk = blocks.vector_sink_c(n_channels * n_rx)
    tb.connect(source_for(raw, tags), ch, snk)
    if max_noutput_items:
        tb.run(max_noutput_items)
    else:
        tb.run()
    out = np.array(snk.data(), dtype=np.complex64).reshape(-1, n_channels, n_rx)
    return out, snk.tags(), ch


def tone_block(freqs, n_samples, amplitude=1.0):
    """Unit complex tones, one per receiver, freqs in cycles per sample: fc32 raw."""
    n = np.arange(n_samples)[:, None]
    x = amplitude * np.exp(2j * np.pi * np.asarray(freqs)[None, :] * n)
    return np.stack([x.real, x.imag], axis=-1).astype(np.float32)


def reference(x, taps, n, oversample=1, fft_shift=False):
    """numpy model of the channelizer (engine header formula); x (n_in, R) complex."""
    taps = np.asarray(taps, dtype=np.float64)
    t_per_branch = len(taps) // n
    step = n // oversample
    history = n * t_per_branch - step
    r = x.shape[1]
    xp = np.concatenate([np.zeros((history, r)), x])
    n_out = x.shape[0] // step
    out = np.empty((n_out, n, r), dtype=np.complex128)
    lags = np.arange(n * t_per_branch)
    for t in range(n_out):
        newest = history + (t + 1) * step - 1
        segment = taps[:, None] * xp[newest - lags]            # h[q] x[m - q]
        branches = segment.reshape(t_per_branch, n, r).sum(0)  # y_p
        fft_in = np.roll(branches, -((t * step) % n), axis=0)  # y_p at (p - tM) mod N
        spectrum = np.fft.ifft(fft_in, axis=0) * n
        out[t] = np.fft.fftshift(spectrum, axes=0) if fft_shift else spectrum
    return out


def gnuradio_channelizer(x, taps, n, oversample):
    """GNU Radio's pfb_channelizer_ccf per receiver: list of (n_out, N) arrays."""
    tb = gr.top_block()
    n_rx = x.shape[1]
    src = blocks.vector_source_c(x.astype(np.complex64).ravel().tolist(), False, n_rx)
    split = blocks.vector_to_streams(gr.sizeof_gr_complex, n_rx)
    tb.connect(src, split)
    sinks = []
    for r in range(n_rx):
        commutator = blocks.stream_to_streams(gr.sizeof_gr_complex, n)
        pfb = filter.pfb_channelizer_ccf(n, list(taps), float(oversample))
        tb.connect((split, r), commutator)
        per_channel = []
        for c in range(n):
            tb.connect((commutator, c), (pfb, c))
            k = blocks.vector_sink_c()
            tb.connect((pfb, c), k)
            per_channel.append(k)
        sinks.append(per_channel)
    tb.run()
    return [np.array([k.data() for k in per_channel]).T for per_channel in sinks]


def rel_err(a, b):
    return np.linalg.norm(a - b) / np.linalg.norm(b)


# ---------------------------------------------------------------- equivalence

@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("n, oversample, taps_kind", [
    (8, 1, "default"), (16, 2, "firdes"), (32, 1, "random"), (12, 2, "random")])
def test_equals_gnuradio_pfb_channelizer(rng, device, n, oversample, taps_kind):
    n_rx, n_steps = 3, 48
    if taps_kind == "default":
        taps, per_branch = [], 16
    elif taps_kind == "firdes":
        # 100 taps: not a multiple of N, so both sides pad with zeros.
        taps = list(filter.firdes.low_pass(1.0, 1.0, 0.5 / n, 0.2 / n))[:100]
        per_branch = -(-len(taps) // n)
    else:
        per_branch = 5
        taps = list(rng.uniform(-1, 1, n * per_branch).astype(np.float32))
    raw = random_samples(rng, "fc32", n_steps * n // oversample, n_rx)
    ours, _, block = run_block(raw, n, device, taps, per_branch, oversample)
    theirs = gnuradio_channelizer(as_complex(raw), block.taps(), n, oversample)
    for r in range(n_rx):
        # No delay between the two: GNU Radio starts from zero history too (it
        # may hold back its last steps, waiting for more input).
        common = min(len(theirs[r]), len(ours))
        assert common >= n_steps - 2
        err = rel_err(ours[:common, :, r], theirs[r][:common])
        assert err < 1e-5, f"receiver {r}: {err}"


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("oversample, fft_shift", [(1, False), (2, True), (2, False)])
def test_every_input_format_matches_numpy_model(rng, device, fmt, oversample, fft_shift):
    n, per_branch, n_rx, n_steps = 16, 4, 5, 30
    taps = rng.uniform(-1, 1, n * per_branch).astype(np.float32)
    raw = random_samples(rng, fmt, n_steps * n // oversample, n_rx)
    out, _, _ = run_block(raw, n, device, list(taps), per_branch, oversample, fft_shift)
    expected = reference(as_complex(raw), taps, n, oversample, fft_shift)
    assert out.shape == expected.shape
    assert rel_err(out, expected) < 1e-5


@pytest.mark.parametrize("device", DEVICES)
def test_same_output_for_one_big_and_many_small_work_calls(rng, device):
    n, n_rx, n_steps = 16, 3, 64
    raw = random_samples(rng, "sc16", n_steps * n // 2, n_rx)
    big, _, _ = run_block(raw, n, device, oversample=2)
    assert big.shape[0] == n_steps
    for limit in (1, 3, 7):
        small, _, _ = run_block(raw, n, device, oversample=2, max_noutput_items=limit)
        np.testing.assert_allclose(small, big, rtol=0, atol=1e-6 * np.abs(big).max())


# ---------------------------------------------------------------- frequency behaviour

@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("fft_shift", [False, True])
def test_tone_swept_across_each_channel_lands_in_it(device, fft_shift):
    n, n_offsets, warmup, n_steps = 8, 128, 16, 24
    probe = beamform.pfb_channelizer(n, [], 16, beamform.fc32, 1, 1, fft_shift, 0.0, 1.0, "cpu")
    centres = np.array(probe.channel_frequencies())  # cycles per sample
    # 128 offsets inside each channel, none exactly on an edge.
    offsets = ((np.arange(n_offsets) + 0.5) / n_offsets - 0.5) / n
    freqs = (centres[:, None] + offsets[None, :]).ravel()
    expected_channel = np.repeat(np.arange(n), n_offsets)
    raw = tone_block(freqs, n_steps * n)
    out, _, _ = run_block(raw, n, device, fft_shift=fft_shift)
    power = (np.abs(out[warmup:]) ** 2).mean(axis=0)  # (channel, receiver)
    assert np.array_equal(power.argmax(axis=0), expected_channel)
    # Inside the passband the tone keeps its unit amplitude (unit DC gain).
    inner = np.abs(offsets * n) <= pfb_taps.DEFAULT_PASSBAND
    gain = np.sqrt(power[expected_channel, np.arange(freqs.size)]).reshape(n, n_offsets)
    np.testing.assert_allclose(gain[:, inner], 1.0, atol=2e-3)


def measured_channel0_response(device, deltas, n=16, oversample=1):
    """|output of channel 0| for unit tones at deltas (channel widths from DC)."""
    warmup, n_steps = 20, 40
    raw = tone_block(np.asarray(deltas) / n, n_steps * n // oversample)
    out, _, block = run_block(raw, n, device, oversample=oversample)
    return np.abs(out[warmup:, 0, :]).mean(axis=0), block


@pytest.mark.parametrize("device", ["cpu"] + gpu_devices())
def test_passband_ripple_and_adjacent_channel_rejection_meet_documented_values(device):
    passband = np.linspace(-pfb_taps.DEFAULT_PASSBAND, pfb_taps.DEFAULT_PASSBAND, 61)
    near = np.linspace(pfb_taps.DEFAULT_STOPBAND, 2.5, 80)
    far = np.array([3.1, 3.9, 4.6, 5.5, 6.3, 7.2, 7.95])
    stopband = np.concatenate([near, -near, far, -far])
    gain, block = measured_channel0_response(device, np.concatenate([passband, stopband]))
    pass_gain, stop_gain = gain[:passband.size], gain[passband.size:]
    ripple_db = 20 * np.log10(pass_gain.max() / pass_gain.min())
    rejection_db = -20 * np.log10(stop_gain.max() / pass_gain.mean())
    assert abs(pass_gain.mean() - 1.0) < 2e-3  # unit gain at the channel centre
    assert ripple_db <= pfb_taps.DEFAULT_RIPPLE_DB, ripple_db
    assert rejection_db >= pfb_taps.DEFAULT_REJECTION_DB, rejection_db
    # The block's measurement agrees with the design's own response.
    design_ripple, design_rejection = pfb_taps.measure(block.taps(), 16)
    assert design_ripple <= pfb_taps.DEFAULT_RIPPLE_DB
    assert design_rejection >= pfb_taps.DEFAULT_REJECTION_DB
    assert ripple_db <= design_ripple + 1e-3
    assert rejection_db >= design_rejection - 0.5
    # Channel edges: -6.02 dB, where the neighbouring channels cross.
    edge, _ = measured_channel0_response(device, [0.5, -0.5])
    np.testing.assert_allclose(20 * np.log10(edge), -6.02, atol=0.05)


def output_spectrum_peak(series, output_rate):
    """Frequency (channel widths) of the strongest line of a channel's output, and
    the spectrum in dB re that line with its frequency axis."""
    window = np.blackman(series.size)
    spectrum = np.abs(np.fft.fft(series * window)) ** 2
    freqs = np.fft.fftfreq(series.size) * output_rate
    db = 10 * np.log10(spectrum / spectrum.max() + 1e-30)
    return freqs[spectrum.argmax()], freqs, db


@pytest.mark.parametrize("device", DEVICES)
def test_oversampled_mode_shows_no_aliasing_at_band_edges(device):
    n, channel = 16, 3
    deltas = np.array([0.45, 0.55, -0.55, -0.45])  # channel widths from channel 3's centre
    probe = beamform.pfb_channelizer(n, [], 16, beamform.fc32, 1, 1, False, 0.0, 1.0, "cpu")
    freqs = probe.channel_frequencies()[channel] + deltas / n
    for oversample in (1, 2):
        n_steps, warmup = 512 * oversample, 32
        raw = tone_block(freqs, n_steps * n // oversample)
        out, _, _ = run_block(raw, n, device, oversample=oversample)
        for r, delta in enumerate(deltas):
            peak, f, db = output_spectrum_peak(out[warmup:, channel, r], oversample)
            alias = delta - np.sign(delta)  # where the line would fold to at 1 channel width
            if oversample == 2:
                # Output rate 2 channel widths: the tone sits at its true offset and
                # nothing appears at the folded frequency.
                assert abs(peak - delta) < 0.01, (delta, peak)
                assert db[np.argmin(np.abs(f - alias))] < -60
            elif abs(delta) > 0.5:
                # Critically sampled: a tone past the edge folds (what 2x avoids).
                assert abs(peak - alias) < 0.01, (delta, peak)
            else:
                assert abs(peak - delta) < 0.01, (delta, peak)


# ---------------------------------------------------------------- filter design helper

def test_default_taps_are_the_python_windowed_sinc():
    for n, per_branch in [(16, 16), (1000, 3), (2, 16)]:
        block = beamform.pfb_channelizer(n, [], per_branch, beamform.fc32, 1, 1, False, 0.0,
                                         1.0, "cpu")
        taps = np.array(block.taps())
        design = pfb_taps.windowed_sinc(n, per_branch)
        assert taps.size == n * per_branch
        np.testing.assert_allclose(taps, design, rtol=0, atol=1e-6 * np.abs(design).max())
        assert abs(taps.sum() - 1.0) < 1e-5


@pytest.mark.parametrize("n", [2, 16, 256, 1024])
def test_default_design_values_hold_for_every_size(n):
    ripple, rejection = pfb_taps.measure(pfb_taps.windowed_sinc(n), n)
    assert ripple <= pfb_taps.DEFAULT_RIPPLE_DB
    assert rejection >= pfb_taps.DEFAULT_REJECTION_DB


@pytest.mark.parametrize("n", [16, 1024])
def test_equiripple_meets_its_targets(n):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a missed target warns: fail on it
        taps = pfb_taps.equiripple(n, 16, passband=0.375, stopband=0.625, ripple_db=0.05,
                                   attenuation_db=70.0)
    assert taps.size == n * 16 and taps.dtype == np.float32
    ripple, rejection = pfb_taps.measure(taps, n, 0.375, 0.625)
    assert ripple <= 0.05 * 1.01 and rejection >= 70.0 * 0.99
    assert abs(taps.sum() - 1.0) < 1e-5


def test_equiripple_warns_when_the_length_cannot_reach_the_request():
    with pytest.warns(UserWarning, match="raise taps_per_branch"):
        pfb_taps.equiripple(8, 4, passband=0.45, stopband=0.55, ripple_db=0.001,
                            attenuation_db=120.0)


def test_window_choices_and_bad_design_parameters():
    for window in ("blackmanharris", "hamming", "rectangular"):
        taps = pfb_taps.windowed_sinc(32, 8, window=window)
        assert abs(taps.sum() - 1.0) < 1e-5
    with pytest.raises(ValueError, match="window"):
        pfb_taps.windowed_sinc(32, 8, window="no-such-window")
    with pytest.raises(ValueError, match="n_channels"):
        pfb_taps.windowed_sinc(1)
    with pytest.raises(ValueError, match="taps_per_branch"):
        pfb_taps.equiripple(16, 0)
    with pytest.raises(ValueError, match="passband"):
        pfb_taps.equiripple(16, 16, passband=0.7, stopband=0.6)


# ---------------------------------------------------------------- metadata, tags, parameters

def test_channel_frequencies_in_both_orders():
    n, fc, fs = 8, 1.4e9, 8e6
    plain = beamform.pfb_channelizer(n, [], 4, beamform.sc16, 2, 1, False, fc, fs, "cpu")
    shifted = beamform.pfb_channelizer(n, [], 4, beamform.sc16, 2, 1, True, fc, fs, "cpu")
    spacing = fs / n
    np.testing.assert_allclose(plain.channel_frequencies(),
                               fc + spacing * np.array([0, 1, 2, 3, -4, -3, -2, -1]))
    np.testing.assert_allclose(shifted.channel_frequencies(),
                               fc + spacing * np.arange(-4, 4))
    np.testing.assert_array_equal(pfb_taps.channel_offsets(n, True), np.arange(-4, 4))
    odd = beamform.pfb_channelizer(5, [], 4, beamform.sc16, 1, 1, True, 0.0, 5.0, "cpu")
    np.testing.assert_allclose(odd.channel_frequencies(), [-2, -1, 0, 1, 2])


@pytest.mark.parametrize("device", HOST_DEVICES)
def test_tags_move_to_their_output_items(rng, device):
    n, oversample, fs = 16, 2, 1000.0  # 8 input items per output item
    raw = random_samples(rng, "sc8", 8 * 10, 2)

    def tag(offset, key, value):
        t = gr.tag_t()
        t.offset, t.key, t.value = offset, pmt.intern(key), value
        return t

    tags = [tag(0, "rx_time", pmt.make_tuple(pmt.from_uint64(100), pmt.from_double(0.25))),
            tag(13, "rx_time", pmt.make_tuple(pmt.from_uint64(7), pmt.from_double(0.001))),
            tag(20, "rx_freq", pmt.from_double(1.42e9)),
            tag(79, "user", pmt.from_long(5))]
    _, out_tags, _ = run_block(raw, n, device, taps_per_branch=4, oversample=oversample,
                               sample_rate=fs, tags=tags)
    got = {(t.offset, pmt.symbol_to_string(t.key)): t.value for t in out_tags}
    assert set(got) == {(0, "rx_time"), (1, "rx_time"), (2, "rx_freq"), (9, "user")}
    first = got[(0, "rx_time")]
    assert pmt.to_uint64(pmt.tuple_ref(first, 0)) == 100
    assert pmt.to_double(pmt.tuple_ref(first, 1)) == pytest.approx(0.25)
    # Offset 13 is 5 samples into item 1's block (which starts at input 8):
    # 7.001 s - 5 / 1000 s = 6.996 s.
    second = got[(1, "rx_time")]
    assert pmt.to_uint64(pmt.tuple_ref(second, 0)) == 6
    assert pmt.to_double(pmt.tuple_ref(second, 1)) == pytest.approx(0.996)
    assert pmt.to_double(got[(2, "rx_freq")]) == 1.42e9
    assert pmt.to_long(got[(9, "user")]) == 5


@pytest.mark.parametrize("kwargs, message", [
    (dict(n_channels=1), "n_channels"),
    (dict(n_channels=0), "n_channels"),
    (dict(taps_per_branch=0), "taps_per_branch"),
    (dict(taps=[0.1] * 33, taps_per_branch=2), "taps"),
    (dict(taps=[0.0] * 8), "taps"),
    (dict(n_receivers=0), "n_receivers"),
    (dict(oversample=3), "oversample"),
    (dict(n_channels=15, oversample=2), "oversample"),
    (dict(sample_rate=0.0), "sample_rate"),
    (dict(sample_rate=-5.0), "sample_rate"),
    (dict(center_freq=float("nan")), "center_freq"),
    (dict(device="gpu-please"), "device"),
])
def test_bad_parameters_raise_naming_the_parameter(kwargs, message):
    args = dict(n_channels=16, taps=[], taps_per_branch=16, input_format=beamform.sc16,
                n_receivers=4, oversample=1, fft_shift=False, center_freq=0.0,
                sample_rate=1.0, device="cpu")
    args.update(kwargs)
    with pytest.raises(ValueError, match=message):
        beamform.pfb_channelizer(**args)


# ---------------------------------------------------------------- GRC

def test_grc_block_compiles_and_runs(tmp_path):
    """The YAML through grcc: a DC tone on 3 receivers lands in channel 0 (FFT
    shift off) / channel N/2 (on)."""
    import os
    import shutil
    import subprocess
    import sys

    if shutil.which("grcc") is None:
        pytest.skip("grcc not installed")
    grc_dir = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "grc")
    n, n_rx, n_items = 8, 3, 8 * 40

    def block(name, block_id, y, **params):
        lines = [f"- name: {name}", f"  id: {block_id}", "  parameters:"]
        lines += [f"    {k}: '{v}'" for k, v in params.items()]
        lines += ["  states:", f"    coordinate: [0, {y}]", "    rotation: 0",
                  "    state: enabled"]
        return "\n".join(lines)

    blocks_yaml = [
        block("samp_rate", "variable", 0, value="1e6"),
        block("src", "blocks_vector_source_x", 100, type="complex",
              vector=f"[1 + 0j] * {n_rx}", repeat="True", vlen=n_rx, tags="[]"),
        block("head", "blocks_head", 200, type="complex", num_items=n_items, vlen=n_rx),
    ]
    connections = [("src", "head")]
    for shift in (False, True):
        name = f"pfb_{int(shift)}"
        blocks_yaml.append(block(name, "beamform_pfb_channelizer", 300, n_channels=n,
                                 taps="[]", taps_per_branch=16, input_format="fc32",
                                 n_receivers=n_rx, oversample=1, fft_shift=shift,
                                 center_freq="100e6", sample_rate="samp_rate",
                                 device="cpu"))
        blocks_yaml.append(block(f"sink_{int(shift)}", "blocks_file_sink", 400,
                                 type="complex", vlen=n * n_rx,
                                 file=str(tmp_path / f"{name}.bin"), append="False",
                                 unbuffered="False"))
        connections += [("head", name), (name, f"sink_{int(shift)}")]
    text = "\n".join([
        "options:", "  parameters:", "    id: pfb_grc_test", "    generate_options: no_gui",
        "    output_language: python", "    run: 'True'", "    run_options: run",
        "    title: pfb grc test", "  states:", "    coordinate: [0, 0]", "    rotation: 0",
        "    state: enabled", "", "blocks:", *blocks_yaml, "", "connections:",
        *[f"- [{a}, '0', {b}, '0']" for a, b in connections], "", "metadata:",
        "  file_format: 1", ""])
    grc_file = tmp_path / "pfb_grc_test.grc"
    grc_file.write_text(text)
    env = dict(os.environ, GRC_BLOCKS_PATH=os.path.abspath(grc_dir))
    compiled = subprocess.run(["grcc", "-o", str(tmp_path), str(grc_file)], env=env,
                              capture_output=True, text=True)
    assert compiled.returncode == 0, compiled.stdout + compiled.stderr
    ran = subprocess.run([sys.executable, str(tmp_path / "pfb_grc_test.py")], env=env,
                         capture_output=True, text=True, timeout=120)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    for shift, dc_channel in ((0, 0), (1, n // 2)):
        out = np.fromfile(tmp_path / f"pfb_{shift}.bin", np.complex64).reshape(-1, n, n_rx)
        assert out.shape[0] == n_items // n
        steady = np.abs(out[20:]).mean(axis=0)
        assert np.all(steady.argmax(axis=0) == dc_channel)
        np.testing.assert_allclose(steady[dc_channel], 1.0, atol=1e-3)
