# Copyright 2026 gr-beamform authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""Celestial tracking (tracking.DelayModel, delay_tracker): delays against an
independent astropy computation and hand-checked cases, a tracked source staying
in its beam for an hour, phase continuity through the real phase_shift block,
offline operation with a user IERS-A file, and bad input."""
import logging
import math
import socket
import urllib.request
import warnings

import numpy as np
import pmt
import pytest
from gnuradio import beamform, blocks, gr

from gnuradio.beamform import tracking
from gnuradio.beamform.delay_tracker import delay_tracker

C = 299792458.0
# Westerbork (approximate geodetic WGS84 position) and Vega (ICRS, Hipparcos epoch 2000)
SITE = tracking.Site(52.9145, 6.6031, 16.0)
VEGA = "radec:279.23473479,38.78368896"
# Inside the bundled IERS-B table (it ends in December 2022): full accuracy.
T_2021 = 1622584800.0          # 2021-06-01T22:00:00 UTC; Vega is at az ~90, el ~52


def altaz_direction(site, ra_deg, dec_deg, unix):
    """East, north, up unit vectors of an ICRS source from astropy's own AltAz
    transform (no refraction): the independent reference."""
    from astropy import units as u
    from astropy.coordinates import AltAz, EarthLocation, SkyCoord
    from astropy.time import Time
    from astropy.utils import iers
    iers.conf.auto_download = False
    loc = EarthLocation.from_geodetic(site.longitude_deg * u.deg, site.latitude_deg * u.deg,
                                      site.height_m * u.m)
    t = Time(unix, format="unix", scale="utc")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        aa = SkyCoord(ra_deg * u.deg, dec_deg * u.deg).transform_to(AltAz(obstime=t, location=loc))
    az, el = aa.az.rad, aa.alt.rad
    return np.stack([np.cos(el) * np.sin(az), np.cos(el) * np.cos(az), np.sin(el)], axis=-1)


def random_planar_station(rng, n, radius):
    r = radius * np.sqrt(rng.uniform(0, 1, n))
    a = rng.uniform(0, 2 * np.pi, n)
    return np.stack([r * np.sin(a), r * np.cos(a), np.zeros(n)], axis=1)


# -- (a) the delay model against independent computations -------------------------

def test_vega_delays_match_astropy_altaz_within_1ps(rng):
    positions = np.vstack([[0, 0, 0], [100, 0, 0], rng.uniform(-100, 100, (6, 3))])
    model = tracking.DelayModel(SITE, positions, VEGA)
    times = T_2021 + rng.uniform(0, 6 * 3600, 5)
    for t in times:
        s = altaz_direction(SITE, 279.23473479, 38.78368896, t)
        expected = positions @ s / C           # tau = (p - p_0) . s / c, p_0 = origin
        got = model.solution(t).delays
        assert np.max(np.abs(got - expected)) < 1e-12
    # The 100 m east baseline: what aberration alone (~20 arcsec) would change is
    # ~30 ps, so 1 ps tests the apparent direction, not just the catalogue one.
    # (over the random times: at one of them the source may sit near the
    # baseline's normal plane, where its delay is close to zero)
    assert max(abs(model.solution(t).delays[1]) for t in times) > 1e-8


def test_delays_accept_astropy_time_unix_and_skycoord_alike():
    from astropy.time import Time
    model = tracking.DelayModel(SITE, [[0, 0, 0], [100, 0, 0], [0, 70, 1]], VEGA)
    a = model.solution(T_2021 + 1234.5).delays
    b = model.solution(Time(T_2021 + 1234.5, format="unix", scale="utc")).delays
    np.testing.assert_allclose(a, b, rtol=0, atol=1e-16)
    from astropy import units as u
    from astropy.coordinates import SkyCoord
    vega = SkyCoord(279.23473479 * u.deg, 38.78368896 * u.deg, frame="icrs")
    c = tracking.DelayModel(SITE, [[0, 0, 0], [100, 0, 0], [0, 70, 1]], vega)
    np.testing.assert_allclose(c.solution(T_2021 + 1234.5).delays, a, rtol=0, atol=1e-20)
    # The same source given in galactic coordinates: converted to ICRS first.
    d = tracking.DelayModel(SITE, [[0, 0, 0], [100, 0, 0], [0, 70, 1]], vega.galactic)
    np.testing.assert_allclose(d.solution(T_2021 + 1234.5).delays, a, rtol=0, atol=1e-17)


def test_hand_checked_zenith_and_horizon():
    positions = [[0, 0, 0], [100, 0, 0], [0, 100, 0]]
    zenith = tracking.DelayModel(SITE, positions, "azel:0,90").solution(T_2021)
    np.testing.assert_allclose(zenith.delays, 0.0, atol=1e-20)
    east = tracking.DelayModel(SITE, positions, "azel:90,0").solution(T_2021)
    np.testing.assert_allclose(east.delays, [0, 100 / C, 0], rtol=1e-15, atol=1e-20)
    assert np.all(east.rates == 0)
    # l/m fixed in the station frame: lm (1, 0) is the eastern horizon too.
    lm = tracking.DelayModel(SITE, positions, "lm:1,0").solution(T_2021)
    np.testing.assert_allclose(lm.delays, east.delays, atol=1e-20)


def test_same_convention_as_phase_shift_geometry(rng):
    """The delays for a fixed az/el equal the project's geometric_delays, which
    phase_shift's set_geometry/point_at use."""
    positions = rng.uniform(-50, 50, (7, 3))
    for az, el in rng.uniform([0, 5], [360, 90], (4, 2)):
        model = tracking.DelayModel(SITE, positions, f"azel:{az},{el}", reference_index=2)
        np.testing.assert_allclose(model.solution(T_2021).delays,
                                   beamform.geometric_delays(positions, az, el, 2),
                                   rtol=1e-13, atol=1e-20)


