#!/usr/bin/env python3
# Copyright 2026 gr-beamform authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""Write filterbank files with filterbank_sink, read them back, draw them.

Simulated beamformer power output: 35 beams on an azimuth x elevation grid,
64 channels around 1.4 GHz in the channelizer's order, 1 ms per item; noise,
a dispersed pulse (DM 300) from az 90, el 50 seen through a Gaussian beam,
and a narrow-band interferer in every beam. Makes docs/images/*.png.

    PYTHONPATH=<build>/test_modules /usr/bin/python3 docs/filterbank_example.py [out_dir]
"""
import os
import sys
import tempfile

import numpy as np
import pmt
from gnuradio import beamform, blocks, gr

out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "images")
rng = np.random.default_rng(1)

n_channels, n_times, tsamp = 64, 400, 1e-3
spacing = 390625.0  # Hz: 25 MHz over 64 channels
freqs = 1.4e9 + np.fft.fftfreq(n_channels) * n_channels * spacing  # DC, +, -
az, el = np.meshgrid(np.arange(0.0, 181.0, 30.0), np.arange(30.0, 71.0, 10.0))
beam_az_el = np.column_stack([az.ravel(), el.ravel()]).ravel()
n_beams = az.size

# Beam response to the source: Gaussian in angular distance, 15 deg wide.
src_az, src_el = np.radians(90.0), np.radians(50.0)
b_az, b_el = np.radians(az.ravel()), np.radians(el.ravel())
cos_sep = np.sin(b_el) * np.sin(src_el) + np.cos(b_el) * np.cos(src_el) * np.cos(b_az - src_az)
separation = np.degrees(np.arccos(np.clip(cos_sep, -1, 1)))
gain = np.exp(-0.5 * (separation / 15.0) ** 2)

# Dispersion delay (s) relative to the highest channel: 4.149 ms DM (f/GHz)^-2.
dm = 300.0
delay = 4.149e-3 * dm * ((freqs / 1e9) ** -2 - (freqs.max() / 1e9) ** -2)
arrival = 0.08 + delay
t = np.arange(n_times)[:, None] * tsamp
pulse = 8.0 * np.exp(-0.5 * ((t - arrival[None, :]) / 2e-3) ** 2)  # [time][channel]

power = rng.chisquare(8, (n_times, 1, n_beams, n_channels)).astype(np.float32) / 8
power += (pulse[:, None, None, :] * gain[None, None, :, None]).astype(np.float32)
rfi_channel = int(np.argmin(np.abs(freqs - 1.392e9)))
power[:, 0, :, rfi_channel] += 3.0

with tempfile.TemporaryDirectory() as work:
    tag = gr.tag_t()
    tag.offset = 0
    tag.key = pmt.intern("rx_time")
    tag.value = pmt.make_tuple(pmt.from_uint64(1_767_225_600), pmt.from_double(0.0))  # 2026-01-01
    source = blocks.vector_source_f(power.ravel().tolist(), False, n_beams * n_channels, [tag])
    sink = beamform.filterbank_sink(work, "demo", n_beams, n_channels, 1, list(freqs), tsamp,
                                    "FRB demo", list(beam_az_el))
    tb = gr.top_block()
    tb.connect(source, sink)
    tb.run()

    beam_powers = []
    for path in sink.file_paths():
        header, data = beamform.read_filterbank(path)
        beam_powers.append(data[:, 0, :].mean())
    brightest = int(np.argmax(beam_powers))
    print(f"{sink.items_written()} samples x {n_channels} channels in {n_beams} files; "
          f"brightest beam {brightest} at az {beam_az_el[2 * brightest]:.0f}, "
          f"el {beam_az_el[2 * brightest + 1]:.0f}")
    os.makedirs(out_dir, exist_ok=True)
    print(beamform.plot_dynamic_spectrum(sink.file_paths()[brightest],
                                         os.path.join(out_dir, "filterbank_dynamic_spectrum.png")))
    print(beamform.plot_beam_map(beam_powers, beam_az_el,
                                 os.path.join(out_dir, "filterbank_beam_map.png")))
