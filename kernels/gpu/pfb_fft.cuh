/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The pieces of the channelizer's shared-memory FFT that need no GPU: one
 * butterfly of a Stockham autosort pass (radix 2 or 4) for the inverse DFT
 * X[c] = sum_n x[n] exp(+2 pi i n c / N), unnormalized (GNU Radio's
 * fft_complex_rev). Written as plain templates over a complex type with .x
 * and .y so that the C++ tests can run the same index arithmetic on the host
 * (host_stockham in tests/cpp/test_pfb_channelizer_gpu.cc) and the kernels run
 * it on the GPU.
 *
 * Stockham autosort, radix R, pass with sub-transform length Ns (1, R, R^2...):
 * butterfly j (0 <= j < N/R) reads src[j + r N/R], multiplies element r by
 * W^(r (j mod Ns) N / (Ns R)) with W = exp(2 pi i / N), does the R-point DFT
 * and writes dst[(j - j mod Ns) R + j mod Ns + r Ns]. After the passes the
 * result is in natural order, no bit reversal.
 */
#ifndef INCLUDED_BEAMFORM_KERNELS_PFB_FFT_CUH
#define INCLUDED_BEAMFORM_KERNELS_PFB_FFT_CUH

#if defined(__CUDACC__) || defined(__HIPCC__)
#define BF_HOST_DEVICE __host__ __device__ inline
#else
#define BF_HOST_DEVICE inline
#endif

