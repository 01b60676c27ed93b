# Copyright 2026 gr-beamform authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""Point-scatterer simulator for a row-column addressed (RCA) probe.

RF data for defocused emissions from virtual line sources behind the array,
with a Gaussian-modulated pulse at f0, received on the other side's elements.
The defaults follow Table I of Praesius et al., "Real-Time Full-Volume
Row-Column Imaging" (Vermon 128+128 RCA, 6 MHz, 200 um pitch, 31.25 MHz,
96 emissions from virtual sources at F# -1 behind 32 active elements,
894 samples).

Geometry and time reference are those of the rca_das block: the probe lies in
z = 0, element i of either side at (i - (n - 1) / 2) * pitch, rows distributed
along y and columns along x; t = 0 when the wave crosses z = 0 in front of the
virtual source, so a scatterer at (x, y, z) is seen by receiver i of emission j
(rows transmitting) after
    ToF = (sqrt((y - y_j)^2 + (z - z_j)^2) + z_j + sqrt((x - x_i)^2 + z^2)) / c.
Line elements are ideal (no directivity, no edge waves), and the emitted wave is
ideal within the whole half-space; scatterers are points.
"""
import numpy as np

TABLE_I = dict(
    n_elements=128,
    pitch=200e-6,
    center_frequency=6e6,
    sampling_frequency=31.25e6,
    speed_of_sound=1540.0,
    n_samples=894,
    n_emissions=96,
    active_elements=32,
    source_f_number=-1.0,
    fractional_bandwidth=0.5,
    t_start=6e-6,
)


def element_positions(n_elements, pitch):
    """Positions of the elements of one side along their axis [m]."""
    return (np.arange(n_elements) - 0.5 * (n_elements - 1)) * pitch


def virtual_sources(n_emissions=96, n_elements=128, pitch=200e-6, active_elements=32,
                    source_f_number=-1.0):
    """Evenly spaced virtual sources (positions, depths) for a sliding sub-aperture.

    The sub-aperture of `active_elements` elements slides across the array; its
    virtual source lies at F# `source_f_number` behind it (depth =
    source_f_number * active_elements * pitch, -6.4 mm for Table I).
    """
    half_span = 0.5 * (n_elements - active_elements) * pitch
    positions = np.linspace(-half_span, half_span, n_emissions)
    depths = np.full(n_emissions, source_f_number * active_elements * pitch)
    return positions, depths


def pulse_sigma(center_frequency, fractional_bandwidth):
    """Envelope sigma [s] of a Gaussian pulse whose -6 dB bandwidth is
    fractional_bandwidth * center_frequency."""
    return np.sqrt(2 * np.log(2)) / (np.pi * fractional_bandwidth * center_frequency)


def gaussian_pulse(t, center_frequency, fractional_bandwidth):
    """exp(-t^2 / (2 sigma^2)) cos(2 pi f0 t)."""
    sigma = pulse_sigma(center_frequency, fractional_bandwidth)
    return np.exp(-0.5 * (t / sigma) ** 2) * np.cos(2 * np.pi * center_frequency * t)


def matched_filter_taps(center_frequency=6e6, sampling_frequency=31.25e6,
                        fractional_bandwidth=0.5, n_taps=23):
    """Matched filter of the simulated pulse: the pulse itself (it is symmetric),
    n_taps samples around its centre, unit gain at f0. The same taps as the
    rca_das block's default (rca_gaussian_pulse_taps)."""
    t = (np.arange(n_taps) - 0.5 * (n_taps - 1)) / sampling_frequency
    taps = gaussian_pulse(t, center_frequency, fractional_bandwidth)
    gain = abs(np.sum(taps * np.exp(-2j * np.pi * center_frequency * np.arange(n_taps)
                                    / sampling_frequency)))
    return (taps / gain).astype(np.float32)


def time_of_flight(scatterer, source_positions, source_depths, n_elements, pitch,
                   speed_of_sound, transmit="rows"):
    """ToF [s] of one point scatterer, shape (n_emissions, n_elements)."""
    x, y, z = (float(v) for v in scatterer)
    lateral, elevation = (x, y) if transmit == "rows" else (y, x)
    src = np.asarray(source_positions, dtype=np.float64)[:, None]
    src_z = np.asarray(source_depths, dtype=np.float64)[:, None]
    rx = element_positions(n_elements, pitch)[None, :]
    transmit_path = np.sqrt((elevation - src) ** 2 + (z - src_z) ** 2) + src_z
    receive_path = np.sqrt((lateral - rx) ** 2 + z ** 2)
    return (transmit_path + receive_path) / speed_of_sound


