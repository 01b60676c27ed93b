/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_BEAMFORM_BIT_PACKER_H
#define INCLUDED_BEAMFORM_BIT_PACKER_H

#include <gnuradio/beamform/api.h>
#include <gnuradio/beamform/device_block_info.h>
#include <gnuradio/sync_block.h>

namespace gr {
namespace beamform {

/*!
 * \brief Spectra to the 1-bit stream of tensor_beamformer's int1 mode.
 * \ingroup beamform
 *
 * Input item: [n_channels][n_receivers] gr_complex. Output item:
 * [n_channels][2][words] uint32, words = ceil(n_receivers / 32): word w of
 * part 0 holds the real-part signs of receivers 32w..32w+31 (receiver 32w+k
 * in bit k), part 1 the imaginary parts. Bit set <=> value >= 0 (+1), clear
 * <=> value < 0 or NaN (-1). Padding bits past the last receiver are 0.
 * Tags pass through unchanged (rate 1).
 */
class BEAMFORM_API bit_packer : virtual public gr::sync_block,
                                virtual public device_block_info
{
public:
    typedef std::shared_ptr<bit_packer> sptr;

    /*!
     * \param n_channels  channels per item, >= 1
     * \param n_receivers receivers per channel, >= 1
     * \param device      "auto", "cpu", "cuda:N", "hip:N" (or "emu:N" for tests)
     */
    static sptr make(int n_channels, int n_receivers, const std::string& device = "auto");

    //! uint32 words in one output item: n_channels * 2 * ceil(n_receivers / 32).
    virtual size_t packed_item_words() const = 0;
};

} // namespace beamform
} // namespace gr

#endif
