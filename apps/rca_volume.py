#!/usr/bin/env python3
# -*- coding: utf-8 -*-

#
# SPDX-License-Identifier: GPL-3.0
#
# GNU Radio Python Flow Graph
# Title: RCA volume imaging (dual-stage beamformer)
# Author: gr-beamform
# Description: Simulated row-column emissions (point phantom) -> dual-stage RCA beamformer -> three orthogonal maximum-intensity projections
# GNU Radio version: 3.10.5.1

from packaging.version import Version as StrictVersion

if __name__ == '__main__':
    import ctypes
    import sys
    if sys.platform.startswith('linux'):
        try:
            x11 = ctypes.cdll.LoadLibrary('libX11.so')
            x11.XInitThreads()
        except:
            print("Warning: failed to XInitThreads()")

from PyQt5 import Qt
from gnuradio import qtgui
import sip
from gnuradio import beamform
from gnuradio import blocks
from gnuradio import gr
from gnuradio.filter import firdes
from gnuradio.fft import window
import sys
import signal
from argparse import ArgumentParser
from gnuradio.eng_arg import eng_float, intx
from gnuradio import eng_notation


def snipfcn_exit_snippet(self):
    # n_volumes > 0: leave the Qt loop once the source has ended the stream and
    # every block has finished (self is the top block here).
    if self.n_volumes > 0:
        import threading
        finished = threading.Event()
        threading.Thread(target=lambda: (self.wait(), finished.set()), daemon=True).start()
        self.exit_timer = Qt.QTimer()
        self.exit_timer.timeout.connect(lambda: Qt.QApplication.quit() if finished.is_set() else None)
        self.exit_timer.start(100)

def snipfcn_precision_check(self):
    # argparse gets GRC's string parameters without choices: a bad
    # --gpu-precision is a usage error (exit 2) before any block is made.
    if __name__ == '__main__':
        from gnuradio.beamform import cli
        cli.check_choice(argument_parser(), '--gpu-precision', self.gpu_precision,
                         ('float32', 'float16'))


def snippets_main_after_start(tb):
    snipfcn_exit_snippet(tb)

def snippets_init_before_blocks(tb):
    snipfcn_precision_check(tb)

from gnuradio import qtgui

