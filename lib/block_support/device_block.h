/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_BEAMFORM_RUNTIME_DEVICE_BLOCK_H
#define INCLUDED_BEAMFORM_RUNTIME_DEVICE_BLOCK_H

#include <gnuradio/beamform/device_block_info.h>
#include <gnuradio/beamform/runtime/gpu_memory.h>
#include <gnuradio/beamform/runtime/device.h>
#include <gnuradio/block.h>
#include <gnuradio/io_signature.h>
#include <memory>

namespace gr {
namespace beamform {

/*!
 * \brief What a beamform block adds to gr::block to run on a GPU: its device,
 * its stream, the io_signature with the right buffer type, and the copy
 * counters of the buffers on its ports.
 *
 * Usage in a block implementation:
 *   my_impl(const device_spec& dev, ...)
 *     : gr::sync_block("my", device_block::signature(1, 1, in_size, dev),
 *                      device_block::signature(1, 1, out_size, dev)),
 *       device_block(dev) {}
 *   work(): engine->execute(in, out, n, stream()); finish_work();
 */
class device_block : public virtual device_block_info
{
public:
    //! An io_signature whose buffers live on \p dev (plain host buffers for cpu).
    static gr::io_signature::sptr
    signature(int min_streams, int max_streams, size_t item_size, const device_spec& dev);

    const device_spec& placement() const { return d_device; }
    std::string device() const override { return d_device.name(); }
    stream_handle stream() const { return d_stream ? d_stream->get() : nullptr; }
    const std::shared_ptr<gpu_stream>& shared_stream() const { return d_stream; }

    copy_stats input_copy_stats(int port = 0) const override;
    copy_stats output_copy_stats(int port = 0) const override;

protected:
    explicit device_block(const device_spec& dev);

    /*!
     * Every work() on a GPU ends here: the stream is synchronized so that the
     * items it produced are complete before the scheduler hands them to the
     * next block, which uses another stream.
     */
    void finish_work() const
    {
        if (d_stream)
            d_stream->synchronize();
    }

private:
    const gr::block& as_block() const;
    device_spec d_device;
    std::shared_ptr<gpu_stream> d_stream;
};

} // namespace beamform
} // namespace gr

#endif
