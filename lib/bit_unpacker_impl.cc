/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "bit_packing_impl.h"

namespace gr {
namespace beamform {

bit_unpacker::sptr
bit_unpacker::make(int n_channels, int n_receivers, const std::string& device)
{
    const auto config = checked_bit_packing_config(n_channels, n_receivers);
    return gnuradio::make_block_sptr<bit_unpacker_impl>(
        "bit_unpacker", config, select_device(device));
}

} // namespace beamform
} // namespace gr
