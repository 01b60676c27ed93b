#!/usr/bin/env bash
# The engine library installs and works without GNU Radio: `cmake --install`
# into a fresh prefix, then apps/engine_example.cc is compiled against that
# prefix alone (pkg-config beamform-engines) and run.
#   tests/install_engines.sh BUILD_DIR SOURCE_DIR
# Fails if the example pulls in a GNU Radio header or links a GNU Radio library.
set -euo pipefail
build=$1 src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" >"$work/install.log"
pc_dir=$(dirname "$(find "$prefix" -name beamform-engines.pc | head -n 1)")
export PKG_CONFIG_PATH=$pc_dir
flags=$(pkg-config --cflags --libs beamform-engines)
echo "pkg-config beamform-engines: $flags"
# -H lists every header the compiler opens.
c++ -H "$src/apps/engine_example.cc" $flags -Wl,-rpath,"$(pkg-config --variable=libdir beamform-engines)" \
    -o "$work/engine_example" 2>"$work/headers.txt"
if grep -E '^\.+ /usr(/local)?/include/gnuradio/' "$work/headers.txt"; then
    echo "FAIL: the example included GNU Radio headers (above) instead of the prefix's"
    exit 1
fi
n_headers=$(grep -c "^\.* $prefix/.*include/gnuradio/beamform/" "$work/headers.txt" || true)
echo "headers from the prefix: $n_headers"
[ "$n_headers" -gt 0 ] || { echo "FAIL: no header came from the prefix"; exit 1; }
if ldd "$work/engine_example" | grep -E 'libgnuradio-'; then
    echo "FAIL: the example links GNU Radio libraries (above)"
    exit 1
fi
"$work/engine_example" | tee "$work/run.txt"
grep -q 'brightest beam: azimuth +30.0' "$work/run.txt" || { echo "FAIL: wrong beam"; exit 1; }
echo "PASS: engine library installed to a prefix, example built without GNU Radio and ran"
