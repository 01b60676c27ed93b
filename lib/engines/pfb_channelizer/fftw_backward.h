/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_BEAMFORM_ENGINES_FFTW_BACKWARD_H
#define INCLUDED_BEAMFORM_ENGINES_FFTW_BACKWARD_H

#include <fftw3.h>
#include <complex>
#include <mutex>
#include <new>

namespace gr {
namespace beamform {

/*!
 * One single-precision FFTW transform of size n, backward (exp(+2 pi i k n / N),
 * unnormalized, as GNU Radio's fft_complex_rev), in place on its own buffer.
 * FFTW's planner is not thread-safe, so plans are made and destroyed under one
 * lock; execute() needs none.
 */
class fftw_backward
{
public:
    explicit fftw_backward(size_t n)
        : d_buf(static_cast<std::complex<float>*>(fftwf_malloc(n * sizeof(fftwf_complex))))
    {
        if (!d_buf)
            throw std::bad_alloc();
        std::lock_guard<std::mutex> lock(planner_mutex());
        auto* b = reinterpret_cast<fftwf_complex*>(d_buf);
        d_plan = fftwf_plan_dft_1d(int(n), b, b, FFTW_BACKWARD, FFTW_ESTIMATE);
    }
    ~fftw_backward()
    {
        std::lock_guard<std::mutex> lock(planner_mutex());
        fftwf_destroy_plan(d_plan);
        fftwf_free(d_buf);
    }
    fftw_backward(const fftw_backward&) = delete;
    fftw_backward& operator=(const fftw_backward&) = delete;

    std::complex<float>* buffer() const { return d_buf; }
    void execute() const { fftwf_execute(d_plan); }

private:
    static std::mutex& planner_mutex()
    {
        static std::mutex m;
        return m;
    }
    std::complex<float>* d_buf;
    fftwf_plan d_plan;
};

} // namespace beamform
} // namespace gr

#endif
