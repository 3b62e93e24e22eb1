#!/bin/bash
# Regenerates the golden outputs of //tasks:tokenize_lines_test with the
# independent Python reference:
#   tasks/testdata/tokenizer_golden_uncased.txt  (bert-base-uncased, uncased)
#   tasks/testdata/tokenizer_golden_cased.txt    (bert-base-cased, cased)
# from tasks/testdata/tokenizer_golden_input.txt (143 lines of
# wiki_00 of the shared corpus, then 61 written by hand: accents, Greek
# sigma, CJK, emoji, control characters, ill-formed UTF-8, long words).
#
# Usage: tools/reference/make_tokenizer_golden.sh   (needs python3)
# The shared data directory is $BERTLAB_SHARED_DATA, else ../shared/data.
set -euo pipefail
cd "$(dirname "$0")/../.."
shared=${BERTLAB_SHARED_DATA:-../shared/data}
reference=tools/reference/bert_tokenizer_reference.py
input=tasks/testdata/tokenizer_golden_input.txt

python3 "$reference" --vocab="$shared/vocab/bert-base-uncased/vocab.txt" \
  "$input" > tasks/testdata/tokenizer_golden_uncased.txt
python3 "$reference" --vocab="$shared/vocab/bert-base-cased/vocab.txt" \
  --cased "$input" > tasks/testdata/tokenizer_golden_cased.txt
echo "make_tokenizer_golden.sh: wrote tasks/testdata/tokenizer_golden_{uncased,cased}.txt"
