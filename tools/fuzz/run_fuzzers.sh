#!/bin/bash
# Fuzzes the tokenizer, the corpus readers, the GLUE, SQuAD and SWAG readers
# (tasks/fuzz/*_fuzzer.cc), the safetensors reader (model/fuzz) and the
# experiment loader (experiments/fuzz) with libFuzzer for a bounded time, and
# keeps whatever it finds as regression inputs.
#
#   tools/fuzz/run_fuzzers.sh [SECONDS] [FUZZER...]
#
# SECONDS: fuzzing time per fuzzer (default 60). FUZZER: names of
# *_fuzzer.cc files in those directories (default: all of them, one after
# the other).
#
# Builds outside Bazel, straight from the sources, with Debian's clang:
# the library sources with -fsanitize=fuzzer-no-link,address,undefined
# (coverage and sanitizers), each fuzzer linked with -fsanitize=fuzzer,...
# (libFuzzer's main), against the system Abseil, utf8proc, nlohmann-json and
# protobuf (pkg-config); experiment.proto is compiled with the system protoc.
# Objects, binaries, logs and the grown corpora live in $FUZZ_BUILD_DIR
# (default /tmp/bertlab-fuzz), never in the tree: the committed seeds under
# */fuzz/corpus/ stay small. A grown corpus is reused by the next run.
#
# Each fuzzer starts from its grown corpus, its seeds and its regressions.
# An input that crashes (a sanitizer report, a failed CHECK), times out
# (-timeout, 25 s) or runs out of memory (-rss_limit_mb, 2560) stops that
# fuzzer; the input is copied to <dir>/regressions/<fuzzer>/ beside the
# fuzzer's source, where `bazel test //<dir>:all` (e.g. //tasks/fuzz:all)
# replays it under gcc from then on, and the
# log to $FUZZ_BUILD_DIR/<fuzzer>.log. Fix the bug, commit the input, rerun.
# The summary gives seconds, executions and findings per fuzzer. Exit
# status: 0 when nothing was found, 1 when something was, 2 when the build
# failed.
#
# Not part of CI (.ci/run), so tools/setup.sh does not install clang: when
# clang++ cannot link -fsanitize=fuzzer, this script installs Debian 12's
# `clang` and `libclang-rt-14-dev` (libFuzzer and the sanitizer runtimes)
# with apt-get itself, as root.
set -euo pipefail
cd "$(dirname "$0")/../.."

seconds=${1:-60}
[[ "$seconds" =~ ^[0-9]+$ ]] && [ "$seconds" -gt 0 ] ||
  { echo "usage: $0 [SECONDS] [FUZZER...]" >&2; exit 2; }
shift || true
all_fuzzers=(tokenizer_fuzzer vocab_fuzzer corpus_reader_fuzzer
  sentence_splitter_fuzzer glue_reader_fuzzer squad_reader_fuzzer
  swag_reader_fuzzer safetensors_fuzzer config_loader_fuzzer
  shard_reader_fuzzer)
fuzz_dirs=(tasks/fuzz model/fuzz experiments/fuzz)
if [ $# -gt 0 ]; then fuzzers=("$@"); else fuzzers=("${all_fuzzers[@]}"); fi
# The directory of each fuzzer's source, corpus/ and regressions/.
declare -A dir_of
for fuzzer in "${fuzzers[@]}"; do
  for dir in "${fuzz_dirs[@]}"; do
    [ -f "$dir/$fuzzer.cc" ] && dir_of[$fuzzer]=$dir
  done
  [ -n "${dir_of[$fuzzer]:-}" ] || {
    echo "run_fuzzers: no $fuzzer.cc in ${fuzz_dirs[*]}" >&2
    exit 2
  }
done
build=${FUZZ_BUILD_DIR:-/tmp/bertlab-fuzz}
mkdir -p "$build/obj" "$build/gen"

# The sources each fuzzer links: the local .cc files of its Bazel target's
# dependencies (bazel query), but the fuzzer itself and the replay driver
# (libFuzzer brings its own main), so the list cannot fall behind the BUILD
# files. experiment.pb.cc, which protoc writes into $build/gen, is linked
# into every fuzzer.
sources_of() {  # sources_of DIR FUZZER
  bazel query "kind('source file', deps(//$1:$2))" --output=label \
      2> "$build/query-$2.log" |
    sed -n 's|^//\([^:]*\):\(.*\.cc\)$|\1/\2|p' |
    grep -v -e "^$1/$2\.cc\$" -e '^tasks/fuzz/fuzz_driver_main\.cc$' ||
    true
}
declare -A sources_for
library_sources=()
for fuzzer in "${fuzzers[@]}"; do
  list=$(sources_of "${dir_of[$fuzzer]}" "$fuzzer")
  [ -n "$list" ] || {
    echo "run_fuzzers: bazel query found no sources for $fuzzer" \
      "($build/query-$fuzzer.log)" >&2
    exit 2
  }
  sources_for[$fuzzer]=$list
  while IFS= read -r source; do library_sources+=("$source"); done <<< "$list"
done
mapfile -t library_sources < <(printf '%s\n' "${library_sources[@]}" | sort -u)
generated_sources=(experiments/experiment.pb.cc)
pkg_modules=(absl_base absl_flat_hash_map absl_flat_hash_set absl_status
  absl_statusor absl_strings absl_str_format libutf8proc nlohmann_json
  protobuf openblas)
# What WORKSPACE links without a .pc file: oneDNN and its OpenMP.
extra_libs=(-ldnnl -lgomp)
sanitizers=address,undefined

# clang++ that links libFuzzer, installed from Debian when missing.
can_link_fuzzer() {
  command -v clang++ > /dev/null &&
    printf '%s\n' 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }' |
    clang++ -x c++ -fsanitize=fuzzer,$sanitizers - -o "$build/probe" \
      2> "$build/probe.log"
}
if ! can_link_fuzzer; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "run_fuzzers: clang++ cannot link -fsanitize=fuzzer" \
      "($(tail -1 "$build/probe.log" 2> /dev/null)); as root:" \
      "apt-get install clang libclang-rt-14-dev" >&2
    exit 2
  fi
  echo "run_fuzzers: installing clang and libclang-rt-14-dev with apt-get"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends clang libclang-rt-14-dev
  can_link_fuzzer || { cat "$build/probe.log" >&2; exit 2; }
