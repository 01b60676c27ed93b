# Copyright 2026 gr-beamform authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""One volume of the apps/rca_volume.grc phantom, dual-stage and conventional, on the CPU:
times, the brightest voxel near each scatterer, and docs/images/rca_volume_mips.png.

    PYTHONPATH=<build>/test_modules /usr/bin/python3 docs/rca_volume_figure.py
"""
import os, time
import numpy as np
from gnuradio import gr, blocks, beamform
from gnuradio.beamform import rca_sim, rca_views
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

pitch, emissions, elements, samples, fs, f0 = 200e-6, 32, 64, 640, 31.25e6, 6e6
nx, ny, nz = 64, 64, 120
sources = rca_sim.virtual_sources(emissions, elements, pitch, 16)
scat = [[x, y, z] for x in (-2e-3, 0.0, 2e-3) for y in (-2e-3, 2e-3) for z in (7e-3, 10e-3)] + [[0.5e-3, 0.0, 8.5e-3]]
rf = rca_sim.simulate_rf(scat, n_elements=elements, pitch=pitch, center_frequency=f0,
                         sampling_frequency=fs, n_samples=samples, t_start=0.0,
                         source_positions=sources[0], source_depths=sources[1]).astype(np.float32)
vols = {}
for method in ("dual_stage", "conventional"):
    tb = gr.top_block()
    src = blocks.vector_source_f(rf.ravel().tolist(), False, elements * samples)
    das = beamform.rca_das(n_elements=elements, pitch=pitch, center_frequency=f0, sampling_frequency=fs,
        speed_of_sound=1540.0, t_start=0.0, n_samples=samples, transmit="rows",
        source_positions=list(sources[0]), source_depths=list(sources[1]),
        x_start=-0.5 * (nx - 1) * 0.15e-3, x_step=0.15e-3, x_count=nx,
        y_start=-0.5 * (ny - 1) * 0.15e-3, y_step=0.15e-3, y_count=ny,
        z_start=5.5e-3, z_step=60e-6, z_count=nz, f_number=1.0, filter_taps=[], decimation=3,
        input_type="float32", output="db", db_reference=0.0, processing="iq", method=method, device="cpu")
    snk = blocks.vector_sink_f(nx * ny * nz)
    tb.connect(src, das, snk)
    t0 = time.perf_counter(); tb.run(); dt = time.perf_counter() - t0
    vols[method] = np.array(snk.data(), dtype=np.float32).reshape(nx, ny, nz)
    print(method, f"{dt:.2f} s", das.engine_description(), "warnings:", das.warnings())
x = (-0.5 * (nx - 1) + np.arange(nx)) * 0.15
y = (-0.5 * (ny - 1) + np.arange(ny)) * 0.15
z = 5.5 + np.arange(nz) * 0.06
fig, axes = plt.subplots(2, 3, figsize=(11, 7), constrained_layout=True)
for row, method in enumerate(("dual_stage", "conventional")):
    xz, yz, xy = rca_views.volume_views(vols[method], mode="mip")
    for ax, img, ext, lab, title in (
            (axes[row, 0], xz.T, [x[0], x[-1], z[-1], z[0]], ("x (mm)", "z (mm)"), "xz MIP over y"),
            (axes[row, 1], yz.T, [y[0], y[-1], z[-1], z[0]], ("y (mm)", "z (mm)"), "yz MIP over x"),
            (axes[row, 2], xy.T, [x[0], x[-1], y[-1], y[0]], ("x (mm)", "y (mm)"), "xy MIP over z")):
        im = ax.imshow(img, extent=ext, vmin=-50, vmax=0, cmap="gray", aspect="equal")
        ax.set_xlabel(lab[0]); ax.set_ylabel(lab[1]); ax.set_title(f"{method}: {title}", fontsize=9)
fig.colorbar(im, ax=axes, shrink=0.6, label="dB (0 = volume maximum)")
fig.savefig(os.path.join(os.path.dirname(os.path.abspath(__file__)), "images", "rca_volume_mips.png"), dpi=80)
d, c = vols["dual_stage"], vols["conventional"]
print("peak voxel dual", np.unravel_index(np.argmax(d), d.shape), "conv", np.unravel_index(np.argmax(c), c.shape))
# bright voxels near scatterers
for s in scat:
    ix = int(round((s[0] * 1e3 - x[0]) / 0.15)); iy = int(round((s[1] * 1e3 - y[0]) / 0.15)); iz = int(round((s[2] * 1e3 - 5.5) / 0.06))
    sl = (slice(max(ix-2,0), ix+3), slice(max(iy-2,0), iy+3), slice(max(iz-3,0), iz+4))
    print(s, f"dual {d[sl].max():.1f} dB conv {c[sl].max():.1f} dB")
print("median dual", np.median(d), "conv", np.median(c))