@pytest.mark.parametrize("sign", [+1, -1])
def test_source_at_the_tracked_direction_adds_coherently(sign):
    """Vega simulated by array_source from the tracker's own direction, phase_shift
    given the tracker's delays: every receiver in phase. The opposite sign is not."""
    rng = np.random.default_rng(11)
    positions = random_planar_station(rng, 9, 20.0)
    positions[:, 2] = rng.uniform(-0.5, 0.5, 9)
    sol = tracking.DelayModel(SITE, positions, VEGA).solution(T_2021)
    fs, fc, f_off = 1e6, 1.4204e9, 123_456.7
    tb = gr.top_block()
    src = beamform.array_source(positions.tolist(), fs, fc, [sol.centre_az_el[0]],
                                [sol.centre_az_el[1]], [f_off])
    head = blocks.head(gr.sizeof_gr_complex * 9, 500)
    ps = beamform.phase_shift(1, 9, [fc + f_off], 1 / fs, (sign * sol.delays).tolist(), [], [],
                              0.0, "cpu")
    snk = blocks.vector_sink_c(9)
    tb.connect(src, head, ps, snk)
    tb.run()
    out = np.array(snk.data()).reshape(-1, 9)
    spread = np.max(np.abs(np.angle(out * np.conj(out[:, :1]))))
    if sign > 0:
        assert spread < 1e-5
    else:
        assert spread > 0.5


def test_rates_match_a_wide_central_difference():
    """Rates by central difference over +-1 s against +-10 s: the truncation
    error is ~|b|/c w^3 h^2 / 6, 6e-20 s/s for +-1 s and 6e-18 s/s for +-10 s on
    300 m (w = 7.29e-5 rad/s, the Earth's rotation)."""
    positions = [[0, 0, 0], [300, 0, 0], [0, -250, 3]]
    model = tracking.DelayModel(SITE, positions, VEGA)
    rates = model.solution(T_2021 + 500).rates
    d = model.delays(T_2021 + 500 + np.array([-10.0, 10.0]))
    wide = (d[1] - d[0]) / 20.0
    assert np.max(np.abs(rates[1:])) > 1e-11     # Earth rotation: ~7e-11 s/s on 300 m
    np.testing.assert_allclose(rates, wide, rtol=0, atol=1e-17)


