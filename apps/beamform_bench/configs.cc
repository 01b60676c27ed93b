/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The benchmark configurations (listed in main.cu) and their counts.
 */
#include "beamform_bench.h"
#include <random>

namespace bf_bench {

tensor_beamformer_config make_cfg(size_t C,
                                  size_t R,
                                  size_t B,
                                  beam_precision p,
                                  beam_output o,
                                  polarization_layout pol,
                                  size_t n_int)
{
    tensor_beamformer_config c;
    c.n_channels = C;
    c.n_receivers = R;
    c.n_beams = B;
    c.precision = p;
    c.output = o;
    c.polarization = pol;
    c.n_int = n_int;
    return c;
}

std::vector<bench_config> all_configs(bool quick, const std::vector<size_t>& receivers)
{
    const auto f16 = beam_precision::float16;
    const auto volt = beam_output::voltage;
    const auto pow_ = beam_output::power;
    const auto single = polarization_layout::single;
    std::vector<bench_config> v;
    const size_t g = quick ? 1024 : 8192;
    v.push_back({ "1",
                  "GEMM core, fp16 in",
                  make_cfg(1, g, g, f16, volt, single, 1),
                  g,
                  true,
                  0.9,
                  ">= 0.9x cuBLAS" });
    v.push_back(
        { "2",
          "LOFAR survey (xy, voltage)",
          make_cfg(
              quick ? 16 : 256, 128, 155, f16, volt, polarization_layout::xy_pairs, 1),
          768,
          false,
          0,
          "report; vs 552-672 GFLOP/s GTX580" });
    // The same survey shape with power out, the integrated Stokes data a
    // station records (Stokes I, and IQUV), over 16 samples.
    for (const auto stokes : { stokes_mode::I, stokes_mode::IQUV }) {
        auto c = make_cfg(
            quick ? 16 : 256, 128, 155, f16, pow_, polarization_layout::xy_pairs, 16);
        c.stokes = stokes;
        v.push_back({ stokes == stokes_mode::I ? "2/I" : "2/IQUV",
                      "LOFAR survey (xy, power n_int 16)",
                      c,
                      768,
                      false,
                      0,
                      "report" });
    }
    for (size_t rx : receivers)
        v.push_back({ "3/rx" + std::to_string(rx),
                      "fc32 in, voltage out",
                      make_cfg(quick ? 16 : 256, rx, 1024, f16, volt, single, 1),
                      1024,
                      false,
                      1.0,
                      ">= 1.0x cuBLAS route" });
    // Issue 11's power targets name 64, 128 and 512 receivers; other counts
    // (--receivers) are reported.
    for (size_t rx : receivers) {
        const double target = rx == 64 || rx == 128 ? 2.5 : rx == 512 ? 1.5 : 0;
        v.push_back({ "4/rx" + std::to_string(rx),
                      "fc32 in, power out n_int 16",
                      make_cfg(quick ? 16 : 256, rx, 1024, f16, pow_, single, 16),
                      1024,
                      false,
                      target,
                      target == 0     ? "report"
                      : target == 1.5 ? ">= 1.5x cuBLAS route"
                                      : ">= 2.5x cuBLAS route" });
    }
    v.push_back({ "5",
                  "int1",
                  make_cfg(1,
                           quick ? 16384 : 262144,
                           quick ? 1024 : 8192,
                           beam_precision::int1,
                           volt,
                           single,
                           1),
                  size_t(quick ? 1024 : 8192),
                  false,
                  0.9,
                  ">= 0.9x the b1 AND peak" });
    // The reference station: 96 receivers, 1024 beams, 256 channels, Stokes I
    // over 16 samples, 1024 samples per channel per call (1.85 ms per call
    // before the resident-weights kernel).
    v.push_back({ "6",
                  "station: power Stokes I n_int 16",
                  make_cfg(quick ? 16 : 256, 96, 1024, f16, pow_, single, 16),
                  1024,
                  false,
                  0,
                  "report (1.85 ms per call before)" });
    return v;
}

namespace {

/*!
 * One case of --cases: "CxRxBxT" (channels, receivers, beams, samples per
 * call), then optionally ":voltage" (the default) or ":powerN" (power
 * integrated over N samples), ":xy" (X/Y pairs, R counting both
 * polarizations) and ":I" or ":IQUV" (the Stokes parameters of xy power).
 * fc32 in, float16 products. bench::usage_error naming the text otherwise;
 * the engine checks the values themselves when it is made.
 */
bench_config parse_case(const std::string& text)
{
    const auto bad = [&](const std::string& why) {
        return bench::usage_error(
            "--cases: \"" + text + "\": " + why +
            " (accepted: CxRxBxT[:voltage|:powerN][:xy][:I|:IQUV], e.g. "
            "256x96x1024x1024:power16)");
    };
    const std::vector<std::string> parts = bench::split(text, ':');
    if (parts.empty() || parts.size() > 4)
        throw bad("expected one to four parts separated by ':'");
    const auto number = [&](const std::string& digits, const char* what) {
        if (digits.empty() || digits.size() > 7 ||
            digits.find_first_not_of("0123456789") != std::string::npos ||
            std::stoul(digits) == 0)
            throw bad(std::string(what) + " must be a positive integer below 10^7");
        return size_t(std::stoul(digits));
    };
    const std::vector<std::string> dims = bench::split(parts[0], 'x');
    if (dims.size() != 4)
        throw bad("the shape must be channels x receivers x beams x samples");
    const size_t C = number(dims[0], "channels"), R = number(dims[1], "receivers"),
                 B = number(dims[2], "beams"), T = number(dims[3], "samples");
    auto out = beam_output::voltage;
    auto pol = polarization_layout::single;
    size_t n_int = 1;
    auto stokes = stokes_mode::I;
    for (size_t i = 1; i < parts.size(); i++) {
        const std::string& p = parts[i];
        if (p == "voltage")
            out = beam_output::voltage;
        else if (p.rfind("power", 0) == 0) {
            out = beam_output::power;
            n_int = number(p.substr(5), "the power's integration (powerN)");
        } else if (p == "xy")
            pol = polarization_layout::xy_pairs;
        else if (p == "I" || p == "IQUV")
            stokes = p == "I" ? stokes_mode::I : stokes_mode::IQUV;
        else
            throw bad("unknown part \"" + p + "\"");
    }
    if (T % n_int != 0)
        throw bad("the samples must be a multiple of the power's integration");
    auto c = make_cfg(C, R, B, beam_precision::float16, out, pol, n_int);
    c.stokes = stokes;
    return { text, "--cases", c, T, false, 0, "report" };
}

} // namespace

std::vector<bench_config> parse_cases(const std::string& text)
{
    return bench::parse_items("cases", text, parse_case);
}

double useful_ops(const bench_config& b)
{
    return 8.0 * double(b.cfg.n_beams) * double(b.n_times) * double(b.cfg.n_receivers) *
           double(b.cfg.n_channels);
}

size_t out_floats(const tensor_beamformer_config& c, size_t T)
{
    const size_t npol = c.polarization == polarization_layout::xy_pairs ? 2 : 1;
    if (c.output == beam_output::voltage)
        return T * c.n_channels * c.n_beams * 2 * npol;
    return (T / c.n_int) * c.n_stokes() * c.n_beams * c.n_channels;
}

bool selected(const std::string& only, const std::string& id)
{
    return only.empty() || only == id || only == id.substr(0, id.find('/'));
}

} // namespace bf_bench
