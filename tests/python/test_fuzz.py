# Copyright 2026 gr-beamform authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""Property-based fuzzing (Hypothesis) of every block's constructor, the
blocks' message ports and the Python helpers, as a hostile but honest user
would call them: sizes at and past every limit, NaN, inf, denormals, integers
outside enums, odd strings, random bytes as samples, malformed messages.

Each case runs in a process of its own with a timeout (isolated.py), so a crash
or a hang is a failing case, not a dead pytest. The property: a call either
works (and then a short run of random items works too, with finite output
where the input is finite) or raises ValueError (RuntimeError only where a
device or a file is at fault), never anything else.

CI runs a fixed, derandomized set (FUZZ_EXAMPLES per test below; the total is
printed at the end of the pytest run). A long run for developers draws fresh
random cases:

    BEAMFORM_FUZZ_EXAMPLES=2000 python3 -m pytest tests/python/test_fuzz.py
"""
import math
import os

import pytest

hypothesis = pytest.importorskip("hypothesis")  # Debian: python3-hypothesis
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import isolated  # noqa: E402
from snippet_helpers import pickled  # noqa: E402

LONG_RUN = int(os.environ.get("BEAMFORM_FUZZ_EXAMPLES", "0"))
FUZZ_EXAMPLES = LONG_RUN or 30
CASE_TIMEOUT = 60  # seconds; a CI case takes well under one

fuzz = settings(max_examples=FUZZ_EXAMPLES, deadline=None, database=None,
                derandomize=not LONG_RUN, suppress_health_check=list(HealthCheck))

# --- what a hostile user types -------------------------------------------------
EDGE_COUNTS = [0, 1, 2, 3, 31, 32, 33, 4096, 65535, 65536, 65537, 1 << 20, (1 << 20) + 1,
               1 << 24, 2**31 - 1, -1, -2**31, 2**31, 2**40, -2**40]
counts = st.one_of(st.integers(1, 6), st.integers(-2, 40), st.sampled_from(EDGE_COUNTS))
small_counts = st.one_of(st.integers(1, 4), st.sampled_from([0, -1, 7]))
EDGE_REALS = [0.0, -0.0, 1.0, -1.0, 5e-324, 1e-8, 65504.0, 65520.0, 1e20, 1e308, -1e308,
              math.inf, -math.inf, math.nan]
reals = st.one_of(st.floats(-10.0, 10.0), st.sampled_from(EDGE_REALS), st.floats())
complexes = st.builds(complex, reals, reals)
enums = st.one_of(st.integers(0, 1), st.sampled_from([2, 3, 7, 255, -1, 2**31 - 1, 2**40]))
devices = st.one_of(st.sampled_from(["cpu", "emu:0"]), st.sampled_from(["", "emu:9", "gpu"]))
texts = st.one_of(st.text(max_size=6), st.sampled_from(["a\x00b", "a/b", "..", "Caf\u00e9"]))


def sized_list(draw, element, n):
    """A list of `n` elements when n is small, else (or sometimes) any short list."""
    if 0 <= n <= 64 and draw(st.booleans()):
        return draw(st.lists(element, min_size=n, max_size=n))
    return draw(st.lists(element, max_size=4))


def run_case(body, args, allowed=("ok", "ValueError"), timeout=CASE_TIMEOUT):
    """Run one case in a process of its own; fail unless it ends in `allowed`."""
    isolated.FUZZ_CASES[os.environ.get("PYTEST_CURRENT_TEST", "?").split(" ")[0]] += 1
    outcome = isolated.run_isolated(f"args = arguments({pickled(args)!r})\n" + body,
                                    timeout=timeout)
    assert outcome.kind in allowed, (args, outcome)
    return outcome


def device_errors(args):
    """RuntimeError is fair for a device that is absent or not built."""
    return ("ok", "ValueError") + (() if args["device"] in ("cpu", "emu:0")
                                   else ("RuntimeError",))


# --- constructors, then a short run of random items ---------------------------
RUN_BLOCK = """
blk = {make}
out = stream_random(blk, n_items={n_items}, seed=1)
"""


@fuzz
@given(st.data())
def test_fuzz_convert(data):
    n = data.draw(counts)
    args = dict(input_format=data.draw(enums), n_receivers=n,
                scale=sized_list(data.draw, reals, n), device=data.draw(devices))
    run_case(RUN_BLOCK.format(make="bf.convert(**args)", n_items=8), args, device_errors(args))


@fuzz
@given(st.data())
def test_fuzz_pfb_channelizer(data):
    n_ch = data.draw(counts)
    args = dict(n_channels=n_ch, taps=data.draw(st.lists(reals, max_size=8)),
                taps_per_branch=data.draw(counts), input_format=data.draw(enums),
                n_receivers=data.draw(counts), oversample=data.draw(st.integers(-1, 3)),
                fft_shift=data.draw(st.booleans()), center_freq=data.draw(reals),
                sample_rate=data.draw(reals), device=data.draw(devices))
    n_items = 2 * n_ch if 0 < n_ch <= 64 else 8
    run_case(RUN_BLOCK.format(make="bf.pfb_channelizer(**args)", n_items=n_items), args,
             device_errors(args))


# Finite input must give finite output: every model that could give NaN
# (t0 = 1e308 with rates, say) is refused at construction.
PHASE_SHIFT_RUN = """
blk = bf.phase_shift(**args)
n = args["n_channels"] * args["n_receivers"]
x = np.random.default_rng(1).standard_normal(2 * n * 8).astype(np.float32)
tb = gr.top_block()
snk = blocks.vector_sink_c(n)
tb.connect(blocks.vector_source_c(x.view(np.complex64).tolist(), False, n), blk, snk)
tb.run()
assert np.all(np.isfinite(snk.data())), "non-finite output from finite input"
"""


@fuzz
@given(st.data())
def test_fuzz_phase_shift(data):
    n_ch, n_rx = data.draw(st.one_of(small_counts, counts)), data.draw(small_counts)
    args = dict(n_channels=n_ch, n_receivers=n_rx,
                channel_frequencies=sized_list(data.draw, reals, n_ch),
                item_period=data.draw(reals), delays=sized_list(data.draw, reals, n_rx),
                rates=sized_list(data.draw, reals, n_rx),
                gains=sized_list(data.draw, complexes, n_rx), t0=data.draw(reals),
                device=data.draw(devices))
    run_case(PHASE_SHIFT_RUN, args, device_errors(args))


@fuzz
@given(st.data())
def test_fuzz_tensor_beamformer(data):
    n_ch, n_rx, n_b = (data.draw(st.one_of(small_counts, counts)) for _ in range(3))
    n_int = data.draw(st.one_of(small_counts, counts))
    args = dict(n_channels=n_ch, n_receivers=n_rx, n_beams=n_b,
                weights=sized_list(data.draw, complexes, n_ch * n_rx * n_b),
                precision=data.draw(enums), output=data.draw(enums), n_int=n_int,
                polarization=data.draw(enums), stokes=data.draw(enums),
                device=data.draw(devices))
    n_items = 2 * n_int if 0 < n_int <= 16 else 4
    run_case(RUN_BLOCK.format(make="bf.tensor_beamformer(**args)", n_items=n_items), args,
             device_errors(args))


@fuzz
@given(st.data(), st.sampled_from(["bit_packer", "bit_unpacker"]))
def test_fuzz_bit_packing(data, name):
    args = dict(n_channels=data.draw(counts), n_receivers=data.draw(counts),
                device=data.draw(devices))
    run_case(RUN_BLOCK.format(make=f"bf.{name}(**args)", n_items=8), args,
             device_errors(args))


@fuzz
@given(st.data())
def test_fuzz_rca_das(data):
    args = dict(n_elements=data.draw(st.one_of(st.sampled_from([4, 8, 16]), counts)),
                n_samples=data.draw(st.one_of(st.integers(4, 200), counts)),
                x_count=data.draw(small_counts), y_count=data.draw(small_counts),
                z_count=data.draw(small_counts),
                source_positions=data.draw(st.lists(reals, max_size=3)),
                source_depths=data.draw(st.lists(reals, max_size=3)),
                device=data.draw(devices))
    for key in ("pitch", "center_frequency", "sampling_frequency", "speed_of_sound",
                "t_start", "x_step", "z_start", "f_number", "demodulation_frequency"):
        if data.draw(st.booleans()):
            args[key] = data.draw(reals)
    for key, choices in (("transmit", ["rows", "columns"]), ("input_type", ["int16", "float32"]),
                         ("output", ["iq", "envelope", "db"]), ("processing", ["iq", "real"]),
                         ("method", ["dual_stage", "conventional"])):
        args[key] = data.draw(st.one_of(st.sampled_from(choices), texts))
    if data.draw(st.booleans()):
        args["filter_taps"] = data.draw(st.lists(reals, max_size=8))
    args["decimation"] = data.draw(st.one_of(st.integers(1, 4), counts))
    n_items = 2 * len(args["source_positions"]) or 2
    run_case(RUN_BLOCK.format(make="bf.rca_das(**args)", n_items=n_items), args,
             device_errors(args))


# A sink that accepted its parameters writes files its own reader reads back.
FILTERBANK_RUN = """
import os, tempfile
directory = os.path.join(tempfile.mkdtemp(), args.pop("subdirectory"))
blk = bf.filterbank_sink(directory, **args)
stream_random(blk, n_items=4, seed=1)
assert blk.error() == "", blk.error()
paths = blk.file_paths()
del blk  # flush and close
for path in paths:
    header, data = bf.read_filterbank(path)
    assert header["nsamples"] == 4 and data.shape[0] == 4, (path, header)
