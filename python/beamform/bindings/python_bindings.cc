/*
 * Copyright 2020 Free Software Foundation, Inc.
 *
 * This file is part of GNU Radio
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 */

#include <pybind11/pybind11.h>

#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

namespace py = pybind11;

// Headers for binding functions
/**************************************/
// The following comment block is used for
// gr_modtool to insert function prototypes
// Please do not delete
/**************************************/
// BINDING_FUNCTION_PROTOTYPES(
void bind_device(py::module& m);
void bind_device_block_info(py::module& m);
void bind_sample_format(py::module& m);
void bind_convert(py::module& m);
void bind_beam_types(py::module& m);
void bind_steering(py::module& m);
void bind_tensor_beamformer(py::module& m);
void bind_bit_packer(py::module& m);
void bind_bit_unpacker(py::module& m);
void bind_filterbank_sink(py::module& m);
void bind_array_geometry(py::module& m);
void bind_phase_shift(py::module& m);
void bind_rfi_flagger(py::module& m);
void bind_incoherent_beam(py::module& m);
void bind_array_source(py::module& m);
void bind_rca_das(py::module& m);
void bind_pfb_channelizer(py::module& m);
// ) END BINDING_FUNCTION_PROTOTYPES


// We need this hack because import_array() returns NULL
// for newer Python versions.
// This function is also necessary because it ensures access to the C API
// and removes a warning.
void* init_numpy()
{
    import_array();
    return NULL;
}

PYBIND11_MODULE(beamform_python, m)
{
    // Initialize the numpy C API
    // (otherwise we will see segmentation faults)
    init_numpy();

    // Allow access to base block methods
    py::module::import("gnuradio.gr");

    /**************************************/
    // The following comment block is used for
    // gr_modtool to insert binding function calls
    // Please do not delete
    /**************************************/
    // BINDING_FUNCTION_CALLS(
    bind_device(m);
    bind_device_block_info(m);
    bind_sample_format(m);
    bind_convert(m);
    bind_beam_types(m);
    bind_steering(m);
    bind_tensor_beamformer(m);
    bind_bit_packer(m);
    bind_bit_unpacker(m);
    bind_filterbank_sink(m);
    bind_array_geometry(m);
    bind_phase_shift(m);
    bind_rfi_flagger(m);
    bind_incoherent_beam(m);
    bind_array_source(m);
    bind_rca_das(m);
    bind_pfb_channelizer(m);
    // ) END BINDING_FUNCTION_CALLS
}
