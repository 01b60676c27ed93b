/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_BEAMFORM_FILTERBANK_SINK_H
#define INCLUDED_BEAMFORM_FILTERBANK_SINK_H

#include <gnuradio/beamform/api.h>
#include <gnuradio/sync_block.h>
#include <cstdint>
#include <string>
#include <vector>

namespace gr {
namespace beamform {

/*!
 * \brief Writes beam powers to SIGPROC filterbank files, one file per beam.
 * \ingroup beamform
 *
 * Input item: float32 [n_stokes][n_beams][n_channels] (C order), the tensor
 * beamformer's power output; n_stokes is 1 (Stokes I or |b|^2) or 4 (IQUV).
 * This is a host block: it reads host buffers. A tensor beamformer on a GPU
 * feeding it copies its (small, integrated) power output to the host through
 * its device_buffer; no device parameter is needed here.
 *
 * Files: <directory>/<prefix>_beam<NNNN>.fil, NNNN = beam index 0000, 0001,
 * ... The directory is created if missing. Files are created (truncated) when
 * the block is made, so an unusable path fails at once (std::runtime_error
 * with the path and the system's reason). Each holds a SIGPROC header
 * (little-endian) and float32 samples [time][nifs][nchans], channels in
 * descending frequency: fch1 = highest channel frequency (MHz), foff =
 * -spacing (MHz). Header keywords: telescope_id, machine_id, data_type = 1,
 * source_name, src_raj / src_dej (hhmmss.s / ddmmss.s, only with
 * beam_ra_dec), az_start, za_start (= 90 - elevation) in degrees, fch1, foff,
 * nchans, nbeams, ibeam (= beam index, 0-based like the file name), nbits =
 * 32, nifs = n_stokes, tsamp (s), tstart (MJD).
 *
 * tstart: if an rx_time tag (pmt tuple (uint64 full seconds, double
 * fractional seconds) since the Unix epoch, GNU Radio's convention) sits on
 * the first item, tstart = 40587 + t / 86400; otherwise tstart = the
 * tstart_mjd parameter. The header is written when the first item arrives
 * (or at stop() if none did); rx_time tags on later items are logged as
 * warnings and ignored (they mark a time jump such as an overflow, which the
 * SIGPROC format cannot express). Other tags are ignored.
 *
 * stop() and the destructor flush and close the files; starting the
 * flowgraph again appends to them (the header stays as written). Write
 * errors are std::runtime_error; nothing is dropped: items_written() counts
 * the time samples in each file.
 *
 * One file descriptor per beam is held open; where the soft limit on open
 * files is too low for n_beams, it is raised up to the hard limit.
 */
class BEAMFORM_API filterbank_sink : virtual public gr::sync_block
{
public:
    typedef std::shared_ptr<filterbank_sink> sptr;

    /*!
     * \param directory where the files go (created if missing)
     * \param prefix file name prefix, no '/'
     * \param n_beams beams per item, [1, 65536]
     * \param n_channels channels per item, [2, 1048576]
     * \param n_stokes 1 or 4 (the nifs of the files)
     * \param channel_frequencies sky frequency (Hz) of each input channel, in
     *        the input's channel order (e.g. the channelizer's: 0 = DC, then
     *        positive, then negative); uniformly spaced once sorted
     * \param tsamp seconds per input item (> 0)
     * \param source_name up to 80 characters; empty is written as "unknown"
     * \param beam_az_el 2 * n_beams values: azimuth (deg, from north through
     *        east) and elevation (deg, [-90, 90]) of each beam
     * \param tstart_mjd start time (MJD) used when no rx_time tag is on the
     *        first item
     * \param telescope_id SIGPROC telescope id; 0 = "Fake" (none registered)
     * \param machine_id SIGPROC backend id; 0 = "FAKE" (none registered)
     * \param beam_ra_dec empty, or 2 * n_beams values: right ascension (deg,
     *        [0, 360)) and declination (deg, [-90, 90]) of each beam (a tracked
     *        beam's ICRS position), written as src_raj / src_dej; empty: the
     *        headers have no src_raj / src_dej (beams fixed on the ground)
     */
    static sptr make(const std::string& directory,
                     const std::string& prefix,
                     int n_beams,
                     int n_channels,
                     int n_stokes,
                     const std::vector<double>& channel_frequencies,
                     double tsamp,
                     const std::string& source_name,
                     const std::vector<double>& beam_az_el,
                     double tstart_mjd = 0.0,
                     int telescope_id = 0,
                     int machine_id = 0,
                     const std::vector<double>& beam_ra_dec = {});

    //! The file of each beam.
    virtual std::vector<std::string> file_paths() const = 0;
    //! Time samples (input items) written to each file so far.
    virtual uint64_t items_written() const = 0;
    //! tstart written to the headers (the parameter until the header is written).
    virtual double tstart_mjd() const = 0;
    //! True once the headers are written with tstart from an rx_time tag.
    virtual bool tstart_from_rx_time() const = 0;
    //! Highest channel frequency (MHz), the files' fch1.
    virtual double fch1_mhz() const = 0;
    //! Channel step (MHz, negative), the files' foff.
    virtual double foff_mhz() const = 0;
    //! Input channel index of each file channel (descending frequency).
    virtual std::vector<int> channel_order() const = 0;
    /*!
     * Empty while all is well; after a write error (disk full, file size
     * limit), the error. The block then ends the flowgraph (WORK_DONE) and the
     * files end at the last sample complete in all of them (items_written()).
     * Applications check it after top_block.run() / wait().
     */
    virtual std::string error() const = 0;
};

} // namespace beamform
} // namespace gr

#endif
