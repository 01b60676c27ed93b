# Copyright 2026 gr-beamform authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""GUPPI RAW files: the writer against the format's byte layout, the reader
and the GNU Radio source against the writer's random samples, block times,
PKTIDX gaps, and every bad input named with its file and byte offset."""
import os

import numpy as np
import pmt
import pytest
from gnuradio import blocks, gr
from hypothesis import HealthCheck, given, settings, strategies as st

from gnuradio import beamform
from gnuradio.beamform.guppi_raw import (GuppiRawFile, format_guppi_card, parse_guppi_card,
                                         write_guppi_raw)

N_ANT, N_CHAN, N_POL, N_TIME, N_BLOCKS = 2, 4, 2, 64, 3
HEADER = {"OBSFREQ": 1420.0, "OBSBW": -4.0, "TBIN": 1e-6, "STT_IMJD": 60000,
          "STT_SMJD": 3600, "STT_OFFS": 0.25, "SRC_NAME": "3C286",
          "RA_STR": "13:31:08.288", "DEC_STR": "+30:30:32.96"}
# MJD 60000 is 2023-02-25, 19413 days after the Unix epoch.
STT_UNIX = 19413 * 86400 + 3600


def random_blocks(rng, n_bits, n_blocks=N_BLOCKS, n_time=N_TIME):
    top = 127 if n_bits == 8 else 32767
    shape = (n_time, N_CHAN, N_ANT * N_POL)
    return [(rng.integers(-top - 1, top + 1, shape) + 1j * rng.integers(-top - 1, top + 1, shape))
            for _ in range(n_blocks)]


def write(path, rng, n_bits=8, directio=False, pktidx=None, header=HEADER, **kw):
    data = random_blocks(rng, n_bits)
    write_guppi_raw(path, data, header, n_antennas=N_ANT, n_bits=n_bits, directio=directio,
                    pktidx=pktidx, **kw)
    return data


def rewrite_card(path, key, new_card):
    """Replace every card of `key` in the file by new_card (80 bytes)."""
    raw = bytearray(open(path, "rb").read())
    old = key.ljust(8).encode() + b"= "
    at, i = [], raw.find(old)
    while i >= 0:  # (random data bytes could match 10 bytes only by a 2^-80 chance)
        at.append(i)
        i = raw.find(old, i + 80)
    assert at, key
    for i in at:
        raw[i:i + 80] = new_card
    open(path, "wb").write(bytes(raw))
    return at


@pytest.mark.parametrize("n_bits", [8, 16])
@pytest.mark.parametrize("directio", [False, True])
def test_round_trip_values_and_header(tmp_path, rng, n_bits, directio):
    path = tmp_path / "obs.raw"
    data = write(path, rng, n_bits, directio)
    f = GuppiRawFile(path)
    assert (f.n_antennas, f.n_channels, f.n_pols, f.n_time, f.n_bits) == \
        (N_ANT, N_CHAN, N_POL, N_TIME, n_bits)
    assert len(f.blocks) == N_BLOCKS and f.truncated is None and f.discontinuities == []
    for i, block in enumerate(data):
        got = f.block_samples(i)
        assert got.dtype == np.complex64 and got.shape == (N_TIME, N_CHAN, N_ANT * N_POL)
        np.testing.assert_array_equal(got, block)
    np.testing.assert_array_equal(f.read(), np.concatenate(data))
    h = f.header
    assert h["SRC_NAME"] == "3C286" and h["OBSNCHAN"] == N_ANT * N_CHAN and h["NANTS"] == N_ANT
    assert h["BLOCSIZE"] == N_ANT * N_CHAN * N_TIME * N_POL * 2 * n_bits // 8
    assert f.sample_rate == pytest.approx(1e6) and f.center_freq == pytest.approx(1.42e9)
    if directio:  # headers padded to 512 bytes: data starts on a 512-byte boundary
        assert all(b.data_offset % 512 == 0 for b in f.blocks)
    else:
        assert f.blocks[0].data_offset == 80 * (len(h) + 1)


@pytest.mark.parametrize("n_bits", [8, 16])
def test_byte_layout_is_channel_time_pol_iq(tmp_path, rng, n_bits):
    """The bytes at the offsets the format defines: channel (antenna-major),
    then time, then polarisation, then I and Q, little-endian two's complement."""
    path = tmp_path / "obs.raw"
    data = write(path, rng, n_bits, directio=True)
    f = GuppiRawFile(path)
    raw = open(path, "rb").read()
    size = n_bits // 8
    for _ in range(50):
        b, ant, c, t, p = (int(rng.integers(n)) for n in (N_BLOCKS, N_ANT, N_CHAN, N_TIME, N_POL))
        at = f.blocks[b].data_offset + ((((ant * N_CHAN + c) * N_TIME + t) * N_POL + p) * 2) * size
        i = int.from_bytes(raw[at:at + size], "little", signed=True)
        q = int.from_bytes(raw[at + size:at + 2 * size], "little", signed=True)
        assert complex(i, q) == data[b][t, c, ant * N_POL + p]


