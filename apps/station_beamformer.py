#!/usr/bin/env python3
# Copyright 2026 gr-beamform authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""The station beamformer demo (README command 1).

Synthetic int16 array voltages -> beamform.convert -> ... on the GPU when there
is one, else on the CPU. Prints what it did.
"""
import argparse
import sys
import time

import numpy as np
from gnuradio import beamform, blocks, gr


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--receivers", type=int, default=96)
    p.add_argument("--samples", type=int, default=200_000, help="time steps")
    p.add_argument("--device", default="auto")
    args = p.parse_args(argv)

    rng = np.random.default_rng(1)
    n_rx, n_t = args.receivers, args.samples
    # A tone common to all receivers plus independent noise, as int16 voltages.
    t = np.arange(n_t)
    tone = 2000 * np.exp(2j * np.pi * 0.1 * t)
    x = tone[:, None] + 300 * (rng.standard_normal((n_t, n_rx)) + 1j * rng.standard_normal((n_t, n_rx)))
    raw = np.stack([x.real, x.imag], axis=-1).round().astype(np.int16)

    tb = gr.top_block()
    src = blocks.vector_source_b(raw.view(np.uint8).ravel().tolist(), False, 4 * n_rx)
    conv = beamform.convert(beamform.sc16, n_rx, [1.0 / 32768], args.device)
    snk = blocks.vector_sink_c(n_rx)
    tb.connect(src, conv, snk)
    t0 = time.perf_counter()
    tb.run()
    seconds = time.perf_counter() - t0

    out = np.array(snk.data(), dtype=np.complex64).reshape(-1, n_rx)
    expected = (raw[..., 0] + 1j * raw[..., 1]) / 32768
    err = np.linalg.norm(out - expected) / np.linalg.norm(expected)
    stats_in, stats_out = conv.input_copy_stats(), conv.output_copy_stats()
    print(f"device            {conv.device()}")
    print(f"receivers         {n_rx}")
    print(f"time steps        {out.shape[0]} of {n_t}")
    print(f"wall time         {seconds:.2f} s ({n_rx * n_t / seconds / 1e6:.1f} Msamples/s)")
    print(f"host->device      {stats_in.host_to_device} B, device->host {stats_out.device_to_host} B")
    print(f"relative error    {err:.2e} against numpy")
    return 0 if out.shape[0] == n_t and err < 1e-6 else 1


if __name__ == "__main__":
    sys.exit(main())
