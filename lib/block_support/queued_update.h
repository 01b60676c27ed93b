/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_BEAMFORM_BLOCK_SUPPORT_QUEUED_UPDATE_H
#define INCLUDED_BEAMFORM_BLOCK_SUPPORT_QUEUED_UPDATE_H

#include <cstdint>
#include <mutex>
#include <optional>
#include <utility>

namespace gr {
namespace beamform {

/*!
 * \brief A parameter update set from any thread (a setter, a message handler)
 * and applied by work() at the first item of its next call, so that an update
 * never lands inside a batch (engine_block::apply_queued). A newer value
 * replaces one not yet applied.
 */
template <typename T>
class queued_update
{
public:
    void queue(T value)
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        d_pending = std::move(value);
    }

    //! The pending value, if any, now counted as applied (\p number: its count).
    std::optional<T> take(uint64_t& number)
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        std::optional<T> out;
        out.swap(d_pending);
        if (out)
            number = ++d_applied;
        return out;
    }

    //! How many updates work() has applied.
    uint64_t applied() const
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        return d_applied;
    }

private:
    mutable std::mutex d_mutex;
    std::optional<T> d_pending;
    uint64_t d_applied = 0;
};

} // namespace beamform
} // namespace gr

#endif
