#!/usr/bin/env bash
# Opt-in DXBC oracle check (docs/dxbc.md): installs the DXBC oracles if needed, then runs
# the ignored tests of tests/dxbc_edit.rs: every texture instruction of every corpus blob is
# edited in the IR (offset, result channels, coordinate lanes, bindings, gather channel) and
# re-encoded; Wine's D3DDisassemble must print each edited instruction as texlate does and
# vkd3d-compiler must accept every edited blob whose original it accepts (one batch each).
# Takes about 35 s (debug build).
set -euo pipefail
HERE=$(cd "$(dirname "$0")/.." && pwd)
ORACLES="$HERE/../shared/oracles/dxbc"
[ -x "$ORACLES/setup.sh" ] || { echo "oracle-dxbc: $ORACLES not found" >&2; exit 3; }
"$ORACLES/setup.sh" > /dev/null
cd "$HERE"
cargo test --test dxbc_edit -- --ignored --nocapture
