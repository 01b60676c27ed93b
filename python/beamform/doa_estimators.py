# Copyright 2026 gr-beamform authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""Direction-of-arrival spectra from the spatial covariance of an array:
the beam scan (Bartlett), Capon (MVDR) and MUSIC, on a grid of directions.

    R = spatial_covariance(x)                  # x [snapshots][receivers], calibrated
    A = response_vectors(positions, f, grid)   # [directions][receivers]
    p = capon_spectrum(R, A)                   # or scan_spectrum, music_spectrum(R, A, k)
    peaks = spectrum_peaks(p.reshape(n_el, n_az), azimuths, elevations, k)

The response a(s) is the conjugate of the beam scan's steering weights
(steering_helpers.weights_for): the tensor_beamformer's beam power
|sum_a w_a x_a|^2 averaged over the snapshots is a^H R a, so all three
methods see the same steering vectors.

Covariance R = X^H X / N for X [N snapshots][M receivers] is the heavy part:
N M^2 complex multiply-adds (8 receivers, 16384 snapshots: 1.0 M, about 8 M
real flops), against M^3 for the eigen-decomposition or inverse (512) and
G M^2 for a grid of G directions (181 x 64 = 12 k). numpy does that on the CPU
in well under a millisecond, so these estimators need no GPU for SDR arrays of
a few elements (docs/direction_finding.md).
"""
import numpy as np

from .steering_helpers import weights_for

# Capon's default diagonal loading: this fraction of the mean receiver power
# (trace(R) / M) is added to R's diagonal before inverting it.
DEFAULT_LOADING = 1e-3


def spatial_covariance(snapshots):
    """R = X^H X / N, i.e. R[a, b] = mean_t x_a(t) conj(x_b(t)), for snapshots
    X [time][receivers]."""
    x = np.asarray(snapshots)
    if x.ndim != 2 or x.shape[0] < 1:
        raise ValueError(f"snapshots must be [time][receivers] with at least one time step, "
                         f"got shape {x.shape}")
    x = x.astype(np.complex128)
    return x.T @ x.conj() / x.shape[0]


def response_vectors(positions, frequency, az_el):
    """Array response a(s) [directions][receivers] for az_el (n, 2) degrees:
    the conjugate of the beam scan's weights, so a^H x is the beam output."""
    return np.conj(weights_for(positions, [frequency], az_el=az_el)[0]).astype(np.complex128)


def scan_spectrum(covariance, responses):
    """Beam-scan (Bartlett) power a^H R a / M^2 per direction: the beamformer's
    mean output power, divided by M^2."""
    m = covariance.shape[0]
    return np.real(np.einsum("ga,ab,gb->g", responses.conj(), covariance, responses)) / m ** 2


def capon_spectrum(covariance, responses, loading=DEFAULT_LOADING):
    """Capon (MVDR) power 1 / (a^H (R + delta I)^-1 a), delta = loading x
    trace(R) / M (Capon, 1969, Proc. IEEE 57(8), eq. 9; the loading keeps the
    inverse stable when R is nearly singular: few snapshots, strong sources)."""
    if not loading >= 0:
        raise ValueError(f"loading must be a number >= 0, got {loading}")
    m = covariance.shape[0]
    delta = loading * np.real(np.trace(covariance)) / m
    inverse = np.linalg.inv(covariance + delta * np.eye(m))
    denominator = np.real(np.einsum("ga,ab,gb->g", responses.conj(), inverse, responses))
    return 1.0 / np.maximum(denominator, 1e-300)


def noise_subspace(covariance, n_sources):
    """The M - K eigenvectors of R with the smallest eigenvalues [M][M - K]
    (numpy.linalg.eigh returns them in ascending order)."""
    m = covariance.shape[0]
    if not 1 <= n_sources < m:
        raise ValueError(f"n_sources must be an integer from 1 to {m - 1} (receivers - 1), "
                         f"got {n_sources}")
    _, vectors = np.linalg.eigh(covariance)
    return vectors[:, :m - n_sources]


def music_spectrum(covariance, responses, n_sources):
    """MUSIC pseudo-spectrum 1 / (a^H En En^H a) with a normalised to a^H a = 1
    and En the noise subspace for n_sources sources (Schmidt, 1986, IEEE Trans.
    Antennas Propag. 34(3), eq. 6)."""
    en = noise_subspace(covariance, n_sources)
    a = responses / np.linalg.norm(responses, axis=1, keepdims=True)
    projection = np.sum(np.abs(a.conj() @ en) ** 2, axis=1)
    return 1.0 / np.maximum(projection, 1e-300)


