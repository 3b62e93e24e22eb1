// Test helpers: documents in memory, a hand-made vocabulary, synthetic
// corpora and a sink that decodes what the builder writes.
#ifndef BERTLAB_TASKS_PRETRAINING_DATA_TEST_CORPUS_H_
#define BERTLAB_TASKS_PRETRAINING_DATA_TEST_CORPUS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "tasks/corpus/document.h"
#include "tasks/full_tokenizer.h"
#include "tasks/pretraining_data/instance_builder.h"
#include "tasks/pretraining_data/shard_format.h"
#include "tasks/pretraining_data/training_instance.h"

namespace bertlab {

// Hands out the documents of a vector in order.
class VectorDocumentReader : public DocumentReader {
 public:
  explicit VectorDocumentReader(std::vector<Document> documents)
      : documents_(std::move(documents)) {}
  absl::StatusOr<bool> NextDocument(Document* document) override {
    if (next_ >= documents_.size()) return false;
    *document = documents_[next_++];
    return true;
  }

 private:
  std::vector<Document> documents_;
  size_t next_ = 0;
};

// Decodes every record it is given.
class CollectingSink : public RecordSink {
 public:
  CollectingSink(RecordLayout layout, int vocab_size)
      : layout_(layout), vocab_size_(vocab_size) {}
  absl::Status AddRecord(absl::string_view record) override;

  const std::vector<TrainingInstance>& instances() const { return instances_; }
  // Every record's bytes, concatenated.
  const std::string& bytes() const { return bytes_; }

 private:
  RecordLayout layout_;
  int vocab_size_;
  std::vector<TrainingInstance> instances_;
  std::string bytes_;
};

// [PAD] [UNK] [CLS] [SEP] [MASK] (ids 0-4), then the words w0 .. w299
// (ids 5-304), the stems s0 .. s49 (305-354) and the continuations
// ##p0 .. ##p9 (355-364): "s3p7" is "s3 ##p7".
std::vector<std::string> SyntheticVocabTokens();
inline constexpr int kSyntheticVocabSize = 365;
FullTokenizer SyntheticTokenizer();

struct SyntheticCorpusOptions {
  int num_documents = 100;
  int min_sentences = 1;
  int max_sentences = 20;
  int min_words = 1;  // per sentence
  int max_words = 30;
  // Chance that a word is a stem + continuation (two wordpieces).
  double split_word_prob = 0.25;
  uint64_t seed = 7;
};

// Documents of synthetic sentences ("w12 s3p7 w0 ..."), the same for the
// same options.
std::vector<Document> SyntheticDocuments(const SyntheticCorpusOptions& options);

// [PAD]=0 [UNK]=1 [CLS]=2 [SEP]=3 [MASK]=4 and `vocab_size` ids, none a
// continuation: for tests that build TokenizedDocuments by hand.
VocabFacts HandMadeVocabFacts(int vocab_size);

// The ids before masking: input_ids with masked_lm_ids put back.
std::vector<int32_t> OriginalIds(const TrainingInstance& instance);

}  // namespace bertlab

#endif  // BERTLAB_TASKS_PRETRAINING_DATA_TEST_CORPUS_H_
