/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_BEAMFORM_PHASE_SHIFT_IMPL_H
#define INCLUDED_BEAMFORM_PHASE_SHIFT_IMPL_H

#include "block_support/engine_block.h"
#include "block_support/message_checks.h"
#include <gnuradio/beamform/engines/phase_shift_engine.h>
#include <gnuradio/beamform/phase_shift.h>
#include <mutex>

namespace gr {
namespace beamform {

class phase_shift_impl : public engine_block<phase_shift, phase_shift_engine>
{
public:
    phase_shift_impl(const phase_shift_config& config,
                     const phase_shift_delays& delays,
                     const device_spec& device);

    void set_delays(const std::vector<double>& delays,
                    const std::vector<double>& rates,
                    const std::vector<gr_complex>& gains,
                    double t0) override;
    void set_geometry(const std::vector<std::array<double, 3>>& positions,
                      int reference_index,
                      double propagation_speed) override;
    void point_at(double azimuth_deg, double elevation_deg) override;

    std::vector<double> delays() const override;
    std::vector<double> rates() const override;
    std::vector<gr_complex> gains() const override;
    double t0() const override;
    std::vector<double> channel_frequencies() const override
    {
        return d_config.channel_frequencies;
    }
    double item_period() const override { return d_config.item_period; }
    double max_representable_delay() const override { return d_max_delay; }
    uint64_t updates_applied() const override;
    uint64_t messages_rejected() const override;

    int work(int noutput_items,
             gr_vector_const_void_star& input_items,
             gr_vector_void_star& output_items) override;

private:
    void handle_delays_message(const pmt::pmt_t& msg);
    //! Validates \p next, warns about unrepresentable delays, and queues it for
    //! the next work call. Caller holds d_mutex.
    void queue_update(const phase_shift_delays& next, const pmt::pmt_t& description);
    void warn_if_unrepresentable(const std::vector<double>& delays);

    const phase_shift_config d_config;
    const double d_max_delay;

    mutable std::mutex d_mutex; // guards d_model and the geometry below
    phase_shift_delays d_model; //!< latest model (applied or pending)
    //! The model for the next work call, with the tag value that announces it.
    queued_update<std::pair<phase_shift_delays, pmt::pmt_t>> d_update;

    message_rejections d_rejected;

    std::vector<std::array<double, 3>> d_positions;
    int d_reference_index = 0;
    double d_propagation_speed = speed_of_light;
};

} // namespace beamform
} // namespace gr

#endif
