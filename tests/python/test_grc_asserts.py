# Copyright 2026 gr-beamform authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""GRC refuses in the editor what a block would refuse at flowgraph start: each
[Beamform] block, placed with its defaults, passes its asserts; with one bad
value (those a GRC user met only at start: filterbank prefix 'a/b', Stokes 2,
tsamp 0, elevation 95, oversample 3, 3 delays for 96 receivers, device 'gpu',
...) the block shows a failed assertion, and the block's own constructor
rejects the same value.

GRC's own platform (the library grcc and gnuradio-companion load) is built
from grc/ plus GNU Radio's blocks, and each block is validated as the editor
does."""
import os

import pytest

GRC_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "grc")


@pytest.fixture(scope="module")
def platform():
    from gnuradio import gr
    try:
        from gnuradio.grc.core.platform import Platform
    except ImportError:
        pytest.skip("GNU Radio Companion's Python package is not installed")
    p = Platform(version=gr.version(),
                 version_parts=(gr.major_version(), gr.api_version(), gr.minor_version()),
                 prefs=gr.prefs())
    p.build_library([os.path.abspath(GRC_DIR),
                     os.path.join(gr.prefix(), "share", "gnuradio", "grc", "blocks")])
    return p


# Values the block's defaults leave to a flowgraph variable.
BASE = {
    "beamform_pfb_channelizer": {"sample_rate": "1e6"},
    "beamform_array_source": {"sample_rate": "1e6"},
}
BLOCKS = ["beamform_convert", "beamform_pfb_channelizer", "beamform_phase_shift",
          "beamform_tensor_beamformer", "beamform_bit_packer", "beamform_bit_unpacker",
          "beamform_filterbank_sink", "beamform_array_source", "beamform_rca_das",
          "beamform_rca_volume_views", "beamform_delay_tracker", "beamform_rfi_flagger",
          "beamform_incoherent_beam"]

# (block, parameter values, what the block itself says about them)
BAD = [
    ("beamform_filterbank_sink", {"prefix": "a/b"}, "prefix"),
    ("beamform_filterbank_sink", {"n_stokes": "2"}, "n_stokes"),
    ("beamform_filterbank_sink", {"tsamp": "0"}, "tsamp"),
    ("beamform_filterbank_sink", {"beam_az_el": "[0.0, 95.0]"}, "elevation"),
    ("beamform_filterbank_sink",
     {"channel_frequencies": "[1.4e9 + 1e5 * k for k in range(15)] + [1.5e9]"},
     "uniformly spaced"),
    ("beamform_phase_shift", {"pointing": "az_el", "positions": "[[0, 0, 0]] * 96",
                              "elevation": "95"}, "elevation"),
    ("beamform_phase_shift", {"delays": "[0.0, 1e-9, 2e-9]"}, "delays"),
    ("beamform_phase_shift", {"gains": "[1, 1]"}, "gains"),
    ("beamform_phase_shift", {"device": "gpu"}, "device"),
    ("beamform_pfb_channelizer", {"oversample": "3"}, "oversample"),
    ("beamform_convert", {"device": "cuda:x"}, "device"),
    ("beamform_tensor_beamformer", {"weights_from": "steering", "az_el": "[0.0, 95.0] * 4"},
     "elevation"),
    ("beamform_array_source", {"elevations": "[95.0]"}, "elevations"),
    ("beamform_array_source", {"frequency_offsets": "[2e6]"}, "frequency_offsets"),
    ("beamform_rca_das", {"source_depths": "[1e-3]"}, "source_depths"),
    ("beamform_rca_das", {"gpu_precision": "float16", "input_type": "float32"}, "gpu_precision"),
    ("beamform_rca_das", {"gpu_precision": "float16", "method": "conventional"},
     "gpu_precision"),
    ("beamform_rca_volume_views", {"x_index": "133"}, "x_index"),
    ("beamform_rca_volume_views", {"mode": "mip", "z_last": "250"}, "z_last"),
    ("beamform_delay_tracker", {"interval": "0"}, "interval_s"),
    ("beamform_delay_tracker", {"latitude": "95"}, "latitude_deg"),
    ("beamform_delay_tracker", {"phase_centre": "Cas A"}, "unknown target"),
    ("beamform_rfi_flagger", {"block_size": "1"}, "block_size"),
    ("beamform_rfi_flagger", {"pfa": "0.5"}, "pfa"),
    ("beamform_rfi_flagger", {"mad_threshold": "-1"}, "mad_threshold"),
    ("beamform_rfi_flagger", {"seed": "-1"}, "seed"),
    ("beamform_rfi_flagger", {"device": "gpu"}, "device"),
    ("beamform_incoherent_beam", {"n_int": "0"}, "n_int"),
    ("beamform_incoherent_beam", {"polarization": "xy_pairs", "n_receivers": "5"}, "even"),
]


def validated(platform, key, values):
    fg = platform.make_flow_graph()
    block = fg.new_block(key)
    block.params["id"].set_value("b0")
    for name, value in {**BASE.get(key, {}), **values}.items():
        block.params[name].set_value(value)
    fg.rewrite()
    fg.validate()
    return block, [m for m in block.get_error_messages() if "Assertion" in m]


@pytest.mark.parametrize("key", BLOCKS)
def test_defaults_pass_the_asserts(platform, key):
    block, failed = validated(platform, key, {})
    assert block.asserts, f"{key} has no asserts"
    assert failed == []


def test_rca_das_float16_with_its_int16_dual_stage_defaults_passes(platform):
    # The gpu_precision assert refuses only what the block refuses.
    _, failed = validated(platform, "beamform_rca_das", {"gpu_precision": "float16"})
    assert failed == []


@pytest.mark.parametrize("key,values,word", BAD,
                         ids=[f"{k[9:]}:{','.join(v)}" for k, v, _ in BAD])
def test_bad_value_fails_an_assert(platform, key, values, word):
    _, failed = validated(platform, key, values)
    assert failed, f"{key} {values}: no assertion failed"
    # The block's constructor refuses it too (so the assert rejects nothing valid).
    block, _ = validated(platform, key, values)
    first, *rest = block.templates.render("make").splitlines()
    namespace = {"self": type("top_block", (), {})()}
    exec(block.templates.render("imports"), namespace)
    with pytest.raises((ValueError, RuntimeError), match=word):
        exec("\n".join([f"self.b0 = {first}"] + [line.strip() for line in rest]), namespace)
