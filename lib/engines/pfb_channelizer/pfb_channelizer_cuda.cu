/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * cuFFT plans for the channelizer's general path and the two-pass path's
 * library pass 2 (CUDA only).
 */
#include "pfb_channelizer_cufft.h"
#include <cufft.h>
#include <algorithm>
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
constexpr size_t kept_plans = 4;
} // namespace

pfb_inverse_fft::~pfb_inverse_fft()
{
    for (const plan& p : d_plans)
        cufftDestroy(cufftHandle(p.handle));
}

void pfb_inverse_fft::run(void* data, int n, long long batch, void* stream)
{
    execute(data, n, batch, 1, stream);
}

void pfb_inverse_fft::run_columns(void* data, int n, long long columns, void* stream)
{
    execute(data, n, columns, columns, stream);
}

void pfb_inverse_fft::execute(
    void* data, int n, long long batch, long long stride, void* stream)
{
    auto found = std::find_if(d_plans.begin(), d_plans.end(), [&](const plan& p) {
        return p.n == n && p.batch == batch && p.stride == stride;
    });
    if (found == d_plans.end()) {
        if (d_plans.size() == kept_plans) {
            cufftDestroy(cufftHandle(d_plans.front().handle));
            d_plans.erase(d_plans.begin());
        }
        // Rows: element j of row b at b n + j; columns: at j stride + b.
        cufftHandle h;
        int dims[1] = { n };
        const long long dist = stride == 1 ? n : 1;
        check_cufft(cufftPlanMany(&h,
                                  1,
                                  dims,
                                  dims,
                                  int(stride),
                                  int(dist),
                                  dims,
                                  int(stride),
                                  int(dist),
                                  CUFFT_C2C,
                                  int(batch)),
                    "cufftPlanMany");
        d_plans.push_back({ int(h), n, batch, stride });
        found = d_plans.end() - 1;
    }
    const auto h = cufftHandle(found->handle);
    check_cufft(cufftSetStream(h, static_cast<cudaStream_t>(stream)), "cufftSetStream");
    auto* p = static_cast<cufftComplex*>(data);
    check_cufft(cufftExecC2C(h, p, p, CUFFT_INVERSE), "cufftExecC2C");
}

} // namespace cuda
} // namespace beamform
} // namespace gr
