/*
 * Copyright 2026 Free Software Foundation, Inc.
 *
 * This file is part of GNU Radio
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 */
#include "pydoc_macros.h"
#define D(...) DOC(gr, beamform, __VA_ARGS__)
/*
  This file contains placeholders for docstrings for the Python bindings.
  Do not edit! These were automatically extracted during the binding process
  and will be overwritten during the build process
 */


static const char* __doc_gr_beamform_pfb_channelizer = R"doc()doc";


static const char* __doc_gr_beamform_pfb_channelizer_pfb_channelizer_0 = R"doc()doc";


static const char* __doc_gr_beamform_pfb_channelizer_pfb_channelizer_1 = R"doc()doc";


static const char* __doc_gr_beamform_pfb_channelizer_make = R"doc()doc";


static const char* __doc_gr_beamform_pfb_channelizer_channel_frequencies = R"doc()doc";


static const char* __doc_gr_beamform_pfb_channelizer_taps = R"doc()doc";


static const char* __doc_gr_beamform_pfb_channelizer_n_channels = R"doc()doc";


static const char* __doc_gr_beamform_pfb_channelizer_n_receivers = R"doc()doc";


static const char* __doc_gr_beamform_pfb_channelizer_oversample = R"doc()doc";
