/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <gnuradio/beamform/engines/sample_format.h>
#include <stdexcept>

namespace gr {
namespace beamform {

size_t sample_size(sample_format f)
{
    switch (f) {
    case sample_format::sc8:
        return 2;
    case sample_format::sc16:
        return 4;
    case sample_format::fc32:
        return 8;
    }
    return 0;
}

std::string to_string(sample_format f)
{
    switch (f) {
    case sample_format::sc8:
        return "sc8";
    case sample_format::sc16:
        return "sc16";
    case sample_format::fc32:
        return "fc32";
    }
    return "?";
}

sample_format parse_sample_format(const std::string& text, const std::string& parameter)
{
    for (auto f : { sample_format::sc8, sample_format::sc16, sample_format::fc32 })
        if (text == to_string(f))
            return f;
    throw std::invalid_argument(parameter + " must be \"sc8\", \"sc16\" or \"fc32\", got \"" +
                                text + "\"");
}

void check_sample_format(sample_format f, const std::string& parameter)
{
    if (sample_size(f) == 0)
        throw std::invalid_argument(parameter +
                                    " must be sc8 (0), sc16 (1) or fc32 (2), got " +
                                    std::to_string(static_cast<int>(f)));
}

} // namespace beamform
} // namespace gr
