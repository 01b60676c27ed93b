# Copyright 2026 gr-beamform authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""Multi-channel SigMF recordings: round trips of samples, times and element
positions, the data file's interleaving checked byte by byte, the GNU Radio
source's items and tags, and bad metadata or data named with the file."""
import json
import os

import numpy as np
import pmt
import pytest
from gnuradio import blocks, gr
from hypothesis import HealthCheck, given, settings, strategies as st

from gnuradio import beamform
from gnuradio.beamform.sigmf_array import (aperture_to_enu, enu_to_aperture, read_sigmf_array,
                                           write_sigmf_array, write_sigmf_meta)

N_RX, N_SAMPLES = 5, 300
# 2026-11-24T00:00:00Z and a fraction.
START = (1795478400, 0.123456789)


def random_samples(rng, datatype):
    if datatype == "cf32_le":
        return (rng.standard_normal((N_SAMPLES, N_RX)) +
                1j * rng.standard_normal((N_SAMPLES, N_RX))).astype(np.complex64)
    top = 127 if datatype == "ci8" else 32767
    return (rng.integers(-top - 1, top + 1, (N_SAMPLES, N_RX)) +
            1j * rng.integers(-top - 1, top + 1, (N_SAMPLES, N_RX)))


def positions(rng):
    return rng.uniform(-3, 3, (N_RX, 3))


@pytest.mark.parametrize("datatype", ["ci8", "ci16_le", "cf32_le"])
def test_round_trip(tmp_path, rng, datatype):
    x, pos = random_samples(rng, datatype), positions(rng)
    meta, data = write_sigmf_array(tmp_path / "rec", x, 2.5e6, 433.92e6, datatype,
                                   positions=pos, start_time=START, hw="4 x B210",
                                   description="test", aperture_azimuth=30.0)
    rec = read_sigmf_array(tmp_path / "rec")
    assert (rec.datatype, rec.n_receivers, rec.n_samples) == (datatype, N_RX, N_SAMPLES)
    assert rec.item_format == {"ci8": "sc8", "ci16_le": "sc16", "cf32_le": "fc32"}[datatype]
    assert rec.sample_rate == 2.5e6 and rec.center_freq == 433.92e6
    assert rec.start_time[0] == START[0] and rec.start_time[1] == pytest.approx(START[1], abs=1e-9)
    np.testing.assert_allclose(rec.positions, pos, atol=1e-12)
    got = rec.samples()
    assert got.dtype == np.complex64 and got.shape == (N_SAMPLES, N_RX)
    np.testing.assert_array_equal(got, x.astype(np.complex64))
    np.testing.assert_array_equal(rec.samples(10, 20), got[10:20])
    g = json.load(open(meta))["global"]
    assert g["core:hw"] == "4 x B210" and g["core:description"] == "test"
    assert g["core:version"] and g["spatial:num_elements"] == N_RX
    assert read_sigmf_array(meta).n_samples == read_sigmf_array(data).n_samples == N_SAMPLES


def test_data_is_interleaved_frame_by_frame(tmp_path, rng):
    """Frame t holds channel 0..N-1 of sample t, each I then Q, int16 little-endian."""
    x = random_samples(rng, "ci16_le")
    _, data = write_sigmf_array(tmp_path / "rec", x, 1e6, 1e9, "ci16_le")
    raw = open(data, "rb").read()
    assert len(raw) == N_SAMPLES * N_RX * 4
    for _ in range(50):
        t, c = int(rng.integers(N_SAMPLES)), int(rng.integers(N_RX))
        at = (t * N_RX + c) * 4
        i = int.from_bytes(raw[at:at + 2], "little", signed=True)
        q = int.from_bytes(raw[at + 2:at + 4], "little", signed=True)
        assert complex(i, q) == x[t, c]


def test_aperture_frame(rng):
    """x along the boresight, y to its left, z up (right-handed)."""
    east, north, up = np.eye(3)
    np.testing.assert_allclose(enu_to_aperture([north, east, up], 0.0),
                               [[1, 0, 0], [0, -1, 0], [0, 0, 1]], atol=1e-15)
    np.testing.assert_allclose(enu_to_aperture([east, north], 90.0),
                               [[1, 0, 0], [0, 1, 0]], atol=1e-15)
    pos = positions(rng)
    np.testing.assert_allclose(aperture_to_enu(enu_to_aperture(pos, 47.0), 47.0), pos)