namespace gr {
namespace beamform {
namespace pfb_fft {

template <typename C>
BF_HOST_DEVICE C cmul(C a, C b)
{
    C r;
    r.x = a.x * b.x - a.y * b.y;
    r.y = a.x * b.y + a.y * b.x;
    return r;
}

template <typename C>
BF_HOST_DEVICE C cadd(C a, C b)
{
    C r;
    r.x = a.x + b.x;
    r.y = a.y + b.y;
    return r;
}

template <typename C>
BF_HOST_DEVICE C csub(C a, C b)
{
    C r;
    r.x = a.x - b.x;
    r.y = a.y - b.y;
    return r;
}

//! i * a
template <typename C>
BF_HOST_DEVICE C cmul_i(C a)
{
    C r;
    r.x = -a.y;
    r.y = a.x;
    return r;
}

//! The R-point inverse DFT (R = 2 or 4) of v, in place: X_k = sum_n v_n i^(n k).
template <int R, typename C>
BF_HOST_DEVICE void radix_inverse_dft(C (&v)[R])
{
    static_assert(R == 2 || R == 4, "radix 2 or 4");
    if constexpr (R == 2) {
        const C a = v[0];
        v[0] = cadd(a, v[1]);
        v[1] = csub(a, v[1]);
    } else {
        const C a = cadd(v[0], v[2]);
        const C b = csub(v[0], v[2]);
        const C c = cadd(v[1], v[3]);
        const C d = cmul_i(csub(v[1], v[3]));
        v[0] = cadd(a, c);
        v[1] = cadd(b, d);
        v[2] = csub(a, c);
        v[3] = csub(b, d);
    }
}

/*!
 * One butterfly of a Stockham pass of radix R (2 or 4) on one row.
 * \param twiddle table of exp(2 pi i k / n), k = 0..n-1
 * \param log2_ns log2 of the sub-transform length Ns of this pass
 */
template <int R, typename C>
BF_HOST_DEVICE void
stockham_butterfly(const C* src, C* dst, const C* twiddle, int n, int log2_ns, int j)
{
    static_assert(R == 2 || R == 4, "radix 2 or 4");
    const int ns = 1 << log2_ns;
    const int stride = n / R;                     // distance of the inputs of a butterfly
    const int jm = j & (ns - 1);                  // position inside the sub-transform
    const int tw_step = jm * (stride >> log2_ns); // jm * N / (Ns * R)
    C v[R];
#pragma unroll
    for (int r = 0; r < R; r++)
        v[r] = src[j + r * stride];
#pragma unroll
    for (int r = 1; r < R; r++)
        v[r] = cmul(v[r], twiddle[r * tw_step]);
    radix_inverse_dft<R>(v);
    const int out = (j - jm) * R + jm;
#pragma unroll
    for (int k = 0; k < R; k++)
        dst[out + k * ns] = v[k];
}

//! Passes of a length-2^log2_n transform: radix 4 while it fits, then one radix 2.
BF_HOST_DEVICE int stockham_pass_count(int log2_n) { return (log2_n + 1) / 2; }

//! Radix of pass number \p pass (0-based) and log2 of its Ns.
BF_HOST_DEVICE int stockham_radix(int log2_n, int pass)
{
    return (2 * pass + 1 == log2_n) ? 2 : 4;
}
BF_HOST_DEVICE int stockham_log2_ns(int pass) { return 2 * pass; }

/*
 * In-place decimation-in-time FFT (the tiled kernel's: one buffer, no
 * ping-pong). Radices: one radix-2 stage first when log2 N is odd, then radix
 * 4. A stage of sub-transform length L and radix R combines R transforms of
 * length L/R that sit one after the other: butterfly (g, j), j < L/R, reads
 * the elements g L + j + q L/R (q < R), multiplies element q by
 * exp(2 pi i j q / L), does the R-point inverse DFT and writes bin k back to
 * g L + j + k L/R. Natural order out needs the input in mixed-radix digit-
 * reversed order: sample n goes to inplace_dit_slot(n).
 */

//! Stages of the in-place DIT transform of length 2^log2_n.
BF_HOST_DEVICE int inplace_dit_stage_count(int log2_n) { return (log2_n + 1) / 2; }

//! log2 of L after stage \p stage (0-based): 1 or 2 first, then +2 each.
BF_HOST_DEVICE int inplace_dit_log2_len(int log2_n, int stage)
{
    return (log2_n & 1) ? 2 * stage + 1 : 2 * stage + 2;
}

//! Slot of input sample \p n (0 <= n < 2^log2_n) so that the stages leave
//! bin c in slot c: the last stage (radix 4) splits n by n mod 4 into
//! quarters, recursively; a radix-2 first stage takes the last bit.
BF_HOST_DEVICE int inplace_dit_slot(int n, int log2_n)
{
    int slot = 0;
    int bits = log2_n;
    while (bits >= 2) {
        bits -= 2;
        slot |= (n & 3) << bits; // digit n mod 4 chooses the quarter of length 2^bits
        n >>= 2;
    }
    if (bits == 1)
        slot |= n & 1;
    return slot;
}

/*!
 * Butterfly \p b (0 <= b < N/R) of the in-place stage of length 2^log2_len
 * and radix R on one row. \p twiddle: exp(2 pi i k / N), k < N.
 */
template <int R, typename C>
BF_HOST_DEVICE void
inplace_dit_butterfly(C* row, const C* twiddle, int log2_n, int log2_len, int b)
{
    static_assert(R == 2 || R == 4, "radix 2 or 4");
    const int log2_quarter = log2_len - (R == 4 ? 2 : 1); // log2(L / R)
    const int j = b & ((1 << log2_quarter) - 1);
    const int base = ((b >> log2_quarter) << log2_len) + j;
    const int q_stride = 1 << log2_quarter;
    const int tw_step = j << (log2_n - log2_len); // j N / L
    C v[R];
#pragma unroll
    for (int q = 0; q < R; q++)
        v[q] = row[base + q * q_stride];
#pragma unroll
    for (int q = 1; q < R; q++)
        v[q] = cmul(v[q], twiddle[q * tw_step]);
    radix_inverse_dft<R>(v);
#pragma unroll
    for (int k = 0; k < R; k++)
        row[base + k * q_stride] = v[k];
}

//! Shared-memory row stride of the channelizer's FFT rows: one extra element
//! so that the rows of different receivers start in different banks.
BF_HOST_DEVICE int row_stride(int n) { return n + 1; }

} // namespace pfb_fft
} // namespace beamform
} // namespace gr

#endif
