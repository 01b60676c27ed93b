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

/*
 * Register FFT of the tiled kernel's register-FFT variant: a length-L inverse
 * DFT (L = 2 ... 32, a power of two) of L values held by one thread, fully
 * unrolled so that every index and every twiddle exponent is a compile-time
 * constant: multiplications by 1, +-i and (+-1 +- i)/sqrt(2) become adds, the
 * others read exp(2 pi i e / L) from the N-entry table of exp(2 pi i k / N).
 * Stockham passes as in stockham_butterfly (radix 4, a last radix 2 for odd
 * log2 L) between two register arrays: natural order in and out.
 */

//! v * exp(2 pi i e / L), 0 <= e < L; e and L constants after unrolling.
template <typename C>
BF_HOST_DEVICE C twiddle_mul(C v, int e, int l, const C* twiddle, int n)
{
    if (e == 0)
        return v;
    if ((4 * e) % l == 0) { // i^(4e/L)
        const int q = 4 * e / l;
        C r = v;
        if (q == 1)
            r = cmul_i(v);
        else if (q == 2) {
            r.x = -v.x;
            r.y = -v.y;
        } else {
            r.x = v.y;
            r.y = -v.x;
        }
        return r;
    }
    if ((8 * e) % l == 0) { // an odd multiple of pi / 4: (+-1 +- i) / sqrt(2)
        const float h = 0.70710678118654752f;
        const int q = 8 * e / l; // 1, 3, 5, 7
        const float c = (q == 1 || q == 7) ? h : -h;
        const float s = (q == 1 || q == 3) ? h : -h;
        C r;
        r.x = (c * v.x) - (s * v.y);
        r.y = (c * v.y) + (s * v.x);
        return r;
    }
    return cmul(v, twiddle[e * (n / l)]);
}

/*!
 * In-register inverse DFT of length L: v[c] <- sum_k v[k] exp(2 pi i k c / L).
 * \param twiddle exp(2 pi i k / n), k < n; L divides n.
 */
template <int L, typename C>
BF_HOST_DEVICE void register_inverse_dft(C (&v)[L], const C* twiddle, int n)
{
    static_assert(L >= 2 && L <= 32 && (L & (L - 1)) == 0, "L: a power of two, 2 ... 32");
    C w[L];
    int ns = 1;
#pragma unroll
    for (int pass = 0; (1 << (2 * pass)) < L; pass++) {
        // Odd log2 L: the last pass is radix 2 (ns * 2 == L).
        const bool radix2 = ns * 2 == L;
        const int radix = radix2 ? 2 : 4;
        const int stride = L / radix;
#pragma unroll
        for (int j = 0; j < L / 2; j++) {
            if (j >= stride) // radix 4: L / 4 butterflies
                continue;
            const int jm = j % ns;
            const int tw_step = jm * (L / (ns * radix)); // in units of 2 pi / L
            const int out = (j - jm) * radix + jm;
            if (radix2) {
                C a[2] = { v[j], twiddle_mul(v[j + stride], tw_step, L, twiddle, n) };
                radix_inverse_dft<2>(a);
                w[out] = a[0];
                w[out + ns] = a[1];
            } else {
                C a[4];
#pragma unroll
                for (int r = 0; r < 4; r++)
                    a[r] = twiddle_mul(v[j + r * stride], r * tw_step, L, twiddle, n);
                radix_inverse_dft<4>(a);
#pragma unroll
                for (int k = 0; k < 4; k++)
                    w[out + k * ns] = a[k];
            }
        }
#pragma unroll
        for (int k = 0; k < L; k++)
            v[k] = w[k];
        ns *= radix;
    }
}

//! Split of the register FFT: N = A B, A = 2^ceil(log2 N / 2) points per
//! thread in the first pass, B = N / A threads per row (A >= B).
BF_HOST_DEVICE constexpr int register_fft_a(int log2_n) { return 1 << ((log2_n + 1) / 2); }
BF_HOST_DEVICE constexpr int register_fft_b(int log2_n) { return 1 << (log2_n / 2); }

//! Slot in a row of the intermediate Y[n2][c1] (n2 < B, c1 < A) between the
//! two passes: column c1 is contiguous (the second pass reads it), n2 XORed
//! with c1 mod B so that the first pass's writes (lanes over n2) and the
//! second pass's reads (lanes over c1) hit different banks.
BF_HOST_DEVICE constexpr int register_fft_mid_slot(int n2, int c1, int b)
{
    return c1 * b + (n2 ^ (c1 & (b - 1)));
}

//! Shared-memory row stride of the channelizer's FFT rows: one extra element
//! so that the rows of different receivers start in different banks.
BF_HOST_DEVICE int row_stride(int n) { return n + 1; }

//! Blocks of M samples in the input ring of pfb_tiled_ring_kernel
//! (pfb_tiled_ring.cuh), a shared-memory layout like the rows': a tile's
//! \p steps steps reach back O T_MAX - 1 blocks before their first.
BF_HOST_DEVICE constexpr int ring_blocks(int steps, int taps_max, int oversample)
{
    return steps + taps_max * oversample - 1;
}

} // namespace pfb_fft
} // namespace beamform
} // namespace gr

#endif
