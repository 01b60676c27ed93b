/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The results table on stdout and the result rows of the JSON report.
 */
#include "beamform_bench.h"
#include <algorithm>
#include <iomanip>
#include <iostream>
#include <sstream>

namespace bf_bench {

namespace {

void print_row(const result& r, int id_width)
{
    auto num = [](double v, int prec) {
        std::ostringstream s;
        if (std::isnan(v))
            s << "-";
        else
            s << std::fixed << std::setprecision(prec) << v;
        return s.str();
    };
    std::cout << std::left << std::setw(id_width) << r.id << std::setw(36) << r.what << std::right
              << std::setw(10) << num(r.ms, 3) << std::setw(10) << num(r.tops, 1) << std::setw(9)
              << num(r.ratio_route, 2) << std::setw(9) << num(r.ratio_hgemm, 2) << std::setw(11)
              << (std::isnan(r.err) ? std::string("-") : [&] {
                     std::ostringstream s;
                     s << std::scientific << std::setprecision(1) << r.err;
                     return s.str();
                 }())
              << "  " << std::left << std::setw(27) << r.tile << r.target_text
              << (r.verdict.empty() ? "" : " [" + r.verdict + "]") << std::right << "\n";
}

} // namespace

void print_table(const std::vector<result>& all)
{
    int id_width = 8; // wider for --cases' shapes
    for (const auto& r : all)
        id_width = std::max(id_width, int(r.id.size()) + 2);
    std::cout << "\n"
              << std::left << std::setw(id_width) << "config" << std::setw(36) << "what"
              << std::right << std::setw(10) << "ms" << std::setw(10) << "TOPs/s"
              << std::setw(9) << "xRoute" << std::setw(9) << "xHGEMM" << std::setw(11)
              << "rel.err"
              << "  " << std::left << std::setw(27) << "tile"
              << "target\n"
              << std::right;
    for (const auto& r : all)
        print_row(r, id_width);
    std::cout << "TOPs/s = 8 x beams x samples x receivers x channels / time; xRoute = "
                 "route time / our time (same data, same run); xHGEMM = rate / cuBLAS "
                 "HGEMM ceiling; rel.err = ||ours - route|| / ||route|| (int1: wrong "
                 "samples of 64, exact)\n";
}

void add_results(bench::report& rep, const std::vector<result>& all)
{
    for (const auto& r : all) {
        rep.row();
        rep.set("config", r.id);
        rep.set("name", r.name);
        rep.set("what", r.what);
        rep.set("tile", r.tile);
        rep.set("median_ms", r.ms);
        rep.set("tops", r.tops);
        if (!std::isnan(r.ratio_route))
            rep.set("ratio_to_cublas_route", r.ratio_route);
        if (!std::isnan(r.ratio_hgemm))
            rep.set("ratio_to_hgemm_ceiling", r.ratio_hgemm);
        if (!std::isnan(r.err))
            rep.set("error", r.err);
        rep.set("target", r.target_text);
        rep.set("verdict", r.verdict);
    }
}

} // namespace bf_bench
