#include "experiments/pretraining_options.h"

#include <optional>

#include "absl/strings/str_cat.h"
#include "common/fnv1a.h"
#include "common/status_macros.h"
#include "experiments/spec_conversions.h"
#include "tasks/pretraining_data/instance_config.h"
#include "tasks/pretraining_data/shard_format.h"
#include "tasks/vocab.h"

namespace bertlab {
namespace experiments {
namespace {

// The header config of the first shard of `dir`.
absl::StatusOr<ShardHeader> FirstShardHeader(const std::string& dir) {
  ASSIGN_OR_RETURN(const std::vector<std::string> shards, ListShards(dir));
  ASSIGN_OR_RETURN(std::unique_ptr<ShardReader> reader,
                   ShardReader::Open(shards[0]));
  return reader->header();
}

// Checks that the shards in `dir` are what the spec makes for phase `phase`.
absl::Status CheckShards(const RunSpec& spec, int phase, const std::string& dir,
                         int64_t vocab_size,
                         const std::optional<uint64_t>& vocab_hash) {
  ASSIGN_OR_RETURN(const ShardHeader header, FirstShardHeader(dir));
  InstanceConfig expected = ToInstanceConfig(spec.pretraining(), phase);
  const InstanceConfig& actual = header.config;
  // Fields that do not change the instances of this objective (both LM
  // directions read left-to-right instances).
  if (expected.objective == LanguageModel::kLeftToRight &&
      actual.objective == LanguageModel::kLeftToRight) {
    expected.max_predictions_per_seq = actual.max_predictions_per_seq;
    expected.masked_lm_prob = actual.masked_lm_prob;
    expected.mask_fraction = actual.mask_fraction;
    expected.random_fraction = actual.random_fraction;
    expected.keep_fraction = actual.keep_fraction;
    expected.do_whole_word_mask = actual.do_whole_word_mask;
    expected.random_next_prob = actual.random_next_prob;
    expected.next_sentence = actual.next_sentence;
  }
  if (!expected.next_sentence) expected.next_sentence = actual.next_sentence;
  // The streaming limits are the pipeline's, not the experiment's.
  expected.max_block_documents = actual.max_block_documents;
  expected.max_block_bytes = actual.max_block_bytes;
  const std::string difference =
      FirstInstanceConfigDifference(actual, expected);
  if (!difference.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the shards in ", dir, " were not made for phase ", phase,
        " of this run; first difference (shards vs run) ", difference));
  }
  if (header.vocab_size != vocab_size) {
    return absl::FailedPreconditionError(
        absl::StrCat("the shards in ", dir, " have a vocabulary of ",
                     header.vocab_size, " tokens; the model has ", vocab_size));
  }
  if (vocab_hash.has_value() && *vocab_hash != header.vocab_hash) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the shards in ", dir, " were made with vocabulary ",
        Fnv1a64Hex(header.vocab_hash), ", not the model's vocab_file (",
        Fnv1a64Hex(*vocab_hash), ")"));
  }
  const bool lower_case = !spec.model().cased();
  if (header.tokenizer.lower_case != lower_case) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the shards in ", dir, " are ",
        header.tokenizer.lower_case ? "uncased" : "cased",
        " but model.cased is ", spec.model().cased() ? "true" : "false"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<PretrainingOptions> OptionsFromSpec(
    const RunSpec& spec, const std::vector<std::string>& shards,
    const std::vector<std::string>& held_out) {
  const PretrainingSpec& pretraining = spec.pretraining();
  const auto& phases = pretraining.sequence_schedule().phases();
  if (static_cast<int>(shards.size()) != phases.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--shards names ", shards.size(), " directories but the run has ",
        phases.size(), " sequence phases; give one per phase"));
  }
  if (!held_out.empty() && static_cast<int>(held_out.size()) != phases.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--held_out_shards names ", held_out.size(),
        " directories but the run has ", phases.size(), " sequence phases"));
  }
  if (held_out.empty() && !pretraining.data().has_held_out_fraction()) {
    return absl::InvalidArgumentError(
        "the run names held_out_files; give their shards with "
        "--held_out_shards");
  }
  int64_t vocab_size = 0;
  std::optional<uint64_t> vocab_hash;
  if (spec.model().has_vocab_file()) {
    ASSIGN_OR_RETURN(const Vocab vocab,
                     Vocab::LoadFile(spec.model().vocab_file()));
    vocab_size = vocab.size();
    vocab_hash = vocab.content_hash();
  } else {
    vocab_size = spec.model().train_vocab().size();
  }
  for (int i = 0; i < phases.size(); ++i) {
    RETURN_IF_ERROR(CheckShards(spec, i, shards[i], vocab_size, vocab_hash));
  }
  ASSIGN_OR_RETURN(const BertConfig model,
                   ToBertConfig(spec.model(), vocab_size));
  return ToPretrainingOptions(spec, model, shards, held_out);
}

}  // namespace experiments
}  // namespace bertlab
