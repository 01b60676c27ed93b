/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "rca_das_impl.h"
#include "block_support/block_params.h"
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace gr {
namespace beamform {

namespace {

template <typename E>
E parse_choice(const std::string& name,
               const std::string& value,
               const std::vector<std::pair<std::string, E>>& choices)
{
    std::string accepted;
    for (const auto& [text, e] : choices) {
        if (text == value)
            return e;
        accepted += (accepted.empty() ? "" : ", ") + ("\"" + text + "\"");
    }
    throw std::invalid_argument(name + " must be one of " + accepted + ", got \"" + value +
                                "\"");
}

} // namespace

rca_das::sptr rca_das::make(int n_elements,
                            double pitch,
                            double center_frequency,
                            double sampling_frequency,
                            double speed_of_sound,
                            double t_start,
                            int n_samples,
                            const std::string& transmit,
                            const std::vector<double>& source_positions,
                            const std::vector<double>& source_depths,
                            double x_start,
                            double x_step,
                            int x_count,
                            double y_start,
                            double y_step,
                            int y_count,
                            double z_start,
                            double z_step,
                            int z_count,
                            double f_number,
                            const std::vector<float>& filter_taps,
                            int decimation,
                            const std::string& input_type,
                            const std::string& output,
                            double db_reference,
                            const std::string& processing,
                            const std::string& method,
                            double demodulation_frequency,
                            const std::string& device,
                            const std::string& gpu_precision)
{
    rca_das_config c;
    c.n_elements = check_count("n_elements", n_elements, 4, 16384);
    c.pitch = pitch;
    c.center_frequency = center_frequency;
    c.sampling_frequency = sampling_frequency;
    c.speed_of_sound = speed_of_sound;
    c.t_start = t_start;
    c.n_samples = check_count("n_samples", n_samples, 4, 1 << 20);
    c.transmit = parse_choice<rca_transmit>(
        "transmit", transmit, { { "rows", rca_transmit::rows }, { "columns", rca_transmit::columns } });
    c.source_positions = source_positions;
    if (source_positions.empty())
        throw std::invalid_argument(
            "source_positions must list at least one virtual source (one per emission)");
    if (source_depths.size() == 1)
        c.source_depths.assign(source_positions.size(), source_depths[0]);
    else if (source_depths.size() == source_positions.size())
        c.source_depths = source_depths;
    else
        throw std::invalid_argument("source_depths must have 1 or n_emissions = " +
                                    std::to_string(source_positions.size()) +
                                    " entries, got " + std::to_string(source_depths.size()));
    c.x = { x_start, x_step, check_count("x_count", x_count, 1, 8192) };
    c.y = { y_start, y_step, check_count("y_count", y_count, 1, 8192) };
    c.z = { z_start, z_step, check_count("z_count", z_count, 1, 8192) };
    c.f_number = f_number;
    c.filter_taps = filter_taps.empty()
                        ? rca_gaussian_pulse_taps(center_frequency > 0 ? center_frequency : 1.0,
                                                  sampling_frequency > 0 ? sampling_frequency
                                                                         : 1.0,
                                                  0.5,
                                                  23)
                        : filter_taps;
    // The default taps are designed from the two frequencies: when that design
    // fails, blame them, not filter_taps, which the user did not give.
    if (filter_taps.empty() &&
        (std::any_of(c.filter_taps.begin(),
                     c.filter_taps.end(),
                     [](float t) { return !std::isfinite(t); }) ||
         std::all_of(c.filter_taps.begin(), c.filter_taps.end(), [](float t) {
             return t == 0.0f;
         })))
    {
        char values[96];
        std::snprintf(values,
                      sizeof values,
                      "center_frequency = %g Hz and sampling_frequency = %g Hz",
                      center_frequency,
                      sampling_frequency);
        throw std::invalid_argument(
            std::string(values) +
            " give no usable default matched filter (its taps are not finite or all "
            "zero); use frequencies in the ultrasound range or give filter_taps");
    }
    c.decimation = check_count("decimation", decimation, 1, 64);
    c.input = parse_choice<rca_sample_type>(
        "input_type",
        input_type,
        { { "int16", rca_sample_type::int16 }, { "float32", rca_sample_type::float32 } });
    c.output = parse_choice<rca_output>("output",
                                        output,
                                        { { "iq", rca_output::iq },
                                          { "envelope", rca_output::envelope },
                                          { "db", rca_output::db } });
    c.db_reference = db_reference;
    c.processing = parse_choice<rca_processing>(
        "processing", processing, { { "iq", rca_processing::iq }, { "real", rca_processing::real } });
    c.method = parse_choice<rca_method>("method",
                                        method,
                                        { { "dual_stage", rca_method::dual_stage },
                                          { "conventional", rca_method::conventional } });
    c.demodulation_frequency = demodulation_frequency;
    c.gpu_precision = rca_parse_gpu_precision(gpu_precision);

    std::vector<std::string> warnings;
    c.validate([&](const std::string& w) { warnings.push_back(w); });
    check_item_bytes(c.input == rca_sample_type::int16
                         ? "n_elements * n_samples * 2 (int16 input)"
                         : "n_elements * n_samples * 4 (float32 input)",
                     c.input_item_bytes());
    check_item_bytes(c.output == rca_output::iq
                         ? "x_count * y_count * z_count * 8 (iq output)"
                         : "x_count * y_count * z_count * 4 (output)",
                     c.output_item_bytes());
    const device_spec dev = select_device(device);
    const std::string notice = rca_das_device_notice(c, dev);
    return gnuradio::make_block_sptr<rca_das_impl>(c, dev, warnings, notice);
}

rca_das_impl::rca_das_impl(const rca_das_config& config,
                           const device_spec& device,
                           const std::vector<std::string>& warnings,
                           const std::string& device_notice)
    : gr::sync_decimator(
          "rca_das",
          device_block::signature(1, 1, config.input_item_bytes(), device),
          device_block::signature(1, 1, config.output_item_bytes(), device),
          unsigned(config.n_emissions())),
      engine_block(device, config.output_item_bytes(), rca_das_engine::make(config, device)),
      d_config(config),
      d_warnings(warnings)
{
    for (const auto& w : d_warnings)
        d_logger->warn("{}", w);
    if (!device_notice.empty())
        d_logger->info("{}", device_notice);
}

int rca_das_impl::work(int noutput_items,
                       gr_vector_const_void_star& input_items,
                       gr_vector_void_star& output_items)
{
    run_engine(noutput_items, input_items[0], output_items[0], static_cast<size_t>(noutput_items));
    return noutput_items;
}

} // namespace beamform
} // namespace gr
