# Copyright 2026 gr-beamform authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""bit_packer / bit_unpacker: the 1-bit layout of docs/architecture.md, against numpy."""
import numpy as np
import pmt
import pytest
from gnuradio import beamform, blocks, gr

from conftest import HOST_DEVICES, byte_source, gpu_devices

ALL_DEVICES = HOST_DEVICES + gpu_devices()


def numpy_pack(x):
    """(T, C, R) complex -> (T, C, 2, words) uint32 with np.packbits: bit k of
    word w is receiver 32w+k (little-endian bit order within each byte and,
    on this little-endian host, bytes within each word)."""
    t, c, r = x.shape
    words = (r + 31) // 32
    bits = np.zeros((t, c, 2, words * 32), dtype=np.uint8)
    bits[:, :, 0, :r] = x.real >= 0
    bits[:, :, 1, :r] = x.imag >= 0
    packed = np.packbits(bits, axis=-1, bitorder="little")  # (t, c, 2, words*4)
    return np.ascontiguousarray(packed).view("<u4").astype(np.uint32)


def run_packer(x, device, tags=()):
    t, c, r = x.shape
    packer = beamform.bit_packer(c, r, device)
    words = packer.packed_item_words()
    tb = gr.top_block()
    snk = blocks.vector_sink_b(words * 4)
    tb.connect(byte_source(x.astype(np.complex64), c * r * 8, tags), packer, snk)
    tb.run()
    out = np.frombuffer(bytes(snk.data()), dtype="<u4").reshape(t, c, 2, -1)
    return out, snk.tags()


def run_unpacker(packed, n_channels, n_receivers, device):
    unpacker = beamform.bit_unpacker(n_channels, n_receivers, device)
    tb = gr.top_block()
    snk = blocks.vector_sink_c(n_channels * n_receivers)
    tb.connect(byte_source(packed, unpacker.packed_item_words() * 4), unpacker, snk)
    tb.run()
    return np.array(snk.data()).reshape(-1, n_channels, n_receivers)


@pytest.mark.parametrize("device", ALL_DEVICES)
@pytest.mark.parametrize("n_r", [1, 31, 32, 33, 70, 96])
def test_packer_matches_numpy_layout(rng, device, n_r):
    x = (rng.standard_normal((23, 3, n_r)) + 1j * rng.standard_normal((23, 3, n_r)))
    out, _ = run_packer(x, device)
    np.testing.assert_array_equal(out, numpy_pack(x))
    # Padding bits past the last receiver are 0.
    if n_r % 32:
        assert np.all(out[..., -1] >> np.uint32(n_r % 32) == 0)


@pytest.mark.parametrize("device", ALL_DEVICES)
def test_sign_convention_zero_is_plus_one_nan_is_minus_one(device):
    values = np.array([0.0, -0.0, 1e-30, -1e-30, np.inf, -np.inf, np.nan, 5.0])
    x = np.empty((1, 1, values.size), dtype=np.complex64)
    x.real, x.imag = values, values[::-1]  # no complex arithmetic on inf / NaN
    out, _ = run_packer(x, device)
    # real: + + + - + - NaN + ; imag (reversed): + NaN - + - + + +
    assert out[0, 0, 0, 0] == 0b10010111
    assert out[0, 0, 1, 0] == 0b11101001


@pytest.mark.parametrize("device", ALL_DEVICES)
def test_unpacker_inverts_packer_on_signs_and_ignores_padding(rng, device):
    n_c, n_r = 2, 45
    x = rng.standard_normal((11, n_c, n_r)) + 1j * rng.standard_normal((11, n_c, n_r))
    packed = numpy_pack(x)
    packed[..., -1] |= np.uint32(0xFFFFFFFF << (n_r % 32) & 0xFFFFFFFF)  # set padding
    out = run_unpacker(packed, n_c, n_r, device)
    expected = np.where(x.real >= 0, 1, -1) + 1j * np.where(x.imag >= 0, 1, -1)
    np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize("device", HOST_DEVICES)
def test_tags_pass_through(rng, device):
    x = rng.standard_normal((50, 1, 5)) + 1j * rng.standard_normal((50, 1, 5))
    tag = gr.tag_t()
    tag.offset, tag.key, tag.value = 31, pmt.intern("rx_time"), pmt.from_long(7)
    _, tags = run_packer(x, device, [tag])
    assert [(t.offset, pmt.symbol_to_string(t.key)) for t in tags] == [(31, "rx_time")]


@pytest.mark.parametrize("block", ["bit_packer", "bit_unpacker"])
@pytest.mark.parametrize(
    "args, message",
    [((0, 4), "n_channels"), ((2, 0), "n_receivers"), ((2, -1), "n_receivers"),
     ((2, 4, "cuda:x"), "device")])
def test_bad_parameters_raise_naming_the_parameter(block, args, message):
    if len(args) == 2:
        args = args + ("cpu",)
    with pytest.raises(ValueError, match=message):
        getattr(beamform, block)(*args)


def test_item_sizes():
    assert beamform.bit_packer(3, 70, "cpu").packed_item_words() == 3 * 2 * 3
    assert beamform.bit_unpacker(1, 32, "cpu").packed_item_words() == 2
