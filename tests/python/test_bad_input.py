# Copyright 2026 gr-beamform authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""Regression tests for the reproducers of issue 14 ("bad input never crashes,
hangs or corrupts silently"): each one used to crash or mislead, and must now
raise a ValueError naming the parameter, the value and the accepted range.
Each case runs in a process of its own (isolated.py): a segfault fails the test
instead of ending pytest."""
import pytest

from isolated import run_isolated


def assert_value_error(body, *fragments):
    outcome = run_isolated(body)
    assert outcome.kind == "ValueError", outcome
    for fragment in fragments:
        assert fragment in outcome.message, outcome


# Reproducer 1: integers outside an enum reached the engines' switches.
@pytest.mark.parametrize("device", ["cpu", "emu:0"])
@pytest.mark.parametrize(
    "keyword, value, accepted",
    [
        ("output", 2, "voltage (0), power (1)"),
        ("output", 255, "voltage (0), power (1)"),
        ("output", 7, "voltage (0), power (1)"),
        ("output", -1, "voltage (0), power (1)"),
        ("precision", 7, "float16 (0), int1 (1)"),
        ("polarization", 7, "single (0), xy_pairs (1)"),
        ("stokes", 7, "I (0), IQUV (1)"),
    ],
)
def test_tensor_beamformer_enum_out_of_range(device, keyword, value, accepted):
    assert_value_error(
        f"""
        tb = gr.top_block()
        blk = bf.tensor_beamformer(4, 8, 2, [.125] * 64, {keyword}={value}, device={device!r})
        tb.connect(blocks.vector_source_c([1] * 128, False, 32), blk, blocks.null_sink(64))
        tb.run()
        """,
        f"{keyword} must be one of {accepted}", f"got {value}")


def test_named_enum_values_given_as_integers_still_work():
    # GRC and older scripts pass the numbers of named values: unchanged.
    outcome = run_isolated("""
        tb = gr.top_block()
        blk = bf.tensor_beamformer(4, 8, 2, [.125] * 64, output=1, device='cpu')
        snk = blocks.vector_sink_f(2 * 4)
        tb.connect(blocks.vector_source_c([1] * 128, False, 32), blk, snk)
        tb.run()
        return len(snk.data())
        """)
    assert (outcome.kind, outcome.message) == ("ok", str(4 * 8)), outcome


@pytest.mark.parametrize(
    "body, fragments",
    [
        ("bf.convert(3, 4, [1.0], 'cpu')", ["input_format", "got 3"]),
        ("bf.pfb_channelizer(64, [], 1, 7, 4)", ["input_format", "got 7"]),
        ("bf.channel_frequencies(1e9, 1e3, 4, 5)", ["order", "got 5"]),
    ],
)
def test_sample_format_and_channel_order_out_of_range(body, fragments):
    assert_value_error(body, *fragments)


# Found by a longer fuzz run: frequencies that overflow came back as -inf.
@pytest.mark.parametrize(
    "body, fragments",
    [
        ("bf.channel_frequencies(0.0, 1e308, 4, 0)",
         ["overflows for channel 2", "channel_spacing 1e+308"]),
        ("bf.channel_frequencies(-1.7e308, 1e307, 8, 1)", ["overflows for channel 0"]),
        ("bf.pfb_channelizer(4, [], 2, bf.fc32, 3, center_freq=1.7e308, sample_rate=1e308)",
         ["|center_freq| + sample_rate / 2 must be finite", "center_freq 1.7e+308"]),
    ],
)
def test_channel_frequencies_that_overflow(body, fragments):
    assert_value_error(body, *fragments)


# The same run's neighbours: geometric delays and steering phases that overflow
# came back as inf and NaN; and numbers in messages with 6 significant digits
# (std::to_string printed a 1 ns delay as "0.000000" and 1e300 in 301 digits).
@pytest.mark.parametrize(
    "body, fragments",
    [
        ("bf.geometric_delays([[0, 0, 0], [1e308, 0, 0]], 90, 0, 0, 1e-300)",
         ["geometric delay of receiver 1 is not finite", "propagation_speed 1e-300"]),
        ("bf.steering_weights([[0, 0, 0], [1e10, 0, 0]], [90, 0], [1e308], [])",
         ["frequency x geometric delay overflows for channel 0, beam 0, receiver 1",
          "frequency 1e+308 Hz"]),
        ("bf.phase_shift(2, 2, [1e300, 2e300], 1e-3, [0.0, 1e-9], device='cpu')",
         ["cycles at the highest channel frequency 2e+300 Hz", "delays = 1e-09 s"]),
    ],
)
def test_overflowing_geometry_and_readable_numbers(body, fragments):
    assert_value_error(body, *fragments)


# Reproducer 2 and 9: item sizes past 2^31 wrapped in GNU Radio's int.
@pytest.mark.parametrize(
    "body, fragments",
    [
        # 513 * 2^20 * 8 bytes > 2^32: used to wrap to a small item and segfault.
        ("bf.bit_packer(513, 1 << 20, 'cpu')", ["n_channels * n_receivers * 8", "4303355904"]),
        ("bf.bit_unpacker(513, 1 << 20, 'cpu')", ["n_channels * n_receivers * 8"]),
        # between 2^31 and 2^32: used to give only "gr::io_signature(3)"
        ("bf.bit_packer(257, 1 << 20, 'emu:0')", ["n_channels * n_receivers * 8", "2155872256"]),
        ("bf.pfb_channelizer(4096, [], 1, bf.fc32, 1 << 20)", ["n_channels * n_receivers * 8"]),
        ("bf.tensor_beamformer(65536, 1 << 20, 1, [], device='cpu')",
         ["n_channels * n_receivers * 8 (float16 input)"]),
    ],
)
def test_item_size_past_int_is_a_value_error(body, fragments):
    assert_value_error(body, "item size", "2147483647", *fragments)


# Reproducer 3: an RF item of 16384 x 131073 int16 (over 4 GiB) wrapped.
def test_rca_das_huge_item():
    assert_value_error(
        """
        bf.rca_das(n_elements=16384, n_samples=131073, x_count=5, y_count=3, z_count=7,
                   device='cpu')
        """,
        "n_elements * n_samples * 2 (int16 input)", "4295000064")


# Reproducer 4: 6605 beams x 162565 channels x 4 bytes wrapped.
def test_filterbank_sink_huge_item(tmp_path):
    assert_value_error(
        f"""
        bf.filterbank_sink({str(tmp_path)!r}, 'o', 6605, 162565, 1,
                           list(1e8 + np.arange(162565)), 1e-3, 'x', [0., 90.] * 6605)
        """,
        "n_stokes * n_beams * n_channels * 4")
    assert not any(tmp_path.iterdir()), "no file may be created for bad parameters"


# Reproducer 9: messages that blamed the wrong parameter or none.
def test_rca_das_tiny_sampling_frequency_blames_the_frequencies():
    assert_value_error("bf.rca_das(sampling_frequency=5e-324, device='cpu')",
                       "sampling_frequency = 4.94066e-324 Hz give no usable default")
    assert_value_error("bf.rca_das(center_frequency=1e-300, sampling_frequency=1e-290, "
                       "device='cpu')", "center_frequency = 1e-300 Hz")
    # with taps given, the frequencies themselves are checked
    assert_value_error("bf.rca_das(sampling_frequency=5e-324, filter_taps=[1, 2, 1], "
                       "device='cpu')", "sampling_frequency / 2")


# Reproducer 9: a Python int that does not fit the C++ parameter gave only
# pybind11's "incompatible constructor arguments".
@pytest.mark.parametrize("body, fragments", [
    ("bf.convert(bf.fc32, 2**40, [1.0], 'cpu')",
     ["n_receivers must be in [-2147483648, 2147483647]", "got 1099511627776"]),
    ("bf.rca_das(n_elements=-2**31 - 1, device='cpu')", ["n_elements must be in"]),
    ("bf.array_source([[0, 0, 0]], 1e6, 1e9, [0.0], [90.0], [0.0], seed=-1)",
     ["seed must be in [0, 18446744073709551615]", "uint64"]),
    ("bf.tensor_beamformer(1, 1, 1, [1j], output=2**40, device='cpu')",
     ["output must be one of the values of beam_output", "got 1099511627776"]),
])
def test_integer_outside_the_cpp_type_is_a_value_error(body, fragments):
    assert_value_error(body, *fragments)


def test_wrong_types_still_raise_type_error():
    outcome = run_isolated("bf.convert(bf.fc32, 'four', [1.0], 'cpu')")
    assert outcome.kind == "TypeError" and "incompatible" in outcome.message, outcome


@pytest.mark.parametrize("block", [
    "bf.convert(bf.sc16, 4, [1.0], '')",
    "bf.bit_packer(2, 32, '')",
])
def test_empty_device_is_refused(block):
    assert_value_error(block, "device must be", 'got ""', "auto")


# Reproducer 7: float16 overflow (|x| >= 65520 -> inf) and underflow (nonzero
# |x| <= 2^-25 -> 0) used to give NaN or zeros silently; now counted and logged.
FLOAT16_RUN = """
blk = bf.tensor_beamformer(1, 4, 1, [0.5 + 0j] * 4, device={device!r})
x = np.full(4 * 8, {value}, dtype=np.complex64)
tb = gr.top_block()
snk = blocks.vector_sink_c(1)
tb.connect(blocks.vector_source_c(x.tolist(), False, 4), blk, snk)
tb.run()
return json.dumps([blk.float16_overflows(), blk.float16_underflows(),
                   bool(np.all(np.isfinite(snk.data())))])
