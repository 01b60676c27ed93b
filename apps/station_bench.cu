/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The station pipeline end to end as a real GNU Radio flowgraph with
 * GPU-resident buffers, against the engines' own times on the same data:
 *
 *   host sc16 voltages -> convert -> pfb_channelizer -> phase_shift
 *     -> tensor_beamformer (power, Stokes I, n_int) -> host sink
 *
 * Reports sustained input samples per second for
 *   - the flowgraph on the GPU, input arriving from the host (it includes the
 *     host -> device copy of the voltages); once with a source that hands over
 *     items already in pinned memory (the GPU side), once with a source that
 *     writes every item (one host thread doing memcpy); in the steady state
 *     (over the middle half of the sink's output) and over the whole run
 *     (start-up and the pipeline's fill included), each the median of
 *     --flowgraph-runs runs (every run's steady rate printed too),
 *   - the four engines alone on device-resident data (sum of their medians),
 *     that sum plus a pinned host -> device copy of the same input, the copy
 *     alone, and the ideal overlapped pipeline max(engine sum, copy), with the
 *     flowgraph's share of that ideal; and that pipeline measured (the engines
 *     on one stream, the copies in and out on two others),
 *   - the same flowgraph on the CPU backend,
 * next to what the reference station needs in real time.
 *
 * Usage: `usage` below (also printed by --help).
 */
#include "bench_common.h"
#include <gnuradio/beamform/engines/convert_engine.h>
#include <gnuradio/beamform/engines/pfb_channelizer_engine.h>
#include <gnuradio/beamform/engines/phase_shift_engine.h>
#include <gnuradio/beamform/engines/tensor_beamformer_engine.h>
#include <gnuradio/beamform/runtime/gpu_memory.h>
#include <gnuradio/beamform/convert.h>
#include <gnuradio/beamform/pfb_channelizer.h>
#include <gnuradio/beamform/phase_shift.h>
#include <gnuradio/beamform/engines/steering.h>
#include <gnuradio/beamform/tensor_beamformer.h>
#include <gnuradio/blocks/null_sink.h>
#include "bench_source.h"
#include "bench_timed_sink.h"
#include <gnuradio/high_res_timer.h>
#include <gnuradio/top_block.h>
#include <algorithm>
#include <chrono>
#include <cstring>

using namespace gr::beamform;

namespace {

//! The usage text, printed by --help (bench::accept_only checks that it names
//! every accepted option).
constexpr const char* usage = R"(usage: station_bench [--receivers=96] [--channels=256] [--taps=16]
                     [--beams=1024] [--n-int=16] [--spectra=131072]
                     [--flowgraph-runs=3] [--cpu-spectra=64] [--rate=100e6]
                     [--json=station_bench.json]
  --receivers=R       receivers, 1 to 1048576 (default 96)
  --channels=N        channels of the pfb_channelizer, 2 to 1048576 (default 256)
  --taps=T            taps per channel branch, 1 to 65536 (default 16)
  --beams=B           beams, 1 to 1048576 (default 1024)
  --n-int=N           spectra summed into one Stokes I power, 1 to 1048576
                      (default 16)
  --spectra=N         spectra through each timed GPU flowgraph run, 1 to 2^40
                      (default 131072)
  --flowgraph-runs=K  timed GPU flowgraph runs of each kind, 1 to 100
                      (default 3); the table shows their median
  --cpu-spectra=N     spectra through the CPU flowgraph run, 1 to 2^40
                      (default 64)
  --rate=S            sample rate per receiver in samples/s, for the real-time
                      figures and the channel frequencies, 1 to 1e12
                      (default 100e6)
  --json=PATH         where the JSON results go (default station_bench.json)
  -h, --help          print this text and exit
A bad option is a usage error (exit status 2).
notes and figures: apps/station_bench.md in the gr-beamform sources
)";

struct station_size {
    size_t receivers, channels, taps, beams, n_int;
    double sample_rate;
};

std::vector<std::complex<float>> random_weights(const station_size& s)
{
    std::vector<std::complex<float>> w(s.channels * s.beams * s.receivers);
    std::mt19937 gen(7);
    std::uniform_real_distribution<float> phase(0.f, 6.2831853f);
    for (auto& v : w)
        v = std::polar(1.0f / float(s.receivers), phase(gen));
    return w;
}

std::vector<double> channel_freqs(const station_size& s)
{
    return channel_frequencies(150e6, s.sample_rate / s.channels, s.channels);
}

std::vector<double> random_delays(const station_size& s)
{
    std::vector<double> d(s.receivers);
    std::mt19937 gen(9);
    std::uniform_real_distribution<double> u(-50e-9, 50e-9);
    for (auto& v : d)
        v = u(gen);
    return d;
}

//! A flowgraph run's input rates (samples per second, all receivers).
struct flowgraph_rates {
    double whole_run; //!< spectra over run()'s time: start-up and pipeline fill included
    double steady;    //!< over the middle half of the sink's items
};

//! Each rate's median over \p runs (not empty).
flowgraph_rates median_rates(std::vector<flowgraph_rates> runs)
{
    const auto median = [&](double flowgraph_rates::*rate) {
        std::sort(runs.begin(), runs.end(), [&](const auto& a, const auto& b) {
            return a.*rate < b.*rate;
        });
        const size_t n = runs.size();
        return n % 2 ? runs[n / 2].*rate : 0.5 * (runs[n / 2 - 1].*rate + runs[n / 2].*rate);
    };
    flowgraph_rates m;
    m.whole_run = median(&flowgraph_rates::whole_run);
    m.steady = median(&flowgraph_rates::steady);
    return m;
}

//! The lowest and the highest steady rate of \p runs (not empty).
std::pair<double, double> steady_range(const std::vector<flowgraph_rates>& runs)
{
    const auto [lo, hi] = std::minmax_element(
        runs.begin(), runs.end(), [](const auto& a, const auto& b) { return a.steady < b.steady; });
    return { lo->steady, hi->steady };
}

/*!
 * The flowgraph on `device`, fed `spectra * channels` time samples from the
 * host (a repeated pattern of random sc16 voltages). With host_writes false the
 * source writes only its first 512 MiB (bench_source.h): the GPU side is
 * measured, the host -> device copies included.
 */
flowgraph_rates run_flowgraph(const station_size& s,
                     const std::string& device,
                     size_t spectra,
                     bool host_writes = true)
{
    const size_t in_item = 4 * s.receivers;
    const size_t pattern_items = std::min<size_t>(spectra, 256) * s.channels;
    std::vector<uint8_t> pattern(pattern_items * in_item);
    std::mt19937 gen(3);
    for (auto& b : pattern)
        b = uint8_t(gen());

    auto tb = gr::make_top_block("station_bench");
    const uint64_t write_items = host_writes ? 0 : (uint64_t(512) << 20) / in_item;
    auto src = bench::pattern_source::make(pattern, in_item, spectra * s.channels, write_items);
    auto conv = convert::make(sample_format::sc16, int(s.receivers), { 1.0f / 2048 }, device);
    auto pfb = pfb_channelizer::make(int(s.channels),
                                     {},
                                     int(s.taps),
                                     sample_format::fc32,
                                     int(s.receivers),
                                     1,
                                     false,
                                     150e6,
                                     s.sample_rate,
                                     device);
    auto phase = phase_shift::make(int(s.channels),
                                   int(s.receivers),
                                   channel_freqs(s),
                                   double(s.channels) / s.sample_rate,
                                   random_delays(s),
                                   {},
                                   {},
                                   0.0,
                                   device);
    auto beams = tensor_beamformer::make(int(s.channels),
                                         int(s.receivers),
                                         int(s.beams),
                                         random_weights(s),
                                         beam_precision::float16,
                                         beam_output::power,
                                         int(s.n_int),
                                         polarization_layout::single,
                                         stokes_mode::I,
                                         device);
    auto sink = bench::timed_sink::make(beams->output_item_bytes(), spectra / s.n_int);
    tb->connect(src, 0, conv, 0);
    tb->connect(conv, 0, pfb, 0);
    tb->connect(pfb, 0, phase, 0);
    tb->connect(phase, 0, beams, 0);
    tb->connect(beams, 0, sink, 0);
    const auto t0 = std::chrono::steady_clock::now();
    tb->run();
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    // Where the host time goes (GNU Radio's performance counters, switched on in main).
    const std::vector<std::pair<const char*, gr::block_sptr>> blocks = {
        { "source", src }, { "convert", conv }, { "pfb", pfb },
        { "phase_shift", phase }, { "beamformer", beams }, { "sink", sink }
    };
    for (const auto& [name, b] : blocks) {
        const double per_call = b->pc_noutput_items_avg();
        const double items = b->output_signature()->max_streams() != 0
                                 ? double(b->nitems_written(0))
                                 : double(b->nitems_read(0));
        std::printf("    %-12s work calls %8.0f, items per call %9.1f, work() time %8.3f s\n",
                    name,
                    per_call > 0 ? items / per_call : 0.0,
                    per_call,
                    b->pc_work_time_total() / double(gr::high_res_timer_tps()));
    }
    const auto in_stats = conv->input_copy_stats();
    const double samples_per_spectrum = double(s.channels * s.receivers);
    const flowgraph_rates rates{
        double(spectra) * samples_per_spectrum / seconds,
        double(sink->middle_items() * s.n_int) * samples_per_spectrum /
            sink->middle_seconds()
    };
    std::printf("  %s flowgraph%s: %zu spectra in %.3f s (steady state: %.3f GS/s over the "
                "middle half of the output); host->device %.3f GB, GPU->GPU edges %llu B, device->host "
                "%.3f MB\n",
                device.c_str(),
                host_writes ? "" : " (source writes its first 512 MiB only)",
                spectra,
                seconds,
                rates.steady / 1e9,
                in_stats.host_to_device / 1e9,
                (unsigned long long)(conv->output_copy_stats().host_to_device +
                                     pfb->output_copy_stats().host_to_device +
                                     phase->output_copy_stats().host_to_device +
                                     conv->output_copy_stats().device_to_host +
                                     pfb->output_copy_stats().device_to_host +
                                     phase->output_copy_stats().device_to_host),
                beams->output_copy_stats().device_to_host / 1e6);
    return rates;
}

struct engine_times {
    double convert_ms, pfb_ms, phase_ms, beam_ms, h2d_ms;
    double d2h_ms;  //!< the device -> host copy of the batch's powers alone
    double both_ms; //!< the input copy and the powers' copy at once, on two streams
};

//! The station's four engines on one GPU, with buffers for `batch` spectra.
struct station_engines {
    size_t batch, n_time, raw_bytes, spectra_bytes, power_bytes;
    device_memory raw, volts, spectra, shifted, powers;
    std::unique_ptr<convert_engine> conv;
    std::unique_ptr<pfb_channelizer_engine> pfb;
    std::unique_ptr<phase_shift_engine> phase;
    std::unique_ptr<tensor_beamformer_engine> beam;
    uint64_t first_item = 0; // phase_shift's absolute item count

    station_engines(const station_size& s, const device_spec& gpu, size_t batch_spectra)
        : batch(batch_spectra),
          n_time(batch * s.channels),
          raw_bytes(n_time * s.receivers * 4),
          spectra_bytes(n_time * s.receivers * 8),
          raw(gpu, raw_bytes),
          volts(gpu, spectra_bytes),
          spectra(gpu, spectra_bytes),
          shifted(gpu, spectra_bytes)
    {
        bench::fill_random_floats(raw.get(), raw_bytes / 4, 1);
        bench::fill_random_floats(volts.get(), spectra_bytes / 4, 2);

        convert_config cc;
        cc.input = sample_format::sc16;
        cc.n_receivers = s.receivers;
        cc.scale.assign(s.receivers, 1.0f / 2048);
        conv = convert_engine::make(cc, gpu);

        pfb_channelizer_config pc;
        pc.n_channels = s.channels;
        pc.taps_per_branch = s.taps;
        pc.input = sample_format::fc32;
        pc.n_receivers = s.receivers;
        pfb = pfb_channelizer_engine::make(pc, gpu);

        phase_shift_config sc;
        sc.n_channels = s.channels;
        sc.n_receivers = s.receivers;
        sc.channel_frequencies = channel_freqs(s);
        sc.item_period = double(s.channels) / s.sample_rate;
        phase_shift_delays delays;
        delays.delays = random_delays(s);
        delays.rates.assign(s.receivers, 0.0);
        delays.gains.assign(s.receivers, { 1.0f, 0.0f });
        phase = phase_shift_engine::make(sc, delays, gpu);

        tensor_beamformer_config bc;
        bc.n_channels = s.channels;
        bc.n_receivers = s.receivers;
        bc.n_beams = s.beams;
        bc.output = beam_output::power;
        bc.n_int = s.n_int;
        beam = tensor_beamformer_engine::make(bc, random_weights(s), gpu);
        power_bytes = (batch / s.n_int) * bc.output_item_bytes();
        powers = device_memory(gpu, power_bytes);
    }
    auto* vin() { return volts.as<std::complex<float>>(); }
    auto* spec() { return spectra.as<std::complex<float>>(); }
    auto* shf() { return shifted.as<std::complex<float>>(); }
};

/*!
 * The overlapped pipeline as the GPU runs it, measured: the chain of engines on
 * one stream, the host -> device copy of the next batch's input and the device
 * -> host copy of the previous batch's powers on two other streams (pinned
 * host memory, double-buffered on the device). Milliseconds per batch: what a
 * flowgraph of these blocks could reach at best on this machine.
 */
double time_overlapped_pipeline(const station_size& s, const device_spec& gpu, size_t batch)
{
    station_engines e(s, gpu, batch);
    device_memory raw2(gpu, e.raw_bytes), powers2(gpu, e.power_bytes);
    void* raw[2] = { e.raw.get(), raw2.get() };
    void* powers[2] = { e.powers.get(), powers2.get() };
    pinned_memory host_in(backend::cuda, e.raw_bytes), host_out(backend::cuda, e.power_bytes);
    std::memset(host_in.get(), 1, e.raw_bytes);
    cudaStream_t compute, h2d, d2h;
    for (cudaStream_t* st : { &compute, &h2d, &d2h })
        BF_GPU_CHECK(cudaStreamCreateWithFlags(st, cudaStreamNonBlocking));
    cudaEvent_t copied_in[2], converted[2], computed[2], copied_out[2];
    for (int b = 0; b < 2; b++)
        for (cudaEvent_t* ev : { &copied_in[b], &converted[b], &computed[b], &copied_out[b] })
            BF_GPU_CHECK(cudaEventCreateWithFlags(ev, cudaEventDisableTiming));

    auto enqueue = [&](int i) {
        const int b = i % 2;
        if (i >= 2) // raw[b] was read by the convert of batch i - 2
            BF_GPU_CHECK(cudaStreamWaitEvent(h2d, converted[b], 0));
        BF_GPU_CHECK(cudaMemcpyAsync(
            raw[b], host_in.get(), e.raw_bytes, cudaMemcpyHostToDevice, h2d));
        BF_GPU_CHECK(cudaEventRecord(copied_in[b], h2d));
        BF_GPU_CHECK(cudaStreamWaitEvent(compute, copied_in[b], 0));
        if (i >= 2) // powers[b] was copied out for batch i - 2
            BF_GPU_CHECK(cudaStreamWaitEvent(compute, copied_out[b], 0));
        e.conv->execute(raw[b], e.vin(), e.n_time, compute);
        BF_GPU_CHECK(cudaEventRecord(converted[b], compute));
        e.pfb->execute(e.vin(), e.spec(), batch, compute);
        e.phase->execute(e.spec(), e.shf(), batch, e.first_item, compute);
        e.first_item += batch;
        e.beam->execute(e.shf(), powers[b], batch, compute);
        BF_GPU_CHECK(cudaEventRecord(computed[b], compute));
        BF_GPU_CHECK(cudaStreamWaitEvent(d2h, computed[b], 0));
        BF_GPU_CHECK(cudaMemcpyAsync(
            host_out.get(), powers[b], e.power_bytes, cudaMemcpyDeviceToHost, d2h));
        BF_GPU_CHECK(cudaEventRecord(copied_out[b], d2h));
    };
    const int warm = 2, timed = 16;
    for (int i = 0; i < warm; i++)
        enqueue(i);
    BF_GPU_CHECK(cudaDeviceSynchronize());
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = warm; i < warm + timed; i++)
        enqueue(i);
    BF_GPU_CHECK(cudaDeviceSynchronize());
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
            .count();
    for (int b = 0; b < 2; b++)
        for (cudaEvent_t ev : { copied_in[b], converted[b], computed[b], copied_out[b] })
            cudaEventDestroy(ev);
    for (cudaStream_t st : { compute, h2d, d2h })
        cudaStreamDestroy(st);
    return ms / timed;
}

//! Each engine alone on device-resident data for `batch` spectra (medians).
engine_times time_engines(const station_size& s, const device_spec& gpu, size_t batch)
{
    cudaStream_t stream;
    BF_GPU_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    station_engines e(s, gpu, batch);
    engine_times t{};
    t.convert_ms = bench::time_gpu(
                       [&] { e.conv->execute(e.raw.get(), e.vin(), e.n_time, stream); },
                       stream,
                       20)
                       .median_ms;
    t.pfb_ms = bench::time_gpu(
                   [&] { e.pfb->execute(e.vin(), e.spec(), batch, stream); }, stream, 20)
                   .median_ms;
    t.phase_ms = bench::time_gpu(
                     [&] {
                         e.phase->execute(e.spec(), e.shf(), batch, e.first_item, stream);
                         e.first_item += batch;
                     },
                     stream,
                     20)
                     .median_ms;
    t.beam_ms = bench::time_gpu(
                    [&] { e.beam->execute(e.shf(), e.powers.get(), batch, stream); },
                    stream,
                    20)
                    .median_ms;
    pinned_memory host(backend::cuda, e.raw_bytes);
    std::memset(host.get(), 1, e.raw_bytes);
    t.h2d_ms = bench::time_gpu(
                   [&] {
                       BF_GPU_CHECK(cudaMemcpyAsync(e.raw.get(),
                                                    host.get(),
                                                    e.raw_bytes,
                                                    cudaMemcpyHostToDevice,
                                                    stream));
                   },
                   stream,
                   10)
                   .median_ms;
    pinned_memory host_out(backend::cuda, e.power_bytes);
    auto copy_out = [&](cudaStream_t s) {
        BF_GPU_CHECK(cudaMemcpyAsync(
            host_out.get(), e.powers.get(), e.power_bytes, cudaMemcpyDeviceToHost, s));
    };
    t.d2h_ms = bench::time_gpu([&] { copy_out(stream); }, stream, 10).median_ms;
    // Both directions at once: whether the link carries them side by side.
    cudaStream_t other;
    cudaEvent_t started, out_done;
    BF_GPU_CHECK(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking));
    BF_GPU_CHECK(cudaEventCreateWithFlags(&started, cudaEventDisableTiming));
    BF_GPU_CHECK(cudaEventCreateWithFlags(&out_done, cudaEventDisableTiming));
    t.both_ms = bench::time_gpu(
                    [&] {
                        BF_GPU_CHECK(cudaEventRecord(started, stream));
                        BF_GPU_CHECK(cudaStreamWaitEvent(other, started, 0));
                        copy_out(other);
                        BF_GPU_CHECK(cudaEventRecord(out_done, other));
                        BF_GPU_CHECK(cudaMemcpyAsync(e.raw.get(),
                                                     host.get(),
                                                     e.raw_bytes,
                                                     cudaMemcpyHostToDevice,
                                                     stream));
                        BF_GPU_CHECK(cudaStreamWaitEvent(stream, out_done, 0));
                    },
                    stream,
                    10)
                    .median_ms;
    cudaEventDestroy(started);
    cudaEventDestroy(out_done);
    cudaStreamDestroy(other);
    cudaStreamDestroy(stream);
    return t;
}

} // namespace

