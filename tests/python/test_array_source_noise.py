# Copyright 2026 gr-beamform authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""array_source's receiver noise: Gaussian with the requested power,
independent between receivers, circular, with no period, and the same stream
for a seed however GNU Radio cuts it into work calls."""
import numpy as np
import pytest
from gnuradio import beamform, blocks, gr
from scipy import stats

N_RX = 6
N_ITEMS = 1 << 17  # 786432 complex values: three times the noise table's 2^18 points
NOISE = 0.7        # RMS of the complex noise


def noise_only(n_items, seed=3, max_items=None, n_rx=N_RX):
    """[n_items][n_rx] fc32 samples of a source with no tones."""
    positions = [[float(a), 0.0, 0.0] for a in range(n_rx)]
    src = beamform.array_source(positions, 1e6, 1e9, [], [], [], noise_amplitude=NOISE,
                                seed=seed)
    if max_items is not None:
        src.set_max_noutput_items(max_items)
    tb = gr.top_block()
    head = blocks.head(8 * n_rx, n_items)
    sink = blocks.vector_sink_c(n_rx)
    tb.connect(src, head, sink)
    tb.run()
    return np.array(sink.data(), np.complex64).reshape(n_items, n_rx)


@pytest.fixture(scope="module")
def noise():
    return noise_only(N_ITEMS)


def test_power_and_circularity(noise):
    # Per receiver E|x|^2 = NOISE^2, NOISE^2 / 2 in each of re and im (the
    # standard error of these means is 0.3% and 0.4% here).
    power = np.mean(np.abs(noise) ** 2, axis=0)
    assert np.allclose(power, NOISE ** 2, rtol=0.02), power
    for part in (noise.real, noise.imag):
        assert np.allclose(np.var(part, axis=0), NOISE ** 2 / 2, rtol=0.02)
        assert np.all(np.abs(np.mean(part, axis=0)) < 0.01)
    # Circular: re and im uncorrelated, E[x^2] = 0.
    pseudo = np.abs(np.mean(noise ** 2, axis=0)) / NOISE ** 2
    assert np.all(pseudo < 0.015), pseudo


def test_each_part_is_normal(noise):
    sigma = NOISE / np.sqrt(2)
    for a in range(N_RX):
        for part in (noise[:, a].real, noise[:, a].imag):
            # Kolmogorov-Smirnov against N(0, sigma^2), and D'Agostino and
            # Pearson's test of skewness and kurtosis.
            assert stats.kstest(part / sigma, "norm").pvalue > 1e-3
            assert stats.normaltest(part).pvalue > 1e-3
            assert abs(stats.kurtosis(part)) < 0.05  # excess kurtosis: 0 for a normal


def test_receivers_are_independent(noise):
    # Normalized zero-lag cross-correlations: about 1 / sqrt(N) = 0.003 each.
    c = noise.conj().T @ noise / len(noise)
    rho = np.abs(c) / np.sqrt(np.outer(np.diag(c).real, np.diag(c).real))
    off_diagonal = rho[~np.eye(N_RX, dtype=bool)]
    assert off_diagonal.max() < 5 / np.sqrt(len(noise)), off_diagonal.max()


def test_no_period_in_the_stream(noise):
    # The values in the order they were made (item by item, receiver by
    # receiver): a repeat at any lag, between any receivers, within this run of
    # three times the table's size, would correlate the stream with itself at
    # that lag. Every lag's correlation must stay at the level of chance: over
    # L lags of a stream of L values the largest is about sqrt(ln L / L) =
    # 0.004; a repeated block of the table would give up to 1.
    x = noise.ravel().astype(np.complex128)
    n = len(x)
    spectrum = np.fft.fft(x, 2 * n)
    acf = np.fft.ifft(np.abs(spectrum) ** 2)[:n] / np.vdot(x, x).real
    worst = np.abs(acf[1:]).max()
    assert worst < 6 / np.sqrt(n), (worst, np.argmax(np.abs(acf[1:])) + 1)


def test_period_check_can_fail():
    # The check above on a stream that repeats the first 2^18 values once:
    # it must see the repeat.
    rng = np.random.default_rng(5)
    base = (rng.standard_normal(1 << 18) + 1j * rng.standard_normal(1 << 18)) / np.sqrt(2)
    x = np.concatenate([base, base, rng.standard_normal(1 << 18) + 0j])
    n = len(x)
    acf = np.fft.ifft(np.abs(np.fft.fft(x, 2 * n)) ** 2)[:n] / np.vdot(x, x).real
    assert np.abs(acf[1:]).max() > 6 / np.sqrt(n)


def test_same_stream_however_cut_into_work_calls():
    # 5 receivers: calls of at most 7 items (70 values, not a multiple of the
    # generator's 3 values per draw) against GNU Radio's own cut.
    whole = noise_only(5000, seed=9, n_rx=5)
    pieces = noise_only(5000, seed=9, max_items=7, n_rx=5)
    assert np.array_equal(whole, pieces)
    assert not np.array_equal(whole, noise_only(5000, seed=10, n_rx=5))
