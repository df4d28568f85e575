#!/bin/sh
# Regenerates quad_grad.sm_50.sass from quad_grad.ptx with the NVIDIA oracle
# (shared/oracles/nvidia): ptxas 12.9 -arch sm_50, nvdisasm 12.4 -hex; keeps the .text
# sections. Usage: quad_grad.sh ORACLES_DIR > quad_grad.sm_50.sass
set -eu
here=$(dirname "$0")
echo "// nvdisasm 12.4 -hex of ptxas 12.9 -arch sm_50 quad_grad.ptx (/work/shared/oracles/nvidia/ptx-to-sass"
echo "// quad_grad.ptx sm_50): the .text section of every kernel, unchanged. Regenerate with"
echo "// tests/cases/nvidia/quad_grad.sh."
"$1/nvidia/ptx-to-sass" "$here/quad_grad.ptx" sm_50 |
  awk '/^\/\/-+ \.text\./{on=1} /^\/\/-+ \.nv\./{on=0} on'
