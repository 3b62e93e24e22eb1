// Every knob of pre-training instance creation: the flags of
// google-research/bert create_pretraining_data.py (defaults as there), the
// numbers that script hard-codes (the 80/10/10 masking mix, the 0.5 chance of
// a random next segment), the objective of the paper's Table 5 ablation, and
// the two block limits of bertlab's streaming (instance_builder.h explains
// them). Shards store all of it in their header (shard_format.h), so a
// consumer can see, and refuse, what the data was made with.
//
// The masking mix of the paper's Table 8: of the tokens chosen for
// prediction, mask_fraction become [MASK], random_fraction a token drawn
// uniformly from the whole vocabulary, keep_fraction stay unchanged. The
// three must sum to 1. The reference's 80/10/10 is
//   u < 0.8 -> [MASK]; else u' < 0.5 -> keep; else random
// and bertlab draws the same way with 0.8 -> mask_fraction and 0.5 ->
// keep_fraction / (keep_fraction + random_fraction).
#ifndef BERTLAB_TASKS_PRETRAINING_DATA_INSTANCE_CONFIG_H_
#define BERTLAB_TASKS_PRETRAINING_DATA_INSTANCE_CONFIG_H_

#include <cstdint>
#include <map>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "tasks/pretraining_data/language_model.h"

namespace bertlab {

struct InstanceConfig {
  // kMaskedLm or kLeftToRight (the instances of kRightToLeft too:
  // InstanceLanguageModel); header spelling "mlm" / "ltr".
  LanguageModel objective = LanguageModel::kMaskedLm;

  // Hard limit on tokens per instance, [CLS] and [SEP]s included.
  int max_seq_length = 128;
  // Passes over the corpus, each with fresh segment choices and masks.
  int dupe_factor = 10;
  // Chance that a document's target length is a random one in
  // [2, max_num_tokens] instead of max_num_tokens (drawn once per document
  // and pass, as the reference does).
  double short_seq_prob = 0.1;

  // Masked LM (kMaskedLm only; ignored by kLeftToRight).
  double masked_lm_prob = 0.15;
  int max_predictions_per_seq = 20;
  double mask_fraction = 0.8;
  double random_fraction = 0.1;
  double keep_fraction = 0.1;
  // Pieces starting with "##" are chosen together with the piece before.
  bool do_whole_word_mask = false;

  // Next sentence (kMaskedLm only). next_sentence = false is the paper's
  // "No NSP" variant: MLM only. The instances are the same as with NSP (the
  // same pairs, half of them with a random B, the same bytes); the header
  // records that the trainer must not train on the label. The paper trains
  // "No NSP" on the same data, and this keeps the two variants' inputs
  // identical so the comparison isolates the loss.
  bool next_sentence = true;
  // Chance of a random B when the chunk has two or more segments (a
  // one-segment chunk always takes a random B, as in the reference).
  double random_next_prob = 0.5;

  uint64_t seed = 12345;

  // Streaming: documents are processed in blocks of at most this many
  // documents and (roughly) this many bytes of raw text; a block ends after
  // the document that reaches either limit. Random B segments come from the
  // same block, and instances are shuffled within the block.
  int64_t max_block_documents = 100000;
  int64_t max_block_bytes = int64_t{64} << 20;
};

// The smallest max_seq_length per objective: [CLS] A [SEP] B [SEP] needs two
// tokens besides the three specials (the reference draws the short target
// from [2, max_seq_length - 3] and asserts A and B are non-empty); a
// left-to-right instance needs [CLS] + 2 tokens + [SEP] for the same draw.
inline constexpr int kMinMaxSeqLengthMaskedLm = 5;
inline constexpr int kMinMaxSeqLengthLeftToRight = 4;
// Positions and lengths are stored as uint16 in shards.
inline constexpr int kMaxMaxSeqLength = 65535;
// dupe indexes share a 32-bit Philox word with a purpose tag (8 bits).
inline constexpr int kMaxDupeFactor = 1 << 24;
// The reference tries this many times to draw a random document other than
// the current one, then uses whatever it drew last.
inline constexpr int kMaxRandomDocumentTries = 10;

// Checks every field; the message names the field, its value and the fix.
absl::Status ValidateInstanceConfig(const InstanceConfig& config);

// Tokens per instance besides the specials: max_seq_length - 3 for MLM
// pairs, max_seq_length - 2 for left-to-right sequences.
int MaxNumTokens(const InstanceConfig& config);

// "field: value" lines, one per field in declaration order, values in the
// shortest form that parses back to the same number. The text of shard
// headers.
std::string InstanceConfigToText(const InstanceConfig& config);

// Parses the fields of InstanceConfigToText from `fields` (name -> value),
// erasing the ones it uses; a missing field or malformed value is an error
// naming it. Unknown names are left in `fields` for the caller to report.
absl::StatusOr<InstanceConfig> InstanceConfigFromFields(
    std::map<std::string, std::string>* fields);

// The first field in which `a` and `b` differ, as "name: A vs B", or "" when
// they are equal.
std::string FirstInstanceConfigDifference(const InstanceConfig& a,
                                          const InstanceConfig& b);

}  // namespace bertlab

#endif  // BERTLAB_TASKS_PRETRAINING_DATA_INSTANCE_CONFIG_H_
