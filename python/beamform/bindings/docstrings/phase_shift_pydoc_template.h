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


static const char* __doc_gr_beamform_phase_shift = R"doc()doc";


static const char* __doc_gr_beamform_phase_shift_phase_shift_0 = R"doc()doc";


static const char* __doc_gr_beamform_phase_shift_phase_shift_1 = R"doc()doc";


static const char* __doc_gr_beamform_phase_shift_make = R"doc()doc";


static const char* __doc_gr_beamform_phase_shift_set_delays = R"doc()doc";


static const char* __doc_gr_beamform_phase_shift_set_geometry = R"doc()doc";


static const char* __doc_gr_beamform_phase_shift_point_at = R"doc()doc";


static const char* __doc_gr_beamform_phase_shift_delays = R"doc()doc";


static const char* __doc_gr_beamform_phase_shift_rates = R"doc()doc";


static const char* __doc_gr_beamform_phase_shift_gains = R"doc()doc";


static const char* __doc_gr_beamform_phase_shift_t0 = R"doc()doc";


static const char* __doc_gr_beamform_phase_shift_channel_frequencies = R"doc()doc";


static const char* __doc_gr_beamform_phase_shift_item_period = R"doc()doc";


static const char* __doc_gr_beamform_phase_shift_max_representable_delay = R"doc()doc";


static const char* __doc_gr_beamform_phase_shift_updates_applied = R"doc()doc";


static const char* __doc_gr_beamform_phase_shift_messages_rejected = R"doc()doc";
