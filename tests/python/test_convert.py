# Copyright 2026 gr-beamform authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""convert: raw array samples -> scaled fc32, against numpy."""
import numpy as np
import pmt
import pytest
from gnuradio import beamform, blocks, gr

from conftest import FORMATS, HOST_DEVICES, byte_source, gpu_devices, random_samples


def run_convert(raw, fmt, scale, device, tags=()):
    n_items, n_rx, _ = raw.shape
    item_bytes = raw.itemsize * 2 * n_rx
    tb = gr.top_block()
    src = byte_source(raw, item_bytes, tags)
    conv = beamform.convert(FORMATS[fmt][0], n_rx, scale, device)
    snk = blocks.vector_sink_c(n_rx)
    tb.connect(src, conv, snk)
    tb.run()
    out = np.array(snk.data(), dtype=np.complex64).reshape(-1, n_rx)
    return out, snk.tags(), conv


@pytest.mark.parametrize("device", HOST_DEVICES + gpu_devices())
@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("n_rx", [1, 3, 17])
def test_matches_numpy(rng, device, fmt, n_rx):
    raw = random_samples(rng, fmt, 1001, n_rx)
    scale = rng.uniform(0.5, 2.0, n_rx).astype(np.float32)
    out, _, _ = run_convert(raw, fmt, list(scale), device)
    expected = (raw[..., 0].astype(np.float64) + 1j * raw[..., 1]) * scale
    assert out.shape == expected.shape
    err = np.linalg.norm(out - expected) / np.linalg.norm(expected)
    assert err < 1e-6


@pytest.mark.parametrize("device", HOST_DEVICES)
def test_single_scale_applies_to_all_receivers(rng, device):
    raw = random_samples(rng, "sc16", 64, 4)
    out, _, conv = run_convert(raw, "sc16", [0.25], device)
    assert conv.scale() == [0.25] * 4
    np.testing.assert_allclose(out, (raw[..., 0] + 1j * raw[..., 1]) * 0.25, rtol=1e-6)


@pytest.mark.parametrize("device", HOST_DEVICES)
def test_tags_pass_through_with_offsets(rng, device):
    raw = random_samples(rng, "sc8", 500, 2)
    tags = []
    for offset, key in [(0, "rx_time"), (123, "rx_freq"), (499, "user")]:
        t = gr.tag_t()
        t.offset = offset
        t.key = pmt.intern(key)
        t.value = pmt.from_long(offset * 7)
        tags.append(t)
    _, out_tags, _ = run_convert(raw, "sc8", [], device, tags)
    got = sorted((t.offset, pmt.symbol_to_string(t.key), pmt.to_long(t.value)) for t in out_tags)
    assert got == [(0, "rx_time", 0), (123, "rx_freq", 861), (499, "user", 3493)]


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(n_receivers=0), "n_receivers"),
        (dict(n_receivers=-3), "n_receivers"),
        (dict(scale=[1.0, 2.0]), "scale"),
        (dict(scale=[float("nan")] * 3), "scale"),
        (dict(device="gpu7"), "device"),
        (dict(device="cuda:x"), "device"),
    ],
)
def test_bad_parameters_raise_naming_the_parameter(kwargs, message):
    args = dict(input_format=beamform.sc16, n_receivers=3, scale=[], device="cpu")
    args.update(kwargs)
    with pytest.raises(ValueError, match=message):
        beamform.convert(**args)


def test_absent_gpu_is_an_error_not_a_fallback():
    n_gpus = len(gpu_devices())
    with pytest.raises(RuntimeError, match="cuda:9|without the cuda"):
        beamform.convert(beamform.sc16, 2, [], "cuda:9" if n_gpus < 10 else "cuda:99")


def test_auto_resolves_to_a_usable_device():
    conv = beamform.convert(beamform.sc16, 2, [], "auto")
    expected = gpu_devices()[0] if gpu_devices() else "cpu"
    assert conv.device() == expected