"""


@fuzz
@given(st.data())
def test_fuzz_filterbank_sink(data):
    n_b, n_ch = data.draw(st.one_of(small_counts, counts)), data.draw(st.one_of(small_counts, counts))
    args = dict(subdirectory=data.draw(st.sampled_from(["d", "a b", "x\x00y", "deep/er"])),
                prefix=data.draw(texts), n_beams=n_b, n_channels=n_ch,
                n_stokes=data.draw(st.integers(-1, 5)),
                channel_frequencies=data.draw(st.one_of(
                    st.builds(lambda f0, df: [f0 + k * df for k in range(max(0, min(n_ch, 64)))],
                              reals, reals),
                    st.lists(reals, max_size=4))),
                tsamp=data.draw(reals), source_name=data.draw(texts),
                beam_az_el=sized_list(data.draw, reals, 2 * n_b),
                tstart_mjd=data.draw(reals),
                telescope_id=data.draw(st.integers(-2**40, 2**40)))
    run_case(FILTERBANK_RUN, args, ("ok", "ValueError", "RuntimeError"))


positions = st.lists(st.lists(reals, min_size=3, max_size=3), min_size=1, max_size=4)


@fuzz
@given(st.data())
def test_fuzz_array_source(data):
    n_src = data.draw(st.integers(0, 3))
    src_list = lambda: data.draw(st.one_of(st.lists(reals, min_size=n_src, max_size=n_src),
                                           st.lists(reals, max_size=3)))
    args = dict(positions=data.draw(positions), sample_rate=data.draw(reals),
                center_freq=data.draw(reals), azimuths=src_list(), elevations=src_list(),
                frequency_offsets=src_list(), amplitudes=src_list(), phases=src_list(),
                noise_amplitude=data.draw(reals), output_format=data.draw(enums),
                scale=data.draw(reals), seed=data.draw(st.integers(0, 2**64 - 1)),
                reference_index=data.draw(st.integers(-2, 5)),
                propagation_speed=data.draw(reals), start_time=data.draw(reals))
    run_case(RUN_BLOCK.format(make="bf.array_source(**args)", n_items=8), args)


# --- message ports -----------------------------------------------------------
scalars = st.one_of(reals, complexes, st.integers(-3, 3), st.booleans(), st.none(), texts)
values = st.one_of(scalars, st.lists(reals, max_size=6), st.lists(complexes, max_size=6),
                   st.tuples(scalars, scalars))


def messages(keys):
    """A dict of known keys, typos and odd keys, or a bare value."""
    key = st.one_of(st.sampled_from(keys), st.sampled_from(["delay", "weight", "", "AZ_EL"]))
    return st.one_of(st.dictionaries(key, values, max_size=3), values)


# Whatever arrives, the block keeps running, and finite input still gives
# finite output: a message is applied whole or not at all.
PHASE_SHIFT_MESSAGES = """
blk = bf.phase_shift(2, 3, [1.4e9, 1.41e9], 1e-6, [1e-9], [], [], 0.0, args["device"])
blk.set_geometry([[0, 0, 0], [3, 1, 0], [-1, 4, 0]])
for msg in args["messages"]:
    blk._post(pmt.intern("delays"), to_pmt(msg))
