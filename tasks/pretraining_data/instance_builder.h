// Pre-training instances from documents: the algorithm of google-research/bert
// create_pretraining_data.py (create_training_instances,
// create_instances_from_document, truncate_seq_pair,
// create_masked_lm_predictions), step for step, streamed in blocks, with
// counter-based random numbers.
//
// Per document and pass (dupe), as in the reference:
//   max_num_tokens = max_seq_length - 3
//   target = max_num_tokens, or with probability short_seq_prob
//            randint(2, max_num_tokens) (once per document and pass)
//   sentences accumulate into a chunk until its length reaches target or the
//   document ends; then
//     a_end = randint(1, len(chunk) - 1) if the chunk has >= 2 sentences,
//             else 1; A = chunk[:a_end]
//     if len(chunk) == 1 or u < random_next_prob: B is taken from a random
//       document (up to 10 draws to avoid the current one) starting at a
//       random sentence, sentences appended until len(B) >= target - len(A);
//       the chunk's unused sentences are put back (i -= len(chunk) - a_end)
//     else B = chunk[a_end:]
//     truncate_seq_pair: while len(A) + len(B) > max_num_tokens, drop the
//       first or (p = 0.5 each) the last token of the longer one (B on a tie)
//     [CLS] A [SEP] B [SEP], segment ids 0 up to the first [SEP], 1 after
//   masked LM: candidates are the positions whose id is not [CLS] or [SEP]
//     (with whole-word masking a "##" piece joins the previous candidate's
//     group), in random order; num_to_predict = min(max_predictions_per_seq,
//     max(1, round(len(tokens) * masked_lm_prob))) with Python 3's round
//     (half to even); groups are taken in that order, a group that would
//     exceed num_to_predict is skipped; each chosen token becomes [MASK]
//     (u < mask_fraction), else stays (u' < keep / (keep + random)), else a
//     uniformly random vocabulary id (specials included, as the reference's
//     vocab_words); positions sorted.
// Left-to-right instances: target as above with max_num_tokens =
// max_seq_length - 2; the document's tokens (sentences concatenated in
// order) are cut into consecutive windows of `target` tokens (the last one
// shorter), each [CLS] window [SEP], segment 0, nothing masked, label 0.
//
// Random numbers (common/philox.h). Every draw is addressed, so the output is
// a pure function of (config, corpus, vocabulary, tokenizer settings) and
// does not depend on the thread count or on scheduling:
//   structure of document d (its ordinal in the reader's stream, from 0) in
//     pass p: PhiloxStream{seed, step = d, tensor_id = 1 << 24 | p}, drawn
//     in sequence from index 0 (target length, a_end, the random-next coin,
//     random document and start sentence, truncation sides)
//   masking of the k-th instance of that document and pass:
//     PhiloxStream{seed, step = d, tensor_id = 2 << 24 | p}, drawn in
//     sequence from index k << 32 for the candidate order and from
//     k << 32 | 1 << 31 for the mask/keep/random choices and random ids
//   shuffle of block b: PhiloxStream{seed, step = b, tensor_id = 3 << 24},
//     drawn in sequence from 0
// Masking has its own streams so that the masking settings never change
// which segments form the instances, and the choices have their own part of
// the stream so that the masking mix (the Table 8 ablation) changes only what
// the chosen positions become, never which positions are chosen. A uniform u is
// bits * 2^-32; randint(lo, hi) is Lemire's multiply-shift with rejection
// (unbiased).
//
// Deviations from the reference, each forced by streaming or by
// reproducibility:
//   1. Blocks. The reference reads the whole corpus, shuffles the documents,
//      draws random-next documents from the whole corpus and shuffles all
//      instances of all passes at the end. bertlab reads documents in blocks
//      (InstanceConfig::max_block_documents / max_block_bytes, in reader
//      order; a block ends after the document that reaches either limit),
//      draws random-next documents from the same block and shuffles the
//      instances of all passes of a block together before writing them. With
//      a corpus that fits in one block (the default holds 64 MiB of text)
//      this is the reference's algorithm; with more, a B segment never
//      comes from a document more than a block away, and instances are
//      shuffled within blocks only (the trainer's shard order and shuffle
//      buffer mix further). The peak memory is about one block of text
//      plus its tokens (4 bytes each) plus dupe_factor times its instances.
//   2. No document shuffle. The reference shuffles the documents once before
//      the passes; with per-document random streams and the instance shuffle
//      after, that shuffle would change nothing but the order in which
//      instances are generated, so it is left out.
//   3. Random numbers: Philox streams as above instead of one Mersenne
//      Twister (random.Random(12345)), so no instance matches the reference
//      bit for bit; every distribution is the same.
//   4. The candidate order is drawn lazily (a Fisher-Yates step per group
//      examined) rather than by shuffling all candidates first: the same
//      uniform order, fewer draws.
#ifndef BERTLAB_TASKS_PRETRAINING_DATA_INSTANCE_BUILDER_H_
#define BERTLAB_TASKS_PRETRAINING_DATA_INSTANCE_BUILDER_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "common/philox.h"
#include "tasks/corpus/document.h"
#include "tasks/full_tokenizer.h"
#include "tasks/pretraining_data/instance_config.h"
#include "tasks/pretraining_data/shard_format.h"
#include "tasks/pretraining_data/training_instance.h"
#include "tasks/vocab.h"

