# Copyright 2026 gr-beamform authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""Celestial tracking: where a source is, seen from the station, at a given time,
and the geometric delays that point the station at it (docs/tracking.md).

Sign convention (docs/architecture.md, docs/phase_shift.md "Sign, spelled out"):
tau_a = (p_a - p_ref) . s / c, with s the east-north-up unit vector towards the
source. A receiver with tau_a > 0 is closer to the source and hears the wavefront
tau_a earlier; phase_shift given `delays = tau` delays it by tau, so the source
adds coherently. (The often quoted tau = -(b . s)/c is the arrival-time offset;
phase_shift wants its negative, which is this tau.)

Directions of RA/Dec targets are the *observed* topocentric ones (erfa.atco13,
the IAU 2000/2006 chain of Kaplan 2005 / SOFA "atco13"): precession-nutation,
Earth rotation (UT1), polar motion, annual and diurnal aberration and light
deflection are included; atmospheric refraction only if pressure_hpa > 0. The
Earth orientation (UT1-UTC, polar motion) comes from astropy's bundled IERS-B
table, or from a user's IERS-A file (iers_a_file): nothing is downloaded.
"""
import logging
import math
import re
import warnings

import numpy as np

SPEED_OF_LIGHT = 299792458.0
UNIX_EPOCH_JD = 2440587.5
# WGS84 (NIMA TR8350.2, 2000, table 3.1)
WGS84_A = 6378137.0
WGS84_F = 1.0 / 298.257223563

logger = logging.getLogger("gnuradio.beamform.tracking")


def _finite_number(name, value, low=-math.inf, high=math.inf):
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number, got {value!r}") from None
    if not (math.isfinite(v) and low <= v <= high):
        raise ValueError(f"{name} must be a finite number in [{low}, {high}], got {value!r}")
    return v


class Site:
    """The station's reference point: geodetic WGS84 latitude, longitude (degrees,
    east positive) and height (m above the ellipsoid)."""

    def __init__(self, latitude_deg, longitude_deg, height_m=0.0):
        self.latitude_deg = _finite_number("latitude_deg", latitude_deg, -90.0, 90.0)
        self.longitude_deg = _finite_number("longitude_deg", longitude_deg, -180.0, 360.0)
        # Deeper than the Dead Sea shore / higher than any radio site by far: a typo
        # (km for m) or a geocentric radius given as height.
        self.height_m = _finite_number("height_m", height_m, -1.0e4, 1.0e5)

    @classmethod
    def from_geodetic(cls, latitude_deg, longitude_deg, height_m=0.0):
        return cls(latitude_deg, longitude_deg, height_m)

    @classmethod
    def from_itrf(cls, x, y, z):
        """From geocentric ITRF coordinates in metres (WGS84 ellipsoid)."""
        import erfa
        xyz = np.array([_finite_number(n, v) for n, v in zip("xyz", (x, y, z))])
        r = float(np.linalg.norm(xyz))
        if not 6.3e6 < r < 6.5e6:
            raise ValueError(f"site ITRF position (x, y, z) = ({x}, {y}, {z}) m is {r:.0f} m "
                             "from the geocentre; a point on the Earth's surface is "
                             "6.3e6 to 6.5e6 m from it")
        lon, lat, h = erfa.gc2gd(1, xyz)      # 1 = WGS84
        return cls(math.degrees(lat), math.degrees(lon), float(h))

    def itrf(self):
        """Geocentric (x, y, z) in metres."""
        import erfa
        return np.asarray(erfa.gd2gc(1, math.radians(self.longitude_deg),
                                     math.radians(self.latitude_deg), self.height_m))

    def _enu_rotation(self):
        lat, lon = math.radians(self.latitude_deg), math.radians(self.longitude_deg)
        sl, cl, sp, cp = math.sin(lon), math.cos(lon), math.sin(lat), math.cos(lat)
        return np.array([[-sl, cl, 0.0],
                         [-sp * cl, -sp * sl, cp],
                         [cp * cl, cp * sl, sp]])

    def enu_from_itrf(self, itrf_positions):
        """ITRF (n, 3) positions in metres -> east, north, up metres from this site."""
        p = _positions(itrf_positions, "itrf_positions")
        return (p - self.itrf()) @ self._enu_rotation().T

    def __repr__(self):
        return (f"Site(latitude_deg={self.latitude_deg}, longitude_deg={self.longitude_deg}, "
                f"height_m={self.height_m})")


def _positions(positions, name="positions"):
    p = np.asarray(positions, dtype=float)
    if p.ndim == 1 and p.size % 3 == 0 and p.size > 0:
        p = p.reshape(-1, 3)      # a flat [e0, n0, u0, e1, ...] (GRC real vector)
    if p.ndim != 2 or p.shape[1] != 3 or p.shape[0] < 1:
        raise ValueError(f"{name} must be one [east, north, up] (m) per receiver, "
                         f"got an array of shape {p.shape}")
    if not np.all(np.isfinite(p)):
        raise ValueError(f"{name} must be finite, got {p.tolist()}")
    return p


class Target:
    """A direction to track: `kind` is 'radec' (ICRS, degrees), 'azel' (fixed
    azimuth from north through east and elevation, degrees) or 'lm' (fixed direction
    cosines east and north in the station frame)."""

    KINDS = ("radec", "azel", "lm")

    def __init__(self, kind, a, b, name=None):
        if kind not in self.KINDS:
            raise ValueError(f"target kind must be one of {self.KINDS}, got {kind!r}")
        self.kind = kind
        if kind == "radec":
            self.a = _finite_number("ra_deg", a, 0.0, 360.0)
            self.b = _finite_number("dec_deg", b, -90.0, 90.0)
        elif kind == "azel":
            self.a = _finite_number("azimuth_deg", a, -360.0, 360.0)
            self.b = _finite_number("elevation_deg", b, -90.0, 90.0)
        else:
            self.a = _finite_number("l", a, -1.0, 1.0)
            self.b = _finite_number("m", b, -1.0, 1.0)
            if self.a ** 2 + self.b ** 2 > 1.0:
                raise ValueError(f"target (l, m) = ({a}, {b}) needs l^2 + m^2 <= 1")
        self.name = name or f"{kind}:{self.a:g},{self.b:g}"

    @classmethod
    def radec(cls, ra_deg, dec_deg, name=None):
        return cls("radec", ra_deg, dec_deg, name)

    @classmethod
    def az_el(cls, azimuth_deg, elevation_deg, name=None):
        return cls("azel", azimuth_deg, elevation_deg, name)

    @classmethod
    def lm(cls, l, m, name=None):
        return cls("lm", l, m, name)

    @classmethod
    def from_skycoord(cls, coord, name=None):
        """An astropy SkyCoord (any celestial frame; converted to ICRS)."""
        icrs = coord.icrs
        return cls.radec(float(icrs.ra.deg), float(icrs.dec.deg), name)

    @classmethod
    def parse(cls, spec, catalogue=None):
        """'radec:RA,DEC' (degrees, or 'hh:mm:ss.s,+dd:mm:ss'), 'azel:AZ,EL',
        'lm:L,M', a Target, a SkyCoord, or a name in `catalogue` (a dict from
        load_catalogue). Names are never looked up online."""
        if isinstance(spec, Target):
            return spec
        if hasattr(spec, "icrs"):
            return cls.from_skycoord(spec)
        text = str(spec).strip()
        m = re.fullmatch(r"(radec|azel|lm)\s*:\s*([^,]+),([^,]+)", text, re.IGNORECASE)
        if m:
            kind, a, b = m.group(1).lower(), m.group(2).strip(), m.group(3).strip()
            if kind == "radec" and ":" in a + b:
                from astropy.coordinates import Angle
                try:
                    return cls.radec(Angle(a, unit="hourangle").deg, Angle(b, unit="deg").deg)
                except Exception as e:
                    raise ValueError(f"target {text!r}: cannot read the coordinates: {e}") from None
            return cls(kind, a, b, None)
        if catalogue and text.lower() in catalogue:
            return catalogue[text.lower()]
        known = ", ".join(sorted(catalogue)) if catalogue else "none (no catalogue given)"
        raise ValueError(f"unknown target {text!r}: give 'radec:RA_DEG,DEC_DEG', "
                         f"'azel:AZ_DEG,EL_DEG', 'lm:L,M' or a catalogue name; "
                         f"catalogue names: {known}")

    def __repr__(self):
        return f"Target({self.kind!r}, {self.a}, {self.b}, name={self.name!r})"


def load_catalogue(path):
    """A user catalogue: one source per line, `NAME RA DEC` with RA/Dec ICRS in
    degrees or as 'hh:mm:ss.s +dd:mm:ss'; '#' starts a comment. Returns a dict
    lower-case name -> Target."""
    catalogue = {}
    with open(path) as f:
        for number, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            fields = line.split()
            if len(fields) != 3:
                raise ValueError(f"{path}:{number}: expected 'NAME RA DEC', got {line!r}")
            target = Target.parse(f"radec:{fields[1]},{fields[2]}")
            target.name = fields[0]
            catalogue[fields[0].lower()] = target
    return catalogue


def as_unix_seconds(time):
    """astropy Time, or UNIX seconds (a number or array) -> (jd1, jd2) in UTC
    (erfa's quasi-JD) and the UNIX seconds as float."""
    if hasattr(time, "utc") and hasattr(time, "jd1"):
        utc = time.utc
        unix = (utc.jd1 - UNIX_EPOCH_JD) * 86400.0 + utc.jd2 * 86400.0
        return np.asarray(utc.jd1, float), np.asarray(utc.jd2, float), np.asarray(unix, float)
    try:
        unix = np.asarray(time, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"time must be an astropy Time or UNIX seconds, got {time!r}") from None
    if not np.all(np.isfinite(unix)) or np.any(unix < 0) or np.any(unix > 1.0e10):
        raise ValueError(f"time must be UNIX seconds in [0, 1e10] (1970 to 2286), got {time!r}")
    # UNIX time counts 86400 s per day, as erfa's quasi-JD for UTC does.
    days = np.floor(unix / 86400.0)
    return UNIX_EPOCH_JD + days, (unix - days * 86400.0) / 86400.0, unix


def _format_time(unix):
    import datetime
    return datetime.datetime.fromtimestamp(float(unix), datetime.timezone.utc).strftime(
        "%Y-%m-%dT%H:%M:%S.%f")[:-3] + " UTC"


class EarthOrientation:
    """UT1-UTC and polar motion from an IERS table, offline.

    Without `iers_a_file`: astropy's bundled IERS-B (final values; nothing is
    downloaded: astropy's auto_download is switched off). With it: that IERS-A
    (finals2000A) file, which also holds predictions about a year ahead. Times
    outside the table use its edge values; that is logged once (docs/tracking.md
    states the accuracy)."""

    def __init__(self, iers_a_file=None):
        from astropy.utils import iers
        iers.conf.auto_download = False
        iers.conf.auto_max_age = None
        self.source = "bundled IERS-B"
        if iers_a_file:
            from urllib.parse import urlparse
            if urlparse(str(iers_a_file)).netloc:
                raise ValueError(f"iers_a_file must be a local file (nothing is downloaded), "
                                 f"got {iers_a_file!r}")
            try:
                # read(), not open(): open() would replace astropy's process-wide table.
                self.table = iers.IERS_A.read(str(iers_a_file))
            except Exception as e:
                raise ValueError(f"iers_a_file {str(iers_a_file)!r} is not a readable IERS-A "
                                 f"(finals2000A) file: {e}") from None
            self.source = f"IERS-A file {iers_a_file}"
        else:
            self.table = iers.IERS_B.open()
        self._warned_range = False

    def at(self, jd1, jd2):
        """(ut1_utc seconds, xp rad, yp rad) at UTC (jd1, jd2)."""
        from astropy.utils import iers
        ut1_utc, status = self.table.ut1_utc(jd1, jd2, return_status=True)
        xp, yp, _ = self.table.pm_xy(jd1, jd2, return_status=True)
        status = np.atleast_1d(status)
        outside = (status == iers.TIME_BEFORE_IERS_RANGE) | (status == iers.TIME_BEYOND_IERS_RANGE)
        if np.any(outside) and not self._warned_range:
            self._warned_range = True
            mjd = self.table["MJD"]
            logger.warning(
                "time outside the %s table (MJD %.0f to %.0f): UT1-UTC and polar motion are "
                "held at the table's edge values; the pointing may be off by up to ~15 arcsec "
                "per second of UT1-UTC error (|UT1-UTC| < 0.9 s, so < ~27 arcsec); give an "
                "up-to-date IERS-A file (iers_a_file) for milliarcsecond accuracy",
                self.source, mjd[0].value, mjd[-1].value)
        arcsec = math.pi / (180.0 * 3600.0)
        return (np.asarray(getattr(ut1_utc, "value", ut1_utc), float),
                np.asarray(getattr(xp, "value", xp), float) * arcsec,
                np.asarray(getattr(yp, "value", yp), float) * arcsec)


class BelowHorizon(ValueError):
    """A target below the minimum elevation at the requested time."""


class TrackingSolution:
    """One solution: at `time_unix`, geometric `delays` (s) and `rates` (s/s) per
    receiver for the phase centre, and each beam target's direction in the station
    frame (`beams_az_el` degrees, `beams_lm` direction cosines) and relative to the
    phase centre (`beams_offset_lm`)."""

    def __init__(self, time_unix, delays, rates, centre_az_el, beams_az_el):
        self.time_unix = float(time_unix)
        self.delays = np.asarray(delays, float)
        self.rates = np.asarray(rates, float)
        self.centre_az_el = tuple(float(v) for v in centre_az_el)
        self.beams_az_el = np.asarray(beams_az_el, float).reshape(-1, 2)
        self.beams_lm = direction_lm(self.beams_az_el)
        self.centre_lm = direction_lm(np.array([self.centre_az_el]))[0]
        self.beams_offset_lm = self.beams_lm - self.centre_lm

    def __repr__(self):
        return (f"TrackingSolution({_format_time(self.time_unix)}, centre az/el "
                f"{self.centre_az_el}, {len(self.delays)} receivers, {len(self.beams_az_el)} beams)")


def direction_vector(az_el_deg):
    """(..., 2) az/el degrees -> (..., 3) east, north, up unit vectors."""
    a = np.radians(np.asarray(az_el_deg, float))
    az, el = a[..., 0], a[..., 1]
    return np.stack([np.cos(el) * np.sin(az), np.cos(el) * np.cos(az), np.sin(el)], axis=-1)


def direction_lm(az_el_deg):
    """(..., 2) az/el degrees -> (..., 2) direction cosines (east, north)."""
    return direction_vector(az_el_deg)[..., :2]


def az_el_from_lm(l, m):
    l, m = np.asarray(l, float), np.asarray(m, float)
    n = np.sqrt(np.clip(1.0 - l * l - m * m, 0.0, None))
    return np.degrees(np.arctan2(l, m)) % 360.0, np.degrees(np.arctan2(n, np.hypot(l, m)))


class DelayModel:
    """Geometric delays of a station towards a phase centre, and its beams'
    directions, at any time.

    site: a Site; positions: (n, 3) east, north, up metres from the site (or ITRF
    metres with positions_frame='itrf'); phase_centre and beams: Target, SkyCoord
    or a Target.parse string. reference_index (default 0, as phase_shift's
    set_geometry) or reference_position (ENU m) is the delay zero.
    rate_step_s: the half-step of the central difference giving the rates.
    pressure_hpa > 0 adds refraction (erfa's model for radio wavelengths).
    """

    def __init__(self, site, positions, phase_centre, beams=(), reference_index=0,
                 reference_position=None, positions_frame="enu", propagation_speed=SPEED_OF_LIGHT,
                 iers_a_file=None, catalogue=None, min_elevation_deg=0.0, rate_step_s=1.0,
                 pressure_hpa=0.0, temperature_c=10.0, relative_humidity=0.5):
        if not isinstance(site, Site):
            raise ValueError(f"site must be a tracking.Site, got {site!r}")
        self.site = site
        if positions_frame == "enu":
            self.positions = _positions(positions)
        elif positions_frame == "itrf":
            self.positions = site.enu_from_itrf(positions)
        else:
            raise ValueError(f"positions_frame must be 'enu' or 'itrf', got {positions_frame!r}")
        if isinstance(catalogue, str):
            catalogue = load_catalogue(catalogue)
        self.phase_centre = Target.parse(phase_centre, catalogue)
        if isinstance(beams, str):
            beams = [beams]
        self.beams = [Target.parse(b, catalogue) for b in beams]
        if reference_position is not None:
            self.reference = _positions([reference_position], "reference_position")[0]
        else:
            n = len(self.positions)
            if not (isinstance(reference_index, (int, np.integer)) and 0 <= reference_index < n):
                raise ValueError(f"reference_index must be an integer in [0, {n - 1}], "
                                 f"got {reference_index!r}")
            self.reference = self.positions[reference_index].copy()
        self.baselines = self.positions - self.reference
        self.propagation_speed = _finite_number("propagation_speed", propagation_speed, 1e-300)
        if self.propagation_speed <= 0:
            raise ValueError(f"propagation_speed must be > 0, got {propagation_speed}")
        self.min_elevation_deg = _finite_number("min_elevation_deg", min_elevation_deg, -90, 90)
        self.rate_step_s = _finite_number("rate_step_s", rate_step_s, 1e-3, 3600.0)
        self.pressure_hpa = _finite_number("pressure_hpa", pressure_hpa, 0.0, 1200.0)
        self.temperature_c = _finite_number("temperature_c", temperature_c, -100.0, 100.0)
        self.relative_humidity = _finite_number("relative_humidity", relative_humidity, 0.0, 1.0)
        self.earth = EarthOrientation(iers_a_file)
        self._warned_erfa = False

    # -- directions ---------------------------------------------------------------
    def az_el(self, target, time, check_horizon=True):
        """Observed (az, el) degrees of `target` at `time` (scalar or array)."""
        target = Target.parse(target)
        jd1, jd2, unix = as_unix_seconds(time)
        if target.kind == "azel":
            az = np.full(unix.shape, target.a % 360.0)
            el = np.full(unix.shape, target.b)
        elif target.kind == "lm":
            a, e = az_el_from_lm(target.a, target.b)
            az, el = np.full(unix.shape, float(a)), np.full(unix.shape, float(e))
        else:
            az, el = self._observed(target, jd1, jd2)
        if check_horizon:
            self._check_horizon(target, el, unix)
        return az, el

    def _check_horizon(self, target, el, unix):
        el, unix = np.ravel(el), np.ravel(unix)
        if np.any(el < self.min_elevation_deg):
            i = int(np.argmin(el))
            raise BelowHorizon(
                f"target {target.name} is at elevation {el[i]:.3f} deg, below the "
                f"minimum {self.min_elevation_deg} deg, at {_format_time(unix[i])} "
                f"(UNIX {unix[i]:.3f} s)")

    def _observed(self, target, jd1, jd2):
        return self._observed_radec(target.a, target.b, jd1, jd2)

    def _observed_radec(self, ra_deg, dec_deg, jd1, jd2):
        """Observed (az, el) degrees; ra/dec and times broadcast (numpy rules)."""
        import erfa
        dut1, xp, yp = self.earth.at(jd1, jd2)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            aob, zob, _, _, _, _ = erfa.atco13(
                np.radians(ra_deg), np.radians(dec_deg), 0.0, 0.0, 0.0, 0.0,
                jd1, jd2, dut1, math.radians(self.site.longitude_deg),
                math.radians(self.site.latitude_deg), self.site.height_m, xp, yp,
                self.pressure_hpa, self.temperature_c, self.relative_humidity,
                1.0e4)   # wavelength in micrometres: > 100 selects the radio refraction model
        if caught and not self._warned_erfa:
            self._warned_erfa = True
            logger.warning("erfa: %s (logged once; leap seconds after erfa's table are not "
                           "known, which would put UTC off by whole seconds)", caught[0].message)
        return np.degrees(aob) % 360.0, 90.0 - np.degrees(zob)

    # -- delays -------------------------------------------------------------------
    def delays_towards(self, az_el_deg):
        """Geometric delays (s) for (..., 2) az/el degrees -> (..., receivers)."""
        return direction_vector(az_el_deg) @ self.baselines.T / self.propagation_speed

    def delays(self, time):
        """Phase-centre delays (s) at `time`: (receivers,) or (times, receivers)."""
        az, el = self.az_el(self.phase_centre, time)
        return self.delays_towards(np.stack([az, el], axis=-1))

    def solution(self, time):
        """TrackingSolution at `time` (one instant). Rates by central difference
        over +-rate_step_s (error docs/tracking.md). Raises BelowHorizon (a
        ValueError) naming the target and the time."""
        jd1, jd2, unix = as_unix_seconds(time)
        if unix.ndim != 0:
            raise ValueError(f"solution() takes one time, got {unix.size}")
        h = self.rate_step_s
        steps = float(unix) + np.array([-h, 0.0, h])
        az, el = self.az_el(self.phase_centre, steps, check_horizon=False)
        self._check_horizon(self.phase_centre, el[1:2], unix.reshape(1))
        d = self.delays_towards(np.stack([az, el], axis=-1))
        rates = (d[2] - d[0]) / (2.0 * h)
        return TrackingSolution(float(unix), d[1], rates, (az[1], el[1]),
                                self.beam_directions(float(unix)))

    def beam_directions(self, unix):
        """(beams, 2) az/el degrees of the beam targets at one UNIX time; all RA/Dec
        beams in one erfa call (a station may have hundreds)."""
        out = np.zeros((len(self.beams), 2))
        sky = [i for i, b in enumerate(self.beams) if b.kind == "radec"]
        for i, b in enumerate(self.beams):
            if b.kind != "radec":
                az, el = self.az_el(b, unix)
                out[i] = float(az), float(el)
        if sky:
            jd1, jd2, _ = as_unix_seconds(unix)
            ra = np.array([self.beams[i].a for i in sky])
            dec = np.array([self.beams[i].b for i in sky])
            out[sky, 0], out[sky, 1] = self._observed_radec(ra, dec, jd1, jd2)
        low = [i for i in range(len(self.beams)) if out[i, 1] < self.min_elevation_deg]
        if low:
            i = min(low, key=lambda k: out[k, 1])
            self._check_horizon(self.beams[i], out[i, 1], unix)
        return out
