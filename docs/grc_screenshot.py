# Copyright 2026 gr-beamform authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""Open a .grc in GNU Radio Companion and save GRC's own rendering of the canvas (the
File > Screen Capture of its menu) as a PNG, plus a capture of the screen. Used for
docs/images/grc_*.png, under Xvfb:

    Xvfb :99 -screen 0 1600x1000x24 &
    TRUNC_FLOOR=24 DISPLAY=:99 GRC_BLOCKS_PATH=$PWD/grc PYTHONPATH=<build>/test_modules \\
        /usr/bin/python3 docs/grc_screenshot.py apps/NAME.grc docs/images/grc_NAME.png /tmp/window.png

Needs python3-gi, python3-gi-cairo, gir1.2-gtk-3.0 and imagemagick (for the screen capture).
"""
import sys, os, subprocess
import gi
gi.require_version('Gtk', '3.0')
gi.require_version('PangoCairo', '1.0')
from gi.repository import GLib, Gtk
from gnuradio import gr
if os.environ.get('TRUNC_FLOOR'):
    # GRC 3.10.5 truncates a value to max(27 - len(label), 3) characters, and its
    # centre truncation of a 3-character limit keeps almost the whole string, so
    # long labels show long values in full. Give the limit a floor for the picture.
    from gnuradio.grc.gui.canvas import param as _param
    _orig = _param.Param.truncate
    def _truncate(self, string, style=0):
        max_len = max(27 - len(self.name), int(os.environ["TRUNC_FLOOR"]))
        if len(string) > max_len:
            if style < 0:
                string = '...' + string[3 - max_len:]
            elif style == 0:
                string = string[:max_len // 2 - 3] + '...' + string[-max_len // 2:]
            else:
                string = string[:max_len - 3] + '...'
        return string
    _param.Param.truncate = _truncate

from gnuradio.grc.gui.Platform import Platform
from gnuradio.grc.gui.Application import Application
from gnuradio.grc.gui import Utils

grc_file, canvas_png, window_png = sys.argv[1:4]
platform = Platform(version=gr.version(),
                    version_parts=(gr.major_version(), gr.api_version(), gr.minor_version()),
                    prefs=gr.prefs(), install_prefix=gr.prefix())
platform.build_library()
app = Application([grc_file], platform)

def capture():
    page = app.main_window.current_page
    fg = page.flow_graph
    Utils.make_screenshot(fg, canvas_png, False)
    subprocess.run(["import", "-window", "root", window_png])
    print("errors:", fg.get_error_messages()[:5] if hasattr(fg, 'get_error_messages') else None)
    app.quit()
    return False

GLib.timeout_add(8000, capture)
app.run()
