#!/usr/bin/env bash
# Opt-in DXBC oracle check (docs/dxbc.md): installs the DXBC oracles if needed, then runs
# the ignored test that edits a blob's IR, re-encodes it, and has Wine's D3DDisassemble and
# vkd3d-compiler accept it and print what texlate meant.
set -euo pipefail
HERE=$(cd "$(dirname "$0")/.." && pwd)
ORACLES="$HERE/../shared/oracles/dxbc"
[ -x "$ORACLES/setup.sh" ] || { echo "oracle-dxbc: $ORACLES not found" >&2; exit 3; }
"$ORACLES/setup.sh" > /dev/null
cd "$HERE"
cargo test --test dxbc_edit -- --ignored --nocapture
