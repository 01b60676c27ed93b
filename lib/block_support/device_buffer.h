/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_BEAMFORM_RUNTIME_DEVICE_BUFFER_H
#define INCLUDED_BEAMFORM_RUNTIME_DEVICE_BUFFER_H

#include "gpu_trace.h"
#include <gnuradio/beamform/device_block_info.h>
#include <gnuradio/beamform/runtime/gpu_memory.h>
#include <gnuradio/buffer_single_mapped.h>
#include <gnuradio/buffer_type.h>
#include <atomic>
#include <deque>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

namespace gr {
namespace beamform {

class device_block;

/*!
 * \brief GNU Radio custom buffer that keeps stream items in GPU memory.
 *
 * A beamform block that runs on a GPU declares this buffer type in its input
 * and output signatures. The runtime then picks a transfer type per edge:
 *  - GPU block -> GPU block (DEVICE_TO_DEVICE): both read and write device
 *    memory; nothing is copied. The blocks order their streams on each other's
 *    work_done events (device_block::wait_for_neighbours); the host does not
 *    wait for the edge.
 *  - host block -> GPU block (HOST_TO_DEVICE): the host block writes into pinned
 *    host memory and post_work() enqueues the copy to the device on the
 *    buffer's copy stream and returns at once; the GPU reader's stream waits
 *    for the copies before its kernels (make_wait_for_copies). Before
 *    the host block writes again (write_pointer()), the host waits only for
 *    copies still reading the pinned range it is about to write, so the host
 *    fills the next range while earlier copies run.
 *  - GPU block -> host block (DEVICE_TO_HOST): post_work() enqueues the copy of
 *    the new items into pinned host memory on the buffer's copy stream, after
 *    the writer's work that filled them, and returns at once: the copy overlaps
 *    the writer's next work. The host reader waits for the copies when it asks
 *    for its read pointer (GNU Radio does that after counting the items it may
 *    read, so every copy it waits for was enqueued before).
 * Each buffer counts the bytes it copied in each direction.
 *
 * GNU Radio 3.10.5.1 (Debian bookworm) workarounds, harmless on later 3.10:
 *  - The base class keeps a shared_ptr to the owning block, and the block keeps
 *    its buffers, so buffers were never destroyed and device memory leaked at
 *    every flowgraph teardown. This buffer drops that reference after
 *    construction (the base class only stores it), so it is destroyed with the
 *    flowgraph and frees its memory.
 *  - One host output feeding several GPU blocks makes the runtime replace the
 *    host buffer once per reader, leaving all but the last reader on an orphaned
 *    buffer: the flowgraph hangs. The buffer factory detects the second
 *    replacement and throws, so top_block.start() fails with a message instead.
 *    So does a host output read by a host block and a GPU block when the host
 *    reader was attached first (the host reader would be orphaned). When the
 *    GPU reader comes first, GNU Radio itself throws "Cannot change to transfer
 *    type". The fix: a host blocks.copy in front of the GPU reader (host output
 *    read by both), or a GPU beamform.convert in front of the host reader (GPU
 *    output read by both).
 */
class device_buffer : public gr::buffer_single_mapped
{
public:
    //! One buffer type per backend, so that GNU Radio refuses to connect a CUDA
    //! block directly to a HIP block.
    static gr::buffer_type cuda_type;
    static gr::buffer_type hip_type;
    static gr::buffer_type emu_type;
    static gr::buffer_type type_for(backend kind);

    static gr::buffer_sptr make_buffer(int nitems,
                                       size_t sizeof_item,
                                       uint64_t downstream_lcm_nitems,
                                       uint32_t downstream_max_out_mult,
                                       gr::block_sptr link,
                                       gr::block_sptr buf_owner);

    ~device_buffer() override;

    copy_stats stats() const
    {
        return copy_stats{ d_h2d_bytes.load(), d_d2h_bytes.load() };
    }
    const device_spec& device() const { return d_device; }
    //! Number of device_buffer objects alive in the process (leak tests).
    static long live_count();

    void post_work(int nitems) override;
    void* write_pointer() override;
    const void* _read_pointer(unsigned int read_index) override;
    bool input_blocked_callback(int items_required,
                                int items_avail,
                                unsigned read_index) override;
    bool output_blocked_callback(int output_multiple, bool force) override;
    void update_reader_block_history(unsigned history, int delay) override;

