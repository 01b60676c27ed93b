# Copyright 2026 gr-beamform authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""Command-line helpers shared by the applications in apps/.

Every bad value becomes an argparse usage error (exit status 2, the usage line,
then "argument --name: <what it accepts>") before any flowgraph is built or any
file is written:

    p = cli.parser(__doc__)
    p.add_argument("--n-int", type=cli.integer(1), default=16, help="...")
    p.add_argument("--device", type=cli.device, default="auto", help="...")
    args = cli.parse(p, argv)       # also accepts "--source -0.3,0.2"

--help lists every option's default (where it has one other than None/False).
"""
import argparse
import math
import os
import re


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """The description as written, and "(default: X)" after each option's help
    (not for options whose default is None or False: their help says what
    happens without them)."""

    def _get_help_string(self, action):
        text = action.help or ""
        if ("%(default)" not in text and action.default not in (None, False, argparse.SUPPRESS)
                and action.option_strings):
            text += " (default: %(default)s)"
        return text


def parser(description, **kwargs):
    """An ArgumentParser with HelpFormatter and no abbreviations of long options."""
    kwargs.setdefault("formatter_class", HelpFormatter)
    kwargs.setdefault("allow_abbrev", False)
    return argparse.ArgumentParser(description=description, **kwargs)


_NEGATIVE_VALUE = re.compile(r"^-(\d|\.\d)")


def join_negative_values(parser_, argv):
    """argv with "--opt -0.3,0.2" written "--opt=-0.3,0.2": argparse takes a value
    that starts with '-' and is not a plain number for an option."""
    takes_value = {s for a in parser_._actions for s in a.option_strings if a.nargs is None
                   and not isinstance(a, (argparse._StoreConstAction, argparse._HelpAction))}
    out, i = [], 0
    while i < len(argv):
        if argv[i] in takes_value and i + 1 < len(argv) and _NEGATIVE_VALUE.match(argv[i + 1]):
            out.append(f"{argv[i]}={argv[i + 1]}")
            i += 2
        else:
            out.append(argv[i])
            i += 1
    return out


def parse(parser_, argv=None, known=False):
    """parser_.parse_args (or parse_known_args with known=True) with negative
    values accepted after an option; then quiet_debug_logs()."""
    import sys

    argv = join_negative_values(parser_, list(sys.argv[1:] if argv is None else argv))
    parsed = parser_.parse_known_args(argv) if known else parser_.parse_args(argv)
    quiet_debug_logs()
    return parsed


def quiet_debug_logs():
    """Log at info level and above: Debian's GNU Radio logs debug lines too
    ([LOG] log_level = debug in /etc/gnuradio/conf.d/gnuradio-runtime.conf), e.g.
    one "flowgraph :debug:" line per GPU buffer replaced. Each beamform block still
    logs its one info line at start (device, item sizes, output buffer). A level
    set in the environment (GR_CONF_LOG_LOG_LEVEL=debug) is kept. Affects the
    loggers made afterwards (GNU Radio sets a logger's level when it is made)."""
    from gnuradio import gr

    if "GR_CONF_LOG_LOG_LEVEL" in os.environ:
        return
    if int(gr.logging().default_level()) < int(gr.log_levels.info):
        gr.logging().set_default_level(gr.log_levels.info)


def _range_text(kind, low, high, low_open=False):
    if low is not None and high is not None:
        return f"{kind} from {low} to {high}" if not low_open else \
            f"{kind} > {low} and <= {high}"
    if low is not None:
        return f"{kind} {'>' if low_open else '>='} {low}"
    if high is not None:
        return f"{kind} <= {high}"
    return kind


def integer(low=None, high=None):
    """argparse type: an integer in [low, high] (either bound may be None)."""
    def convert(text):
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"must be {_range_text('an integer', low, high)}, got {text!r}")
        if (low is not None and value < low) or (high is not None and value > high):
            raise argparse.ArgumentTypeError(
                f"must be {_range_text('an integer', low, high)}, got {value}")
        return value
    convert.__name__ = "integer"
    return convert


def number(low=None, high=None, low_open=False):
    """argparse type: a float in [low, high] ((low, high] with low_open)."""
    def convert(text):
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"must be {_range_text('a number', low, high, low_open)}, got {text!r}")
        below = low is not None and (value <= low if low_open else value < low)
        if value != value or below or (high is not None and value > high):
            raise argparse.ArgumentTypeError(
                f"must be {_range_text('a number', low, high, low_open)}, got {text}")
        return value
    convert.__name__ = "number"
    return convert


