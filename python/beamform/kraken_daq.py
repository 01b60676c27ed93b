# Copyright 2026 gr-beamform authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""A GNU Radio source for the KrakenSDR's coherent samples, read from its DAQ
software's Ethernet IQ server (Heimdall DAQ firmware), as defined by that
firmware's own server code:

  * the client connects over TCP and sends the ASCII command "streaming";
  * the server answers with one frame: a 1024-byte header, then the payload,
    cpi_length x active_ant_chs complex samples as float32 I/Q pairs, channel
    after channel ([channels][cpi_length]);
  * every further frame is asked for with "IQDownload" (any other text ends the
    connection).

Header (little-endian, C layout with 8-byte aligned uint64 fields; byte
offsets): sync word 0x2bf7b95a at 0, frame type at 4 (0 data, 1 dummy, 2 ramp,
3 calibration, 4 trigger wait), active channels at 28, RF centre frequency Hz
(uint64) at 40, sample rate Hz (uint64) at 56, CPI length at 64, sample bit
depth at 100, delay-sync flag at 236, IQ-sync flag at 240, noise-source state at
248. Only data frames whose delay and IQ sync flags are both set (the DAQ has
aligned the channels' samples and phases) are passed on; the others are
counted and logged.

The DAQ is tuned through its own configuration (or control port), not here.
"""
import socket
import struct

import numpy as np
from gnuradio import gr

HEADER_BYTES = 1024
SYNC_WORD = 0x2BF7B95A
FRAME_TYPES = {0: "data", 1: "dummy", 2: "ramp", 3: "calibration", 4: "trigger wait"}
_FIELDS = {  # name: (byte offset, struct code)
    "sync_word": (0, "I"), "frame_type": (4, "I"), "channels": (28, "I"),
    "center_freq": (40, "Q"), "sample_rate": (56, "Q"), "cpi_length": (64, "I"),
    "bit_depth": (100, "I"), "delay_sync": (236, "I"), "iq_sync": (240, "I"),
    "noise_source": (248, "I"),
}


def parse_header(data):
    """The header's fields (_FIELDS) as a dict; ValueError if the sync word is wrong."""
    if len(data) != HEADER_BYTES:
        raise ValueError(f"a DAQ frame header is {HEADER_BYTES} bytes, got {len(data)}")
    header = {name: struct.unpack_from("<" + code, data, offset)[0]
              for name, (offset, code) in _FIELDS.items()}
    if header["sync_word"] != SYNC_WORD:
        raise ValueError(f"not a DAQ frame: sync word {header['sync_word']:#010x}, expected "
                         f"{SYNC_WORD:#010x}")
    return header


def make_header(frame_type, channels, cpi_length, center_freq, sample_rate, synced=True):
    """A header as the DAQ writes it (for tests and recorders)."""
    data = bytearray(HEADER_BYTES)
    values = dict(sync_word=SYNC_WORD, frame_type=frame_type, channels=channels,
                  center_freq=int(center_freq), sample_rate=int(sample_rate),
                  cpi_length=cpi_length, bit_depth=32, delay_sync=int(synced),
                  iq_sync=int(synced), noise_source=0)
    for name, (offset, code) in _FIELDS.items():
        struct.pack_into("<" + code, data, offset, values[name])
    return bytes(data)


class daq_client:
    """The DAQ's IQ server seen as a sequence of frames."""

    def __init__(self, host, port, timeout=10.0):
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.sock.sendall(b"streaming")
        self.first = True

    def _read(self, n):
        buffer = bytearray(n)
        view, got = memoryview(buffer), 0
        while got < n:
            k = self.sock.recv_into(view[got:], n - got)
            if k == 0:
                raise ConnectionError("the DAQ closed the connection")
            got += k
        return bytes(buffer)

    def next_frame(self):
        """(header dict, samples [channels][cpi_length] complex64 or None)."""
        if not self.first:
            self.sock.sendall(b"IQDownload")
        self.first = False
        header = parse_header(self._read(HEADER_BYTES))
        n = header["cpi_length"] * header["channels"]
        if n == 0:
            return header, None
        if header["bit_depth"] != 32:
            raise ValueError(f"DAQ payload of {header['bit_depth']}-bit samples; this reader "
                             "takes the decimated float32 stream (sample bit depth 32)")
        payload = np.frombuffer(self._read(8 * n), np.complex64)
        return header, payload.reshape(header["channels"], header["cpi_length"])

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


class kraken_daq_source(gr.sync_block):
    """n_channels complex outputs from the DAQ's IQ server at host:port; only
    synchronised data frames; the first one is read at construction, so a
    wrong address, channel count or tuning fails here (ValueError or
    OSError)."""

    def __init__(self, host, port, n_channels, frequency=None, sample_rate=None, timeout=10.0):
        gr.sync_block.__init__(self, "kraken_daq_source", in_sig=None,
                               out_sig=[np.complex64] * n_channels)
        self.log = gr.logger("kraken_daq_source")
        self.client = daq_client(host, port, timeout)
        self.skipped = {}
        self.n_channels = n_channels
        header, samples = self._next_synced()
        if header["channels"] != n_channels:
            raise ValueError(f"the DAQ at {host}:{port} sends {header['channels']} channels, "
                             f"not {n_channels}")
        if frequency is not None and abs(header["center_freq"] - frequency) > 1.0:
            raise ValueError(f"the DAQ at {host}:{port} is tuned to {header['center_freq']} Hz, "
                             f"not {frequency:.0f} Hz (--freq; the DAQ's configuration tunes it)")
        if sample_rate is not None and abs(header["sample_rate"] - sample_rate) > 1.0:
            raise ValueError(f"the DAQ at {host}:{port} sends {header['sample_rate']} samples/s, "
                             f"not {sample_rate:.0f} (--rate)")
        self.header, self.pending, self.offset = header, samples, 0

    def _next_synced(self):
        while True:
            header, samples = self.client.next_frame()
            if header["frame_type"] == 0 and header["delay_sync"] and header["iq_sync"] \
                    and samples is not None:
                return header, samples
            kind = FRAME_TYPES.get(header["frame_type"], str(header["frame_type"]))
            if header["frame_type"] == 0:
                kind = "data, not yet synchronised"
            self.skipped[kind] = self.skipped.get(kind, 0) + 1
            if self.skipped[kind] in (1, 10, 100, 1000):
                self.log.info(f"skipped {self.skipped[kind]} {kind} frames")

    def work(self, input_items, output_items):
        if self.offset == self.pending.shape[1]:
            try:
                self.header, self.pending = self._next_synced()
            except (OSError, ConnectionError, ValueError) as e:
                self.log.warn(f"{e}; stopping")
                return -1  # WORK_DONE
            self.offset = 0
        n = min(len(output_items[0]), self.pending.shape[1] - self.offset)
        for k in range(self.n_channels):
            output_items[k][:n] = self.pending[k, self.offset:self.offset + n]
        self.offset += n
        return n

    def stop(self):
        self.client.close()
        return True
