/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_BEAMFORM_ENGINES_THREAD_POOL_H
#define INCLUDED_BEAMFORM_ENGINES_THREAD_POOL_H

#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace gr {
namespace beamform {

//! \p threads, or when it is 0 every core this process may run on (its CPU
//! affinity on Linux, else hardware_concurrency(); at least 1).
size_t resolve_thread_count(size_t threads);

/*!
 * \brief The workers of one CPU engine: parallel_for() hands items 0..n-1 to
 * the calling thread and size() - 1 helper threads, and returns when all are
 * done. Helpers sleep between calls. One parallel_for at a time per pool (an
 * engine's execute() is not reentrant). The first exception thrown by an item
 * is rethrown in the caller after the others have finished.
 */
class thread_pool
{
public:
    //! \p threads as in resolve_thread_count.
    explicit thread_pool(size_t threads);
    ~thread_pool();
    thread_pool(const thread_pool&) = delete;
    thread_pool& operator=(const thread_pool&) = delete;

    //! Workers, the calling thread included.
    size_t size() const { return d_helpers.size() + 1; }

    //! f(item, worker) for every item in [0, n); worker in [0, size()) names
    //! the thread, for per-worker scratch memory.
    void parallel_for(size_t n, const std::function<void(size_t, size_t)>& f);

private:
    void helper_loop(size_t worker);
    void run_items(size_t worker);

    std::vector<std::thread> d_helpers;
    std::mutex d_mutex;
    std::condition_variable d_wake, d_done;
    size_t d_generation = 0; // bumped per parallel_for
    bool d_stop = false;
    const std::function<void(size_t, size_t)>* d_task = nullptr;
    size_t d_n = 0, d_next = 0; // items, next item to hand out (under d_mutex)
    size_t d_busy = 0;          // helpers still working on this generation
    std::exception_ptr d_error;
};

} // namespace beamform
} // namespace gr

#endif
