# Copyright 2026 gr-beamform authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""numpy-friendly helpers around the steering functions (steering.h).

Convention (docs/architecture.md): direction s = (cos el sin az, cos el cos az, sin el)
in east-north-up, tau_a = (r_a - r_ref) . s / c with r_ref = receiver 0 unless
a reference is given, w_a(f) = g_a exp(-2 pi i f tau_a); weights are
[channels][beams][receivers]. The delays come from the C++ geometry module
(array_geometry.h: gnuradio.beamform.geometric_delays and friends; the speed
of light is gnuradio.beamform.speed_of_light).

    from gnuradio.beamform import steering_helpers as sh
    w = sh.weights_for(positions, freqs, az_el=[(0, 90), (30, 60)])
    bf = sh.steered_beamformer(positions, freqs, az_el=[(0, 90)], device="cpu")

Array layouts (ULA, UCA, from a file) are in gnuradio.beamform.arrays.
"""
import numbers

import numpy as np

from . import beamform_python as _bf
from .arrays import as_positions, plane_wave_phases

_ORDERS = {"pfb": _bf.channel_order.pfb, "fft_shift": _bf.channel_order.fft_shift}


def _flat_pairs(pairs, name):
    """(n_beams, 2) or flat [a0, b0, a1, b1, ...] -> flat list."""
    p = np.asarray(pairs, dtype=np.float64)
    if p.ndim == 1 and p.size % 2 == 0:
        p = p.reshape(-1, 2)
    if p.ndim != 2 or p.shape[1] != 2 or p.shape[0] < 1:
        raise ValueError(f"{name} must have shape (n_beams, 2) or be a flat list of pairs")
    return p.ravel().tolist()


def _reference(reference):
    """None -> receiver 0; an integer -> that receiver; else an (east, north, up)
    phase centre."""
    if reference is None:
        return 0
    if isinstance(reference, numbers.Integral):
        return int(reference)
    ref = np.asarray(reference, dtype=np.float64).ravel()
    if ref.size != 3:
        raise ValueError("reference must be a receiver index or an (east, north, up) "
                         f"position in metres, got {reference!r}")
    return ref.tolist()


def channel_frequencies(center_freq, n_channels, channel_spacing=None, sample_rate=None,
                        order="pfb"):
    """Sky frequency (Hz) of every channel of a channelizer.

    Give channel_spacing, or the channelizer's input sample_rate (spacing =
    sample_rate / n_channels, as for pfb_channelizer_ccf). order "pfb": 0 = DC,
    then positive, then negative offsets; "fft_shift": ascending.
    """
    if (channel_spacing is None) == (sample_rate is None):
        raise ValueError("channel_spacing: give exactly one of channel_spacing, sample_rate")
    if channel_spacing is None:
        channel_spacing = float(sample_rate) / n_channels
    if order not in _ORDERS:
        raise ValueError(f"order must be one of {sorted(_ORDERS)}, got {order!r}")
    return np.array(_bf.channel_frequencies(float(center_freq), float(channel_spacing),
                                            int(n_channels), _ORDERS[order]))


def weights_for(positions, frequencies, az_el=None, lm=None, gains=None, conjugate=False,
                reference=None):
    """Steering weights, complex64 array of shape (channels, beams, receivers).

    positions (n_receivers, 3) ENU metres; frequencies (n_channels,) Hz;
    az_el (n_beams, 2) degrees or lm (n_beams, 2) direction cosines (all three
    also accepted flat, as GRC's vectors are); gains one complex gain per
    receiver (or one for all); conjugate flips the phase sign; reference the
    phase centre: a receiver index (default 0) or an (east, north, up) position.
    """
    pos = as_positions(positions)
    n_rx = len(pos)
    freqs = [float(f) for f in np.atleast_1d(np.asarray(frequencies, dtype=np.float64))]
    g = [] if gains is None else [complex(v) for v in np.atleast_1d(gains)]
    ref = _reference(reference)
    if (az_el is None) == (lm is None):
        raise ValueError("az_el: give exactly one of az_el, lm")
    if az_el is not None:
        pairs = _flat_pairs(az_el, "az_el")
        w = _bf.steering_weights(pos, pairs, freqs, g, bool(conjugate), ref)
    else:
        pairs = _flat_pairs(lm, "lm")
        w = _bf.steering_weights_lm(pos, pairs, freqs, g, bool(conjugate), ref)
    return np.array(w, dtype=np.complex64).reshape(len(freqs), len(pairs) // 2, n_rx)


def steered_beamformer(positions, frequencies, az_el=None, lm=None, gains=None,
                       conjugate=False, **block_args):
    """A tensor_beamformer pointed at az_el (or lm), with its geometry set so that
    the "pointing" message port and set_pointing_* work.

    block_args: precision, output, n_int, polarization, stokes, device.
    """
    w = weights_for(positions, frequencies, az_el=az_el, lm=lm, gains=gains,
                    conjugate=conjugate)
    n_ch, n_beams, n_rx = w.shape
    block = _bf.tensor_beamformer(n_ch, n_rx, n_beams, w.ravel(), **block_args)
    g = [] if gains is None else [complex(v) for v in np.atleast_1d(gains)]
    block.set_geometry(as_positions(positions),
                       [float(f) for f in np.atleast_1d(frequencies)], g, bool(conjugate))
    return block


def az_el_grid(azimuths, elevations):
    """All (az, el) combinations, shape (len(azimuths) * len(elevations), 2),
    azimuth varying fastest."""
    az, el = np.meshgrid(np.asarray(azimuths, float), np.asarray(elevations, float))
    return np.stack([az.ravel(), el.ravel()], axis=1)


def plane_wave(positions, frequencies, az_el, signal):
    """Spectra (T, channels, receivers) complex64 of a narrow-band plane wave from
    az_el (degrees): x[t, c, a] = signal[t, c] exp(+2 pi i f_c tau_a), the
    convention under which weights_for() adds it coherently.

    signal: (T, channels) complex amplitudes at the reference (receiver 0).
    """
    phase = plane_wave_phases(positions, az_el[0], az_el[1],
                              np.atleast_1d(np.asarray(frequencies, dtype=np.float64)))
    return (np.asarray(signal)[:, :, None] * phase[None]).astype(np.complex64)
