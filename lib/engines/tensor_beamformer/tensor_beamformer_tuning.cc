/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "tensor_beamformer_tuning.h"
#include <gnuradio/beamform/runtime/log.h>
#include <fstream>

namespace gr {
namespace beamform {
namespace cuda {

std::map<std::string, std::string> read_tuning_file(const char* path)
{
    std::map<std::string, std::string> entries;
    std::ifstream f(path);
    if (!f) {
        warn(std::string("cannot read BEAMFORM_TUNING_FILE ") + path +
             "; using built-in tiles");
        return entries;
    }
    std::string line;
    while (std::getline(f, line)) {
        const auto hash = line.find('#');
        if (hash != std::string::npos)
            line.erase(hash);
        const auto eq = line.find('=');
        if (eq == std::string::npos)
            continue;
        auto trim = [](std::string s) {
            const auto b = s.find_first_not_of(" \t\r");
            const auto e = s.find_last_not_of(" \t\r");
            return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
        };
        entries[trim(line.substr(0, eq))] = trim(line.substr(eq + 1));
    }
    return entries;
}

std::string tensor_beamformer_shape_class(const tensor_beamformer_config& c)
{
    const bool xy = c.polarization == polarization_layout::xy_pairs;
    const size_t rx = xy ? c.n_receivers / 2 : c.n_receivers;
    const char* size = rx <= 128 ? "rx_small" : (rx <= 1024 ? "rx_medium" : "rx_large");
    const char* precision = c.precision == beam_precision::int1 ? "int1" : "float16";
    return std::string(precision) + "." + (xy ? "xy_pairs" : "single") + "." +
           (c.output == beam_output::power ? "power" : "voltage") + "." + size;
}

std::string tensor_beamformer_tuning_key(const tensor_beamformer_config& c,
                                         const std::string& device_name)
{
    return device_name + "/" + tensor_beamformer_shape_class(c);
}

std::string tb_tuning_lookup(const std::map<std::string, std::string>& entries,
                             const tensor_beamformer_config& c,
                             const std::string& device_name)
{
    auto it = entries.find(tensor_beamformer_tuning_key(c, device_name));
    if (it == entries.end())
        it = entries.find(tensor_beamformer_shape_class(c));
    return it == entries.end() ? std::string() : it->second;
}

} // namespace cuda
} // namespace beamform
} // namespace gr