def test_block_times_from_stt_and_pktidx(tmp_path, rng):
    path = tmp_path / "obs.raw"
    write(path, rng, pktidx=[1000, 1064, 1128], header={**HEADER, "PKTSTART": 1000})
    f = GuppiRawFile(path)
    assert f.samples_per_pktidx_source == "PIPERBLK"
    for i in range(N_BLOCKS):
        whole, fraction = f.block_time(i)
        assert whole == STT_UNIX
        assert fraction == pytest.approx(0.25 + i * N_TIME * 1e-6, abs=1e-12)


def test_samples_per_pktidx_from_the_step_when_no_piperblk(tmp_path, rng):
    """Without PIPERBLK, PKTIDX units per block come from the most common step
    (here 8 units per 64-sample block; one jump of 16 is a gap, not the unit)."""
    path = tmp_path / "obs.raw"
    data = random_blocks(rng, 8, n_blocks=4)
    write_guppi_raw(path, data, HEADER, n_antennas=N_ANT, pktidx=[0, 8, 16, 32], piperblk=8)
    rewrite_card(path, "PIPERBLK", format_guppi_card("NOTPIPER", 8))
    f = GuppiRawFile(path)
    assert f.samples_per_pktidx_source == "PKTIDX step" and f.samples_per_pktidx == 8
    assert f.block_start == [0, 64, 128, 256]
    assert [(d["block"], d["missing_samples"]) for d in f.discontinuities] == [(3, 64)]
    # The caller's value wins.
    assert GuppiRawFile(path, samples_per_pktidx=4).block_start == [0, 32, 64, 128]


def test_header_cards(tmp_path):
    assert parse_guppi_card(format_guppi_card("SRC_NAME", "B0329+54")) == ("SRC_NAME", "B0329+54")
    assert parse_guppi_card(format_guppi_card("OBSERVER", "O'Neil")) == ("OBSERVER", "O'Neil")
    assert parse_guppi_card(format_guppi_card("TBIN", 3.2e-7)) == ("TBIN", 3.2e-7)
    assert parse_guppi_card(format_guppi_card("PKTIDX", 123456789012)) == ("PKTIDX", 123456789012)
    assert parse_guppi_card(format_guppi_card("ONLINE", True)) == ("ONLINE", True)
    assert parse_guppi_card(b"OBSFREQ = 1.5D3 / MHz".ljust(80)) == ("OBSFREQ", 1500.0)
    assert parse_guppi_card(b"PROJID  = 'AGBT19B'   / project".ljust(80)) == ("PROJID", "AGBT19B")
    with pytest.raises(ValueError, match="80 characters"):
        format_guppi_card("SRC_NAME", "x" * 80)


def test_sky_position(tmp_path, rng):
    path = tmp_path / "obs.raw"
    write(path, rng)
    name, ra, dec = GuppiRawFile(path).sky_position()
    assert name == "3C286"
    assert ra == pytest.approx(15 * (13 + 31 / 60 + 8.288 / 3600))
    assert dec == pytest.approx(30 + 30 / 60 + 32.96 / 3600)


