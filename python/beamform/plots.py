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


def plot_dynamic_spectrum(source, png_path, stokes=0, title=None, db=None):
    """Draw power against time and frequency from a filterbank file.

    source: the path of a SIGPROC filterbank file, or (header, data) as
    returned by read_filterbank. stokes: which IF to draw (0..nifs-1; with
    nifs = 4 they are I, Q, U, V). The x axis is the time since tstart (s),
    the y axis the channel frequency (MHz, highest at the top), with a
    colorbar. db: colours in 10 log10(value) (dB), so that the noise floor
    shows next to a bright source; default True for power and Stokes I, False
    for Q, U and V (which can be negative). Returns png_path.
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
    if db is None:
        db = not (nifs == 4 and stokes > 0)
    if db:
        positive = image[image > 0]
        floor = positive.min() if positive.size else 1e-30
        image = 10 * np.log10(np.maximum(image, floor))

    figure = _new_figure((8, 5))
    axes = figure.add_subplot()
    picture = axes.imshow(image, origin="upper", aspect="auto", extent=extent,
                          interpolation="nearest", cmap="viridis")
    axes.set_xlabel("time since tstart (s)")
    axes.set_ylabel("frequency (MHz)")
    name = _STOKES_NAMES[stokes] if nifs == 4 else "power"
    label = f"Stokes {name}" if nifs == 4 else "power"
    figure.colorbar(picture, ax=axes,
                    label=f"{label} (dB, arbitrary reference)" if db else
                    f"{label} (arbitrary units)")
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


def _unwrap_azimuths(az):
    """Azimuths shifted by -360 where that makes them contiguous: beams around
    north (e.g. 350 .. 10 deg) are drawn from -10 to 10, not split across the
    plot. The cut goes in the widest gap between the beams' azimuths."""
    values = np.unique(np.mod(az, 360.0))
    if values.size < 2:
        return np.mod(az, 360.0)
    gaps = np.diff(np.concatenate([values, [values[0] + 360.0]]))
    if gaps[-1] >= gaps.max():  # the widest gap is already at north: nothing to move
        return np.mod(az, 360.0)
    start = values[(int(np.argmax(gaps)) + 1) % values.size]  # first azimuth after the gap
    wrapped = np.mod(az - start, 360.0) + start
    return wrapped - 360.0 if start >= 180.0 else wrapped


def plot_beam_map(powers, beam_az_el, png_path, title=None, projection="azel"):
    """Draw the power of each beam at its direction.

    powers: [n_beams] values (e.g. a channel or time average of a beamformer's
    power output). beam_az_el: the beams' (azimuth, elevation) in degrees, as
    2 * n_beams values or an [n_beams][2] array (the filterbank_sink's
    beam_az_el). projection "azel": axes azimuth and elevation in degrees,
    azimuths unwrapped around north (beams at 350 and 10 deg are drawn
    side by side, at -10 and 10); "lm": the direction cosines east
    l = cos(el) sin(az) and north m = cos(el) cos(az), the sky as seen from
    above (zenith at 0, 0), where a station's beam grid is regular. Beams on a
    regular grid of the axes are drawn as an image, others as coloured points;
    the brightest beam is marked. Returns png_path.
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
    if projection == "azel":
        x, y = _unwrap_azimuths(az), el
        x_label, y_label = "azimuth (deg)", "elevation (deg)"
    elif projection == "lm":
        x = np.cos(np.radians(el)) * np.sin(np.radians(az))
        y = np.cos(np.radians(el)) * np.cos(np.radians(az))
        # Rounded so that a grid computed in (l, m) is recognised as one.
        x, y = np.round(x, 9), np.round(y, 9)
        x_label, y_label = "l (direction cosine east)", "m (direction cosine north)"
    else:
        raise ValueError(f'projection must be "azel" or "lm", got {projection!r}')

    figure = _new_figure((7, 5))
    axes = figure.add_subplot()
    grid = _regular_grid(x, y)
    if grid is not None:
        x_values, y_values, index = grid
        picture = axes.pcolormesh(_cell_edges(x_values), _cell_edges(y_values),
                                  powers[index], cmap="viridis", shading="flat")
    else:
        picture = axes.scatter(x, y, c=powers, s=60, cmap="viridis", edgecolors="none")
    if projection == "lm":
        axes.set_aspect("equal")
    brightest = int(np.argmax(powers))
    axes.plot(x[brightest], y[brightest], marker="*", markersize=16,
              markerfacecolor="none", markeredgecolor="red", linestyle="none",
              label=f"brightest: beam {brightest} (az {az[brightest] % 360:.1f}, "
                    f"el {el[brightest]:.1f})")
    axes.legend(loc="upper right", fontsize=8)
    axes.set_xlabel(x_label)
    axes.set_ylabel(y_label)
    figure.colorbar(picture, ax=axes, label="power (arbitrary units)")
    axes.set_title(title if title is not None else f"beam map, {powers.size} beams",
                   fontsize=10)
    return _save(figure, png_path)
