# Copyright 2026 gr-beamform authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""Flowgraphs written as .grc text, compiled with grcc and run: what the GRC
tests of the blocks' YAML share."""
import os
import subprocess
import sys

GRC_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "grc")


def block(name, block_id, x, y, **params):
    """One block of a .grc file's `blocks:` list."""
    lines = [f"- name: {name}", f"  id: {block_id}", "  parameters:"]
    lines += [f"    {k}: {v!r}" if isinstance(v, str) else f"    {k}: '{v}'"
              for k, v in params.items()]
    lines += ["  states:", f"    coordinate: [{x}, {y}]", "    rotation: 0",
              "    state: enabled"]
    return "\n".join(lines)


def flowgraph(flow_id, blocks, connections):
    """A no-GUI Python flowgraph of \\p blocks; connections (a, b) join port 0 to port 0."""
    return "\n".join([
        "options:", "  parameters:", f"    id: {flow_id}",
        "    generate_options: no_gui", "    output_language: python",
        "    run: 'True'", "    run_options: run", "    title: grc test",
        "  states:", "    coordinate: [0, 0]", "    rotation: 0", "    state: enabled",
        "", "blocks:", *blocks, "", "connections:",
        *[f"- [{a}, '0', {b}, '0']" for a, b in connections],
        "", "metadata:", "  file_format: 1", ""])


def compile_and_run(directory, flow_id, text):
    """Writes <flow_id>.grc in \\p directory, compiles it with grcc against this
    tree's blocks and runs the generated script; asserts both succeed."""
    grc_file = os.path.join(directory, flow_id + ".grc")
    with open(grc_file, "w") as f:
        f.write(text)
    env = dict(os.environ, GRC_BLOCKS_PATH=os.path.abspath(GRC_DIR))
    compiled = subprocess.run(["grcc", "-o", str(directory), grc_file], env=env,
                              capture_output=True, text=True)
    assert compiled.returncode == 0, compiled.stdout + compiled.stderr
    ran = subprocess.run([sys.executable, os.path.join(directory, flow_id + ".py")],
                         env=env, capture_output=True, text=True, timeout=120)
    assert ran.returncode == 0, ran.stdout + ran.stderr
