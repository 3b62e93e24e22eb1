// bazel run //model:step_dump -- --checkpoint=DIR --batch=B.json
//     --out=O.safetensors [--causal | --reverse_causal]
//
// Runs one BertForPreTraining forward and backward (training mode, dropout 0)
// and writes logits, losses, hidden states and every parameter gradient; see
// model/step_dump.h for the formats. Relative paths are relative to the
// directory `bazel run` was started in.
#include <cstdio>
#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "common/exit_status.h"
#include "common/parallel.h"
#include "common/user_path.h"
#include "model/step_dump.h"

ABSL_FLAG(std::string, checkpoint, "",
          "checkpoint directory: config.json + model.safetensors");
ABSL_FLAG(std::string, batch, "", "batch JSON (see model/step_dump.h)");
ABSL_FLAG(std::string, out, "", "output safetensors file");
ABSL_FLAG(bool, causal, false,
          "use causal (left-to-right) attention whatever the config says");
ABSL_FLAG(bool, reverse_causal, false,
          "use reverse-causal (right-to-left) attention whatever the config "
          "says");

int main(int argc, char** argv) {
  return bertlab::RunMain("step_dump", [&] {
    absl::SetProgramUsageMessage(
        "runs one BertForPreTraining training step and dumps its outputs and "
        "gradients\n  step_dump --checkpoint=DIR --batch=B.json "
        "--out=O.safetensors [--causal | --reverse_causal]");
    absl::ParseCommandLine(argc, argv);
    // A malformed $BERTLAB_NUM_THREADS is a message here, not a CHECK later.
    if (const absl::Status threads = bertlab::ApplyThreadsFlag(0);
        !threads.ok()) {
      std::fprintf(stderr, "step_dump: %s\n",
                   std::string(threads.message()).c_str());
      return 1;
    }
    bertlab::StepDumpOptions options;
    options.checkpoint_dir =
        bertlab::ResolveUserPath(absl::GetFlag(FLAGS_checkpoint));
    options.batch_path = bertlab::ResolveUserPath(absl::GetFlag(FLAGS_batch));
    options.output_path = bertlab::ResolveUserPath(absl::GetFlag(FLAGS_out));
    options.causal = absl::GetFlag(FLAGS_causal);
    options.reverse_causal = absl::GetFlag(FLAGS_reverse_causal);
    for (const auto& [flag, value] :
         {std::pair<const char*, std::string>{"--checkpoint",
                                              options.checkpoint_dir},
          {"--batch", options.batch_path},
          {"--out", options.output_path}}) {
      if (value.empty()) {
        std::fprintf(stderr, "step_dump: %s is required\n", flag);
        return 2;
      }
    }
    const absl::Status status = bertlab::RunStepDump(options);
    if (!status.ok()) {
      std::fprintf(stderr, "step_dump: %s\n", status.ToString().c_str());
      return 1;
    }
    std::fprintf(stderr, "step_dump: wrote %s\n", options.output_path.c_str());
    return 0;
  });
}
