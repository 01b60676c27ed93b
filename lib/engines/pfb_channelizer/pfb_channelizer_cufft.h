/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * cuFFT for the channelizer's general path and the two-pass path's pass 2
 * above the kernels' FFTs (channel counts that are not powers of two, or
 * large). CUDA only: HIP builds use their own FFT kernels or a direct DFT
 * kernel instead (hipFFT is not in Debian).
 */
#ifndef INCLUDED_BEAMFORM_ENGINES_PFB_CHANNELIZER_CUFFT_H
#define INCLUDED_BEAMFORM_ENGINES_PFB_CHANNELIZER_CUFFT_H

#include <vector>

namespace gr {
namespace beamform {
namespace cuda {

/*!
 * Batched in-place inverse (exp(+i...), unnormalized) C2C transforms through
 * cuFFT. Plans are kept for the last few layouts, since a call's last chunk
 * is often shorter than the others (a plan costs host time and may allocate).
 */
class pfb_inverse_fft
{
public:
    pfb_inverse_fft() = default;
    ~pfb_inverse_fft();
    pfb_inverse_fft(const pfb_inverse_fft&) = delete;
    pfb_inverse_fft& operator=(const pfb_inverse_fft&) = delete;

    //! \p data: \p batch rows of \p n complex floats in device memory.
    void run(void* data, int n, long long batch, void* stream);

    //! \p data: \p columns columns of \p n complex floats, element j of column
    //! c at j columns + c (the two-pass path's [position][step][receiver]).
    void run_columns(void* data, int n, long long columns, void* stream);

private:
    struct plan {
        int handle;
        int n;
        long long batch;
        long long stride; //!< between a transform's elements (rows: 1)
    };
    //! A kept (or new) plan for the layout, executed on \p stream.
    void execute(void* data, int n, long long batch, long long stride, void* stream);
    std::vector<plan> d_plans; //!< newest last
};

} // namespace cuda
} // namespace beamform
} // namespace gr

#endif
