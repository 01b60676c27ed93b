#!/usr/bin/env bash
# The GPU part of the test suite and the benchmarks, run on the GPU machine from
# a bundle of executables built here (docs/architecture.md, "Tests"):
#
#   cmake -S . -B build -DENABLE_HIP=OFF && cmake --build build -j
#   ../shared/tools/device-bundle /tmp/b/bundle build/tests/test_* build/apps/*_bench
#   rm -f /tmp/b/bundle/lib/libcublasLt.so*   # the GPU machine has it; 540 MB
#   # OpenBLAS makes the bundle about 84 MB, over the 64 MiB the device tool
#   # carries: carry it compressed (about 17 MB) and unpack it there.
#   tar cf - -C /tmp/b bundle | xz -3 > .dev/bundle.tar.xz
#   # on the GPU machine (device tool, carry [".dev/bundle.tar.xz"]):
#   tar xJf .dev/bundle.tar.xz -C .dev
#   bash tests/gpu_suite.sh tests|sanitize|bench-a|bench-b  OUTDIR
#
# Logs and JSON go to OUTDIR; the summary lines go to stdout.
set -uo pipefail
part=${1:?tests, sanitize, bench-a or bench-b}
out=${2:?output directory}
mkdir -p "$out"
source .dev/bundle/env.sh
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv,noheader
quiet() { grep -v -E ':info:|:debug:|buffer_double_mapped'; }
status=0
case "$part" in
tests)
    for t in test_convert_engine test_device_buffer test_gpu_handoff test_bad_input_devices \
        test_station_flowgraph test_tensor_beamformer_gpu \
        test_pfb_channelizer_gpu test_phase_shift_gpu test_rca_das_gpu test_rfi_flagger_gpu \
        test_incoherent_beam_gpu; do
        [ -x ".dev/bundle/bin/$t" ] || continue
        "$t" 2>&1 | quiet >"$out/$t.log" || status=1
        echo "$t: $(grep -E '^\[  (PASSED|FAILED) ' "$out/$t.log" | tr '\n' ' ')"
    done
    ;;
sanitize)
    # compute-sanitizer on the GPU flowgraph tests (the hand-off between blocks).
    # racecheck (shared-memory hazards inside kernels) on the shorter tests.
    # The bad-input cases (size limits, rejected messages) under memcheck too.
    for run in "memcheck:test_gpu_handoff:*cuda*" "racecheck:test_gpu_handoff:*fast_and_a_slow*cuda*" \
        "memcheck:test_bad_input_devices:*cuda*" \
        "memcheck:test_pfb_channelizer_gpu:*EveryInputFormat*:*StateCarries*" \
        "racecheck:test_pfb_channelizer_gpu:*EveryInputFormat*" \
        "memcheck:test_rfi_flagger_gpu:*" "racecheck:test_rfi_flagger_gpu:*" \
        "memcheck:test_incoherent_beam_gpu:*" "racecheck:test_incoherent_beam_gpu:*" \
        "memcheck:test_tensor_beamformer_gpu:*resident*" "racecheck:test_tensor_beamformer_gpu:*resident*" \
        "synccheck:test_tensor_beamformer_gpu:*resident*" \
        "memcheck:test_tensor_beamformer_gpu:*warp_specialised*" \
        "racecheck:test_tensor_beamformer_gpu:*warp_specialised*" \
        "synccheck:test_tensor_beamformer_gpu:*warp_specialised*" \
        "memcheck:test_pfb_channelizer_gpu:*EveryTiledShape*" \
        "memcheck:test_pfb_channelizer_gpu:*ClusterKernel*:*DefaultSwitches*" \
        "racecheck:test_pfb_channelizer_gpu:*ClusterKernelOneLaunch*" \
        "synccheck:test_pfb_channelizer_gpu:*ClusterKernelOneLaunch*" \
        "memcheck:test_pfb_channelizer_gpu:*ClusterOf16Blocks*" \
        "racecheck:test_pfb_channelizer_gpu:*ClusterOf16Blocks*" \
        "synccheck:test_pfb_channelizer_gpu:*ClusterOf16Blocks*" \
        "memcheck:test_rca_das_gpu:*HalfSectorsSplit*" \
        "memcheck:test_tensor_beamformer_gpu:*library*" \
        "memcheck:test_rca_das_gpu:*StageVariants*" \
        "memcheck:test_rca_das_gpu:*HalfRealOddEmission*" \
        "racecheck:test_rca_das_gpu:*PipelinedMatchesHalf2*"; do
        IFS=: read -r tool test filter <<<"$run"
        compute-sanitizer --tool "$tool" --error-exitcode 3 "$test" --gtest_filter="$filter" \
            >"$out/sanitizer_${tool}_$test.log" 2>&1 || status=1
        echo "$tool $test: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|  PASSED|  FAILED' "$out/sanitizer_${tool}_$test.log" | tr '\n' ' ')"
    done
    ;;
bench-a)
    (cd "$out" && device_buffer_bench --json=device_buffer_bench.json 2>&1 | quiet | tee device_buffer_bench.log)
    (cd "$out" && phase_shift_bench --json=phase_shift_bench.json 2>&1 | quiet | tee phase_shift_bench.log | tail -15)
    (cd "$out" && rfi_flagger_bench --json=rfi_flagger_bench.json 2>&1 | quiet | tee rfi_flagger_bench.log | tail -12)
    (cd "$out" && station_bench --json=station_bench.json 2>&1 | quiet | tee station_bench.log)
    ;;
bench-b)
    (cd "$out" && beamform_bench --tune --tuning-file=beamform_tuning.txt >beamform_tune.log 2>&1; tail -3 beamform_tune.log)
    (cd "$out" && BEAMFORM_TUNING_FILE=beamform_tuning.txt beamform_bench --json=beamform_bench.json 2>&1 | quiet | tee beamform_bench.log | tail -40)
    (cd "$out" && channelizer_bench --json=channelizer_bench.json 2>&1 | quiet | tee channelizer_bench.log | tail -20)
    (cd "$out" && rca_bench --runs=30 --json=rca_bench.json 2>&1 | quiet | tee rca_bench.log | tail -12)
    ;;
esac
exit $status
