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


static const char* __doc_gr_beamform_device_spec = R"doc()doc";


static const char* __doc_gr_beamform_device_spec_device_spec_0 = R"doc()doc";


static const char* __doc_gr_beamform_device_spec_device_spec_1 = R"doc()doc";


static const char* __doc_gr_beamform_device_spec_uses_device_buffers = R"doc()doc";


static const char* __doc_gr_beamform_device_spec_name = R"doc()doc";


static const char* __doc_gr_beamform_select_device = R"doc()doc";


static const char* __doc_gr_beamform_compiled_backends = R"doc()doc";


static const char* __doc_gr_beamform_available_devices = R"doc()doc";


static const char* __doc_gr_beamform_allocated_device_bytes = R"doc()doc";
