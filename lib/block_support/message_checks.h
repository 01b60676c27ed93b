/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What every message handler shares: a message is checked whole before any of
 * it is applied, and a rejected message is logged once, naming the port and
 * the reason, and counted (the blocks' messages_rejected()).
 */
#ifndef INCLUDED_BEAMFORM_BLOCK_SUPPORT_MESSAGE_CHECKS_H
#define INCLUDED_BEAMFORM_BLOCK_SUPPORT_MESSAGE_CHECKS_H

#include <gnuradio/logger.h>
#include <initializer_list>
#include <pmt/pmt.h>
#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

namespace gr {
namespace beamform {

/*!
 * std::invalid_argument unless \p msg is a non-empty dict whose keys are all
 * in \p accepted (a typo must not pass as an update that changes nothing).
 */
void check_message_keys(const pmt::pmt_t& msg,
                        std::initializer_list<const char*> accepted);

//! \p values, or std::invalid_argument naming \p key when it is empty (an
//! empty vector is not a reset).
template <typename T>
const std::vector<T>& nonempty(const std::vector<T>& values, const std::string& key)
{
    if (values.empty())
        throw std::invalid_argument("message key \"" + key +
                                    "\" must not be empty (to keep the current values, "
                                    "leave the key out)");
    return values;
}

//! The messages a block rejected: each one logged and counted.
class message_rejections
{
public:
    //! Log one error naming \p port and \p why; count it.
    void
    reject(const gr::logger_ptr& logger, const std::string& port, const std::string& why);
    uint64_t count() const { return d_count.load(); }

private:
    std::atomic<uint64_t> d_count{ 0 };
};

} // namespace beamform
} // namespace gr

#endif