class rca_volume(gr.top_block, Qt.QWidget):

    def __init__(self, gpu_precision='float32', n_volumes=0):
        gr.top_block.__init__(self, "RCA volume imaging (dual-stage beamformer)", catch_exceptions=True)
        Qt.QWidget.__init__(self)
        self.setWindowTitle("RCA volume imaging (dual-stage beamformer)")
        qtgui.util.check_set_qss()
        try:
            self.setWindowIcon(Qt.QIcon.fromTheme('gnuradio-grc'))
        except:
            pass
        self.top_scroll_layout = Qt.QVBoxLayout()
        self.setLayout(self.top_scroll_layout)
        self.top_scroll = Qt.QScrollArea()
        self.top_scroll.setFrameStyle(Qt.QFrame.NoFrame)
        self.top_scroll_layout.addWidget(self.top_scroll)
        self.top_scroll.setWidgetResizable(True)
        self.top_widget = Qt.QWidget()
        self.top_scroll.setWidget(self.top_widget)
        self.top_layout = Qt.QVBoxLayout(self.top_widget)
        self.top_grid_layout = Qt.QGridLayout()
        self.top_layout.addLayout(self.top_grid_layout)

        self.settings = Qt.QSettings("GNU Radio", "rca_volume")

        try:
            if StrictVersion(Qt.qVersion()) < StrictVersion("5.0.0"):
                self.restoreGeometry(self.settings.value("geometry").toByteArray())
            else:
                self.restoreGeometry(self.settings.value("geometry"))
        except:
            pass

        ##################################################
        # Parameters
        ##################################################
        self.gpu_precision = gpu_precision
        self.n_volumes = n_volumes

        ##################################################
        # Variables
        ##################################################
        self.pitch_m = pitch_m = 200e-6
        self.emissions = emissions = 32
        self.elements = elements = 64
        self.sources = sources = beamform.rca_sim.virtual_sources(emissions, elements, pitch_m, 16)
        self.scatterers = scatterers = [[x, y, z] for x in (-2e-3, 0.0, 2e-3) for y in (-2e-3, 2e-3) for z in (7e-3, 10e-3)] + [[0.5e-3, 0.0, 8.5e-3]]
        self.samples = samples = 640
        self.fs = fs = 31.25e6
        self.f0 = f0 = 6e6
        self.rf = rf = beamform.rca_sim.simulate_rf(scatterers, n_elements=elements, pitch=pitch_m, center_frequency=f0, sampling_frequency=fs, n_samples=samples, t_start=0.0, source_positions=sources[0], source_depths=sources[1])
        self.volume_rate = volume_rate = 5
        self.nz = nz = 120
        self.ny = ny = 64
        self.nx = nx = 64
        self.device = device = "auto"
        self.adc_scale = adc_scale = 8192.0 / float(abs(rf).max())

        ##################################################
        # Blocks
        ##################################################
        snippets_init_before_blocks(self)
        self.views = beamform.rca_volume_views(nx, ny, nz, mode='mip',
            x_index=(-1), y_index=(-1), z_index=(-1), z_first=0,
            z_last=(-1))
        self.to_stream_yz = blocks.vector_to_stream(gr.sizeof_float*1, (ny * nz))
        self.to_stream_xz = blocks.vector_to_stream(gr.sizeof_float*1, (nx * nz))
        self.to_stream_xy = blocks.vector_to_stream(gr.sizeof_float*1, (nx * ny))
        self.to_int16 = blocks.float_to_short((elements * samples), adc_scale)
        self.throttle = blocks.throttle(gr.sizeof_float*(elements * samples), (emissions * volume_rate),True)
        self.source = beamform.rca_emission_source(rf.astype('float32'), repeat=n_volumes == 0, volumes=max(n_volumes, 1),
            noise_std=0.02)
        self.raster_yz = qtgui.time_raster_sink_f(
            (ny * nz * volume_rate),
            ny,
            nz,
            [],
            [],
            "yz MIP over x (rows y, columns z), dB",
            1,
            None
        )

        self.raster_yz.set_update_time(0.10)
        self.raster_yz.set_intensity_range((-50), 0)
        self.raster_yz.enable_grid(False)
        self.raster_yz.enable_axis_labels(True)
        self.raster_yz.set_x_label("")
        self.raster_yz.set_x_range(0.0, 0.0)
        self.raster_yz.set_y_label("")
        self.raster_yz.set_y_range(0.0, 0.0)

        labels = ['', '', '', '', '',
            '', '', '', '', '']
        colors = [0, 0, 0, 0, 0,
            0, 0, 0, 0, 0]
        alphas = [1.0, 1.0, 1.0, 1.0, 1.0,
            1.0, 1.0, 1.0, 1.0, 1.0]

        for i in range(1):
            if len(labels[i]) == 0:
                self.raster_yz.set_line_label(i, "Data {0}".format(i))
            else:
                self.raster_yz.set_line_label(i, labels[i])
            self.raster_yz.set_color_map(i, colors[i])
            self.raster_yz.set_line_alpha(i, alphas[i])

        self._raster_yz_win = sip.wrapinstance(self.raster_yz.qwidget(), Qt.QWidget)
        self.top_grid_layout.addWidget(self._raster_yz_win, 0, 1, 1, 1)
        for r in range(0, 1):
            self.top_grid_layout.setRowStretch(r, 1)
        for c in range(1, 2):
            self.top_grid_layout.setColumnStretch(c, 1)
        self.raster_xz = qtgui.time_raster_sink_f(
            (nx * nz * volume_rate),
            nx,
            nz,
            [],
            [],
            "xz MIP over y (rows x, columns z), dB",
            1,
            None
        )

        self.raster_xz.set_update_time(0.10)
        self.raster_xz.set_intensity_range((-50), 0)
        self.raster_xz.enable_grid(False)
        self.raster_xz.enable_axis_labels(True)
        self.raster_xz.set_x_label("")
        self.raster_xz.set_x_range(0.0, 0.0)
        self.raster_xz.set_y_label("")
        self.raster_xz.set_y_range(0.0, 0.0)

        labels = ['', '', '', '', '',
            '', '', '', '', '']
        colors = [0, 0, 0, 0, 0,
            0, 0, 0, 0, 0]
        alphas = [1.0, 1.0, 1.0, 1.0, 1.0,
            1.0, 1.0, 1.0, 1.0, 1.0]

        for i in range(1):
            if len(labels[i]) == 0:
                self.raster_xz.set_line_label(i, "Data {0}".format(i))
            else:
                self.raster_xz.set_line_label(i, labels[i])
            self.raster_xz.set_color_map(i, colors[i])
            self.raster_xz.set_line_alpha(i, alphas[i])

        self._raster_xz_win = sip.wrapinstance(self.raster_xz.qwidget(), Qt.QWidget)
        self.top_grid_layout.addWidget(self._raster_xz_win, 0, 0, 1, 1)
        for r in range(0, 1):
            self.top_grid_layout.setRowStretch(r, 1)
        for c in range(0, 1):
            self.top_grid_layout.setColumnStretch(c, 1)
        self.raster_xy = qtgui.time_raster_sink_f(
            (nx * ny * volume_rate),
            nx,
            ny,
            [],
            [],
            "xy MIP over z (rows x, columns y), dB",
            1,
            None
        )

        self.raster_xy.set_update_time(0.10)
        self.raster_xy.set_intensity_range((-50), 0)
        self.raster_xy.enable_grid(False)
        self.raster_xy.enable_axis_labels(True)
        self.raster_xy.set_x_label("")
        self.raster_xy.set_x_range(0.0, 0.0)
        self.raster_xy.set_y_label("")
        self.raster_xy.set_y_range(0.0, 0.0)

        labels = ['', '', '', '', '',
            '', '', '', '', '']
        colors = [0, 0, 0, 0, 0,
            0, 0, 0, 0, 0]
        alphas = [1.0, 1.0, 1.0, 1.0, 1.0,
            1.0, 1.0, 1.0, 1.0, 1.0]

        for i in range(1):
            if len(labels[i]) == 0:
                self.raster_xy.set_line_label(i, "Data {0}".format(i))
            else:
                self.raster_xy.set_line_label(i, labels[i])
            self.raster_xy.set_color_map(i, colors[i])
            self.raster_xy.set_line_alpha(i, alphas[i])

        self._raster_xy_win = sip.wrapinstance(self.raster_xy.qwidget(), Qt.QWidget)
        self.top_grid_layout.addWidget(self._raster_xy_win, 1, 0, 1, 1)
        for r in range(1, 2):
            self.top_grid_layout.setRowStretch(r, 1)
        for c in range(0, 1):
            self.top_grid_layout.setColumnStretch(c, 1)
        self.beamformer = beamform.rca_das(n_elements=elements, pitch=pitch_m, center_frequency=f0,
            sampling_frequency=fs, speed_of_sound=1540.0, t_start=0.0,
            n_samples=samples, transmit='rows', source_positions=list(sources[0]),
            source_depths=list(sources[1]), x_start=(-0.5 * (nx - 1) * 0.15e-3), x_step=0.00015, x_count=nx,
            y_start=(-0.5 * (ny - 1) * 0.15e-3), y_step=0.00015, y_count=ny, z_start=0.0055, z_step=(6e-05),
            z_count=nz, f_number=1.0, filter_taps=[], decimation=3,
            input_type='int16', output='db', db_reference=0.0,
            processing='iq', method='dual_stage',
            demodulation_frequency=0.0, device=device,
            gpu_precision=gpu_precision)


        ##################################################
        # Connections
        ##################################################
        self.connect((self.beamformer, 0), (self.views, 0))
        self.connect((self.source, 0), (self.throttle, 0))
        self.connect((self.throttle, 0), (self.to_int16, 0))
        self.connect((self.to_int16, 0), (self.beamformer, 0))
        self.connect((self.to_stream_xy, 0), (self.raster_xy, 0))
        self.connect((self.to_stream_xz, 0), (self.raster_xz, 0))
        self.connect((self.to_stream_yz, 0), (self.raster_yz, 0))
        self.connect((self.views, 2), (self.to_stream_xy, 0))
        self.connect((self.views, 0), (self.to_stream_xz, 0))
        self.connect((self.views, 1), (self.to_stream_yz, 0))


    def closeEvent(self, event):
        self.settings = Qt.QSettings("GNU Radio", "rca_volume")
        self.settings.setValue("geometry", self.saveGeometry())
        self.stop()
        self.wait()

        event.accept()

    def get_gpu_precision(self):
        return self.gpu_precision

    def set_gpu_precision(self, gpu_precision):
        self.gpu_precision = gpu_precision

    def get_n_volumes(self):
        return self.n_volumes

    def set_n_volumes(self, n_volumes):
        self.n_volumes = n_volumes

    def get_pitch_m(self):
        return self.pitch_m

    def set_pitch_m(self, pitch_m):
        self.pitch_m = pitch_m
        self.set_rf(beamform.rca_sim.simulate_rf(self.scatterers, n_elements=self.elements, pitch=self.pitch_m, center_frequency=self.f0, sampling_frequency=self.fs, n_samples=self.samples, t_start=0.0, source_positions=self.sources[0], source_depths=self.sources[1]))
        self.set_sources(beamform.rca_sim.virtual_sources(self.emissions, self.elements, self.pitch_m, 16))

    def get_emissions(self):
        return self.emissions

    def set_emissions(self, emissions):
        self.emissions = emissions
        self.set_sources(beamform.rca_sim.virtual_sources(self.emissions, self.elements, self.pitch_m, 16))
        self.throttle.set_sample_rate((self.emissions * self.volume_rate))

    def get_elements(self):
        return self.elements

    def set_elements(self, elements):
        self.elements = elements
        self.set_rf(beamform.rca_sim.simulate_rf(self.scatterers, n_elements=self.elements, pitch=self.pitch_m, center_frequency=self.f0, sampling_frequency=self.fs, n_samples=self.samples, t_start=0.0, source_positions=self.sources[0], source_depths=self.sources[1]))
        self.set_sources(beamform.rca_sim.virtual_sources(self.emissions, self.elements, self.pitch_m, 16))

    def get_sources(self):
        return self.sources

    def set_sources(self, sources):
        self.sources = sources
        self.set_rf(beamform.rca_sim.simulate_rf(self.scatterers, n_elements=self.elements, pitch=self.pitch_m, center_frequency=self.f0, sampling_frequency=self.fs, n_samples=self.samples, t_start=0.0, source_positions=self.sources[0], source_depths=self.sources[1]))

    def get_scatterers(self):
        return self.scatterers

    def set_scatterers(self, scatterers):
        self.scatterers = scatterers
        self.set_rf(beamform.rca_sim.simulate_rf(self.scatterers, n_elements=self.elements, pitch=self.pitch_m, center_frequency=self.f0, sampling_frequency=self.fs, n_samples=self.samples, t_start=0.0, source_positions=self.sources[0], source_depths=self.sources[1]))

    def get_samples(self):
        return self.samples

    def set_samples(self, samples):
        self.samples = samples
        self.set_rf(beamform.rca_sim.simulate_rf(self.scatterers, n_elements=self.elements, pitch=self.pitch_m, center_frequency=self.f0, sampling_frequency=self.fs, n_samples=self.samples, t_start=0.0, source_positions=self.sources[0], source_depths=self.sources[1]))

    def get_fs(self):
        return self.fs

    def set_fs(self, fs):
        self.fs = fs
        self.set_rf(beamform.rca_sim.simulate_rf(self.scatterers, n_elements=self.elements, pitch=self.pitch_m, center_frequency=self.f0, sampling_frequency=self.fs, n_samples=self.samples, t_start=0.0, source_positions=self.sources[0], source_depths=self.sources[1]))

    def get_f0(self):
        return self.f0

    def set_f0(self, f0):
        self.f0 = f0
        self.set_rf(beamform.rca_sim.simulate_rf(self.scatterers, n_elements=self.elements, pitch=self.pitch_m, center_frequency=self.f0, sampling_frequency=self.fs, n_samples=self.samples, t_start=0.0, source_positions=self.sources[0], source_depths=self.sources[1]))

    def get_rf(self):
        return self.rf

    def set_rf(self, rf):
        self.rf = rf
        self.set_adc_scale(8192.0 / float(abs(self.rf).max()))

    def get_volume_rate(self):
        return self.volume_rate

    def set_volume_rate(self, volume_rate):
        self.volume_rate = volume_rate
        self.throttle.set_sample_rate((self.emissions * self.volume_rate))

    def get_nz(self):
        return self.nz

    def set_nz(self, nz):
        self.nz = nz
        self.raster_xz.set_num_cols(self.nz)
        self.raster_yz.set_num_cols(self.nz)

    def get_ny(self):
        return self.ny

    def set_ny(self, ny):
        self.ny = ny
        self.raster_xy.set_num_cols(self.ny)
        self.raster_yz.set_num_rows(self.ny)

    def get_nx(self):
        return self.nx

    def set_nx(self, nx):
        self.nx = nx
        self.raster_xy.set_num_rows(self.nx)
        self.raster_xz.set_num_rows(self.nx)

    def get_device(self):
        return self.device

    def set_device(self, device):
        self.device = device

    def get_adc_scale(self):
        return self.adc_scale

    def set_adc_scale(self, adc_scale):
        self.adc_scale = adc_scale
        self.to_int16.set_scale(self.adc_scale)



