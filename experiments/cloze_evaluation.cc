#include "experiments/cloze_evaluation.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "model/bert/checkpoint.h"
#include "model/bert/config.h"
#include "model/bert/initialize.h"
#include "model/bert_for_pretraining.h"
#include "model/train/cloze_scorer.h"

namespace bertlab {
namespace experiments {
namespace {

// Calls `each` with every line of `path` that is not blank.
template <typename Each>
absl::Status ForEachSentence(const std::string& path, Each each) {
  std::ifstream in(path);
  if (!in) {
    return absl::NotFoundError(absl::StrCat(path, ": cannot open it"));
  }
  std::string line;
  while (std::getline(in, line)) {
    if (absl::StripAsciiWhitespace(line).empty()) continue;
    each(line);
  }
  if (in.bad()) return absl::DataLossError(absl::StrCat(path, ": read error"));
  return absl::OkStatus();
}

absl::StatusOr<int> SpecialId(const FullTokenizer& tokenizer,
                              absl::string_view token) {
  const std::optional<int> id = tokenizer.vocab().TokenToId(token);
  if (!id.has_value()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the cloze test needs ", token, " in the vocabulary, and it has none"));
  }
  return *id;
}

ClozeOutcome Outcome(const std::string& task, const ClozeTest& test,
                     const ClozeScores& scores) {
  const std::vector<int> choices = ClozeChoices(scores);
  ClozeOutcome outcome;
  outcome.task = task;
  outcome.examples.kind = reports::DevExampleKind::kLabels;
  int64_t correct = 0;
  for (size_t i = 0; i < test.items.size(); ++i) {
    outcome.examples.ids.push_back(test.items[i].id);
    outcome.examples.gold_labels.push_back(test.items[i].answer);
    outcome.examples.predicted_labels.push_back(choices[i]);
    if (choices[i] == test.items[i].answer) ++correct;
  }
  outcome.accuracy = 100.0 * static_cast<double>(correct) /
                     static_cast<double>(test.items.size());
  return outcome;
}

}  // namespace

absl::StatusOr<ClozeTest> MakeClozeTest(const std::string& corpus_dir,
                                        const FullTokenizer& tokenizer,
                                        const ClozeSpec& spec) {
  namespace fs = std::filesystem;
  ClozeTest test;
  ASSIGN_OR_RETURN(test.cls_id, SpecialId(tokenizer, "[CLS]"));
  ASSIGN_OR_RETURN(test.sep_id, SpecialId(tokenizer, "[SEP]"));
  ASSIGN_OR_RETURN(test.mask_id, SpecialId(tokenizer, "[MASK]"));
  ASSIGN_OR_RETURN(test.pad_id, SpecialId(tokenizer, "[PAD]"));
  std::map<std::string, int64_t> counts;
  RETURN_IF_ERROR(ForEachSentence((fs::path(corpus_dir) / "train.txt").string(),
                                  [&](const std::string& line) {
                                    CountClozeWords(line, tokenizer, &counts);
                                    ++test.counted_sentences;
                                  }));
  std::vector<std::string> sentences;
  const std::string held_out = (fs::path(corpus_dir) / "held_out.txt").string();
  RETURN_IF_ERROR(ForEachSentence(
      held_out, [&](const std::string& line) { sentences.push_back(line); }));
  test.held_out_sentences = static_cast<int64_t>(sentences.size());
  ClozeOptions options;
  options.candidates = spec.candidates();
  options.band = spec.band();
  options.min_count = spec.min_count();
  options.skip_most_frequent = spec.skip_most_frequent();
  options.max_pieces = spec.max_seq_length() - 2;  // [CLS] ... [SEP]
  options.max_items = spec.max_items();
  options.seed = spec.seed();
  ASSIGN_OR_RETURN(test.items,
                   BuildClozeItems(sentences, tokenizer, counts, options),
                   _.Prepend(held_out, ": "));
  test.candidates = spec.candidates();
  for (const ClozeItem& item : test.items) {
    int best = 0;
    int64_t best_count = -1;
    for (int c = 0; c < static_cast<int>(item.candidates.size()); ++c) {
      const std::string& word = tokenizer.vocab().IdToToken(item.candidates[c]);
      const auto found = counts.find(word);
      const int64_t count = found == counts.end() ? 0 : found->second;
      if (count > best_count) {
        best = c;
        best_count = count;
      }
    }
    test.frequency_choices.push_back(best);
  }
  return test;
}

absl::StatusOr<std::vector<ClozeOutcome>> RunClozeTest(
    const ClozeTest& test, const ClozeEncoder& encoder) {
  ClozeScorerOptions options;
  options.cls_id = test.cls_id;
  options.sep_id = test.sep_id;
  options.mask_id = test.mask_id;
  options.pad_id = test.pad_id;
  ClozeScorerOptions left = options;
  left.context = ClozeContext::kLeftOnly;
  ASSIGN_OR_RETURN(const BertConfig config,
                   ReadCheckpointConfig(encoder.checkpoint));
  std::vector<ClozeOutcome> outcomes;
  if (!encoder.rtl_checkpoint.empty()) {
    ASSIGN_OR_RETURN(const BertConfig rtl_config,
                     ReadCheckpointConfig(encoder.rtl_checkpoint));
    if (config.attention_mode != AttentionMode::kCausal ||
        rtl_config.attention_mode != AttentionMode::kReverseCausal) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the cloze test of an encoder pair needs a left-to-right ",
          encoder.checkpoint, " and a right-to-left ", encoder.rtl_checkpoint));
    }
    ASSIGN_OR_RETURN(const ClozeScores ltr,
                     ScoreClozeItems(encoder.checkpoint, test.items, options));
    ASSIGN_OR_RETURN(
        const ClozeScores rtl,
        ScoreClozeItems(encoder.rtl_checkpoint, test.items, options));
    ASSIGN_OR_RETURN(const ClozeScores both, AddScores(ltr, rtl));
    outcomes.push_back(Outcome(kClozeTask, test, both));
    return outcomes;
  }
  std::vector<float> params;
  if (encoder.random_init) {
    const BertForPretraining model(config, /*next_sentence=*/false);
    params.resize(model.layout().total_size());
    InitializeParameters(model.layout(), encoder.seed, params.data());
  }
  const auto score = [&](const ClozeScorerOptions& how) {
    return encoder.random_init
               ? ScoreClozeItems(config, params, test.items, how)
               : ScoreClozeItems(encoder.checkpoint, test.items, how);
  };
  ASSIGN_OR_RETURN(const ClozeScores both, score(options));
  outcomes.push_back(Outcome(kClozeTask, test, both));
  if (config.attention_mode != AttentionMode::kReverseCausal) {
    ASSIGN_OR_RETURN(const ClozeScores left_only, score(left));
    outcomes.push_back(Outcome(kClozeLeftTask, test, left_only));
  }
  return outcomes;
}

reports::TrivialBaseline ClozeChance(const ClozeTest& test) {
  return reports::TrivialBaseline{
      absl::StrCat("chance (1 of ", test.candidates, " candidates)"),
      {{"accuracy", 100.0 / test.candidates}},
      ""};
}

std::vector<reports::TrivialBaseline> ClozeBaselines(const ClozeTest& test) {
  int64_t correct = 0;
  for (size_t i = 0; i < test.items.size(); ++i) {
    if (test.frequency_choices[i] == test.items[i].answer) ++correct;
  }
  return {reports::TrivialBaseline{
      "the candidate most frequent in the pre-training text",
      {{"accuracy", 100.0 * static_cast<double>(correct) /
                        static_cast<double>(test.items.size())}},
      "word_frequency"}};
}

}  // namespace experiments
}  // namespace bertlab
