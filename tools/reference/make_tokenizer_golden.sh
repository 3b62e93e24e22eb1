#!/bin/bash
# Regenerates the golden outputs of the tokenizer golden tests with the
# independent Python reference, from tasks/testdata/tokenizer_golden_input.txt
# (44 lines of our own in the style of an encyclopedia, WikiExtractor markup
# included: numbers, dates, units, URLs, abbreviations, quotes, accented
# names; 99 lines of the embedded default corpus, every 490th; then 61
# written by hand: accents, Greek sigma, CJK, emoji, control characters,
# ill-formed UTF-8, long words):
#   tasks/testdata/tokenizer_golden_web_{uncased,cased}.txt
#       with the vocabularies trained from the embedded default corpus,
#       tasks/testdata/web_vocab_{uncased,cased}.txt (//tasks:tokenize_lines_test);
#   tasks/testdata/tokenizer_golden_{uncased,cased}.txt
#       with the released bert-base-{uncased,cased} vocabularies
#       (//tasks:released_vocab_test), when the shared data is there.
#
# Usage: tools/reference/make_tokenizer_golden.sh [--retrain_vocabs]
# Needs python3. --retrain_vocabs first retrains the two web vocabularies
# (3000 tokens each) with //tasks:train_wordpiece on //tasks/corpus:default_corpus.
# The shared data directory is $BERTLAB_SHARED_DATA, else ../shared/data.
set -euo pipefail
cd "$(dirname "$0")/../.."
shared=${BERTLAB_SHARED_DATA:-../shared/data}
reference=tools/reference/bert_tokenizer_reference.py
input=tasks/testdata/tokenizer_golden_input.txt

if [ "${1:-}" = "--retrain_vocabs" ]; then
  bazel build -c opt //tasks:train_wordpiece //tasks/corpus:default_corpus
  bin=$(bazel info -c opt bazel-bin)
  for mode in uncased cased; do
    flags=(--input="$bin/tasks/corpus/default_corpus.txt" --vocab_size=3000
           --out="$PWD/tasks/testdata/web_vocab_$mode.txt")
    [ "$mode" = cased ] && flags+=(--cased)
    "$bin/tasks/train_wordpiece" "${flags[@]}"
  done
fi

python3 "$reference" --vocab=tasks/testdata/web_vocab_uncased.txt \
  "$input" > tasks/testdata/tokenizer_golden_web_uncased.txt
python3 "$reference" --vocab=tasks/testdata/web_vocab_cased.txt --cased \
  "$input" > tasks/testdata/tokenizer_golden_web_cased.txt
echo "make_tokenizer_golden.sh: wrote tasks/testdata/tokenizer_golden_web_{uncased,cased}.txt"

if [ ! -d "$shared/vocab" ]; then
  echo "make_tokenizer_golden.sh: no $shared/vocab; the released goldens are left as they are"
  exit 0
fi
python3 "$reference" --vocab="$shared/vocab/bert-base-uncased/vocab.txt" \
  "$input" > tasks/testdata/tokenizer_golden_uncased.txt
python3 "$reference" --vocab="$shared/vocab/bert-base-cased/vocab.txt" \
  --cased "$input" > tasks/testdata/tokenizer_golden_cased.txt
echo "make_tokenizer_golden.sh: wrote tasks/testdata/tokenizer_golden_{uncased,cased}.txt"
