#!/usr/bin/env bash
# Oracle check: texlate's text for generated NVIDIA texture instruction words must be what
# NVIDIA's nvdisasm 12.4 prints for the same words (`nvdisasm -b SM50`; `-b SM61` for the
# SM60+ sparse predicate and .LC). Words texlate refuses must be refused or printed with an
# INVALID… field by nvdisasm.
#
# usage: scripts/oracle-nvidia.sh        (needs ../shared/oracles/nvidia/setup.sh to have run)
#   NVDISASM_WORDS=path  the oracle command (default: ../shared/oracles/nvidia/nvdisasm-words)
# exit: 0 all agree, 1 a mismatch (listed), 3 oracle not installed
set -euo pipefail
HERE=$(cd "$(dirname "$0")/.." && pwd)
ORACLE=${NVDISASM_WORDS:-$HERE/../shared/oracles/nvidia/nvdisasm-words}
[ -x "$ORACLE" ] || { echo "oracle not found: $ORACLE (run shared/oracles/nvidia/setup.sh)"; exit 3; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
cd "$HERE"
cargo build -q --example nvidia_oracle
status=0
total=0
for sm in SM50 SM61; do
  cargo run -q --example nvidia_oracle -- "$sm" > "$TMP/texlate.$sm.tsv"
  cut -f1 "$TMP/texlate.$sm.tsv" | "$ORACLE" --sm "$sm" > "$TMP/nvdisasm.$sm.tsv" || exit 3
  paste "$TMP/texlate.$sm.tsv" "$TMP/nvdisasm.$sm.tsv" | awk -F'\t' -v sm="$sm" '
    $1 != $3 { print "order mismatch: " $1 " vs " $3; bad++; next }
    $2 == "REJECTED" { rej++; if ($4 != "UNDECODABLE" && $4 !~ /INVALID/) { print sm " " $1 ": texlate rejects, nvdisasm prints: " $4; bad++ }; next }
    $2 != $4 { print sm " " $1 ": texlate `" $2 "` nvdisasm `" $4 "`"; bad++; next }
    { ok++ }
    END { printf "%s: %d words agree, %d rejected words refused by nvdisasm too, %d mismatches\n", sm, ok, rej, bad; exit bad > 0 }
  ' || status=1
  total=$((total + $(wc -l < "$TMP/texlate.$sm.tsv")))
done
echo "distinct words checked: $total"
exit $status
