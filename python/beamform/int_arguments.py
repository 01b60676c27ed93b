# Copyright 2026 gr-beamform authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""Integer arguments outside a C++ int, named.

pybind11 refuses a Python int that does not fit the C++ parameter with the
generic TypeError "incompatible constructor arguments", which names neither
the parameter nor the range. The blocks' constructors are wrapped so that such
a call raises ValueError naming the parameter, the value and the range; every
other call, valid or not, is left exactly as it was (the wrapper only looks at
the arguments after pybind11 has refused them).
"""
import re

INT_RANGE = (-2**31, 2**31 - 1)  # C++ int
# Constructor integers that are not a C++ int.
WIDER = {("array_source", "seed"): (0, 2**64 - 1), ("rfi_flagger", "seed"): (0, 2**64 - 1)}

# "name: type" or "name: type = default" in pybind11's signature line.
_PARAMETER = re.compile(r"(\w+): ([^,=]+?)(?: = [^,]*)?(?:, |\) -> )")


def _parameters(cls):
    """(name, type) of each constructor parameter after self."""
    signature = (cls.__init__.__doc__ or "").splitlines()[0]
    return _PARAMETER.findall(signature[signature.index("(") + 1:])[1:]


def name_out_of_range_integers(cls):
    """Wrap cls.__init__ (a pybind11 block class) as described above."""
    parameters = _parameters(cls)
    original = cls.__init__

    def __init__(self, *args, **kwargs):
        try:
            original(self, *args, **kwargs)
        except TypeError:
            given = dict(zip((name for name, _ in parameters), args), **kwargs)
            for name, kind in parameters:
                value = given.get(name)
                if not isinstance(value, int) or isinstance(value, bool):
                    continue
                if kind != "int":  # an enum, given as a number (C++ int underneath)
                    if kind.startswith("gnuradio.beamform") and \
                            not INT_RANGE[0] <= value <= INT_RANGE[1]:
                        raise ValueError(f"{name} must be one of the values of "
                                         f"{kind.rsplit('.', 1)[-1]}, got {value}") from None
                    continue
                lo, hi = WIDER.get((cls.__name__, name), INT_RANGE)
                if not lo <= value <= hi:
                    raise ValueError(f"{name} must be in [{lo}, {hi}] (it is a C++ "
                                     f"{'int' if (lo, hi) == INT_RANGE else 'uint64'}), "
                                     f"got {value}") from None
            raise

    __init__.__doc__ = original.__doc__
    cls.__init__ = __init__
