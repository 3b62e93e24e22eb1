// Submits jobs (experiments/run/job_pool.h's Job: a command, a log, the jobs it
// needs) to Slurm as job arrays: how run_experiment --launcher=slurm runs an
// experiment's runs on a cluster (experiments/run/runner.h). Each array task is
// one job; its command runs there as it would locally, its output going to
// the job's log file.
//
// Arrays: the jobs are grouped by the jobs they need, in the order given, so
// the jobs that need none (the pre-training runs, and fine-tuning runs whose
// pre-training is done) are the first array, array1, and the fine-tuning
// runs of each pre-training (or pair, for the ELMo-style row) an array of
// their own, array2, ..., submitted with
//
//   sbatch --parsable --dependency=afterok:<array>_<task>[:...]
//          --kill-on-invalid-dep=yes <script>
//
// so that they start only once the array tasks they need have succeeded,
// and are cancelled (not left pending for ever) if one of those fails.
//
// Scripts: <script_dir>/<array name>.sbatch, a bash script with #SBATCH
// lines (job name, --array, --cpus-per-task and, where given, --partition,
// --time, --gres; the script's own output in <script_dir>/<name>-%A_%a.out)
// and one case per array task that execs the job's command with its output
// in the job's log. They stay after submission, to read or to resubmit by
// hand.
#ifndef BERTLAB_EXPERIMENTS_RUN_SLURM_LAUNCHER_H_
#define BERTLAB_EXPERIMENTS_RUN_SLURM_LAUNCHER_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "experiments/run/job_pool.h"

namespace bertlab {
namespace experiments {

struct SlurmOptions {
  // The sbatch program: a path, or a name looked up in $PATH.
  std::string sbatch = "sbatch";
  // Begins every array's job name: "<job_name>-<array name>".
  std::string job_name = "bertlab";
  // sbatch --cpus-per-task (>= 1): each job's command is given as many
  // threads by the caller.
  int cpus_per_task = 1;
  // Passed through when not empty: --partition, --time (Slurm's formats,
  // e.g. "30", "2:00:00", "1-00:00:00"), --gres (e.g. "gpu:1").
  std::string partition;
  std::string time_limit;
  std::string gres;
};

struct SlurmArray {
  // "array1", "array2", ...
  std::string name;
  std::string script;
  // As sbatch --parsable printed it (the cluster name dropped).
  std::string job_id;
  // The jobs of its tasks, by index.
  std::vector<std::string> job_names;
  // "afterok:12_0:12_2", or empty.
  std::string dependency;
};

// Writes the scripts and submits them (see the top of the file); returns
// the arrays in the order submitted. InvalidArgument for jobs that need a
// job not given earlier or an empty command, or cpus_per_task < 1;
// Unavailable when sbatch cannot be run or fails (its output in the
// message; the arrays submitted before it stay submitted and are named).
absl::StatusOr<std::vector<SlurmArray>> SubmitJobArrays(
    const std::vector<Job>& jobs, const SlurmOptions& options,
    const std::string& script_dir);

// `text` quoted for bash: 'text', each ' as '\''.
std::string ShellQuote(const std::string& text);

}  // namespace experiments
}  // namespace bertlab

#endif  // BERTLAB_EXPERIMENTS_RUN_SLURM_LAUNCHER_H_
