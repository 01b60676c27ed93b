# Copyright 2026 gr-beamform authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""Message ports check the whole message before applying any of it (issue 14,
reproducer 8): an unknown key, a wrong length, an empty vector or a value that
is not finite or out of range is rejected, logged once naming the port and the
key, and counted in messages_rejected(); a good message after them applies."""
import math

import numpy as np
import pmt
import pytest
from gnuradio import beamform, blocks, gr


def message(**fields):
    d = pmt.make_dict()
    for key, value in fields.items():
        if isinstance(value, (list, tuple)):
            value = (pmt.init_c32vector(len(value), list(value))
                     if any(isinstance(v, complex) for v in value)
                     else pmt.init_f64vector(len(value), [float(v) for v in value]))
        else:
            value = pmt.from_double(value)
        d = pmt.dict_add(d, pmt.intern(key), value)
    return d


def run_through(blk, item_floats_in, item_floats_out, n_items=8):
    """A short run, so that the posted messages are handled."""
    tb = gr.top_block()
    src = blocks.vector_source_c([0j] * (n_items * item_floats_in), False, item_floats_in)
    tb.connect(src, blk, blocks.null_sink(8 * item_floats_out))
    tb.run()


# Each bad message and the key its log line must name.
PHASE_SHIFT_BAD = [
    (message(delay=[1e-9, 2e-9, 3e-9]), '"delay" is unknown'),  # typo of "delays"
    (message(delays=[]), '"delays" must not be empty'),  # was: reset to 0
    (message(delays=[1e-9, 2e-9]), "delays must have 1 or n_receivers"),
    (message(delays=[math.nan, 0.0, 0.0]), "delays must be finite"),
    (message(gains=[complex(math.inf, 0), 1 + 0j, 1 + 0j]), "gains must be finite"),
    (message(rates=[1e300, 0, 0]), "rates must be in (-1, 1)"),  # was: no warning
    (message(rates=[1e-3, 0, 0], t0=1e308), "f * rates * t0"),  # was: NaN output
    (message(t0=[]), '"t0" must not be empty'),
    # a good key with a bad one: nothing of it applies
    (message(delays=[5e-9, 5e-9, 5e-9], rates=[math.inf, 0, 0]), "rates must be finite"),
    (pmt.from_long(3), "PMT dict"),
    (pmt.make_dict(), "empty dict"),  # was: an update that changes nothing
]


def test_phase_shift_rejects_bad_messages_whole(capfd):
    blk = beamform.phase_shift(2, 3, [1.4e9, 1.41e9], 1e-6, [1e-9], [], [], 0.0, "cpu")
    for msg, _ in PHASE_SHIFT_BAD:
        blk._post(pmt.intern("delays"), msg)
    run_through(blk, 6, 6)
    assert blk.messages_rejected() == len(PHASE_SHIFT_BAD)
    assert blk.updates_applied() == 0
    assert blk.delays() == pytest.approx([1e-9] * 3, abs=0)
    assert blk.rates() == [0.0] * 3 and blk.t0() == 0.0
    captured = capfd.readouterr()  # GNU Radio's logger writes to stdout
    log = captured.out + captured.err
    lines = [l for l in log.splitlines() if 'rejected a message on port "delays"' in l]
    assert len(lines) == len(PHASE_SHIFT_BAD), log
    for (_, fragment), line in zip(PHASE_SHIFT_BAD, lines):
        assert fragment in line, (fragment, line)


def test_phase_shift_good_message_after_bad_ones_applies():
    blk = beamform.phase_shift(1, 2, [1.4e9], 1e-6, [], [], [], 0.0, "cpu")
    blk._post(pmt.intern("delays"), message(delays=[]))
    blk._post(pmt.intern("delays"), message(delays=[1e-9, -1e-9], t0=0.5))
    run_through(blk, 2, 2)
    assert (blk.messages_rejected(), blk.updates_applied()) == (1, 1)
    assert blk.delays() == [1e-9, -1e-9] and blk.t0() == 0.5


def test_phase_shift_setter_checks_the_same_limits():
    blk = beamform.phase_shift(1, 2, [1.4e9], 1e-6, [], [], [], 0.0, "cpu")
    with pytest.raises(ValueError, match=r"rates must be in \(-1, 1\)"):
        blk.set_delays([], [2.0])
    with pytest.raises(ValueError, match=r"f \* rates \* t0"):
        blk.set_delays([], [1e-3], [], 1e308)
    with pytest.raises(ValueError, match=r"rates must be in \(-1, 1\)"):
        beamform.phase_shift(1, 2, [1.4e9], 1e-6, [], [1e300], [], 0.0, "cpu")


def tensor_beamformer():
    n_c, n_r, n_b = 1, 4, 2
    blk = beamform.tensor_beamformer(n_c, n_r, n_b, [1 + 0j] * (n_c * n_r * n_b),
                                     device="cpu")
    blk.set_geometry([[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0]], [1.4e9])
    return blk, n_c * n_r, n_c * n_b


TENSOR_BAD = [
    ("weights", message(weight=[1 + 0j] * 8), '"weight" is unknown'),
    ("weights", message(weights=[]), '"weights" must not be empty'),
    ("weights", pmt.init_c32vector(0, []), '"weights" must not be empty'),
    ("weights", pmt.init_c32vector(3, [1j] * 3), "weights must have"),
    ("weights", pmt.init_c32vector(8, [complex(math.nan, 0)] * 8), "weights must be finite"),
    ("pointing", message(azel=[0.0, 90.0] * 2), '"azel" is unknown'),
    ("pointing", message(az_el=[0.0, 90.0] * 2, lm=[0.0, 0.0] * 2), "both"),
    ("pointing", message(az_el=[]), '"az_el" must not be empty'),
    ("pointing", message(az_el=[0.0, 90.0]), "az_el must have 2 * n_beams"),
]


def test_tensor_beamformer_rejects_bad_messages_whole(capfd):
    blk, n_in, n_out = tensor_beamformer()
    for port, msg, _ in TENSOR_BAD:
        blk.to_basic_block()._post(pmt.intern(port), msg)
    run_through(blk, n_in, n_out)
    assert blk.messages_rejected() == len(TENSOR_BAD)
    assert blk.weight_updates_applied() == 0
    assert np.array_equal(blk.weights(), [1 + 0j] * 8)
    captured = capfd.readouterr()  # GNU Radio's logger writes to stdout
    log = captured.out + captured.err
    lines = [l for l in log.splitlines() if "rejected a message on port" in l]
    assert len(lines) == len(TENSOR_BAD), log
    # Each port's messages in order (the ports' queues are served separately).
    for port in ("weights", "pointing"):
        expected = [fragment for p, _, fragment in TENSOR_BAD if p == port]
        logged = [line for line in lines if f'port "{port}"' in line]
        assert len(logged) == len(expected), log
        for fragment, line in zip(expected, logged):
            assert fragment in line, (fragment, line)


def test_tensor_beamformer_good_pointing_after_bad_one_applies():
    blk, n_in, n_out = tensor_beamformer()
    blk.to_basic_block()._post(pmt.intern("pointing"), message(az_el=[]))
    blk.to_basic_block()._post(pmt.intern("pointing"), message(az_el=[0.0, 90.0] * 2))
    run_through(blk, n_in, n_out)
    assert (blk.messages_rejected(), blk.weight_updates_applied()) == (1, 1)
