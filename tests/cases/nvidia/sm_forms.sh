#!/bin/sh
# Regenerates the later-SM fixtures with the NVIDIA oracle (shared/oracles/nvidia): ptxas 12.9
# then nvdisasm 12.4 -hex, keeping the .text sections, and the cubins ptxas wrote (their ELF
# flags name their SM):
#   sm53_forms.sm_53.sass  from sm53_forms.ptx (-arch sm_53: TEXS.F16, TLDS.F16; sm_52 refuses f16)
#   sparse.sm_60.sass      from sparse.ptx     (-arch sm_60: the sparse predicate; sm_52 refuses it)
#   sm53_forms.sm_53.cubin, sparse.sm_60.cubin
# Usage: sm_forms.sh ORACLES_DIR
set -eu
here=$(dirname "$0")
for pair in sm53_forms:sm_53 sparse:sm_60; do
  name=${pair%%:*} sm=${pair##*:}
  {
    echo "// nvdisasm 12.4 -hex of ptxas 12.9 -arch $sm $name.ptx: the .text sections, unchanged."
    echo "// Regenerate with tests/cases/nvidia/sm_forms.sh."
    "$1/nvidia/ptx-to-sass" -o "$here/$name.$sm.cubin" "$here/$name.ptx" "$sm" |
      awk '/^\/\/-+ \.text\./{on=1} /^\/\/-+ \.nv\./{on=0} on'
  } > "$here/$name.$sm.sass"
done
