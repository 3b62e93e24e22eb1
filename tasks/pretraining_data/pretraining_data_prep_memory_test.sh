#!/bin/bash
# Data preparation streams (pretraining_data_prep.h): its peak memory does
# not grow with the corpus. Prepares a generated corpus of 4 MiB and one of
# 16 MiB, each in a fresh process, with 256 KiB blocks (so both are many
# blocks: 16 and 64) and 1000 instances per shard, and compares the peak
# resident memory (getrusage's ru_maxrss) of the two runs; then the same
# with the corpus as three interleaved sources (one document held per
# source).
#
# The bound: the 16 MiB run may use at most 3 MiB (a quarter of the 12 MiB
# the corpora differ by) more than the 4 MiB run. What may legitimately grow
# with the corpus is small: the list of shard paths, the allocator's
# fragmentation, and nothing else, since the block, the shard being written
# and the vocabulary trainer's word counts (a fixed pool of words) are the
# same size in both runs. Any buffer of the whole corpus, of the split text
# or of one corpus file (the key and hash) adds at least the 12 MiB; the
# whole-corpus implementation this replaced grew by about twice that.
#
# Usage (from BUILD): pretraining_data_prep_memory_test.sh BINARY
set -euo pipefail
binary=$1
small_mib=4
large_mib=16
bound_kib=$(( (large_mib - small_mib) * 1024 / 4 ))
# Under --config=asan, freed memory would wait in ASan's quarantine (256 MiB)
# and make the peak follow everything ever allocated, not what is live.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0"

peak() {  # MIB SOURCES -> prints peak_rss_kib
  local dir=$TEST_TMPDIR/corpus_$1_$2
  "$binary" --work_dir="$dir" --corpus_mib="$1" --max_block_kib=256 \
    --instances_per_shard=1000 --threads=2 --sources="$2" > "$dir.out"
  sed 's/^/  /' "$dir.out" >&2
  sed -n 's/^peak_rss_kib=//p' "$dir.out"
}

for sources in 1 3; do
  echo "corpus of $small_mib MiB, $sources source(s):" >&2
  small=$(peak $small_mib $sources)
  echo "corpus of $large_mib MiB, $sources source(s):" >&2
  large=$(peak $large_mib $sources)
  growth=$(( large - small ))
  echo "peak RSS ${small} KiB -> ${large} KiB: growth ${growth} KiB," \
    "bound ${bound_kib} KiB" >&2
  if (( growth > bound_kib )); then
    echo "FAIL: peak memory grew by ${growth} KiB for" \
      "$(( large_mib - small_mib )) MiB more corpus in $sources source(s)" \
      "(bound ${bound_kib} KiB): something holds the corpus" >&2
    exit 1
  fi
done
echo PASS >&2
