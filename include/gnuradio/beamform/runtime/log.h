/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_BEAMFORM_RUNTIME_LOG_H
#define INCLUDED_BEAMFORM_RUNTIME_LOG_H

#include <functional>
#include <string>

namespace gr {
namespace beamform {

/*!
 * \brief Where the runtime and the engines send warnings (a device fallback, an
 * unusable tuning-file entry). The default prints "gr-beamform: <message>" on
 * stderr; the GNU Radio blocks library routes them to GNU Radio's logger.
 */
using warning_handler = std::function<void(const std::string& message)>;

//! Replace the handler (an empty one restores the default).
void set_warning_handler(warning_handler handler);

//! Send one warning to the current handler.
void warn(const std::string& message);

} // namespace beamform
} // namespace gr

#endif
