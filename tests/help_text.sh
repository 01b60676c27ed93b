#!/usr/bin/env bash
# --help prints the usage text: `help_text.sh PROGRAM` runs PROGRAM --help and
# passes when it exits with status 0, its stdout starts with "usage: " and
# nothing it prints says "unknown option" (apps/bench_common.h,
# bench::accept_only), before it touches any GPU.
set -u
err=$(mktemp)
trap 'rm -f "$err"' EXIT
out=$("$1" --help 2>"$err")
rc=$?
echo "$out"
cat "$err"
if [ "$rc" -ne 0 ]; then
    echo "FAIL: exit status $rc, expected 0"
    exit 1
fi
if [[ "$out" != "usage: "* ]]; then
    echo "FAIL: stdout does not start with \"usage: \""
    exit 1
fi
if grep -q "unknown option" - "$err" <<<"$out"; then
    echo "FAIL: the output says \"unknown option\""
    exit 1
fi
echo "PASS: usage text"
