# Copyright 2026 gr-beamform authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""Station front end end to end: plane waves delayed per receiver (array_source),
channelized (pfb_channelizer), corrected by phase_shift pointed at the source:
every receiver ends up in phase in every channel that holds a tone."""
import numpy as np
import pytest
from gnuradio import beamform, blocks, gr

from conftest import HOST_DEVICES, gpu_devices

if not hasattr(beamform, "pfb_channelizer"):
    pytest.skip("this build of beamform has no pfb_channelizer block", allow_module_level=True)

N_CHANNELS = 16
FS = 1.6e6  # channel spacing 100 kHz
FC = 1.4204e9
AZ, EL = 148.0, 37.0
# Offsets in channel spacings from FC, at least two channels apart so that each
# tone channel sees the other tones only through the filter's stopband.
TONE_CHANNELS = [0, 2, 5, 7, -3, -6, -8]
N_RX = 8
TAPS_PER_BRANCH = 16


def prototype_taps():
    """Kaiser-windowed sinc (beta 10, about -100 dB sidelobes), cut off at half a
    channel spacing: tones two channels away leak < 1e-4, so the residual phase
    measures phase_shift, not the filter."""
    n = N_CHANNELS * TAPS_PER_BRANCH
    t = np.arange(n) - (n - 1) / 2
    taps = np.sinc(t / N_CHANNELS) * np.kaiser(n, 10.0)
    return list(taps / taps.sum())


def pfb_order_frequencies(center, fs, n):
    """GNU Radio pfb_channelizer_ccf order: 0 = DC, then positive, then negative."""
    spacing = fs / n
    return [center + (i if i < (n + 1) // 2 else i - n) * spacing for i in range(n)]


def channel_frequencies(pfb):
    for name in ("channel_frequencies", "sky_frequencies"):
        if hasattr(pfb, name):
            return list(getattr(pfb, name)())
    return pfb_order_frequencies(FC, FS, N_CHANNELS)


@pytest.mark.parametrize("device", HOST_DEVICES + gpu_devices())
@pytest.mark.parametrize("oversample", [1, 2])
@pytest.mark.parametrize("fmt", ["fc32", "sc16"])
def test_receivers_in_phase_after_correction(device, oversample, fmt):
    rng = np.random.default_rng(2024)
    positions = rng.uniform(-30, 30, (N_RX, 3))
    positions[:, 2] *= 0.05
    delays = beamform.geometric_delays(positions, AZ, EL)
    spacing = FS / N_CHANNELS
    # Delays well inside what a per-channel phase represents (0.25 / 100 kHz = 2.5 us),
    # and many carrier cycles at 1.42 GHz (so the correction matters).
    assert max(abs(d) for d in delays) < 0.1 * 0.25 / spacing
    assert max(abs(d) for d in delays) * FC > 10
    offsets = [k * spacing for k in TONE_CHANNELS]
    phases = list(rng.uniform(-np.pi, np.pi, len(offsets)))
    scale = 4000.0 if fmt == "sc16" else 1.0  # 7 unit tones stay below 32767
    n_items = 3000
    n_samples = n_items * N_CHANNELS // oversample
    item_bytes = N_RX * (8 if fmt == "fc32" else 4)

    def run(correction_delays):
        # One flowgraph per run: a GPU output read by both a host sink and a GPU
        # block is unsupported on GNU Radio 3.10.5 (docs/architecture.md), so the
        # uncorrected spectra come from a second run with zero delays.
        src = beamform.array_source(positions, FS, FC, [AZ] * len(offsets), [EL] * len(offsets),
                                    offsets, [1.0] * len(offsets), phases,
                                    output_format=getattr(beamform, fmt), scale=scale)
        head = blocks.head(item_bytes, n_samples)
        pfb = beamform.pfb_channelizer(n_channels=N_CHANNELS, taps=prototype_taps(),
                                       taps_per_branch=TAPS_PER_BRANCH,
                                       input_format=getattr(beamform, fmt), n_receivers=N_RX,
                                       oversample=oversample, fft_shift=False, center_freq=FC,
                                       sample_rate=FS, device=device)
        freqs = channel_frequencies(pfb)
        assert len(freqs) == N_CHANNELS
        shift = beamform.phase_shift(N_CHANNELS, N_RX, freqs, N_CHANNELS / (oversample * FS),
                                     list(correction_delays), [], [], 0.0, device)
        sink = blocks.vector_sink_c(N_CHANNELS * N_RX)
        tb = gr.top_block()
        tb.connect(src, head, pfb, shift, sink)
        tb.run()
        # Skip the filter's start-up transient.
        return freqs, np.array(sink.data()).reshape(-1, N_CHANNELS, N_RX)[2 * TAPS_PER_BRANCH:]

    freqs, out = run(delays)
    _, raw = run([0.0] * N_RX)
    assert out.shape[0] > 1000
    for k in TONE_CHANNELS:
        c = int(np.argmin(np.abs(np.array(freqs) - (FC + k * spacing))))
        cross = np.sum(out[:, c, :] * np.conj(out[:, c, :1]), axis=0)
        residual = np.abs(np.angle(cross)).max()
        before = np.abs(np.angle(np.sum(raw[:, c, :] * np.conj(raw[:, c, :1]), axis=0))).max()
        print(f"[{device} oversample {oversample} {fmt}] channel {c:2d}: residual {residual:.2e} rad "
              f"(uncorrected spread {before:.2f} rad)")
        assert residual < 1e-3, f"channel {c} ({k:+d} x spacing): residual {residual:.2e} rad"
        assert before > 0.1, "uncorrected receivers should not already be in phase"