def test_site_from_itrf_round_trip_and_itrf_positions(rng):
    xyz = SITE.itrf()
    site = tracking.Site.from_itrf(*xyz)
    assert abs(site.latitude_deg - SITE.latitude_deg) < 1e-9
    assert abs(site.longitude_deg - SITE.longitude_deg) < 1e-9
    assert abs(site.height_m - SITE.height_m) < 1e-6
    enu = rng.uniform(-100, 100, (5, 3))
    rot = SITE._enu_rotation()
    itrf = xyz + enu @ rot           # ENU -> ITRF (rot is orthonormal)
    np.testing.assert_allclose(SITE.enu_from_itrf(itrf), enu, atol=1e-6)
    a = tracking.DelayModel(SITE, enu, VEGA).solution(T_2021).delays
    b = tracking.DelayModel(SITE, itrf, VEGA, positions_frame="itrf").solution(T_2021).delays
    np.testing.assert_allclose(a, b, atol=1e-16)


# -- (b) a tracked source stays in its beam for an hour ---------------------------

def test_tracked_source_stays_in_beam_for_an_hour():
    rng = np.random.default_rng(3)
    positions = random_planar_station(rng, 48, 50.0)       # 100 m aperture
    f = 1.4e9                                               # beam ~0.12 deg wide
    interval = 10.0
    model = tracking.DelayModel(SITE, positions, VEGA)
    starts = T_2021 + interval * np.arange(360)             # one hour of intervals
    # Each interval uses the solution phase_shift would get: delays and rates at
    # its middle, applied as delay + rate (t - t_mid).
    sols = [model.solution(t + interval / 2) for t in starts]
    t_eval = starts[:, None] + rng.uniform(0, interval, (360, 2))
    truth = altaz_direction(SITE, 279.23473479, 38.78368896, t_eval.ravel()) @ positions.T / C
    applied = np.array([s.delays + s.rates * (t - s.time_unix)
                        for s, ts in zip(sols, t_eval) for t in ts])
    fixed = np.repeat(sols[0].delays[None], len(applied), axis=0)   # untracked: fixed az/el

    def power_db(tau_applied):
        beam = np.mean(np.exp(2j * np.pi * f * (truth - tau_applied)), axis=1)
        return 10 * np.log10(np.abs(beam) ** 2)

    tracked = power_db(applied)
    assert tracked.min() > -0.1, tracked.min()
    assert power_db(fixed).min() < -10.0


# -- (c) phase continuity through the real phase_shift block ----------------------

def test_phase_continuous_across_updates_through_phase_shift():
    rng = np.random.default_rng(5)
    positions = np.array([[0, 0, 0], [300, 0, 0], [0, 300, 0], [-200, 150, 0]], float)
    n_rx, n_ch = 4, 3
    freqs = [1.4e9 + 100e3 * k for k in range(n_ch)]
    item_period = 0.01                    # 100 items per second of stream time
    n_items, interval = 700, 1.0
    model = tracking.DelayModel(SITE, positions, VEGA)
    tracker = delay_tracker(model, n_ch * n_rx * 8, 1 / item_period, start_time=T_2021,
                            interval_s=interval)
    init = tracker.initial_delays()
    ps = beamform.phase_shift(n_ch, n_rx, freqs, item_period, init["delays"], init["rates"], [],
                              init["t0"], "cpu")
    data = ((0.5 + rng.uniform(0, 1, (n_items, n_ch * n_rx)))
            * np.exp(2j * np.pi * rng.uniform(0, 1, (n_items, n_ch * n_rx)))).astype(np.complex64)
    src = blocks.vector_source_c(data.ravel().tolist(), False, n_ch * n_rx)
    # Small buffers: many work calls, so the updates land all through the run.
    src.set_max_output_buffer(16)
    snk = blocks.vector_sink_c(n_ch * n_rx)
    tb = gr.top_block()
    tb.connect(src, ps, snk)
    tb.connect(src, tracker)
    tb.msg_connect(tracker, "delays", ps, "delays")
    tb.run()
    out = np.array(snk.data()).reshape(n_items, n_ch, n_rx)
    applied = np.angle(out / data.reshape(n_items, n_ch, n_rx))
    updates = sorted(t.offset for t in snk.tags()
                     if pmt.symbol_to_string(t.key) == "phase_shift_update")
    assert tracker.updates_sent == 7 and len(updates) >= 3, (tracker.updates_sent, updates)

    # At every item the applied phase is -2 pi f tau for the exact geometric delay.
    tau = model.delays(T_2021 + item_period * np.arange(n_items))       # (items, receivers)
    expected = -2 * np.pi * np.asarray(freqs)[None, :, None] * tau[:, None, :]
    err = np.angle(np.exp(1j * (applied - expected)))
    assert np.max(np.abs(err)) < 1e-4

    # Across each update: the step between neighbouring items is the rate's.
    rates = np.array(tracker.last_solution.rates)
    step = -2 * np.pi * np.asarray(freqs)[:, None] * rates[None, :] * item_period
    for n in updates:
        if n == 0:
            continue
        jump = np.angle(np.exp(1j * (applied[n] - applied[n - 1] - step)))
        assert np.max(np.abs(jump)) < 1e-4, (n, jump)
    # What a model without rates would jump by at an update: well above that bound.
    assert np.max(np.abs(2 * np.pi * freqs[-1] * rates * interval)) > 0.1