namespace {
int run(int argc, char** argv)
{
    bench::accept_only(argc,
                       argv,
                       { "receivers",
                         "channels",
                         "taps",
                         "beams",
                         "n-int",
                         "rate",
                         "spectra",
                         "flowgraph-runs",
                         "cpu-spectra",
                         "json" },
                       usage);
    // GNU Radio's performance counters (work calls, items per call, work time).
    setenv("GR_CONF_PERFCOUNTERS_ON", "True", 0);
    setenv("GR_CONF_PERFCOUNTERS_CLOCK", "monotonic", 0);
    station_size s;
    s.receivers = size_t(bench::integer_option(argc, argv, "receivers", 96, 1, 1 << 20));
    s.channels = size_t(bench::integer_option(argc, argv, "channels", 256, 2, 1 << 20));
    s.taps = size_t(bench::integer_option(argc, argv, "taps", 16, 1, 1 << 16));
    s.beams = size_t(bench::integer_option(argc, argv, "beams", 1024, 1, 1 << 20));
    s.n_int = size_t(bench::integer_option(argc, argv, "n-int", 16, 1, 1 << 20));
    s.sample_rate = bench::real_option(argc, argv, "rate", 100e6, 1.0, 1e12);
    // The GPU buffers between the blocks hold about 2 GB of the reference
    // station's input (512 MiB each; the powers' buffer alone 8 x 1024
    // spectra): with 32768 spectra (3.2 GB) the middle half of the sink's
    // output still caught the pipeline draining at engine speed once the last
    // input had crossed the link, and read up to 14 % above the rate of the
    // input copy alone (H200, 64 receivers and 256 beams; apps/station_bench.md).
    const size_t spectra =
        size_t(bench::integer_option(argc, argv, "spectra", 131072, 1, 1ll << 40));
    // One flowgraph run's steady rate moved by up to 14 % between runs of one
    // binary (11.35-12.94 GS/s, H200, apps/station_bench.md): the median of K.
    const int flowgraph_runs = int(bench::integer_option(argc, argv, "flowgraph-runs", 3, 1, 100));
    const size_t cpu_spectra =
        size_t(bench::integer_option(argc, argv, "cpu-spectra", 64, 1, 1ll << 40));
    const std::string json = bench::option(argc, argv, "json", "station_bench.json");

    const device_spec gpu = select_device("cuda:0");
    std::printf("device: %s; station: %zu receivers, %zu channels x %zu taps, %zu beams, "
                "Stokes I over %zu\n",
                bench::device_name().c_str(),
                s.receivers,
                s.channels,
                s.taps,
                s.beams,
                s.n_int);

    const size_t batch = 1024; // spectra per engine call, as a GPU work call carries
    const engine_times e = time_engines(s, gpu, batch);
    // The flowgraph's work calls carry about a third of a 64 MiB buffer.
    const size_t small_batch = 128;
    const engine_times es = time_engines(s, gpu, small_batch);
    const double per_batch_samples = double(batch * s.channels * s.receivers);
    const double engines_ms = e.convert_ms + e.pfb_ms + e.phase_ms + e.beam_ms;
    const double pipeline_ms = time_overlapped_pipeline(s, gpu, batch);

    run_flowgraph(s, "cuda:0", 512); // warm-up: module load, first allocations
    const auto runs_of = [&](bool host_writes) {
        std::vector<flowgraph_rates> runs;
        for (int i = 0; i < flowgraph_runs; i++)
            runs.push_back(run_flowgraph(s, "cuda:0", spectra, host_writes));
        return runs;
    };
    const std::vector<flowgraph_rates> gpu_runs = runs_of(false), host_runs = runs_of(true);
    const flowgraph_rates on_gpu = median_rates(gpu_runs), host_writing = median_rates(host_runs);
    const double gpu_rate = on_gpu.steady, host_rate = host_writing.steady;
    const double cpu_rate = run_flowgraph(s, "cpu", cpu_spectra).whole_run;

    const double engines_rate = per_batch_samples / (engines_ms * 1e-3);
    const double engines_h2d_rate = per_batch_samples / ((engines_ms + e.h2d_ms) * 1e-3);
    // The input copy runs on the copy engine while the kernels run, so an ideal
    // pipeline is limited by the slower of the two.
    const double copy_rate = per_batch_samples / (e.h2d_ms * 1e-3);
    const double ideal_rate = per_batch_samples / (std::max(engines_ms, e.h2d_ms) * 1e-3);
    const double pipeline_rate = per_batch_samples / (pipeline_ms * 1e-3);
    // The flowgraph also copies the powers out over the same link; with both
    // copies at once the link carries less input than alone.
    const double link_rate = per_batch_samples / (std::max(engines_ms, e.both_ms) * 1e-3);
    const double needed = double(s.receivers) * s.sample_rate;

    bench::report r("station_bench");
    std::printf("\n%-52s %14s %10s\n", "input samples per second (all receivers)", "GS/s",
                "realtime");
    auto line = [&](const std::string& what, double rate) {
        std::printf("%-52s %14.4g %9.2fx\n", what.c_str(), rate / 1e9, rate / needed);
        r.row();
        r.set("measurement", what);
        r.set("samples_per_second", rate);
        r.set("realtime_factor", rate / needed);
    };
    line("GPU flowgraph, input copied from the host", gpu_rate);
    line("  the same, host source writing every item (memcpy)", host_rate);
    line("  whole run, start-up and pipeline fill included", on_gpu.whole_run);
    line("  the same, host source writing every item", host_writing.whole_run);
    line("engines alone, device-resident (sum of medians)", engines_rate);
    line("engines + pinned host->device copy, one after the other", engines_h2d_rate);
    line("pinned host->device copy of the input alone", copy_rate);
    line("ideal overlapped pipeline: max(engine sum, copy)", ideal_rate);
    line("  measured: engines on one stream, copies in and out on two", pipeline_rate);
    line("both copies at once (input in, powers out)", per_batch_samples / (e.both_ms * 1e-3));
    line("  the ideal with both copies: max(engine sum, both copies)", link_rate);
    line("CPU flowgraph (all blocks on the CPU backend)", cpu_rate);
    char need[96];
    std::snprintf(need, sizeof need, "real time: %zu receivers at %.0f MS/s", s.receivers,
                  s.sample_rate / 1e6);
    line(need, needed);
    std::printf("\nengine medians per %zu spectra: convert %.3f ms, pfb %.3f ms, phase_shift "
                "%.3f ms, beamformer %.3f ms (sum %.3f ms); host->device copy %.3f ms, "
                "device->host copy of the powers %.3f ms, both at once %.3f ms\n",
                batch,
                e.convert_ms,
                e.pfb_ms,
                e.phase_ms,
                e.beam_ms,
                engines_ms,
                e.h2d_ms,
                e.d2h_ms,
                e.both_ms);
    std::printf("engine medians per %zu spectra, scaled to %zu: convert %.3f ms, pfb %.3f ms, "
                "phase_shift %.3f ms, beamformer %.3f ms (sum %.3f ms); host->device copy %.3f "
                "ms\n",
                small_batch,
                batch,
                es.convert_ms * batch / small_batch,
                es.pfb_ms * batch / small_batch,
                es.phase_ms * batch / small_batch,
                es.beam_ms * batch / small_batch,
                (es.convert_ms + es.pfb_ms + es.phase_ms + es.beam_ms) * batch / small_batch,
                es.h2d_ms * batch / small_batch);
    std::printf("GPU flowgraph steady state, %d runs (GS/s):", flowgraph_runs);
    for (const auto& run : gpu_runs)
        std::printf(" %.3f", run.steady / 1e9);
    std::printf("; host writing every item:");
    for (const auto& run : host_runs)
        std::printf(" %.3f", run.steady / 1e9);
    std::printf("\n");
    std::printf(
        "flowgraph / ideal overlapped pipeline: %.2f (host writes nothing), %.2f "
        "(host writes every item); flowgraph / measured pipeline: %.2f; flowgraph / "
        "the ideal with both copies: %.2f\n",
        gpu_rate / ideal_rate,
        host_rate / ideal_rate,
        gpu_rate / pipeline_rate,
        gpu_rate / link_rate);
    r.row();
    r.set("measurement", "engine medians ms per batch");
    r.set("batch_spectra", double(batch));
    r.set("convert_ms", e.convert_ms);
    r.set("pfb_ms", e.pfb_ms);
    r.set("phase_shift_ms", e.phase_ms);
    r.set("beamformer_ms", e.beam_ms);
    r.set("h2d_ms", e.h2d_ms);
    r.set("d2h_ms", e.d2h_ms);
    r.set("both_copies_ms", e.both_ms);
    r.set("pipeline_ms", pipeline_ms);
    r.set("flowgraph_runs", double(flowgraph_runs));
    const auto [steady_min, steady_max] = steady_range(gpu_runs);
    r.set("flowgraph_steady_min", steady_min);
    r.set("flowgraph_steady_max", steady_max);
    r.set("flowgraph_over_ideal", gpu_rate / ideal_rate);
    r.set("flowgraph_over_measured_pipeline", gpu_rate / pipeline_rate);
    r.set("flowgraph_over_ideal_with_both_copies", gpu_rate / link_rate);
    r.write_json(json);
    return 0;
}
} // namespace

int main(int argc, char** argv)
{
    return bench::run_main("station_bench", argc, argv, run);
}
