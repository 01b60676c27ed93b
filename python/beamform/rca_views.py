# Copyright 2026 gr-beamform authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""Three orthogonal views of a volume stream, for display.

rca_volume_views takes volumes [x][y][z] of float32 (the rca_das block's
envelope or dB output) and emits, per volume, one image on each of its three
outputs:
    out 0: the xz image [x][z] (x_count rows of z_count values)
    out 1: the yz image [y][z]
    out 2: the xy image [x][y]
In mode "slices" they are the planes through (x_index, y_index, z_index)
(-1: the centre); in mode "mip" they are maximum-intensity projections along
y, x and z (z restricted to [z_first, z_last] when given). Each output item
is one whole image (a vector), so a blocks.vector_to_stream followed by a
qtgui.time_raster_sink_f with rows = first dimension and columns = second
shows it.
"""
import numpy as np

try:
    from gnuradio import gr
except ImportError:  # numpy-only use of volume_views()
    gr = None


def volume_views(volume, mode="slices", x_index=-1, y_index=-1, z_index=-1, z_first=0,
                 z_last=-1):
    """The three views of one volume (nx, ny, nz) as (xz, yz, xy) arrays."""
    nx, ny, nz = volume.shape
    if mode == "slices":
        ix = nx // 2 if x_index < 0 else x_index
        iy = ny // 2 if y_index < 0 else y_index
        iz = nz // 2 if z_index < 0 else z_index
        return volume[:, iy, :], volume[ix, :, :], volume[:, :, iz]
    if mode == "mip":
        last = nz if z_last < 0 else z_last + 1
        return volume.max(axis=1), volume.max(axis=0), volume[:, :, z_first:last].max(axis=2)
    raise ValueError('mode must be "slices" or "mip", got %r' % (mode,))


if gr is not None:

    class rca_volume_views(gr.sync_block):
        """Volumes [x][y][z] float32 -> xz, yz and xy images (see the module)."""

        def __init__(self, x_count, y_count, z_count, mode="slices", x_index=-1, y_index=-1,
                     z_index=-1, z_first=0, z_last=-1):
            for name, value in (("x_count", x_count), ("y_count", y_count),
                                ("z_count", z_count)):
                if int(value) < 1:
                    raise ValueError("%s must be >= 1, got %r" % (name, value))
            if mode not in ("slices", "mip"):
                raise ValueError('mode must be "slices" or "mip", got %r' % (mode,))
            for name, value, count in (("x_index", x_index, x_count),
                                       ("y_index", y_index, y_count),
                                       ("z_index", z_index, z_count),
                                       ("z_last", z_last, z_count)):
                if not -1 <= int(value) < int(count):
                    raise ValueError("%s must be -1 (centre / all) or in [0, %d), got %r"
                                     % (name, count, value))
            if not 0 <= int(z_first) < int(z_count):
                raise ValueError("z_first must be in [0, %d), got %r" % (z_count, z_first))
            self.shape = (int(x_count), int(y_count), int(z_count))
            self.options = dict(mode=mode, x_index=int(x_index), y_index=int(y_index),
                                z_index=int(z_index), z_first=int(z_first), z_last=int(z_last))
            nx, ny, nz = self.shape
            gr.sync_block.__init__(
                self, name="rca_volume_views",
                in_sig=[(np.float32, nx * ny * nz)],
                out_sig=[(np.float32, nx * nz), (np.float32, ny * nz), (np.float32, nx * ny)])

        def work(self, input_items, output_items):
            volumes = input_items[0]
            for k in range(len(volumes)):
                views = volume_views(volumes[k].reshape(self.shape), **self.options)
                for out, view in zip(output_items, views):
                    out[k] = view.ravel()
            return len(volumes)
