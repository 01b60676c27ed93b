/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "engines/common/number_text.h"
#include <gnuradio/beamform/engines/filterbank_writer.h>
#include <stdio_ext.h> // __fpurge
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <numeric>
#include <set>
#include <stdexcept>

namespace gr {
namespace beamform {

namespace {

constexpr double mjd_of_unix_epoch = 40587.0; // 1970-01-01T00:00:00 UTC
constexpr double seconds_per_day = 86400.0;
// Relative tolerance on the channel spacing: the frequencies come from double
// arithmetic (centre + k * fs / N), so anything larger is a real gap.
constexpr double spacing_tolerance = 1e-6;
// Files the process may hold open besides ours (libraries, sockets, logs).
constexpr rlim_t spare_descriptors = 64;

void require(bool ok, const std::string& message)
{
    if (!ok)
        throw std::invalid_argument(message);
}

bool host_is_big_endian()
{
#if defined(__BYTE_ORDER__) && defined(__ORDER_BIG_ENDIAN__)
    return __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;
#else
    const uint16_t probe = 1;
    uint8_t first;
    std::memcpy(&first, &probe, 1);
    return first == 0;
#endif
}

// SIGPROC headers are little-endian in practice (every telescope writing them
// runs on x86 or ARM); write them so on any host.
void put_le(std::vector<uint8_t>& out, uint64_t bits, int n_bytes)
{
    for (int i = 0; i < n_bytes; ++i)
        out.push_back(static_cast<uint8_t>(bits >> (8 * i)));
}

void put_int(std::vector<uint8_t>& out, int32_t value)
{
    put_le(out, static_cast<uint32_t>(value), 4);
}

void put_string(std::vector<uint8_t>& out, const std::string& text)
{
    put_int(out, static_cast<int32_t>(text.size()));
    out.insert(out.end(), text.begin(), text.end());
}

void put_keyword_int(std::vector<uint8_t>& out, const char* key, int32_t value)
{
    put_string(out, key);
    put_int(out, value);
}

void put_keyword_double(std::vector<uint8_t>& out, const char* key, double value)
{
    put_string(out, key);
    uint64_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    put_le(out, bits, 8);
}

std::string beam_file_name(const std::string& prefix, size_t beam)
{
    char number[24];
    std::snprintf(number, sizeof number, "%04zu", beam);
    return prefix + "_beam" + number + ".fil";
}

// One descriptor per beam file must fit under RLIMIT_NOFILE. Raise the soft
// limit (process-wide) up to the hard limit when 1024 is too few.
void ensure_descriptor_limit(size_t n_files)
{
    rlimit limit{};
    if (getrlimit(RLIMIT_NOFILE, &limit) != 0)
        return; // cannot tell; fopen will report EMFILE if it is too low
    const rlim_t needed = static_cast<rlim_t>(n_files) + spare_descriptors;
    if (limit.rlim_cur == RLIM_INFINITY || limit.rlim_cur >= needed)
        return;
    if (limit.rlim_max != RLIM_INFINITY && limit.rlim_max < needed)
        throw std::runtime_error(
            "filterbank_sink: n_beams = " + std::to_string(n_files) +
            " files need " + std::to_string(needed) +
            " open file descriptors, but the hard limit (ulimit -Hn) is " +
            std::to_string(limit.rlim_max));
    limit.rlim_cur = needed;
    if (setrlimit(RLIMIT_NOFILE, &limit) != 0)
        throw std::runtime_error("filterbank_sink: cannot raise the open-file limit to " +
                                 std::to_string(needed) + ": " +
                                 std::strerror(errno));
}

// Files held by a live writer of this process (canonical paths): a second
// writer on them would truncate and interleave into the first one's files.
std::mutex g_claimed_mutex;
std::set<std::string> g_claimed;

std::string canonical_key(const std::string& path)
{
    std::error_code ec;
    const auto p = std::filesystem::weakly_canonical(path, ec);
    return ec ? path : p.string();
}

//! \p text with bytes outside printable ASCII shown as \xNN, for messages.
std::string printable(const std::string& text)
{
    std::string out;
    for (unsigned char ch : text) {
        if (ch >= 0x20 && ch < 0x7f) {
            out += char(ch);
        } else {
            char hex[8];
            std::snprintf(hex, sizeof hex, "\\x%02x", ch);
            out += hex;
        }
    }
    return out;
}

} // namespace

double unix_time_to_mjd(uint64_t full_seconds, double fractional_seconds)
{
    // Whole days separately, so the fraction of the day keeps full precision.
    const uint64_t days = full_seconds / 86400u;
    const uint64_t second_of_day = full_seconds % 86400u;
    return mjd_of_unix_epoch + static_cast<double>(days) +
           (static_cast<double>(second_of_day) + fractional_seconds) / seconds_per_day;
}

void filterbank_config::validate() const
{
    // An embedded NUL would cut the path short in fopen (every beam into one
    // file); a separator would put files outside the directory.
    require(!directory.empty() && directory.find('\0') == std::string::npos,
            "directory must be a non-empty path without NUL characters");
    require(
        !prefix.empty() &&
            prefix.find_first_of(std::string("/\\\0", 3)) == std::string::npos,
        "prefix must be a non-empty file name prefix without '/', '\\' or NUL, got '" +
            printable(prefix) + "'");
    require(n_beams >= 1 && n_beams <= 65536,
            "n_beams must be in [1, 65536], got " + std::to_string(n_beams));
    require(n_channels >= 2 && n_channels <= (1u << 20),
            "n_channels must be in [2, 1048576] (foff needs two channels), got " +
                std::to_string(n_channels));
    require(n_stokes == 1 || n_stokes == 4,
            "n_stokes must be 1 (I or |b|^2) or 4 (IQUV), got " + std::to_string(n_stokes));

    require(channel_frequencies_hz.size() == n_channels,
            "channel_frequencies must have n_channels = " + std::to_string(n_channels) +
                " entries (Hz, input channel order), got " +
                std::to_string(channel_frequencies_hz.size()));
    for (double f : channel_frequencies_hz)
        require(std::isfinite(f), "channel_frequencies must be finite (Hz)");
    std::vector<double> sorted(channel_frequencies_hz);
    std::sort(sorted.begin(), sorted.end(), std::greater<double>());
    const double spacing = (sorted.front() - sorted.back()) / (n_channels - 1);
    require(spacing > 0, "channel_frequencies must be distinct (Hz)");
    // Highest - lowest can overflow (+-1e308): the header would get foff = -inf.
    require(std::isfinite(spacing),
            "channel_frequencies must span a finite range: highest - lowest = " +
                number_text(sorted.front()) + " - " + number_text(sorted.back()) +
                " Hz overflows");
    for (size_t k = 0; k + 1 < n_channels; ++k) {
        const double step = sorted[k] - sorted[k + 1];
        if (std::abs(step - spacing) > spacing_tolerance * spacing) {
            char detail[160];
            std::snprintf(detail,
                          sizeof detail,
                          "step %.9g Hz between %.9g and %.9g Hz, mean spacing %.9g Hz",
                          step,
                          sorted[k + 1],
                          sorted[k],
                          spacing);
            throw std::invalid_argument(
                "channel_frequencies must be uniformly spaced once sorted (relative "
                "tolerance 1e-6); " +
                std::string(detail));
        }
    }

    require(std::isfinite(tsamp_s) && tsamp_s > 0,
            "tsamp must be a positive number of seconds per item");
    require(source_name.size() <= sigproc_max_string,
            "source_name must have at most 80 characters (SIGPROC's limit), got " +
                std::to_string(source_name.size()));
    // SIGPROC readers (and read_filterbank) decode header strings as ASCII.
    for (unsigned char ch : source_name)
        require(ch >= 0x20 && ch < 0x7f,
                "source_name must be printable ASCII (SIGPROC header string), got '" +
                    printable(source_name) + "'");
    require(beam_az_el_deg.size() == 2 * n_beams,
            "beam_az_el must have 2 * n_beams = " + std::to_string(2 * n_beams) +
                " entries (azimuth, elevation in degrees per beam), got " +
                std::to_string(beam_az_el_deg.size()));
    for (size_t b = 0; b < n_beams; ++b) {
        const double az = beam_az_el_deg[2 * b], el = beam_az_el_deg[2 * b + 1];
        require(std::isfinite(az), "beam_az_el: azimuth of beam " + std::to_string(b) +
                                       " must be finite (degrees)");
        require(std::isfinite(el) && el >= -90.0 && el <= 90.0,
                "beam_az_el: elevation of beam " + std::to_string(b) +
                    " must be in [-90, 90] degrees");
    }
    require(telescope_id >= 0, "telescope_id must be >= 0 (SIGPROC id; 0 = Fake)");
    require(machine_id >= 0, "machine_id must be >= 0 (SIGPROC id; 0 = FAKE)");
    require(beam_ra_dec_deg.empty() || beam_ra_dec_deg.size() == 2 * n_beams,
            "beam_ra_dec must be empty or have 2 * n_beams = " + std::to_string(2 * n_beams) +
                " values (RA, Dec in degrees per beam), got " +
                std::to_string(beam_ra_dec_deg.size()));
    for (size_t b = 0; 2 * b < beam_ra_dec_deg.size(); b++) {
        const double ra = beam_ra_dec_deg[2 * b], dec = beam_ra_dec_deg[2 * b + 1];
        require(std::isfinite(ra) && ra >= 0.0 && ra < 360.0,
                "beam_ra_dec: right ascension of beam " + std::to_string(b) +
                    " must be in [0, 360) degrees, got " + number_text(ra));
        require(std::isfinite(dec) && dec >= -90.0 && dec <= 90.0,
                "beam_ra_dec: declination of beam " + std::to_string(b) +
                    " must be in [-90, 90] degrees, got " + number_text(dec));
    }
}

filterbank_writer::filterbank_writer(const filterbank_config& config) : d_config(config)
{
    d_config.validate();
    if (d_config.source_name.empty())
        d_config.source_name = "unknown"; // SIGPROC readers reject 0-length strings

    const auto& freqs = d_config.channel_frequencies_hz;
    d_channel_order.resize(d_config.n_channels);
    std::iota(d_channel_order.begin(), d_channel_order.end(), size_t{ 0 });
    std::stable_sort(d_channel_order.begin(),
                     d_channel_order.end(),
                     [&](size_t a, size_t b) { return freqs[a] > freqs[b]; });
    const double highest = freqs[d_channel_order.front()];
    const double lowest = freqs[d_channel_order.back()];
    d_fch1_mhz = highest * 1e-6;
    d_foff_mhz = -(highest - lowest) / (d_config.n_channels - 1) * 1e-6;

    for (size_t b = 0; b < d_config.n_beams; ++b)
        d_paths.push_back(
            (std::filesystem::path(d_config.directory) / beam_file_name(d_config.prefix, b))
                .string());

    std::error_code ec;
    std::filesystem::create_directories(d_config.directory, ec);
    if (ec)
        throw std::runtime_error("filterbank_sink: cannot create directory '" +
                                 d_config.directory + "': " + ec.message());
    claim_paths(); // before "wb" truncates another writer's files
    try {
        open_all("wb");
    } catch (...) {
        release_paths();
        throw;
    }
}

filterbank_writer::~filterbank_writer()
{
    try {
        close();
    } catch (...) {
        // A destructor must not throw; close() already tried every file.
    }
    release_paths();
}

void filterbank_writer::claim_paths()
{
    std::vector<std::string> keys;
    for (const auto& path : d_paths)
        keys.push_back(canonical_key(path));
    std::lock_guard<std::mutex> lock(g_claimed_mutex);
    for (size_t b = 0; b < keys.size(); ++b)
        if (g_claimed.count(keys[b]))
            throw std::runtime_error(
                "filterbank_sink: '" + d_paths[b] +
                "' is already written by another filterbank_sink in this process "
                "(same directory and prefix); give each sink its own prefix or "
                "directory");
    g_claimed.insert(keys.begin(), keys.end());
    d_claimed = std::move(keys);
}

void filterbank_writer::release_paths() noexcept
{
    std::lock_guard<std::mutex> lock(g_claimed_mutex);
    for (const auto& key : d_claimed)
        g_claimed.erase(key);
    d_claimed.clear();
}

void filterbank_writer::keep_complete_samples() noexcept
{
    d_failed = true;
    const uint64_t sample_bytes = d_config.sample_floats() * sizeof(float);
    // What reached each file: buffered data is dropped, so fclose adds nothing.
    uint64_t complete = d_headers_written ? d_items_written : 0;
    bool headers_complete = d_headers_written;
    for (std::FILE* f : d_files) {
        __fpurge(f);
        struct stat st {
        };
        if (fstat(fileno(f), &st) != 0 || uint64_t(st.st_size) < d_header_size) {
            headers_complete = false;
            continue;
        }
        complete =
            std::min<uint64_t>(complete, (st.st_size - d_header_size) / sample_bytes);
    }
    if (!headers_complete)
        complete = 0;
    // A file without its whole header is left empty, not half a header.
    const off_t end =
        headers_complete ? off_t(d_header_size + complete * sample_bytes) : 0;
    for (std::FILE* f : d_files) {
        if (ftruncate(fileno(f), end) == 0)
            fseeko(f, end, SEEK_SET);
    }
    d_items_written = complete;
}

void filterbank_writer::open_all(const char* mode)
{
    ensure_descriptor_limit(d_config.n_beams);
    std::vector<std::FILE*> files;
    files.reserve(d_paths.size());
    for (size_t b = 0; b < d_paths.size(); ++b) {
        std::FILE* f = std::fopen(d_paths[b].c_str(), mode);
        if (!f) {
            const int err = errno;
            for (std::FILE* opened : files)
                std::fclose(opened);
            fail("cannot open", b, err);
        }
        files.push_back(f);
    }
    d_files = std::move(files);
}

void filterbank_writer::fail(const std::string& what, size_t beam, int err) const
{
    throw std::runtime_error("filterbank_sink: " + what + " '" + d_paths[beam] +
                             "': " + std::strerror(err));
}

namespace {
//! Sexagesimal as SIGPROC packs it: a value of \p units (hours or degrees) as
//! aabbcc.c (units, minutes, seconds) in one double.
double sexagesimal_packed(double units)
{
    const double seconds = units * 3600.0;
    const double whole = std::floor(seconds / 3600.0);
    const double minutes = std::floor((seconds - 3600.0 * whole) / 60.0);
    const double rest = seconds - 3600.0 * whole - 60.0 * minutes;
    return whole * 10000.0 + minutes * 100.0 + rest;
}
} // namespace

double sigproc_raj(double ra_deg) { return sexagesimal_packed(ra_deg / 15.0); }

double sigproc_dej(double dec_deg)
{
    const double packed = sexagesimal_packed(std::fabs(dec_deg));
    return dec_deg < 0.0 ? -packed : packed;
}

std::vector<uint8_t> filterbank_writer::header_bytes(size_t beam, double tstart_mjd) const
{
    const double az = d_config.beam_az_el_deg[2 * beam];
    const double el = d_config.beam_az_el_deg[2 * beam + 1];
    const double az_0_360 = az - 360.0 * std::floor(az / 360.0);

    std::vector<uint8_t> h;
    put_string(h, "HEADER_START");
    put_keyword_int(h, "telescope_id", d_config.telescope_id);
    put_keyword_int(h, "machine_id", d_config.machine_id);
    put_keyword_int(h, "data_type", 1); // 1 = filterbank
    put_string(h, "source_name");
    put_string(h, d_config.source_name);
    if (!d_config.beam_ra_dec_deg.empty()) {
        put_keyword_double(h, "src_raj", sigproc_raj(d_config.beam_ra_dec_deg[2 * beam]));
        put_keyword_double(h, "src_dej", sigproc_dej(d_config.beam_ra_dec_deg[2 * beam + 1]));
    }
    put_keyword_double(h, "az_start", az_0_360);
    put_keyword_double(h, "za_start", 90.0 - el);
    put_keyword_double(h, "fch1", d_fch1_mhz);
    put_keyword_double(h, "foff", d_foff_mhz);
    put_keyword_int(h, "nchans", static_cast<int32_t>(d_config.n_channels));
    put_keyword_int(h, "nbeams", static_cast<int32_t>(d_config.n_beams));
    put_keyword_int(h, "ibeam", static_cast<int32_t>(beam));
    put_keyword_int(h, "nbits", 32);
    put_keyword_int(h, "nifs", static_cast<int32_t>(d_config.n_stokes));
    put_keyword_double(h, "tsamp", d_config.tsamp_s);
    put_keyword_double(h, "tstart", tstart_mjd);
    put_string(h, "HEADER_END");
    return h;
}

void filterbank_writer::write_headers(double tstart_mjd)
{
    if (d_headers_written)
        throw std::logic_error("filterbank_writer: headers are already written");
    if (!is_open())
        throw std::logic_error("filterbank_writer: files are closed");
    if (d_failed)
        throw std::logic_error(
            "filterbank_writer: a write failed; the files take no more");
    for (size_t b = 0; b < d_files.size(); ++b) {
        const auto h = header_bytes(b, tstart_mjd);
        d_header_size = h.size(); // the same for every beam
        if (std::fwrite(h.data(), 1, h.size(), d_files[b]) != h.size()) {
            const int err = errno;
            keep_complete_samples();
            fail("cannot write the header of", b, err);
        }
    }
    d_headers_written = true;
}

void filterbank_writer::write(const float* items, size_t n_items)
{
    if (!d_headers_written)
        throw std::logic_error("filterbank_writer: write_headers() must come first");
    if (!is_open())
        throw std::logic_error("filterbank_writer: files are closed");
    if (d_failed)
        throw std::logic_error(
            "filterbank_writer: a write failed; the files take no more");
    if (n_items == 0)
        return;
    const size_t n_beams = d_config.n_beams;
    const size_t n_stokes = d_config.n_stokes;
    const size_t n_chans = d_config.n_channels;
    const size_t sample = d_config.sample_floats();
    d_staging.resize(n_items * sample);
    const bool swap = host_is_big_endian();

    for (size_t b = 0; b < n_beams; ++b) {
        // [t][s][beams][chans] in -> [t][s][chans] out, channels descending.
        for (size_t t = 0; t < n_items; ++t)
            for (size_t s = 0; s < n_stokes; ++s) {
                const float* row = items + ((t * n_stokes + s) * n_beams + b) * n_chans;
                float* out = d_staging.data() + (t * n_stokes + s) * n_chans;
                for (size_t k = 0; k < n_chans; ++k)
                    out[k] = row[d_channel_order[k]];
            }
        if (swap)
            for (float& v : d_staging) {
                uint32_t bits;
                std::memcpy(&bits, &v, 4);
                bits = __builtin_bswap32(bits);
                std::memcpy(&v, &bits, 4);
            }
        if (std::fwrite(d_staging.data(), sizeof(float), d_staging.size(), d_files[b]) !=
            d_staging.size()) {
            const int err = errno;
            keep_complete_samples();
            fail("cannot write samples to", b, err);
        }
    }
    d_items_written += n_items;
}

void filterbank_writer::close()
{
    if (d_files.empty())
        return;
    // Flush first: if data cannot reach a file, cut every file after its last
    // complete sample before closing.
    size_t first_failed = d_files.size();
    int first_errno = 0;
    for (size_t b = 0; b < d_files.size(); ++b)
        if (std::fflush(d_files[b]) != 0 && first_failed == d_files.size()) {
            first_failed = b;
            first_errno = errno;
        }
    if (first_failed != d_files.size())
        keep_complete_samples();
    std::vector<std::FILE*> files;
    files.swap(d_files);
    for (size_t b = 0; b < files.size(); ++b)
        if (std::fclose(files[b]) != 0 && first_failed == files.size()) {
            first_failed = b;
            first_errno = errno;
        }
    if (first_failed != files.size())
        fail("cannot flush and close", first_failed, first_errno);
}

void filterbank_writer::reopen()
{
    if (is_open())
        return;
    open_all("ab");
}

} // namespace beamform
} // namespace gr
