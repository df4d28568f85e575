#!/bin/sh
# Regenerates ldms_2d.skl.visaasm and ldms_2darr.skl.visaasm from ldms_igc.cl with the Intel
# oracle (shared/oracles/intel/ocloc-visa: ocloc 22.43 + IGC 1.0.12504.6, device skl, with
# cl_khr_gl_msaa_sharing enabled). Usage: ldms_igc.sh ORACLES_DIR
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp -d)
"$1/intel/ocloc-visa" -o "$out" "$here/ldms_igc.cl" skl >/dev/null
for k in ldms_2d ldms_2darr; do
  cp "$out/$k.simd16.visaasm" "$here/$k.skl.visaasm"
done
rm -rf "$out"