fi

read -r -a pkg_cflags <<< "$(pkg-config --cflags "${pkg_modules[@]}")"
read -r -a pkg_libs <<< "$(pkg-config --libs "${pkg_modules[@]}")"
cxxflags=(-std=c++17 -O1 -g -fno-omit-frame-pointer -Wall -Wextra -Werror
  -I. -I"$build/gen" "${pkg_cflags[@]}" -fno-sanitize-recover=undefined)

compile() {  # compile SOURCE OBJECT EXTRA_FLAGS...
  local source=$1 object=$2
  shift 2
  clang++ "${cxxflags[@]}" "$@" -c "$source" -o "$object" ||
    { echo "run_fuzzers: cannot compile $source" >&2; return 1; }
}

echo "run_fuzzers: building ${fuzzers[*]} in $build ($(clang++ --version | head -1))"
protoc -I. --cpp_out="$build/gen" experiments/experiment.proto ||
  { echo "run_fuzzers: protoc failed on experiments/experiment.proto" >&2; exit 2; }
object_of() { local source=$1; echo "$build/obj/${source//\//_}.o"; }
pids=()
jobs=$(nproc)
for source in "${library_sources[@]}" "${generated_sources[@]}"; do
  object=$(object_of "$source")
  [ -f "$source" ] || source="$build/gen/$source"
  compile "$source" "$object" -fsanitize=fuzzer-no-link,$sanitizers &
  pids+=($!)
  if [ ${#pids[@]} -ge "$jobs" ]; then
    wait "${pids[0]}" || exit 2
    pids=("${pids[@]:1}")
  fi
done
for pid in "${pids[@]}"; do wait "$pid" || exit 2; done
for fuzzer in "${fuzzers[@]}"; do
  compile "${dir_of[$fuzzer]}/$fuzzer.cc" "$build/obj/$fuzzer.o" \
    -fsanitize=fuzzer-no-link,$sanitizers || exit 2
  objects=()
  while IFS= read -r source; do
    objects+=("$(object_of "$source")")
  done <<< "${sources_for[$fuzzer]}"
  objects+=("$(object_of "${generated_sources[0]}")")
  clang++ -fsanitize=fuzzer,$sanitizers "$build/obj/$fuzzer.o" \
    "${objects[@]}" "${pkg_libs[@]}" "${extra_libs[@]}" -o "$build/$fuzzer" ||
    { echo "run_fuzzers: cannot link $fuzzer" >&2; exit 2; }
done

summary=()
found_any=0
for fuzzer in "${fuzzers[@]}"; do
  grown="$build/corpus/$fuzzer"
  artifacts="$build/artifacts/$fuzzer"
  regressions="${dir_of[$fuzzer]}/regressions/$fuzzer"
  rm -rf "$artifacts"
  mkdir -p "$grown" "$artifacts"
  inputs=("$grown" "${dir_of[$fuzzer]}/corpus/$fuzzer")
  [ -d "$regressions" ] && inputs+=("$regressions")
  echo "run_fuzzers: $fuzzer for $seconds s (log: $build/$fuzzer.log)"
  status=0
  ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
    "$build/$fuzzer" -max_total_time="$seconds" -timeout=25 \
    -rss_limit_mb=2560 -max_len=4096 -print_final_stats=1 \
    -artifact_prefix="$artifacts/" "${inputs[@]}" \
    > "$build/$fuzzer.log" 2>&1 || status=$?
  executions=$(sed -n 's/^stat::number_of_executed_units: *//p' \
    "$build/$fuzzer.log" | tail -1)
  elapsed=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' \
    "$build/$fuzzer.log" | tail -1)
  found=()
  for artifact in "$artifacts"/*; do
    [ -f "$artifact" ] || continue
    mkdir -p "$regressions"
    cp "$artifact" "$regressions/"
    found+=("$regressions/$(basename "$artifact")")
  done
  if [ ${#found[@]} -gt 0 ] || [ "$status" -ne 0 ]; then
    found_any=1
    summary+=("$(printf '%-26s exit %d, %s executions: FOUND %s' "$fuzzer" \
      "$status" "${executions:-?}" "${found[*]:-nothing saved (see log)}")")
    grep -m 3 -E 'ERROR|CHECK failed|runtime error' "$build/$fuzzer.log" |
      sed 's/^/    /' || true
  else
    summary+=("$(printf '%-26s %5s s, %10s executions, corpus %s files: ok' \
      "$fuzzer" "${elapsed:-$seconds}" "${executions:-?}" \
      "$(find "$grown" -type f | wc -l)")")
  fi
done

echo "run_fuzzers: summary ($seconds s per fuzzer, clang -fsanitize=fuzzer,$sanitizers)"
printf '  %s\n' "${summary[@]}"
exit "$found_any"
