# Copyright 2026 gr-beamform authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""GRC: the YAML of rfi_flagger and incoherent_beam compiles with grcc into a
flowgraph that runs and computes the right numbers.

  constant spectra --> RFI Flagger (zeros) --> Incoherent Beam --> file sink
                   \\-> Incoherent Beam (X/Y pairs, IQUV) --> file sink
A constant is the purest CW: SK = 0, so every block is flagged and the beam
after the flagger is 0; the direct beam is n_int * the receivers' power.
"""
import os
import shutil

import numpy as np
import pytest

from grc_flowgraphs import block, compile_and_run, flowgraph

N_CH, N_RX, M, N_INT = 3, 4, 16, 4
N_ITEMS = 8 * M
X, Y = 1 + 0.5j, 0.25 - 1j  # receivers 2k, 2k+1


def rfi_flowgraph(out_dir):
    values = [X, Y] * (N_CH * N_RX // 2)
    blocks = [
        block("src", "blocks_vector_source_x", 0, 100, type="complex", vector=repr(values),
              repeat="True", vlen=N_CH * N_RX, tags="[]"),
        block("head", "blocks_head", 150, 100, type="complex", num_items=N_ITEMS,
              vlen=N_CH * N_RX),
        block("flagger", "beamform_rfi_flagger", 300, 0, n_channels=N_CH, n_receivers=N_RX,
              block_size=M, pfa=0.0013499, mad_threshold=0, replace="zeros", seed=0,
              device="cpu", threads=1),
        block("ib_flagged", "beamform_incoherent_beam", 450, 0, n_channels=N_CH,
              n_receivers=N_RX, n_int=N_INT, polarization="single", stokes="I",
              device="cpu", threads=0),
        block("ib_iquv", "beamform_incoherent_beam", 450, 200, n_channels=N_CH,
              n_receivers=N_RX, n_int=N_INT, polarization="xy_pairs", stokes="IQUV",
              device="cpu", threads=0),
    ]
    for name, vlen, x in [("flagged_sink", N_CH, 600), ("iquv_sink", 4 * N_CH, 650)]:
        blocks.append(block(name, "blocks_file_sink", x, 100, type="float", vlen=vlen,
                            file=os.path.join(out_dir, name + ".bin"), append="False",
                            unbuffered="False"))
    connections = [("src", "head"), ("head", "flagger"), ("flagger", "ib_flagged"),
                   ("ib_flagged", "flagged_sink"), ("head", "ib_iquv"),
                   ("ib_iquv", "iquv_sink")]
    return flowgraph("rfi_incoherent_grc_test", blocks, connections)


@pytest.mark.skipif(shutil.which("grcc") is None, reason="grcc not installed")
def test_grc_blocks_compile_and_run(tmp_path):
    compile_and_run(tmp_path, "rfi_incoherent_grc_test", rfi_flowgraph(str(tmp_path)))

    flagged = np.fromfile(tmp_path / "flagged_sink.bin", np.float32).reshape(-1, N_CH)
    assert flagged.shape[0] == N_ITEMS // N_INT
    np.testing.assert_array_equal(flagged, 0.0)
    iquv = np.fromfile(tmp_path / "iquv_sink.bin", np.float32).reshape(-1, 4, N_CH)
    assert iquv.shape[0] == N_ITEMS // N_INT
    pairs = N_RX // 2
    xy = X * np.conj(Y)
    want = N_INT * pairs * np.array([abs(X) ** 2 + abs(Y) ** 2, abs(X) ** 2 - abs(Y) ** 2,
                                     2 * xy.real, 2 * xy.imag])
    np.testing.assert_allclose(iquv, np.broadcast_to(want[None, :, None], iquv.shape),
                               rtol=1e-6)
