/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "block_params.h"
#include "device_block.h"
#include "device_buffer.h"
#include <gnuradio/block.h>
#include <gnuradio/block_detail.h>
#include <gnuradio/buffer_reader.h>
#include <algorithm>
#include <mutex>
#include <set>
#include <sstream>
#include <stdexcept>

namespace gr {
namespace beamform {

namespace {
// Distinct C++ types give distinct buffer type names, one per backend.
struct cuda_device_buffer {
};
struct hip_device_buffer {
};
struct emu_device_buffer {
};

// Live device_buffers, for the fan-out check and the leak tests.
std::mutex g_registry_mutex;
std::set<device_buffer*> g_registry;
} // namespace

gr::buffer_type
    device_buffer::cuda_type(gr::buftype<cuda_device_buffer, device_buffer>{});
gr::buffer_type device_buffer::hip_type(gr::buftype<hip_device_buffer, device_buffer>{});
gr::buffer_type device_buffer::emu_type(gr::buftype<emu_device_buffer, device_buffer>{});

gr::buffer_type device_buffer::type_for(backend kind)
{
    switch (kind) {
    case backend::cuda:
        return cuda_type;
    case backend::hip:
        return hip_type;
    case backend::emu:
        return emu_type;
    default:
        throw std::logic_error("device_buffer: the cpu backend uses host buffers");
    }
}

gr::buffer_sptr device_buffer::make_buffer(int nitems,
                                           size_t sizeof_item,
                                           uint64_t downstream_lcm_nitems,
                                           uint32_t downstream_max_out_mult,
                                           gr::block_sptr link,
                                           gr::block_sptr buf_owner)
{
    if (link != buf_owner)
        refuse_unsupported_replacement(
            link, buf_owner, nitems, sizeof_item, downstream_lcm_nitems);
    return gr::buffer_sptr(new device_buffer(nitems,
                                             sizeof_item,
                                             downstream_lcm_nitems,
                                             downstream_max_out_mult,
                                             link,
                                             buf_owner));
}

device_buffer::device_buffer(int nitems,
                             size_t sizeof_item,
                             uint64_t downstream_lcm_nitems,
                             uint32_t downstream_max_out_mult,
                             gr::block_sptr link,
                             gr::block_sptr buf_owner)
    : gr::buffer_single_mapped(nitems,
                               sizeof_item,
                               downstream_lcm_nitems,
                               downstream_max_out_mult,
                               link,
                               buf_owner),
      d_replaced_host_output(link != buf_owner)
{
    gr::configure_default_loggers(d_logger, d_debug_logger, "beamform_device_buffer");
    auto* owner = dynamic_cast<device_block*>(buf_owner.get());
    if (!owner || !owner->placement().uses_device_buffers())
        throw std::logic_error("device_buffer owned by a block that is not on a GPU: " +
                               buf_owner->alias());
    d_device = owner->placement();
    d_api = &gpu_api_for(d_device.kind);
    d_stream = owner->shared_stream();
    d_trace = owner->trace();
    d_owner_alias = buf_owner->alias();

    // A host block feeding a GPU block gets the same room as a GPU block's own
    // output (GNU Radio sized it for host work calls: often only a few items),
    // so that each copy and each kernel launch carries enough data.
    if (d_replaced_host_output) {
        nitems = std::max<int>(nitems, static_cast<int>(gpu_buffer_items(sizeof_item, d_device)));
        // GNU Radio capped the host writer's work calls at the items of the
        // default host buffer it made first (2 x 32 KiB: 170 items of 96 sc16
        // receivers), which would cut the input into as many small copies.
        // Lift that cap (a user's own, different setting is kept) to half the
        // new buffer: the writer fills one half while the other is copied.
        const int gnuradio_default_cap = std::max<int>(1, int((64 << 10) / sizeof_item));
        if (link->max_noutput_items() == gnuradio_default_cap)
            link->set_max_noutput_items(nitems / 2);
    }
    if (!allocate_buffer(nitems))
        throw std::bad_alloc();

    // Break the block -> detail -> buffer -> block cycle of GNU Radio <= 3.10.12
    // (the base class only stores this pointer).
    d_buf_owner.reset();

    std::lock_guard<std::mutex> lock(g_registry_mutex);
    g_registry.insert(this);
}

device_buffer::~device_buffer()
{
    // Copies still running write or read pinned memory freed below.
    try {
        wait_for_copies_from(0);
    } catch (...) {
        // Already reported by the reader or the block that met the error.
    }
    std::lock_guard<std::mutex> lock(g_registry_mutex);
    g_registry.erase(this);
}

long device_buffer::live_count()
{
    std::lock_guard<std::mutex> lock(g_registry_mutex);
    return static_cast<long>(g_registry.size());
}

bool device_buffer::do_allocate_buffer(size_t final_nitems, size_t sizeof_item)
{
    const size_t bytes = final_nitems * sizeof_item;
    d_device_mem = device_memory(d_device, bytes);
    // The runtime reads d_base only through the pointer functions overridden here.
    d_base = device_base();
    return true;
}

char* device_buffer::host_base()
{
    // Only host <-> GPU edges need the pinned side; GPU -> GPU edges never pay for it.
    std::call_once(d_host_once, [this] {
        d_host_mem = pinned_memory(d_device.kind, d_device_mem.size());
    });
    return d_host_mem.as<char>();
}

void* device_buffer::write_pointer()
{
    const size_t offset = static_cast<size_t>(d_write_index) * d_sizeof_item;
    // A single-mapped buffer is written forward from the write index, up to
    // the end (it never wraps inside one work call).
    if (d_transfer_type == gr::transfer_type::HOST_TO_DEVICE)
        wait_for_copies_from(d_write_index);
    // A host writer fills the pinned side; a GPU writer writes device memory.
    return (d_transfer_type == gr::transfer_type::HOST_TO_DEVICE ? host_base()
                                                                 : device_base()) +
           offset;
}

const void* device_buffer::_read_pointer(unsigned int read_index)
{
    const size_t offset = static_cast<size_t>(read_index) * d_sizeof_item;
    // GNU Radio asks for the read pointer after counting the items available,
    // and every published item's copy was enqueued before it was published:
    // waiting for every copy enqueued so far covers the items this call reads.
    if (d_transfer_type == gr::transfer_type::DEVICE_TO_HOST)
        wait_for_device_to_host_copies();
    return (d_transfer_type == gr::transfer_type::DEVICE_TO_HOST ? host_base()
                                                                 : device_base()) +
           offset;
}

void device_buffer::post_work(int nitems)
{
    if (nitems <= 0)
        return;
    // The write index has not advanced yet: [d_write_index, +nitems) is new.
    const size_t offset = static_cast<size_t>(d_write_index) * d_sizeof_item;
    const size_t bytes = static_cast<size_t>(nitems) * d_sizeof_item;
    // Items written to this buffer since the start, these included.
    const uint64_t end = nitems_written() + uint64_t(nitems);
    switch (d_transfer_type) {
    case gr::transfer_type::HOST_TO_DEVICE: {
        // On the buffer's copy stream, so that the copy runs on the copy
        // engine while the GPU reader's kernels run; the reader's stream
        // waits for it (make_wait_for_copies).
        gpu_stream& copies = copy_stream();
        // The slots it fills held items bufsize older: the reader's kernels
        // must have read them first (a ring, as in wait_for_neighbours).
        if (end > d_bufsize)
            device_block::wait_for_readers(*this, end - d_bufsize, copies.get());
        copy_on(copies,
                device_base() + offset,
                host_base() + offset,
                bytes,
                copy_kind::host_to_device);
        note_copy_in_flight(d_write_index, static_cast<size_t>(nitems), end, copies);
        d_h2d_bytes += bytes;
        break;
    }
    case gr::transfer_type::DEVICE_TO_HOST: {
        // Published at once, copied in the background: the copy runs on the
        // buffer's copy stream after the writer's work that filled the items,
        // so the writer's next kernels overlap it; the host reader waits for
        // it in _read_pointer(), where it must see the data.
        gpu_stream& copies = copy_stream();
        d_written->record(d_stream->get());
        d_written->make_wait(copies.get());
        copy_on(copies,
                host_base() + offset,
                device_base() + offset,
                bytes,
                copy_kind::device_to_host);
        note_copy_in_flight(d_write_index, static_cast<size_t>(nitems), end, copies);
        d_d2h_bytes += bytes;
        break;
    }
    case gr::transfer_type::DEVICE_TO_DEVICE:
        break;
    default:
        throw std::runtime_error("device_buffer: unexpected transfer type");
    }
}

void device_buffer::copy_on(
    const gpu_stream& s, void* dst, const void* src, size_t bytes, copy_kind kind)
{
    d_trace->start(s.get());
    d_api->copy_async(d_device.index, dst, src, bytes, kind, s.get());
    d_trace->end(s.get());
}

void device_buffer::note_copy_in_flight(size_t first,
                                        size_t n,
                                        uint64_t items_end,
                                        const gpu_stream& s)
{
    std::lock_guard<std::mutex> lock(d_copies_mutex);
    std::unique_ptr<gpu_event> done;
    if (d_spare_events.empty()) {
        done = std::make_unique<gpu_event>(d_device, gpu_event::use::ordering);
    } else {
        done = std::move(d_spare_events.back());
        d_spare_events.pop_back();
    }
    done->record(s.get());
    d_copies.push_back({ first, first + n, items_end, std::move(done) });
}

void device_buffer::wait_for_copies_from(size_t first)
{
    std::lock_guard<std::mutex> lock(d_copies_mutex);
    // Copies complete in the order they were enqueued (one stream): waiting
    // for the newest copy that reads [first, end of buffer) covers the older
    // ones, which are retired with it.
    size_t newest = d_copies.size();
    for (size_t i = 0; i < d_copies.size(); i++)
        if (d_copies[i].end > first)
            newest = i;
    if (newest == d_copies.size())
        return;
    d_copies[newest].done->synchronize();
    for (size_t i = 0; i <= newest; i++) {
        d_spare_events.push_back(std::move(d_copies.front().done));
        d_copies.pop_front();
    }
}

gpu_stream& device_buffer::copy_stream()
{
    if (!d_copy_stream) {
        d_copy_stream = std::make_unique<gpu_stream>(d_device);
        d_written = std::make_unique<gpu_event>(d_device, gpu_event::use::ordering);
    }
    return *d_copy_stream;
}

void device_buffer::make_wait_for_copies(stream_handle s, uint64_t end)
{
    std::lock_guard<std::mutex> lock(d_copies_mutex);
    // Copies complete in order (one copy stream): the one that holds item
    // end - 1 covers the older ones. None listed: it was retired, so it has
    // completed. Not the newest copy: a host writer runs ahead, and a reader
    // limited by its output space would wait a whole copy for items it does
    // not read, and hold back the copy of the next lap behind its kernels.
    for (const copy_in_flight& c : d_copies)
        if (c.items_end >= end) {
            c.done->make_wait(s);
            return;
        }
}

namespace {
// Test hook (inject_device_to_host_failure_after): host reads left before one fails.
std::atomic<long> g_reads_before_failure{ -1 };
} // namespace

void device_buffer::inject_device_to_host_failure_after(long reads)
{
    g_reads_before_failure = reads;
}

void device_buffer::wait_for_device_to_host_copies()
{
    try {
        if (g_reads_before_failure >= 0 && g_reads_before_failure-- == 0)
            throw std::runtime_error("CUDA error in cudaMemcpyAsync at injected:1: an illegal "
                                     "memory access was encountered (test hook)");
        wait_for_copies_from(0);
    } catch (const std::exception& e) {
        // On the host reader's thread, which GNU Radio 3.10 ends on an
        // exception: the error is logged first, naming the GPU writer, and
        // the writer is told (copy_failed) and woken, so that it ends too and
        // the flowgraph with it instead of waiting for a reader that is gone.
        d_logger->error("the copy of '{:s}''s output to the host failed, ending the "
                        "flowgraph: {:s}",
                        d_owner_alias,
                        e.what());
        d_copy_failed = true;
        set_done(true);
        if (auto writer = d_link.lock(); writer && writer->detail())
            writer->detail()->d_tpb.notify_msg(); // wakes its thread
        throw;
    }
}

void device_buffer::wait_until_idle()
{
    // The owner's stream carries the writer's kernels (GPU writer) or the
    // copies and the reader's kernels (host writer); GPU readers run on their
    // own streams.
    d_stream->synchronize();
    for (size_t r = 0; r < d_readers.size(); r++) {
        auto* reader = dynamic_cast<device_block*>(d_readers[r]->link().get());
        if (reader && reader->work_done())
            reader->work_done()->synchronize();
    }
    wait_for_copies_from(0);
}

void* device_buffer::device_memmove(void* dst, const void* src, size_t bytes)
{
    // Through a scratch area (made on first use), so overlapping ranges are safe.
    if (!d_scratch.get())
        d_scratch = device_memory(d_device, d_device_mem.size());
    d_api->copy_async(d_device.index,
                      d_scratch.get(),
                      src,
                      bytes,
                      copy_kind::device_to_device,
                      d_stream->get());
    d_api->copy_async(d_device.index,
                      dst,
                      d_scratch.get(),
                      bytes,
                      copy_kind::device_to_device,
                      d_stream->get());
    d_stream->synchronize();
    return dst;
}

// When the single-mapped buffer runs out of contiguous room, the base class
// moves the unread items to the start. Only the side the reader reads needs
// moving: a writer's side is only ever read at or after the write index.
bool device_buffer::input_blocked_callback(int items_required,
                                           int items_avail,
                                           unsigned read_index)
{
    wait_until_idle(); // no kernel or copy may still use the moved ranges
    if (d_transfer_type == gr::transfer_type::DEVICE_TO_HOST)
        return input_blocked_callback_logic(items_required,
                                            items_avail,
                                            read_index,
                                            host_base(),
                                            std::memcpy,
                                            std::memmove);
    auto move = [this](void* d, const void* s, size_t n) {
        return device_memmove(d, s, n);
    };
    return input_blocked_callback_logic(
        items_required, items_avail, read_index, device_base(), move, move);
}

bool device_buffer::output_blocked_callback(int output_multiple, bool force)
{
    wait_until_idle();
    if (d_transfer_type == gr::transfer_type::DEVICE_TO_HOST)
        return output_blocked_callback_logic(
            output_multiple, force, host_base(), std::memmove);
    auto move = [this](void* d, const void* s, size_t n) {
        return device_memmove(d, s, n);
    };
    return output_blocked_callback_logic(output_multiple, force, device_base(), move);
}

/*
 * GNU Radio calls this factory from block::replace_buffer() when a GPU block
 * reads a host block's output, before any reader of the new buffer exists, so
 * throwing here fails top_block.start() cleanly. The runtime does not say which
 * output port is being replaced; it is the one whose buffer has the size and
 * item size passed in. When that is unambiguous, refuse the two topologies that
 * GNU Radio 3.10 would leave hanging:
 *  - the port's buffer was already replaced for another GPU reader (fan-out):
 *    that reader would be left on a buffer nobody writes;
 *  - the port's host buffer already has host readers: they would be left on it.
 * When it is ambiguous, update_reader_block_history() catches the fan-out.
 */
void device_buffer::refuse_unsupported_replacement(const gr::block_sptr& writer,
                                                   const gr::block_sptr& gpu_reader,
                                                   int nitems,
                                                   size_t sizeof_item,
                                                   uint64_t downstream_lcm_nitems)
{
    auto detail = writer->detail();
    if (!detail)
        return;
    int port = -1;
    int matches = 0;
    for (int p = 0; p < detail->noutputs(); p++) {
        const gr::buffer_sptr& b = detail->output(p);
        if (b && static_cast<int>(b->bufsize()) == nitems &&
            b->get_sizeof_item() == sizeof_item &&
            b->get_downstream_lcm_nitems() == downstream_lcm_nitems) {
            port = p;
            matches++;
        }
    }
    if (matches != 1)
        return;
    const gr::buffer_sptr& current = detail->output(port);
    if (current->nreaders() == 0)
        return;
    std::ostringstream msg;
    if (auto* earlier = dynamic_cast<device_buffer*>(current.get())) {
        msg << "beamform: output " << port << " of host block '" << writer->alias()
            << "' feeds more than one GPU block ('" << earlier->d_owner_alias << "' and '"
            << gpu_reader->alias()
            << "'). GNU Radio 3.10 cannot hand one host output to several GPU blocks "
               "(the flowgraph would hang). Connect it to one GPU block (for example "
               "beamform.convert) and fan out from that block's output, which may "
               "feed any number of GPU blocks.";
    } else {
        msg << "beamform: output " << port << " of host block '" << writer->alias()
            << "' is read by host blocks and by the GPU block '" << gpu_reader->alias()
            << "'. GNU Radio 3.10 cannot give one output to host and GPU readers "
               "together (the host readers would hang). Give the GPU block an output "
               "of its own: put a blocks.copy between the host block and the GPU "
               "block.";
    }
    throw std::runtime_error(msg.str());
}

void device_buffer::update_reader_block_history(unsigned history, int delay)
{
    gr::buffer_single_mapped::update_reader_block_history(history, delay);
    if (d_replaced_host_output)
        end_orphaned_buffers();
}

/*
 * The fallback of refuse_unsupported_replacement() for writers with several
 * look-alike outputs. Throwing is not possible here (the runtime is half-way
 * through attaching a reader), so a buffer of the same writer port that already
 * has a GPU reader but is no longer the writer's output - an orphan that would
 * hang its reader - is marked finished and the error is logged: the orphaned
 * block ends at once instead of waiting forever.
 */
void device_buffer::end_orphaned_buffers()
{
    gr::block_sptr writer = link();
    if (!writer || !writer->detail())
        return;
    auto detail = writer->detail();
    for (int p = 0; p < detail->noutputs(); p++)
        if (detail->output(p).get() == this)
            d_link_port = p;

    std::lock_guard<std::mutex> lock(g_registry_mutex);
    for (device_buffer* other : g_registry) {
        // The writer of a buffer from an earlier flowgraph may be gone: link()
        // would throw on the expired pointer, so look at the weak one.
        if (other == this || !other->d_replaced_host_output ||
            other->d_link_port != d_link_port || other->nreaders() == 0 ||
            other->d_link.lock() != writer)
            continue;
        d_logger->error("output {:d} of host block '{:s}' feeds more than one GPU block "
                        "('{:s}' and '{:s}'); GNU Radio 3.10 cannot do that, so '{:s}' "
                        "gets no input. Connect the output to one GPU block and fan out "
                        "from that block's output.",
                        d_link_port,
                        writer->alias(),
                        other->d_owner_alias,
                        d_owner_alias,
                        other->d_owner_alias);
        other->set_done(true);
    }
}

} // namespace beamform
} // namespace gr
