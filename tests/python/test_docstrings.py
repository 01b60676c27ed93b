# Copyright 2026 gr-beamform authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""The Python docstrings come from the public headers (one source for each
fact): the build runs doxygen over include/ and GNU Radio's pybind macros put
each class's comment into its docstring."""
import os
import re

import pytest
from gnuradio import beamform

HEADERS = os.path.join(os.path.dirname(__file__), "..", "..", "include", "gnuradio", "beamform")
BLOCKS = ["convert", "pfb_channelizer", "phase_shift", "tensor_beamformer", "filterbank_sink",
          "rca_das", "bit_packer", "bit_unpacker", "array_source", "rfi_flagger", "incoherent_beam"]


def header_brief(name):
    """The first sentence of the \\brief of include/gnuradio/beamform/<name>.h."""
    with open(os.path.join(HEADERS, name + ".h")) as f:
        text = f.read()
    brief = re.search(r"\\brief (.*?)(?:\n \*\s*\n|\n \* \\)", text, re.S).group(1)
    words = " ".join(line.strip(" *") for line in brief.splitlines())
    return words.split(". ")[0].split(": ")[0]


@pytest.mark.parametrize("name", BLOCKS)
def test_block_docstring_is_the_header_comment(name):
    # (GNU Radio's extraction keeps quotes escaped.)
    doc = " ".join((getattr(beamform, name).__doc__ or "").replace("\\\"", "\"").split())
    assert header_brief(name) in doc, f"{name}: docstring {doc[:120]!r}"
