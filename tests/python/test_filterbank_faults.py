# Copyright 2026 gr-beamform authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""filterbank_sink under bad input and I/O faults (issue 14, reproducers 4-6):
two sinks on the same files, prefixes and names that would corrupt the files,
overflowing frequencies, and a write error in the middle of a run, which must
end the flowgraph with the error and leave files valid up to the last complete
sample."""
import json
import os

import numpy as np
import pytest
from gnuradio import beamform

from isolated import run_isolated

FREQS4 = [1e6, 2e6, 3e6, 4e6]


def make_sink(directory, prefix="p", **change):
    kwargs = dict(directory=str(directory), prefix=prefix, n_beams=2, n_channels=4,
                  n_stokes=1, channel_frequencies=FREQS4, tsamp=1e-3, source_name="s",
                  beam_az_el=[0, 90, 10, 45], tstart_mjd=60000.0)
    kwargs.update(change)
    return beamform.filterbank_sink(**kwargs)


def test_second_sink_on_the_same_files_is_refused(tmp_path):
    first = make_sink(tmp_path)
    (tmp_path / "p_beam0000.fil").write_bytes(b"first sink's data")
    with pytest.raises(RuntimeError, match="already written by another filterbank_sink"):
        make_sink(tmp_path)
    # the same files spelled differently
    with pytest.raises(RuntimeError, match="already written by another filterbank_sink"):
        make_sink(str(tmp_path) + "/./")
    assert (tmp_path / "p_beam0000.fil").read_bytes() == b"first sink's data", \
        "the refused sink must not truncate the first one's files"
    make_sink(tmp_path, prefix="q")  # another prefix is fine
    del first  # files released with their sink
    assert make_sink(tmp_path).file_paths()[0].endswith("p_beam0000.fil")


@pytest.mark.parametrize("change, message", [
    (dict(prefix="a\x00b"), r"prefix .*'a\\x00b'"),
    (dict(prefix="a\\b"), "prefix"),
    (dict(directory="d\x00e"), "directory"),
    (dict(source_name="Caf\u00e9"), r"source_name must be printable ASCII.*Caf\\xc3\\xa9"),
    (dict(source_name="line\nbreak"), "source_name must be printable ASCII"),
    (dict(channel_frequencies=[1e308, -1e308, 0.0, 5e307]), "channel_frequencies"),
    (dict(n_channels=2, channel_frequencies=[-1e308, 1e308]),
     "channel_frequencies must span a finite range"),
])
def test_values_that_corrupted_files_are_refused(tmp_path, change, message):
    directory = str(tmp_path) + "/" + change.pop("directory", "")
    with pytest.raises(ValueError, match=message):
        make_sink(directory, **change)
    assert not any(tmp_path.iterdir()), "no file may be created for bad parameters"


# The write error runs in a process of its own: RLIMIT_FSIZE (with SIGXFSZ
# ignored, so that write() fails with EFBIG instead of killing the process)
# stands in for a full disk without root or a small file system.
WRITE_ERROR_CASE = """
import resource, signal
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, ({limit}, {limit}))
n_items, n_beams, n_channels = {n_items}, 2, 256
data = np.arange(n_items * n_beams * n_channels, dtype=np.float32) % 1000
freqs = list(1.4e9 + 1e5 * np.arange(n_channels))
sink = bf.filterbank_sink({directory!r}, 'obs', n_beams, n_channels, 1, freqs, 1e-3,
                          'src', [0., 90.] * n_beams, 60000.0)
tb = gr.top_block()
tb.connect(blocks.vector_source_f(data.tolist(), False, n_beams * n_channels), sink)
tb.run()
return json.dumps(dict(error=sink.error(), items=sink.items_written(),
                       paths=list(sink.file_paths())))
"""


def test_write_error_ends_the_flowgraph_and_keeps_files_valid(tmp_path):
    n_items, n_channels = 4000, 256
    limit = 1 << 20  # each file would need 4000 x 1 KiB
    outcome = run_isolated(WRITE_ERROR_CASE.format(limit=limit, n_items=n_items,
                                                   directory=str(tmp_path)), timeout=120)
    assert outcome.kind == "ok", outcome  # tb.run() returned: no hang
    report = json.loads(outcome.message)
    assert "File too large" in report["error"], report
    assert "ending the flowgraph" in outcome.log, outcome
    n = report["items"]
    assert 0 < n < n_items, report
    data = np.arange(n_items * 2 * n_channels, dtype=np.float32) % 1000
    data = data.reshape(n_items, 2, n_channels)
    for beam, path in enumerate(report["paths"]):
        header, samples = beamform.read_filterbank(path)
        assert os.path.getsize(path) <= limit
        assert samples.shape == (n, 1, n_channels), (path, samples.shape)
        # channels descending: the file holds each item's channels reversed
        np.testing.assert_array_equal(samples[:, 0, :], data[:n, beam, ::-1])
