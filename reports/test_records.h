// Test helper: run records written the way the experiment runner writes them
// (docs/RUN_RECORDS.md), so tests build their fixtures from parameters rather
// than from hand-copied results.
#ifndef BERTLAB_REPORTS_TEST_RECORDS_H_
#define BERTLAB_REPORTS_TEST_RECORDS_H_

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "nlohmann/json.hpp"
#include "reports/run_records.h"

namespace bertlab {
namespace reports {
namespace testing {

struct FixtureRun {
  std::string table = "table5";
  std::string scale = "mini";
  std::string kind = "finetune";  // or "pretrain", "cloze"
  std::string variant = "full";
  std::string row;  // set only when non-empty (a pre-training seed's row)
  std::string task = "mrpc";
  bool derived = false;
  std::string stands_in_for;  // set only when non-empty
  double learning_rate = 2e-5;
  int restart = 0;
  std::string primary_metric = "accuracy";
  std::map<std::string, double> metrics = {{"accuracy", 80.0}};
  std::string code_version = "0123abc";
};

// The record as the runner would write it (every required field set).
nlohmann::json RecordJson(const FixtureRun& run);
// Parsed through ParseRunRecord; CHECK-fails if the fixture is malformed.
RunRecord MakeRecord(const FixtureRun& run);
// Writes `json` to RUNS_DIR/<variant>/<task>/lr<lr>_r<restart>/run.json
// (a cloze record to RUNS_DIR/<variant>/<task>/run.json, a pre-training
// record to RUNS_DIR/<variant>/pretrain/run.json) and returns the path.
std::string WriteRecord(const std::string& runs_dir, const FixtureRun& run,
                        const nlohmann::json& json);
// Appends the fine-tuning records of `variant` on `task` made from `run`:
// one per (learning rate, restart) with grid[i] = {learning rate, the
// primary metric's value of each restart}.
void AddGrid(std::vector<RunRecord>& records, const std::string& variant,
             const std::string& task,
             const std::vector<std::pair<double, std::vector<double>>>& grid,
             FixtureRun run = FixtureRun());
inline std::string WriteRecord(const std::string& runs_dir,
                               const FixtureRun& run) {
  return WriteRecord(runs_dir, run, RecordJson(run));
}

}  // namespace testing
}  // namespace reports
}  // namespace bertlab

#endif  // BERTLAB_REPORTS_TEST_RECORDS_H_
