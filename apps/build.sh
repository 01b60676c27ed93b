#!/usr/bin/env bash
# gr-beamform: install what is missing, build, then run the demo or the tests
# (or install the module).
#
#   bash apps/build.sh demo   # install missing Debian packages, build, run the main job
#   bash apps/build.sh test   # install missing Debian packages, build, run every test
#   bash apps/build.sh install [PREFIX]   # build, then install (default /usr/local)
#
# Debian bookworm (GNU Radio 3.10.5.1). The CUDA backend is built when nvcc is
# found (PATH or /usr/local/cuda); the HIP backend when BEAMFORM_WITH_HIP=1
# (installs Debian's hipcc; compile-checked only; BEAMFORM_HIP_ARCHITECTURES,
# default "gfx90a;gfx940", the AMD targets). BUILD_DIR (default: build) and
# JOBS (default: nproc) can be set in the environment.
#
# The installed module needs no ldconfig or LD_LIBRARY_PATH (its libraries
# carry an install RPATH relative to their own folder). In /usr/local, Debian's
# /usr/bin/python3 and GNU Radio Companion find it as they are; in another
# PREFIX the install prints the PYTHONPATH and GRC_BLOCKS_PATH to set.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

verb=${1:-}
case "$verb" in
demo | test | install) ;;
*)
    sed -n '2,18p' "$0"
    exit 2
    ;;
esac

build_dir=$(realpath -m "${BUILD_DIR:-build}")
jobs=${JOBS:-$(nproc)}
# GNU Radio's Python modules belong to Debian's interpreter, not to any other
# python3 that may come first on PATH.
python=/usr/bin/python3

packages=(cmake make g++ pkg-config git gnuradio-dev libvolk2-dev libopenblas-dev pybind11-dev
    libgtest-dev libspdlog-dev libfmt-dev python3-numpy python3-scipy
    python3-astropy python3-erfa
    gr-osmosdr # direction_finding --source osmosdr (Soapy and UHD come with GNU Radio)
    python3-pytest python3-hypothesis python3-matplotlib xvfb doxygen
    gir1.2-gtk-3.0) # GNU Radio Companion's window (a Recommends of Debian's gnuradio)
cmake_args=(-DCMAKE_BUILD_TYPE=Release)
if [ "${BEAMFORM_WITH_HIP:-0}" = 1 ]; then
    packages+=(hipcc)
    cmake_args+=(-DENABLE_HIP=ON)
    [ -z "${BEAMFORM_HIP_ARCHITECTURES:-}" ] ||
        cmake_args+=("-DBEAMFORM_HIP_ARCHITECTURES=$BEAMFORM_HIP_ARCHITECTURES")
fi

missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "== installing: ${missing[*]}"
    sudo=""
    [ "$(id -u)" = 0 ] || sudo=sudo
    $sudo apt-get update -q
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

echo "== configuring and building in $build_dir ($jobs jobs)"
mkdir -p "$build_dir"
cmake -S . -B "$build_dir" "${cmake_args[@]}" -DPYTHON_EXECUTABLE=$python >"$build_dir/configure.log" 2>&1 ||
    { cat "$build_dir/configure.log"; exit 1; }
grep -A5 "gr-beamform backends" "$build_dir/configure.log"
cmake --build "$build_dir" -j "$jobs"

export PYTHONPATH="$build_dir/test_modules${PYTHONPATH:+:$PYTHONPATH}"
export QT_QPA_PLATFORM=${QT_QPA_PLATFORM:-offscreen}

if [ "$verb" = install ]; then
    prefix=${2:-/usr/local}
    existing=$(realpath -m "$prefix")
    while [ ! -d "$existing" ]; do existing=$(dirname "$existing"); done
    sudo=""
    [ -w "$existing" ] || sudo=sudo
    echo "== installing into $prefix"
    $sudo cmake --install "$build_dir" --prefix "$prefix" >"$build_dir/install.log"
    init=$(grep -m1 '/gnuradio/beamform/__init__.py$' "$build_dir/install_manifest.txt")
    pythondir=${init%/gnuradio/beamform/__init__.py}
    echo "Python module: $pythondir/gnuradio/beamform"
    echo "GRC blocks:    $prefix/share/gnuradio/grc/blocks"
    if ! $python -c 'import sys; sys.exit(sys.argv[1] not in sys.path)' "$pythondir"; then
        echo "this prefix is not on $python's path; before using the module set"
        echo "  export PYTHONPATH=$pythondir\${PYTHONPATH:+:\$PYTHONPATH}"
        echo "  export GRC_BLOCKS_PATH=$prefix/share/gnuradio/grc/blocks"
    fi
    exit 0
fi

if [ "$verb" = demo ]; then
    echo "== running the main job"
    exec $python apps/station_beamformer.py "${@:2}"
fi

echo "== C++ tests (ctest; GPU tests are skipped where no GPU is usable)"
status=0
ctest --test-dir "$build_dir" -E '^python_tests$' --output-on-failure -j "$jobs" || status=1
echo "== Python tests (pytest against the build tree)"
(cd "$build_dir" && $python -m pytest -q -rs "$root/tests/python") || status=1
exit $status
