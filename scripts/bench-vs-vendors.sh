#!/usr/bin/env bash
# bench-vs-vendors.sh: texlate side by side with the vendor tools on the same inputs (issue 9),
# each run under /usr/bin/time -v; prints the median wall time, CPU time and peak memory (maximum
# resident set size) of N runs per tool, and the ratios to texlate.
#
#   NVIDIA  a raw SM50 stream of WORDS words (WORDS/4 bundles: a control word and three texture
#           words drawn with a fixed seed from corpus/nvidia/tex_pairs.tsv):
#             texlate disasm --isa nvidia    vs   nvdisasm -b SM50 -hex
#           (-hex: texlate's listing carries the encodings too); then texlate alone on BIG words
#           for the memory-flatness check (peak at BIG words / peak at WORDS words).
#   DXBC    the corpus blobs (corpus/dxbc/blobs, 495 files) to text:
#             texlate disasm --isa dxbc BLOBS -o OUT (one batch)   and texlate run per blob
#             vs   vkd3d-compiler run per blob (DXBC -> SPIR-V; 1.2 has no text target)
#             vs   Wine's D3DDisassemble over all blobs in one process (d3dtool.exe disasm-list)
#   Scaling texlate batches with RAYON_NUM_THREADS=1 and =2 over the blobs copied COPIES times:
#           disasm, and translate --from dxbc --to nvidia (blobs it refuses count as done).
#
# A vendor tool that is not installed is skipped, saying so (installers: ../shared/oracles/*/setup.sh;
# the tools are found through $ORACLE_HOME/<isa>/env.sh, by default ~/.cache/texlate-oracles).
# Each measured command runs once untimed first (page cache, Wine's server).
#
# usage: scripts/bench-vs-vendors.sh [-n RUNS] [--words N] [--big-words N] [--copies N]
#                                    [--texlate BIN] [--corpus DIR] [--work DIR] [--only nvidia|dxbc|scaling]
#   -n RUNS        runs per measurement, the median is printed (default 5)
#   --words N      words of the NVIDIA stream (default 1000000; a multiple of 4)
#   --big-words N  words of the memory-flatness stream (default 10000000; 0 skips it)
#   --copies N     copies of the blob set for the scaling batch (default 10)
#   --texlate BIN  the texlate binary (default: cargo build --release, target/release/texlate)
#   --corpus DIR   the corpus (default: $TEXLATE_CORPUS, else ../shared/corpus beside the repository)
#   --work DIR     keep the inputs and outputs in DIR (default: a temporary directory, removed)
#   --only PART    run one part only (repeatable)
# exit: 0 done; 2 usage or a missing input (corpus, /usr/bin/time, python3).
set -euo pipefail

runs=5
words=1000000
big_words=10000000
copies=10
texlate=""
work=""
only=()
root=$(cd "$(dirname "$0")/.." && pwd)
corpus=${TEXLATE_CORPUS:-$root/../shared/corpus}

usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    -n) runs=${2:?}; shift 2 ;;
    --words) words=${2:?}; shift 2 ;;
    --big-words) big_words=${2:?}; shift 2 ;;
    --copies) copies=${2:?}; shift 2 ;;
    --texlate) texlate=${2:?}; shift 2 ;;
    --corpus) corpus=${2:?}; shift 2 ;;
    --work) work=${2:?}; shift 2 ;;
    --only) only+=("${2:?}"); shift 2 ;;
    -h|--help) usage ;;
    *) echo "bench-vs-vendors: unknown argument $1" >&2; usage ;;
  esac
done
for n in "$runs" "$words" "$big_words" "$copies"; do
  [[ $n =~ ^[0-9]+$ ]] || { echo "bench-vs-vendors: $n is not a count" >&2; exit 2; }
