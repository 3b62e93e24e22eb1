// The sentences pre-training must not see: the text that fine-tuning
// evaluates on (and the derived tasks' training text), so that a masked LM
// is never trained to fill in the words of a dev sentence (issue 38).
//
// A sentence is kept as the FNV-1a 64 of its normalised form, its words in
// order: ASCII letters lowercased (the mini models are uncased, and a cased
// copy is still a copy), ASCII punctuation and the General Punctuation block
// (curly quotes, dashes) read as spaces, whitespace runs collapsed to one
// space and trimmed. So "The king said, “Who is in the court?" matches the
// same words with a closing quote. Sentences of fewer than
// kMinContaminationWords words are not kept: "Amen." or a one-word title in
// both texts is no leak, and matching them would drop documents for nothing. A
// corpus document is contaminated when any of its sentences is in the filter;
// the pre-training data preparation leaves such documents out whole
// (tasks/pretraining_data/pretraining_data_prep.h).
//
// The filter is a set: the order sentences are added in does not matter, and
// Key() names its contents for cache keys.
#ifndef BERTLAB_TASKS_CORPUS_CONTAMINATION_FILTER_H_
#define BERTLAB_TASKS_CORPUS_CONTAMINATION_FILTER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "tasks/corpus/document.h"

namespace bertlab {

inline constexpr int kMinContaminationWords = 4;

// `sentence` normalised as above.
std::string NormalizeForContamination(absl::string_view sentence);

class ContaminationFilter {
 public:
  // Adds `sentence` when it has at least kMinContaminationWords words
  // (maximal runs of non-whitespace); returns whether it was kept.
  bool Add(absl::string_view sentence);
  // Whether `sentence`, normalised, was added.
  bool Contains(absl::string_view sentence) const;
  // Whether any sentence of `document` was added.
  bool Contaminates(const Document& document) const;
  // Adds every sentence of `other`.
  void Merge(const ContaminationFilter& other);

  int64_t size() const;
  bool empty() const { return size() == 0; }
  // "fnv1a64:<16 hex>" over the sorted fingerprints, or "" when empty: the
  // same sentences give the same key.
  std::string Key() const;

 private:
  void Sort() const;
  mutable std::vector<uint64_t> fingerprints_;
  mutable bool sorted_ = true;
};

}  // namespace bertlab

#endif  // BERTLAB_TASKS_CORPUS_CONTAMINATION_FILTER_H_