def test_meta_for_a_raw_recording(tmp_path, rng):
    """What an app that recorded [receivers] sc16 items with file_sink writes."""
    x = random_samples(rng, "ci16_le")
    path = tmp_path / "capture.sc16"
    np.stack([x.real, x.imag], -1).astype("<i2").tofile(path)
    pos = positions(rng)
    meta = write_sigmf_meta(path, "ci16_le", N_RX, 1e6, 2.4e9, positions=pos,
                            start_time=START[0] + START[1])
    assert meta == str(tmp_path / "capture.sc16.sigmf-meta")
    assert json.load(open(meta))["global"]["core:dataset"] == "capture.sc16"
    rec = read_sigmf_array(meta)
    assert rec.data_path == str(path)
    np.testing.assert_array_equal(rec.samples(), x.astype(np.complex64))
    np.testing.assert_allclose(rec.positions, pos)
    assert rec.start_time[0] == START[0]


def test_whole_array_geometry_and_unknown_points(tmp_path, rng):
    """element_geometry of the whole array (num_elements) with this dataset's
    channels from channel_index; unknown points are NaN."""
    x = random_samples(rng, "cf32_le")
    meta, _ = write_sigmf_array(tmp_path / "rec", x, 1e6, 1e9)
    m = json.load(open(meta))
    m["global"].update({"spatial:num_elements": 8, "spatial:channel_index": 2})
    pts = [{"point": [float(k), 0.0, 0.0]} for k in range(8)]
    pts[3] = {"unknown": True}
    m["captures"][0]["spatial:element_geometry"] = pts
    json.dump(m, open(meta, "w"))
    rec = read_sigmf_array(meta)
    assert np.isnan(rec.positions[1]).all()
    np.testing.assert_allclose(rec.positions[[0, 2, 3, 4]][:, 1], [2, 4, 5, 6])  # x -> north


def run_source(path, **kw):
    src = beamform.sigmf_array_source(str(path), **kw)
    rec = src.recording
    if rec.item_format == "fc32":
        sink = blocks.vector_sink_c(rec.n_receivers)
    elif rec.item_format == "sc16":
        sink = blocks.vector_sink_s(2 * rec.n_receivers)
    else:
        sink = blocks.vector_sink_b(2 * rec.n_receivers)
    tb = gr.top_block()
    tb.connect(src, sink)
    tb.run()
    return np.array(sink.data()), [(t.offset, pmt.symbol_to_string(t.key), t.value)
                                   for t in sink.tags()]


@pytest.mark.parametrize("datatype", ["ci8", "ci16_le", "cf32_le"])
def test_source_items_and_tags(tmp_path, rng, datatype):
    x = random_samples(rng, datatype)
    annotation = {"core:sample_start": 120, "core:sample_count": 30,
                  "core:description": "burst", "spatial:signal_azimuth": 133.8}
    meta, _ = write_sigmf_array(tmp_path / "rec", x, 2e6, 915e6, datatype,
                                positions=positions(rng), start_time=START,
                                annotations=[annotation])
    m = json.load(open(meta))  # a second capture retuned and re-timed at sample 200
    m["captures"].append({"core:sample_start": 200, "core:frequency": 916e6,
                          "core:datetime": "2026-11-24T00:00:01.5Z"})
    json.dump(m, open(meta, "w"))
    out, tags = run_source(meta, n_receivers=N_RX)
    if datatype == "cf32_le":
        got = out.reshape(N_SAMPLES, N_RX)
    else:
        if datatype == "ci8":  # vector_sink_b hands bytes back as 0..255
            out = out.astype(np.uint8).view(np.int8)
        got = out.reshape(N_SAMPLES, N_RX, 2).astype(np.int16)
        got = got[..., 0] + 1j * got[..., 1]
    np.testing.assert_array_equal(got, x.astype(np.complex64))
    by = {}
    for offset, key, value in tags:
        by.setdefault(key, []).append((offset, value))
    assert [o for o, _ in by["rx_time"]] == [0, 200]
    t0, t1 = (tuple(pmt.to_python(v)) for _, v in by["rx_time"])
    assert t0[0] == START[0] and t0[1] == pytest.approx(START[1], abs=1e-9)
    assert t1 == (START[0] + 1, 0.5)
    assert [(o, pmt.to_double(v)) for o, v in by["rx_freq"]] == [(0, 915e6), (200, 916e6)]
    assert [(o, pmt.to_double(v)) for o, v in by["rx_rate"]] == [(0, 2e6), (200, 2e6)]
    (offset, value), = by["sigmf_annotation"]
    assert offset == 120 and pmt.to_python(value)["core:description"] == "burst"


