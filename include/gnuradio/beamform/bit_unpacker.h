/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_BEAMFORM_BIT_UNPACKER_H
#define INCLUDED_BEAMFORM_BIT_UNPACKER_H

#include <gnuradio/beamform/api.h>
#include <gnuradio/beamform/device_block_info.h>
#include <gnuradio/sync_block.h>

namespace gr {
namespace beamform {

/*!
 * \brief The 1-bit stream back to +-1 +-1j spectra (for checking).
 * \ingroup beamform
 *
 * Input item: [n_channels][2][words] uint32 (bit_packer's layout). Output
 * item: [n_channels][n_receivers] gr_complex with parts +1 (bit set) or -1
 * (bit clear). Padding bits are ignored. Tags pass through unchanged.
 */
class BEAMFORM_API bit_unpacker : virtual public gr::sync_block,
                                  virtual public device_block_info
{
public:
    typedef std::shared_ptr<bit_unpacker> sptr;

    /*!
     * \param n_channels  channels per item, >= 1
     * \param n_receivers receivers per channel, >= 1
     * \param device      "auto", "cpu", "cuda:N", "hip:N" (or "emu:N" for tests)
     */
    static sptr make(int n_channels, int n_receivers, const std::string& device = "auto");

    //! uint32 words in one input item: n_channels * 2 * ceil(n_receivers / 32).
    virtual size_t packed_item_words() const = 0;
};

} // namespace beamform
} // namespace gr

#endif
