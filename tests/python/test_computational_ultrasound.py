# Copyright 2026 gr-beamform authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""The computational-ultrasound example (apps/computational_ultrasound.py,
paper 000 section V-A): a synthetic model matrix loaded from a .npy file, a
phantom with a few bright voxels, frames -> bit_packer -> tensor_beamformer
(int1, voxels as beams) -> voxel powers averaged over frames. The phantom's
bright voxels come out brightest, and the flowgraph's powers equal the 1-bit
product computed in numpy (signs of conj(model) and of the measurements)."""
import importlib.util
import os

import numpy as np
import pytest

from conftest import HOST_DEVICES, gpu_devices

APP = os.path.join(os.path.dirname(__file__), "..", "..", "apps", "computational_ultrasound.py")
spec = importlib.util.spec_from_file_location("computational_ultrasound", APP)
app = importlib.util.module_from_spec(spec)
spec.loader.exec_module(app)


@pytest.mark.parametrize("device", HOST_DEVICES + gpu_devices())
def test_bright_voxels_come_out_brightest(tmp_path, device):
    # 300 measurements: not a multiple of 32, so the packed words carry padding.
    model_path = tmp_path / "model.npy"
    np.save(model_path, app.synthetic_model(300, 7 * 9 * 5, seed=11))
    bright = [17, 150, 301, 312]
    result = app.run(app.parse_args([
        "--model", str(model_path), "--volume", "7,9,5", "--frames", "24",
        "--bright", ",".join(map(str, bright)), "--noise", "1.5", "--seed", "5",
        "--device", device]))
    powers = result["powers"]
    assert sorted(result["brightest"]) == sorted(bright)
    others = np.delete(powers, bright)
    contrast = powers[bright].min() / np.median(others)
    print(f"{device}: weakest bright voxel {contrast:.1f} x the median voxel")
    assert contrast > 5
    expected = app.one_bit_reference(result["model"], result["frame_data"])
    np.testing.assert_allclose(powers, expected, rtol=1e-6)


def test_main_reports_the_phantom(capsys, tmp_path):
    assert app.main(["--device", "cpu", "--save-model", str(tmp_path / "m.npy")]) == 0
    out = capsys.readouterr().out
    assert "all found brightest" in out
    assert (tmp_path / "m.npy").exists()


def test_bad_model_file_raises(tmp_path, capsys):
    path = tmp_path / "real.npy"
    np.save(path, np.ones((4, 4), np.float32))
    with pytest.raises(ValueError, match="--model"):
        app.load_model(str(path))
    with pytest.raises(SystemExit) as usage_error:
        app.parse_args(["--device", "cpu", "--bright", "99999"])
    assert usage_error.value.code == 2
    assert "argument --bright: must be voxel indices from 0 to 863" in capsys.readouterr().err
