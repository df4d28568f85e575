#!/usr/bin/env bash
# bench-translate.sh: cross-ISA translation throughput of the release CLI (issue 9), every
# direction (DX <-> NVIDIA, DX <-> vISA, NVIDIA <-> vISA), text -> text and binary -> binary,
# on large programs; prints per direction and form the median CPU seconds (user + system,
# /usr/bin/time) of N runs, the source texture instructions per CPU second and the peak memory.
#
# The inputs are built from one DX listing of COUNT texture instructions cycling through the
# forms each direction translates: sample, sample_l, gather4, ld, resinfo of a 2D texture
# (resinfo not from vISA binary: its result moves have no vISA binary form texlate reads). The
# NVIDIA and vISA inputs are texlate's own translations of that listing, the binary inputs its
# binary encodings (a DXBC container, an NVIDIA word stream, vISA instruction bytes); from
# vISA the bindings name T6's dimension. The instruction count is the number of source texture
# instructions the translation's Report lists (`--json`).
#
#   --big WORDS   also translate an NVIDIA word stream of about WORDS words (texlate's binary
#                 translation of a long listing) to DX, text and binary, once each: CPU
#                 seconds and peak memory (0 skips it; default 0).
#   --corpus      also run the criterion bench of the corpus translations
#                 (`cargo bench --bench roundtrip -- translate_`), printing its throughput lines.
#
# usage: scripts/bench-translate.sh [-n RUNS] [--count N] [--big WORDS] [--corpus]
#                                   [--texlate BIN] [--work DIR] [--only FROM-TO]
#   -n RUNS        runs per measurement, the median is printed (default 5)
#   --count N      texture instructions per program (default 20000)
#   --texlate BIN  the texlate binary (default: cargo build --release, target/release/texlate)
#   --work DIR     keep the inputs and outputs in DIR (default: a temporary directory, removed)
#   --only FROM-TO one direction only, e.g. dxbc-nvidia (repeatable)
# exit: 0 done; 1 a translation failed; 2 usage or a missing tool (/usr/bin/time, python3).
set -euo pipefail

runs=5
count=20000
big=0
corpus=0
texlate=""
work=""
only=()
root=$(cd "$(dirname "$0")/.." && pwd)

usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    -n) runs=${2:?}; shift 2 ;;
    --count) count=${2:?}; shift 2 ;;
    --big) big=${2:?}; shift 2 ;;
    --corpus) corpus=1; shift ;;
    --texlate) texlate=${2:?}; shift 2 ;;
    --work) work=${2:?}; shift 2 ;;
    --only) only+=("${2:?}"); shift 2 ;;
    -h|--help) usage ;;
    *) echo "bench-translate: unknown argument $1" >&2; usage ;;
  esac
done
for n in "$runs" "$count" "$big"; do
  [[ "$n" =~ ^[0-9]+$ ]] || { echo "bench-translate: not a number: $n" >&2; exit 2; }
done
[ -x /usr/bin/time ] || { echo "bench-translate: /usr/bin/time is missing" >&2; exit 2; }
command -v python3 >/dev/null || { echo "bench-translate: python3 is missing" >&2; exit 2; }
if [ -z "$texlate" ]; then
  (cd "$root" && cargo build --release --quiet)
  texlate=$root/target/release/texlate
fi
if [ -z "$work" ]; then
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi
mkdir -p "$work"

# The DX listing: $1 texture instructions cycling through the forms named in $2 (a,b,...).
dx_listing() {
  python3 - "$1" "$2" <<'EOF'
import sys
count, forms = int(sys.argv[1]), sys.argv[2].split(",")
line = {
    "sample": "sample r0.xyzw, v0.xyxx, t0.xyzw, s0",
    "sample_l": "sample_l r1.xyzw, v0.xyxx, t0.xyzw, s0, l(0.000000)",
    "gather4": "gather4 r2.xyzw, v0.xyxx, t0.xyzw, s0.x",
    "ld": "ld r3.xyzw, r1.xyzw, t0.xyzw",
    "resinfo": "resinfo r0.xyzw, l(0), t0.xyzw",
}
out = ["ps_5_0", "dcl_globalFlags refactoringAllowed",
       "dcl_resource_texture2d (float,float,float,float) t0", "dcl_sampler s0, mode_default",
       "dcl_input_ps linear v0.xy", "dcl_output o0.xyzw", "dcl_temps 4"]
out += [line[forms[k % len(forms)]] for k in range(count)]
out.append("ret")
sys.stdout.write("\n".join(out) + "\n")
EOF
}

