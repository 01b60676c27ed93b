# Copyright 2026 gr-beamform authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""rca_volume_views (orthogonal slices / maximum-intensity projections) and a
smoke run of the apps/rca_volume flowgraph (simulated emissions -> rca_das ->
views -> QT GUI raster sinks), headless."""
import importlib.util
import os
import time

import numpy as np
import pytest
from gnuradio import beamform, blocks, gr

APP = os.path.join(os.path.dirname(__file__), "..", "..", "apps", "rca_volume.py")


def run_views(volumes, **kw):
    nx, ny, nz = volumes.shape[1:]
    tb = gr.top_block()
    src = blocks.vector_source_f(volumes.ravel().tolist(), False, nx * ny * nz)
    views = beamform.rca_volume_views(nx, ny, nz, **kw)
    sinks = [blocks.vector_sink_f(n) for n in (nx * nz, ny * nz, nx * ny)]
    tb.connect(src, views)
    for k, s in enumerate(sinks):
        tb.connect((views, k), s)
    tb.run()
    return [np.array(s.data()).reshape(len(volumes), -1) for s in sinks]


def test_slices_and_projections(rng):
    vol = rng.standard_normal((2, 5, 7, 9)).astype(np.float32)
    xz, yz, xy = run_views(vol, mode="slices", x_index=1, y_index=-1, z_index=4)
    np.testing.assert_array_equal(xz, vol[:, :, 3, :].reshape(2, -1))
    np.testing.assert_array_equal(yz, vol[:, 1, :, :].reshape(2, -1))
    np.testing.assert_array_equal(xy, vol[:, :, :, 4].reshape(2, -1))
    xz, yz, xy = run_views(vol, mode="mip", z_first=2, z_last=6)
    np.testing.assert_array_equal(xz, vol.max(axis=2).reshape(2, -1))
    np.testing.assert_array_equal(yz, vol.max(axis=1).reshape(2, -1))
    np.testing.assert_array_equal(xy, vol[..., 2:7].max(axis=3).reshape(2, -1))


@pytest.mark.parametrize("bad,name", [(dict(mode="mean"), "mode"), (dict(x_index=5), "x_index"),
                                      (dict(z_first=9), "z_first"), (dict(z_last=-2), "z_last")])
def test_views_bad_parameters(bad, name):
    with pytest.raises(ValueError, match=name):
        beamform.rca_volume_views(5, 7, 9, **bad)


def test_rca_volume_app_runs_headless():
    pytest.importorskip("PyQt5")
    from PyQt5 import Qt

    spec = importlib.util.spec_from_file_location("rca_volume", APP)
    app_module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(app_module)
    qapp = Qt.QApplication.instance() or Qt.QApplication([])
    tb = app_module.rca_volume()
    assert tb.beamformer.warnings() == []
    tb.start()
    deadline = time.time() + 90
    while tb.views.nitems_written(0) < 1 and time.time() < deadline:
        qapp.processEvents()
        time.sleep(0.05)
    tb.stop()
    tb.wait()
    print("engine:", tb.beamformer.engine_description(),
          "volumes:", tb.beamformer.nitems_written(0))
    assert tb.views.nitems_written(0) >= 1
