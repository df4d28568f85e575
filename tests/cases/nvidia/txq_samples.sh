#!/bin/sh
# Regenerates txq_samples.sm_50.sass from txq_samples.ptx with the NVIDIA oracle
# (shared/oracles/nvidia): ptxas 12.9 -arch sm_50, nvdisasm 12.4 -hex; keeps the .text
# sections. Evidence for docs/nvidia.md "TXQ sample queries": ptxas compiles
# txq.num_samples to a descriptor-table load (LDG), txq.width to TXQ TEX_HEADER_DIMENSION.
# Usage: txq_samples.sh ORACLES_DIR > txq_samples.sm_50.sass
set -eu
here=$(dirname "$0")
"$1/nvidia/ptx-to-sass" "$here/txq_samples.ptx" sm_50 |
  awk '/^\/\/-+ \.text\./{on=1} /^\/\/-+ \.nv\./{on=0} on'
