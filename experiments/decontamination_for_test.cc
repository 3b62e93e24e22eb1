#include "experiments/decontamination_for_test.h"

#include <algorithm>
#include <filesystem>
#include <set>

#include "absl/strings/str_split.h"
#include "absl/strings/substitute.h"
#include "common/file.h"
#include "common/status_macros.h"
#include "experiments/config_loader.h"
#include "tasks/corpus/contamination_filter.h"

namespace bertlab {
namespace experiments {

absl::StatusOr<RunSpec> DecontaminationSpec(const std::string& vocabulary,
                                            const std::string& data,
                                            int max_seq_length) {
  constexpr char kExperiment[] = R"pb(
    name: "decontamination"
    base {
      model {
        shape { num_hidden_layers: 1 hidden_size: 16 num_attention_heads: 2 } $0
        max_position_embeddings: $2
      }
      pretraining {
        data { $1 }
        sequence_schedule {
          phases {
            fraction_of_steps: 1.0
            max_seq_length: $2
            batch_size: 4
            max_predictions_per_seq: 5
          }
        }
        optimizer { learning_rate: 1e-3 weight_decay: 0 }
        schedule { total_steps: 2 warmup_proportion: 0.5 }
        eval_every_steps: 2
        eval_batches: 1
        checkpoint_every_steps: 2
      }
    }
  )pb";
  ASSIGN_OR_RETURN(const Experiment experiment,
                   ParseExperiment(absl::Substitute(kExperiment, vocabulary,
                                                    data, max_seq_length),
                                   "decontamination.textproto"));
  return ResolveRuns(experiment).at(0).spec;
}

absl::StatusOr<std::string> PreparedText(const PreparedData& prepared) {
  // shard_dirs[0] is corpus-<K>/shards-<S>/train.
  const std::filesystem::path corpus_dir =
      std::filesystem::path(prepared.shard_dirs.at(0))
          .parent_path()
          .parent_path();
  ASSIGN_OR_RETURN(std::string text,
                   ReadFileToString((corpus_dir / "train.txt").string()));
  ASSIGN_OR_RETURN(const std::string held_out,
                   ReadFileToString((corpus_dir / "held_out.txt").string()));
  return text + held_out;
}

int SentencesFoundAsLines(const std::vector<std::string>& sentences,
                          const std::string& text) {
  std::set<std::string> lines;
  for (absl::string_view line : absl::StrSplit(text, '\n', absl::SkipEmpty())) {
    lines.insert(NormalizeForContamination(line));
  }
  int found = 0;
  for (const std::string& sentence : sentences) {
    const std::string normalized = NormalizeForContamination(sentence);
    const int words = normalized.empty()
                          ? 0
                          : 1 + static_cast<int>(std::count(
                                    normalized.begin(), normalized.end(), ' '));
    if (words >= kMinContaminationWords && lines.count(normalized) > 0) {
      ++found;
    }
  }
  return found;
}

}  // namespace experiments
}  // namespace bertlab
