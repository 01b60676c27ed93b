# Copyright 2026 gr-beamform authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""Physics: plane waves from known directions through a flowgraph of
tensor_beamformer with steering weights (source -> beamformer -> sink).

- A 2-D array sees a source plus noise; a grid of beams in power mode: the
  beam pointing at the source has the largest power in every channel.
- Noise-free, the beam at the source has a coherent voltage gain of
  n_receivers over one receiver (within 1%), and power gain n_receivers^2.
- A uniform linear array scanned over direction cosines reproduces the
  analytic array factor |sum_n exp(i k d n (sin th - sin th0))|^2.
"""
import numpy as np
import pytest
from gnuradio import beamform, blocks, gr
from gnuradio.beamform import arrays
from gnuradio.beamform import steering_helpers as sh

from conftest import HOST_DEVICES, byte_source, gpu_devices

O = beamform.beam_output
ALL_DEVICES = HOST_DEVICES + gpu_devices()


def beamform_flowgraph(spectra, weights, device, output, n_int=1):
    """spectra (T, C, R) complex64, weights (C, B, R) -> output items."""
    n_c, n_b, n_r = weights.shape
    bf = beamform.tensor_beamformer(n_c, n_r, n_b, weights.ravel(),
                                    beamform.beam_precision.float16, output, n_int,
                                    beamform.polarization_layout.single,
                                    beamform.stokes_mode.I, device)
    tb = gr.top_block()
    snk = (blocks.vector_sink_c(n_c * n_b) if output == O.voltage
           else blocks.vector_sink_f(n_b * n_c))
    tb.connect(byte_source(spectra, bf.input_item_bytes()), bf, snk)
    tb.run()
    data = np.array(snk.data())
    if output == O.voltage:
        return data.reshape(-1, n_c, n_b)
    return data.reshape(-1, n_b, n_c)


def grid_array(n_side, spacing):
    e, n = np.meshgrid(np.arange(n_side) * spacing, np.arange(n_side) * spacing)
    return np.stack([e.ravel(), n.ravel(), np.zeros(n_side * n_side)], axis=1)


SOURCE = (135.0, 45.0)
BEAMS = sh.az_el_grid(np.arange(0, 360, 15), np.arange(15, 90, 15))  # 120 beams
SOURCE_BEAM = int(np.flatnonzero((BEAMS[:, 0] == SOURCE[0]) & (BEAMS[:, 1] == SOURCE[1]))[0])
FREQS = sh.channel_frequencies(150e6, 3, channel_spacing=1e6)  # 150, 151, 149 MHz


@pytest.mark.parametrize("device", ALL_DEVICES)
def test_beam_at_the_source_has_the_most_power_with_noise(rng, device):
    positions = grid_array(6, 1.0)  # 36 receivers, lambda / 2 at 150 MHz
    n_t, n_int = 64, 16
    signal = (rng.standard_normal((n_t, 3)) + 1j * rng.standard_normal((n_t, 3))) / np.sqrt(2)
    noise = (rng.standard_normal((n_t, 3, 36)) + 1j * rng.standard_normal((n_t, 3, 36)))
    # 0 dB per receiver: noise power 1 per receiver, like the signal's.
    spectra = (sh.plane_wave(positions, FREQS, SOURCE, signal)
               + noise / np.sqrt(2)).astype(np.complex64)
    weights = sh.weights_for(positions, FREQS, az_el=BEAMS)
    power = beamform_flowgraph(spectra, weights, device, O.power, n_int)
    assert power.shape == (n_t // n_int, len(BEAMS), 3)
    assert np.all(power.argmax(axis=1) == SOURCE_BEAM)
    # The source beam stands out: coherent signal power ~ 36^2 per step
    # against 36 of incoherent noise.
    others = np.delete(power, SOURCE_BEAM, axis=1)
    assert np.all(power[:, SOURCE_BEAM, :] > 1.1 * others.max(axis=1))


@pytest.mark.parametrize("device", ALL_DEVICES)
def test_coherent_gain_is_n_receivers_without_noise(rng, device):
    positions = grid_array(6, 1.0)
    n_r, n_t = 36, 32
    signal = (rng.standard_normal((n_t, 3)) + 1j * rng.standard_normal((n_t, 3)))
    spectra = sh.plane_wave(positions, FREQS, SOURCE, signal)
    weights = sh.weights_for(positions, FREQS, az_el=BEAMS)
    volts = beamform_flowgraph(spectra, weights, device, O.voltage)
    # Voltage gain over one receiver (receiver 0 is the phase reference).
    gain = np.abs(volts[:, :, SOURCE_BEAM]) / np.abs(spectra[:, :, 0])
    print(f"{device}: coherent gain / n_receivers in [{gain.min() / n_r:.5f}, "
          f"{gain.max() / n_r:.5f}]")
    np.testing.assert_allclose(gain, n_r, rtol=0.01)
    # The beam keeps the phase of the wave at the reference receiver.
    np.testing.assert_allclose(np.angle(volts[:, :, SOURCE_BEAM] / spectra[:, :, 0]), 0,
                               atol=0.01)
    # Power mode: n_receivers^2 over one receiver's power.
    n_int = 8
    power = beamform_flowgraph(spectra, weights, device, O.power, n_int)
    one_rx = (np.abs(spectra[:, :, 0]) ** 2).reshape(-1, n_int, 3).sum(axis=1)
    np.testing.assert_allclose(power[:, SOURCE_BEAM, :] / one_rx, n_r ** 2, rtol=0.02)


@pytest.mark.parametrize("device", ALL_DEVICES)
def test_uniform_linear_array_matches_the_analytic_array_factor(device):
    n_el, spacing = 16, 1.0
    positions = arrays.ula(n_el, spacing)  # west to east; receiver 0 is the reference
    freqs = np.array([100e6, 150e6, 200e6])  # d = 0.33, 0.5, 0.67 wavelengths
    sin_th0 = 0.3  # the source, in the east-up plane: l = sin(theta from zenith)
    sin_th = np.linspace(-0.99, 0.99, 199)  # scanned beams, (l, m = 0)
    n_int = 4
    spectra = sh.plane_wave(positions, freqs, (90.0, np.degrees(np.arccos(sin_th0))),
                            np.ones((n_int, 3)))
    weights = sh.weights_for(positions, freqs, lm=np.stack([sin_th, 0 * sin_th], axis=1))
    power = beamform_flowgraph(spectra, weights, device, O.power, n_int)[0] / n_int  # (B, C)
    n = np.arange(n_el)
    for c, f in enumerate(freqs):
        k = 2 * np.pi * f / beamform.speed_of_light
        af = np.abs(np.exp(1j * k * spacing * n[None, :]
                           * (sin_th[:, None] - sin_th0)).sum(axis=1)) ** 2
        err = np.abs(power[:, c] - af).max() / n_el ** 2
        print(f"{device}: {f / 1e6:.0f} MHz, max |pattern - array factor| / peak = {err:.2e}")
        assert err < 2e-3
        assert abs(sin_th[power[:, c].argmax()] - sin_th0) < 0.006