namespace bertlab {

// Purposes, the top 8 bits of a stream's tensor_id (see above).
inline constexpr uint32_t kStructureStreamPurpose = 1;
inline constexpr uint32_t kMaskingStreamPurpose = 2;
inline constexpr uint32_t kShuffleStreamPurpose = 3;

// Draws random numbers from one Philox stream in sequence.
class RandomDraws {
 public:
  RandomDraws(const PhiloxStream& stream, uint64_t first_index)
      : stream_(stream), next_index_(first_index) {}

  // The next 32 random bits.
  uint32_t Bits() {
    const uint64_t block_index = next_index_ / 4;
    if (block_index != cached_block_index_) {
      cached_block_ = PhiloxStreamBlock(stream_, block_index);
      cached_block_index_ = block_index;
    }
    return cached_block_.v[next_index_++ % 4];
  }
  // Uniform in [0, 1): Bits() * 2^-32.
  double Uniform() { return Bits() * (1.0 / 4294967296.0); }
  // Uniform integer in [low, high], both included (Python's randint);
  // high - low < 2^31.
  int UniformInt(int low, int high);

  uint64_t next_index() const { return next_index_; }

 private:
  PhiloxStream stream_;
  uint64_t next_index_;
  PhiloxBlock cached_block_ = {};
  uint64_t cached_block_index_ = ~uint64_t{0};
};

PhiloxStream StructureStream(uint64_t seed, uint64_t document_ordinal,
                             int dupe);
PhiloxStream MaskingStream(uint64_t seed, uint64_t document_ordinal, int dupe);
PhiloxStream ShuffleStream(uint64_t seed, int64_t block_index);

// What the builder needs to know of the vocabulary.
struct VocabFacts {
  int32_t cls_id = 0;
  int32_t sep_id = 0;
  int32_t mask_id = 0;
  int vocab_size = 0;
  // is_continuation[id]: the piece starts with "##".
  std::vector<bool> is_continuation;

  // An error names any of [CLS], [SEP], [MASK] the vocabulary lacks.
  static absl::StatusOr<VocabFacts> FromVocab(const Vocab& vocab);
};

// A document as wordpiece ids. Sentence i is
// tokens[sentence_starts[i], sentence_starts[i + 1]); every sentence is
// non-empty.
struct TokenizedDocument {
  std::vector<int32_t> tokens;
  std::vector<int32_t> sentence_starts = {0};  // num_sentences + 1 entries
  // Position in the reader's stream (from 0): addresses the random streams.
  uint64_t ordinal = 0;

  int num_sentences() const {
    return static_cast<int>(sentence_starts.size()) - 1;
  }
  int sentence_length(int i) const {
    return sentence_starts[i + 1] - sentence_starts[i];
  }
  // Appends a sentence; empty ones are dropped, as the reference drops lines
  // without tokens.
  void AddSentence(absl::Span<const int32_t> ids);
};

TokenizedDocument TokenizeDocument(const FullTokenizer& tokenizer,
                                   const Document& document, uint64_t ordinal);

// truncate_seq_pair: shortens the longer of a and b (b on a tie) by one token
// at the front or back (u < 0.5: front) until a and b hold at most
// max_num_tokens together.
void TruncateSeqPair(int max_num_tokens, RandomDraws* rng,
                     absl::Span<const int32_t>* a,
                     absl::Span<const int32_t>* b);

// create_masked_lm_predictions on instance->input_ids (which must hold the
// original ids): replaces the chosen ids and fills masked_lm_positions and
// masked_lm_ids. order_rng orders the candidates; choice_rng decides what
// each chosen position becomes.
void CreateMaskedLmPredictions(const InstanceConfig& config,
                               const VocabFacts& vocab, RandomDraws* order_rng,
                               RandomDraws* choice_rng,
                               TrainingInstance* instance);

// create_instances_from_document for block[document_index] in pass `dupe`;
// appends to *instances. Left-to-right windows for kLeftToRight.
void CreateInstancesFromDocument(const InstanceConfig& config,
                                 const VocabFacts& vocab,
                                 absl::Span<const TokenizedDocument> block,
                                 int document_index, int dupe,
                                 std::vector<TrainingInstance>* instances);

struct BuildStats {
  int64_t documents_read = 0;       // from the reader
  int64_t documents_tokenized = 0;  // of those, tokenized so far
  int64_t documents_used = 0;       // with at least one token
  int64_t sentences = 0;            // with at least one token
  int64_t tokens = 0;
  int64_t text_bytes = 0;  // sentence bytes read (+1 per sentence)
  int64_t instances = 0;   // written to the sink
  int64_t blocks = 0;
};

// Called on the calling thread after every block is read and from time to
// time while it is processed.
using BuildProgress = std::function<void(const BuildStats&)>;

// Reads every document of `reader`, builds the instances of all passes block
// by block (tokenizing and building in parallel over NumThreads(); the
// output does not depend on the thread count) and hands them to `sink` as
// records of RecordLayout::For(config, vocabulary size). Errors come from
// the config, the vocabulary (missing special tokens), the reader and the
// sink.
absl::StatusOr<BuildStats> CreatePretrainingInstances(
    const InstanceConfig& config, const FullTokenizer& tokenizer,
    DocumentReader* reader, RecordSink* sink,
    const BuildProgress& progress = nullptr);

}  // namespace bertlab

#endif  // BERTLAB_TASKS_PRETRAINING_DATA_INSTANCE_BUILDER_H_
