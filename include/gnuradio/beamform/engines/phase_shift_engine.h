/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_BEAMFORM_ENGINES_PHASE_SHIFT_ENGINE_H
#define INCLUDED_BEAMFORM_ENGINES_PHASE_SHIFT_ENGINE_H

#include <gnuradio/beamform/runtime/gpu_api.h>
#include <cmath>
#include <complex>
#include <cstdint>
#include <memory>
#include <vector>

namespace gr {
namespace beamform {

//! What does not change while the engine runs.
struct phase_shift_config {
    size_t n_channels = 1;
    size_t n_receivers = 1;
    //! Sky frequency of every channel in Hz (n_channels entries, finite).
    std::vector<double> channel_frequencies;
    //! Seconds per item (1 / channel sample rate), > 0.
    double item_period = 1.0;
    //! CPU engine only: worker threads, 0 = every core (the default). GPU
    //! engines ignore it.
    size_t threads = 0;

    //! std::invalid_argument naming the parameter and its accepted range.
    void validate() const;
};

/*!
 * Per-receiver delay model: tau_a(t) = delays[a] + rates[a] * (t - t0), with
 * t = n * item_period the time of absolute item n (seconds since item 0).
 */
struct phase_shift_delays {
    std::vector<double> delays;             //!< seconds, n_receivers entries
    std::vector<double> rates;              //!< seconds per second, n_receivers
    std::vector<std::complex<float>> gains; //!< complex gains, n_receivers
    double t0 = 0.0;                        //!< seconds, on the item clock

    //! Sizes, finite values, |rates| < 1 s/s; std::invalid_argument naming the key.
    void validate(size_t n_receivers) const;
};

/*!
 * validate() plus what depends on the channel frequencies: every phase term
 * (f delay, f rate t0, f rate item_period, in cycles) must stay below 2^53
 * cycles, past which a double holds no fraction of a cycle and the rotation
 * would be NaN or arbitrary. std::invalid_argument naming the key and values.
 */
void check_phase_shift_model(const phase_shift_config& config,
                             const phase_shift_delays& delays);

/*!
 * The phase of one (channel, receiver) as a linear function of the absolute
 * item index n, in cycles: phase(n) = offset + (step_hi + step_lo) * n mod 1,
 * with offset = f_c (delay - rate t0) and step = f_c rate item_period. Built on
 * the host in double with exact products (fma), so that evaluating it at any
 * n < 2^53 costs a few double operations and carries no accumulated error.
 * Layout: index c * n_receivers + a.
 */
struct phase_shift_coefficients {
    std::vector<double> offset;  //!< cycles, in [-0.5, 0.5]
    std::vector<double> step_hi; //!< cycles per item, reduced to [-0.5, 0.5]
    std::vector<double> step_lo; //!< rounding residue of step_hi (|.| < 1e-16)
    std::vector<std::complex<float>> gains;

    static phase_shift_coefficients build(const phase_shift_config& config,
                                          const phase_shift_delays& delays);
};

/*!
 * Fractional cycles of offset + (step_hi + step_lo) * n, in [-0.5, 0.5].
 * step_hi * n - rint(step_hi * n) is evaluated by one fma, i.e. from the exact
 * product with a single rounding of a number <= 0.5, so the error stays near
 * 1e-16 cycles for every n < 2^53 (no separate product is formed that a
 * compiler could contract differently).
 */
inline double phase_cycles(double offset, double step_hi, double step_lo, uint64_t n);

/*!
 * \brief Per-channel phase rotation of spectra (delay compensation):
 * out[t][c][a] = g_a exp(-2 pi i f_c tau_a(n)) in[t][c][a], n = first_item + t.
 *
 * Spectra are [n_items][n_channels][n_receivers] gr_complex, where the engine
 * runs (host memory for cpu and emu, device memory for cuda and hip); in == out
 * is allowed. execute() enqueues on \p stream and returns; the caller
 * synchronizes. set_delays() takes effect at the next execute() call: its
 * first item is the first one rotated with the new model (never half a batch).
 */
class phase_shift_engine
{
public:
    virtual ~phase_shift_engine() = default;

    virtual void set_delays(const phase_shift_delays& delays) = 0;

    /*!
     * \param first_item absolute index n of in[0] (the block passes
     *        nitems_read(0)); items are timed as t = n * item_period
     */
    virtual void execute(const std::complex<float>* in,
                         std::complex<float>* out,
                         size_t n_items,
                         uint64_t first_item,
                         stream_handle stream) = 0;

    static std::unique_ptr<phase_shift_engine> make(const phase_shift_config& config,
                                                    const phase_shift_delays& delays,
                                                    const device_spec& device);
};

std::unique_ptr<phase_shift_engine>
make_phase_shift_cpu(const phase_shift_config& config, const phase_shift_delays& delays);

// ---------------------------------------------------------------------------

inline double phase_cycles(double offset, double step_hi, double step_lo, uint64_t n)
{
    const double nd = static_cast<double>(n); // exact for n < 2^53
    const double whole = std::rint(step_hi * nd);
    const double x = std::fma(step_hi, nd, -whole) + std::fma(step_lo, nd, offset);
    return x - std::rint(x);
}

} // namespace beamform
} // namespace gr

#endif
