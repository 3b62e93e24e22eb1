#include "tasks/pretraining_data/decontamination_for_test.h"

#include <algorithm>
#include <filesystem>
#include <set>
#include <utility>

#include "absl/strings/str_split.h"
#include "common/file.h"
#include "common/status_macros.h"
#include "tasks/corpus/contamination_filter.h"

namespace bertlab {

PretrainingDataConfig DecontaminationConfig(CorpusFormat format,
                                            std::vector<std::string> files,
                                            int max_seq_length) {
  PretrainingDataConfig config;
  config.sources.push_back(CorpusSource{format, std::move(files)});
  config.held_out_fraction = 0.02;
  config.seed = 12345;
  InstanceConfig phase;
  phase.max_seq_length = max_seq_length;
  phase.max_predictions_per_seq = 5;
  phase.dupe_factor = 1;
  phase.seed = config.seed;
  config.phases.push_back(phase);
  return config;
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

}  // namespace bertlab
