#include "reports/test_records.h"

#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/file.h"

namespace bertlab {
namespace reports {
namespace testing {

nlohmann::json RecordJson(const FixtureRun& run) {
  RunRecord record;
  record.experiment = absl::StrCat(run.table, "_test");
  record.table = run.table;
  record.scale = run.scale;
  record.run_id = "3f2a9c";
  record.kind = run.kind;
  record.variant = run.variant;
  record.row = run.row;
  record.variant_description = absl::StrCat("variant ", run.variant);
  record.data_source = run.derived ? "embedded default (derived from the "
                                     "World English Bible)"
                                   : "../shared/data/glue/" + run.task;
  record.derived = run.derived;
  record.metrics = run.metrics;
  record.wall_seconds = 1.5;
  record.started_at = "2024-01-01T00:00:00Z";
  record.finished_at = "2024-01-01T00:00:01Z";
  record.code_version = run.code_version;
  record.data_hashes = {{"glue/MRPC/dev.tsv", std::string(64, 'a')},
                        {"vocab.txt", std::string(64, 'b')}};
  record.model = ModelSize{"L4_H256_A4", 4, 256, 4};
  if (run.kind != "pretrain") {
    record.task = run.task;
    record.primary_metric = run.primary_metric;
  }
  if (run.kind == "finetune") {
    record.learning_rate = run.learning_rate;
    record.restart = run.restart;
    record.seed = 17 + run.restart;
    record.stands_in_for = run.stands_in_for;
  }
  return RunRecordToJson(record);
}

RunRecord MakeRecord(const FixtureRun& run) {
  absl::StatusOr<RunRecord> record =
      ParseRunRecord(RecordJson(run).dump(), "fixture/run.json");
  if (!record.ok()) {
    std::cerr << "bad fixture: " << record.status() << "\n";
    std::abort();
  }
  return *std::move(record);
}

std::string WriteRecord(const std::string& runs_dir, const FixtureRun& run,
                        const nlohmann::json& json) {
  const std::string dir =
      run.kind == "finetune"
          ? absl::StrFormat("%s/%s/%s/lr%g_r%d", runs_dir, run.variant,
                            run.task, run.learning_rate, run.restart)
      : run.kind == "cloze"
          ? absl::StrCat(runs_dir, "/", run.variant, "/", run.task)
          : absl::StrCat(runs_dir, "/", run.variant, "/pretrain");
  std::filesystem::create_directories(dir);
  const std::string path = absl::StrCat(dir, "/run.json");
  const absl::Status status = WriteFileAtomically(path, json.dump(2));
  if (!status.ok()) {
    std::cerr << "cannot write fixture: " << status << "\n";
    std::abort();
  }
  return path;
}

void AddGrid(std::vector<RunRecord>& records, const std::string& variant,
             const std::string& task,
             const std::vector<std::pair<double, std::vector<double>>>& grid,
             FixtureRun run) {
  run.variant = variant;
  run.task = task;
  for (const auto& [learning_rate, values] : grid) {
    for (size_t restart = 0; restart < values.size(); ++restart) {
      run.learning_rate = learning_rate;
      run.restart = static_cast<int>(restart);
      run.metrics = {{run.primary_metric, values[restart]}};
      records.push_back(MakeRecord(run));
    }
  }
}

}  // namespace testing
}  // namespace reports
}  // namespace bertlab
