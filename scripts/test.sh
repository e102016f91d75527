#!/usr/bin/env bash
# Installs test dependencies (Python extras + Debian's chromium) and runs the tests.
# pytest exits 5 when it collects nothing: treat that as a failure too.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v chromium >/dev/null 2>&1; then
    (apt-get update -qq && apt-get install -y -qq chromium) >/dev/null 2>&1 \
        || echo "warning: could not install chromium; browser tests will fail" >&2
fi
python3 -m pip install -q -e ".[test]"
python3 -m pytest -q "$@"
