# Copyright 2026 gr-beamform authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""Open a .grc in GNU Radio Companion and save GRC's own rendering of the canvas (the
File > Screen Capture of its menu, stock GRC: nothing patched) as a PNG, plus a capture
of the screen. Used for docs/images/grc_*.png, under Xvfb:

    Xvfb :99 -screen 0 1600x1000x24 &
    DISPLAY=:99 GRC_BLOCKS_PATH=$PWD/grc PYTHONPATH=<build>/test_modules \\
        /usr/bin/python3 docs/grc_screenshot.py apps/NAME.grc docs/images/grc_NAME.png /tmp/window.png

It also prints every pair of blocks (or block comments) whose drawn rectangles
overlap, as "overlap: A and B"; with --fix-layout (a fourth argument) it first moves
blocks apart until none overlap and saves the .grc (through GRC, in its own format).
Needs python3-gi, python3-gi-cairo, gir1.2-gtk-3.0 and imagemagick (for the screen capture, skipped without it).
"""
import os
import shutil
import subprocess
import sys
import gi
gi.require_version('Gtk', '3.0')
gi.require_version('PangoCairo', '1.0')
from gi.repository import GLib, Gtk
from gnuradio import gr
from gnuradio.grc.gui.Platform import Platform
from gnuradio.grc.gui.Application import Application
from gnuradio.grc.gui import Utils

grc_file, canvas_png, window_png = sys.argv[1:4]
platform = Platform(version=gr.version(),
                    version_parts=(gr.major_version(), gr.api_version(), gr.minor_version()),
                    prefs=gr.prefs(), install_prefix=gr.prefix())
platform.build_library()
app = Application([grc_file], platform)

def overlaps(fg):
    """Pairs of drawn rectangles (block with its ports, block comment) that intersect."""
    boxes = []
    for block in fg.blocks:
        boxes.append((block.name, block.get_extents()))
        x0, y0, x1, y1 = block.get_extents_comment()
        if x1 > x0:
            boxes.append((block.name + " (comment)", (x0, y0, x1, y1)))
    found = []
    for i, (a, (ax0, ay0, ax1, ay1)) in enumerate(boxes):
        for b, (bx0, by0, bx1, by1) in boxes[i + 1:]:
            if a.split()[0] != b.split()[0] and ax0 < bx1 and bx0 < ax1 and ay0 < by1 and by0 < ay1:
                found.append((a, b))
    return found


def box(block):
    """The rectangle a block takes on the canvas: itself, its ports and its comment."""
    x0, y0, x1, y1 = block.get_extents()
    cx0, cy0, cx1, cy1 = block.get_extents_comment()
    if cx1 > cx0:
        x0, y0, x1, y1 = min(x0, cx0), min(y0, cy0), max(x1, cx1), max(y1, cy1)
    return x0, y0, x1, y1


def fix_layout(fg, gap=16, same_row=40):
    """Move blocks so that no two rectangles (box) overlap, keeping the layout's
    rows: blocks whose tops lie within same_row px form a row; in each row, left
    to right, a block moves right past its left neighbour; then it moves down
    past any block placed in an earlier row that it overlaps. Returns the number
    of blocks moved."""
    def overlap(a, b):
        return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]

    rows = []
    for block in sorted(fg.blocks, key=lambda b: (b.coordinate[1], b.coordinate[0])):
        if rows and block.coordinate[1] - rows[-1][0].coordinate[1] < same_row:
            rows[-1].append(block)
        else:
            rows.append([block])
    placed, moved = [], 0
    for row in rows:
        left = None
        for block in sorted(row, key=lambda b: b.coordinate[0]):
            start = block.coordinate
            if left is not None and box(block)[0] < box(left)[2] + gap:
                x, y = block.coordinate
                block.coordinate = (x + box(left)[2] + gap - box(block)[0], y)
            while True:
                hits = [box(a)[3] for a in placed if overlap(box(a), box(block))]
                if not hits:
                    break
                x, y = block.coordinate
                block.coordinate = (x, y + max(hits) + gap - box(block)[1])
            moved += block.coordinate != start
            placed.append(block)
            left = block
    return moved


def capture():
    page = app.main_window.current_page if getattr(app, "main_window", None) else None
    if page is None:
        return True  # GRC is still starting: try again at the next tick
    fg = page.flow_graph
    if "--fix-layout" in sys.argv:
        print("blocks moved:", fix_layout(fg))
        platform.save_flow_graph(grc_file, fg)
    for a, b in overlaps(fg):
        print(f"overlap: {a} and {b}")
    Utils.make_screenshot(fg, canvas_png, False)
    if shutil.which("import"):
        subprocess.run(["import", "-window", "root", window_png])
    print("errors:", fg.get_error_messages()[:5] if hasattr(fg, 'get_error_messages') else None)
    app.quit()
    return False

# GRC_SCREENSHOT_DELAY_MS: how long GRC may take to open and draw the flowgraph.
GLib.timeout_add(int(os.environ.get("GRC_SCREENSHOT_DELAY_MS", "8000")), capture)
app.run()
