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


static const char* __doc_gr_beamform_direction_vector = R"doc()doc";


static const char* __doc_gr_beamform_direction_lm = R"doc()doc";


static const char* __doc_gr_beamform_geometric_delays_0 = R"doc()doc";


static const char* __doc_gr_beamform_geometric_delays_1 = R"doc()doc";


static const char* __doc_gr_beamform_geometric_delays_lm_0 = R"doc()doc";


static const char* __doc_gr_beamform_geometric_delays_lm_1 = R"doc()doc";


static const char* __doc_gr_beamform_max_representable_delay = R"doc()doc";


static const char* __doc_gr_beamform_check_representable_delays = R"doc()doc";
