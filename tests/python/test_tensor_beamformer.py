# Copyright 2026 gr-beamform authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""tensor_beamformer: float16 / int1, voltage / power, polarizations and Stokes,
against numpy; tags, runtime weight updates and parameter checks."""
import time

import numpy as np
import pmt
import pytest
from gnuradio import beamform, blocks, gr

from conftest import HOST_DEVICES, byte_source, gpu_devices

P = beamform.beam_precision
O = beamform.beam_output
POL = beamform.polarization_layout
S = beamform.stokes_mode

ALL_DEVICES = HOST_DEVICES + gpu_devices()


# ---------------------------------------------------------------- references
def random_complex(rng, shape, scale=1.0):
    return (scale * (rng.standard_normal(shape) + 1j * rng.standard_normal(shape))).astype(
        np.complex64)


def fp16(z):
    """complex64 rounded to fp16 per part (numpy's float32 -> float16 is round
    to nearest even), returned as complex128 for exact further arithmetic."""
    z = np.asarray(z, dtype=np.complex64)
    return (z.real.astype(np.float16).astype(np.float64)
            + 1j * z.imag.astype(np.float16).astype(np.float64))


def signs(z):
    """The 1-bit value of each part: +1 where >= 0, else -1 (integers)."""
    return (np.where(z.real >= 0, 1, -1).astype(np.int64)
            + 1j * np.where(z.imag >= 0, 1, -1).astype(np.int64))


def pack_bits(x):
    """numpy packer, independent of bit_packer: x (T, C, R) -> (T, C, 2, words)
    uint32, receiver 32w+k in bit k of word w, padding bits 0."""
    t, c, r = x.shape
    words = (r + 31) // 32
    out = np.zeros((t, c, 2, words), dtype=np.uint32)
    for part, values in enumerate((x.real, x.imag)):
        bits = (values >= 0).astype(np.uint64)
        for rx in range(r):
            out[:, :, part, rx // 32] |= (bits[:, :, rx] << np.uint64(rx % 32)).astype(
                np.uint32)
    return out


def beams_reference(x, w, polarization):
    """x (T, C, R), w (C, B, R), any numeric complex: beams (T, C, B, n_pol)."""
    if polarization == POL.single:
        return np.einsum("cbr,tcr->tcb", w, x)[..., None]
    bx = np.einsum("cbr,tcr->tcb", w[:, :, 0::2], x[:, :, 0::2])
    by = np.einsum("cbr,tcr->tcb", w[:, :, 1::2], x[:, :, 1::2])
    return np.stack([bx, by], axis=-1)


def power_reference(beams, n_int, stokes):
    """beams (T, C, B, n_pol) -> (T / n_int, n_stokes, B, C)."""
    t, c, b, n_pol = beams.shape
    def norm(z):  # |z|^2 without a square root, exact for integers
        return z.real ** 2 + z.imag ** 2

    if n_pol == 1:
        stokes_params = [norm(beams[..., 0])]
    else:
        x, y = beams[..., 0], beams[..., 1]
        xx, yy, xy = norm(x), norm(y), x * np.conj(y)
        stokes_params = [xx + yy]
        if stokes == S.IQUV:
            stokes_params += [xx - yy, 2 * xy.real, 2 * xy.imag]
    p = np.stack(stokes_params, axis=1)  # (T, n_stokes, C, B)
    p = p.reshape(t // n_int, n_int, *p.shape[1:]).sum(axis=1)
    return np.swapaxes(p, -1, -2)  # (T/n_int, n_stokes, B, C)


# ---------------------------------------------------------------- flowgraph
def run_beamformer(x_items, weights, n_channels, n_receivers, n_beams, device,
                   precision=P.float16, output=O.voltage, n_int=1,
                   polarization=POL.single, stokes=S.I, tags=()):
    """Stream x_items (float16: (T, C, R) complex64; int1: (T, C, 2, words)
    uint32) through a tensor_beamformer; return its output items and tags.

    The blocks die with this function: on GNU Radio 3.10.5.1 a GPU (or emu)
    block kept alive from a finished flowgraph makes the next flowgraph's
    start() abort (buffer::drop_reader), so no block outlives its run here."""
    bf = beamform.tensor_beamformer(n_channels, n_receivers, n_beams,
                                    np.asarray(weights, np.complex64).ravel(), precision,
                                    output, n_int, polarization, stokes, device)
    tb = gr.top_block()
    src = byte_source(x_items, bf.input_item_bytes(), tags)
    if output == O.voltage:
        n_pol = 2 if polarization == POL.xy_pairs else 1
        snk = blocks.vector_sink_c(n_channels * n_beams * n_pol)
    else:
        snk = blocks.vector_sink_f(bf.output_item_bytes() // 4)
    tb.connect(src, bf, snk)
    tb.run()
    return np.array(snk.data()), snk.tags()


def rel_err(a, b):
    return np.linalg.norm(np.asarray(a) - b) / np.linalg.norm(b)


def fp32_tolerance(device, host_tolerance):
    """The CPU engine sums in IEEE fp32; tensor cores accumulate in fp32 with
    their own (not always round-to-nearest) alignment, so GPUs get 10x more."""
    return host_tolerance if device in HOST_DEVICES else 10 * host_tolerance


# ---------------------------------------------------------------- float16
@pytest.mark.parametrize("device", ALL_DEVICES)
def test_float16_voltage_matches_numpy_with_fp16_rounding(rng, device):
    # Odd sizes: 48 receivers x 155 beams x 37 samples x 3 channels.
    n_t, n_c, n_r, n_b = 37, 3, 48, 155
    x = random_complex(rng, (n_t, n_c, n_r))
    w = random_complex(rng, (n_c, n_b, n_r), 0.3)
    out, _ = run_beamformer(x, w, n_c, n_r, n_b, device)
    out = out.reshape(n_t, n_c, n_b)
    rounded = beams_reference(fp16(x), fp16(w), POL.single)[..., 0]
    exact = beams_reference(x.astype(np.complex128), w.astype(np.complex128),
                            POL.single)[..., 0]
    err_rounded, err_exact = rel_err(out, rounded), rel_err(out, exact)
    print(f"{device}: rel. error vs fp16-rounded numpy {err_rounded:.2e}, "
          f"vs unrounded numpy {err_exact:.2e}")
    assert np.all(np.isfinite(out))
    # fp32 sums of fp16-rounded values: only fp32 rounding differs.
    assert err_rounded < fp32_tolerance(device, 2e-6)
    np.testing.assert_allclose(out, rounded, rtol=0,
                               atol=fp32_tolerance(device, 2e-5) * np.abs(rounded).max())
    # The rounding is really emulated: the unrounded product differs by the
    # fp16 quantisation (~2^-11 relative per factor), far more than above.
    assert 1e-4 < err_exact < 3e-3


@pytest.mark.parametrize("device", HOST_DEVICES)
def test_fp16_rounding_is_round_to_nearest_even_like_numpy(rng, device):
    # One receiver, weight 1: the output is the input rounded to fp16. The
    # values cover the normal range, the subnormals and exact ties.
    n = 3000
    magnitudes = np.exp2(rng.uniform(-26, 15.9, n))
    ties = (np.arange(1, 201) + 0.5) * 2.0 ** -10  # halfway between fp16 steps
    values = np.concatenate([magnitudes, ties, 2.0 ** -24 * np.arange(0.5, 6, 0.5)])
    values = (values * rng.choice([-1, 1], values.size)).astype(np.float32)
    values = values[: values.size // 2 * 2]
    x = (values[0::2] + 1j * values[1::2]).astype(np.complex64).reshape(-1, 1, 1)
    out, _ = run_beamformer(x, [1.0 + 0j], 1, 1, 1, device)
    expected = (x.real.astype(np.float16).astype(np.float32)
                + 1j * x.imag.astype(np.float16).astype(np.float32)).ravel()
    np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize("device", ALL_DEVICES)
@pytest.mark.parametrize("n_int", [1, 5])
def test_float16_power_integrates_n_int_steps(rng, device, n_int):
    n_t, n_c, n_r, n_b = 35, 3, 21, 11
    x = random_complex(rng, (n_t, n_c, n_r))
    w = random_complex(rng, (n_c, n_b, n_r))
    out, _ = run_beamformer(x, w, n_c, n_r, n_b, device, output=O.power, n_int=n_int)
    out = out.reshape(n_t // n_int, 1, n_b, n_c)
    expected = power_reference(beams_reference(fp16(x), fp16(w), POL.single), n_int, S.I)
    assert rel_err(out, expected) < fp32_tolerance(device, 5e-6)


@pytest.mark.parametrize("device", ALL_DEVICES)
def test_float16_power_few_receivers_many_beams_long_integration(rng, device):
    # Direction finding's shape: 5 receivers, 360 beams, n_int 256 (the CPU
    # engine takes each integration's receiver covariance here).
    n_t, n_c, n_r, n_b, n_int = 512, 1, 5, 360, 256
    x = random_complex(rng, (n_t, n_c, n_r))
    w = random_complex(rng, (n_c, n_b, n_r))
    out, _ = run_beamformer(x, w, n_c, n_r, n_b, device, output=O.power, n_int=n_int)
    out = out.reshape(n_t // n_int, 1, n_b, n_c)
    expected = power_reference(beams_reference(fp16(x), fp16(w), POL.single), n_int, S.I)
    assert rel_err(out, expected) < fp32_tolerance(device, 5e-6)


@pytest.mark.parametrize("device", ALL_DEVICES)
def test_xy_pairs_voltage_forms_x_and_y_beams_separately(rng, device):
    n_t, n_c, n_r, n_b = 13, 2, 18, 7
    x = random_complex(rng, (n_t, n_c, n_r))
    w = random_complex(rng, (n_c, n_b, n_r))
    out, _ = run_beamformer(x, w, n_c, n_r, n_b, device, polarization=POL.xy_pairs)
    out = out.reshape(n_t, n_c, n_b, 2)
    expected = beams_reference(fp16(x), fp16(w), POL.xy_pairs)
    assert rel_err(out, expected) < fp32_tolerance(device, 2e-6)


@pytest.mark.parametrize("device", ALL_DEVICES)
@pytest.mark.parametrize("stokes", [S.I, S.IQUV])
@pytest.mark.parametrize("precision", [P.float16, P.int1])
def test_stokes_power_matches_numpy(rng, device, stokes, precision):
    n_t, n_c, n_r, n_b, n_int = 24, 3, 38, 9, 4
    x = random_complex(rng, (n_t, n_c, n_r))
    w = random_complex(rng, (n_c, n_b, n_r))
    items = pack_bits(x) if precision == P.int1 else x
    out, _ = run_beamformer(items, w, n_c, n_r, n_b, device, precision=precision,
                               output=O.power, n_int=n_int, polarization=POL.xy_pairs,
                               stokes=stokes)
    n_stokes = 4 if stokes == S.IQUV else 1
    out = out.reshape(n_t // n_int, n_stokes, n_b, n_c)
    if precision == P.int1:
        expected = power_reference(beams_reference(signs(x), signs(w), POL.xy_pairs),
                                   n_int, stokes)
        np.testing.assert_array_equal(out, expected)  # integers, exact
    else:
        expected = power_reference(beams_reference(fp16(x), fp16(w), POL.xy_pairs),
                                   n_int, stokes)
        assert rel_err(out, expected) < fp32_tolerance(device, 5e-6)


@pytest.mark.parametrize("device", ALL_DEVICES)
def test_stokes_hand_written_vectors(device):
    # One antenna (X = receiver 0, Y = receiver 1), one channel, two beams:
    # beam 0 weights (1, 1), beam 1 weights (1j, 1); n_int = 2.
    #   t0: X = 1+2j, Y = 3-1j.  beam 0: |X|^2 = 5, |Y|^2 = 10, X Y* = 1+7j
    #                           beam 1: X = -2+1j: |X|^2 = 5, X Y* = -7+1j
    #   t1: X = 2j,   Y = -1.    beam 0: |X|^2 = 4, |Y|^2 = 1, X Y* = -2j
    #                           beam 1: X = -2: |X|^2 = 4, X Y* = 2
    # Sums, beam 0: I = 20, Q = -2, U = 2 (1 + 0), V = 2 (7 - 2) = 10
    #       beam 1: I = 20, Q = -2, U = 2 (-7 + 2) = -10, V = 2 (1 + 0) = 2
    x = np.array([[[1 + 2j, 3 - 1j]], [[2j, -1]]], dtype=np.complex64)
    w = np.array([[[1, 1], [1j, 1]]], dtype=np.complex64)
    iquv, _ = run_beamformer(x, w, 1, 2, 2, device, output=O.power, n_int=2,
                                polarization=POL.xy_pairs, stokes=S.IQUV)
    # item [n_stokes][beams][channels]
    np.testing.assert_array_equal(iquv, [20, 20, -2, -2, 2, -10, 10, 2])
    stokes_i, _ = run_beamformer(x, w, 1, 2, 2, device, output=O.power, n_int=2,
                                    polarization=POL.xy_pairs, stokes=S.I)
    np.testing.assert_array_equal(stokes_i, [20, 20])
    volts, _ = run_beamformer(x, w, 1, 2, 2, device, polarization=POL.xy_pairs)
    np.testing.assert_array_equal(
        volts, [1 + 2j, 3 - 1j, -2 + 1j, 3 - 1j, 2j, -1, -2, -1])


# ---------------------------------------------------------------- int1
@pytest.mark.parametrize("device", ALL_DEVICES)
@pytest.mark.parametrize("n_r", [1, 32, 70])
def test_int1_voltage_is_exact_integer_sign_products(rng, device, n_r):
    n_t, n_c, n_b = 17, 3, 23
    x = random_complex(rng, (n_t, n_c, n_r))
    w = random_complex(rng, (n_c, n_b, n_r))
    packed = pack_bits(x)
    words = packed.shape[-1]
    if n_r % 32:
        # Padding bits must be ignored: set them all.
        packed[..., words - 1] |= np.uint32(~((1 << (n_r % 32)) - 1) & 0xFFFFFFFF)
    out, _ = run_beamformer(packed, w, n_c, n_r, n_b, device, precision=P.int1)
    expected = beams_reference(signs(x), signs(w), POL.single)[..., 0]
    np.testing.assert_array_equal(out.reshape(n_t, n_c, n_b), expected)


@pytest.mark.parametrize("device", HOST_DEVICES)
def test_int1_through_bit_packer_equals_float16_on_sign_data(rng, device):
    # On +-1 +-1j data with +-1 +-1j weights both modes are exact.
    n_t, n_c, n_r, n_b = 9, 2, 45, 6
    x = signs(random_complex(rng, (n_t, n_c, n_r))).astype(np.complex64)
    w = signs(random_complex(rng, (n_c, n_b, n_r))).astype(np.complex64)
    # Two flowgraphs: one host output feeding two device blocks is a topology
    # GNU Radio 3.10.5.1 cannot run (docs/architecture.md).
    tb = gr.top_block()
    packer = beamform.bit_packer(n_c, n_r, device)
    bf1 = beamform.tensor_beamformer(n_c, n_r, n_b, w.ravel(), P.int1, O.voltage, 1,
                                     POL.single, S.I, device)
    snk1 = blocks.vector_sink_c(n_c * n_b)
    tb.connect(byte_source(x, n_c * n_r * 8), packer, bf1, snk1)
    tb.run()
    out1 = np.array(snk1.data())
    del tb, packer, bf1, snk1  # see run_beamformer
    out16, _ = run_beamformer(x, w, n_c, n_r, n_b, device)
    np.testing.assert_array_equal(out1, out16)
    np.testing.assert_array_equal(out1.reshape(n_t, n_c, n_b),
                                  beams_reference(x, w, POL.single)[..., 0])


# ---------------------------------------------------------------- tags
def make_tag(offset, key, value):
    t = gr.tag_t()
    t.offset, t.key, t.value = offset, pmt.intern(key), pmt.from_long(value)
    return t


@pytest.mark.parametrize("device", HOST_DEVICES)
@pytest.mark.parametrize("output, n_int", [(O.voltage, 1), (O.power, 8)])
def test_tags_pass_through_with_offsets_scaled_by_rate(rng, device, output, n_int):
    n_t, n_c, n_r, n_b = 64, 2, 5, 3
    x = random_complex(rng, (n_t, n_c, n_r))
    w = random_complex(rng, (n_c, n_b, n_r))
    tags = [make_tag(0, "rx_time", 1), make_tag(17, "rx_freq", 2), make_tag(63, "user", 3)]
    _, out_tags = run_beamformer(x, w, n_c, n_r, n_b, device, output=output,
                                    n_int=n_int, tags=tags)
    got = sorted((t.offset, pmt.symbol_to_string(t.key)) for t in out_tags)
    assert got == [(0, "rx_time"), (17 // n_int, "rx_freq"), (63 // n_int, "user")]


# ---------------------------------------------------------------- runtime updates
class trigger(gr.sync_block):
    """Passes items through; before item `at` leaves it, waits until the
    beamformer has read every earlier item, then publishes `message`. So the
    beamformer's next work call, the first to see item `at`, starts there."""

    def __init__(self, item_bytes, at, message, beamformer):
        gr.sync_block.__init__(self, "trigger", in_sig=[(np.uint8, item_bytes)],
                               out_sig=[(np.uint8, item_bytes)])
        self.at, self.message, self.beamformer = at, message, beamformer
        self.sent = False
        self.message_port_register_out(pmt.intern("out"))

    def work(self, input_items, output_items):
        start = self.nitems_written(0)
        n = len(output_items[0])
        if not self.sent:
            if start < self.at:
                n = min(n, self.at - start)
            else:
                deadline = time.time() + 10
                while self.beamformer.nitems_read(0) < self.at and time.time() < deadline:
                    time.sleep(0.001)
                self.message_port_pub(pmt.intern("out"), self.message)
                self.sent = True
        output_items[0][:n] = input_items[0][:n]
        return n