def simulate_rf(scatterers, amplitudes=None, *, n_elements=128, pitch=200e-6,
                center_frequency=6e6, sampling_frequency=31.25e6, speed_of_sound=1540.0,
                n_samples=894, t_start=6e-6, source_positions=None, source_depths=None,
                transmit="rows", fractional_bandwidth=0.5, noise_std=0.0, rng=None,
                dtype=np.float32, int16_peak=8192.0):
    """RF data of point scatterers, shape (n_emissions, n_elements, n_samples).

    scatterers: (n, 3) positions [m]; amplitudes: n reflectivities (default 1).
    source_positions / source_depths: virtual sources along the transmitting
    side's axis (default: virtual_sources() for Table I). noise_std: white
    Gaussian noise added to the RF, relative to a unit echo. dtype float32, or
    int16 (scaled so that the largest value is int16_peak, then rounded).
    """
    scatterers = np.atleast_2d(np.asarray(scatterers, dtype=np.float64))
    if scatterers.shape[1] != 3:
        raise ValueError("scatterers must have shape (n, 3), got %s" % (scatterers.shape,))
    if amplitudes is None:
        amplitudes = np.ones(len(scatterers))
    amplitudes = np.broadcast_to(np.asarray(amplitudes, dtype=np.float64), (len(scatterers),))
    if transmit not in ("rows", "columns"):
        raise ValueError('transmit must be "rows" or "columns", got %r' % (transmit,))
    if source_positions is None:
        source_positions, default_depths = virtual_sources(n_elements=n_elements, pitch=pitch)
        if source_depths is None:
            source_depths = default_depths
    source_positions = np.atleast_1d(np.asarray(source_positions, dtype=np.float64))
    source_depths = np.broadcast_to(np.asarray(source_depths, dtype=np.float64),
                                    source_positions.shape)
    n_tx = len(source_positions)

    rf = np.zeros((n_tx, n_elements, n_samples), dtype=np.float64)
    sigma = pulse_sigma(center_frequency, fractional_bandwidth)
    half_window = int(np.ceil(5 * sigma * sampling_frequency)) + 1
    offsets = np.arange(-half_window, half_window + 1)
    tx_index, rx_index = np.meshgrid(np.arange(n_tx), np.arange(n_elements), indexing="ij")
    for position, amplitude in zip(scatterers, amplitudes):
        tof = time_of_flight(position, source_positions, source_depths, n_elements, pitch,
                             speed_of_sound, transmit)
        centre = np.rint((tof - t_start) * sampling_frequency).astype(np.int64)
        sample = centre[..., None] + offsets  # (n_tx, n_rx, window)
        t = t_start + sample / sampling_frequency - tof[..., None]
        echo = amplitude * gaussian_pulse(t, center_frequency, fractional_bandwidth)
        inside = (sample >= 0) & (sample < n_samples)
        jj = np.broadcast_to(tx_index[..., None], sample.shape)[inside]
        ii = np.broadcast_to(rx_index[..., None], sample.shape)[inside]
        # Indices within one (emission, receiver) row are distinct: plain += is exact.
        rf[jj, ii, sample[inside]] += echo[inside]

    if noise_std > 0:
        rng = np.random.default_rng() if rng is None else rng
        rf += noise_std * rng.standard_normal(rf.shape)
    if np.dtype(dtype) == np.int16:
        peak = np.max(np.abs(rf))
        scale = int16_peak / peak if peak > 0 else 1.0
        return np.rint(rf * scale).astype(np.int16)
    return rf.astype(dtype)


def table_ii_grid():
    """The paper's I/Q output grid (Table II): 133 x 115 x 250 voxels over
    25.8 x 25.8 x 20 mm^3, from 5 mm depth. Returns rca_das keyword arguments."""
    x_step, y_step, z_step = 25.8e-3 / 133, 25.8e-3 / 115, 20e-3 / 250
    return dict(x_start=-0.5 * (133 - 1) * x_step, x_step=x_step, x_count=133,
                y_start=-0.5 * (115 - 1) * y_step, y_step=y_step, y_count=115,
                z_start=5e-3, z_step=z_step, z_count=250)


try:
    from gnuradio import gr

    class rca_emission_source(gr.sync_block):
        """Emits simulated RCA emissions, one emission [n_elements][n_samples] per item.

        rf: array (n_emissions, n_elements, n_samples) from simulate_rf(), int16
        or float32 (the output type follows it). The sequence is emitted in
        order, volume after volume: forever when repeat is True, else `volumes`
        times. noise_std > 0 adds fresh white noise to every emitted item
        (float32 data only), so that successive volumes differ.
        """

        def __init__(self, rf, repeat=True, volumes=1, noise_std=0.0, seed=None):
            rf = np.ascontiguousarray(rf)
            if rf.ndim != 3:
                raise ValueError("rf must have shape (n_emissions, n_elements, n_samples)")
            if rf.dtype not in (np.int16, np.float32):
                raise ValueError("rf must be int16 or float32, got %s" % rf.dtype)
            if noise_std > 0 and rf.dtype != np.float32:
                raise ValueError("noise_std needs float32 rf")
            self.rf = rf.reshape(rf.shape[0], -1)
            self.repeat = bool(repeat)
            self.total = None if repeat else int(volumes) * rf.shape[0]
            self.noise_std = float(noise_std)
            self.rng = np.random.default_rng(seed)
            self.index = 0
            gr.sync_block.__init__(self, name="rca_emission_source", in_sig=None,
                                   out_sig=[(rf.dtype.type, self.rf.shape[1])])

        def work(self, input_items, output_items):
            out = output_items[0]
            n = len(out)
            if self.total is not None:
                n = min(n, self.total - self.index)
                if n <= 0:
                    return -1  # WORK_DONE
            rows = (self.index + np.arange(n)) % self.rf.shape[0]
            out[:n] = self.rf[rows]
            if self.noise_std > 0:
                out[:n] += (self.noise_std * self.rng.standard_normal(out[:n].shape)).astype(
                    np.float32)
            self.index += n
            return n

except ImportError:  # numpy-only use of the simulator
    pass
