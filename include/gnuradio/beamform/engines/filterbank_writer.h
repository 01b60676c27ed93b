/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_BEAMFORM_ENGINES_FILTERBANK_WRITER_H
#define INCLUDED_BEAMFORM_ENGINES_FILTERBANK_WRITER_H

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace gr {
namespace beamform {

/*!
 * What the SIGPROC filterbank files of one beamformer output describe.
 *
 * Input item (host memory, C order): float32 [n_stokes][n_beams][n_channels],
 * the tensor beamformer's power output. channel_frequencies_hz gives the sky
 * frequency of each input channel in the input's order (for example the
 * channelizer's: 0 = DC, then positive, then negative offsets); they must be
 * uniformly spaced once sorted. beam_az_el_deg holds (azimuth, elevation) in
 * degrees for each beam: azimuth from north through east, elevation above the
 * horizon.
 */
struct filterbank_config {
    std::string directory;
    std::string prefix;
    size_t n_beams = 1;
    size_t n_channels = 2;
    size_t n_stokes = 1;
    std::vector<double> channel_frequencies_hz;
    double tsamp_s = 1.0;
    std::string source_name;
    std::vector<double> beam_az_el_deg;
    //! Empty, or RA and Dec (deg) of each beam, written as src_raj / src_dej.
    std::vector<double> beam_ra_dec_deg;
    int telescope_id = 0; //!< 0 = "Fake" in SIGPROC's table (no registered telescope)
    int machine_id = 0;   //!< 0 = "FAKE" in SIGPROC's table (no registered backend)

    //! std::invalid_argument naming the parameter and its accepted range.
    void validate() const;

    size_t item_floats() const { return n_stokes * n_beams * n_channels; }
    //! Floats of one time sample in one beam's file: [n_stokes][n_channels].
    size_t sample_floats() const { return n_stokes * n_channels; }
};

//! SIGPROC keeps strings in 80-character buffers; longer ones are refused.
constexpr size_t sigproc_max_string = 80;

//! SIGPROC's src_raj (hhmmss.s) of a right ascension in degrees, [0, 360).
double sigproc_raj(double ra_deg);
//! SIGPROC's src_dej (+-ddmmss.s) of a declination in degrees, [-90, 90].
double sigproc_dej(double dec_deg);

//! MJD of a Unix time given as whole and fractional seconds (rx_time's form).
double unix_time_to_mjd(uint64_t full_seconds, double fractional_seconds);

/*!
 * \brief Writes one SIGPROC filterbank file per beam: header, then float32
 * samples [time][nifs = n_stokes][nchans], channels in descending frequency
 * (fch1 = highest channel, foff < 0).
 *
 * No GNU Radio types: the filterbank_sink block drives it, and programs
 * without a flowgraph can use it directly. Files are created (truncated) in
 * the constructor so that a bad path fails at once; the header is written
 * once by write_headers() (tstart is known only when the first item arrives);
 * write() appends samples. Every I/O failure is a std::runtime_error naming
 * the path and the system's reason; nothing is dropped silently. After a
 * write error every file is cut after the last sample complete in all of them
 * (items_written()), so the header describes what the file holds; the writer
 * then refuses further writes (failed()).
 *
 * Within one process, two writers may not hold the same files (same directory
 * and prefix): the second one's constructor throws std::runtime_error instead
 * of truncating and interleaving into the first one's files.
 */
class filterbank_writer
{
public:
    explicit filterbank_writer(const filterbank_config& config);
    ~filterbank_writer();
    filterbank_writer(const filterbank_writer&) = delete;
    filterbank_writer& operator=(const filterbank_writer&) = delete;

    //! Write the header of every file; once only (std::logic_error otherwise).
    void write_headers(double tstart_mjd);
    bool headers_written() const { return d_headers_written; }

    //! Append \p n_items input items (host memory). Headers must be written.
    void write(const float* items, size_t n_items);

    //! Flush and close all files (idempotent). Errors are std::runtime_error.
    void close();
    //! Reopen closed files for appending (after close(), e.g. a restarted flowgraph).
    void reopen();
    bool is_open() const { return !d_files.empty(); }

    //! The SIGPROC header of \p beam's file, as written.
    std::vector<uint8_t> header_bytes(size_t beam, double tstart_mjd) const;

    const filterbank_config& config() const { return d_config; }
    const std::vector<std::string>& paths() const { return d_paths; }
    //! Time samples written to each file so far.
    uint64_t items_written() const { return d_items_written; }
    double fch1_mhz() const { return d_fch1_mhz; }
    double foff_mhz() const { return d_foff_mhz; }
    //! Input channel index of each file channel (descending frequency).
    const std::vector<size_t>& channel_order() const { return d_channel_order; }
    //! True after a write error: the files end at the last complete sample.
    bool failed() const { return d_failed; }

private:
    void open_all(const char* mode);
    //! After a failed write: drop buffered data, cut all files after the last
    //! sample complete in every file, and count only those samples.
    void keep_complete_samples() noexcept;
    void claim_paths();
    void release_paths() noexcept;
    [[noreturn]] void fail(const std::string& what, size_t beam, int err) const;

    filterbank_config d_config;
    std::vector<std::string> d_paths;
    std::vector<std::FILE*> d_files;
    std::vector<size_t> d_channel_order;
    std::vector<float> d_staging; // one beam's samples of a write() call
    double d_fch1_mhz = 0.0;
    double d_foff_mhz = 0.0;
    size_t d_header_size = 0;           // bytes of each file's header
    std::vector<std::string> d_claimed; // canonical paths held by this writer
    bool d_headers_written = false;
    bool d_failed = false;
    uint64_t d_items_written = 0;
};

} // namespace beamform
} // namespace gr

#endif