    //! Host -> GPU: work enqueued on \p s from now on runs after the copies
    //! of the items before item \p end (counted from the flowgraph's start):
    //! the GPU reader's stream, before the kernels of a call that reads them.
    void make_wait_for_copies(stream_handle s, uint64_t end);
    //! GPU -> host: a copy to the host failed (its reader logged it and ended);
    //! the GPU writer ends at its next work call.
    bool copy_failed() const { return d_copy_failed; }
    //! Test hook: after \p reads more host reads of any GPU -> host buffer, the
    //! next one fails as a failed copy would (a negative count: never).
    static void inject_device_to_host_failure_after(long reads);

protected:
    bool do_allocate_buffer(size_t final_nitems, size_t sizeof_item) override;

private:
    device_buffer(int nitems,
                  size_t sizeof_item,
                  uint64_t downstream_lcm_nitems,
                  uint32_t downstream_max_out_mult,
                  gr::block_sptr link,
                  gr::block_sptr buf_owner);

    char* device_base() const { return d_device_mem.as<char>(); }
    char* host_base();
    //! memmove inside device memory (the runtime has no overlapping copy).
    void* device_memmove(void* dst, const void* src, size_t bytes);
    //! A host <-> GPU copy on \p s (traced with BEAMFORM_GPU_TRACE).
    void copy_on(const gpu_stream& s, void* dst, const void* src, size_t bytes, copy_kind kind);
    //! Records that a copy of items [first, first + n) of the ring, items
    //! [items_end - n, items_end) of the stream, was just enqueued on \p s (an
    //! event from a pool, for wait_for_copies_from and make_wait_for_copies).
    void note_copy_in_flight(size_t first, size_t n, uint64_t items_end, const gpu_stream& s);
    //! The stream host <-> GPU copies run on (made on first use), so that they
    //! overlap the GPU block's kernels.
    gpu_stream& copy_stream();
    //! GPU -> host: the host reader waits for every copy enqueued so far.
    void wait_for_device_to_host_copies();
    //! The host waits until nothing on the GPU uses this buffer any more:
    //! before items are moved inside it.
    void wait_until_idle();
    //! The host waits for the copies of items [first, d_bufsize) still running
    //! (host -> GPU: where the host writer writes next; 0: all of them).
    void wait_for_copies_from(size_t first);

    static void refuse_unsupported_replacement(const gr::block_sptr& writer,
                                               const gr::block_sptr& gpu_reader,
                                               int nitems,
                                               size_t sizeof_item,
                                               uint64_t downstream_lcm_nitems);
    void end_orphaned_buffers();

    const gpu_api* d_api;
    device_spec d_device;
    std::shared_ptr<gpu_stream> d_stream; // the owning GPU block's stream
    std::shared_ptr<gpu_trace> d_trace;   // the owning GPU block's trace
    std::string d_owner_alias;
    bool d_replaced_host_output; // a host block's output replaced for a GPU reader
    int d_link_port = -1;        // output port of the writer that holds this buffer

    device_memory d_device_mem;
    device_memory d_scratch;  // staging for overlapping device moves, made on first use
    pinned_memory d_host_mem; // the host side of host <-> GPU edges, made on first use
    std::once_flag d_host_once;
    std::unique_ptr<gpu_stream> d_copy_stream; // host <-> GPU copies, made on first use
    std::unique_ptr<gpu_event> d_written;      // the writer's work before a copy
    //! Copies enqueued and maybe still running, oldest first: the items each
    //! moves and an event recorded after it.
    struct copy_in_flight {
        size_t first, end;  // in the ring
        uint64_t items_end; // in the stream (nitems_written after it)
        std::unique_ptr<gpu_event> done;
    };
    std::mutex d_copies_mutex;
    std::deque<copy_in_flight> d_copies;
    std::vector<std::unique_ptr<gpu_event>> d_spare_events;
    std::atomic<uint64_t> d_h2d_bytes{ 0 };
    std::atomic<uint64_t> d_d2h_bytes{ 0 };
    std::atomic<bool> d_copy_failed{ false };
};

} // namespace beamform
} // namespace gr

#endif
