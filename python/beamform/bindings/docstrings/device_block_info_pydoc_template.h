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


static const char* __doc_gr_beamform_copy_stats = R"doc()doc";


static const char* __doc_gr_beamform_copy_stats_copy_stats_0 = R"doc()doc";


static const char* __doc_gr_beamform_copy_stats_copy_stats_1 = R"doc()doc";


static const char* __doc_gr_beamform_device_block_info = R"doc()doc";


static const char* __doc_gr_beamform_device_block_info_device_block_info_0 = R"doc()doc";


static const char* __doc_gr_beamform_device_block_info_device_block_info_1 = R"doc()doc";


static const char* __doc_gr_beamform_device_block_info_device = R"doc()doc";


static const char* __doc_gr_beamform_device_block_info_input_copy_stats = R"doc()doc";


static const char* __doc_gr_beamform_device_block_info_output_copy_stats = R"doc()doc";


