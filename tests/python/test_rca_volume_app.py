# Copyright 2026 gr-beamform authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""rca_volume_views (orthogonal slices / maximum-intensity projections) and a
smoke run of the apps/rca_volume flowgraph (simulated emissions -> rca_das ->
views -> QT GUI raster sinks), headless."""
import importlib.util
import os
import subprocess
import sys
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


def load_app():
    spec = importlib.util.spec_from_file_location("rca_volume", APP)
    app_module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(app_module)
    return app_module


def xy_projection(app_module, gpu_precision):
    """One volume through the app's flowgraph: its xy maximum-intensity projection
    (dB, [x][y]) and the engine's description."""
    tb = app_module.rca_volume(gpu_precision=gpu_precision, n_volumes=1)
    xy = blocks.vector_sink_f(tb.nx * tb.ny)
    tb.connect((tb.views, 2), xy)
    tb.run()
    image = np.array(xy.data()).reshape(-1, tb.nx, tb.ny)
    assert len(image) == 1
    return image[0], tb.beamformer.engine_description()


def test_rca_volume_app_gpu_precision_reaches_the_beamformer():
    """--gpu-precision float16 (the app feeds int16 RF, which float16 needs) images
    the phantom as float32 does; on the CPU the block says that float16 has no
    effect, on a GPU it runs the half2 kernels."""
    pytest.importorskip("PyQt5")
    from PyQt5 import Qt

    app_module = load_app()
    qapp = Qt.QApplication.instance() or Qt.QApplication([])
    xy32, described32 = xy_projection(app_module, "float32")
    xy16, described16 = xy_projection(app_module, "float16")
    assert "float16" not in described32 and "half2" not in described32, described32
    assert "float16" in described16 or "half2" in described16, described16
    # The scatterers' columns (within 20 dB of the peak) agree to 1 dB; the two runs
    # differ by their fresh noise (and on a GPU by half's 2e-3), 0.1 dB on the CPU.
    bright = (xy32 > -20) | (xy16 > -20)
    assert 100 < bright.sum() < 0.2 * bright.size
    np.testing.assert_allclose(xy16[bright], xy32[bright], atol=1.0)
    # the four scatterer columns at x, y = +-2 mm (indices 18 and 45 on the 0.15 mm grid)
    # are the brightest
    for x in (18, 45):
        for y in (18, 45):
            assert xy16[x, y] > -1.0, (x, y, xy16[x, y])


def test_rca_volume_app_bad_gpu_precision_is_a_usage_error(tmp_path):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    ran = subprocess.run([sys.executable, APP, "--gpu-precision", "float64"], env=env,
                         capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert ran.returncode == 2, ran.stdout + ran.stderr
    assert "Traceback" not in ran.stderr, ran.stderr
    usage = ran.stderr[ran.stderr.index("usage:"):]
    assert "--gpu-precision" in usage
    assert ("argument --gpu-precision: invalid choice: 'float64' (choose from 'float32', "
            "'float16')") in usage
