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


static const char* __doc_gr_beamform_tensor_beamformer = R"doc()doc";


static const char* __doc_gr_beamform_tensor_beamformer_tensor_beamformer_0 = R"doc()doc";


static const char* __doc_gr_beamform_tensor_beamformer_tensor_beamformer_1 = R"doc()doc";


static const char* __doc_gr_beamform_tensor_beamformer_make = R"doc()doc";


static const char* __doc_gr_beamform_tensor_beamformer_set_weights = R"doc()doc";


static const char* __doc_gr_beamform_tensor_beamformer_weights = R"doc()doc";


static const char* __doc_gr_beamform_tensor_beamformer_set_geometry = R"doc()doc";


static const char* __doc_gr_beamform_tensor_beamformer_set_pointing_az_el = R"doc()doc";


static const char* __doc_gr_beamform_tensor_beamformer_set_pointing_lm = R"doc()doc";


static const char* __doc_gr_beamform_tensor_beamformer_weight_updates_applied =
    R"doc()doc";


static const char* __doc_gr_beamform_tensor_beamformer_messages_rejected = R"doc()doc";


static const char* __doc_gr_beamform_tensor_beamformer_float16_overflows = R"doc()doc";


static const char* __doc_gr_beamform_tensor_beamformer_float16_underflows = R"doc()doc";


static const char* __doc_gr_beamform_tensor_beamformer_n_channels = R"doc()doc";


static const char* __doc_gr_beamform_tensor_beamformer_n_receivers = R"doc()doc";


static const char* __doc_gr_beamform_tensor_beamformer_n_beams = R"doc()doc";


static const char* __doc_gr_beamform_tensor_beamformer_n_int = R"doc()doc";


static const char* __doc_gr_beamform_tensor_beamformer_precision = R"doc()doc";


static const char* __doc_gr_beamform_tensor_beamformer_output = R"doc()doc";


static const char* __doc_gr_beamform_tensor_beamformer_polarization = R"doc()doc";


static const char* __doc_gr_beamform_tensor_beamformer_stokes = R"doc()doc";


static const char* __doc_gr_beamform_tensor_beamformer_input_item_bytes = R"doc()doc";


static const char* __doc_gr_beamform_tensor_beamformer_output_item_bytes = R"doc()doc";