def numbers(count=None, names=None):
    """argparse type: comma-separated numbers, `count` of them (or `names`, whose
    number is the count and which the message lists)."""
    if names is not None:
        count = len(names)
    what = f"{count} comma-separated numbers" if count else "comma-separated numbers"
    if names is not None:
        what += " " + ",".join(names)

    def convert(text):
        try:
            values = tuple(float(v) for v in text.split(","))
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be {what}, got {text!r}")
        if count is not None and len(values) != count:
            raise argparse.ArgumentTypeError(f"must be {what}, got {text!r}")
        return values
    convert.__name__ = "numbers"
    return convert


def device(text):
    """argparse type: auto, cpu, or a device present on this machine (cuda:N,
    hip:N, emu:N). Absent devices are refused with the list of those present."""
    from gnuradio import beamform

    if text == "auto":
        return text
    try:
        beamform.select_device(text)
    except Exception as e:  # malformed, backend not built, or device absent
        raise argparse.ArgumentTypeError(
            f"{text!r} cannot be used here ({e}); accepted: auto or one of "
            f"{', '.join(beamform.available_devices())}")
    return text


def existing_file(text):
    """argparse type: a path to a readable file."""
    if not os.path.isfile(text):
        raise argparse.ArgumentTypeError(f"no such file: {text}")
    if not os.access(text, os.R_OK):
        raise argparse.ArgumentTypeError(f"cannot read {text}")
    return text


def file_name_prefix(text):
    """argparse type: a file-name prefix (no folder separator)."""
    if not text or "/" in text or text in (".", ".."):
        raise argparse.ArgumentTypeError(f"must be a file name without '/', got {text!r}")
    return text


def check_choice(parser_, option, value, accepted):
    """Usage error unless value is one of accepted, worded as argparse words a bad
    choice. For the scripts GRC generates: their string parameters reach argparse
    without choices, so a snippet of the flowgraph checks them with the script's
    own argument_parser()."""
    if value not in accepted:
        parser_.error(f"argument {option}: invalid choice: {value!r} (choose from "
                      + ", ".join(repr(a) for a in accepted) + ")")
    return value


def check_recording(parser_, option, path, n_receivers, item_bytes, what, min_items=1):
    """Usage error unless the recording at `path` holds a whole number of items of
    n_receivers x item_bytes bytes, at least min_items of them. Returns the
    number of items."""
    size = os.path.getsize(path)
    item = n_receivers * item_bytes
    if size % item:
        parser_.error(f"argument {option}: {path} holds {size} bytes, not a whole number of "
                      f"{item}-byte samples ({what} x {n_receivers} receivers); check the "
                      "receiver count and the sample format")
    if size // item < min_items:
        parser_.error(f"argument {option}: {path} holds {size // item} samples of "
                      f"{n_receivers} receivers, fewer than the {min_items} needed")
    return size // item


def clean_outputs(folder, pattern, log=print):
    """Remove the files in `folder` whose names match the regular expression
    `pattern` (an earlier run's outputs), saying how many. Returns that number."""
    if not os.path.isdir(folder):
        return 0
    old = sorted(f for f in os.listdir(folder) if re.fullmatch(pattern, f))
    for f in old:
        os.remove(os.path.join(folder, f))
    if old:
        log(f"removed {len(old)} files of an earlier run from {folder} ({old[0]} ...)")
    return len(old)


def size_host_buffers(block, item_bytes):
    """Give a GNU Radio block whose output items are item_bytes long an output
    buffer that needs no rounding up, as the beamform blocks do for themselves
    (host_buffer_items in lib/block_support/block_params.cc): a double-mapped
    buffer holds whole memory pages, and GNU Radio warns
    ("buffer_double_mapped: tried to allocate ...") when that more than doubles
    its default of 64 KiB of items, e.g. for 181 beam powers (724 B) per item."""
    page = os.sysconf("SC_PAGE_SIZE")
    granule = page // math.gcd(item_bytes, page)
    if granule > 2 * max(1, (64 << 10) // item_bytes) and granule * item_bytes <= 16 << 20:
        for port in range(max(1, block.output_signature().max_streams())):
            block.set_min_output_buffer(port, granule)
    return block
