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


static const char* __doc_gr_beamform_rfi_flagger = R"doc()doc";


static const char* __doc_gr_beamform_rfi_flagger_rfi_flagger_0 = R"doc()doc";


static const char* __doc_gr_beamform_rfi_flagger_rfi_flagger_1 = R"doc()doc";


static const char* __doc_gr_beamform_rfi_flagger_make = R"doc()doc";


static const char* __doc_gr_beamform_rfi_flagger_block_size = R"doc()doc";


static const char* __doc_gr_beamform_rfi_flagger_pfa = R"doc()doc";


static const char* __doc_gr_beamform_rfi_flagger_lower_threshold = R"doc()doc";


static const char* __doc_gr_beamform_rfi_flagger_upper_threshold = R"doc()doc";


static const char* __doc_gr_beamform_rfi_flagger_mad_threshold = R"doc()doc";


static const char* __doc_gr_beamform_rfi_flagger_replace = R"doc()doc";


static const char* __doc_gr_beamform_rfi_flagger_flagged_count = R"doc()doc";


static const char* __doc_gr_beamform_rfi_flagger_total_count = R"doc()doc";
