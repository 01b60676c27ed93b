/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * cuFFT for the channelizer's general path (channel counts that are not
 * powers of two). CUDA only: HIP builds use a direct DFT kernel instead
 * (hipFFT is not in Debian).
 */
#ifndef INCLUDED_BEAMFORM_ENGINES_PFB_CHANNELIZER_CUFFT_H
#define INCLUDED_BEAMFORM_ENGINES_PFB_CHANNELIZER_CUFFT_H

namespace gr {
namespace beamform {
namespace cuda {

//! Batched in-place inverse (exp(+i...), unnormalized) C2C transforms of contiguous rows.
class pfb_inverse_fft
{
public:
    pfb_inverse_fft() = default;
    ~pfb_inverse_fft();
    pfb_inverse_fft(const pfb_inverse_fft&) = delete;
    pfb_inverse_fft& operator=(const pfb_inverse_fft&) = delete;

    //! \p data: \p batch rows of \p n complex floats in device memory.
    void run(void* data, int n, long long batch, void* stream);

private:
    void release();
    int d_plan = 0;
    bool d_have_plan = false;
    int d_n = 0;
    long long d_batch = 0;
};

} // namespace cuda
} // namespace beamform
} // namespace gr

#endif