def run_source(path, **kw):
    src = beamform.guppi_raw_source(str(path), **kw)
    sink = blocks.vector_sink_c(N_CHAN * N_ANT * N_POL)
    tb = gr.top_block()
    tb.connect(src, sink)
    tb.run()
    data = np.array(sink.data(), np.complex64).reshape(-1, N_CHAN, N_ANT * N_POL)
    tags = [(t.offset, pmt.symbol_to_string(t.key), t.value) for t in sink.tags()]
    return src, data, tags


def rx_time(value):
    return (pmt.to_uint64(pmt.tuple_ref(value, 0)), pmt.to_double(pmt.tuple_ref(value, 1)))


def test_source_item_order_and_tags(tmp_path, rng):
    path = tmp_path / "obs.raw"
    data = write(path, rng, 16, True)
    src, out, tags = run_source(path, n_channels=N_CHAN, n_receivers=N_ANT * N_POL)
    np.testing.assert_array_equal(out, np.concatenate(data))
    assert src.gaps == 0 and src.missing_samples == 0
    keys = {(o, k) for o, k, _ in tags}
    assert {(0, "rx_time"), (0, "rx_rate"), (0, "rx_freq")} <= keys
    assert sorted(o for o, k, _ in tags if k == "rx_time") == [0]
    assert sorted(o for o, k, _ in tags if k == "guppi_header") == [0, 64, 128]
    value = {k: v for o, k, v in tags if o == 0}
    assert rx_time(value["rx_time"]) == (STT_UNIX, 0.25)
    assert pmt.to_double(value["rx_rate"]) == pytest.approx(1e6)
    assert pmt.to_double(value["rx_freq"]) == pytest.approx(1.42e9)
    header = pmt.to_python(value["guppi_header"])
    assert header["SRC_NAME"] == "3C286" and header["BLOCK"] == 0


def test_source_zero_fills_a_pktidx_gap(tmp_path, rng):
    path = tmp_path / "obs.raw"
    data = write(path, rng, pktidx=[0, 64, 192])  # one block (64 samples) missing
    src, out, tags = run_source(path)
    assert (src.gaps, src.missing_samples, src.filled_samples) == (1, 64, 64)
    expected = np.concatenate([data[0], data[1], np.zeros_like(data[0]), data[2]])
    np.testing.assert_array_equal(out, expected)
    gap = [(o, pmt.to_python(v)) for o, k, v in tags if k == "guppi_gap"]
    assert gap == [(128, {"missing_samples": 64, "block": 2, "filled": True})]
    assert sorted(o for o, k, _ in tags if k == "rx_time") == [0]  # time stays exact


@pytest.mark.parametrize("kw", [{"zero_fill": False}, {"max_fill_blocks": 1}])
def test_source_tags_a_gap_it_does_not_fill(tmp_path, rng, kw):
    path = tmp_path / "obs.raw"
    data = write(path, rng, pktidx=[0, 64, 256])  # 128 samples (2 blocks) missing
    src, out, tags = run_source(path, **kw)
    assert (src.gaps, src.missing_samples, src.filled_samples) == (1, 128, 0)
    np.testing.assert_array_equal(out, np.concatenate(data))
    times = {o: rx_time(v) for o, k, v in tags if k == "rx_time"}
    assert sorted(times) == [0, 128]
    assert times[128][0] == STT_UNIX and times[128][1] == pytest.approx(0.25 + 256e-6)
    gap = [(o, pmt.to_python(v)) for o, k, v in tags if k == "guppi_gap"]
    assert gap == [(128, {"missing_samples": 128, "block": 2, "filled": False})]


def test_source_refuses_a_layout_the_flowgraph_was_not_built_for(tmp_path, rng):
    path = tmp_path / "obs.raw"
    write(path, rng)
    with pytest.raises(ValueError, match="n_channels = 8.*holds 4"):
        beamform.guppi_raw_source(str(path), n_channels=8)
    with pytest.raises(ValueError, match="n_receivers = 2.*holds 4"):
        beamform.guppi_raw_source(str(path), n_receivers=2)
    with pytest.raises(ValueError, match="max_fill_blocks"):
        beamform.guppi_raw_source(str(path), max_fill_blocks=-1)


