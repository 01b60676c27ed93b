# Copyright 2026 gr-beamform authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""Beam directions from a text file: one beam per line, in one of three frames.

    azel  az el      azimuth (from north through east) and elevation, degrees
    lm    l m        direction cosines east and north (l^2 + m^2 <= 1)
    radec ra dec     right ascension and declination (J2000): sexagesimal
                     hh:mm:ss.s and +dd:mm:ss.s, or decimal degrees

A line is `[frame] a b`: the frame word is optional and, where left out, the
file's default applies (the caller's, e.g. a command-line option). `#` starts a
comment. Fixed directions (azel, lm) are converted to (l, m) by the caller;
radec beams move across the sky and need a delay tracker, so they are only
parsed and kept here (as degrees).

Every fault is a ValueError naming the file, the line and what is accepted.
"""
import collections
import math

FRAMES = ("azel", "lm", "radec")

Beam = collections.namedtuple("Beam", "frame a b line")
Beam.__doc__ = """One listed beam: frame (azel, lm, radec) and its two numbers
(azel: degrees; lm: direction cosines; radec: RA and Dec in degrees), and the
line it came from."""


def read_beams_file(path, default_frame="azel"):
    """The beams listed in `path`, as a list of Beam, in the file's order."""
    if default_frame not in FRAMES:
        raise ValueError(f"default_frame must be one of {', '.join(FRAMES)}, "
                         f"got {default_frame!r}")
    beams = []
    with open(path) as f:
        for number, line in enumerate(f, 1):
            words = line.split("#", 1)[0].replace(",", " ").split()
            if not words:
                continue
            frame = default_frame
            if words[0].lower() in FRAMES:
                frame, words = words[0].lower(), words[1:]
            elif not _looks_numeric(words[0]):
                raise ValueError(f"{path}:{number}: the frame must be one of "
                                 f"{', '.join(FRAMES)}, got {words[0]!r}")
            if len(words) != 2:
                raise ValueError(f"{path}:{number}: expected '[frame] a b' with two values "
                                 f"({_what(frame)}), got {line.strip()!r}")
            a, b = _parse(path, number, frame, words, line)
            beams.append(Beam(frame, a, b, number))
    if not beams:
        raise ValueError(f"{path}: no beams listed (one per line: '[frame] a b')")
    return beams


def _what(frame):
    return {"azel": "azimuth and elevation in degrees",
            "lm": "direction cosines l and m",
            "radec": "RA hh:mm:ss or degrees, Dec dd:mm:ss or degrees"}[frame]


def _looks_numeric(word):
    return word[:1].isdigit() or word[:1] in "+-."


def _number(path, number, text, line, frame):
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{path}:{number}: expected numbers ({_what(frame)}), "
                         f"got {line.strip()!r}") from None
    if not math.isfinite(value):
        raise ValueError(f"{path}:{number}: values must be finite, got {line.strip()!r}")
    return value


def _sexagesimal(path, number, text, line, frame):
    """'dd:mm:ss.s' (or 'hh:mm:ss.s') -> the value in its first unit."""
    parts = text.split(":")
    if len(parts) > 3:
        raise ValueError(f"{path}:{number}: sexagesimal values have at most three parts "
                         f"(hh:mm:ss), got {text!r}")
    values = [_number(path, number, p, line, frame) for p in parts]
    if any(not 0 <= v < 60 for v in values[1:]):
        raise ValueError(f"{path}:{number}: minutes and seconds must be in [0, 60), "
                         f"got {text!r}")
    magnitude = abs(values[0]) + sum(v / 60 ** i for i, v in enumerate(values[1:], 1))
    return -magnitude if text.strip().startswith("-") else magnitude


def _parse(path, number, frame, words, line):
    if frame == "radec":
        ra = (_sexagesimal(path, number, words[0], line, frame) * 15.0 if ":" in words[0]
              else _number(path, number, words[0], line, frame))
        dec = (_sexagesimal(path, number, words[1], line, frame) if ":" in words[1]
               else _number(path, number, words[1], line, frame))
        if not 0 <= ra < 360:
            raise ValueError(f"{path}:{number}: RA must be in [0, 24) h or [0, 360) degrees, "
                             f"got {words[0]!r}")
        if not -90 <= dec <= 90:
            raise ValueError(f"{path}:{number}: Dec must be in [-90, 90] degrees, "
                             f"got {words[1]!r}")
        return ra, dec
    a, b = (_number(path, number, w, line, frame) for w in words)
    if frame == "azel" and not 0 <= b <= 90:
        raise ValueError(f"{path}:{number}: elevation must be in [0, 90] degrees (above the "
                         f"horizon), got {b:g}")
    if frame == "lm" and a * a + b * b > 1:
        raise ValueError(f"{path}:{number}: l^2 + m^2 must be <= 1 (a direction above the "
                         f"horizon), got l={a:g}, m={b:g}")
    return a, b


def beam_lm(beam):
    """(l, m) of a fixed (azel or lm) beam."""
    if beam.frame == "lm":
        return beam.a, beam.b
    if beam.frame == "azel":
        az, el = math.radians(beam.a), math.radians(beam.b)
        return math.cos(el) * math.sin(az), math.cos(el) * math.cos(az)
    raise ValueError(f"line {beam.line}: a radec beam has no fixed (l, m); it needs tracking")