@pytest.mark.parametrize("device", ALL_DEVICES)
@pytest.mark.parametrize("output, n_int", [(O.voltage, 1), (O.power, 4)])
@pytest.mark.parametrize("as_dict", [False, True])
def test_weight_update_lands_on_a_work_call_boundary(rng, device, output, n_int, as_dict):
    n_t, n_c, n_r, n_b, at = 400, 2, 9, 5, 160
    x = random_complex(rng, (n_t, n_c, n_r))
    w_old = random_complex(rng, (n_c, n_b, n_r))
    w_new = random_complex(rng, (n_c, n_b, n_r))
    bf = beamform.tensor_beamformer(n_c, n_r, n_b, w_old.ravel(), P.float16, output, n_int,
                                    POL.single, S.I, device)
    vector = pmt.init_c32vector(w_new.size, w_new.ravel().tolist())
    message = pmt.dict_add(pmt.make_dict(), pmt.intern("weights"), vector) if as_dict else vector
    trig = trigger(bf.input_item_bytes(), at, message, bf)
    tb = gr.top_block()
    src = byte_source(x, bf.input_item_bytes())
    snk = (blocks.vector_sink_c(n_c * n_b) if output == O.voltage
           else blocks.vector_sink_f(n_b * n_c))
    tb.connect(src, trig, bf, snk)
    tb.msg_connect(trig, "out", bf, "weights")
    tb.run()
    assert trig.sent
    out = np.array(snk.data())
    beams_old = beams_reference(fp16(x), fp16(w_old), POL.single)
    beams_new = beams_reference(fp16(x), fp16(w_new), POL.single)
    if output == O.voltage:
        out = out.reshape(n_t, n_c, n_b)
        old, new = beams_old[..., 0], beams_new[..., 0]
    else:
        out = out.reshape(n_t // n_int, 1, n_b, n_c)
        old, new = (power_reference(b, n_int, S.I) for b in (beams_old, beams_new))
    first_new = at // n_int
    # Every item is entirely old or entirely new: before the boundary old,
    # from it on new, no item mixes the two.
    for k in range(out.shape[0]):
        ref = old[k] if k < first_new else new[k]
        other = new[k] if k < first_new else old[k]
        assert rel_err(out[k], ref) < fp32_tolerance(device, 5e-6), f"item {k}"
        assert rel_err(out[k], other) > 1e-2, f"item {k}"
    update_tags = [t for t in snk.tags() if pmt.symbol_to_string(t.key) == "weights_update"]
    assert [(t.offset, pmt.to_uint64(t.value)) for t in update_tags] == [(first_new, 1)]
    assert bf.weight_updates_applied() == 1
    np.testing.assert_array_equal(np.array(bf.weights()), w_new.ravel())


@pytest.mark.parametrize("device", HOST_DEVICES)
def test_pointing_message_steers_the_beams(rng, device):
    from gnuradio.beamform import steering_helpers as sh

    n_t, n_r, at = 40, 6, 20
    positions = rng.uniform(-5, 5, (n_r, 3))
    freqs = sh.channel_frequencies(150e6, 3, channel_spacing=0.5e6)
    start_az_el = np.array([[10.0, 80.0], [200.0, 45.0]])
    new_az_el = np.array([[45.0, 30.0], [300.0, 70.0]])
    bf = sh.steered_beamformer(positions, freqs, az_el=start_az_el, device=device)
    np.testing.assert_allclose(np.array(bf.weights()),
                               sh.weights_for(positions, freqs, az_el=start_az_el).ravel())
    x = random_complex(rng, (n_t, 3, n_r))
    message = pmt.dict_add(pmt.make_dict(), pmt.intern("az_el"),
                           pmt.init_f64vector(4, new_az_el.ravel().tolist()))
    trig = trigger(bf.input_item_bytes(), at, message, bf)
    tb = gr.top_block()
    snk = blocks.vector_sink_c(3 * 2)
    tb.connect(byte_source(x, bf.input_item_bytes()), trig, bf, snk)
    tb.msg_connect(trig, "out", bf, "pointing")
    tb.run()
    out = np.array(snk.data()).reshape(n_t, 3, 2)
    w_old = sh.weights_for(positions, freqs, az_el=start_az_el)
    w_new = sh.weights_for(positions, freqs, az_el=new_az_el)
    ref_old = beams_reference(fp16(x), fp16(w_old), POL.single)[..., 0]
    ref_new = beams_reference(fp16(x), fp16(w_new), POL.single)[..., 0]
    assert rel_err(out[:at], ref_old[:at]) < fp32_tolerance(device, 5e-6)
    assert rel_err(out[at:], ref_new[at:]) < fp32_tolerance(device, 5e-6)
    # lm entry point: (l, m) of the same directions gives the same weights.
    el, az = np.radians(new_az_el[:, 1]), np.radians(new_az_el[:, 0])
    lm = np.stack([np.cos(el) * np.sin(az), np.cos(el) * np.cos(az)], axis=1)
    bf.set_pointing_lm(lm.ravel().tolist())
    np.testing.assert_allclose(np.array(bf.weights()), w_new.ravel(), atol=1e-6)


def test_bad_messages_are_dropped_not_applied(rng):
    n_c, n_r, n_b = 1, 3, 2
    w = random_complex(rng, (n_c, n_b, n_r))
    bf = beamform.tensor_beamformer(n_c, n_r, n_b, w.ravel(), device="cpu")
    w_good = random_complex(rng, (n_c, n_b, n_r))
    port = pmt.intern("weights")
    bf.to_basic_block()._post(port, pmt.init_c32vector(2, [1, 2]))  # wrong size
    bf.to_basic_block()._post(port, pmt.init_f32vector(6, [1.0] * 6))  # wrong type
    bf.to_basic_block()._post(pmt.intern("pointing"), pmt.make_dict())  # no geometry
    # A good message after the bad ones: applied, so the bad ones were handled.
    bf.to_basic_block()._post(port, pmt.init_c32vector(w_good.size, w_good.ravel().tolist()))
    x = random_complex(rng, (4, n_c, n_r))
    tb = gr.top_block()
    snk = blocks.vector_sink_c(n_c * n_b)
    tb.connect(byte_source(x, bf.input_item_bytes()), bf, snk)
    tb.run()
    assert bf.weight_updates_applied() == 1
    np.testing.assert_array_equal(np.array(bf.weights()), w_good.ravel())
    out = np.array(snk.data()).reshape(4, n_c, n_b)
    assert rel_err(out, beams_reference(fp16(x), fp16(w_good), POL.single)[..., 0]) < 5e-6

def test_set_weights_and_pointing_check_their_arguments(rng):
    bf = beamform.tensor_beamformer(2, 3, 4, np.ones(24, np.complex64), device="cpu")
    with pytest.raises(ValueError, match="weights"):
        bf.set_weights([1j] * 23)
    with pytest.raises(ValueError, match="az_el.*set_geometry"):
        bf.set_pointing_az_el([0.0, 90.0] * 4)
    with pytest.raises(ValueError, match="positions"):
        bf.set_geometry([[0.0] * 3] * 2, [1e8, 2e8], [], False)
    with pytest.raises(ValueError, match="positions"):
        bf.set_geometry([[0.0, 0.0, float("nan")]] * 3, [1e8, 2e8], [], False)
    with pytest.raises(TypeError):  # one (east, north, up) per receiver, not flat
        bf.set_geometry([0.0] * 9, [1e8, 2e8], [], False)
    with pytest.raises(ValueError, match="frequencies"):
        bf.set_geometry([[0.0] * 3] * 3, [1e8], [], False)
    with pytest.raises(ValueError, match="gains"):
        bf.set_geometry([[0.0] * 3] * 3, [1e8, 2e8], [1, 2], False)
    bf.set_geometry([[0.0, 0, 0], [1, 0, 0], [2, 0, 0]], [1e8, 2e8], [], False)
    with pytest.raises(ValueError, match="az_el"):
        bf.set_pointing_az_el([0.0, 90.0] * 3)
    with pytest.raises(ValueError, match="elevation"):
        bf.set_pointing_az_el([0.0, 91.0] * 4)
    with pytest.raises(ValueError, match="lm"):
        bf.set_pointing_lm([0.9, 0.9] * 4)


# ---------------------------------------------------------------- parameters
@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(n_channels=0), "n_channels"),
        (dict(n_receivers=0), "n_receivers"),
        (dict(n_receivers=-2), "n_receivers"),
        (dict(n_beams=0), "n_beams"),
        (dict(n_int=0), "n_int"),
        (dict(n_int=4), "n_int"),  # voltage output integrates nothing
        (dict(polarization=POL.xy_pairs, n_receivers=5), "n_receivers"),
        (dict(stokes=S.IQUV, output=O.power), "stokes"),
        (dict(weights=np.ones(2 * 3 * 6 - 1, np.complex64)), "weights"),
        (dict(weights=np.full(2 * 3 * 6, np.nan, np.complex64)), "weights"),
        (dict(device="gpu7"), "device"),
    ],
)
def test_bad_parameters_raise_naming_the_parameter(kwargs, message):
    args = dict(n_channels=2, n_receivers=6, n_beams=3, weights=None,
                precision=P.float16, output=O.voltage, n_int=1,
                polarization=POL.single, stokes=S.I, device="cpu")
    args.update(kwargs)
    if args["weights"] is None:
        count = args["n_channels"] * args["n_beams"] * max(args["n_receivers"], 1)
        args["weights"] = np.ones(max(count, 1), np.complex64)
    with pytest.raises(ValueError, match=message):
        beamform.tensor_beamformer(**args)


def test_item_sizes_follow_the_data_contract():
    w = np.ones(4 * 5 * 70, np.complex64)
    bf = beamform.tensor_beamformer(4, 70, 5, w, P.int1, O.voltage, 1, POL.xy_pairs, S.I,
                                    "cpu")
    assert bf.input_item_bytes() == 4 * 2 * 3 * 4  # [channels][2][words] uint32
    assert bf.output_item_bytes() == 4 * 5 * 2 * 8  # [channels][beams][2] fc32
    bf = beamform.tensor_beamformer(4, 70, 5, w, P.float16, O.power, 16, POL.xy_pairs,
                                    S.IQUV, "cpu")
    assert bf.input_item_bytes() == 4 * 70 * 8
    assert bf.output_item_bytes() == 4 * 5 * 4 * 4  # [4][beams][channels] float
    assert bf.decimation() == 16