# -- bad input ----------------------------------------------------------------

def test_malformed_card(tmp_path, rng):
    path = tmp_path / "obs.raw"
    write(path, rng)
    at = rewrite_card(path, "TBIN", b"TBIN    == 1e-6".ljust(80))
    with pytest.raises(ValueError, match=rf"{path}: GUPPI header card at byte {at[0]} is not"):
        GuppiRawFile(path)


def test_unquoted_garbage_value(tmp_path, rng):
    path = tmp_path / "obs.raw"
    write(path, rng)
    at = rewrite_card(path, "SRC_NAME", b"SRC_NAME= 3C286".ljust(80))
    with pytest.raises(ValueError, match=rf"byte {at[0]}: the value of SRC_NAME"):
        GuppiRawFile(path)


@pytest.mark.parametrize("directio", [False, True])
def test_missing_end_card(tmp_path, rng, directio):
    path = tmp_path / "obs.raw"
    write(path, rng, directio=directio)
    raw = open(path, "rb").read()
    end = raw.index(b"END" + b" " * 77)
    open(path, "wb").write(raw[:end] + b"COMMENT = 'no end'".ljust(80) + raw[end + 80:])
    with pytest.raises(ValueError, match=rf"{path}: GUPPI header card at byte {end + 80}.*END"):
        GuppiRawFile(path)


def test_missing_required_card(tmp_path, rng):
    path = tmp_path / "obs.raw"
    write(path, rng)
    rewrite_card(path, "TBIN", format_guppi_card("TBINX", 1e-6))
    with pytest.raises(ValueError, match=rf"{path}: GUPPI header at byte 0 has no TBIN"):
        GuppiRawFile(path)


