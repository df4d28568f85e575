#!/usr/bin/env bash
# oracle-visa.sh: Intel's own vISA assembler (GenX_IR, IGC 1.0.12504) must accept every vISA
# op form texlate prints. texlate prints tests/cases/visa/all_ops.visaasm (every sampler op,
# modifiers, predicates, SIMD8/16, HF, both load_2dms_w forms) and visa-assemble assembles it
# for each platform (default: SKL TGLLP).
#
# usage: scripts/oracle-visa.sh            (PLATFORMS="SKL ICLLP TGLLP" to change the list)
# needs: ../shared/oracles/intel (install with `sudo ../shared/oracles/intel/setup.sh`);
#        VISA_ASSEMBLE=/path/to/visa-assemble overrides the location.
# exit:  0 all accepted; 1 a platform rejected the file; 3 oracle not installed.
#
# Excluded: `lod`. IGC 12504 prints it but its own lexer does not accept it (CISA.l omits it
# from the sampler-op regex, research/intel-visa.md §3.1), so the lod lines are filtered out
# and the script checks that GenX_IR still rejects them, so the day it accepts them is noticed.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
assemble=${VISA_ASSEMBLE:-$root/../shared/oracles/intel/visa-assemble}
if [ ! -x "$assemble" ]; then
  echo "oracle-visa: $assemble not found; install with shared/oracles/intel/setup.sh" >&2
  exit 3
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cargo run -q --manifest-path "$root/Cargo.toml" -- translate --from visa --to visa \
  "$root/tests/cases/visa/all_ops.visaasm" -o "$tmp/printed.visaasm"
lod='^[[:space:]]*(\([^)]*\)[[:space:]]*)?lod\.'
grep -v -E "$lod" "$tmp/printed.visaasm" > "$tmp/texlate_all_ops.visaasm"
status=0
for plat in ${PLATFORMS:-SKL TGLLP}; do
  if ! "$assemble" "$tmp/texlate_all_ops.visaasm" "$plat"; then
    status=1
  fi
  if "$assemble" "$tmp/printed.visaasm" "$plat" > "$tmp/with_lod.log" 2>&1; then
    echo "note: GenX_IR now accepts lod on $plat; drop the exclusion"
  else
    echo "lod excluded on $plat (GenX_IR: $(grep -m1 -i 'syntax error' "$tmp/with_lod.log" || echo rejected))"
  fi
done
exit $status
