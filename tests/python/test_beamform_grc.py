# Copyright 2026 gr-beamform authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""GRC: the YAML of tensor_beamformer, bit_packer and bit_unpacker compiles with
grcc into a flowgraph that runs and computes the right numbers.

Flowgraph (4 receivers in a line 1 m apart, 2 channels, 150 / 151 MHz):
  constant spectra of ones --> Tensor Beamformer (positions + pointing:
      zenith and the east horizon; power, n_int 4) --> file sink (float)
  the same spectra --> Bit Packer --> Tensor Beamformer (1-bit, weights
      array of ones, voltage) --> file sink (complex)
                   \\-> Bit Unpacker --> file sink (complex)
"""
import os
import shutil

import numpy as np
import pytest

from grc_flowgraphs import block, compile_and_run, flowgraph

N_CH, N_RX, N_ITEMS = 2, 4, 64



def beamformer_flowgraph(out_dir):
    positions = "[[0, 0, 0], [1, 0, 0], [2, 0, 0], [3, 0, 0]]"
    blocks = [
        block("src", "blocks_vector_source_x", 0, 100, type="complex",
              vector=f"[1 + 0.5j] * {N_CH * N_RX}", repeat="True", vlen=N_CH * N_RX,
              tags="[]"),
        block("head", "blocks_head", 150, 100, type="complex", num_items=N_ITEMS,
              vlen=N_CH * N_RX),
        block("steered", "beamform_tensor_beamformer", 300, 0, n_channels=N_CH,
              n_receivers=N_RX, n_beams=2, weights_from="steering", weights="[]",
              positions=positions, frequencies="[150e6, 151e6]",
              az_el="[0.0, 90.0, 90.0, 0.0]", gains="[]", conjugate="False",
              precision="float16", output="power", n_int=4, polarization="single",
              stokes="I", device="cpu"),
        block("packer", "beamform_bit_packer", 300, 200, n_channels=N_CH, n_receivers=N_RX,
              device="cpu"),
        block("bf1", "beamform_tensor_beamformer", 450, 200, n_channels=N_CH,
              n_receivers=N_RX, n_beams=3, weights_from="array",
              weights=f"[1.0] * {N_CH * 3 * N_RX}", positions="[]", frequencies="[]",
              az_el="[]", gains="[]", conjugate="False", precision="int1",
              output="voltage", n_int=1, polarization="single", stokes="I", device="cpu"),
        block("unpacker", "beamform_bit_unpacker", 450, 300, n_channels=N_CH,
              n_receivers=N_RX, device="cpu"),
    ]
    for name, dtype, vlen, x in [("power_sink", "float", 2 * N_CH, 600),
                                 ("int1_sink", "complex", 3 * N_CH, 650),
                                 ("unpack_sink", "complex", N_CH * N_RX, 700)]:
        blocks.append(block(name, "blocks_file_sink", x, 100, type=dtype, vlen=vlen,
                            file=os.path.join(out_dir, name + ".bin"), append="False",
                            unbuffered="False"))
    connections = [("src", "head"), ("head", "steered"), ("steered", "power_sink"),
                   ("head", "packer"), ("packer", "bf1"), ("bf1", "int1_sink"),
                   ("packer", "unpacker"), ("unpacker", "unpack_sink")]
    return flowgraph("beamform_grc_test", blocks, connections)


@pytest.mark.skipif(shutil.which("grcc") is None, reason="grcc not installed")
def test_grc_blocks_compile_and_run(tmp_path):
    compile_and_run(tmp_path, "beamform_grc_test", beamformer_flowgraph(str(tmp_path)))

    x = np.complex64(1 + 0.5j)
    power = np.fromfile(tmp_path / "power_sink.bin", np.float32).reshape(-1, 2, N_CH)
    assert power.shape[0] == N_ITEMS // 4
    # Zenith beam: all weights 1, |4 x|^2 per step, 4 steps.
    np.testing.assert_allclose(power[:, 0, :], np.full((N_ITEMS // 4, N_CH), 4 * abs(4 * x) ** 2),
                               rtol=1e-3)
    # East-horizon beam on a wave from the zenith: a phase ramp along the line.
    f = np.array([150e6, 151e6])
    w = np.exp(-2j * np.pi * f[:, None] * np.arange(N_RX)[None, :] / 299792458.0)
    expected = 4 * np.abs(w.sum(axis=1) * x) ** 2  # per channel
    np.testing.assert_allclose(power[:, 1, :], np.broadcast_to(expected, (N_ITEMS // 4, N_CH)),
                               rtol=2e-3, atol=1e-3)

    # 1-bit: the samples 1 + 0.5j become 1 + 1j, and so do the weights 1 + 0j
    # (a zero part counts as +1): (1 + 1j)^2 = 2j per receiver, 8j for four.
    volts = np.fromfile(tmp_path / "int1_sink.bin", np.complex64)
    assert volts.size == N_ITEMS * 3 * N_CH
    np.testing.assert_array_equal(volts, np.full(volts.size, 8j, np.complex64))
    unpacked = np.fromfile(tmp_path / "unpack_sink.bin", np.complex64)
    np.testing.assert_array_equal(unpacked, np.full(N_ITEMS * N_CH * N_RX, 1 + 1j))