def test_truncated_data_at_end_of_file(tmp_path, rng):
    path = tmp_path / "obs.raw"
    data = write(path, rng)
    size = os.path.getsize(path)
    with open(path, "r+b") as f:
        f.truncate(size - 100)
    start = 2 * (size // 3)  # blocks of one size: block 2 starts there
    with pytest.raises(ValueError, match=rf"{path}: truncated GUPPI block 2: .*"
                                         rf"{size - 100 - start} bytes present from byte {start}"):
        GuppiRawFile(path)
    warnings = []
    f = GuppiRawFile(path, allow_truncated=True, log=warnings.append)
    assert len(f.blocks) == 2 and f.truncated["offset"] == start
    assert f.truncated["present"] == size - 100 - start and f.truncated["needed"] == size // 3
    assert len(warnings) == 1 and "truncated GUPPI block 2" in warnings[0]
    np.testing.assert_array_equal(f.read(), np.concatenate(data[:2]))


def test_truncated_header_at_end_of_file(tmp_path, rng):
    path = tmp_path / "obs.raw"
    write(path, rng)
    size = os.path.getsize(path)
    with open(path, "ab") as f:
        f.write(format_guppi_card("BLOCSIZE", 4096) + format_guppi_card("NBITS", 8)[:50])
    with pytest.raises(ValueError, match=rf"truncated GUPPI block 3: header at byte {size} has "
                                         "no END card"):
        GuppiRawFile(path)
    f = GuppiRawFile(path, allow_truncated=True, log=lambda m: None)
    assert len(f.blocks) == 3 and f.truncated["offset"] == size and f.truncated["present"] == 130


def test_nbits_4_is_refused(tmp_path, rng):
    path = tmp_path / "obs.raw"
    write(path, rng)
    rewrite_card(path, "NBITS", format_guppi_card("NBITS", 4))
    with pytest.raises(ValueError, match=rf"{path}: GUPPI card NBITS = 4 in the header at byte 0 "
                                         r"is not supported \(accepted: \(8, 16\)\)"):
        GuppiRawFile(path)


def test_blocsize_inconsistent_with_the_layout(tmp_path, rng):
    path = tmp_path / "obs.raw"
    write(path, rng)
    rewrite_card(path, "BLOCSIZE", format_guppi_card("BLOCSIZE", 2050))
    with pytest.raises(ValueError, match=rf"{path}: GUPPI card BLOCSIZE = 2050 in the header at "
                                         "byte 0 is not a whole number of time samples"):
        GuppiRawFile(path)


def test_npol_and_nants_checked(tmp_path, rng):
    path = tmp_path / "obs.raw"
    write(path, rng)
    rewrite_card(path, "NANTS", format_guppi_card("NANTS", 3))
    with pytest.raises(ValueError, match="OBSNCHAN = 8, NANTS = 3"):
        GuppiRawFile(path)
    write(path, rng)
    rewrite_card(path, "NPOL", format_guppi_card("NPOL", 3))
    with pytest.raises(ValueError, match="NPOL = 3 in the header at byte 0"):
        GuppiRawFile(path)


def test_a_card_that_changes_between_blocks(tmp_path, rng):
    path = tmp_path / "obs.raw"
    write(path, rng)
    raw = bytearray(open(path, "rb").read())
    second = raw.index(b"OBSFREQ ", 80)  # the first block's card is in the first cards
    second = raw.index(b"OBSFREQ ", second + 80)
    raw[second:second + 80] = format_guppi_card("OBSFREQ", 1421.0)
    open(path, "wb").write(bytes(raw))
    with pytest.raises(ValueError, match="OBSFREQ = 1421.0 in the header at byte"):
        GuppiRawFile(path)


def test_npol_4_means_two_polarisations(tmp_path, rng):
    path = tmp_path / "obs.raw"
    data = write(path, rng)
    rewrite_card(path, "NPOL", format_guppi_card("NPOL", 4))
    f = GuppiRawFile(path)
    assert f.n_pols == 2
    np.testing.assert_array_equal(f.block_samples(1), data[1])


def test_writer_refuses_values_it_would_clip(tmp_path):
    block = np.full((N_TIME, N_CHAN, 2), 128 + 0j)
    with pytest.raises(ValueError, match="do not fit 8-bit"):
        write_guppi_raw(tmp_path / "x.raw", [block], HEADER)


def test_grc_block_validates(tmp_path, rng):
    """The GRC block's asserts pass for a real file and the generated make line runs."""
    try:
        from gnuradio.grc.core.platform import Platform
    except ImportError:
        pytest.skip("GNU Radio Companion's Python package is not installed")
    path = tmp_path / "obs.raw"
    write(path, rng)
    grc_dir = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "grc")
    p = Platform(version=gr.version(),
                 version_parts=(gr.major_version(), gr.api_version(), gr.minor_version()),
                 prefs=gr.prefs())
    p.build_library([os.path.abspath(grc_dir),
                     os.path.join(gr.prefix(), "share", "gnuradio", "grc", "blocks")])
    fg = p.make_flow_graph()
    block = fg.new_block("beamform_guppi_raw_source")
    block.params["id"].set_value("b0")
    for name, value in {"path": f"'{path}'", "n_channels": str(N_CHAN),
                        "n_receivers": str(N_ANT * N_POL)}.items():
        block.params[name].set_value(value)
    fg.rewrite()
    fg.validate()
    assert [m for m in block.get_error_messages() if "Assertion" in m] == []
    namespace = {}
    exec(block.templates.render("imports"), namespace)
    made = eval(" ".join(block.templates.render("make").split()), namespace)
    assert made.output_signature().sizeof_stream_item(0) == 8 * N_CHAN * N_ANT * N_POL
    block.params["max_fill_blocks"].set_value("-1")
    fg.rewrite()
    fg.validate()
    assert [m for m in block.get_error_messages() if "Assertion" in m]