def test_source_checks_the_layout(tmp_path, rng):
    meta, _ = write_sigmf_array(tmp_path / "rec", random_samples(rng, "ci16_le"), 1e6, 1e9,
                                "ci16_le")
    with pytest.raises(ValueError, match="n_receivers = 4.*core:num_channels 5"):
        beamform.sigmf_array_source(meta, n_receivers=4)
    with pytest.raises(ValueError, match="item_format = 'fc32'.*ci16_le"):
        beamform.sigmf_array_source(meta, item_format="fc32")


# -- bad input ----------------------------------------------------------------

def edited(tmp_path, rng, edit, datatype="ci16_le"):
    meta, _ = write_sigmf_array(tmp_path / "rec", random_samples(rng, datatype), 1e6, 1e9,
                                datatype, positions=positions(rng))
    m = json.load(open(meta))
    edit(m)
    json.dump(m, open(meta, "w"))
    return meta


def test_missing_datatype(tmp_path, rng):
    meta = edited(tmp_path, rng, lambda m: m["global"].pop("core:datatype"))
    with pytest.raises(ValueError, match=rf"{meta}: global has no core:datatype"):
        read_sigmf_array(meta)


@pytest.mark.parametrize("datatype", ["ci16_be", "cf64_le", "ri16_le", "cu8"])
def test_unsupported_datatype(tmp_path, rng, datatype):
    meta = edited(tmp_path, rng, lambda m: m["global"].update({"core:datatype": datatype}))
    with pytest.raises(ValueError, match=rf"core:datatype = '{datatype}' is not supported "
                                         r"\(accepted: ci8, ci16_le, cf32_le\)"):
        read_sigmf_array(meta)


def test_num_channels_inconsistent_with_positions(tmp_path, rng):
    def edit(m):
        m["captures"][0]["spatial:element_geometry"].pop()
        m["global"]["spatial:num_elements"] = N_RX - 1
    meta = edited(tmp_path, rng, edit)
    with pytest.raises(ValueError, match=rf"{meta}: captures\[0\]: spatial:element_geometry has "
                                         rf"{N_RX - 1} points.*core:num_channels is {N_RX}"):
        read_sigmf_array(meta)


def test_data_not_a_whole_number_of_frames(tmp_path, rng):
    meta = edited(tmp_path, rng, lambda m: None)
    data = str(tmp_path / "rec.sigmf-data")
    with open(data, "ab") as f:
        f.write(b"\0" * 6)
    frame = N_RX * 4
    with pytest.raises(ValueError, match=rf"{data}: {N_SAMPLES * frame + 6} bytes .* {frame}-byte "
                                         rf"frames .* partial frame starts at byte "
                                         rf"{N_SAMPLES * frame}"):
        read_sigmf_array(meta)
    with pytest.raises(ValueError, match=rf"partial frame starts at byte {N_SAMPLES * frame}"):
        write_sigmf_meta(data, "ci16_le", N_RX, 1e6, 1e9)


def test_invalid_json_and_values(tmp_path, rng):
    meta = edited(tmp_path, rng, lambda m: None)
    text = open(meta).read()
    open(meta, "w").write(text[:40])
    with pytest.raises(ValueError, match=rf"{meta}: not JSON at byte \d+"):
        read_sigmf_array(meta)
    for key, value, word in [("core:sample_rate", -1.0, "core:sample_rate = -1.0 is not > 0"),
                             ("core:num_channels", "5", "core:num_channels = '5' is not an int")]:
        meta = edited(tmp_path, rng, lambda m: m["global"].update({key: value}))
        with pytest.raises(ValueError, match=word):
            read_sigmf_array(meta)
    meta = edited(tmp_path, rng, lambda m: m["captures"][0].update(
        {"core:datetime": "2026-11-24 00:00:00"}))
    with pytest.raises(ValueError, match="core:datetime = '2026-11-24 00:00:00' is not ISO 8601"):
        read_sigmf_array(meta)
    meta = edited(tmp_path, rng, lambda m: m["captures"][0].update(
        {"spatial:aperture_rotation": 180.0}))
    with pytest.raises(ValueError, match="rotated aperture"):
        read_sigmf_array(meta)


