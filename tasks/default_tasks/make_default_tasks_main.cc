// Writes the embedded default tasks (default_tasks.h): fine-tuning tasks in
// the GLUE, SQuAD v1.1 and SWAG file formats, derived from the embedded
// default corpus (the World English Bible), so the fine-tuning pipeline runs
// without the real benchmark data.
//
//   bazel run -c opt //tasks/default_tasks:make_default_tasks --
//       --output_dir=DIR [--seed=12345] [--corpus=FILE] [--quiet]
//       [--pair_train=3000] [--pair_dev=400] [--pair_test=400]
//       [--squad_train=2000] [--squad_dev=300] [--swag_train=2000]
//       [--swag_val=300]
//
// DIR receives README.txt and
//   pair/   README.txt train.tsv dev.tsv test.tsv test_labels.tsv  (MRPC)
//   squad/  README.txt train-v1.1.json dev-v1.1.json               (SQuAD)
//   swag/   README.txt train.csv val.csv                           (SWAG)
// replacing files of those names. Relative paths are taken relative to the
// directory where `bazel run` was started. Without --corpus the binary reads
// the default corpus from its runfiles (//tasks/corpus:default_corpus).
// The same corpus and flags give byte-identical files.
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/exit_status.h"
#include "common/status_macros.h"
#include "common/user_path.h"
#include "tasks/corpus/default_corpus_path.h"
#include "tasks/default_tasks/default_tasks.h"

namespace {
const bertlab::DefaultTasksOptions kDefaults;
constexpr char kProgram[] = "make_default_tasks";
}  // namespace

ABSL_FLAG(std::string, output_dir, "", "output directory (required)");
ABSL_FLAG(std::string, corpus, "",
          "corpus in the reference format (default: the embedded default "
          "corpus from the runfiles)");
ABSL_FLAG(bool, quiet, false, "no summary line on stderr");
ABSL_FLAG(uint64_t, seed, kDefaults.seed, "seed of every random choice");
ABSL_FLAG(int, pair_train, kDefaults.pair_train_examples,
          "rows of pair/train.tsv");
ABSL_FLAG(int, pair_dev, kDefaults.pair_dev_examples, "rows of pair/dev.tsv");
ABSL_FLAG(int, pair_test, kDefaults.pair_test_examples,
          "rows of pair/test.tsv");
ABSL_FLAG(int, squad_train, kDefaults.span_train_examples,
          "questions of squad/train-v1.1.json");
ABSL_FLAG(int, squad_dev, kDefaults.span_dev_examples,
          "questions of squad/dev-v1.1.json");
ABSL_FLAG(int, swag_train, kDefaults.swag_train_examples,
          "rows of swag/train.csv");
ABSL_FLAG(int, swag_val, kDefaults.swag_val_examples, "rows of swag/val.csv");

namespace bertlab {
namespace {

absl::Status Run(const char* argv0) {
  const std::string output_dir = absl::GetFlag(FLAGS_output_dir);
  if (output_dir.empty()) {
    return absl::InvalidArgumentError("--output_dir is required");
  }
  std::string corpus = absl::GetFlag(FLAGS_corpus);
  if (corpus.empty()) {
    corpus = FindDefaultCorpus(argv0);
    if (corpus.empty()) {
      return absl::NotFoundError(absl::StrCat(
          "cannot find the default corpus ", kDefaultCorpusRunfile,
          " in the runfiles; run with `bazel run`, or pass --corpus"));
    }
  } else {
    corpus = ResolveUserPath(corpus);
  }
  DefaultTasksOptions options;
  options.seed = absl::GetFlag(FLAGS_seed);
  options.pair_train_examples = absl::GetFlag(FLAGS_pair_train);
  options.pair_dev_examples = absl::GetFlag(FLAGS_pair_dev);
  options.pair_test_examples = absl::GetFlag(FLAGS_pair_test);
  options.span_train_examples = absl::GetFlag(FLAGS_squad_train);
  options.span_dev_examples = absl::GetFlag(FLAGS_squad_dev);
  options.swag_train_examples = absl::GetFlag(FLAGS_swag_train);
  options.swag_val_examples = absl::GetFlag(FLAGS_swag_val);
  RETURN_IF_ERROR(ValidateDefaultTasksOptions(options));

  ASSIGN_OR_RETURN(std::vector<Document> documents,
                   ReadReferenceFormatDocuments(corpus));
  const std::string out = ResolveUserPath(output_dir);
  RETURN_IF_ERROR(MakeDefaultTasks(documents, options, out));
  if (absl::GetFlag(FLAGS_quiet)) return absl::OkStatus();
  std::cerr << kProgram << ": " << documents.size() << " documents from "
            << corpus << "; wrote " << out << "/{pair,squad,swag}\n";
  return absl::OkStatus();
}

}  // namespace
}  // namespace bertlab

int main(int argc, char** argv) {
  return bertlab::RunMain(kProgram, [&] {
    absl::SetProgramUsageMessage(
        "--output_dir=DIR [--seed=12345] [--corpus=FILE]\n"
        "Writes the default tasks derived from the World English Bible (see "
        "tasks/default_tasks/default_tasks.h).");
    std::vector<char*> positional = absl::ParseCommandLine(argc, argv);
    if (positional.size() > 1) {
      std::cerr << kProgram << ": unexpected argument " << positional[1]
                << "\n";
      return 1;
    }
    return bertlab::ExitStatus(kProgram, bertlab::Run(argv[0]));
  });
}