x = np.random.default_rng(1).standard_normal(2 * 6 * 16).astype(np.float32)
tb = gr.top_block()
snk = blocks.vector_sink_c(6)
tb.connect(blocks.vector_source_c(x.view(np.complex64).tolist(), False, 6), blk, snk)
tb.run()
assert np.all(np.isfinite(snk.data())), "non-finite output from finite input"
assert np.all(np.isfinite(blk.delays())) and np.all(np.isfinite(blk.rates()))
"""


@fuzz
@given(st.lists(messages(["delays", "rates", "gains", "t0", "az_el"]), min_size=1, max_size=4),
       st.sampled_from(["cpu", "emu:0"]))
def test_fuzz_phase_shift_messages(msgs, device):
    run_case(PHASE_SHIFT_MESSAGES, dict(messages=msgs, device=device), ("ok",))


TENSOR_MESSAGES = """
blk = bf.tensor_beamformer(2, 4, 2, [0.25 + 0j] * 16, device=args["device"])
blk.set_geometry([[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0]], [1.4e9, 1.41e9])
for port, msg in args["messages"]:
    blk.to_basic_block()._post(pmt.intern(port), to_pmt(msg))
stream_random(blk, n_items=8, seed=1)
assert np.all(np.isfinite(blk.weights()))
"""


@fuzz
@given(st.lists(st.tuples(st.sampled_from(["weights", "pointing"]),
                          messages(["weights", "az_el", "lm"])), min_size=1, max_size=4),
       st.sampled_from(["cpu", "emu:0"]))
def test_fuzz_tensor_beamformer_messages(msgs, device):
    run_case(TENSOR_MESSAGES, dict(messages=msgs, device=device), ("ok",))


# --- helpers -----------------------------------------------------------------
# Each returns finite numbers or raises ValueError.
HELPER = """
from gnuradio.beamform import arrays, calibration
result = np.asarray({call}, dtype=complex)
assert np.all(np.isfinite(result)), result
"""


@fuzz
@given(st.data())
def test_fuzz_array_helpers(data):
    which = data.draw(st.sampled_from(["ula", "uca", "channel_frequencies", "steering_weights",
                                       "geometric_delays"]))
    if which in ("ula", "uca"):
        args = dict(n=data.draw(st.integers(-2, 64)), size=data.draw(reals), az=data.draw(reals))
        call = f"arrays.{which}(args['n'], args['size'], args['az'])"
    elif which == "channel_frequencies":
        # (free functions keep pybind11's TypeError for integers beyond a C++ int)
        args = dict(c=data.draw(reals), s=data.draw(reals), n=data.draw(st.integers(-2, 64)),
                    order=data.draw(st.one_of(st.integers(0, 1), st.sampled_from([2, 7, -1]))))
        call = "bf.channel_frequencies(args['c'], args['s'], args['n'], args['order'])"
    elif which == "steering_weights":
        args = dict(p=data.draw(positions), az_el=data.draw(st.lists(reals, max_size=4)),
                    f=data.draw(st.lists(reals, max_size=3)),
                    g=data.draw(st.lists(complexes, max_size=2)))
        call = "bf.steering_weights(args['p'], args['az_el'], args['f'], args['g'])"
    else:
        args = dict(p=data.draw(positions), az=data.draw(reals), el=data.draw(reals),
                    ref=data.draw(st.integers(-2, 5)), c=data.draw(reals))
        call = "bf.geometric_delays(args['p'], args['az'], args['el'], args['ref'], args['c'])"
    run_case(HELPER.format(call=call), args)


@fuzz
@given(st.data())
def test_fuzz_estimate_gains(data):
    n_rx = data.draw(st.integers(1, 5))
    n_t = data.draw(st.integers(0, 12))
    rows = data.draw(st.lists(st.lists(st.one_of(complexes, st.just(0j)),
                                       min_size=n_rx, max_size=n_rx),
                              min_size=n_t, max_size=n_t))
    args = dict(x=rows, p=[[float(i), 0.0, 0.0] for i in range(n_rx)],
                az=data.draw(reals), el=data.draw(reals), f=data.draw(reals))
    call = ("calibration.estimate_gains(np.array(args['x'], dtype=complex).reshape(-1, "
            f"{n_rx}), args['p'], args['az'], args['el'], args['f'])")
    run_case(HELPER.format(call=call), args)


# read_filterbank on damaged files: a header of known and unknown keywords with
# any values, or random bytes; it returns a consistent result or ValueError.
READ_FILE = """
import os, struct, tempfile
path = os.path.join(tempfile.mkdtemp(), "f.fil")
with open(path, "wb") as f:
    f.write(args["raw"])
