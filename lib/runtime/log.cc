/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <gnuradio/beamform/runtime/log.h>
#include <iostream>
#include <mutex>

namespace gr {
namespace beamform {

namespace {
std::mutex g_mutex;
warning_handler& handler()
{
    static warning_handler h;
    return h;
}
} // namespace

void set_warning_handler(warning_handler h)
{
    std::lock_guard<std::mutex> lock(g_mutex);
    handler() = std::move(h);
}

void warn(const std::string& message)
{
    std::lock_guard<std::mutex> lock(g_mutex);
    if (handler())
        handler()(message);
    else
        std::cerr << "gr-beamform: " << message << std::endl;
}

} // namespace beamform
} // namespace gr
