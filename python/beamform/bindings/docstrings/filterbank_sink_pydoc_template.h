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


static const char* __doc_gr_beamform_filterbank_sink = R"doc()doc";


static const char* __doc_gr_beamform_filterbank_sink_filterbank_sink_0 = R"doc()doc";


static const char* __doc_gr_beamform_filterbank_sink_filterbank_sink_1 = R"doc()doc";


static const char* __doc_gr_beamform_filterbank_sink_make = R"doc()doc";


static const char* __doc_gr_beamform_filterbank_sink_file_paths = R"doc()doc";


static const char* __doc_gr_beamform_filterbank_sink_items_written = R"doc()doc";


static const char* __doc_gr_beamform_filterbank_sink_error = R"doc()doc";


static const char* __doc_gr_beamform_filterbank_sink_tstart_mjd = R"doc()doc";


static const char* __doc_gr_beamform_filterbank_sink_tstart_from_rx_time = R"doc()doc";


static const char* __doc_gr_beamform_filterbank_sink_fch1_mhz = R"doc()doc";


static const char* __doc_gr_beamform_filterbank_sink_foff_mhz = R"doc()doc";


static const char* __doc_gr_beamform_filterbank_sink_channel_order = R"doc()doc";
