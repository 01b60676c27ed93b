#!/usr/bin/env python3
# Copyright 2026 gr-beamform authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""Figures of docs/direction_finding.md, drawn from the direction_finding
flowgraph itself (headless, CPU): the ULA direction spectrum with and without
calibration, and the UCA azimuth x elevation map. Makes docs/images/*.png.

    PYTHONPATH=<build>/test_modules /usr/bin/python3 docs/direction_finding_figures.py [out_dir]
"""
import importlib.util
import os
import sys
import tempfile

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

here = os.path.dirname(os.path.abspath(__file__))
out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "images")
spec = importlib.util.spec_from_file_location(
    "direction_finding", os.path.join(here, "..", "apps", "direction_finding.py"))
df = importlib.util.module_from_spec(spec)
spec.loader.exec_module(df)
gains = os.path.join(tempfile.mkdtemp(), "gains.json")


def spectrum(argv):
    args = df.parse_args(["--headless", "--device", "cpu", "--gains", gains] + argv)
    tb = df.direction_finder(args)
    tb.run()
    az, el, powers = tb.direction()
    return tb, az, el, powers


ula = ["--array", "ula", "--elements", "8", "--source-az", "23.4", "--cal-az", "-40"]
df.calibrate(df.parse_args(["--calibrate", "--device", "cpu", "--gains", gains] + ula))
fig, ax = plt.subplots(figsize=(7, 3.6))
for label, extra in [("calibrated", []), ("uncalibrated (random receiver phases)",
                                          ["--no-calibration"])]:
    tb, az, _, powers = spectrum(ula + extra)
    db = 10 * np.log10(powers[0] / powers.max())
    ax.plot(tb.azimuths, db, label=f"{label}: peak {az:.2f} deg")
ax.axvline(23.4, color="k", ls=":", label="true direction 23.4 deg")
ax.set_xlabel("broadside angle = azimuth (deg)")
ax.set_ylabel("beam power (dB)")
ax.set_ylim(-30, 1)
ax.set_title("8-element ULA, half-wavelength spacing, 433.93 MHz")
ax.legend(fontsize=8, loc="lower left")
fig.tight_layout()
fig.savefig(os.path.join(out_dir, "direction_finding_ula.png"), dpi=110)

uca = ["--array", "uca", "--elements", "12", "--source-az", "131.7", "--source-el", "30",
       "--cal-az", "250", "--cal-el", "20", "--az-step", "2", "--el-step", "2", "--el-max", "90"]
df.calibrate(df.parse_args(["--calibrate", "--device", "cpu", "--gains", gains] + uca))
tb, az, el, powers = spectrum(uca)
fig, ax = plt.subplots(figsize=(7, 3.6))
image = ax.imshow(10 * np.log10(powers / powers.max()), origin="lower", aspect="auto",
                  extent=[tb.azimuths[0] - 1, tb.azimuths[-1] + 1, tb.elevations[0] - 1,
                          tb.elevations[-1] + 1], vmin=-20, vmax=0, cmap="viridis")
ax.plot([131.7], [30], "w+", ms=12, label="true (131.7, 30)")
ax.plot([az], [el], "rx", ms=8, label=f"found ({az:.1f}, {el:.1f})")
ax.set_xlabel("azimuth (deg)")
ax.set_ylabel("elevation (deg)")
ax.set_title("12-element UCA, radius 0.8 wavelength, calibrated")
ax.legend(fontsize=8, loc="lower left")
fig.colorbar(image, label="beam power (dB)")
fig.tight_layout()
fig.savefig(os.path.join(out_dir, "direction_finding_uca.png"), dpi=110)
print("wrote", out_dir)
