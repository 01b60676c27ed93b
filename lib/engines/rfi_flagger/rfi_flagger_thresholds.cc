/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Thresholds of the spectral kurtosis for Gaussian noise.
 *
 * The moments of SK are known exactly (Nita & Gary 2010, MNRAS 406, L60,
 * eqs. 9-10; for N = d = 1: mean 1, variance 4 M^2 / ((M - 1)(M + 2)(M + 3)),
 * third central moment 16 M^3 (5 M - 7) / ((M - 1)^2 (M + 2)(M + 3)(M + 4)
 * (M + 5))), but a distribution fitted to them does not give the tails we
 * need: a Pearson type III (shifted gamma) fit of those three moments, checked
 * against 400 000 simulated blocks, gives 10 to 36 times the requested rate
 * below the lower threshold and 1.3 to 1.5 times above the upper one for M
 * from 8 to 64 at pfa = 0.00135 (still 2.3 and 1.3 times at M = 256); a
 * Gaussian with the exact variance is worse. So the thresholds are the
 * quantiles of SK itself, drawn by simulation: for Gaussian complex voltages
 * P = |x|^2 is exponential, so each trial draws M exponential powers (from a
 * fixed counter-based generator: the same thresholds in every run), and
 * lower / upper are the pfa and 1 - pfa quantiles of the trials' SK.
 * The simulation runs 1000 / pfa trials (1000 beyond each threshold: the
 * rate is then known to about 3%), but no more than 2^27 powers in all
 * (about a second on one core); at large M that bounds the trials (M = 1024:
 * 131072 trials, 177 beyond each threshold at the default pfa, about 8%),
 * where SK is closer to Gaussian anyway.
 * Computed once per (M, pfa) per process.
 */
#include <gnuradio/beamform/engines/rfi_flagger_engine.h>
#include <common/rfi_flagger_math.h>
#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace gr {
namespace beamform {

namespace {

constexpr double max_powers = 134217728.0; // 2^27

//! SK of trial t of the simulation (M exponential powers).
double simulated_sk(size_t m, uint64_t t)
{
    double s1 = 0.0, s2 = 0.0;
    for (size_t i = 0; i < m; i++) {
        const uint64_t h =
            rfi_math::mix64(rfi_math::mix64(t) + i * 0x9e3779b97f4a7c15ULL);
        // uniform in (0, 1]: 53 bits, never 0
        const double u = (double(h >> 11) + 1.0) * (1.0 / 9007199254740992.0);
        rfi_math::accumulate(s1, s2, -std::log(u));
    }
    return rfi_math::spectral_kurtosis(s1, s2, double(m));
}

sk_thresholds simulate(size_t m, double pfa)
{
    const double wanted = std::ceil(1000.0 / pfa);
    const size_t trials =
        size_t(std::max(20000.0, std::min(wanted, std::floor(max_powers / double(m)))));
    std::vector<double> sk(trials);
    const size_t workers =
        std::max<size_t>(1, std::min<size_t>(std::thread::hardware_concurrency(), 16));
    std::vector<std::thread> pool;
    for (size_t w = 0; w < workers; w++)
        pool.emplace_back([&, w] {
            for (size_t t = w; t < trials; t += workers)
                sk[t] = simulated_sk(m, t);
        });
    for (auto& th : pool)
        th.join();
    const size_t k_low = size_t(std::floor(pfa * double(trials)));
    const size_t k_high = trials - 1 - k_low;
    std::nth_element(sk.begin(), sk.begin() + k_low, sk.end());
    const double lower = sk[k_low];
    std::nth_element(sk.begin(), sk.begin() + k_high, sk.end());
    const double upper = sk[k_high];
    return { lower, upper };
}

} // namespace

sk_thresholds sk_thresholds_for(size_t block_size, double pfa)
{
    rfi_flagger_config check;
    check.block_size = block_size;
    check.pfa = pfa;
    check.validate();
    static std::mutex mutex;
    static std::map<std::pair<size_t, double>, sk_thresholds> cache;
    std::lock_guard<std::mutex> lock(mutex);
    const auto key = std::make_pair(block_size, pfa);
    auto it = cache.find(key);
    if (it == cache.end())
        it = cache.emplace(key, simulate(block_size, pfa)).first;
    return it->second;
}

} // namespace beamform
} // namespace gr
