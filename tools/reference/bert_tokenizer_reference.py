#!/usr/bin/env python3
"""An independent reference for bertlab's BERT tokenizer (//tasks:tokenize).

It re-implements the semantics of google-research/bert's tokenization.py
(BasicTokenizer + WordpieceTokenizer) with nothing but Python's own str and
unicodedata, so that the C++ tokenizer, which has its own Unicode tables
(utf8proc) and its own lowercasing, can be checked against Python's. It reads
and writes exactly the line format of //tasks:tokenize:

  python3 tools/reference/bert_tokenizer_reference.py --vocab=PATH \
      [--cased] [--ids] [--basic_only] [INPUT] > out.txt

INPUT (default: stdin) is read as bytes and split at b"\\n" only; each line is
decoded with errors="replace" (cleaning then drops the U+FFFD), and gives one
output line: its wordpieces (or ids) separated by single spaces.

Choices shared with the C++ side (tasks/basic_tokenizer.h):
  * control characters: every category C* (HF, and google-research/bert
    before 2019-03-28), or --control_categories=control_and_format for Cc
    and Cf only (google-research/bert since then);
  * never_split: a whitespace-delimited token equal to a special token
    ([PAD] [UNK] [CLS] [SEP] [MASK]) is kept whole and in its case (HF);
  * max_input_chars_per_word defaults to 100 (HF; google-research/bert 200).

It regenerates the golden files of tasks/tokenize_lines_test.cc; see
tools/reference/make_tokenizer_golden.sh.
"""

import argparse
import sys
import unicodedata

SPECIAL_TOKENS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")

# The CJK Unified and Compatibility Ideograph blocks of tokenization.py.
CJK_IDEOGRAPH_BLOCKS = (
    (0x4E00, 0x9FFF),
    (0x3400, 0x4DBF),
    (0x20000, 0x2A6DF),
    (0x2A700, 0x2B73F),
    (0x2B740, 0x2B81F),
    (0x2B820, 0x2CEAF),
    (0xF900, 0xFAFF),
    (0x2F800, 0x2FA1F),
)

CONTROL_CATEGORIES = {
    "all_other": frozenset(("Cc", "Cf", "Cn", "Co", "Cs")),
    "control_and_format": frozenset(("Cc", "Cf")),
}


class VocabError(Exception):
    pass


def read_vocab(path):
    """Returns {token: id} of a vocab.txt, with bertlab's checks."""
    with open(path, "rb") as f:
        data = f.read()
    if not data:
        raise VocabError(f"{path}: the vocabulary is empty")
    lines = data.split(b"\n")
    if data.endswith(b"\n"):
        lines.pop()
    ids = {}
    for number, raw in enumerate(lines):
        if raw.endswith(b"\r"):
            raw = raw[:-1]
        if not raw:
            raise VocabError(f"{path}:{number + 1}: empty token")
        try:
            token = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise VocabError(f"{path}:{number + 1}: not valid UTF-8") from None
        if token in ids:
            raise VocabError(
                f"{path}: duplicate token {token!r} on lines "
                f"{ids[token] + 1} and {number + 1}")
        ids[token] = number
    return ids


def is_cjk_ideograph(ch):
    cp = ord(ch)
    return any(first <= cp <= last for first, last in CJK_IDEOGRAPH_BLOCKS)


def is_punctuation(ch):
    cp = ord(ch)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(ch)[0] == "P"


class ReferenceTokenizer:

    def __init__(self, vocab, lower_case, control_categories,
                 max_input_chars_per_word, never_split=SPECIAL_TOKENS):
        self.vocab = vocab
        self.lower_case = lower_case
        self.control = CONTROL_CATEGORIES[control_categories]
        self.max_chars = max_input_chars_per_word
        self.never_split = frozenset(never_split)

    def _cleaned(self, text):
        out = []
        for ch in text:
            if ch in "\t\n\r ":
                out.append(" ")
                continue
            category = unicodedata.category(ch)
            if ch in "\x00\ufffd" or category in self.control:
                continue
            if category == "Zs":
                out.append(" ")
            elif is_cjk_ideograph(ch):
                out.append(f" {ch} ")
            else:
                out.append(ch)
        return "".join(out)

    def _normalized(self, word):
        if not self.lower_case:
            return word
        decomposed = unicodedata.normalize("NFD", word.lower())
        return "".join(ch for ch in decomposed
                       if unicodedata.category(ch) != "Mn")

    def basic_tokens(self, text):
        pieces = []
        for word in self._cleaned(text).split():
            if word in self.never_split:
                pieces.append(word)
                continue
            current = []
            for ch in self._normalized(word):
                if is_punctuation(ch):
                    if current:
                        pieces.append("".join(current))
                        current = []
                    pieces.append(ch)
                else:
                    current.append(ch)
            if current:
                pieces.append("".join(current))
        # tokenization.py joins and re-splits on whitespace here.
        return " ".join(pieces).split()

    def wordpieces_of(self, word):
        if len(word) > self.max_chars:
            return ["[UNK]"]
        pieces = []
        start = 0
        while start < len(word):
            for end in range(len(word), start, -1):
                candidate = word[start:end]
                if start:
                    candidate = "##" + candidate
                if candidate in self.vocab:
                    pieces.append(candidate)
                    start = end
                    break
            else:
                return ["[UNK]"]
        return pieces

    def wordpieces(self, text):
        out = []
        for word in self.basic_tokens(text):
            out.extend(self.wordpieces_of(word))
        return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--vocab", required=True)
    parser.add_argument("--cased", action="store_true")
    parser.add_argument("--ids", action="store_true")
    parser.add_argument("--basic_only", action="store_true")
    parser.add_argument("--max_input_chars_per_word", type=int, default=100)
    parser.add_argument("--control_categories", default="all_other",
                        choices=sorted(CONTROL_CATEGORIES))
    parser.add_argument("input", nargs="?")
    args = parser.parse_args()

    try:
        vocab = read_vocab(args.vocab)
    except (OSError, VocabError) as error:
        sys.exit(f"bert_tokenizer_reference: {error}")
    if "[UNK]" not in vocab:
        sys.exit(f"bert_tokenizer_reference: [UNK] is not in {args.vocab}")
    tokenizer = ReferenceTokenizer(vocab, not args.cased,
                                   args.control_categories,
                                   args.max_input_chars_per_word)

    if args.input:
        with open(args.input, "rb") as f:
            data = f.read()
    else:
        data = sys.stdin.buffer.read()
    lines = data.split(b"\n")
    if data.endswith(b"\n") or not data:
        lines.pop()

    out = []
    for raw in lines:
        text = raw.decode("utf-8", errors="replace")
        if args.basic_only:
            tokens = tokenizer.basic_tokens(text)
        else:
            tokens = tokenizer.wordpieces(text)
            if args.ids:
                tokens = [str(vocab[token]) for token in tokens]
        out.append(" ".join(tokens) + "\n")
    sys.stdout.buffer.write("".join(out).encode("utf-8"))


if __name__ == "__main__":
    main()
