# Copyright 2026 gr-beamform authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""Read and write SigMF recordings of an array: N phase-coherent channels in
one multi-channel dataset, with the element positions.

The format (SigMF specification v1.x, "core" namespace; the "spatial"
extension v1.1.0):

  * <name>.sigmf-meta, JSON: "global" (core:datatype, core:sample_rate,
    core:num_channels, core:version, core:hw, core:description, core:dataset
    for a data file of another name, core:extensions; spatial:num_elements,
    spatial:channel_index), "captures" (core:sample_start, core:frequency,
    core:datetime, spatial:aperture_azimuth, spatial:element_geometry) and
    "annotations";
  * <name>.sigmf-data: frames of one sample per channel, channel after channel
    (frame 0 channel 0, frame 0 channel 1, ..., frame 1 channel 0, ...), each
    sample I then Q. That is the module's raw-sample item [receivers], so the
    data file can feed an app's --input (or blocks.file_source) as it is.

Datatypes read and written: ci8 (raw item sc8), ci16_le (sc16), cf32_le (fc32).

Element positions. spatial:element_geometry holds one cartesian_point
({"point": [x, y, z]} metres, or {"unknown": true}) per element, in the
extension's aperture frame: ISO 80000-2 right-handed cartesian axes with the
boresight along +x. This module takes z as up, so that y points left of the
boresight, and the boresight horizontal at spatial:aperture_azimuth (degrees
east of north, 0 if absent): with azimuth A, x = (sin A, cos A, 0) and
y = (-cos A, sin A, 0) in the module's [east, north, up]. (The extension's
figure of its axes was not available to check that z is up; an aperture
tilted by an aperture_bearing elevation or aperture_rotation is refused, not
guessed.) Readers get positions in [east, north, up] metres, the convention
of array_geometry.h; unknown points are NaN rows.
"""
import calendar
import json
import logging
import math
import os
import re
import time
from dataclasses import dataclass, field

import numpy as np

from .stream_tags import split_seconds

__all__ = [
    "SIGMF_DATATYPES",
    "SigmfArrayRecording",
    "read_sigmf_array",
    "write_sigmf_array",
    "write_sigmf_meta",
    "enu_to_aperture",
    "aperture_to_enu",
]

# SigMF datatype -> (the module's raw sample format, numpy type of I or Q).
SIGMF_DATATYPES = {"ci8": ("sc8", "<i1"), "ci16_le": ("sc16", "<i2"), "cf32_le": ("fc32", "<f4")}
SIGMF_VERSION = "1.0.0"
SPATIAL_VERSION = "1.1.0"

_DATETIME = re.compile(r"(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(\.\d+)?Z")


def _log_warning(message):
    logging.getLogger("gnuradio.beamform.sigmf_array").warning(message)


def _aperture_axes(aperture_azimuth):
    a = math.radians(aperture_azimuth)
    return np.array([[math.sin(a), math.cos(a), 0.0],     # x: boresight
                     [-math.cos(a), math.sin(a), 0.0],    # y: left of it
                     [0.0, 0.0, 1.0]])                    # z: up


def enu_to_aperture(positions, aperture_azimuth=0.0):
    """[east, north, up] positions (n, 3) -> the spatial extension's aperture
    frame (x boresight at aperture_azimuth, y left, z up)."""
    return np.asarray(positions, float) @ _aperture_axes(aperture_azimuth).T


def aperture_to_enu(points, aperture_azimuth=0.0):
    """The inverse of enu_to_aperture."""
    return np.asarray(points, float) @ _aperture_axes(aperture_azimuth)


def format_datetime(whole, fraction):
    """core:datetime (ISO 8601 UTC, nanoseconds) of a Unix time (whole, fraction)."""
    whole, fraction = split_seconds(whole, fraction)
    nanoseconds = round(fraction * 1e9)
    if nanoseconds == 1_000_000_000:
        whole, nanoseconds = whole + 1, 0
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(whole)) + f".{nanoseconds:09d}Z"


def parse_datetime(text, where):
    """(whole, fraction) Unix time of a core:datetime string."""
    match = _DATETIME.fullmatch(str(text))
    if not match:
        raise ValueError(f"{where}: core:datetime = {text!r} is not ISO 8601 UTC "
                         "'YYYY-MM-DDTHH:MM:SS[.fraction]Z'")
    parts = [int(g) for g in match.groups()[:6]]
    whole = calendar.timegm(tuple(parts) + (0, 0, 0))
    return whole, float("0" + match.group(7)) if match.group(7) else 0.0


def _time_pair(start_time):
    if start_time is None:
        return None
    if isinstance(start_time, (tuple, list)):
        return split_seconds(*start_time)
    whole = math.floor(start_time)
    return split_seconds(whole, start_time - whole)


@dataclass
class SigmfArrayRecording:
    """A multi-channel SigMF recording, data memory-mapped.

    samples(start, stop): complex64 [time][receivers]; raw(): the file's own
    values [time][receivers][2] (I, Q) for blocks.file_source-like use;
    item_format: the module's raw sample format of the data (sc8/sc16/fc32);
    start_time: rx_time (whole s, fraction) of sample 0, or None without
    core:datetime; positions: (receivers, 3) [east, north, up] m or None.
    """
    meta_path: str
    data_path: str
    meta: dict
    datatype: str
    item_format: str
    n_receivers: int
    n_samples: int
    sample_rate: float
    center_freq: float
    start_time: object
    positions: object
    data_offset: int = 0
    captures: list = field(default_factory=list)
    annotations: list = field(default_factory=list)

    @property
    def item_bytes(self):
        """Bytes of one frame (one sample of every receiver)."""
        return self.n_receivers * 2 * np.dtype(SIGMF_DATATYPES[self.datatype][1]).itemsize

    def raw(self):
        dtype = np.dtype(SIGMF_DATATYPES[self.datatype][1])
        if self.n_samples == 0:
            return np.zeros((0, self.n_receivers, 2), dtype)
        return np.memmap(self.data_path, dtype=dtype, mode="r", offset=self.data_offset,
                         shape=(self.n_samples, self.n_receivers, 2))

    def samples(self, start=0, stop=None):
        part = self.raw()[start:stop]
        out = np.empty(part.shape, np.float32)
        out[...] = part
        return out.view(np.complex64)[..., 0]


def _meta_paths(path):
    path = os.fspath(path)
    for ext in (".sigmf-meta", ".sigmf-data"):
        if path.endswith(ext):
            return path[: -len(ext)] + ".sigmf-meta", path[: -len(ext)]
    return path + ".sigmf-meta", path


def _field(container, key, where, kind, required=True, default=None):
    if key not in container:
        if required:
            raise ValueError(f"{where} has no {key}")
        return default
    value = container[key]
    ok = {"int": isinstance(value, int) and not isinstance(value, bool),
          "number": isinstance(value, (int, float)) and not isinstance(value, bool)
          and math.isfinite(value),
          "str": isinstance(value, str)}[kind]
    if not ok:
        raise ValueError(f"{where}: {key} = {value!r} is not a{'n' if kind == 'int' else ''} "
                         f"{kind}")
    return value


def read_sigmf_array(path, log=None):
    """Read the metadata of a multi-channel SigMF recording and map its data.

    path: <name>, <name>.sigmf-meta or <name>.sigmf-data. Returns a
    SigmfArrayRecording. ValueError naming the field, the file and (for the
    data) the byte offset: invalid JSON, no core:datatype, an unsupported
    datatype, core:num_channels that disagrees with the element positions, a
    data file that is not a whole number of frames, a tilted aperture.
    """
    log = log or _log_warning
    meta_path, base = _meta_paths(path)
    with open(meta_path, "rb") as handle:
        text = handle.read()
    try:
        meta = json.loads(text.decode("utf-8"))
    except UnicodeDecodeError as e:
        raise ValueError(f"{meta_path}: not UTF-8 JSON at byte {e.start}") from None
    except json.JSONDecodeError as e:
        raise ValueError(f"{meta_path}: not JSON at byte {e.pos}: {e.msg}") from None
    if not isinstance(meta, dict) or not isinstance(meta.get("global"), dict):
        raise ValueError(f"{meta_path}: no 'global' object")
    g = meta["global"]
    where = f"{meta_path}: global"
    datatype = _field(g, "core:datatype", where, "str")
    if datatype not in SIGMF_DATATYPES:
        raise ValueError(f"{where}: core:datatype = {datatype!r} is not supported "
                         f"(accepted: {', '.join(SIGMF_DATATYPES)})")
    sample_rate = _field(g, "core:sample_rate", where, "number")
    if not sample_rate > 0:
        raise ValueError(f"{where}: core:sample_rate = {sample_rate} is not > 0")
    n_receivers = _field(g, "core:num_channels", where, "int", required=False, default=1)
    if n_receivers < 1:
        raise ValueError(f"{where}: core:num_channels = {n_receivers} is not >= 1")
    if "core:version" not in g:
        log(f"{where} has no core:version (required by SigMF); read as {SIGMF_VERSION}")
    dataset = _field(g, "core:dataset", where, "str", required=False)
    data_path = (os.path.join(os.path.dirname(meta_path), dataset) if dataset
                 else base + ".sigmf-data")
    captures = meta.get("captures") or [{"core:sample_start": 0}]
    if not isinstance(captures, list) or not all(isinstance(c, dict) for c in captures):
        raise ValueError(f"{meta_path}: captures is not a list of objects")
    for k, item in enumerate(captures):
        start = _field(item, "core:sample_start", f"{meta_path}: captures[{k}]", "int",
                       required=False, default=0)
        if start < 0 or (k and start <= captures[k - 1].get("core:sample_start", 0)):
            raise ValueError(f"{meta_path}: captures[{k}]: core:sample_start = {start} is "
                             "negative or not after the previous capture's")
    annotations = meta.get("annotations") or []
    if not isinstance(annotations, list) or not all(isinstance(a, dict) for a in annotations):
        raise ValueError(f"{meta_path}: annotations is not a list of objects")
    for k, item in enumerate(annotations):
        start = _field(item, "core:sample_start", f"{meta_path}: annotations[{k}]", "int")
        if start < 0:
            raise ValueError(f"{meta_path}: annotations[{k}]: core:sample_start = {start} < 0")
    first = captures[0]
    cwhere = f"{meta_path}: captures[0]"
    header_bytes = _field(first, "core:header_bytes", cwhere, "int", required=False, default=0)
    for k, c in enumerate(captures[1:], 1):
        if c.get("core:header_bytes"):
            raise ValueError(f"{meta_path}: captures[{k}]: core:header_bytes inside the data "
                             "is not supported (only before the first capture)")
    trailing = _field(g, "core:trailing_bytes", where, "int", required=False, default=0)
    if header_bytes < 0 or trailing < 0:
        raise ValueError(f"{meta_path}: core:header_bytes = {header_bytes}, core:trailing_bytes "
                         f"= {trailing}: must be >= 0")
    frame = n_receivers * 2 * np.dtype(SIGMF_DATATYPES[datatype][1]).itemsize
    size = os.path.getsize(data_path)
    body = size - header_bytes - trailing
    if body < 0 or body % frame:
        raise ValueError(
            f"{data_path}: {body} bytes of samples (from byte {header_bytes}) are not a whole "
            f"number of {frame}-byte frames (core:num_channels {n_receivers} x "
            f"{datatype}); the partial frame starts at byte "
            f"{header_bytes + max(body, 0) // frame * frame}")
    center_freq = _field(first, "core:frequency", cwhere, "number", required=False)
    if center_freq is None:
        log(f"{cwhere} has no core:frequency; rx_freq will be 0")
        center_freq = 0.0
    start_time = (parse_datetime(first["core:datetime"], cwhere)
                  if "core:datetime" in first else None)
    positions = _positions(g, first, n_receivers, cwhere, where)
    return SigmfArrayRecording(meta_path, data_path, meta, datatype,
                               SIGMF_DATATYPES[datatype][0], n_receivers, body // frame,
                               float(sample_rate), float(center_freq), start_time, positions,
                               header_bytes, captures, list(annotations))


def _positions(g, capture, n_receivers, cwhere, where):
    geometry = capture.get("spatial:element_geometry")
    if geometry is None:
        return None
    if not isinstance(geometry, list):
        raise ValueError(f"{cwhere}: spatial:element_geometry is not a list")
    n_elements = _field(g, "spatial:num_elements", where, "int", required=False,
                        default=len(geometry))
    index = _field(g, "spatial:channel_index", where, "int", required=False, default=0)
    if len(geometry) == n_elements and n_elements != n_receivers:
        geometry = geometry[index:index + n_receivers]  # the whole array: take ours
    if len(geometry) != n_receivers:
        raise ValueError(
            f"{cwhere}: spatial:element_geometry has {len(geometry)} points "
            f"(spatial:num_elements {n_elements}, spatial:channel_index {index}) but "
            f"core:num_channels is {n_receivers}: one position per channel is needed")
    bearing = capture.get("spatial:aperture_bearing", {})
    if not isinstance(bearing, dict):
        raise ValueError(f"{cwhere}: spatial:aperture_bearing = {bearing!r} is not an object")
    elevation = _field(bearing, "elevation", f"{cwhere}: spatial:aperture_bearing", "number",
                       required=False, default=0.0)
    rotation = _field(capture, "spatial:aperture_rotation", cwhere, "number", required=False,
                      default=0.0)
    if elevation or rotation:
        raise ValueError(f"{cwhere}: a tilted or rotated aperture (aperture_bearing "
                         f"elevation {elevation}, aperture_rotation {rotation}) is not supported")
    azimuth = _field(capture, "spatial:aperture_azimuth", cwhere, "number", required=False,
                     default=_field(bearing, "azimuth", f"{cwhere}: spatial:aperture_bearing",
                                    "number", required=False, default=0.0))
    points = np.full((n_receivers, 3), np.nan)
    for k, p in enumerate(geometry):
        if isinstance(p, dict) and p.get("unknown") is True:
            continue
        point = p.get("point") if isinstance(p, dict) else None
        if (not isinstance(point, list) or len(point) != 3 or
                not all(isinstance(v, (int, float)) and math.isfinite(v) for v in point)):
            raise ValueError(f"{cwhere}: spatial:element_geometry[{k}] = {p!r} is not "
                             "{'point': [x, y, z]} (metres) or {'unknown': true}")
        points[k] = point
    return aperture_to_enu(points, float(azimuth))


def write_sigmf_meta(data_path, datatype, n_receivers, sample_rate, center_freq,
                     positions=None, start_time=None, hw=None, description=None,
                     annotations=(), aperture_azimuth=0.0, meta_path=None):
    """Write the .sigmf-meta of a multi-channel recording already on disk (e.g.
    one an app recorded with blocks.file_sink: frames of n_receivers samples
    of datatype). The meta goes next to it as <name>.sigmf-meta (name without
    a .sigmf-data extension, or the whole file name); a data file not called
    <name>.sigmf-data is named in core:dataset. positions: (n_receivers, 3)
    [east, north, up] m, written as spatial:element_geometry in the aperture
    frame of aperture_azimuth. start_time: Unix seconds (float) or a
    (whole, fraction) pair -> core:datetime. Returns the meta path."""
    data_path = os.fspath(data_path)
    if datatype not in SIGMF_DATATYPES:
        raise ValueError(f"datatype = {datatype!r}: accepted {', '.join(SIGMF_DATATYPES)}")
    if int(n_receivers) != n_receivers or n_receivers < 1:
        raise ValueError(f"n_receivers = {n_receivers}: must be an integer >= 1")
    if not (math.isfinite(sample_rate) and sample_rate > 0):
        raise ValueError(f"sample_rate = {sample_rate}: must be > 0 Hz")
    if not math.isfinite(center_freq):
        raise ValueError(f"center_freq = {center_freq}: must be finite")
    frame = int(n_receivers) * 2 * np.dtype(SIGMF_DATATYPES[datatype][1]).itemsize
    size = os.path.getsize(data_path)
    if size % frame:
        raise ValueError(f"{data_path}: {size} bytes are not a whole number of {frame}-byte "
                         f"frames ({n_receivers} receivers x {datatype}); the partial frame "
                         f"starts at byte {size // frame * frame}")
    directory, name = os.path.split(data_path)
    base = name[: -len(".sigmf-data")] if name.endswith(".sigmf-data") else name
    meta_path = meta_path or os.path.join(directory, base + ".sigmf-meta")
    glob = {"core:datatype": datatype, "core:sample_rate": float(sample_rate),
            "core:num_channels": int(n_receivers), "core:version": SIGMF_VERSION}
    if not name.endswith(".sigmf-data"):
        glob["core:dataset"] = name
    if hw:
        glob["core:hw"] = str(hw)
    if description:
        glob["core:description"] = str(description)
    capture = {"core:sample_start": 0, "core:frequency": float(center_freq)}
    when = _time_pair(start_time)
    if when is not None:
        capture["core:datetime"] = format_datetime(*when)
    if positions is not None:
        positions = np.asarray(positions, float)
        if positions.shape != (n_receivers, 3) or not np.isfinite(positions).all():
            raise ValueError(f"positions: shape {positions.shape}, expected ({n_receivers}, 3) "
                             "finite [east, north, up] metres (one per receiver)")
        glob["core:extensions"] = [{"name": "spatial", "version": SPATIAL_VERSION,
                                    "optional": False}]
        glob["spatial:num_elements"] = int(n_receivers)
        glob["spatial:channel_index"] = 0
        capture["spatial:aperture_azimuth"] = float(aperture_azimuth)
        capture["spatial:element_geometry"] = [
            {"point": [float(v) for v in p]}
            for p in enu_to_aperture(positions, aperture_azimuth)]
    meta = {"global": glob, "captures": [capture], "annotations": list(annotations)}
    with open(meta_path, "w") as out:
        json.dump(meta, out, indent=2)
        out.write("\n")
    return meta_path


def write_sigmf_array(base, samples, sample_rate, center_freq, datatype="cf32_le",
                      positions=None, start_time=None, hw=None, description=None,
                      annotations=(), aperture_azimuth=0.0):
    """Write <base>.sigmf-data and <base>.sigmf-meta from samples
    [time][receivers] (complex). For ci8 / ci16_le the values are rounded to
    integers; a value outside the type's range is an error, not clipped.
    Returns (meta path, data path)."""
    samples = np.asarray(samples)
    if samples.ndim != 2 or samples.shape[1] < 1:
        raise ValueError(f"samples: shape {samples.shape}, expected [time][receivers]")
    if datatype not in SIGMF_DATATYPES:
        raise ValueError(f"datatype = {datatype!r}: accepted {', '.join(SIGMF_DATATYPES)}")
    dtype = np.dtype(SIGMF_DATATYPES[datatype][1])
    iq = np.stack([samples.real, samples.imag], axis=-1)
    if dtype.kind == "i":
        iq = np.rint(iq)
        info = np.iinfo(dtype)
        if iq.size and (iq.min() < info.min or iq.max() > info.max):
            raise ValueError(f"samples: values from {iq.min()} to {iq.max()} do not fit "
                             f"{datatype} ({info.min}..{info.max})")
    data_path = os.fspath(base) + ".sigmf-data"
    np.ascontiguousarray(iq, dtype=dtype).tofile(data_path)
    meta_path = write_sigmf_meta(data_path, datatype, samples.shape[1], sample_rate,
                                 center_freq, positions, start_time, hw, description,
                                 annotations, aperture_azimuth)
    return meta_path, data_path