header, data = bf.read_filterbank(path)
assert data.shape[0] == header["nsamples"], (header, data.shape)
for key, value in header.items():
    if isinstance(value, float):
        assert np.isfinite(value), (key, value)
"""

SIGPROC_FIELDS = {"nchans": "i", "nbits": "i", "nifs": "i", "tsamp": "d", "fch1": "d",
                  "foff": "d", "tstart": "d", "source_name": "s", "telescope_id": "i",
                  "nbeams": "i", "ibeam": "i", "barycentric": "i"}


@st.composite
def filterbank_bytes(draw):
    import struct

    def string(text):
        raw = text.encode("utf-8", "surrogatepass")
        return struct.pack("<i", len(raw)) + raw

    if draw(st.integers(0, 9)) == 0:
        return draw(st.binary(max_size=64))
    raw = string("HEADER_START")
    for _ in range(draw(st.integers(0, 8))):
        key = draw(st.one_of(st.sampled_from(sorted(SIGPROC_FIELDS)), st.text(max_size=4)))
        raw += string(key)
        kind = SIGPROC_FIELDS.get(key, "i")
        if kind == "i":
            raw += struct.pack("<i", draw(st.one_of(st.integers(-3, 40),
                                                     st.sampled_from([2**31 - 1, -2**31]))))
        elif kind == "d":
            raw += struct.pack("<d", draw(reals))
        else:
            raw += string(draw(texts))
    if draw(st.booleans()):
        raw += string("HEADER_END")
    return raw + draw(st.binary(max_size=64))


@fuzz
@given(filterbank_bytes())
def test_fuzz_read_filterbank(raw):
    run_case(READ_FILE, dict(raw=raw))
