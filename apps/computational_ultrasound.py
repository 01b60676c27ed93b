#!/usr/bin/env python3
# Copyright 2026 gr-beamform authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""Computational ultrasound imaging with the 1-bit tensor beamformer
(paper 000, section V-A; docs/computational_ultrasound.md).

cUSi reconstructs a volume by multiplying measurements with a model matrix A
[measurements][voxels] that holds, for every voxel, the expected pulse-echo
signal of every (frequency, transceiver, transmission) row. With the sign of
both the measurements and the model kept (1 bit per real and imaginary part),
that product is exactly the tensor_beamformer's int1 mode:

    frames y_f [measurements] complex  ->  bit_packer  ->  tensor_beamformer
      (int1, "receivers" = measurements, "beams" = voxels, 1 channel,
       weights = conj(A) rows: beam v = sum_r conj(A[r, v]) y_f[r],
       power integrated over the frames)  ->  voxel powers / frames

The synthetic model is a random complex matrix (the encoding mask of cUSi makes
the model's columns close to uncorrelated); the phantom has a few bright voxels
whose echoes change phase from frame to frame (blood after the Doppler filter:
the paper takes the signs after Doppler processing, or the stationary tissue
would dominate them); measurements y_f = A x_f + noise.

    /usr/bin/python3 apps/computational_ultrasound.py                    # synthetic model
    /usr/bin/python3 apps/computational_ultrasound.py --model model.npy  # a model matrix from a file
"""
import os
import sys
import tempfile
import time

import numpy as np
from gnuradio import beamform, blocks, gr
from gnuradio.beamform import cli


def synthetic_model(n_measurements, n_voxels, seed):
    """A [measurements][voxels] complex64 model matrix with unit-power entries."""
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((n_measurements, n_voxels)) + 1j * rng.standard_normal(
        (n_measurements, n_voxels))
    return (a / np.sqrt(2)).astype(np.complex64)


def phantom_frames(model, bright_voxels, amplitude, noise, n_frames, seed):
    """Measurements [frames][measurements] complex64: y_f = A x_f + noise, x_f
    zero except the bright voxels, each with a random phase per frame."""
    rng = np.random.default_rng(seed + 1)
    n_meas, n_vox = model.shape
    x = np.zeros((n_frames, n_vox), np.complex128)
    phases = rng.uniform(0, 2 * np.pi, (n_frames, len(bright_voxels)))
    x[:, bright_voxels] = amplitude * np.exp(1j * phases)
    n = noise * (rng.standard_normal((n_frames, n_meas)) +
                 1j * rng.standard_normal((n_frames, n_meas))) / np.sqrt(2)
    return (x @ model.T.astype(np.complex128) + n).astype(np.complex64)


def load_model(path):
    model = np.load(path)
    if model.ndim != 2 or not np.iscomplexobj(model):
        raise ValueError(f"--model: {path} must hold a 2-D complex array "
                         f"[measurements][voxels], got {model.dtype} {model.shape}")
    return model.astype(np.complex64)


def one_bit_reference(model, frames):
    """The same voxel powers in numpy: signs of conj(A) and of y (zero counts as +)."""
    def sign(v):
        return np.where(v >= 0, 1.0, -1.0)
    w = sign(model.real.T) + 1j * sign(-model.imag.T)        # [voxels][measurements]
    y = sign(frames.real) + 1j * sign(frames.imag)          # [frames][measurements]
    beams = y @ w.T                                           # [frames][voxels]
    return (np.abs(beams) ** 2).mean(axis=0)


def image_volume(model, frames, device="auto"):
    """Voxel powers [voxels] averaged over the frames, from the GNU Radio flowgraph."""
    n_meas, n_vox = model.shape
    n_frames = len(frames)
    weights = np.conj(model.T)  # [voxels][measurements]: beam v = sum_r conj(A[r, v]) y[r]
    tb = gr.top_block("computational_ultrasound")
    source = blocks.vector_source_c(frames.ravel().tolist(), False, n_meas)
    packer = beamform.bit_packer(1, n_meas, device)
    beamformer = beamform.tensor_beamformer(
        1, n_meas, n_vox, weights.ravel().tolist(), beamform.beam_precision.int1,
        beamform.beam_output.power, n_frames, beamform.polarization_layout.single,
        beamform.stokes_mode.I, device)
    sink = blocks.vector_sink_f(n_vox)
    tb.connect(source, packer, beamformer, sink)
    tb.run()
    powers = np.array(sink.data(), np.float64).reshape(-1, n_vox)
    if len(powers) != 1:
        raise RuntimeError(f"expected one integrated output, got {len(powers)}")
    return powers[0] / n_frames, beamformer.device()


def parse_args(argv=None):
    p = cli.parser(__doc__)
    p.add_argument("--model", type=cli.existing_file,
                   help="model matrix .npy [measurements][voxels] complex "
                   "(default: a synthetic one, kept only with --save-model)")
    p.add_argument("--save-model", help="where to save the synthetic model (.npy)")
    p.add_argument("--volume", type=cli.numbers(names=("x", "y", "z")), default="12,12,6",
                   help="voxels x,y,z of the synthetic model")
    p.add_argument("--measurements", type=cli.integer(1), default=512,
                   help="rows of the synthetic model (frequencies x transceivers x "
                        "transmissions)")
    p.add_argument("--frames", type=cli.integer(1), default=32,
                   help="frames averaged (ensemble size)")
    p.add_argument("--bright", type=cli.numbers(), default="100,431,777",
                   help="comma-separated indices of the phantom's bright voxels")
    p.add_argument("--amplitude", type=cli.number(0), default=1.0,
                   help="bright voxels' echo amplitude")
    p.add_argument("--noise", type=cli.number(0), default=1.0,
                   help="measurement noise rms (complex)")
    p.add_argument("--seed", type=int, default=3, help="phantom and model seed")
    p.add_argument("--device", type=cli.device, default="auto",
                   help="auto (first GPU, else the CPU), cpu, cuda:N, hip:N")
    args = cli.parse(p, argv)
    if any(v != int(v) or v < 1 for v in args.volume):
        p.error(f"argument --volume: must be 3 positive integers x,y,z, got {args.volume}")
    args.volume = tuple(int(v) for v in args.volume)
    if args.model:
        try:
            n_vox = np.load(args.model, mmap_mode="r").shape[-1]
        except (OSError, ValueError) as e:
            p.error(f"argument --model: {args.model}: {e}")
    else:
        n_vox = int(np.prod(args.volume))
    if any(v != int(v) or not 0 <= v < n_vox for v in args.bright):
        p.error(f"argument --bright: must be voxel indices from 0 to {n_vox - 1}, got "
                f"{','.join(f'{v:g}' for v in args.bright)}")
    args.bright = [int(v) for v in args.bright]
    return args


def run(args):
    shape = args.volume
    if args.model:
        model = load_model(args.model)
        model_path = args.model
    else:
        model = synthetic_model(args.measurements, int(np.prod(shape)), args.seed)
        with tempfile.TemporaryDirectory() as folder:
            model_path = args.save_model or os.path.join(folder, "model.npy")
            np.save(model_path, model)
            model = load_model(model_path)  # the flowgraph works from the file, as in practice
        if not args.save_model:
            model_path = "synthetic (not kept; --save-model PATH keeps it)"
    n_meas, n_vox = model.shape
    if int(np.prod(shape)) != n_vox:
        shape = (n_vox,)
    bright = args.bright  # checked against the model's voxels by parse_args
    frames = phantom_frames(model, bright, args.amplitude, args.noise, args.frames, args.seed)
    t0 = time.perf_counter()
    powers, device = image_volume(model, frames, args.device)
    seconds = time.perf_counter() - t0
    brightest = [int(v) for v in np.argsort(powers)[::-1][:len(bright)]]
    return dict(model_path=model_path, measurements=n_meas, voxels=n_vox, shape=shape,
                frames=args.frames, powers=powers, brightest=brightest, bright=bright,
                device=device, seconds=seconds, model=model, frame_data=frames)


def main(argv=None):
    args = parse_args(argv)
    r = run(args)
    print(f"model      {r['model_path']}: {r['measurements']} measurements x {r['voxels']} "
          f"voxels {r['shape']}")
    print(f"beamformed {r['frames']} frames in 1-bit on {r['device']} in {r['seconds']:.2f} s")
    median = np.median(r["powers"])
    print("brightest voxels (index, (x, y, z), power / median):")
    for v in r["brightest"]:
        where = np.unravel_index(v, r["shape"])
        print(f"  {v:6d}  {tuple(int(i) for i in where)}  {r['powers'][v] / median:.1f}")
    ok = sorted(r["brightest"]) == sorted(r["bright"])
    print(f"phantom    bright voxels {sorted(r['bright'])}: "
          f"{'all found brightest' if ok else 'NOT all found'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
