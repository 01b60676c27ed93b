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


static const char* __doc_gr_beamform_rca_das = R"doc()doc";


static const char* __doc_gr_beamform_rca_das_rca_das_0 = R"doc()doc";


static const char* __doc_gr_beamform_rca_das_rca_das_1 = R"doc()doc";


static const char* __doc_gr_beamform_rca_das_make = R"doc()doc";


static const char* __doc_gr_beamform_rca_das_n_emissions = R"doc()doc";


static const char* __doc_gr_beamform_rca_das_lri_z_count = R"doc()doc";


static const char* __doc_gr_beamform_rca_das_warnings = R"doc()doc";


static const char* __doc_gr_beamform_rca_das_engine_description = R"doc()doc";


static const char* __doc_gr_beamform_rca_das_filter_taps = R"doc()doc";