def test_pointing_sent_only_when_beams_move():
    positions = random_planar_station(np.random.default_rng(2), 6, 30.0)
    model = tracking.DelayModel(SITE, positions, VEGA,
                                beams=[VEGA, "radec:280.0,38.0", "lm:0.1,0.2"])
    debug = blocks.message_debug()
    n_items = 600       # 6 s, 6 updates

    def run(tolerance):
        tracker = delay_tracker(model, 8, 100.0, start_time=T_2021, interval_s=1.0,
                                pointing_tolerance_deg=tolerance)
        tb = gr.top_block()
        tb.connect(blocks.null_source(8), blocks.head(8, n_items), tracker)
        tb.msg_connect(tracker, "pointing", debug, "store")
        tb.run()
        return tracker

    tight = run(0.0)
    assert tight.updates_sent == 6 and tight.pointing_updates_sent == 6
    loose = run(1.0)      # the sky moves ~0.025 deg in 6 s
    assert loose.pointing_updates_sent == 1
    msg = debug.get_message(0)
    lm = np.array(pmt.f64vector_elements(pmt.dict_ref(msg, pmt.intern("lm"), pmt.PMT_NIL)))
    sol = model.solution(T_2021 + 0.5)
    np.testing.assert_allclose(lm.reshape(-1, 2), sol.beams_lm - sol.centre_lm, atol=1e-6)
    np.testing.assert_allclose(lm.reshape(-1, 2)[0], 0.0, atol=1e-6)   # beam 0 = the centre


# -- (d) offline: no network, user IERS-A file -----------------------------------

def _put(line, first, last, text):
    width = last - first + 1
    text = text.rjust(width)
    assert len(text) == width
    return line[:first - 1] + text + line[last:]


def finals2000a_line(mjd, pm_x, pm_y, ut1_utc, flag):
    """One line of the IERS finals2000A format (columns of its ReadMe: Bulletin A
    polar motion, UT1-UTC, LOD, nutation; Bulletin B columns left blank)."""
    import erfa
    y, m, d, _ = erfa.jd2cal(2400000.5, mjd)
    fields = [(1, 2, f"{y % 100:02d}"), (3, 4, f"{m:2d}"), (5, 6, f"{d:2d}"),
              (8, 15, f"{mjd:8.2f}"), (17, 17, flag), (19, 27, f"{pm_x:9.6f}"),
              (28, 36, f"{1e-5:9.6f}"), (38, 46, f"{pm_y:9.6f}"), (47, 55, f"{1e-5:9.6f}"),
              (58, 58, flag), (59, 68, f"{ut1_utc:10.7f}"), (69, 78, f"{1e-5:10.7f}"),
              (80, 86, f"{0.0:7.4f}"), (87, 93, f"{0.01:7.4f}"), (96, 96, flag),
              (98, 106, f"{0.0:9.3f}"), (107, 115, f"{0.1:9.3f}"), (117, 125, f"{0.0:9.3f}"),
              (126, 134, f"{0.1:9.3f}")]
    line = " " * 134
    for first, last, text in fields:
        line = _put(line, first, last, text)
    return line