cat >"$work/bindings.toml" <<'EOF'
[[binding]]
dim = "2d"
dxbc = { texture = "t0", sampler = "s0" }
visa = { texture = "T6", sampler = "S0" }
nvidia = { texture = "0x0" }
EOF

# The forms a direction translates ($1 from, $2 to, $3 form).
forms() {
  local f="sample,sample_l,gather4,ld"
  if [ "$1" != visa ] || [ "$3" != binary ]; then f="$f,resinfo"; fi
  echo "$f"
}

# The input of a direction: the DX listing translated to $1 in form $3; prints its path.
input() {
  local from=$1 to=$2 form=$3 mix path
  mix=$(forms "$from" "$to" "$form")
  path="$work/in.$from.$form.${mix//,/-}"
  if [ ! -e "$path" ]; then
    dx_listing "$count" "$mix" >"$work/dx.${mix//,/-}.asm"
    "$texlate" translate --from dxbc --to "$from" --emit "$form" \
      "$work/dx.${mix//,/-}.asm" -o "$path" 2>/dev/null
  fi
  echo "$path"
}

# `/usr/bin/time` of one command: prints "CPU_SECONDS PEAK_KIB".
timed() {
  /usr/bin/time -f '%U %S %M' -o "$work/time" "$@" >/dev/null 2>"$work/stderr" || {
    echo "bench-translate: failed: $*" >&2; cat "$work/stderr" >&2; exit 1; }
  awk '{ printf "%.3f %d\n", $1 + $2, $3 }' "$work/time"
}

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

wanted() {
  [ ${#only[@]} -eq 0 ] && return 0
  local d
  for d in "${only[@]}"; do [ "$d" = "$1-$2" ] && return 0; done
  return 1
}

printf '%-16s %-7s %7s %9s %12s %9s\n' direction form instrs "CPU s" "instr/s" "peak MiB"
for pair in dxbc-nvidia nvidia-dxbc dxbc-visa visa-dxbc nvidia-visa visa-nvidia; do
  from=${pair%-*} to=${pair#*-}
  wanted "$from" "$to" || continue
  for form in text binary; do
    src=$(input "$from" "$to" "$form")
    args=(translate --from "$from" --to "$to" --emit "$form" "$src")
    [ "$from" = visa ] && args+=(--bindings "$work/bindings.toml")
    n=$("$texlate" "${args[@]}" --json | python3 -c 'import json, sys; print(len(json.load(sys.stdin)["instructions"]))')
    cpus=() peaks=()
    for _ in $(seq "$runs"); do
      read -r cpu peak < <(timed "$texlate" "${args[@]}" -o "$work/out")
      cpus+=("$cpu") peaks+=("$peak")
    done
    cpu=$(printf '%s\n' "${cpus[@]}" | median)
    peak=$(printf '%s\n' "${peaks[@]}" | median)
    awk -v d="$from -> $to" -v f="$form" -v n="$n" -v c="$cpu" -v p="$peak" 'BEGIN {
      printf "%-16s %-7s %7d %9.3f %12s %9.1f\n", d, f, n, c, (c > 0 ? sprintf("%.0f", n / c) : "-"), p / 1024 }'
  done
done

if [ "$big" -gt 0 ]; then
  # The listing's length for WORDS words: from the words a 1000-instruction one translates to.
  dx_listing 1000 sample,sample_l,gather4,ld,resinfo >"$work/probe.asm"
  "$texlate" translate --from dxbc --to nvidia --emit binary "$work/probe.asm" -o "$work/probe.bin"
  n=$((big * 1000 * 4 / $(stat -c %s "$work/probe.bin")))
  dx_listing "$n" sample,sample_l,gather4,ld,resinfo >"$work/big.asm"
  "$texlate" translate --from dxbc --to nvidia --emit binary "$work/big.asm" -o "$work/big.bin"
  words=$(($(stat -c %s "$work/big.bin") / 4))
  for form in text binary; do
    read -r cpu peak < <(timed "$texlate" translate --from nvidia --to dxbc --emit "$form" "$work/big.bin" -o "$work/out")
    awk -v w="$words" -v f="$form" -v c="$cpu" -v p="$peak" 'BEGIN {
      printf "NVIDIA %d words -> DX %s: %.2f s CPU, peak %.1f MiB\n", w, f, c, p / 1024 }'
  done
fi

if [ "$corpus" -eq 1 ]; then
  (cd "$root" && cargo bench --bench roundtrip -- translate_ 2>&1) |
    awk '/^translate_/ { name = $1 } /thrpt:/ { print name, $0 }'
fi
