/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * cuFFT plans for the channelizer's general path (CUDA only).
 */
#include "pfb_channelizer_cufft.h"
#include <cufft.h>
#include <stdexcept>
#include <string>

namespace gr {
namespace beamform {
namespace cuda {
namespace {
void check_cufft(cufftResult r, const char* what)
{
    if (r != CUFFT_SUCCESS)
        throw std::runtime_error(std::string("cuFFT error ") + std::to_string(int(r)) +
                                 " in " + what);
}
} // namespace

pfb_inverse_fft::~pfb_inverse_fft() { release(); }

void pfb_inverse_fft::release()
{
    if (d_have_plan)
        cufftDestroy(cufftHandle(d_plan));
    d_have_plan = false;
}

void pfb_inverse_fft::run(void* data, int n, long long batch, void* stream)
{
    if (!d_have_plan || d_n != n || d_batch != batch) {
        release();
        cufftHandle plan;
        int dims[1] = { n };
        check_cufft(
            cufftPlanMany(
                &plan, 1, dims, nullptr, 1, n, nullptr, 1, n, CUFFT_C2C, int(batch)),
            "cufftPlanMany");
        d_plan = int(plan);
        d_have_plan = true;
        d_n = n;
        d_batch = batch;
    }
    check_cufft(cufftSetStream(cufftHandle(d_plan), static_cast<cudaStream_t>(stream)),
                "cufftSetStream");
    auto* p = static_cast<cufftComplex*>(data);
    check_cufft(cufftExecC2C(cufftHandle(d_plan), p, p, CUFFT_INVERSE), "cufftExecC2C");
}

} // namespace cuda
} // namespace beamform
} // namespace gr
