/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_BEAMFORM_ENGINES_FFTW_BATCHED_H
#define INCLUDED_BEAMFORM_ENGINES_FFTW_BATCHED_H

#include <fftw3.h>
#include <complex>
#include <mutex>
#include <new>
#include <vector>

namespace gr {
namespace beamform {

/*!
 * Single-precision FFTW transforms of size n, backward (exp(+2 pi i k n / N),
 * unnormalized, as GNU Radio's fft_complex_rev), one per receiver of an
 * [n][receivers] array (receiver fastest): one batched plan in place and one
 * out of place, and one such array per worker (buffer(w)), all executed
 * through the same plans.
 * FFTW's planner is not thread-safe, so plans are made and destroyed under one
 * lock; execute() needs none.
 */
class fftw_batched
{
public:
    fftw_batched(size_t n, size_t receivers, size_t workers)
        : d_size(n * receivers)
    {
        for (size_t w = 0; w < workers; w++) {
            auto* b = static_cast<std::complex<float>*>(
                fftwf_malloc(d_size * sizeof(fftwf_complex)));
            if (!b) {
                release();
                throw std::bad_alloc();
            }
            d_bufs.push_back(b);
        }
        auto* scratch = static_cast<fftwf_complex*>(fftwf_malloc(d_size * sizeof(fftwf_complex)));
        if (!scratch) {
            release();
            throw std::bad_alloc();
        }
        std::lock_guard<std::mutex> lock(planner_mutex());
        auto* b = reinterpret_cast<fftwf_complex*>(d_bufs[0]);
        const int size = int(n), howmany = int(receivers), stride = int(receivers);
        // Measured plans (0.05 to 0.3 s for the two on the build machine, up to
        // 4096 points x 96 receivers); estimated ones for larger arrays, whose
        // measurement could take seconds.
        const unsigned effort = d_size <= (size_t(1) << 20) ? FFTW_MEASURE : FFTW_ESTIMATE;
        d_plan = fftwf_plan_many_dft(1, &size, howmany, b, nullptr, stride, 1, b, nullptr,
                                     stride, 1, FFTW_BACKWARD, effort);
        d_plan_out = fftwf_plan_many_dft(1, &size, howmany, b, nullptr, stride, 1, scratch,
                                         nullptr, stride, 1, FFTW_BACKWARD,
                                         effort | FFTW_DESTROY_INPUT);
        d_out_alignment = fftwf_alignment_of(reinterpret_cast<float*>(scratch));
        fftwf_free(scratch);
    }
    ~fftw_batched()
    {
        {
            std::lock_guard<std::mutex> lock(planner_mutex());
            fftwf_destroy_plan(d_plan);
            fftwf_destroy_plan(d_plan_out);
        }
        release();
    }
    fftw_batched(const fftw_batched&) = delete;
    fftw_batched& operator=(const fftw_batched&) = delete;

    //! Worker w's [n][receivers] array (fftwf_malloc: the plan's alignment).
    std::complex<float>* buffer(size_t w) const { return d_bufs[w]; }
    //! Transform worker w's array in place.
    void execute(size_t w) const
    {
        auto* b = reinterpret_cast<fftwf_complex*>(d_bufs[w]);
        fftwf_execute_dft(d_plan, b, b);
    }
    //! Whether execute_to() may write to \p out (aligned as the plan wants).
    bool can_write_to(const std::complex<float>* out) const
    {
        return fftwf_alignment_of(reinterpret_cast<float*>(const_cast<std::complex<float>*>(
                   out))) == d_out_alignment;
    }
    //! Transform worker w's array into \p out ([n][receivers]); w's array is
    //! destroyed.
    void execute_to(size_t w, std::complex<float>* out) const
    {
        fftwf_execute_dft(d_plan_out,
                          reinterpret_cast<fftwf_complex*>(d_bufs[w]),
                          reinterpret_cast<fftwf_complex*>(out));
    }

private:
    void release()
    {
        for (auto* b : d_bufs)
            fftwf_free(b);
        d_bufs.clear();
    }
    static std::mutex& planner_mutex()
    {
        static std::mutex m;
        return m;
    }
    size_t d_size;
    std::vector<std::complex<float>*> d_bufs;
    fftwf_plan d_plan = nullptr, d_plan_out = nullptr;
    int d_out_alignment = 0;
};

} // namespace beamform
} // namespace gr

#endif
