# Copyright 2026 gr-beamform authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""filterbank_sink -> SIGPROC files -> read_filterbank, and the plot helpers.

The writer and the reader are checked against numpy and against a header
parsed by hand here (struct.unpack), so that they are not only checked
against each other.
"""
import os
import struct

import numpy as np
import pmt
import pytest
from gnuradio import beamform, blocks, gr

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
CENTRE_HZ = 1.4e9
SPACING_HZ = 195312.5
MJD_UNIX_EPOCH = 40587.0


def channelizer_frequencies(n_channels, centre=CENTRE_HZ, spacing=SPACING_HZ):
    """Sky frequency of each channel in pfb_channelizer order: DC, positive, negative."""
    return centre + np.fft.fftfreq(n_channels) * n_channels * spacing


def rx_time_tag(offset, seconds, fraction):
    tag = gr.tag_t()
    tag.offset = offset
    tag.key = pmt.intern("rx_time")
    tag.value = pmt.make_tuple(pmt.from_uint64(seconds), pmt.from_double(fraction))
    return tag


def random_directions(rng, n_beams):
    az = rng.uniform(-180, 360, n_beams)
    el = rng.uniform(5, 90, n_beams)
    return np.column_stack([az, el]).ravel()


def run_sink(directory, data, freqs, beam_az_el, tags=(), runs=1, **kwargs):
    """Stream data [time][stokes][beams][channels] into a filterbank_sink."""
    n_times, n_stokes, n_beams, n_channels = data.shape
    options = dict(prefix="obs", tsamp=1e-3, source_name="J0000+0000", tstart_mjd=60000.5)
    options.update(kwargs)
    sink = beamform.filterbank_sink(
        str(directory), options["prefix"], n_beams, n_channels, n_stokes,
        list(freqs), options["tsamp"], options["source_name"], list(beam_az_el),
        options["tstart_mjd"], beam_ra_dec=options.get("beam_ra_dec", []))
    source = blocks.vector_source_f(
        data.ravel().tolist(), False, n_stokes * n_beams * n_channels, list(tags))
    tb = gr.top_block()
    tb.connect(source, sink)
    for run in range(runs):
        if run:
            source.rewind()
        tb.run()
    return sink


@pytest.mark.parametrize("n_stokes", [1, 4])
@pytest.mark.parametrize("n_channels", [7, 8])
def test_round_trip_header_and_data(tmp_path, rng, n_stokes, n_channels):
    n_times, n_beams = 37, 3
    data = rng.standard_normal((n_times, n_stokes, n_beams, n_channels)).astype(np.float32)
    freqs = channelizer_frequencies(n_channels)
    directions = random_directions(rng, n_beams)
    seconds, fraction = 1_700_000_123, 0.625
    sink = run_sink(tmp_path, data, freqs, directions,
                    tags=[rx_time_tag(0, seconds, fraction)], tsamp=2.5e-4)

    expected_mjd = MJD_UNIX_EPOCH + (seconds + fraction) / 86400.0
    descending = np.argsort(-freqs, kind="stable")
    assert sink.items_written() == n_times
    assert sink.tstart_from_rx_time()
    assert sink.channel_order() == descending.tolist()
    paths = sink.file_paths()
    assert [os.path.basename(p) for p in paths] == [f"obs_beam{b:04d}.fil" for b in range(n_beams)]

    for beam, path in enumerate(paths):
        header, read = beamform.read_filterbank(path)
        assert header["fch1"] == pytest.approx(freqs.max() / 1e6, rel=1e-15)
        assert header["foff"] == pytest.approx(-SPACING_HZ / 1e6, rel=1e-12)
        assert header["foff"] < 0
        assert header["nchans"] == n_channels
        assert header["nbits"] == 32
        assert header["nifs"] == n_stokes
        assert header["nbeams"] == n_beams
        assert header["ibeam"] == beam
        assert header["data_type"] == 1
        assert header["telescope_id"] == 0 and header["machine_id"] == 0
        assert header["source_name"] == "J0000+0000"
        assert header["tsamp"] == 2.5e-4
        assert header["tstart"] == pytest.approx(expected_mjd, abs=1e-11)  # < 1 us
        az, el = directions[2 * beam], directions[2 * beam + 1]
        assert header["az_start"] == pytest.approx(az % 360.0, abs=1e-12)
        assert header["za_start"] == pytest.approx(90.0 - el, abs=1e-12)
        assert header["nsamples"] == n_times

        assert read.dtype == np.float32 and read.shape == (n_times, n_stokes, n_channels)
        np.testing.assert_array_equal(read, data[:, :, beam, :][:, :, descending])
        # The reader's frequencies are the sky frequencies in file order.
        np.testing.assert_allclose(beamform.filterbank_frequencies(header) * 1e6,
                                   freqs[descending], rtol=1e-12)


def test_header_bytes_parsed_by_hand(tmp_path, rng):
    """The binary layout, checked with struct alone (not the module's reader)."""
    n_times, n_beams, n_channels = 5, 2, 6
    data = rng.uniform(1, 2, (n_times, 1, n_beams, n_channels)).astype(np.float32)
    freqs = channelizer_frequencies(n_channels, centre=150e6, spacing=1e6)
    directions = [-30.0, 60.0, 123.0, 12.5]
    run_sink(tmp_path, data, freqs, directions,
             tags=[rx_time_tag(0, 86400 * 20000, 0.5)], source_name="Cas A", tsamp=0.125)
    raw = (tmp_path / "obs_beam0000.fil").read_bytes()

    position = 0

    def take(fmt):
        nonlocal position
        values = struct.unpack_from(fmt, raw, position)
        position += struct.calcsize(fmt)
        return values[0]

    def text():
        length = take("<i")
        nonlocal position
        value = raw[position:position + length].decode("ascii")
        position += length
        return value

    expected = [
        ("telescope_id", "<i", 0),
        ("machine_id", "<i", 0),
        ("data_type", "<i", 1),
        ("source_name", "s", "Cas A"),
        ("az_start", "<d", 330.0),      # -30 deg azimuth, normalised
        ("za_start", "<d", 30.0),       # 90 - 60 deg elevation
        ("fch1", "<d", 152.0),          # channelizer order 0,1,2,-3,-2,-1 MHz offsets
        ("foff", "<d", -1.0),
        ("nchans", "<i", 6),
        ("nbeams", "<i", 2),
        ("ibeam", "<i", 0),
        ("nbits", "<i", 32),
        ("nifs", "<i", 1),
        ("tsamp", "<d", 0.125),
        ("tstart", "<d", MJD_UNIX_EPOCH + 20000 + 0.5 / 86400),
    ]
    assert text() == "HEADER_START"
    for key, fmt, value in expected:
        assert text() == key
        got = text() if fmt == "s" else take(fmt)
        assert got == pytest.approx(value, abs=1e-12) if fmt == "<d" else got == value, key
    assert text() == "HEADER_END"
    samples = np.frombuffer(raw[position:], dtype="<f4").reshape(n_times, 6)
    # Descending frequency: offsets +2, +1, 0, -1, -2, -3 MHz = input channels 2, 1, 0, 5, 4, 3.
    np.testing.assert_array_equal(samples, data[:, 0, 0, [2, 1, 0, 5, 4, 3]])


def test_tstart_falls_back_to_the_parameter(tmp_path, rng):
    data = rng.standard_normal((20, 1, 1, 4)).astype(np.float32)
    freqs = channelizer_frequencies(4)
    # No tag at all.
    sink = run_sink(tmp_path / "none", data, freqs, [10, 20], tstart_mjd=59123.25)
    assert not sink.tstart_from_rx_time()
    header, read = beamform.read_filterbank(sink.file_paths()[0])
    assert header["tstart"] == 59123.25
    assert read.shape == (20, 1, 4)
    # An rx_time tag that is not on the first item: logged, ignored.
    sink = run_sink(tmp_path / "late", data, freqs, [10, 20], tstart_mjd=59123.25,
                    tags=[rx_time_tag(7, 1_700_000_000, 0.0)])
    assert not sink.tstart_from_rx_time()
    header, read = beamform.read_filterbank(sink.file_paths()[0])
    assert header["tstart"] == 59123.25
    np.testing.assert_array_equal(read[:, 0, :], data[:, 0, 0, np.argsort(-freqs)])


def test_rx_time_with_integer_seconds_and_later_tags(tmp_path, rng):
    data = rng.standard_normal((12, 1, 2, 3)).astype(np.float32)
    freqs = [3e6, 1e6, 2e6]
    first = gr.tag_t()
    first.offset = 0
    first.key = pmt.intern("rx_time")
    first.value = pmt.make_tuple(pmt.from_long(86400), pmt.from_double(0.0))
    sink = run_sink(tmp_path, data, freqs, [0, 90, 180, 0], tstart_mjd=1.0,
                    tags=[first, rx_time_tag(5, 10**9, 0.1)])
    assert sink.tstart_from_rx_time()
    assert sink.tstart_mjd() == MJD_UNIX_EPOCH + 1
    for beam, path in enumerate(sink.file_paths()):
        header, read = beamform.read_filterbank(path)
        assert header["tstart"] == MJD_UNIX_EPOCH + 1
        np.testing.assert_array_equal(read[:, 0, :], data[:, 0, beam, [0, 2, 1]])


def test_many_work_calls_and_restart_append(tmp_path, rng):
    """Thousands of items over many work calls; a second run appends."""
    data = rng.standard_normal((3001, 4, 2, 5)).astype(np.float32)
    freqs = channelizer_frequencies(5)
    sink = run_sink(tmp_path, data, freqs, [1, 2, 3, 4], runs=2,
                    tags=[rx_time_tag(0, 1_600_000_000, 0.0)])
    order = np.argsort(-freqs)
    assert sink.items_written() == 2 * 3001
    for beam, path in enumerate(sink.file_paths()):
        header, read = beamform.read_filterbank(path)
        once = data[:, :, beam, :][:, :, order]
        np.testing.assert_array_equal(read, np.concatenate([once, once]))
        assert header["nifs"] == 4
        assert os.path.getsize(path) == header["header_bytes"] + read.nbytes


def test_sink_made_but_never_run_leaves_valid_empty_files(tmp_path):
    sink = beamform.filterbank_sink(str(tmp_path), "idle", 2, 3, 1, [1e6, 2e6, 3e6], 1.0,
                                    "", [0, 90, 0, 45], 55000.0)
    paths = sink.file_paths()
    sink.stop()  # what the scheduler calls at the end; closes the files
    for path in paths:
        header, data = beamform.read_filterbank(path)
        assert data.shape == (0, 1, 3)
        assert header["tstart"] == 55000.0
        assert header["source_name"] == "unknown"


FREQS4 = [1e6, 2e6, 3e6, 4e6]
GOOD = dict(directory=None, prefix="p", n_beams=2, n_channels=4, n_stokes=1,
            channel_frequencies=FREQS4, tsamp=1e-3, source_name="s",
            beam_az_el=[0, 90, 10, 45], tstart_mjd=60000.0)


@pytest.mark.parametrize(
    "change, message",
    [
        (dict(n_beams=0), "n_beams"),
        (dict(n_channels=1), "n_channels"),
        (dict(n_stokes=2), "n_stokes"),
        (dict(n_stokes=0), "n_stokes"),
        (dict(channel_frequencies=FREQS4[:3]), "channel_frequencies"),
        (dict(channel_frequencies=[1e6, 2e6, 3e6, 5e6]), "channel_frequencies"),
        (dict(channel_frequencies=[1e6, 1e6, 1e6, 1e6]), "channel_frequencies"),
        (dict(channel_frequencies=[1e6, 2e6, float("nan"), 4e6]), "channel_frequencies"),
        (dict(tsamp=0.0), "tsamp"),
        (dict(tsamp=float("inf")), "tsamp"),
        (dict(beam_az_el=[0, 90]), "beam_az_el"),
        (dict(beam_az_el=[0, 90, 10, 95]), "beam_az_el"),
        (dict(source_name="x" * 81), "source_name"),
        (dict(tstart_mjd=-1.0), "tstart_mjd"),
        (dict(prefix=""), "prefix"),
        (dict(prefix="a/b"), "prefix"),
        (dict(directory=""), "directory"),
        (dict(beam_ra_dec=[10.0]), "beam_ra_dec"),
        (dict(beam_ra_dec=[360.0, 0.0, 10.0, 0.0]), "right ascension"),
        (dict(beam_ra_dec=[10.0, -91.0, 10.0, 0.0]), "declination"),
    ],
)
def test_bad_parameters_raise_value_error(tmp_path, change, message):
    kwargs = dict(GOOD, directory=str(tmp_path))
    kwargs.update(change)
    with pytest.raises(ValueError, match=message):
        beamform.filterbank_sink(**kwargs)
    assert not any(tmp_path.iterdir()), "no file may be created for bad parameters"


def sexagesimal_to_degrees(packed, hours):
    """SIGPROC's aabbcc.c back to degrees, independently of the writer."""
    sign = -1.0 if packed < 0 else 1.0
    packed = abs(packed)
    units = np.floor(packed / 10000.0)
    minutes = np.floor((packed - 10000.0 * units) / 100.0)
    seconds = packed - 10000.0 * units - 100.0 * minutes
    value = units + minutes / 60.0 + seconds / 3600.0
    return sign * value * (15.0 if hours else 1.0)


def test_src_raj_dej_of_tracked_beams(tmp_path, rng):
    # Known values: RA 83.63308 deg = 05h34m31.94s, Dec 22.01450 deg = +22d00m52.2s
    # (the Crab); a southern beam; a beam at RA just below 360.
    ra_dec = [83.63308, 22.0145, 201.365, -43.0191, 359.9999, -0.5]
    data = rng.standard_normal((3, 1, 3, 4)).astype(np.float32)
    run_sink(tmp_path, data, FREQS4, random_directions(rng, 3), beam_ra_dec=ra_dec)
    for beam in range(3):
        header, _ = beamform.read_filterbank_header(str(tmp_path / f"obs_beam{beam:04d}.fil"))
        ra, dec = ra_dec[2 * beam], ra_dec[2 * beam + 1]
        assert sexagesimal_to_degrees(header["src_raj"], True) == pytest.approx(ra, abs=1e-9)
        assert sexagesimal_to_degrees(header["src_dej"], False) == pytest.approx(dec, abs=1e-9)
    crab, _ = beamform.read_filterbank_header(str(tmp_path / "obs_beam0000.fil"))
    assert crab["src_raj"] == pytest.approx(53431.9392, abs=1e-3)
    assert crab["src_dej"] == pytest.approx(220052.2, abs=1e-3)


def test_no_src_raj_dej_without_beam_ra_dec(tmp_path, rng):
    data = rng.standard_normal((2, 1, 1, 4)).astype(np.float32)
    run_sink(tmp_path, data, FREQS4, [10.0, 45.0])
    header, _ = beamform.read_filterbank_header(str(tmp_path / "obs_beam0000.fil"))
    assert "src_raj" not in header and "src_dej" not in header


def test_unusable_paths_raise_runtime_error_with_path_and_reason(tmp_path):
    blocker = tmp_path / "a_file"
    blocker.write_text("not a directory")
    with pytest.raises(RuntimeError, match="a_file"):
        beamform.filterbank_sink(**dict(GOOD, directory=str(blocker / "sub")))
    (tmp_path / "p_beam0001.fil").mkdir()  # the second beam's file is a directory
    with pytest.raises(RuntimeError, match=r"p_beam0001\.fil'.*[Ii]s a directory"):
        beamform.filterbank_sink(**dict(GOOD, directory=str(tmp_path)))


# Reader: hand-built files.
def sigproc_string(text):
    return struct.pack("<i", len(text)) + text.encode("ascii")


def hand_made_header(extra=b""):
    return (sigproc_string("HEADER_START")
            + sigproc_string("rawdatafile") + sigproc_string("raw.dat")
            + sigproc_string("src_raj") + struct.pack("<d", 123456.7)
            + sigproc_string("signed") + struct.pack("<b", -1)
            + sigproc_string("nchans") + struct.pack("<i", 3)
            + sigproc_string("nbits") + struct.pack("<i", 32)
            + sigproc_string("fch1") + struct.pack("<d", 100.0)
            + sigproc_string("foff") + struct.pack("<d", -0.5)
            + sigproc_string("tsamp") + struct.pack("<d", 0.01)
            + extra
            + sigproc_string("HEADER_END"))


def test_reader_keeps_other_known_keywords(tmp_path, rng):
    samples = rng.standard_normal((4, 3)).astype("<f4")
    path = tmp_path / "other.fil"
    path.write_bytes(hand_made_header() + samples.tobytes())
    header, data = beamform.read_filterbank(path)
    assert header["rawdatafile"] == "raw.dat"
    assert header["src_raj"] == 123456.7
    assert header["signed"] == -1
    assert header["nifs"] == 1  # SIGPROC's default when absent
    np.testing.assert_array_equal(data[:, 0, :], samples)
    np.testing.assert_allclose(beamform.filterbank_frequencies(header), [100.0, 99.5, 99.0])
    np.testing.assert_allclose(beamform.filterbank_times(header), [0, 0.01, 0.02, 0.03])


def test_reader_rejects_bad_files(tmp_path, rng):
    good = hand_made_header() + rng.standard_normal(6).astype("<f4").tobytes()

    unknown = tmp_path / "unknown.fil"
    unknown.write_bytes(hand_made_header(sigproc_string("mystery_key") + b"\0" * 8))
    with pytest.raises(ValueError, match="mystery_key"):
        beamform.read_filterbank(unknown)

    garbage = tmp_path / "garbage.fil"
    garbage.write_bytes(rng.integers(0, 256, 4096, dtype=np.uint8).tobytes())
    with pytest.raises(ValueError, match="not a SIGPROC filterbank file"):
        beamform.read_filterbank(garbage)

    text = tmp_path / "text.fil"
    text.write_bytes(sigproc_string("HELLO_WORLD") + b"rest")
    with pytest.raises(ValueError, match="HEADER_START"):
        beamform.read_filterbank(text)

    cut_header = tmp_path / "cut_header.fil"
    cut_header.write_bytes(good[:60])
    with pytest.raises(ValueError, match="truncated SIGPROC header"):
        beamform.read_filterbank(cut_header)

    cut_data = tmp_path / "cut_data.fil"
    cut_data.write_bytes(good[:-3])
    with pytest.raises(ValueError, match="truncated data"):
        beamform.read_filterbank(cut_data)

    empty = tmp_path / "empty.fil"
    empty.write_bytes(b"")
    with pytest.raises(ValueError, match="truncated SIGPROC header"):
        beamform.read_filterbank(empty)


# Plots.
def assert_png_with_content(path):
    import matplotlib.image

    with open(path, "rb") as handle:
        assert handle.read(8) == PNG_SIGNATURE
    pixels = matplotlib.image.imread(path)
    assert pixels.ndim == 3 and pixels.shape[0] > 100 and pixels.shape[1] > 100
    colours = np.unique(pixels.reshape(-1, pixels.shape[2]), axis=0)
    assert len(colours) > 20, "the figure is (nearly) a single flat colour"


def test_plot_dynamic_spectrum(tmp_path, rng):
    n_channels = 16
    data = rng.standard_normal((64, 4, 2, n_channels)).astype(np.float32)
    data[20:30, 0, 1, 3] += 10  # a bright burst in one channel of beam 1
    sink = run_sink(tmp_path, data, channelizer_frequencies(n_channels), [0, 45, 90, 30],
                    tags=[rx_time_tag(0, 1_700_000_000, 0.0)])
    path = sink.file_paths()[1]
    png = beamform.plot_dynamic_spectrum(path, tmp_path / "dyn.png")
    assert png == str(tmp_path / "dyn.png")
    assert_png_with_content(png)
    # From (header, data), another Stokes parameter.
    png_v = beamform.plot_dynamic_spectrum(beamform.read_filterbank(path),
                                           str(tmp_path / "dyn_v.png"), stokes=3)
    assert_png_with_content(png_v)
    with pytest.raises(ValueError, match="stokes"):
        beamform.plot_dynamic_spectrum(path, str(tmp_path / "bad.png"), stokes=4)


def test_plot_beam_map_grid_and_scatter(tmp_path, rng):
    az, el = np.meshgrid(np.arange(0, 360, 30.0), np.arange(10, 90, 20.0))
    directions = np.column_stack([az.ravel(), el.ravel()])
    powers = rng.uniform(0, 1, len(directions))
    powers[7] = 5.0
    png = beamform.plot_beam_map(powers, directions, str(tmp_path / "grid.png"))
    assert_png_with_content(png)

    scattered = random_directions(rng, 9)
    png = beamform.plot_beam_map(rng.uniform(0, 1, 9), scattered, str(tmp_path / "scatter.png"))
    assert_png_with_content(png)
    with pytest.raises(ValueError, match="beam_az_el"):
        beamform.plot_beam_map([1.0, 2.0], [0, 45], str(tmp_path / "bad.png"))


def test_dynamic_spectrum_in_db_by_default(tmp_path, rng):
    """Power is drawn in dB (the noise floor stays visible next to a source 1000
    times brighter); db=False draws the linear values."""
    import matplotlib.image

    n_channels = 16
    data = rng.uniform(0.5, 1.5, (64, 1, 1, n_channels)).astype(np.float32)
    data[:, 0, 0, 3] = 1000.0
    sink = run_sink(tmp_path, data, channelizer_frequencies(n_channels), [0, 45])
    path = sink.file_paths()[0]
    in_db = beamform.plot_dynamic_spectrum(path, str(tmp_path / "db.png"))
    linear = beamform.plot_dynamic_spectrum(path, str(tmp_path / "linear.png"), db=False)
    assert_png_with_content(in_db)
    # Linear: the noise channels all map to the bottom of the colour scale
    # (one colour); in dB their spread of 5 dB shows as many colours.
    def image_colours(png):
        pixels = matplotlib.image.imread(png)
        return len(np.unique(pixels.reshape(-1, pixels.shape[2]), axis=0))
    assert image_colours(in_db) > image_colours(linear) + 20


def test_beam_map_unwraps_azimuth_and_draws_direction_cosines(tmp_path, rng):
    from gnuradio.beamform.plots import _unwrap_azimuths

    np.testing.assert_allclose(_unwrap_azimuths(np.array([350.0, 355, 0, 5, 10])),
                               [-10, -5, 0, 5, 10])
    np.testing.assert_allclose(_unwrap_azimuths(np.array([10.0, 20, 30])), [10, 20, 30])
    np.testing.assert_allclose(_unwrap_azimuths(np.array([0.0, 90, 180, 270])), [0, 90, 180, 270])
    # A station's grid: regular in (l, m) around zenith, all azimuths present.
    l, m = np.meshgrid(np.linspace(-0.3, 0.3, 5), np.linspace(-0.3, 0.3, 5))
    az = np.degrees(np.arctan2(l, m)) % 360
    el = np.degrees(np.arccos(np.hypot(l, m)))
    directions = np.column_stack([az.ravel(), el.ravel()])
    powers = rng.uniform(0, 1, 25)
    powers[12] = 4.0
    for projection in ("lm", "azel"):
        png = beamform.plot_beam_map(powers, directions, str(tmp_path / f"{projection}.png"),
                                     projection=projection)
        assert_png_with_content(png)
    with pytest.raises(ValueError, match="projection"):
        beamform.plot_beam_map(powers, directions, str(tmp_path / "bad.png"), projection="polar")


def test_fed_by_a_gpu_block_through_device_buffer(tmp_path, rng):
    """A block on a (stand-in) GPU feeding the host sink: its buffer copies to the host.

    convert on emu:0 passes fc32 through unchanged (scale 1); its [6] complex
    item has the bytes of the sink's float32 [1][3][4] item.
    """
    n_times, n_beams, n_channels = 50, 3, 4
    data = rng.standard_normal((n_times, 1, n_beams, n_channels)).astype(np.float32)
    freqs = channelizer_frequencies(n_channels)
    source = blocks.vector_source_c(data.view(np.complex64).ravel().tolist(), False, 6)
    on_device = beamform.convert(beamform.fc32, 6, [], "emu:0")
    sink = beamform.filterbank_sink(str(tmp_path), "gpu", n_beams, n_channels, 1,
                                    list(freqs), 1e-3, "emu", [0, 90, 10, 80, 20, 70], 60000.0)
    tb = gr.top_block()
    tb.connect(source, on_device, sink)
    tb.run()
    assert on_device.output_copy_stats().device_to_host == data.nbytes
    for beam, path in enumerate(sink.file_paths()):
        _, read = beamform.read_filterbank(path)
        np.testing.assert_array_equal(read, data[:, :, beam, :][:, :, np.argsort(-freqs)])
