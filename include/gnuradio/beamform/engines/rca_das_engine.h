/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Row-column (RCA) ultrasound delay-and-sum volume beamformer: the dual-stage
 * method of Praesius, Jorgensen and Jensen, "Real-Time Full-Volume Row-Column
 * Imaging", and the conventional full 3D RCA delay-and-sum
 * beamformer it approximates (the paper's reference, Fig. 9).
 *
 * Coordinates (metres, seconds). The probe lies in z = 0, z grows into the
 * medium. Rows are line elements along x, distributed along y; columns are
 * line elements along y, distributed along x. Element i of either side sits at
 * (i - (n_elements - 1) / 2) * pitch.
 *
 * One emission: one side transmits a defocused (cylindrical) wave from a virtual
 * line source behind the array, the other side receives. The engine calls the
 * receiving axis "lateral" (the paper's x) and the transmitting axis
 * "elevation" (the paper's y): with transmit = rows the lateral axis is x,
 * with transmit = columns it is y. Output volumes are always [x][y][z].
 *
 * Time reference: t = 0 when the transmitted wave crosses z = 0 in front of the
 * virtual source, so the time of flight to (lateral l, elevation e, depth z)
 * for the receiver at lateral position l_i is
 *     ToF = (sqrt((e - e_s)^2 + (z - z_s)^2) + z_s + sqrt((l - l_i)^2 + z^2)) / c
 * which in the plane e = e_s is the paper's eq. 21: (z + sqrt(dl^2 + z^2)) / c.
 */
#ifndef INCLUDED_BEAMFORM_ENGINES_RCA_DAS_ENGINE_H
#define INCLUDED_BEAMFORM_ENGINES_RCA_DAS_ENGINE_H

#include <gnuradio/beamform/runtime/gpu_api.h>
#include <complex>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace gr {
namespace beamform {

//! Which side of the RCA transmits (the other side receives).
enum class rca_transmit { rows, columns };
//! RF sample type of the input items.
enum class rca_sample_type { int16, float32 };
//! What an output voxel holds.
enum class rca_output {
    iq,       //!< complex base-band voxel (fc32), demodulated by exp(-2 pi i (2 f_d / c) z)
    envelope, //!< |iq| (float32)
    db        //!< 20 log10(envelope / reference) (float32), floored at -300 dB
};
//! Data type the beamformer interpolates.
enum class rca_processing {
    iq,  //!< analytic (Hilbert-transformed) matched filter, demodulation, decimation
    real //!< real matched filter; iq/envelope/dB outputs by an axial Hilbert FIR
};
enum class rca_method {
    dual_stage,  //!< one xz image per emission, extrapolated (eqs. 4-5, 21-22)
    conventional //!< full 3D delay-and-sum, N_rx N_tx terms per voxel
};
/*!
 * Arithmetic of a GPU engine's beamforming stages. The CPU engine (and the
 * emulated device, which runs it) always computes in float32 and ignores it.
 */
enum class rca_gpu_precision {
    float32, //!< float32 samples and sums (relative error vs the CPU engine ~1e-4)
    //! half-precision storage and interpolation of the filtered data and the
    //! stage-1 images (I/Q: half2_pipelined, real: half2_real; ~1.25x the
    //! volume rate, relative error ~7e-4, bound 2e-3); needs int16 input and
    //! the dual-stage method
    float16
};

//! The accepted gpu_precision names, for messages: "\"float32\", \"float16\"".
std::string rca_gpu_precision_choices();
//! "float32" or "float16".
std::string rca_gpu_precision_name(rca_gpu_precision precision);
/*!
 * The precision named \p name; std::invalid_argument naming gpu_precision,
 * the value and the accepted names otherwise.
 */
rca_gpu_precision rca_parse_gpu_precision(const std::string& name);

//! One axis of the output grid: count points start, start + step, ...
struct rca_grid_axis {
    double start = 0.0;
    double step = 1e-4;
    size_t count = 1;
    double at(size_t i) const { return start + step * double(i); }
};

struct rca_das_config {
    // --- Probe and acquisition (Table I) ---
    size_t n_elements = 128;            //!< elements per side = receivers per emission
    double pitch = 200e-6;              //!< element pitch [m]
    double center_frequency = 6e6;      //!< f0 of the pulse [Hz]
    double sampling_frequency = 31.25e6; //!< fs of the RF data [Hz]
    double speed_of_sound = 1540.0;     //!< c [m/s]
    double t_start = 0.0;               //!< time of RF sample 0 [s] (see the file comment)
    size_t n_samples = 894;             //!< RF samples per receiver and emission

    // --- Emission sequence: one virtual line source per emission ---
    rca_transmit transmit = rca_transmit::rows;
    //! Position of each virtual source along the transmitting side's axis [m].
    std::vector<double> source_positions;
    //! Depth z_s of each virtual source [m], <= 0 (defocused, behind the array).
    std::vector<double> source_depths;

    // --- Output grid (probe coordinates); the volume item is [x][y][z] ---
    rca_grid_axis x, y, z;

    // --- Beamforming ---
    double f_number = 0.6; //!< F# of the Hann dynamic receive and transmit apodization
    //! Matched filter f (N_f taps, applied as the convolution of eq. 18).
    std::vector<float> filter_taps;
    size_t decimation = 3;              //!< keep every decimation-th filter output
    double demodulation_frequency = 0;  //!< f_d (the paper's f0 hat); 0: center_frequency
    rca_processing processing = rca_processing::iq;
    rca_sample_type input = rca_sample_type::int16;
    rca_output output = rca_output::envelope;
    double db_reference = 0; //!< envelope of 0 dB; 0: the maximum of each volume
    rca_method method = rca_method::dual_stage;
    //! Depth samples of the stage-1 images; 0 picks the fewest that cover every
    //! look-up z' = f(y, z) of stage 2 (eq. 22).
    size_t lri_z_count = 0;
    //! Arithmetic on a GPU; validate() refuses float16 without int16 input and
    //! the dual-stage method on every device, so that a configuration valid on
    //! the CPU stays valid on a GPU.
    rca_gpu_precision gpu_precision = rca_gpu_precision::float32;

    size_t n_emissions() const { return source_positions.size(); }
    size_t input_item_bytes() const;  //!< [n_elements][n_samples] of int16 or float32
    size_t n_voxels() const { return x.count * y.count * z.count; }
    size_t output_item_bytes() const; //!< n_voxels * (8 for iq, else 4)

    /*!
     * Throws std::invalid_argument naming the parameter and its accepted range.
     * A grid coarser than the sampling criterion of eq. 7 is legal but reported
     * through \p warn (see sampling_warnings()).
     */
    void validate(const std::function<void(const std::string&)>& warn = {}) const;

    /*!
     * Eq. 7: dx, dy < c / f_N * sqrt((2 F#)^2 + 1) and dz < c / (2 f_N), with f_N
     * the Nyquist rate of the data the beamformer interpolates: the band where
     * the matched filter's |F(f)|^2 is within 36 dB of its peak (the paper's
     * bandwidth measure) gives f_N = BW for I/Q data and 2 f_max for real data.
     * Also reports a decimation that aliases that band. Empty when all is fine.
     */
    std::vector<std::string> sampling_warnings() const;
};

/*!
 * Quantities derived from a validated config, shared by the CPU and GPU
 * engines so that both compute exactly the same function.
 */
struct rca_das_geometry {
    size_t n_lat = 0, n_elev = 0, n_z = 0; //!< grid counts along lateral, elevation, z
    rca_grid_axis lat, elev, z;
    size_t stride_lat = 0, stride_elev = 0; //!< voxel = lat*stride_lat + elev*stride_elev + iz

    size_t n_rx = 0, n_tx = 0;
    double element_first = 0; //!< lateral position of receiver 0; receiver i at first + i*pitch
    double pitch = 0;
    double c = 0;
    double f_number = 0;
    double demod_frequency = 0; //!< f_d
    bool iq = true;

    // Pre-processed (filtered, decimated) data: sample k is at time t0 + k / fs.
    size_t n_taps = 0;
    size_t decimation = 1;
    size_t n_t = 0;    //!< samples per receiver after filtering and decimation
    double t0 = 0;     //!< time of sample 0, filter delay (N_f - 1) / 2 included
    double fs = 0;     //!< sampling rate after decimation
    //! Taps as applied: the analytic filter f + i H{f} for I/Q, f itself for real.
    std::vector<std::complex<float>> taps;

    // Stage-1 images LRI[lat][emission][iz], iz over n_z_lri samples from z.start.
    size_t n_z_lri = 0;

    std::vector<double> source_elev; //!< virtual source positions (elevation axis)
    std::vector<double> source_z;    //!< virtual source depths

    double receiver_position(size_t i) const { return element_first + pitch * double(i); }

    static rca_das_geometry from(const rca_das_config& config);
};

//! Analytic version f + i H{f} of real taps (FFT method, as scipy.signal.hilbert).
std::vector<std::complex<float>> rca_analytic_taps(const std::vector<float>& taps);

//! Taps of the axial Hilbert FIR used by real processing (odd length, Blackman).
std::vector<float> rca_axial_hilbert_taps();

/*!
 * A matched filter for a Gaussian-modulated pulse at \p f0 whose -6 dB
 * bandwidth is \p fractional_bandwidth * f0: the pulse itself (it is
 * symmetric), sampled at \p fs on \p n_taps points around its centre and
 * scaled to unit gain at f0.
 */
std::vector<float> rca_gaussian_pulse_taps(double f0,
                                           double fs,
                                           double fractional_bandwidth,
                                           size_t n_taps);

/*!
 * Interpolations per volume, counted the way the paper's Table IV counts them:
 * non-zero beamforming terms (|apodization index| <= 0.5 and a look-up inside
 * the data), each one cubic interpolation of a sample.
 */
struct rca_das_counts {
    uint64_t stage1 = 0;       //!< per volume (all emissions)
    uint64_t stage2 = 0;       //!< per volume (all lateral planes)
    uint64_t conventional = 0; //!< per volume, conventional method
    //! FLOP per interpolation as the paper counts them (Table IV): 22 I/Q, 8 real.
    int flop_per_interpolation = 22;
};
rca_das_counts rca_count_interpolations(const rca_das_config& config, bool conventional = true);

/*!
 * \brief RF emissions -> volumes.
 *
 * Input: n_emissions items per volume, item j = emission j of the sequence,
 * [n_elements][n_samples] of int16 or float32. Output: one volume per
 * n_emissions inputs, [x][y][z] of fc32 (iq) or float32 (envelope, db).
 *
 * Pointers live where the engine runs: host memory for cpu and emu, device
 * memory for cuda and hip. Calls enqueue on \p stream and return; the caller
 * synchronizes.
 */
class rca_das_engine
{
public:
    virtual ~rca_das_engine() = default;

    //! \p n_volumes volumes from n_volumes * n_emissions input items.
    virtual void execute(const void* in, void* out, size_t n_volumes, stream_handle stream);

    /*!
     * Stage-wise form of execute(), for callers that overlap the arrival of RF
     * data with the work: pre-process (and, dual-stage, beamform stage 1 for)
     * \p count emissions starting at emission \p first of the sequence. Calls on
     * different streams may overlap if they cover different emissions.
     */
    virtual void add_emissions(const void* in,
                               size_t first,
                               size_t count,
                               stream_handle stream) = 0;
    /*!
     * Build the volume from the emissions added since the last call; the caller
     * has ordered all add_emissions() work before \p stream.
     */
    virtual void finish_volume(void* out, stream_handle stream) = 0;

    //! One line on what runs (kernels, batch sizes, multi-pixel), for logs and benchmarks.
    virtual std::string describe() const = 0;

    const rca_das_config& config() const { return d_config; }
    const rca_das_geometry& geometry() const { return d_geometry; }

    static std::unique_ptr<rca_das_engine> make(const rca_das_config& config,
                                                const device_spec& device);

protected:
    explicit rca_das_engine(const rca_das_config& config)
        : d_config(config), d_geometry(rca_das_geometry::from(config))
    {
    }
    rca_das_config d_config;
    rca_das_geometry d_geometry;
};


std::unique_ptr<rca_das_engine> make_rca_das_cpu(const rca_das_config& config);

/*!
 * A line for the log when \p config asks for something \p device's engine
 * does not do: gpu_precision float16 on cpu or emu, whose CPU engine computes
 * in float32. Empty otherwise.
 */
std::string rca_das_device_notice(const rca_das_config& config, const device_spec& device);

} // namespace beamform
} // namespace gr

#endif