"""


@pytest.mark.parametrize("device", ["cpu", "emu:0"])
@pytest.mark.parametrize("value, counts, finite, logged", [
    (1e5, [32, 0], False, "32 values >= 65520 became inf"),  # 8 items x 4 receivers, real parts
    ("1e-9 + 1e-9j", [0, 64], True, "64 nonzero values <= 2^-25 became 0"),
    ("1.0 - 2.0j", [0, 0], True, None),
])
def test_float16_input_out_of_range_is_counted_and_logged(device, value, counts, finite, logged):
    import json

    outcome = run_isolated(FLOAT16_RUN.format(device=device, value=value))
    assert outcome.kind == "ok", outcome
    assert json.loads(outcome.message) == counts + [finite], outcome
    if logged:
        assert logged in outcome.log and "convert's per-receiver scale" in outcome.log, outcome
    else:
        assert "float16 input out of range" not in outcome.log, outcome


def test_float16_weights_out_of_range():
    assert_value_error("bf.tensor_beamformer(1, 4, 1, [1e5 + 0j] * 4, device='cpu')",
                       "weights must stay below 65520", "4 parts")
    # int1 uses only the signs: any finite weight is fine there
    outcome = run_isolated("bf.tensor_beamformer(1, 4, 1, [1e5 + 0j] * 4, "
                           "precision=bf.beam_precision.int1, device='cpu')")
    assert outcome.kind == "ok", outcome
    outcome = run_isolated("bf.tensor_beamformer(1, 4, 1, [1e-9 + 0j] * 4, device='cpu')")
    assert outcome.kind == "ok" and "4 nonzero weight parts" in outcome.log, outcome
