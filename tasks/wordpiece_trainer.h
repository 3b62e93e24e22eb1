// Trains a WordPiece vocabulary (vocab.txt for wordpiece.h) on a corpus.
//
// google-research/bert never published its trainer. This one follows the two
// public descriptions of WordPiece training, on words from the BasicTokenizer:
//   1. Count every word of the corpus: each line goes through the
//      BasicTokenizer with the options the model will use (cleaning,
//      lowercasing and accent stripping when uncased, punctuation split), so
//      the vocabulary is trained on exactly what WordPiece will later see.
//   2. The alphabet: every character seen, alone ("a") and with the
//      continuation prefix ("##a"), as in the released BERT vocabularies
//      (all 997 single characters of bert-base-uncased have both forms).
//      Every word is then representable, and greedy longest-match-first
//      always finds a piece: the training corpus tokenizes without [UNK].
//   3. Each word starts split into characters, "word" as w ##o ##r ##d.
//      Repeatedly merge one adjacent pair (a, b) everywhere (left to right
//      within a word), making the token a + b without b's prefix
//      ("w" + "##o" = "wo", "##o" + "##r" = "##or"). The pair is the best by
//      `criterion`, counting in the current segmentation of the corpus with
//      each word weighted by its count:
//        kPairFrequency (default): the highest freq(ab), as BPE does. This is
//          what Hugging Face tokenizers' WordPieceTrainer does (it wraps its
//          BpeTrainer with continuing_subword_prefix "##";
//          tokenizers/src/models/wordpiece/trainer.rs).
//        kLikelihoodScore: the highest freq(ab) / (freq(a) * freq(b)), the
//          score of the Hugging Face NLP course, chapter 6.6 "WordPiece
//          tokenization" (the pointwise mutual information of a and b). It
//          favours pairs whose parts are rare apart, so rare words are built
//          whole before common ones: an 8k vocabulary trained on
//          wiki_00..03 splits held-out wiki_04 into 2.9x the pieces the
//          kPairFrequency one does. Kept for comparison.
//   4. Stop when the vocabulary has exactly `vocab_size` entries.
// Deterministic: counts are integers and scores are compared exactly
// (128-bit cross products, no floating point); ties go to the
// lexicographically smallest pair (the left token's bytes, then the right
// token's). Should two different pairs make the same string, the second adds
// no entry.
//
// Words never seen whole by WordPiece are left out of the counts: words
// longer than max_input_chars_per_word code points (WordPiece turns them
// into [UNK] whatever the vocabulary) and never_split entries (the special
// tokens, which the vocabulary holds anyway).
//
// Layout of the vocabulary (ids are line numbers):
//   kCompact (the default, sensible for small vocabularies):
//     [PAD]=0 [UNK]=1 [CLS]=2 [SEP]=3 [MASK]=4, then [unused0] ...
//     [unused<num_unused - 1>].
//   kReleased (mirrors bert-base-uncased, for drop-in use with code that
//     hard-codes its ids; needs num_unused >= 99, 994 in the release):
//     [PAD]=0 [unused0..98]=1..99 [UNK]=100 [CLS]=101 [SEP]=102 [MASK]=103,
//     then [unused99] ... [unused<num_unused - 1>].
// Then the single characters in code point order, then the same with the
// prefix, then the merged tokens in the order they were made.
#ifndef BERTLAB_TASKS_WORDPIECE_TRAINER_H_
#define BERTLAB_TASKS_WORDPIECE_TRAINER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "tasks/basic_tokenizer.h"
#include "tasks/corpus/line_reader.h"
#include "tasks/full_tokenizer.h"
#include "tasks/vocab.h"

namespace bertlab {

// Which pair to merge next (see the file comment).
enum class MergeCriterion {
  kPairFrequency,    // highest freq(ab)
  kLikelihoodScore,  // highest freq(ab) / (freq(a) * freq(b))
};

enum class SpecialTokenLayout {
  kCompact,
  kReleased,
};

struct WordPieceTrainerOptions {
  // Entries of the vocabulary, special and unused tokens included.
  int vocab_size = 30522;
  // The tokenizer the vocabulary is for: BasicTokenizer options (lower_case
  // for uncased models) and the WordPiece continuation prefix and
  // max_input_chars_per_word. Its unknown token must be [UNK].
  FullTokenizerOptions tokenizer = UncasedOptions();
  MergeCriterion criterion = MergeCriterion::kPairFrequency;
  SpecialTokenLayout layout = SpecialTokenLayout::kCompact;
  // [unusedN] slots reserved for later use (bert-base-uncased has 994).
  int num_unused = 0;
  // AddFile's limit on a line, as the corpus readers' (line_reader.h): a
  // longer line is an error naming path:line, like a line with a NUL byte.
  int64_t max_line_bytes = ReaderLimits().max_line_bytes;
};

struct WordPieceTrainingStats {
  int64_t lines = 0;
  int64_t words = 0;           // word occurrences counted
  int64_t distinct_words = 0;  // of those
  int64_t long_words = 0;      // occurrences left out as too long
  int64_t characters = 0;      // distinct characters (the alphabet is 2x)
  int64_t merges = 0;          // merges made (some give no new entry)
};

class WordPieceTrainer {
 public:
  // Refuses inconsistent options (naming the field).
  static absl::StatusOr<WordPieceTrainer> Create(
      WordPieceTrainerOptions options);

  // Counts the words of one line (UTF-8, possibly ill-formed).
  void AddLine(absl::string_view line);
  // Counts every line of the file at `path`, streaming with a LineReader
  // (tasks/corpus/line_reader.h: "\n" ends a line; errors name path:line
  // for a line over max_line_bytes or with a NUL byte, as binary files
  // have). Lines before an error stay counted.
  absl::Status AddFile(const std::string& path);

  // The vocabulary of exactly options.vocab_size entries (see the file
  // comment). Errors: no words counted; vocab_size below the special tokens
  // plus the alphabet; a corpus too small to fill vocab_size (every word is
  // one token before the vocabulary is full). Does not change the counts.
  absl::StatusOr<Vocab> Train();

  // Filled in by AddLine/AddFile, and by Train (characters, merges).
  const WordPieceTrainingStats& stats() const { return stats_; }
  const WordPieceTrainerOptions& options() const { return options_; }

 private:
  explicit WordPieceTrainer(WordPieceTrainerOptions options);

  // The special and unused tokens of the layout, in id order.
  std::vector<std::string> LayoutTokens() const;

  WordPieceTrainerOptions options_;
  BasicTokenizer basic_;
  absl::flat_hash_map<std::string, int64_t> word_counts_;
  WordPieceTrainingStats stats_;
};

}  // namespace bertlab

#endif  // BERTLAB_TASKS_WORDPIECE_TRAINER_H_
