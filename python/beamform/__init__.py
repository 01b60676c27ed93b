#
# Copyright 2008,2009 Free Software Foundation, Inc.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

# The presence of this file turns this directory into a Python package

'''
gr-beamform: GPU beamforming blocks for GNU Radio (convert, pfb_channelizer,
phase_shift, rfi_flagger, incoherent_beam, tensor_beamformer, bit_packer/bit_unpacker, rca_das,
array_source, filterbank_sink) and their Python helpers. See README.md and docs/ of the
source tree.
'''
import os

# import pybind11 generated symbols into the beamform namespace
try:
    # this might fail if the module is python-only
    from .beamform_python import *
except ModuleNotFoundError:
    pass

# Out-of-range integers: ValueError naming the parameter, not pybind11's
# generic TypeError.
from .int_arguments import name_out_of_range_integers as _name_integers
for _block in ("convert", "pfb_channelizer", "phase_shift", "tensor_beamformer",
               "bit_packer", "bit_unpacker", "filterbank_sink", "array_source", "rca_das",
               "rfi_flagger", "incoherent_beam"):
    if _block in globals():
        _name_integers(globals()[_block])
del _block, _name_integers

# import any pure python here
from . import arrays, calibration, doa_estimators, live_sources
from . import antenna_positions, beam_list
from . import steering_helpers
from .filterbank import read_filterbank, read_filterbank_header, filterbank_frequencies, filterbank_times
from .plots import plot_dynamic_spectrum, plot_beam_map
from . import rca_sim
from .rca_sim import rca_emission_source
from . import rca_views
from .rca_views import rca_volume_views
from . import pfb_taps
from . import tracking
from .delay_tracker import delay_tracker
from .guppi_raw import GuppiRawFile, write_guppi_raw
from .sigmf_array import read_sigmf_array, write_sigmf_array, write_sigmf_meta
try:  # the GNU Radio sources of recordings (need the gnuradio runtime)
    from .guppi_raw_source import guppi_raw_source
    from .sigmf_array_source import sigmf_array_source
except ImportError:
    pass
