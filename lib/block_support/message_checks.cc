/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "message_checks.h"
#include <stdexcept>

namespace gr {
namespace beamform {

void check_message_keys(const pmt::pmt_t& msg,
                        std::initializer_list<const char*> accepted)
{
    std::string list;
    for (const char* key : accepted)
        list += (list.empty() ? "" : ", ") + std::string(key);
    if (!pmt::is_dict(msg))
        throw std::invalid_argument("message must be a PMT dict with keys among " + list);
    // An empty dict (PMT nil) would pass as an update that changes nothing.
    if (pmt::is_null(msg))
        throw std::invalid_argument("message is an empty dict (keys among " + list + ")");
    for (pmt::pmt_t keys = pmt::dict_keys(msg); !pmt::is_null(keys);
         keys = pmt::cdr(keys)) {
        const pmt::pmt_t key = pmt::car(keys);
        bool known = false;
        for (const char* name : accepted)
            known = known || pmt::eqv(key, pmt::mp(name));
        if (!known)
            throw std::invalid_argument("message key " +
                                        (pmt::is_symbol(key)
                                             ? "\"" + pmt::symbol_to_string(key) + "\""
                                             : pmt::write_string(key)) +
                                        " is unknown (accepted: " + list + ")");
    }
}

void message_rejections::reject(const gr::logger_ptr& logger,
                                const std::string& port,
                                const std::string& why)
{
    d_count++;
    logger->error(
        "rejected a message on port \"{:s}\" (nothing of it applied): {:s}", port, why);
}

} // namespace beamform
} // namespace gr
