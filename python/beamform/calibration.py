# Copyright 2026 gr-beamform authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""Per-receiver complex gain calibration from a source in a known direction.

Model (the convention of docs/architecture.md): receiver a sees a narrowband plane wave
from direction s as x_a(t) = h_a exp(+2 pi i f tau_a) s(t) + noise, with h_a the
receiver's unknown complex gain (cable, LO phase, amplifier). The calibration
gain is g_a = 1 / h_a, normalised so that the reference receiver has phase 0 and
the gains have unit mean amplitude; phase_shift (gains) or the beamformer's
weights apply it. The expected plane-wave phases exp(+2 pi i f tau_a) come from
arrays.plane_wave_phases, i.e. from the C++ geometric_delays.
"""
import json

import numpy as np

from .arrays import plane_wave_phases


# A receiver whose mean power is below this fraction of the median receiver's
# carries no signal (disconnected, dead): its gain would be 1/0.
DEAD_RECEIVER_POWER = 1e-6
# A receiver whose part in the array response (the covariance's principal
# eigenvector) is below this fraction of the largest shares no signal with the
# others (e.g. samples without a common source): its gain would be 1/0.
INCOHERENT_SHARE = 1e-6


def estimate_gains(samples, positions, azimuth_deg, elevation_deg, frequency, reference=0,
                   names=None):
    """Calibration gains from `samples` [time][receivers] (complex) of a source at
    (azimuth, elevation) at sky frequency `frequency` Hz.

    The array response is the principal eigenvector of the sample covariance,
    which averages the noise out; dividing out the expected plane-wave phases
    leaves the receivers' own gains.

    A receiver without signal (mean power below 1e-6 of the median receiver's),
    or whose signal has nothing in common with the others' (its part in the
    principal eigenvector below 1e-6 of the largest), is a ValueError naming it
    (names[k] if `names` is given, else its index): its gain would not be finite.
    """
    x = np.asarray(samples)
    if x.ndim != 2 or x.shape[1] != len(positions):
        raise ValueError(
            f"samples must be [time][receivers] with {len(positions)} receivers, got shape {x.shape}"
        )
    if x.shape[0] < x.shape[1]:
        raise ValueError(f"samples: need at least {x.shape[1]} time steps, got {x.shape[0]}")
    if names is not None and len(names) != x.shape[1]:
        raise ValueError(f"names must have one entry per receiver ({x.shape[1]}), got {len(names)}")
    label = (lambda k: f"receiver {names[k]!r} (index {k})") if names is not None else \
        (lambda k: f"receiver {k}")
    finite = np.isfinite(x).all(axis=0)
    if not finite.all():
        raise ValueError(f"samples of {label(int(np.argmin(finite)))} are not all finite")
    # The gains do not depend on the samples' scale: divided by their largest
    # real or imaginary part, |x|^2 and the covariance stay finite for any
    # finite samples (1e308 overflowed them into NaN).
    scale = float(max(np.max(np.abs(x.real)), np.max(np.abs(x.imag)))) if x.size else 0.0
    if scale > 0:
        x = x / scale
    power = np.mean(np.abs(x) ** 2, axis=0)
    floor = DEAD_RECEIVER_POWER * np.median(power)
    dead = [k for k in range(x.shape[1]) if not power[k] > floor]
    if dead:
        unit = np.float64(scale if scale > 0 else 1.0)
        with np.errstate(over="ignore"):  # the samples' own power may pass 1.8e308
            shown = np.array([power[dead[0]], np.median(power)]) * unit * unit
        raise ValueError(
            "no signal on " + ", ".join(label(k) for k in dead) +
            f" (mean power {shown[0]:.3g}, median of all receivers {shown[1]:.3g}); "
            "exclude it from the calibration or fix its input")
    covariance = x.T @ x.conj() / x.shape[0]
    _, vectors = np.linalg.eigh(covariance)
    response = vectors[:, -1]
    # A receiver with (almost) no part in the dominant response does not see
    # the source coherently with the others: its gain would be 1/0.
    share = np.abs(response) / np.max(np.abs(response))
    incoherent = [k for k in range(x.shape[1]) if not share[k] > INCOHERENT_SHARE]
    if incoherent:
        raise ValueError(
            "no signal in common with the other receivers on " +
            ", ".join(label(k) for k in incoherent) +
            f" (its share of the array response is {share[incoherent[0]]:.3g} of the largest); "
            "check that one source dominates the samples at this frequency")
    h = response / plane_wave_phases(positions, azimuth_deg, elevation_deg, frequency, reference)
    h = h / h[reference] * np.abs(h[reference])  # reference receiver: phase 0
    h = h / np.mean(np.abs(h))
    return (1.0 / h).astype(np.complex64)


def save_gains(path, gains, **metadata):
    """Write gains (and e.g. frequency, direction) as JSON."""
    g = np.asarray(gains)
    doc = dict(metadata, gains_re=g.real.tolist(), gains_im=g.imag.tolist())
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)


def load_gains(path):
    """Gains written by save_gains, as complex64, and the metadata."""
    with open(path) as f:
        doc = json.load(f)
    try:
        gains = np.array(doc.pop("gains_re")) + 1j * np.array(doc.pop("gains_im"))
    except KeyError as e:
        raise ValueError(f"{path}: not a gains file (missing {e})") from None
    return gains.astype(np.complex64), doc


def estimate_noise_gains(samples, reference=0):
    """Calibration gains from `samples` [time][receivers] of one common noise
    source fed to every receiver with equal cables (a noise diode through an
    N-way splitter), so that the true phases and amplitudes at the receiver
    inputs are equal and what differs is the receivers' own gain h_k.

    h_k / h_ref = <x_k conj(x_ref)> / S_ref: the cross-correlation with the
    reference receiver (independent receiver noise averages out of it), over
    the reference's power of the common source S_ref. With 3 or more receivers
    S_ref comes from the cross-correlations alone (common_signal_powers), so
    the receivers' noise powers may differ; with 2 it cannot be told from the
    noise, <|x_ref|^2> is used, and the other receiver's gain comes out
    high by a factor 1 + 1/SNR (phases are unaffected). The phase estimate's
    standard deviation is
    sqrt((1/SNR_ref + 1/SNR_k + 1/(SNR_ref SNR_k)) / (2 N)) radians for N
    samples, i.e. sqrt((1 + 1/(2 SNR)) / (N SNR)) ~ 1 / sqrt(N SNR) at equal
    SNR (docs/direction_finding.md derives it).

    Returns (gains, report): gains g_k = 1 / h_k normalised like
    estimate_gains (phase 0 on the reference, unit mean amplitude) as
    complex64; report a dict with the SNR estimated per receiver
    ("snr_db", needs 3 or more receivers, else None), the predicted phase
    standard deviation in degrees per receiver ("phase_std_deg") and the lag
    of each receiver's cross-correlation peak in samples ("lags"; non-zero:
    the receivers do not start sampling together, which a phase cannot fix).
    """
    x = np.asarray(samples)
    if x.ndim != 2 or x.shape[1] < 2:
        raise ValueError(f"samples must be [time][receivers] with at least 2 receivers, "
                         f"got shape {x.shape}")
    n, m = x.shape
    if n < m:
        raise ValueError(f"samples: need at least {m} time steps, got {n}")
    if not 0 <= reference < m:
        raise ValueError(f"reference must be a receiver index from 0 to {m - 1}, got {reference}")
    if not np.isfinite(x).all():
        raise ValueError(f"samples of receiver {int(np.argmin(np.isfinite(x).all(axis=0)))} "
                         "are not all finite")
    x = x.astype(np.complex128)
    power = np.mean(np.abs(x) ** 2, axis=0)
    dead = [k for k in range(m) if not power[k] > DEAD_RECEIVER_POWER * np.median(power)]
    if dead:
        raise ValueError("no signal on " + ", ".join(f"receiver {k}" for k in dead) +
                         f" (mean power {power[dead[0]]:.3g}, median {np.median(power):.3g})")
    covariance = x.T @ x.conj() / n
    signal = common_signal_powers(covariance)  # None for 2 receivers
    if signal is None:
        # 2 receivers: only the correlation coefficient rho = SNR / (1 + SNR)
        # is known (equal SNRs assumed); <|x_ref|^2> keeps the noise.
        rho = min(abs(covariance[0, 1]) / np.sqrt(power[0] * power[1]), 1 - 1e-12)
        snr = np.full(m, rho / (1 - rho))
        reference_signal, snr_db = power[reference], None
    else:
        snr = np.maximum(signal, 1e-30) / np.maximum(power - signal, 1e-30 * power)
        reference_signal, snr_db = signal[reference], (10 * np.log10(snr)).tolist()
    h = covariance[:, reference] / reference_signal
    h[reference] = 1.0  # its own ratio (<|x_ref|^2> would add the noise)
    gains = 1.0 / h
    gains = gains / gains[reference] * np.abs(gains[reference])
    gains = gains / np.mean(np.abs(gains))
    # var(phase_k) = (1/SNR_ref + 1/SNR_k + 1/(SNR_ref SNR_k)) / (2 N)
    phase_std = np.sqrt((1 / snr[reference] + 1 / snr + 1 / (snr[reference] * snr)) / (2 * n))
    phase_std[reference] = 0.0
    return gains.astype(np.complex64), dict(snr_db=snr_db,
                                            phase_std_deg=np.degrees(phase_std).tolist(),
                                            lags=correlation_lags(x, reference))


def common_signal_powers(covariance):
    """Per receiver, the power of the common source alone, from the
    off-diagonal covariance only (independent receiver noise is not in it):
    for a rank-one source R_jk = c_j conj(c_k), so |c_k|^2 = |R_kj| |R_kl| /
    |R_jl|, averaged over all pairs j < l other than k. None for fewer than 3
    receivers (no pair left)."""
    m = covariance.shape[0]
    if m < 3:
        return None
    r = np.abs(covariance)
    powers = np.empty(m)
    for k in range(m):
        others = [j for j in range(m) if j != k]
        estimates = [r[k, j] * r[k, l] / max(r[j, l], 1e-300)
                     for i, j in enumerate(others) for l in others[i + 1:]]
        powers[k] = np.mean(estimates)
    return powers


def correlation_lags(samples, reference=0, max_lag=64):
    """Per receiver, the lag in samples (within +-max_lag) of the peak of its
    cross-correlation with the reference: 0 for receivers that sample
    together."""
    x = np.asarray(samples)
    n = min(len(x), 1 << 16)
    size = 1 << int(np.ceil(np.log2(2 * n)))
    spectra = np.fft.fft(x[:n], size, axis=0)
    correlation = np.fft.ifft(spectra * spectra[:, [reference]].conj(), axis=0)
    lags = np.r_[0:max_lag + 1, -max_lag:0]
    window = np.abs(correlation[lags])
    return [int(lags[i]) for i in np.argmax(window, axis=0)]
