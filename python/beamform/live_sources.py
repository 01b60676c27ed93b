# Copyright 2026 gr-beamform authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""Multi-channel receivers for the direction-finding app: one function makes
a GNU Radio block with N complex (fc32) outputs, one per array element, from
Debian's GNU Radio hardware modules or from a recording:

    block = make_live_source("uhd", "type=b200", 2, frequency=433.92e6,
                             sample_rate=1e6, gain=30)

kind        GNU Radio block                                  device string (args)
soapy       gnuradio.soapy.source(args, "fc32", N, ...)      "driver=lime", "driver=uhd,type=b200"
osmosdr     osmosdr.source("numchan=N " + args)              "rtl=0 rtl=1", "uhd,type=b200,nchan=2"
uhd         gnuradio.uhd.usrp_source(args, channels 0..N-1)  "type=b200", "addr=192.168.10.2"
kraken      kraken_daq.kraken_daq_source (the KrakenSDR's    "192.168.4.1:5000" (host:port of
            DAQ software's Ethernet IQ server)                its IQ server)
file        file_source [N] + vector_to_streams              the fc32 recording's path

Whatever follows (streams_to_vector, calibration, beamformer) is the same for
every kind, so a recording exercises the flowgraph a receiver feeds.

A device string that matches no hardware, or a driver that refuses the
settings, raises SourceError naming --args and the driver's own message; the
app turns it into a usage error (exit status 2).
"""
import os
import time

from gnuradio import blocks, gr

KINDS = ("soapy", "osmosdr", "uhd", "kraken", "file")
RECEIVERS = KINDS[:-1]


class SourceError(ValueError):
    """The receiver could not be opened or set up; the message names the
    option to change."""


def make_live_source(kind, args, n_channels, frequency=None, sample_rate=None, gain=None,
                     clock_source="internal", time_source="internal", bandwidth=None):
    """A block with n_channels complex outputs, receiver `kind` (KINDS) opened
    with the device string `args` (for "file": the recording's path) and every
    channel tuned to `frequency` Hz at `sample_rate` samples/s with `gain` dB
    (None: the driver's default or automatic gain). clock_source and
    time_source apply to "uhd" (internal, external, gpsdo: all channels of a
    multi-board USRP from one 10 MHz and PPS)."""
    if kind not in KINDS:
        raise SourceError(f"--source: must be one of {', '.join(KINDS + ('sim',))}, got {kind!r}")
    if not isinstance(n_channels, int) or n_channels < 1:
        raise SourceError(f"--channels: must be an integer >= 1, got {n_channels!r}")
    if kind == "file":
        return _file_source(args, n_channels)
    if frequency is None or sample_rate is None:
        raise SourceError(f"--freq, --rate: a {kind} receiver needs both")
    make = {"soapy": _soapy_source, "osmosdr": _osmosdr_source, "uhd": _uhd_source,
            "kraken": _kraken_source}[kind]
    try:
        return make(args, n_channels, frequency, sample_rate, gain, clock_source, time_source,
                    bandwidth)
    except SourceError:
        raise
    except Exception as e:  # the drivers raise RuntimeError (no device, bad settings)
        raise SourceError(f"--args: the {kind} receiver {args!r} with {n_channels} channels "
                          f"could not be opened: {e}") from None


class _recording(gr.hier_block2):
    """fc32 [time][channels] file -> n_channels streams."""

    def __init__(self, path, n_channels):
        gr.hier_block2.__init__(self, "recording", gr.io_signature(0, 0, 0),
                                gr.io_signature(n_channels, n_channels, gr.sizeof_gr_complex))
        self.file = blocks.file_source(gr.sizeof_gr_complex * n_channels, path, False)
        self.split = blocks.vector_to_streams(gr.sizeof_gr_complex, n_channels)
        self.connect(self.file, self.split)
        for k in range(n_channels):
            self.connect((self.split, k), (self, k))


def _file_source(path, n_channels):
    if not os.path.isfile(path):
        raise SourceError(f"--input: no such file: {path}")
    size = os.path.getsize(path)
    if size == 0 or size % (8 * n_channels):
        raise SourceError(f"--input: {path} holds {size} bytes, not a whole number of "
                          f"{8 * n_channels}-byte samples (fc32 x {n_channels} channels)")
    return _recording(path, n_channels)


def _soapy_source(args, n, frequency, sample_rate, gain, clock_source, time_source, bandwidth):
    from gnuradio import soapy

    # source(device, type, nchan, dev_args, stream_args, tune_args[], other_settings[])
    src = soapy.source(args, "fc32", n, "", "", [""] * n, [""] * n)
    for ch in range(n):
        src.set_sample_rate(ch, sample_rate)
        src.set_frequency(ch, frequency)
        if bandwidth:
            src.set_bandwidth(ch, bandwidth)
        if gain is None:
            src.set_gain_mode(ch, True)
        else:
            src.set_gain(ch, gain)
    return src


def _osmosdr_source(args, n, frequency, sample_rate, gain, clock_source, time_source, bandwidth):
    import osmosdr

    src = osmosdr.source(f"numchan={n} {args}")
    src.set_sample_rate(sample_rate)
    for ch in range(n):
        src.set_center_freq(frequency, ch)
        if bandwidth:
            src.set_bandwidth(bandwidth, ch)
        if gain is None:
            src.set_gain_mode(True, ch)
        else:
            src.set_gain_mode(False, ch)
            src.set_gain(gain, ch)
    return src


def _kraken_source(args, n, frequency, sample_rate, gain, clock_source, time_source,
                   bandwidth):
    from .kraken_daq import kraken_daq_source

    host, _, port = args.rpartition(":")
    if not host or not port.isdigit():
        raise SourceError(f"--args: --source kraken takes the DAQ's IQ server as host:port, "
                          f"got {args!r}")
    if gain is not None:
        raise SourceError("--gain: the KrakenSDR's gains are set in its DAQ configuration")
    # The DAQ's configuration sets the tuning; the first frame is checked against it.
    return kraken_daq_source(host, int(port), n, frequency=frequency, sample_rate=sample_rate)


def _uhd_source(args, n, frequency, sample_rate, gain, clock_source, time_source, bandwidth):
    from gnuradio import uhd

    src = uhd.usrp_source(args, uhd.stream_args(cpu_format="fc32", channels=list(range(n))))
    src.set_clock_source(clock_source, uhd.ALL_MBOARDS)
    src.set_time_source(time_source, uhd.ALL_MBOARDS)
    src.set_samp_rate(sample_rate)
    if time_source == "internal":
        src.set_time_now(uhd.time_spec(0.0), uhd.ALL_MBOARDS)
    else:  # boards on a common PPS: set their clocks at the next edge
        src.set_time_unknown_pps(uhd.time_spec(0.0))
    # Timed tune: every channel retunes at the same instant, so the LO
    # dividers / phase resync (UBX, TwinRX, B2xx's one shared LO) start
    # together and the phase between channels repeats from run to run.
    tune_at = src.get_time_now() + uhd.time_spec(0.1)
    src.set_command_time(tune_at, uhd.ALL_MBOARDS)
    for ch in range(n):
        src.set_center_freq(uhd.tune_request(frequency), ch)
    src.clear_command_time(uhd.ALL_MBOARDS)
    time.sleep(0.15)  # the tune is applied at tune_at
    for ch in range(n):
        if bandwidth:
            src.set_bandwidth(bandwidth, ch)
        if gain is None:
            src.set_auto_gain(True, ch)
        else:
            src.set_gain(gain, ch)
    # All channels start streaming at one timestamp (sample-aligned).
    src.set_start_time(src.get_time_now() + uhd.time_spec(0.2))
    return src