def test_source_feeds_phase_shift(tmp_path, rng):
    """The items are the spectra phase_shift takes: a gain of 2 on every
    receiver doubles them; the channel frequencies come from the file."""
    path = tmp_path / "obs.raw"
    data = write(path, rng)
    src = beamform.guppi_raw_source(str(path))
    f = src.file
    # OBSBW -4 MHz over 4 channels: 1 MHz each (TBIN 1 us), descending.
    assert f.channel_frequencies() == pytest.approx(1.42e9 + 1e6 * np.array([1.5, 0.5, -0.5, -1.5]))
    shift = beamform.phase_shift(f.n_channels, f.n_receivers, list(f.channel_frequencies()),
                                 1.0 / f.sample_rate, [], [], [2.0 + 0j], 0.0, "cpu")
    sink = blocks.vector_sink_c(f.n_channels * f.n_receivers)
    tb = gr.top_block()
    tb.connect(src, shift, sink)
    tb.run()
    out = np.array(sink.data()).reshape(-1, f.n_channels, f.n_receivers)
    np.testing.assert_allclose(out, 2 * np.concatenate(data), rtol=1e-6)
    assert any(pmt.symbol_to_string(t.key) == "rx_time" and t.offset == 0 for t in sink.tags())


# -- damaged files: ValueError or a clean read, never another exception -------

DAMAGE_EXAMPLES = int(os.environ.get("BEAMFORM_FUZZ_EXAMPLES", "0")) or 200


@settings(max_examples=DAMAGE_EXAMPLES, deadline=None, database=None,
          derandomize="BEAMFORM_FUZZ_EXAMPLES" not in os.environ,
          suppress_health_check=list(HealthCheck))
@given(edits=st.lists(st.tuples(st.integers(0, 3 * 80 * 20), st.binary(min_size=1, max_size=12)),
                      min_size=1, max_size=4),
       cut=st.one_of(st.none(), st.integers(0, 12000)), directio=st.booleans())
def test_damaged_files_are_refused_with_value_error(tmp_path_factory, edits, cut, directio):
    path = tmp_path_factory.mktemp("damaged") / "obs.raw"
    write(path, np.random.default_rng(0), directio=directio)
    starts = [b.header_offset for b in GuppiRawFile(path).blocks]
    raw = bytearray(open(path, "rb").read())
    for where, new in edits:  # bytes overwritten in one of the headers
        at = starts[where % len(starts)] + where // len(starts) % 1600
        raw[at:at + len(new)] = new
    if cut is not None:
        raw = raw[:cut]
    open(path, "wb").write(bytes(raw))
    for allow in (False, True):
        try:
            f = GuppiRawFile(path, allow_truncated=allow, log=lambda m: None)
        except ValueError as e:
            assert str(path) in str(e)
            continue
        for i in range(len(f.blocks)):
            assert f.block_samples(i).shape == (f.n_time, f.n_channels, f.n_receivers)
            f.block_time(i)


CARD_KEYS = ["BLOCSIZE", "OBSNCHAN", "NPOL", "NBITS", "NANTS", "OBSFREQ", "OBSBW", "TBIN",
             "STT_IMJD", "STT_SMJD", "STT_OFFS", "PKTIDX", "PIPERBLK", "DIRECTIO", "RA_STR"]
CARD_VALUES = st.one_of(st.integers(-2**70, 2**70), st.integers(-3, 5000),
                        st.floats(allow_nan=True, allow_infinity=True),
                        st.text("0123456789.:+-eE' TF", max_size=12))


@settings(max_examples=DAMAGE_EXAMPLES, deadline=None, database=None,
          derandomize="BEAMFORM_FUZZ_EXAMPLES" not in os.environ,
          suppress_health_check=list(HealthCheck))
@given(cards=st.lists(st.tuples(st.integers(0, 2), st.sampled_from(CARD_KEYS), CARD_VALUES),
                      min_size=1, max_size=3),
       directio=st.booleans())