def argument_parser():
    description = 'Simulated row-column emissions (point phantom) -> dual-stage RCA beamformer -> three orthogonal maximum-intensity projections'
    parser = ArgumentParser(description=description)
    parser.add_argument(
        "--gpu-precision", dest="gpu_precision", type=str, default='float32',
        help="Set GPU arithmetic (float32 or float16) [default=%(default)r]")
    parser.add_argument(
        "--n-volumes", dest="n_volumes", type=intx, default=0,
        help="Set Volumes (0 = endless) [default=%(default)r]")
    return parser


def main(top_block_cls=rca_volume, options=None):
    if options is None:
        options = argument_parser().parse_args()

    if StrictVersion("4.5.0") <= StrictVersion(Qt.qVersion()) < StrictVersion("5.0.0"):
        style = gr.prefs().get_string('qtgui', 'style', 'raster')
        Qt.QApplication.setGraphicsSystem(style)
    qapp = Qt.QApplication(sys.argv)

    tb = top_block_cls(gpu_precision=options.gpu_precision, n_volumes=options.n_volumes)

    tb.start()
    snippets_main_after_start(tb)
    tb.show()

    def sig_handler(sig=None, frame=None):
        tb.stop()
        tb.wait()

        Qt.QApplication.quit()

    signal.signal(signal.SIGINT, sig_handler)
    signal.signal(signal.SIGTERM, sig_handler)

    timer = Qt.QTimer()
    timer.start(500)
    timer.timeout.connect(lambda: None)

    qapp.exec_()

if __name__ == '__main__':
    main()
