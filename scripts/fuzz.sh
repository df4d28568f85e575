#!/usr/bin/env bash
# Runs the cargo-fuzz targets, each seeded from ../shared/corpus where that exists.
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]      (default 600 s, all targets)
#   FUZZ_MAX_LEN=4096 scripts/fuzz.sh ...                 (input size cap, default 65536: whole
#                                                          listings are slow seeds for the text targets)
# Needs cargo-fuzz (`cargo install cargo-fuzz`); on a stable toolchain RUSTC_BOOTSTRAP=1 lets
# cargo-fuzz use the sanitizer flags. Crashes land in fuzz/artifacts/<target>/.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-600}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(visa_text visa_binary visa_container dxbc_text dxbc_container nvidia_text nvidia_words stream_transcode translate)
corpus=../shared/corpus

# copy_seeds DIR: copies the files named on stdin (at most 200) under numbered names.
copy_seeds() {
    local i=0 f
    while IFS= read -r f && [ $i -lt 200 ]; do
        cp "$f" "$1/$i-$(basename "$f")"
        i=$((i + 1))
    done
    cat > /dev/null   # drains the rest: the writer must not die of SIGPIPE under pipefail
}

seed() {   # seed TARGET: copy a bounded sample of real inputs into fuzz/corpus/TARGET
    local dir=fuzz/corpus/$1
    mkdir -p "$dir"
    [ -d "$corpus" ] || return 0
    case $1 in
        visa_text)      find "$corpus/intel/dumps" -name '*.visaasm' | copy_seeds "$dir" ;;
        visa_binary)    # texlate's own encodings of the bundled vISA fixtures
                        cargo build -q --release
                        for f in tests/cases/visa/*.visaasm examples/*.visaasm; do
                            [ -f "$f" ] && target/release/texlate asm --isa visa "$f" -o "$dir/$(basename "$f").bin" || true
                        done ;;
        visa_container) find "$corpus/intel/dumps" -name '*.isa' | copy_seeds "$dir" ;;
        dxbc_text)      find "$corpus/dxbc/asm" -type f | copy_seeds "$dir" ;;
        dxbc_container) find "$corpus/dxbc/blobs" -name '*.dxbc' | copy_seeds "$dir" ;;
        nvidia_text)    find "$corpus/nvidia" -maxdepth 1 -name '*.sass' | copy_seeds "$dir" ;;
        nvidia_words)   find "$corpus/nvidia/cubin" -type f | copy_seeds "$dir" ;;
        # The first byte picks ISA/direction and form (see the targets): the seeds are small
        # corpus files of each ISA behind the picks that read them.
        stream_transcode|translate)
                        local picks isa f
                        for isa in nvidia dxbc visa; do
                            case $1-$isa in
                                stream_transcode-nvidia) picks="0 4" ;;
                                stream_transcode-dxbc)   picks="1 5" ;;
                                stream_transcode-visa)   picks="2 6" ;;
                                translate-nvidia)        picks="1 4" ;;
                                translate-dxbc)          picks="0 2" ;;
                                translate-visa)          picks="3 5" ;;
                            esac
                            case $isa in
                                nvidia) find "$corpus/nvidia" -maxdepth 1 -name '*.sass' -size -20k ;;
                                dxbc)   find "$corpus/dxbc/blobs" -name '*.dxbc' -size -20k ;;
                                visa)   find "$corpus/intel/dumps" -name '*.visaasm' -size -20k ;;
                            esac | awk 'NR <= 30' | while IFS= read -r f; do   # awk reads all: no SIGPIPE under pipefail
                                for p in $picks; do
                                    { printf "\\$(printf %03o "$p")"; cat "$f"; } > "$dir/$p-$(basename "$f")"
                                done
                            done
                        done ;;
    esac
}

for t in "${targets[@]}"; do
    seed "$t"
    echo "== $t: ${secs}s"
    RUSTC_BOOTSTRAP=1 cargo fuzz run "$t" "fuzz/corpus/$t" -- -max_total_time="$secs" -rss_limit_mb=2048 -max_len="${FUZZ_MAX_LEN:-65536}" 2>&1 \
        | tee "fuzz/$t.log" | grep -E '^(#[0-9]+ +DONE|Done|==[0-9]+==|SUMMARY)' || true
done