def test_writer_refuses_what_it_would_clip_or_misplace(tmp_path, rng):
    with pytest.raises(ValueError, match="do not fit ci8"):
        write_sigmf_array(tmp_path / "a", np.full((4, 2), 200 + 0j), 1e6, 1e9, "ci8")
    with pytest.raises(ValueError, match=r"positions: shape \(3, 3\), expected \(2, 3\)"):
        write_sigmf_array(tmp_path / "b", np.zeros((4, 2), complex), 1e6, 1e9,
                          positions=np.zeros((3, 3)))
    with pytest.raises(ValueError, match="datatype = 'ci32_le'"):
        write_sigmf_array(tmp_path / "c", np.zeros((4, 2), complex), 1e6, 1e9, "ci32_le")


def test_grc_block_validates(tmp_path, rng):
    """The GRC block's asserts pass for a real file and the generated make line runs."""
    try:
        from gnuradio.grc.core.platform import Platform
    except ImportError:
        pytest.skip("GNU Radio Companion's Python package is not installed")
    meta, _ = write_sigmf_array(tmp_path / "rec", random_samples(rng, "ci16_le"), 1e6, 1e9,
                                "ci16_le")
    grc_dir = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "grc")
    p = Platform(version=gr.version(),
                 version_parts=(gr.major_version(), gr.api_version(), gr.minor_version()),
                 prefs=gr.prefs())
    p.build_library([os.path.abspath(grc_dir),
                     os.path.join(gr.prefix(), "share", "gnuradio", "grc", "blocks")])
    fg = p.make_flow_graph()
    block = fg.new_block("beamform_sigmf_array_source")
    block.params["id"].set_value("b0")
    block.params["path"].set_value(f"'{meta}'")
    block.params["n_receivers"].set_value(str(N_RX))
    fg.rewrite()
    fg.validate()
    assert [m for m in block.get_error_messages() if "Assertion" in m] == []
    namespace = {}
    exec(block.templates.render("imports"), namespace)
    made = eval(" ".join(block.templates.render("make").split()), namespace)
    assert made.output_signature().sizeof_stream_item(0) == 4 * N_RX
    block.params["n_receivers"].set_value("0")
    fg.rewrite()
    fg.validate()
    assert [m for m in block.get_error_messages() if "Assertion" in m]


# -- damaged metadata: ValueError naming the file, or a clean read ------------

DAMAGE_EXAMPLES = int(os.environ.get("BEAMFORM_FUZZ_EXAMPLES", "0")) or 200
JSON_VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-2**40, 2**40), st.integers(-2, 12),
              st.floats(allow_nan=False), st.sampled_from(["ci8", "ci16_le", "cf32_le", "x"]),
              st.text(max_size=8)),
    lambda inner: st.one_of(st.lists(inner, max_size=6),
                            st.dictionaries(st.sampled_from(["point", "unknown", "azimuth",
                                                             "elevation"]), inner, max_size=3)),
    max_leaves=8)
GLOBAL_KEYS = ["core:datatype", "core:sample_rate", "core:num_channels", "core:trailing_bytes",
               "spatial:num_elements", "spatial:channel_index"]
CAPTURE_KEYS = ["core:sample_start", "core:frequency", "core:datetime", "core:header_bytes",
                "spatial:element_geometry", "spatial:aperture_azimuth",
                "spatial:aperture_bearing", "spatial:aperture_rotation"]


@settings(max_examples=DAMAGE_EXAMPLES, deadline=None, database=None,
          derandomize="BEAMFORM_FUZZ_EXAMPLES" not in os.environ,
          suppress_health_check=list(HealthCheck))
@given(edits=st.lists(st.tuples(st.sampled_from(GLOBAL_KEYS + CAPTURE_KEYS), JSON_VALUES),
                      min_size=1, max_size=3))
def test_damaged_metadata_is_refused_with_value_error(tmp_path_factory, edits):
    base = tmp_path_factory.mktemp("meta") / "rec"
    rng = np.random.default_rng(0)
    meta, _ = write_sigmf_array(base, random_samples(rng, "ci16_le"), 1e6, 1e9, "ci16_le",
                                positions=positions(rng), start_time=START)
    m = json.load(open(meta))
    for key, value in edits:
        (m["global"] if key in GLOBAL_KEYS else m["captures"][0])[key] = value
    json.dump(m, open(meta, "w"))
    try:
        rec = read_sigmf_array(meta, log=lambda message: None)
    except ValueError as e:
        assert meta in str(e) or str(base) in str(e)
        return
    assert rec.samples().shape == (rec.n_samples, rec.n_receivers)
    assert rec.positions is None or rec.positions.shape == (rec.n_receivers, 3)