done
[ "$runs" -ge 1 ] || { echo "bench-vs-vendors: -n needs at least 1 run" >&2; exit 2; }
[ $((words % 4)) = 0 ] && [ "$words" -gt 0 ] && [ $((big_words % 4)) = 0 ] ||
  { echo "bench-vs-vendors: word counts are whole bundles (multiples of 4)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "bench-vs-vendors: /usr/bin/time (GNU time) is needed: apt-get install time" >&2; exit 2; }
command -v python3 >/dev/null || { echo "bench-vs-vendors: python3 is needed" >&2; exit 2; }
[ -f "$corpus/nvidia/tex_pairs.tsv" ] && [ -d "$corpus/dxbc/blobs" ] ||
  { echo "bench-vs-vendors: no corpus at $corpus (set TEXLATE_CORPUS or --corpus)" >&2; exit 2; }

wants() {
  [ ${#only[@]} = 0 ] && return 0
  local p
  for p in "${only[@]}"; do [ "$p" = "$1" ] && return 0; done
  return 1
}

if [ -z "$texlate" ]; then
  echo "building texlate (cargo build --release) ..." >&2
  (cd "$root" && cargo build --release --quiet --bin texlate)
  texlate=$root/target/release/texlate
fi
[ -x "$texlate" ] || { echo "bench-vs-vendors: $texlate is not executable" >&2; exit 2; }

if [ -z "$work" ]; then
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
else
  mkdir -p "$work"
fi

oracles=${ORACLE_HOME:-$HOME/.cache/texlate-oracles}
load_env() { # load_env ISA: source the oracle's env.sh if it is there
  local f=$oracles/$1/env.sh
  # shellcheck disable=SC1090
  [ -f "$f" ] && . "$f"
  return 0
}

# ---- measuring ----

# measure KEY CMD...: runs CMD once untimed, then RUNS times under /usr/bin/time -v (standard
# output to $work/out/KEY.stdout); stores the medians in wall[KEY], cpu[KEY], rss[KEY] (MiB).
# When $fresh names a directory, it is emptied (untimed, then `sync`) before every run: the
# command then writes new files rather than replacing those of the run before.
declare -A wall=() cpu=() rss=()
fresh=""
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
measure() {
  local key=$1; shift
  local dir=$work/time/$key
  mkdir -p "$dir" "$work/out"
  "$@" > "$work/out/$key.stdout" 2> "$dir/warmup.stderr" || true
  local i
  for ((i = 1; i <= runs; i++)); do
    [ -z "$fresh" ] || { rm -rf "$fresh"; mkdir -p "$fresh"; sync; }
    /usr/bin/time -v -o "$dir/$i.time" "$@" > "$work/out/$key.stdout" 2> "$dir/$i.stderr" || true
  done
  wall[$key]=$(for ((i = 1; i <= runs; i++)); do
    awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, t, ":"); s = 0; for (j = 1; j <= n; j++) s = s * 60 + t[j]; print s }' "$dir/$i.time"
  done | median)
  cpu[$key]=$(for ((i = 1; i <= runs; i++)); do
    awk -F': ' '/User time/ { u = $2 } /System time/ { s = $2 } END { print u + s }' "$dir/$i.time"
  done | median)
  rss[$key]=$(for ((i = 1; i <= runs; i++)); do
    awk -F': ' '/Maximum resident set size/ { print $2 / 1024 }' "$dir/$i.time"
  done | median)
}

row() { # row KEY LABEL
  printf '  %-58s %9.3f %9.3f %10.1f\n' "$2" "${wall[$1]}" "${cpu[$1]}" "${rss[$1]}"
}
header() {
  printf '  %-58s %9s %9s %10s\n' "command (median of $runs runs)" "wall s" "cpu s" "peak MiB"
}
ratio() { # ratio KEY_VENDOR KEY_TEXLATE NAME: throughput and memory ratios
  awk -v a="${wall[$1]}" -v b="${wall[$2]}" -v ma="${rss[$1]}" -v mb="${rss[$2]}" -v name="$3" 'BEGIN {
    printf "  texlate vs %s: %.1fx the throughput (wall), %.2fx the peak memory\n", name, a / (b > 0 ? b : 0.001), mb / ma }'
}

echo "texlate: $texlate ($("$texlate" --version))"
echo "machine: $(nproc) cores, $(uname -sr); runs per measurement: $runs"

# ---- NVIDIA ----

