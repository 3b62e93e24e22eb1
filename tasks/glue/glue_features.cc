#include "tasks/glue/glue_features.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/check.h"
#include "common/status_macros.h"

namespace bertlab {

void TruncateSequencePair(std::vector<int>* a, std::vector<int>* b,
                          int max_total) {
  CHECK_GE(max_total, 0);
  while (a->size() + b->size() > static_cast<size_t>(max_total)) {
    if (a->size() > b->size()) {
      a->pop_back();
    } else {
      b->pop_back();
    }
  }
}

namespace {

// EncodeGlueExample; *truncated says whether tokens were dropped.
absl::StatusOr<ClassificationExample> Encode(const GlueRawExample& example,
                                             const FullTokenizer& tokenizer,
                                             int max_seq_length,
                                             bool* truncated) {
  const int special_tokens = example.has_text_b ? 3 : 2;
  if (max_seq_length < special_tokens) {
    return absl::InvalidArgumentError(absl::StrCat(
        "max_seq_length = ", max_seq_length, " is too small: ",
        example.has_text_b ? "a sentence pair" : "a single sentence", " needs ",
        special_tokens, " special tokens"));
  }
  const std::optional<int> cls = tokenizer.vocab().TokenToId("[CLS]");
  const std::optional<int> sep = tokenizer.vocab().TokenToId("[SEP]");
  if (!cls.has_value() || !sep.has_value()) {
    return absl::InvalidArgumentError(
        absl::StrCat("vocabulary ", tokenizer.vocab().source(), " has no ",
                     cls.has_value() ? "[SEP]" : "[CLS]", " token"));
  }
  std::vector<int> a = tokenizer.TokenizeToIds(example.text_a);
  std::vector<int> b;
  if (example.has_text_b) b = tokenizer.TokenizeToIds(example.text_b);
  const size_t untruncated = a.size() + b.size();
  TruncateSequencePair(&a, &b, max_seq_length - special_tokens);
  *truncated = a.size() + b.size() < untruncated;

  ClassificationExample encoded;
  encoded.guid = example.guid;
  std::vector<int32_t>& ids = encoded.sequence.input_ids;
  std::vector<int32_t>& types = encoded.sequence.token_type_ids;
  ids.reserve(a.size() + b.size() + special_tokens);
  ids.push_back(*cls);
  ids.insert(ids.end(), a.begin(), a.end());
  ids.push_back(*sep);
  types.assign(ids.size(), 0);
  if (example.has_text_b) {
    ids.insert(ids.end(), b.begin(), b.end());
    ids.push_back(*sep);
    types.resize(ids.size(), 1);
  }
  encoded.has_label = example.has_label;
  encoded.label = example.has_label ? example.label : kNoLabel;
  encoded.score = static_cast<float>(example.score);
  return encoded;
}

}  // namespace

absl::StatusOr<ClassificationExample> EncodeGlueExample(
    const GlueRawExample& example, const FullTokenizer& tokenizer,
    int max_seq_length) {
  bool truncated = false;
  return Encode(example, tokenizer, max_seq_length, &truncated);
}

absl::StatusOr<GlueEncodedSet> EncodeGlueSet(const GlueSet& set,
                                             const FullTokenizer& tokenizer,
                                             int max_seq_length) {
  GlueEncodedSet encoded;
  encoded.set_name = set.set_name;
  encoded.path = set.path;
  encoded.skipped_rows = set.skipped_rows;
  encoded.examples.reserve(set.examples.size());
  for (const GlueRawExample& example : set.examples) {
    bool truncated = false;
    ASSIGN_OR_RETURN(ClassificationExample one,
                     Encode(example, tokenizer, max_seq_length, &truncated),
                     _.Prepend(set.path, ":", example.line, ": "));
    if (truncated) ++encoded.truncated_examples;
    encoded.examples.push_back(std::move(one));
  }
  return encoded;
}

absl::StatusOr<std::vector<GlueEncodedSet>> LoadGlueSplit(
    const std::string& glue_dir, absl::string_view task_name, GlueSplit split,
    const FullTokenizer& tokenizer, int max_seq_length) {
  ASSIGN_OR_RETURN(const GlueTaskSpec* task, FindGlueTask(task_name));
  ASSIGN_OR_RETURN(std::vector<GlueSet> sets,
                   ReadGlueSplit(glue_dir, *task, split));
  std::vector<GlueEncodedSet> encoded;
  for (const GlueSet& set : sets) {
    ASSIGN_OR_RETURN(GlueEncodedSet one,
                     EncodeGlueSet(set, tokenizer, max_seq_length));
    encoded.push_back(std::move(one));
  }
  return encoded;
}

}  // namespace bertlab