def test_damaged_card_values_are_refused_with_value_error(tmp_path_factory, cards, directio):
    path = tmp_path_factory.mktemp("cards") / "obs.raw"
    write(path, np.random.default_rng(0), directio=directio)
    raw = bytearray(open(path, "rb").read())
    blocks_at = [b.header_offset for b in GuppiRawFile(path).blocks]
    for block, key, value in cards:
        at = raw.find(key.ljust(8).encode() + b"= ", blocks_at[block])
        raw[at:at + 80] = f"{key:<8}= {value}".ljust(80)[:80].encode()
    open(path, "wb").write(bytes(raw))
    try:
        f = GuppiRawFile(path, log=lambda m: None)
    except ValueError as e:
        assert str(path) in str(e)
        return
    for i in range(len(f.blocks)):
        assert f.block_samples(i).shape == (f.n_time, f.n_channels, f.n_receivers)
        f.block_time(i)
    try:
        f.sky_position()
    except ValueError as e:  # an RA_STR that is no angle
        assert "RA_STR" in str(e) and str(path) in str(e)


@pytest.mark.parametrize("second_pktidx,missing", [([128, 192], 0), ([192, 256], 64)])
def test_source_reads_a_scan_split_over_files(tmp_path, rng, second_pktidx, missing):
    """A scan's .0000.raw and .0001.raw read as one stream, given as a glob;
    PKTIDX continues across the files, and a gap between them is filled."""
    first = random_blocks(rng, 8, n_blocks=2)
    write_guppi_raw(tmp_path / "scan.0000.raw", first, HEADER, n_antennas=N_ANT, pktidx=[0, 64])
    data = random_blocks(rng, 8, n_blocks=2)
    write_guppi_raw(tmp_path / "scan.0001.raw", data, HEADER, n_antennas=N_ANT,
                    pktidx=second_pktidx)
    src, out, tags = run_source(str(tmp_path / "scan.*.raw"))
    assert len(src.files) == 2 and (src.gaps, src.missing_samples) == (bool(missing), missing)
    zeros = [np.zeros_like(data[0][:missing])]
    np.testing.assert_array_equal(out, np.concatenate([*first, *zeros, *data]))
    headers = [(o, pmt.to_python(v)) for o, k, v in tags if k == "guppi_header"]
    assert [h["FILE"].endswith(".0001.raw") for _, h in headers] == [False, False, True, True]
    assert sorted(o for o, k, _ in tags if k == "rx_time") == [0]


def test_source_refuses_files_of_different_layouts(tmp_path, rng):
    write(tmp_path / "a.raw", rng)
    write(tmp_path / "b.raw", rng, header={**HEADER, "TBIN": 2e-6})
    with pytest.raises(ValueError, match=r"b.raw: tbin = 2e-06 differs from 1e-06 in .*a.raw"):
        beamform.guppi_raw_source([str(tmp_path / "a.raw"), str(tmp_path / "b.raw")])
    with pytest.raises(ValueError, match="matches no file"):
        beamform.guppi_raw_source(str(tmp_path / "none.*.raw"))


@pytest.mark.parametrize("pad_data", [False, True])
def test_directio_data_not_a_multiple_of_512(tmp_path, rng, pad_data):
    """With DIRECTIO, a block's data of 160 bytes may or may not be padded to
    512 bytes: the next header is found either way."""
    blocks_iq = [rng.integers(-128, 128, (4, 10, 2, 2)).astype(np.int8) for _ in range(2)]
    raw = b""
    for k, iq in enumerate(blocks_iq):
        cards = {**HEADER, "BLOCSIZE": iq.nbytes, "OBSNCHAN": 4, "NPOL": 2, "NBITS": 8,
                 "DIRECTIO": 1, "PKTIDX": 10 * k, "PIPERBLK": 10}
        header = b"".join(format_guppi_card(key, v) for key, v in cards.items())
        header += b"END" + b" " * 77
        header += b" " * (-len(header) % 512)
        data = iq.tobytes() + (b"\0" * (-iq.nbytes % 512) if pad_data else b"")
        raw += header + data
    path = tmp_path / "obs.raw"
    path.write_bytes(raw)
    f = GuppiRawFile(path)
    assert len(f.blocks) == 2 and f.n_time == 10 and f.discontinuities == []
    for k, iq in enumerate(blocks_iq):  # [chan][t][pol][IQ] -> [t][chan][pol]
        expected = (iq[..., 0] + 1j * iq[..., 1]).transpose(1, 0, 2)
        np.testing.assert_array_equal(f.block_samples(k), expected)
