// Two-sided cloze items: the paper's question about bidirectionality asked
// of pre-trained models directly, without fine-tuning noise (issue 38, item
// 3). An item is a sentence of text no model was pre-trained on, one word of
// it blanked, and k candidate words for the blank: the word itself and k - 1
// words of about the same frequency. A model answers by scoring each
// candidate in the blank (tasks/cloze/ says how each objective scores).
//
// Which word is blanked: a BasicTokenizer token of the sentence that is not
// its first, is ASCII letters only (3 or more), is one word piece of the
// vocabulary (so a masked LM scores it with one [MASK]), occurs at least
// `min_count` times in the counting text and is not among its
// `skip_most_frequent` most frequent such words (the blank is a content
// word, not "the"). One item per sentence, the word drawn uniformly among
// the sentence's eligible ones.
//
// Distractors: eligible words (the same tests, without the sentence ones)
// whose frequency rank in the counting text is within `band` of the
// answer's, none of them a word of the sentence; drawn uniformly without
// replacement. Sentences without an eligible word, whose band holds fewer
// than k - 1 distractors, or whose word pieces exceed `max_pieces` are
// skipped. Candidates are in a drawn order; `answer` says where the word is.
//
// Every draw is a SplitMix64 of (seed, sentence index, draw), so the items
// are a pure function of the sentences, the counts, the vocabulary and the
// options.
#ifndef BERTLAB_TASKS_CLOZE_CLOZE_ITEMS_H_
#define BERTLAB_TASKS_CLOZE_CLOZE_ITEMS_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "tasks/full_tokenizer.h"

namespace bertlab {

struct ClozeOptions {
  int candidates = 5;  // k, the answer included
  int band = 100;      // distractors' frequency ranks: answer's +- band
  int64_t min_count = 5;
  int skip_most_frequent = 50;
  int max_pieces = 62;    // fits [CLS] ... [SEP] at max_seq_length 64
  int64_t max_items = 0;  // 0: one per eligible sentence
  uint64_t seed = 20261206;
};

struct ClozeItem {
  std::string id;               // "cloze-<sentence index>"
  std::vector<int> left;        // word-piece ids before the blank
  std::vector<int> right;       // word-piece ids after it
  std::vector<int> candidates;  // one word-piece id each
  int answer = 0;               // index into candidates
};

// Adds to `counts` how often each lowercase word (BasicTokenizer token)
// occurs in `sentence`. The counting text is the models' pre-training
// text, read one line at a time (it may be large).
void CountClozeWords(absl::string_view sentence, const FullTokenizer& tokenizer,
                     std::map<std::string, int64_t>* counts);

// Errors: invalid options (named), no item at all.
absl::StatusOr<std::vector<ClozeItem>> BuildClozeItems(
    const std::vector<std::string>& sentences, const FullTokenizer& tokenizer,
    const std::map<std::string, int64_t>& counts, const ClozeOptions& options);

}  // namespace bertlab

#endif  // BERTLAB_TASKS_CLOZE_CLOZE_ITEMS_H_
