#include "tasks/pretraining_data/evaluation_text.h"

#include <algorithm>
#include <filesystem>
#include <system_error>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "tasks/corpus/sentence_splitter.h"
#include "tasks/glue/glue_reader.h"
#include "tasks/glue/glue_tasks.h"
#include "tasks/squad/squad_reader.h"

namespace bertlab {
namespace {

namespace fs = std::filesystem;

// `text` whole and each of its sentences.
void AddText(const std::string& text, ContaminationFilter* filter) {
  filter->Add(text);
  for (const std::string& sentence : SplitSentences(text)) {
    filter->Add(sentence);
  }
}

absl::Status AddGlue(const std::string& glue_dir, EvaluationText* text) {
  for (const GlueTaskSpec& task : GlueTasks()) {
    std::error_code error;
    if (!fs::is_directory(fs::path(glue_dir) / task.name, error)) continue;
    for (const GlueSplit split : {GlueSplit::kDev, GlueSplit::kTest}) {
      const GlueFileKind kind = split == GlueSplit::kTest
                                    ? GlueFileKind::kTest
                                    : GlueFileKind::kLabelled;
      for (const GlueFileSpec& file : task.Files(split)) {
        const std::string path = GlueFilePath(glue_dir, task, file);
        if (!fs::is_regular_file(path, error)) continue;
        ASSIGN_OR_RETURN(const GlueSet set, ReadGlueFile(task, kind, path));
        for (const GlueRawExample& example : set.examples) {
          AddText(example.text_a, &text->filter);
          if (example.has_text_b) AddText(example.text_b, &text->filter);
        }
        ++text->files;
      }
    }
  }
  return absl::OkStatus();
}

absl::Status AddSquad(const std::string& squad_dir, EvaluationText* text) {
  std::error_code error;
  if (!fs::is_directory(squad_dir, error)) return absl::OkStatus();
  std::vector<std::string> paths;
  for (fs::recursive_directory_iterator it(squad_dir, error), end;
       !error && it != end; it.increment(error)) {
    if (it->is_regular_file(error) &&
        absl::EndsWith(it->path().filename().string(), ".json")) {
      paths.push_back(it->path().string());
    }
  }
  if (error) {
    return absl::NotFoundError(
        absl::StrCat("cannot list ", squad_dir, ": ", error.message()));
  }
  std::sort(paths.begin(), paths.end());
  for (const std::string& path : paths) {
    ASSIGN_OR_RETURN(const SquadDataset dataset,
                     ReadSquadFile(path, SquadReadOptions()));
    for (const SquadParagraph& paragraph : dataset.paragraphs) {
      AddText(paragraph.context, &text->filter);
    }
    for (const SquadExample& example : dataset.examples) {
      text->filter.Add(example.question_text);
    }
    ++text->files;
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<EvaluationText> ReadEvaluationText(const std::string& data_dir) {
  EvaluationText text;
  RETURN_IF_ERROR(AddGlue((fs::path(data_dir) / "glue").string(), &text));
  RETURN_IF_ERROR(AddSquad((fs::path(data_dir) / "squad").string(), &text));
  return text;
}

}  // namespace bertlab
