#include "tasks/pretraining_data/test_corpus.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/check.h"
#include "common/philox.h"

namespace bertlab {

absl::Status CollectingSink::AddRecord(absl::string_view record) {
  CHECK_EQ(static_cast<int64_t>(record.size()), layout_.record_bytes());
  bytes_.append(record.data(), record.size());
  TrainingInstance instance;
  if (absl::Status status =
          DecodeRecord(layout_, vocab_size_, record.data(), &instance);
      !status.ok()) {
    return status;
  }
  instances_.push_back(std::move(instance));
  return absl::OkStatus();
}

std::vector<std::string> SyntheticVocabTokens() {
  std::vector<std::string> tokens = {"[PAD]", "[UNK]", "[CLS]", "[SEP]",
                                     "[MASK]"};
  for (int i = 0; i < 300; ++i) tokens.push_back(absl::StrCat("w", i));
  for (int i = 0; i < 50; ++i) tokens.push_back(absl::StrCat("s", i));
  for (int i = 0; i < 10; ++i) tokens.push_back(absl::StrCat("##p", i));
  CHECK_EQ(static_cast<int>(tokens.size()), kSyntheticVocabSize);
  return tokens;
}

FullTokenizer SyntheticTokenizer() {
  absl::StatusOr<Vocab> vocab =
      Vocab::FromTokens(SyntheticVocabTokens(), "synthetic vocabulary");
  CHECK_OK(vocab.status());
  absl::StatusOr<FullTokenizer> tokenizer =
      FullTokenizer::Create(*std::move(vocab), UncasedOptions());
  CHECK_OK(tokenizer.status());
  return *std::move(tokenizer);
}

std::vector<Document> SyntheticDocuments(
    const SyntheticCorpusOptions& options) {
  RandomDraws rng(PhiloxStream{options.seed, 0, 0}, 0);
  std::vector<Document> documents;
  for (int d = 0; d < options.num_documents; ++d) {
    Document document;
    document.source = absl::StrCat("synthetic:", d);
    const int num_sentences =
        rng.UniformInt(options.min_sentences, options.max_sentences);
    for (int s = 0; s < num_sentences; ++s) {
      std::vector<std::string> words;
      const int num_words =
          rng.UniformInt(options.min_words, options.max_words);
      for (int w = 0; w < num_words; ++w) {
        if (rng.Uniform() < options.split_word_prob) {
          words.push_back(absl::StrCat("s", rng.UniformInt(0, 49), "p",
                                       rng.UniformInt(0, 9)));
        } else {
          words.push_back(absl::StrCat("w", rng.UniformInt(0, 299)));
        }
      }
      document.sentences.push_back(absl::StrJoin(words, " "));
    }
    documents.push_back(std::move(document));
  }
  return documents;
}

VocabFacts HandMadeVocabFacts(int vocab_size) {
  VocabFacts facts;
  facts.cls_id = 2;
  facts.sep_id = 3;
  facts.mask_id = 4;
  facts.vocab_size = vocab_size;
  facts.is_continuation.assign(vocab_size, false);
  return facts;
}

std::vector<int32_t> OriginalIds(const TrainingInstance& instance) {
  std::vector<int32_t> ids = instance.input_ids;
  for (size_t i = 0; i < instance.masked_lm_positions.size(); ++i) {
    ids[instance.masked_lm_positions[i]] = instance.masked_lm_ids[i];
  }
  return ids;
}

}  // namespace bertlab