gen_stream() { # gen_stream WORDS FILE
  python3 - "$corpus/nvidia/tex_pairs.tsv" "$1" "$2" <<'EOF'
import array, random, sys
pairs, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
words = []
for line in open(pairs):
    f = line.rstrip("\n").split("\t")
    if len(f) >= 3 and f[0] == "sm_50":
        words.append(int(f[1], 16))
# A control word ptxas wrote (oracles/nvidia/lib/nvdis_raw.py): no .P/.T phase in any slot.
CTRL = 0x001fc800fe2007f6
rng = random.Random(9)
bundles = n // 4
tex = rng.choices(words, k=3 * bundles)
a = array.array("Q", [CTRL]) * (4 * bundles)
for k in range(3):
    a[k + 1::4] = array.array("Q", tex[k::3])
if sys.byteorder != "little":
    a.byteswap()
with open(out, "wb") as f:
    a.tofile(f)
print(f"{bundles} bundles, {3 * bundles} texture words drawn from {len(words)} sm_50 encodings", file=sys.stderr)
EOF
}
instr_lines() { grep -c '/\*[0-9a-f]\{4,\}\*/' "$1" || true; }

if wants nvidia; then
  echo
  echo "== NVIDIA: $words-word SM50 stream =="
  stream=$work/nv_$words.bin
  gen_stream "$words" "$stream"
  header
  measure nv_texlate "$texlate" disasm --isa nvidia "$stream"
  row nv_texlate "texlate disasm --isa nvidia STREAM"
  NVDISASM=${NVDISASM:-}
  load_env nvidia
  if [ -n "${NVDISASM:-}" ] && [ -x "$NVDISASM" ]; then
    measure nv_nvdisasm "$NVDISASM" -b SM50 -hex "$stream"
    row nv_nvdisasm "nvdisasm -b SM50 -hex STREAM"
    echo "  instruction lines printed: texlate $(instr_lines "$work/out/nv_texlate.stdout"), nvdisasm $(instr_lines "$work/out/nv_nvdisasm.stdout")"
    ratio nv_nvdisasm nv_texlate nvdisasm
  else
    echo "  nvdisasm: not installed, skipped (../shared/oracles/nvidia/setup.sh)"
  fi
  if [ "$big_words" -gt 0 ]; then
    big=$work/nv_$big_words.bin
    gen_stream "$big_words" "$big"
    measure nv_texlate_big "$texlate" disasm --isa nvidia "$big"
    row nv_texlate_big "texlate disasm --isa nvidia STREAM ($big_words words)"
    rm -f "$big" "$work/out/nv_texlate_big.stdout"
    awk -v a="${rss[nv_texlate]}" -v b="${rss[nv_texlate_big]}" -v ta="${wall[nv_texlate]}" -v tb="${wall[nv_texlate_big]}" \
        -v wa="$words" -v wb="$big_words" 'BEGIN {
      printf "  memory flatness: peak %.1f MiB at %d words, %.1f MiB at %d words (%+.1f%%); time %.2fx for %.0fx the words\n",
        a, wa, b, wb, (b / a - 1) * 100, tb / (ta > 0 ? ta : 0.001), wb / wa }'
  fi
  awk -v t="${wall[nv_texlate]}" -v c="${cpu[nv_texlate]}" -v n="$words" 'BEGIN {
    printf "  texlate: %.1f M words/s (wall), %.1f M words/s per CPU second\n", n / (t > 0 ? t : 0.001) / 1e6, n / (c > 0 ? c : 0.001) / 1e6 }'
fi

# ---- DXBC ----

