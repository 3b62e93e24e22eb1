// Compares the run records of an experiment run with golden values, for the
// CI regression check (experiments/ci_regression_test.sh):
//
//   check_regression --runs=DIR --golden=FILE.json       exit 0: no drift
//   check_regression --runs=DIR --write_golden=FILE.json  record new goldens
//   check_regression --runs=DIR --golden=FILE.json --ignore_run_ids
//                                 the same experiment on another device
//
// The golden file holds, per run (keyed "kind variant task lr restart"), its
// run id and data hashes, compared exactly (they are pure functions of the
// configuration and the input files), and its metrics, compared within the
// file's stated tolerances: the training arithmetic is deterministic for a
// fixed binary, thread count and CPU, but another CPU may take other
// OpenBLAS kernels and vectorised paths whose roundings differ, and a tiny
// dev set turns one flipped example into a visible step. A metric that
// matches exactly is reported as such. Every drift is listed (run, metric,
// golden, got, tolerance) before the exit status 1.
#include <cmath>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/exit_status.h"
#include "common/file.h"
#include "common/status_macros.h"
#include "common/user_path.h"
#include "nlohmann/json.hpp"
#include "reports/run_records.h"

ABSL_FLAG(std::string, runs, "", "the experiment's output directory");
ABSL_FLAG(std::string, golden, "", "golden values to compare with");
ABSL_FLAG(std::string, write_golden, "",
          "write the runs' values as a new golden file instead");
ABSL_FLAG(bool, ignore_run_ids, false,
          "compare the metrics and data hashes only: for runs of the same "
          "experiment on another device (whose run ids name it) against a "
          "CPU run's golden values, as the GPU device check does "
          "(tools/gpu/run_device_check.sh)");

namespace bertlab {
namespace {

constexpr char kProgram[] = "check_regression";

// Percent-scale metrics (accuracy, F1, EM) may move this many points: on
// the regression experiment's 64-128 dev examples, three flipped examples
// (what another CPU's float rounding can do after a few dozen steps) are
// 2.3-4.7 points. Perplexities and losses may move this fraction; throughput
// is never compared.
constexpr double kPercentTolerance = 5.0;
constexpr double kRelativeTolerance = 0.02;

std::string RunKey(const reports::RunRecord& r) {
  if (!r.is_finetune()) return absl::StrCat("pretrain ", r.variant);
  return absl::StrCat("finetune ", r.variant, " ", r.task, " ",
                      absl::StrFormat("%g", r.learning_rate), " ", r.restart);
}

bool Compared(const std::string& metric) {
  return metric != "tokens_per_second";
}

bool IsRelative(const std::string& metric) {
  return metric.find("perplexity") != std::string::npos ||
         metric.find("loss") != std::string::npos || metric == "null_threshold";
}

// One golden entry as --write_golden writes it: "run_id" a string,
// "data_hashes" an object of strings, "metrics" an object of numbers. A
// hand-edited file missing one is refused with the file, the run and the
// field (reading it unchecked aborted).
absl::Status CheckGoldenEntry(const std::string& path, const std::string& key,
                              const nlohmann::json& entry) {
  const auto bad = [&](const std::string& field, const char* expected) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": run \"", key,
                                                   "\": field \"", field,
                                                   "\": expected ", expected));
  };
  if (!entry.is_object()) return bad("", "an object");
  if (!entry.contains("run_id") || !entry["run_id"].is_string()) {
    return bad("run_id", "a string");
  }
  if (!entry.contains("data_hashes") || !entry["data_hashes"].is_object()) {
    return bad("data_hashes", "an object");
  }
  for (const auto& [name, hash] : entry["data_hashes"].items()) {
    if (!hash.is_string()) return bad("data_hashes." + name, "a string");
  }
  if (!entry.contains("metrics") || !entry["metrics"].is_object()) {
    return bad("metrics", "an object");
  }
  for (const auto& [name, value] : entry["metrics"].items()) {
    if (!value.is_number()) return bad("metrics." + name, "a number");
  }
  return absl::OkStatus();
}

