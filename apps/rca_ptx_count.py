#!/usr/bin/env python3
# Copyright 2026 gr-beamform authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""Instructions per interpolation of the rca_das stage kernels, counted in PTX.

Compiles a few instantiations of rca_stage_kernel (kernels/gpu/rca_das_beamform.cuh)
to PTX with nvcc (no GPU needed) and counts, per kernel:
  - the frame loop of one active term: from the early-exit flag load to the
    stray-path test, divided by the B x P interpolations it computes;
  - the per-run setup (everything before the block barrier), divided by the
    W x B x P interpolations it serves;
  - half2_pipelined and half2_sectors (their own kernel, without the per-lane
    early exit): the steady-state term of its loop (the copy that loads the
    next term's windows), and its per-run work (flags, warp OR, term order)
    added to the setup column (pipelined_term below). half2_sectors loads a
    window slot for four frames at once (ld.global.nc.v4), one LDG each.
PTX's per-load 64-bit address adds are reported separately ("addr64"): SASS
folds them into the loads' immediate offsets, so the total leaves them out
except one per frame (2 SASS instructions: the frame's run-time stride), or
one per term for half2_sectors (its frames and slots are all at constant
offsets from the term's window address). Register moves, negations and sign extensions are not
counted (SASS folds them). apps/rca_bench.md (Versions 7-13) quotes the output.

    /usr/bin/python3 apps/rca_ptx_count.py [--nvcc PATH]
"""
import argparse
import collections
import os
import re
import subprocess
import sys
import tempfile

# (stage, sample type, B, P, W, variant)
KERNELS = [
    (1, "float2", 8, 3, 4, 0), (1, "float2", 8, 3, 4, 2), (2, "float2", 8, 3, 4, 0),
    (2, "float2", 8, 3, 4, 2), (1, "float2", 8, 3, 6, 0), (1, "float2", 8, 3, 12, 0),
    (1, "float2", 8, 3, 12, 2), (1, "float", 8, 3, 4, 0), (1, "float", 8, 3, 4, 1),
    (2, "float", 8, 3, 4, 0), (2, "float", 8, 3, 4, 1),
    (1, "float", 8, 3, 4, 3), (2, "float", 8, 3, 4, 3), (1, "float", 8, 3, 6, 3),
    (1, "float2", 8, 3, 4, 4), (2, "float2", 8, 3, 4, 4), (1, "float2", 8, 3, 6, 4),
    (1, "float2", 8, 3, 4, 5), (2, "float2", 8, 3, 4, 5), (1, "float2", 8, 3, 6, 5),
    (2, "float2", 8, 3, 6, 5),
]
VARIANTS = {0: "reference", 1: "folded", 2: "half2", 3: "half2_real", 4: "half2_pipelined",
            5: "half2_sectors"}
PIPELINED = (4, 5)  # rca_stage_kernel_pipelined


def instantiation_source():
    lines = ["#include <gpu/rca_das_beamform.cuh>",
             "namespace gr { namespace beamform { namespace cuda { namespace rca {"]
    for stage, s, b, p, w, v in KERNELS:
        if v in PIPELINED:  # their own kernel (rca_stage_kernel_pipelined)
            lines.append(f"template __global__ void rca_stage_kernel_pipelined<stage{stage}_pixels<{p}>, "
                         f"{b}, {p}, {w}, {v}, stage{stage}_params>(stage{stage}_params);")
            continue
        lines.append(f"template __global__ void rca_stage_kernel<stage{stage}_pixels<{p}>, {s}, "
                     f"{b}, {p}, {w}, {v}, stage{stage}_params>(stage{stage}_params);")
    lines.append("}}}}")
    return "\n".join(lines) + "\n"


def opcodes(lines):
    out = []
    for line in lines:
        t = line.strip().lstrip("{").rstrip("}").strip()
        if not t or t.startswith(("$", ".", "//")):
            continue
        if t.startswith("@"):
            t = t.split(None, 1)[1]
        out.append(t.split()[0].rstrip(";"))
    return out


def kind(op):
    if "f16x2" in op:
        return "HFMA2"
    if op.startswith("fma.rn.f32"):
        return "FFMA"
    if op.startswith(("mul.f32", "mul.rn.f32")):
        return "FMUL"
    if op.startswith(("add.f32", "add.rn.f32")):
        return "FADD"
    if op.startswith("ld.global"):
        return "LDG"
    if op.startswith("ld.shared"):
        return "LDS"
    if op.startswith(("mov.", "neg.f32", "cvt.s64.s32")):
        return "free"
    if op.startswith("cvt"):
        return "CVT"
    if op.startswith(("add.s64", "shl.b64")):
        return "addr64"
    return "other"


def label_segments(lines, a, b):
    """lines[a:b] cut at labels ($L...:), as (start, end) index pairs."""
    cuts = [a] + [k for k in range(a + 1, b) if re.match(r"\$L\w+:", lines[k])] + [b]
    return list(zip(cuts[:-1], cuts[1:]))


def counted(counter):
    return sum(n for k, n in counter.items() if k not in ("free", "addr64"))


def pipelined_term(lines, barrier):
    """The half2_pipelined kernel (rca_stage_kernel_pipelined): one steady-state
    term = the term loop's body, taking the version that loads the next term's
    windows (the last used term of a run runs a copy without them), from the
    loop head to the stray-path test, plus the loop-back block; and the run's
    own work (flags, warp OR, term order, the first term's addresses: the
    first term's loads are counted in the term, where the other terms have
    them), without the next run's setup."""
    end = next(k for k in range(barrier + 1, len(lines)) if "bar.sync" in lines[k])
    last = next(k for k in range(barrier, end) if re.search(r"and\.b32\s+%r\d+, %r\d+, 6;", lines[k]))
    labels = {m.group(1): k for k, l in enumerate(lines) for m in [re.match(r"(\$L\w+):", l)] if m}
    back = [(k, labels[t]) for k in range(last, end)
            for t in re.findall(r"bra(?:\.uni)?\s+(\$L\w+);", lines[k]) if labels[t] < last]
    loop_back, head = back[-1]
    tail_start = max(k for k in labels.values() if k < loop_back)
    term = collections.Counter()
    for a, b in label_segments(lines, head, last):
        seg = collections.Counter(kind(o) for o in opcodes(lines[a:b]))
        if seg["HFMA2"] and not seg["LDG"]:
            continue  # the copy without the next term's loads
        term += seg
    term += collections.Counter(kind(o) for o in opcodes(lines[last:last + 3] + lines[tail_start:loop_back + 1]))
    stores = [k for k in range(barrier + 1, head) if "st.shared" in lines[k]]
    setup_start = max(k for k in range(barrier + 1, stores[0]) if "ld.global" in lines[k])
    run = collections.Counter(kind(o) for o in opcodes(lines[barrier + 1:setup_start + 1] +
                                                       lines[stores[-1] + 1:head]))
    run["LDG"] = 0
    return term, run


def count(ptx):
    rows = []
    for entry in re.split(r"\n\.visible \.entry ", ptx)[1:]:
        name = entry.split("(")[0]
        if "pipelined" in name:
            m = re.search(r"stage(\d)_pixelsILi\d+EEEL()i(\d+)ELi(\d+)ELi(\d+)ELi(\d+)E", name)
            stage, s, b, p, w, v = m.groups()
            s = "6float2"
        else:
            m = re.search(r"stage(\d)_pixelsILi\d+EEE(6float2|f)Li(\d+)ELi(\d+)ELi(\d+)ELi(\d+)E", name)
            stage, s, b, p, w, v = m.groups()
        b, p, w, v = int(b), int(p), int(w), int(v)
        lines = entry.split("\n")
        barrier = next(k for k, l in enumerate(lines) if "bar.sync" in l)
        if v in PIPELINED:
            loop, run = pipelined_term(lines, barrier)
            run_n = counted(run)
        else:
            first = next(k for k, l in enumerate(lines) if "ld.shared.u32" in l)
            last = next(k for k in range(first, len(lines))
                        if re.search(r"and\.b32\s+%r\d+, %r\d+, 6;", lines[k]))
            loop = collections.Counter(kind(o) for o in opcodes(lines[first:last]))
            run_n = 0
        setup = collections.Counter(kind(o) for o in opcodes(lines[:barrier]))
        loop_n = counted(loop) + (2 if v == 5 else 2 * b)
        setup_n = sum(n for k, n in setup.items() if k != "free")
        # The run's own work (pipelined only) is shared by the W terms of a full run.
        setup_per = (setup_n + run_n) / (w * b * p)
        per_interp = loop_n / (b * p) + setup_per
        rows.append((int(stage), "iq" if s == "6float2" else "real", w, b, p, VARIANTS[v],
                     loop_n / (b * p), setup_per, per_interp,
                     {k: n for k, n in loop.items() if k not in ("free",) and n}))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--nvcc", default="/usr/local/cuda/bin/nvcc")
    args = ap.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "rca_stage_kernels.cu")
        with open(src, "w") as f:
            f.write(instantiation_source())
        ptx = os.path.join(tmp, "rca_stage_kernels.ptx")
        subprocess.run([args.nvcc, "-O3", "-DBEAMFORM_HAVE_CUDA", "-arch=sm_90",
                        "--expt-relaxed-constexpr", "-std=c++17", "-ptx",
                        "-I" + os.path.join(root, "include"), "-I" + os.path.join(root, "lib"),
                        "-I" + os.path.join(root, "kernels"), src, "-o", ptx], check=True)
        rows = count(open(ptx).read())
    print("stage  data  W x B  P  variant          loop/interp  setup/interp  total   loop, one active term")
    for stage, data, w, b, p, v, loop, setup, total, detail in sorted(rows):
        print(f"{stage:5}  {data:4}  {w:2}x{b}  {p}  {v:15}  {loop:11.2f}  {setup:12.2f}  {total:5.2f}   {detail}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