blobs=$corpus/dxbc/blobs
nblobs=$(find "$blobs" -maxdepth 1 -name '*.dxbc' | wc -l)
per_blob() { # per_blob OUTDIR CMD...: CMD FILE OUTDIR/<stem> for every blob (exit codes ignored)
  local out=$1; shift
  mkdir -p "$out"
  local f
  for f in "$blobs"/*.dxbc; do
    "$@" "$f" "$out/$(basename "$f" .dxbc)" > /dev/null 2>&1 || true
  done
}
texlate_one() { "$texlate" disasm --isa dxbc "$1" -o "$2.asm"; }
vkd3d_one() { "$VKD3D_COMPILER" -o "$2.spv" "$1"; }
export -f per_blob texlate_one vkd3d_one
export texlate blobs

if wants dxbc; then
  echo
  echo "== DXBC: $nblobs corpus blobs to text =="
  header
  rm -rf "$work/dx_batch"
  measure dx_batch "$texlate" disasm --isa dxbc "$blobs" -o "$work/dx_batch"
  row dx_batch "texlate disasm --isa dxbc BLOBS -o OUT (one batch)"
  measure dx_single bash -c 'per_blob "$0" texlate_one' "$work/dx_single"
  row dx_single "texlate disasm --isa dxbc, one process per blob"
  VKD3D_COMPILER=${VKD3D_COMPILER:-}
  load_env dxbc
  VKD3D_COMPILER=${VKD3D_COMPILER:-$(command -v vkd3d-compiler || true)}
  export VKD3D_COMPILER
  if [ -n "$VKD3D_COMPILER" ] && [ -x "$VKD3D_COMPILER" ]; then
    measure dx_vkd3d bash -c 'per_blob "$0" vkd3d_one' "$work/dx_vkd3d"
    row dx_vkd3d "vkd3d-compiler, one process per blob (to SPIR-V)"
  else
    echo "  vkd3d-compiler: not installed, skipped (../shared/oracles/dxbc/setup.sh)"
  fi
  if [ -n "${WINE:-}" ] && [ -x "${WINE:-}" ] && [ -f "${D3DTOOL:-}" ] && [ -d "${WINEPREFIX:-}" ]; then
    export WINEDEBUG=-all
    mkdir -p "$work/dx_wine"
    find "$blobs" -maxdepth 1 -name '*.dxbc' | sort | sed 's|^|Z:|' > "$work/dx_wine.list"
    measure dx_wine "$WINE" "$D3DTOOL" disasm-list "Z:$work/dx_wine.list" "Z:$work/dx_wine"
    row dx_wine "Wine D3DDisassemble, all blobs in one process"
    echo "  outputs: texlate $(find "$work/dx_batch" -name '*.asm' | wc -l), Wine $(find "$work/dx_wine" -type f | wc -l)"
    # The runs above replace the outputs of the run before (texlate: a new file renamed over
    # the old one; Wine: the old one truncated and rewritten). Into an empty directory:
    fresh=$work/dx_batch_fresh measure dx_batch_fresh "$texlate" disasm --isa dxbc "$blobs" -o "$work/dx_batch_fresh"
    row dx_batch_fresh "texlate batch as above, into an empty directory"
    fresh=$work/dx_wine_fresh measure dx_wine_fresh "$WINE" "$D3DTOOL" disasm-list "Z:$work/dx_wine.list" "Z:$work/dx_wine_fresh"
    row dx_wine_fresh "Wine as above, into an empty directory"
  else
    echo "  Wine D3DDisassemble: not installed, skipped (../shared/oracles/dxbc/setup.sh)"
  fi
  [ -n "${wall[dx_vkd3d]:-}" ] && ratio dx_vkd3d dx_batch "vkd3d-compiler per blob"
  [ -n "${wall[dx_wine]:-}" ] && ratio dx_wine dx_batch "Wine D3DDisassemble (all blobs)"
  [ -n "${wall[dx_wine_fresh]:-}" ] && ratio dx_wine_fresh dx_batch_fresh "Wine D3DDisassemble (all blobs, empty directory)"
  ratio dx_single dx_batch "texlate per blob"
fi

# ---- scaling ----

if wants scaling; then
  echo
  echo "== batch scaling: RAYON_NUM_THREADS=1 vs 2 =="
  copies_dir=$work/blob_copies
  rm -rf "$copies_dir"
  for ((c = 1; c <= copies; c++)); do
    mkdir -p "$copies_dir/c$c"
    cp "$blobs"/*.dxbc "$copies_dir/c$c/"
  done
  header
  for t in 1 2; do
    rm -rf "$work/scale_disasm_$t"
    measure "scale_disasm_$t" env RAYON_NUM_THREADS=$t "$texlate" disasm --isa dxbc "$copies_dir" -o "$work/scale_disasm_$t"
    row "scale_disasm_$t" "disasm, $((nblobs * copies)) blobs, $t thread(s)"
  done
  for t in 1 2; do
    rm -rf "$work/scale_translate_$t"
    measure "scale_translate_$t" env RAYON_NUM_THREADS=$t "$texlate" translate --from dxbc --to nvidia "$copies_dir" -o "$work/scale_translate_$t"
    row "scale_translate_$t" "translate dxbc -> nvidia, $((nblobs * copies)) blobs, $t thread(s)"
  done
  for k in disasm translate; do
    awk -v a="${wall[scale_${k}_1]}" -v b="${wall[scale_${k}_2]}" -v k="$k" 'BEGIN {
      printf "  %s: 2 threads %.2fx the throughput of 1\n", k, a / (b > 0 ? b : 0.001) }'
  done
  rm -rf "$copies_dir"
fi
