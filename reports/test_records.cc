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
  nlohmann::json json = {
      {"schema", 1},
      {"experiment", absl::StrCat(run.table, "_test")},
      {"table", run.table},
      {"scale", run.scale},
      {"run_id", "3f2a9c"},
      {"kind", run.kind},
      {"variant", run.variant},
      {"variant_description", absl::StrCat("variant ", run.variant)},
      {"data_source", run.derived ? "embedded default (derived from the "
                                    "World English Bible)"
                                  : "../shared/data/glue/" + run.task},
      {"derived", run.derived},
      {"metrics", run.metrics},
      {"timings",
       {{"wall_seconds", 1.5},
        {"started_at", "2024-01-01T00:00:00Z"},
        {"finished_at", "2024-01-01T00:00:01Z"}}},
      {"code_version", run.code_version},
      {"data_hashes",
       {{"glue/MRPC/dev.tsv", std::string(64, 'a')},
        {"vocab.txt", std::string(64, 'b')}}},
      {"model",
       {{"size", "L4_H256_A4"},
        {"num_hidden_layers", 4},
        {"hidden_size", 256},
        {"num_attention_heads", 4}}},
  };
  if (run.kind == "finetune") {
    json["task"] = run.task;
    json["learning_rate"] = run.learning_rate;
    json["restart"] = run.restart;
    json["seed"] = 17 + run.restart;
    json["primary_metric"] = run.primary_metric;
    if (!run.stands_in_for.empty()) json["stands_in_for"] = run.stands_in_for;
  }
  return json;
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

}  // namespace testing
}  // namespace reports
}  // namespace bertlab