absl::Status Run() {
  const std::string runs = ResolveUserPath(absl::GetFlag(FLAGS_runs));
  if (absl::GetFlag(FLAGS_runs).empty()) {
    return absl::InvalidArgumentError("--runs is required");
  }
  ASSIGN_OR_RETURN(const std::vector<reports::RunRecord> records,
                   reports::LoadRunRecords(runs));
  if (records.empty()) {
    return absl::NotFoundError(absl::StrCat("no run records under ", runs));
  }
  const std::string write = absl::GetFlag(FLAGS_write_golden);
  if (!write.empty()) {
    nlohmann::json golden;
    golden["tolerance"] = {{"percent_points", kPercentTolerance},
                           {"relative", kRelativeTolerance}};
    for (const reports::RunRecord& r : records) {
      nlohmann::json entry;
      entry["run_id"] = r.run_id;
      entry["data_hashes"] = r.data_hashes;
      nlohmann::json metrics = nlohmann::json::object();
      for (const auto& [name, value] : r.metrics) {
        if (Compared(name)) metrics[name] = value;
      }
      entry["metrics"] = metrics;
      golden["runs"][RunKey(r)] = entry;
    }
    RETURN_IF_ERROR(
        WriteFileAtomically(ResolveUserPath(write), golden.dump(2) + "\n"));
    std::cerr << kProgram << ": wrote " << records.size() << " runs to "
              << write << "\n";
    return absl::OkStatus();
  }

  const std::string golden_path = ResolveUserPath(absl::GetFlag(FLAGS_golden));
  std::ifstream in(golden_path);
  if (!in) {
    return absl::NotFoundError(
        absl::StrCat("cannot read --golden ", golden_path));
  }
  std::stringstream text;
  text << in.rdbuf();
  const nlohmann::json golden =
      nlohmann::json::parse(text.str(), nullptr, false);
  if (golden.is_discarded() || !golden.is_object() ||
      !golden.contains("runs") || !golden["runs"].is_object() ||
      !golden.contains("tolerance") || !golden["tolerance"].is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat(golden_path,
                     ": not a golden file (a JSON object with \"runs\" and "
                     "\"tolerance\" objects)"));
  }
  for (const char* name : {"percent_points", "relative"}) {
    if (!golden["tolerance"].contains(name) ||
        !golden["tolerance"][name].is_number()) {
      return absl::InvalidArgumentError(absl::StrCat(
          golden_path, ": \"tolerance.", name, "\": expected a number"));
    }
  }
  for (const auto& [key, entry] : golden["runs"].items()) {
    RETURN_IF_ERROR(CheckGoldenEntry(golden_path, key, entry));
  }
  const double points = golden["tolerance"]["percent_points"].get<double>();
  const double relative = golden["tolerance"]["relative"].get<double>();
  std::map<std::string, const reports::RunRecord*> by_key;
  for (const reports::RunRecord& r : records) by_key[RunKey(r)] = &r;

  int drifts = 0, exact = 0, compared = 0;
  auto drift = [&](const std::string& text) {
    std::cerr << kProgram << ": DRIFT " << text << "\n";
    ++drifts;
  };
  for (const auto& [key, entry] : golden["runs"].items()) {
    auto it = by_key.find(key);
    if (it == by_key.end()) {
      drift(absl::StrCat(key, ": no such run in ", runs));
      continue;
    }
    const reports::RunRecord& r = *it->second;
    if (!absl::GetFlag(FLAGS_ignore_run_ids) && entry["run_id"] != r.run_id) {
      drift(absl::StrCat(key, ": run_id ", r.run_id, ", golden ",
                         entry["run_id"].get<std::string>(),
                         " (its configuration or inputs changed)"));
    }
    if (entry["data_hashes"] != nlohmann::json(r.data_hashes)) {
      drift(absl::StrCat(key, ": data hashes differ from the golden ones"));
    }
    for (const auto& [name, value] : entry["metrics"].items()) {
      auto m = r.metrics.find(name);
      if (m == r.metrics.end()) {
        drift(absl::StrCat(key, ": metric ", name, " missing"));
        continue;
      }
      const double want = value.get<double>();
      const double got = m->second;
      const double tolerance =
          IsRelative(name) ? relative * std::abs(want) : points;
      ++compared;
      if (got == want) {
        ++exact;
      } else if (!(std::abs(got - want) <= tolerance)) {
        drift(absl::StrFormat("%s: %s = %.6g, golden %.6g, tolerance %.3g", key,
                              name, got, want, tolerance));
      }
    }
  }
  for (const auto& [key, r] : by_key) {
    if (!golden["runs"].contains(key)) {
      drift(absl::StrCat(key, ": run not in the golden file"));
    }
  }
  std::cerr << absl::StrFormat(
      "%s: %d runs, %d metrics compared, %d bit-identical, %d drift(s)\n",
      kProgram, by_key.size(), compared, exact, drifts);
  if (drifts > 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        drifts, " drift(s) from ", golden_path,
        "; if the change is intended, regenerate it with --write_golden"));
  }
  return absl::OkStatus();
}

}  // namespace
}  // namespace bertlab

int main(int argc, char** argv) {
  return bertlab::RunMain(bertlab::kProgram, [&] {
    absl::SetProgramUsageMessage(
        "--runs=DIR (--golden=FILE | --write_golden=FILE)\nCompares an "
        "experiment's run records with golden values (see "
        "experiments/check_regression_main.cc).");
    absl::ParseCommandLine(argc, argv);
    return bertlab::Run();
  });
}
