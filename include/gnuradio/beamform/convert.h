/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_BEAMFORM_CONVERT_H
#define INCLUDED_BEAMFORM_CONVERT_H

#include <gnuradio/beamform/api.h>
#include <gnuradio/beamform/device_block_info.h>
#include <gnuradio/beamform/engines/sample_format.h>
#include <gnuradio/sync_block.h>

namespace gr {
namespace beamform {

/*!
 * \brief Raw array samples to fc32, with a scale factor per receiver.
 * \ingroup beamform
 *
 * Input item: [n_receivers] complex samples of \p input_format (sc8, sc16:
 * interleaved integer I/Q; fc32: gr_complex). Output item: [n_receivers]
 * gr_complex, out[r] = scale[r] * in[r]. Tags pass through unchanged (rate 1).
 *
 * On a GPU the output stays in GPU memory for the next beamform block; a host
 * input is copied to the GPU once, asynchronously. Output buffers are sized to
 * hold at least 64 MiB so that one work call carries enough work for a GPU.
 */
class BEAMFORM_API convert : virtual public gr::sync_block,
                             virtual public device_block_info
{
public:
    typedef std::shared_ptr<convert> sptr;

    /*!
     * \param input_format sample format of the input (sc8, sc16, fc32)
     * \param n_receivers receivers per item, >= 1
     * \param scale one factor for all receivers, or one per receiver;
     *              empty means 1
     * \param device "auto", "cpu", "cuda:N", "hip:N" (or "emu:N" for tests)
     */
    static sptr make(sample_format input_format,
                     int n_receivers,
                     const std::vector<float>& scale = {},
                     const std::string& device = "auto");

    //! Scale factors in use, one per receiver.
    virtual std::vector<float> scale() const = 0;
};

} // namespace beamform
} // namespace gr

#endif
