/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * filterbank_writer without a flowgraph: file layout, channel order, MJD
 * conversion, errors. (The Python tests cover the block and the reader.)
 */
#include <gnuradio/beamform/engines/filterbank_writer.h>
#include "test_util.h"
#include <gtest/gtest.h>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

namespace {

using gr::beamform::filterbank_config;
using gr::beamform::filterbank_writer;

std::vector<uint8_t> read_bytes(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

filterbank_config small_config(const std::string& dir)
{
    filterbank_config c;
    c.directory = dir;
    c.prefix = "t";
    c.n_beams = 3;
    c.n_channels = 5;
    c.n_stokes = 4;
    // channelizer order: DC, +1, +2, -2, -1 channel spacings of 1 MHz
    c.channel_frequencies_hz = { 100e6, 101e6, 102e6, 98e6, 99e6 };
    c.tsamp_s = 0.5;
    c.source_name = "unit";
    c.beam_az_el_deg = { 0, 90, 370, 10, -90, -45 };
    return c;
}

std::string fresh_dir(const char* name)
{
    auto dir = std::filesystem::temp_directory_path() /
               (std::string("beamform_fbw_") + name + "_" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    return dir.string();
}

TEST(filterbank_writer, descending_channels_and_layout)
{
    const auto dir = fresh_dir("layout");
    const auto config = small_config(dir);
    const size_t n_items = 7;
    const auto items =
        beamform_test::random_vector<float>(n_items * config.item_floats(), 11);
    filterbank_writer writer(config);
    {
        EXPECT_DOUBLE_EQ(writer.fch1_mhz(), 102.0);
        EXPECT_DOUBLE_EQ(writer.foff_mhz(), -1.0);
        EXPECT_EQ(writer.channel_order(), (std::vector<size_t>{ 2, 1, 0, 4, 3 }));
        writer.write_headers(60000.0);
        EXPECT_THROW(writer.write_headers(60000.0), std::logic_error);
        writer.write(items.data(), 3);
        writer.write(items.data() + 3 * config.item_floats(), n_items - 3);
        EXPECT_EQ(writer.items_written(), n_items);
        writer.close();
    }
    for (size_t b = 0; b < config.n_beams; ++b) {
        const auto header = writer.header_bytes(b, 60000.0);
        const auto bytes = read_bytes(dir + "/t_beam000" + std::to_string(b) + ".fil");
        const size_t sample = config.n_stokes * config.n_channels;
        ASSERT_EQ(bytes.size(), header.size() + n_items * sample * sizeof(float));
        ASSERT_TRUE(std::equal(header.begin(), header.end(), bytes.begin()));
        const size_t order[] = { 2, 1, 0, 4, 3 };
        for (size_t t = 0; t < n_items; ++t)
            for (size_t s = 0; s < config.n_stokes; ++s)
                for (size_t k = 0; k < config.n_channels; ++k) {
                    float got;
                    std::memcpy(&got,
                                bytes.data() + header.size() +
                                    ((t * config.n_stokes + s) * config.n_channels + k) *
                                        sizeof(float),
                                sizeof got);
                    const float want =
                        items[((t * config.n_stokes + s) * config.n_beams + b) *
                                  config.n_channels +
                              order[k]];
                    ASSERT_EQ(got, want) << "beam " << b << " t " << t << " s " << s
                                         << " k " << k;
                }
    }
    std::filesystem::remove_all(dir);
}

TEST(filterbank_writer, unix_time_to_mjd_keeps_microseconds)
{
    using gr::beamform::unix_time_to_mjd;
    EXPECT_DOUBLE_EQ(unix_time_to_mjd(0, 0.0), 40587.0);
    EXPECT_DOUBLE_EQ(unix_time_to_mjd(86400, 0.0), 40588.0);
    // 2023-11-14T22:13:20.000001 UTC
    const double mjd = unix_time_to_mjd(1700000000u, 1e-6);
    EXPECT_NEAR((mjd - 60262.0) * 86400.0, 80000.0 + 1e-6, 1e-6);
}

TEST(filterbank_writer, bad_config_names_the_parameter)
{
    auto check = [](auto edit, const char* name) {
        auto c = small_config(fresh_dir("bad"));
        edit(c);
        try {
            c.validate();
            FAIL() << "no exception for " << name;
        } catch (const std::invalid_argument& e) {
            EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
        }
    };
    check([](filterbank_config& c) { c.n_stokes = 2; }, "n_stokes");
    check([](filterbank_config& c) { c.channel_frequencies_hz[3] = 97.5e6; },
          "channel_frequencies");
    check([](filterbank_config& c) { c.beam_az_el_deg.pop_back(); }, "beam_az_el");
    check([](filterbank_config& c) { c.tsamp_s = -1; }, "tsamp");
    check([](filterbank_config& c) { c.prefix = std::string("a\0b", 3); }, "prefix");
    check([](filterbank_config& c) { c.source_name = "Caf\xc3\xa9"; }, "source_name");
    check(
        [](filterbank_config& c) {
            c.n_channels = 2;
            c.channel_frequencies_hz = { -1e308, 1e308 };
        },
        "channel_frequencies must span a finite range");
}

TEST(filterbank_writer, second_writer_on_the_same_files_is_refused)
{
    const auto dir = fresh_dir("twice");
    {
        filterbank_writer first(small_config(dir));
        first.write_headers(60000.0);
        first.close(); // files closed, still claimed until the writer goes
        const auto before = read_bytes(first.paths()[0]);
        ASSERT_GT(before.size(), 0u);
        // the same files, spelled differently
        EXPECT_THROW(filterbank_writer second(small_config(dir + "/.")),
                     std::runtime_error);
        EXPECT_EQ(read_bytes(first.paths()[0]), before)
            << "the refused writer must not truncate the first one's files";
    }
    filterbank_writer again(small_config(dir)); // released with the first writer
    std::filesystem::remove_all(dir);
}

TEST(filterbank_writer, open_failure_names_path_and_reason)
{
    const auto dir = fresh_dir("open");
    std::filesystem::create_directories(dir + "/t_beam0002.fil");
    try {
        filterbank_writer writer(small_config(dir));
        FAIL() << "no exception";
    } catch (const std::runtime_error& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("t_beam0002.fil"), std::string::npos) << what;
        EXPECT_NE(what.find(std::strerror(EISDIR)), std::string::npos) << what;
    }
    std::filesystem::remove_all(dir);
}

} // namespace