@pytest.fixture
def no_network(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError(f"network access attempted: {args!r}")
    monkeypatch.setattr(urllib.request, "urlopen", refuse)
    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


def test_user_iers_a_file_is_used_offline(tmp_path, no_network):
    import erfa
    mjd0 = int(T_2021 / 86400 + 40587)
    ut1_utc, pm_x, pm_y = 0.4321, 0.123, 0.345
    path = tmp_path / "finals2000A.test"
    path.write_text("\n".join(finals2000a_line(m, pm_x, pm_y, ut1_utc, "I" if m < mjd0 + 5 else "P")
                              for m in range(mjd0 - 5, mjd0 + 8)) + "\n")
    positions = [[0, 0, 0], [100, 0, 0], [0, 100, 0]]
    with_a = tracking.DelayModel(SITE, positions, VEGA, iers_a_file=str(path)).solution(T_2021)
    with_b = tracking.DelayModel(SITE, positions, VEGA).solution(T_2021)
    # Independent: erfa's observed place with the fixture's values by hand.
    jd1, jd2, _ = tracking.as_unix_seconds(T_2021)
    arcsec = math.pi / 648000
    aob, zob, *_ = erfa.atco13(math.radians(279.23473479), math.radians(38.78368896), 0, 0, 0, 0,
                               jd1, jd2, ut1_utc, math.radians(SITE.longitude_deg),
                               math.radians(SITE.latitude_deg), SITE.height_m, pm_x * arcsec,
                               pm_y * arcsec, 0, 10, 0.5, 1e4)
    assert abs(with_a.centre_az_el[0] - math.degrees(aob)) < 1e-9
    assert abs(with_a.centre_az_el[1] - (90 - math.degrees(zob))) < 1e-9
    # The IERS-B value that day (about -0.19 s) is far from the fixture's 0.4321 s.
    assert abs(with_a.centre_az_el[0] - with_b.centre_az_el[0]) > 1e-3


def test_beyond_the_bundled_table_works_offline_and_logs_once(no_network, caplog):
    model = tracking.DelayModel(SITE, [[0, 0, 0], [100, 0, 0]], VEGA)
    late = 1790000000.0            # 2026-09: after the bundled IERS-B table
    with caplog.at_level(logging.WARNING, logger="gnuradio.beamform.tracking"):
        a = model.solution(late)
        model.solution(late + 60)
    outside = [r for r in caplog.records if "outside the bundled IERS-B" in r.getMessage()]
    assert len(outside) == 1
    assert np.all(np.isfinite(a.delays)) and abs(a.delays[1]) > 0
    from astropy.utils import iers
    assert iers.conf.auto_download is False


# -- (e) bad input ------------------------------------------------------------------

def test_below_horizon_names_source_and_time():
    # Dec -70 never rises at latitude 53.
    model = tracking.DelayModel(SITE, [[0, 0, 0], [10, 0, 0]], "radec:100,-70")
    with pytest.raises(ValueError, match=r"radec:100,-70.*below the minimum.*2021-06-01T22:00"):
        model.solution(T_2021)


@pytest.mark.parametrize("spec, match", [
    ("radec:100,95", "dec_deg"), ("radec:400,10", "ra_deg"), ("radec:abc,1", "ra_deg"),
    ("azel:10,-91", "elevation_deg"), ("lm:0.9,0.9", "l\\^2 \\+ m\\^2"),
    ("Cas A", "unknown target 'Cas A'"), ("radec:nan,1", "ra_deg"),
])
def test_bad_coordinates(spec, match):
    with pytest.raises(ValueError, match=match):
        tracking.DelayModel(SITE, [[0, 0, 0]], spec)


def test_catalogue_file_names(tmp_path):
    cat = tmp_path / "sources.txt"
    cat.write_text("# name ra dec\nVega 18:36:56.336 +38:47:01.28\nCygA 299.868 40.734\n")
    model = tracking.DelayModel(SITE, [[0, 0, 0], [100, 0, 0]], "vega", catalogue=str(cat))
    assert abs(model.phase_centre.a - 279.2347) < 1e-3 and model.phase_centre.name == "Vega"
    with pytest.raises(ValueError, match="unknown target 'M31'.*cyga, vega"):
        tracking.DelayModel(SITE, [[0, 0, 0]], "M31", catalogue=str(cat))


@pytest.mark.parametrize("args, match", [
    ((100.0, 6.0, 0.0), "latitude_deg"), ((52.0, float("inf"), 0.0), "longitude_deg"),
    ((52.0, 6.0, 6.4e6), "height_m"),
])
def test_bad_site(args, match):
    with pytest.raises(ValueError, match=match):
        tracking.Site(*args)


def test_bad_itrf_site_and_positions():
    with pytest.raises(ValueError, match="geocentre"):
        tracking.Site.from_itrf(0.0, 0.0, 0.0)
    with pytest.raises(ValueError, match="positions"):
        tracking.DelayModel(SITE, [[0, 0]], VEGA)
    with pytest.raises(ValueError, match="reference_index"):
        tracking.DelayModel(SITE, [[0, 0, 0]], VEGA, reference_index=3)
    with pytest.raises(ValueError, match="iers_a_file"):
        tracking.DelayModel(SITE, [[0, 0, 0]], VEGA, iers_a_file="/nonexistent/finals2000A.all")
    with pytest.raises(ValueError, match="local file"):
        tracking.DelayModel(SITE, [[0, 0, 0]], VEGA, iers_a_file="https://example.org/finals.all")
    with pytest.raises(ValueError, match="time"):
        tracking.DelayModel(SITE, [[0, 0, 0]], VEGA).solution(-5.0)


@pytest.mark.parametrize("kwargs, match", [
    ({"interval_s": 0.0}, "interval_s"), ({"interval_s": -1.0}, "interval_s"),
    ({"sample_rate": 0.0}, "sample_rate"), ({"pointing_tolerance_deg": -1.0}, "pointing_tolerance"),
    ({"pointing_mode": "radec"}, "pointing_mode"), ({"item_size": 0}, "item_size"),
])
def test_bad_tracker_parameters(kwargs, match):
    model = tracking.DelayModel(SITE, [[0, 0, 0], [1, 0, 0]], VEGA)
    args = dict(item_size=8, sample_rate=100.0, start_time=T_2021)
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        delay_tracker(model, **args)


def test_offset_lm_needs_a_planar_array():
    model = tracking.DelayModel(SITE, [[0, 0, 0], [10, 0, 0.5]], VEGA, beams=[VEGA])
    with pytest.raises(ValueError, match="planar"):
        delay_tracker(model, 8, 100.0, start_time=T_2021)
    delay_tracker(model, 8, 100.0, start_time=T_2021, pointing_mode="az_el")


def test_failed_updates_keep_the_last_solution_and_resume():
    """Vega rising: below the minimum elevation for the first seconds, then above.
    The failed updates send nothing (phase_shift keeps its delays), tracking resumes."""
    model0 = tracking.DelayModel(SITE, [[0, 0, 0], [100, 0, 0]], VEGA)
    el_mid = model0.solution(T_2021 + 3.0).centre_az_el[1]
    el_rate = model0.solution(T_2021 + 4.0).centre_az_el[1] - el_mid
    assert el_rate > 0              # rising
    model = tracking.DelayModel(SITE, [[0, 0, 0], [100, 0, 0]], VEGA, min_elevation_deg=el_mid)
    tracker = delay_tracker(model, 8, 100.0, start_time=T_2021, interval_s=1.0)
    debug = blocks.message_debug()
    tb = gr.top_block()
    tb.connect(blocks.null_source(8), blocks.head(8, 800), tracker)
    tb.msg_connect(tracker, "delays", debug, "store")
    tb.run()
    # Solutions at the interval middles 0.5, 1.5, 2.5 s are below el_mid (3.0 s).
    assert tracker.failures == 3
    assert tracker.updates_sent == 5 == debug.num_messages()
    t0 = pmt.to_double(pmt.dict_ref(debug.get_message(0), pmt.intern("t0"), pmt.PMT_NIL))
    assert t0 == pytest.approx(3.5)


def test_rx_time_tag_sets_the_clock():
    """No start_time: nothing is sent until an rx_time tag; then solutions follow
    from its item with its time."""
    model = tracking.DelayModel(SITE, [[0, 0, 0], [100, 0, 0]], VEGA)
    tracker = delay_tracker(model, 8, 100.0, start_time=None, interval_s=1.0)
    tag = gr.tag_t()
    tag.offset = 150
    tag.key = pmt.intern("rx_time")
    whole = int(T_2021) + 10
    tag.value = pmt.make_tuple(pmt.from_uint64(whole), pmt.from_double(0.25))
    src = blocks.vector_source_c([1j] * 450, False, 1, [tag])
    debug = blocks.message_debug()
    tb = gr.top_block()
    tb.connect(src, tracker)
    tb.msg_connect(tracker, "delays", debug, "store")
    tb.run()
    assert tracker.updates_sent == 3
    assert tracker.start_time == pytest.approx(whole + 0.25 - 1.5)
    t0 = pmt.to_double(pmt.dict_ref(debug.get_message(0), pmt.intern("t0"), pmt.PMT_NIL))
    assert t0 == pytest.approx(2.0)        # item 150 + half an interval (50 items)
    expected = model.solution(tracker.start_time + 2.0).delays
    got = pmt.f64vector_elements(pmt.dict_ref(debug.get_message(0), pmt.intern("delays"),
                                              pmt.PMT_NIL))
    np.testing.assert_allclose(got, expected, atol=1e-18)


def test_tracked_beam_through_phase_shift_and_tensor_beamformer():
    """Station chain: phase_shift tracks the phase centre, tensor_beamformer's beams
    come from the tracker's 'offset_lm' pointing. A plane wave from beam 1's target
    (2 deg from the centre) adds coherently in beam 1 once the pointing has landed;
    the beamformer's initial weights (all beams at the centre) do not."""
    from gnuradio.beamform import steering_helpers as sh
    rng = np.random.default_rng(9)
    n_rx, n_ch, n_items = 8, 2, 400
    positions = random_planar_station(rng, n_rx, 15.0)
    freqs = [1.4e9, 1.4e9 + 1e5]
    target = "radec:281.0,39.5"
    model = tracking.DelayModel(SITE, positions, VEGA, beams=[VEGA, target])
    tracker = delay_tracker(model, n_ch * n_rx * 8, 100.0, start_time=T_2021, interval_s=1.0)
    init = tracker.initial_delays()
    ps = beamform.phase_shift(n_ch, n_rx, freqs, 0.01, init["delays"], init["rates"], [],
                              init["t0"], "cpu")
    bf = sh.steered_beamformer(positions, freqs, lm=[(0.0, 0.0), (0.0, 0.0)],
                               output=beamform.beam_output.voltage, device="cpu")
    az, el = model.az_el(target, T_2021 + 2.0)
    signal = (rng.standard_normal((n_items, n_ch)) + 1j * rng.standard_normal((n_items, n_ch)))
    x = sh.plane_wave(positions, freqs, (float(az), float(el)), signal)
    src = blocks.vector_source_c(x.ravel().tolist(), False, n_ch * n_rx)
    src.set_max_output_buffer(16)      # many work calls: the pointing lands mid-run
    snk = blocks.vector_sink_c(n_ch * 2)
    tb = gr.top_block()
    tb.connect(src, ps, bf, snk)
    tb.connect(src, tracker)
    tb.msg_connect(tracker, "delays", ps, "delays")
    tb.msg_connect(tracker, "pointing", bf, "pointing")
    tb.run()
    assert bf.messages_rejected() == 0 and bf.weight_updates_applied() >= 1
    out = np.array(snk.data()).reshape(n_items, n_ch, 2)
    first = min(t.offset for t in snk.tags() if pmt.symbol_to_string(t.key) == "weights_update")
    gain = np.abs(out[:, :, 1]) / (n_rx * np.abs(signal))
    assert gain[first:].min() > 0.99
    if first > 0:       # items before the pointing landed: all beams at the centre
        assert gain[:first].max() < 0.7
    # Beam 0 (the centre) misses the source by 2 deg: the beam is ~1 deg wide.
    assert (np.abs(out[first:, :, 0]) / (n_rx * np.abs(signal[first:]))).max() < 0.7


def test_many_beams_equal_one_by_one(rng):
    """The beams' directions computed together equal each target's own (and a beam
    below the horizon is named)."""
    specs = [f"radec:{ra},{dec}" for ra, dec in rng.uniform([270, 30], [290, 50], (20, 2))]
    specs += ["azel:123,45", "lm:0.2,-0.1"]
    model = tracking.DelayModel(SITE, [[0, 0, 0], [10, 0, 0]], VEGA, beams=specs)
    together = model.solution(T_2021).beams_az_el
    for k, spec in enumerate(specs):
        az, el = model.az_el(spec, T_2021)
        assert abs(together[k, 0] - az) < 1e-12 and abs(together[k, 1] - el) < 1e-12
    low = tracking.DelayModel(SITE, [[0, 0, 0], [10, 0, 0]], VEGA, beams=specs + ["radec:10,-80"])
    with pytest.raises(ValueError, match="radec:10,-80.*below"):
        low.solution(T_2021)
