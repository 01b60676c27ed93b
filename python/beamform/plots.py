# Copyright 2026 gr-beamform authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""PNG figures of beamformer output: a dynamic spectrum and a beam map.

matplotlib is imported when a figure is drawn (not with gnuradio.beamform),
and only its Agg canvas is used, so this works headless and leaves pyplot's
backend alone.
"""
import os

import numpy as np

from .filterbank import filterbank_frequencies, read_filterbank

__all__ = ["plot_dynamic_spectrum", "plot_beam_map"]

_STOKES_NAMES = ("I", "Q", "U", "V")


def _new_figure(size):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=size, layout="constrained")
    FigureCanvasAgg(figure)
    return figure


def _save(figure, png_path):
    png_path = os.fspath(png_path)
    figure.savefig(png_path, dpi=100, format="png")
    return png_path


def plot_dynamic_spectrum(source, png_path, stokes=0, title=None):
    """Draw power against time and frequency from a filterbank file.

    source: the path of a SIGPROC filterbank file, or (header, data) as
    returned by read_filterbank. stokes: which IF to draw (0..nifs-1; with
    nifs = 4 they are I, Q, U, V). The x axis is the time since tstart (s),
    the y axis the channel frequency (MHz, highest at the top), with a
    colorbar. Returns png_path.
    """
    if isinstance(source, (str, bytes, os.PathLike)):
        header, data = read_filterbank(source)
    else:
        header, data = source
    data = np.asarray(data)
    if data.ndim != 3:
        raise ValueError(f"data must be [time][nifs][nchans], got shape {data.shape}")
    n_times, nifs, nchans = data.shape
    if not 0 <= stokes < nifs:
        raise ValueError(f"stokes must be in [0, {nifs - 1}] (nifs = {nifs}), got {stokes}")
    if n_times == 0:
        raise ValueError("the file holds no time samples to draw")

    freqs = filterbank_frequencies(dict(header, nchans=nchans))
    half_channel = abs(header["foff"]) / 2
    image = data[:, stokes, :].T.astype(np.float64)  # [channel][time]
    if header["foff"] > 0:  # lowest first: flip so the top row is the highest
        image = image[::-1]
    tsamp = header["tsamp"]
    extent = (0.0, n_times * tsamp, freqs.min() - half_channel, freqs.max() + half_channel)

    figure = _new_figure((8, 5))
    axes = figure.add_subplot()
    picture = axes.imshow(image, origin="upper", aspect="auto", extent=extent,
                          interpolation="nearest", cmap="viridis")
    axes.set_xlabel("time since tstart (s)")
    axes.set_ylabel("frequency (MHz)")
    name = _STOKES_NAMES[stokes] if nifs == 4 else "power"
    label = f"Stokes {name}" if nifs == 4 else "power"
    figure.colorbar(picture, ax=axes, label=f"{label} (arbitrary units)")
    if title is None:
        parts = [str(header.get("source_name", "")).strip() or "filterbank"]
        if "ibeam" in header:
            parts.append(f"beam {header['ibeam']}")
        if "az_start" in header and "za_start" in header:
            parts.append(f"az {header['az_start']:.1f} deg, el {90 - header['za_start']:.1f} deg")
        if "tstart" in header:
            parts.append(f"tstart MJD {header['tstart']:.6f}")
        title = ", ".join(parts)
    axes.set_title(title, fontsize=10)
    return _save(figure, png_path)


def _regular_grid(az, el):
    """(unique az, unique el, index grid) if the beams fill an az x el grid."""
    az_values = np.unique(az)
    el_values = np.unique(el)
    if az_values.size * el_values.size != az.size or az_values.size < 2 or el_values.size < 2:
        return None
    grid = -np.ones((el_values.size, az_values.size), dtype=int)
    grid[np.searchsorted(el_values, el), np.searchsorted(az_values, az)] = np.arange(az.size)
    if (grid < 0).any():
        return None
    return az_values, el_values, grid


def _cell_edges(centres):
    """Cell edges around sorted centres (half-way points, mirrored at the ends)."""
    mid = (centres[1:] + centres[:-1]) / 2
    return np.concatenate(([2 * centres[0] - mid[0]], mid, [2 * centres[-1] - mid[-1]]))


def plot_beam_map(powers, beam_az_el, png_path, title=None):
    """Draw the power of each beam at its direction.

    powers: [n_beams] values (e.g. a channel or time average of a beamformer's
    power output). beam_az_el: the beams' (azimuth, elevation) in degrees, as
    2 * n_beams values or an [n_beams][2] array (the filterbank_sink's
    beam_az_el). Beams on a regular azimuth x elevation grid are drawn as an
    image, others as coloured points; the brightest beam is marked. Axes are
    azimuth and elevation in degrees. Returns png_path.
    """
    powers = np.asarray(powers, dtype=np.float64).ravel()
    directions = np.asarray(beam_az_el, dtype=np.float64).reshape(-1)
    if powers.size == 0:
        raise ValueError("powers must hold one value per beam, got none")
    if directions.size != 2 * powers.size:
        raise ValueError(
            f"beam_az_el must hold 2 * n_beams = {2 * powers.size} values "
            f"(azimuth, elevation per beam), got {directions.size}"
        )
    if not np.isfinite(powers).all() or not np.isfinite(directions).all():
        raise ValueError("powers and beam_az_el must be finite")
    az, el = directions[0::2], directions[1::2]

    figure = _new_figure((7, 5))
    axes = figure.add_subplot()
    grid = _regular_grid(az, el)
    if grid is not None:
        az_values, el_values, index = grid
        picture = axes.pcolormesh(_cell_edges(az_values), _cell_edges(el_values),
                                  powers[index], cmap="viridis", shading="flat")
    else:
        picture = axes.scatter(az, el, c=powers, s=60, cmap="viridis", edgecolors="none")
    brightest = int(np.argmax(powers))
    axes.plot(az[brightest], el[brightest], marker="*", markersize=16,
              markerfacecolor="none", markeredgecolor="red", linestyle="none",
              label=f"brightest: beam {brightest} (az {az[brightest]:.1f}, "
                    f"el {el[brightest]:.1f})")
    axes.legend(loc="upper right", fontsize=8)
    axes.set_xlabel("azimuth (deg)")
    axes.set_ylabel("elevation (deg)")
    figure.colorbar(picture, ax=axes, label="power (arbitrary units)")
    axes.set_title(title if title is not None else f"beam map, {powers.size} beams",
                   fontsize=10)
    return _save(figure, png_path)
