/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "thread_pool.h"
#if defined(__linux__)
#include <sched.h>
#endif

namespace gr {
namespace beamform {

size_t resolve_thread_count(size_t threads)
{
    if (threads != 0)
        return threads;
#if defined(__linux__)
    // The cores this process may run on (taskset, container cpusets), which
    // hardware_concurrency() ignores.
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return size_t(CPU_COUNT(&set));
#endif
    const unsigned cores = std::thread::hardware_concurrency();
    return cores == 0 ? 1 : cores;
}

thread_pool::thread_pool(size_t threads)
{
    const size_t n = resolve_thread_count(threads);
    for (size_t w = 1; w < n; w++)
        d_helpers.emplace_back([this, w] { helper_loop(w); });
}

thread_pool::~thread_pool()
{
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        d_stop = true;
    }
    d_wake.notify_all();
    for (auto& t : d_helpers)
        t.join();
}

void thread_pool::run_items(size_t worker)
{
    // Items are handed out one at a time under the mutex: an item is at least
    // thousands of operations, so the lock is not the cost.
    for (;;) {
        size_t item;
        {
            std::lock_guard<std::mutex> lock(d_mutex);
            if (d_next >= d_n)
                return;
            item = d_next++;
        }
        try {
            (*d_task)(item, worker);
        } catch (...) {
            std::lock_guard<std::mutex> lock(d_mutex);
            if (!d_error)
                d_error = std::current_exception();
            d_next = d_n; // hand out nothing more
        }
    }
}

void thread_pool::helper_loop(size_t worker)
{
    size_t seen = 0;
    for (;;) {
        {
            std::unique_lock<std::mutex> lock(d_mutex);
            d_wake.wait(lock, [&] { return d_stop || d_generation != seen; });
            if (d_stop)
                return;
            seen = d_generation;
        }
        run_items(worker);
        {
            std::lock_guard<std::mutex> lock(d_mutex);
            d_busy--;
        }
        d_done.notify_one();
    }
}

void thread_pool::parallel_for(size_t n, const std::function<void(size_t, size_t)>& f)
{
    if (n == 0)
        return;
    if (d_helpers.empty() || n == 1) {
        for (size_t i = 0; i < n; i++)
            f(i, 0);
        return;
    }
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        d_task = &f;
        d_n = n;
        d_next = 0;
        d_error = nullptr;
        d_busy = d_helpers.size();
        d_generation++;
    }
    d_wake.notify_all();
    run_items(0);
    std::exception_ptr error;
    {
        std::unique_lock<std::mutex> lock(d_mutex);
        d_done.wait(lock, [&] { return d_busy == 0; });
        d_task = nullptr;
        error = d_error;
        d_error = nullptr;
    }
    if (error)
        std::rethrow_exception(error);
}

} // namespace beamform
} // namespace gr
