# Copyright 2026 gr-beamform authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""Helpers for the snippets isolated.py runs in processes of their own (the
bad-input regression tests and the fuzz suite): streaming random items
through a block, PMTs from plain Python values, arguments handed over by
pickle."""
import base64
import pickle

import numpy as np
import pmt
from gnuradio import blocks, gr


def stream_random(blk, n_items=8, seed=0, max_bytes=1 << 24):
    """Run n_items items of random bytes (as floats: any value, NaN and inf
    included) through blk; returns the output bytes, or None when the items
    would exceed max_bytes."""
    tb = gr.top_block()
    n_in = blk.input_signature().max_streams()
    n_out = blk.output_signature().max_streams()
    isz = blk.input_signature().sizeof_stream_item(0) if n_in else 0
    osz = blk.output_signature().sizeof_stream_item(0) if n_out else 0
    if n_items * max(isz, osz) > max_bytes:
        return None
    snk = blocks.vector_sink_b(osz) if n_out else None
    last = blk
    if n_in:
        data = np.random.default_rng(seed).integers(0, 256, n_items * isz, dtype=np.uint8)
        tb.connect(blocks.vector_source_b(data.tolist(), False, isz), blk)
    else:  # a source: take n_items of it
        last = blocks.head(osz, n_items)
        tb.connect(blk, last)
    if snk is not None:
        tb.connect(last, snk)
    tb.run()
    return bytes(snk.data()) if snk is not None else b""


def to_pmt(value):
    """A PMT from plain Python: dict, list of numbers (f64vector, or c32vector
    if one is complex), tuple, str (symbol), None (nil), bool, int, float,
    complex."""
    if isinstance(value, dict):
        d = pmt.make_dict()
        for k, v in value.items():
            d = pmt.dict_add(d, to_pmt(k), to_pmt(v))
        return d
    if isinstance(value, list):
        if any(isinstance(v, complex) for v in value):
            return pmt.init_c32vector(len(value), [complex(v) for v in value])
        return pmt.init_f64vector(len(value), [float(v) for v in value])
    if isinstance(value, tuple):
        t = pmt.make_vector(len(value), pmt.PMT_NIL)
        for i, v in enumerate(value):
            pmt.vector_set(t, i, to_pmt(v))
        return pmt.to_tuple(t)
    if isinstance(value, str):
        return pmt.intern(value)
    if value is None:
        return pmt.PMT_NIL
    if isinstance(value, bool):
        return pmt.from_bool(value)
    if isinstance(value, int):
        return pmt.from_long(value)
    if isinstance(value, complex):
        return pmt.from_complex(value)
    return pmt.from_double(value)


def pickled(value):
    """`value` as text for a snippet (repr cannot spell NaN or inf)."""
    return base64.b64encode(pickle.dumps(value)).decode()


def arguments(text):
    """The value pickled() turned into text."""
    return pickle.loads(base64.b64decode(text))
