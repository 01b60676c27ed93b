# Copyright 2026 gr-beamform authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""Prototype filters for the pfb_channelizer block.

A polyphase channelizer with N channels and T taps per branch uses one
low-pass prototype of N*T taps whose passband is one channel wide. All
frequencies here are in channel widths (fs / N) from the channel centre:
0.5 is the channel edge, 1.0 the centre of the adjacent channel.

Two designs, like GNU Radio's firdes / optfir:

- ``windowed_sinc``: a sinc with its cutoff at the channel edge times a
  window (Kaiser by default). ``windowed_sinc(N)`` with the defaults is the
  filter the block designs itself when it gets no taps (the same formula in
  C++: default_pfb_taps).
- ``equiripple``: Parks-McClellan (scipy.signal.remez) with passband and
  stopband edges and the ripple / attenuation targets as weights.

Both are normalized to unit DC gain (sum of taps = 1): a tone at a channel
centre comes out of that channel with its input amplitude.

Default design (windowed_sinc, Kaiser beta 6, T = 16), measured with
``measure``: passband |f| <= 0.375 flat within 0.011 dB peak to peak,
-6.02 dB at the channel edge (adjacent channels cross there), and at least
61.9 dB rejection for |f| >= 0.625 channel widths. DEFAULT_RIPPLE_DB and
DEFAULT_REJECTION_DB are the values the tests hold the block to.
"""
import warnings

import numpy as np

#: Passband edge of the documented design values (channel widths).
DEFAULT_PASSBAND = 0.375
#: Stopband edge of the documented design values (channel widths).
DEFAULT_STOPBAND = 0.625
#: Kaiser beta of the default design.
DEFAULT_BETA = 6.0
#: Documented passband ripple (peak to peak, dB) of the default design, T = 16.
DEFAULT_RIPPLE_DB = 0.02
#: Documented adjacent-channel rejection (dB) of the default design, T = 16.
DEFAULT_REJECTION_DB = 60.0

# remez loses accuracy for very long filters; beyond this length the design is
# made for fewer channels and interpolated (see equiripple).
_REMEZ_MAX_TAPS = 4096


def _check_sizes(n_channels, taps_per_branch):
    if int(n_channels) != n_channels or not 2 <= n_channels <= 65536:
        raise ValueError(f"n_channels must be an integer in [2, 65536], got {n_channels}")
    if int(taps_per_branch) != taps_per_branch or not 1 <= taps_per_branch <= 1024:
        raise ValueError(
            f"taps_per_branch must be an integer in [1, 1024], got {taps_per_branch}")
    return int(n_channels), int(taps_per_branch)


def _window(name, length, beta):
    name = name.lower()
    if name == "kaiser":
        return np.kaiser(length, beta)
    if name in ("rectangular", "boxcar", "none"):
        return np.ones(length)
    from scipy.signal import get_window

    try:
        return get_window(name, length, fftbins=False)
    except ValueError as e:
        raise ValueError(f"window: unknown window {name!r} ({e})") from None


def windowed_sinc(n_channels, taps_per_branch=16, window="kaiser", beta=DEFAULT_BETA,
                  cutoff=0.5):
    """Windowed-sinc prototype of n_channels * taps_per_branch taps (float32).

    window: "kaiser" (with beta), or any scipy.signal.get_window name
            ("blackmanharris", "hamming", "hann", "rectangular", ...).
    cutoff: -6 dB point in channel widths from the channel centre (0.5 = the
            channel edge, the usual choice for a critically sampled bank).
    """
    n, t = _check_sizes(n_channels, taps_per_branch)
    if not 0.0 < cutoff <= n / 2:
        raise ValueError(f"cutoff must be in (0, n_channels/2] channel widths, got {cutoff}")
    if window.lower() == "kaiser" and not 0.0 <= beta <= 50.0:
        raise ValueError(f"beta must be in [0, 50], got {beta}")
    length = n * t
    x = (np.arange(length) - (length - 1) / 2.0) / n
    h = 2.0 * cutoff * np.sinc(2.0 * cutoff * x) * _window(window, length, beta)
    return (h / h.sum()).astype(np.float32)


def _ripple_to_delta(ripple_db):
    g = 10.0 ** (ripple_db / 20.0)
    return (g - 1.0) / (g + 1.0)


def equiripple(n_channels, taps_per_branch=16, passband=DEFAULT_PASSBAND,
               stopband=DEFAULT_STOPBAND, ripple_db=0.02, attenuation_db=60.0):
    """Parks-McClellan (equiripple) prototype of n_channels * taps_per_branch taps.

    passband, stopband: band edges in channel widths from the channel centre
    (passband < 0.5 < stopband for a channelizer). ripple_db (peak to peak) and
    attenuation_db weight the two bands, as in GNU Radio's optfir.low_pass; the
    length is fixed (N*T), so the result may be better or worse than asked: a
    warning names the values reached when they miss the request. For more
    than 4096 taps the design is made for fewer channels (same T and edges,
    where remez is still accurate) and interpolated to N*T taps.
    """
    n, t = _check_sizes(n_channels, taps_per_branch)
    if not 0.0 < passband < stopband:
        raise ValueError(f"passband must be in (0, stopband), got {passband}")
    if not stopband < n / 2:
        raise ValueError(f"stopband must be below n_channels/2 = {n / 2}, got {stopband}")
    if not ripple_db > 0.0:
        raise ValueError(f"ripple_db must be > 0, got {ripple_db}")
    if not attenuation_db > 0.0:
        raise ValueError(f"attenuation_db must be > 0, got {attenuation_db}")
    from scipy.signal import remez, resample_poly

    delta_pass = _ripple_to_delta(ripple_db)
    delta_stop = 10.0 ** (-attenuation_db / 20.0)
    weight = [1.0, delta_pass / delta_stop]

    design_channels = n
    while design_channels * t > _REMEZ_MAX_TAPS and design_channels % 2 == 0 \
            and design_channels // 2 > 2 * stopband:
        design_channels //= 2
    h = remez(design_channels * t, [0.0, passband, stopband, design_channels / 2.0],
              [1.0, 0.0], weight=weight, fs=design_channels, maxiter=100)
    if design_channels != n:
        h = resample_poly(h, n // design_channels, 1, window=("kaiser", 10.0))[: n * t]
    h = h / h.sum()

    ripple, rejection = measure(h, n, passband, stopband)
    if ripple > ripple_db * 1.01 or rejection < attenuation_db * 0.99:
        warnings.warn(
            f"equiripple: {n}x{t} taps reach {ripple:.4f} dB ripple and "
            f"{rejection:.1f} dB rejection (asked {ripple_db} dB, {attenuation_db} dB); "
            f"raise taps_per_branch or widen the transition band")
    return h.astype(np.float32)


def response(taps, n_channels, n_points=1 << 18):
    """Frequency response of a prototype: (f in channel widths, |H| in dB re DC)."""
    h = np.asarray(taps, dtype=np.float64)
    n_fft = max(int(n_points), 16 * len(h))
    spectrum = np.abs(np.fft.fft(h, n_fft))
    f = np.fft.fftfreq(n_fft) * n_channels
    order = np.argsort(f)
    gain_db = 20.0 * np.log10(np.maximum(spectrum[order], 1e-30) / abs(h.sum()))
    return f[order], gain_db


def measure(taps, n_channels, passband=DEFAULT_PASSBAND, stopband=DEFAULT_STOPBAND):
    """(passband ripple peak to peak in dB, rejection in dB for |f| >= stopband)."""
    f, gain_db = response(taps, n_channels)
    in_pass = gain_db[np.abs(f) <= passband]
    in_stop = gain_db[np.abs(f) >= stopband]
    return float(in_pass.max() - in_pass.min()), float(-in_stop.max())


def channel_offsets(n_channels, fft_shift=False):
    """Channel centres in channel widths, in the block's output order."""
    offsets = np.fft.fftfreq(n_channels) * n_channels
    if fft_shift:
        offsets = np.fft.fftshift(offsets)
    return np.round(offsets).astype(int)
