#!/usr/bin/env bash
# A bad command line is a usage error: `usage_error.sh PROGRAM ARGS...` runs
# PROGRAM ARGS and passes when it exits with status 2 and says what it accepts
# (apps/bench_common.h, bench::accept_only), before it touches any GPU.
set -u
out=$("$@" 2>&1)
rc=$?
echo "$out"
if [ "$rc" -ne 2 ]; then
    echo "FAIL: exit status $rc, expected 2"
    exit 1
fi
if ! grep -q "accepted" <<<"$out"; then
    echo "FAIL: the message does not say what is accepted"
    exit 1
fi
echo "PASS: usage error"