def spectrum(method, covariance, responses, n_sources=None, loading=DEFAULT_LOADING):
    """The spectrum of `method` ("scan", "capon" or "music"; MUSIC needs n_sources)."""
    if method == "scan":
        return scan_spectrum(covariance, responses)
    if method == "capon":
        return capon_spectrum(covariance, responses, loading)
    if method == "music":
        if n_sources is None:
            raise ValueError("n_sources: MUSIC needs the number of sources")
        return music_spectrum(covariance, responses, n_sources)
    raise ValueError(f"method must be one of scan, capon, music, got {method!r}")


def parabola_offset(p_minus, p0, p_plus):
    """Vertex of the parabola through (-1, p_minus), (0, p0), (1, p_plus), in
    grid steps (|offset| <= 0.5 at a local maximum)."""
    denominator = p_minus - 2 * p0 + p_plus
    if denominator >= 0:
        return 0.0
    return float(np.clip(0.5 * (p_minus - p_plus) / denominator, -0.5, 0.5))


def _full_circle(azimuths):
    step = azimuths[1] - azimuths[0] if len(azimuths) > 1 else 0.0
    return len(azimuths) > 2 and abs(len(azimuths) * step - 360.0) < 1e-6


def refine_peak(p_db, azimuths, elevations, e, a):
    """(azimuth, elevation) of grid cell (e, a) of p_db [elevations][azimuths],
    refined along each axis by the vertex of the parabola through the cell and
    its two neighbours (in dB: exact for a Gaussian lobe). Azimuth wraps on a
    full-circle grid; at a grid edge that axis is not refined."""
    full_circle = _full_circle(azimuths)
    az = float(azimuths[a])
    if full_circle or 0 < a < len(azimuths) - 1:
        row = p_db[e]
        az += (azimuths[1] - azimuths[0]) * parabola_offset(row[a - 1], row[a],
                                                            row[(a + 1) % len(azimuths)])
        if full_circle:
            az %= 360.0
    el = float(elevations[e])
    if 0 < e < len(elevations) - 1:
        column = p_db[:, a]
        el += (elevations[1] - elevations[0]) * parabola_offset(column[e - 1], column[e],
                                                                column[e + 1])
    return az, el


def spectrum_peaks(powers, azimuths, elevations, count=1):
    """The `count` strongest local maxima of powers [elevations][azimuths] (a
    cell not below any of its up to 8 neighbours; azimuth wraps on a full
    circle), strongest first, each (azimuth, elevation, power in dB relative
    to the strongest), refined by refine_peak. Fewer when the spectrum has
    fewer local maxima."""
    p_db = 10 * np.log10(np.maximum(np.asarray(powers, float).reshape(len(elevations),
                                                                      len(azimuths)), 1e-30))
    n_el, n_az = p_db.shape
    wrap = _full_circle(azimuths)
    padded = np.pad(p_db, ((1, 1), (0, 0)), constant_values=-np.inf)
    padded = np.pad(padded, ((0, 0), (1, 1)), mode="wrap") if wrap else \
        np.pad(padded, ((0, 0), (1, 1)), constant_values=-np.inf)
    is_peak = np.ones_like(p_db, bool)
    for de in (-1, 0, 1):
        for da in (-1, 0, 1):
            if de or da:
                is_peak &= p_db >= padded[1 + de:1 + de + n_el, 1 + da:1 + da + n_az]
    cells = np.argwhere(is_peak)
    order = np.argsort(-p_db[is_peak], kind="stable")
    peaks, top = [], p_db.max()
    for e, a in cells[order][:count]:
        az, el = refine_peak(p_db, azimuths, elevations, int(e), int(a))
        peaks.append((az, el, float(p_db[e, a] - top)))
    return peaks


def refine_on_fine_grid(spectrum_at, az, el, az_step, el_step=None, points=41):
    """The maximum of spectrum_at(az_el (n, 2)) -> powers on a grid of
    points x points (points along azimuth only when el_step is None) spanning
    one step either side of (az, el): MUSIC's and Capon's peaks are much
    narrower than a beam, so the parabola of refine_peak misplaces them on a
    coarse grid."""
    offsets = np.linspace(-1.0, 1.0, points)
    azimuths = az + az_step * offsets
    elevations = [el] if el_step is None else np.clip(el + el_step * offsets, -90.0, 90.0)
    grid = np.stack(np.meshgrid(azimuths, elevations), axis=-1).reshape(-1, 2)
    best = int(np.argmax(spectrum_at(grid)))
    return float(grid[best, 0]), float(grid[best, 1])
