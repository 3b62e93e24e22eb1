// Runs commands as child processes, at most N at once, each only after the
// commands it needs have succeeded: how run_experiment --jobs=N runs an
// experiment's independent runs side by side (experiments/run/runner.h). Each
// job is a separate process, so a run that fails, or crashes, ends only
// itself; a job whose prerequisite failed is not started. Nothing is
// retried.
//
// Order: jobs start in the order given, the first one whose prerequisites
// have all succeeded taking the next free slot, so a list that puts the
// pre-training runs first starts them first.
//
// Children: stdin is /dev/null, stdout and stderr go to the job's log file
// (truncated), and each child is sent SIGTERM if the pool's process dies
// (PR_SET_PDEATHSIG), so none outlives an interrupted command.
//
// Display (with progress on, on stderr): a line when a job starts and when
// it ends; on a terminal, a block under them redrawn every second with one
// line per running job (its label, its age and the last line of its log);
// elsewhere that block is printed every 30 s.
#ifndef BERTLAB_EXPERIMENTS_RUN_JOB_POOL_H_
#define BERTLAB_EXPERIMENTS_RUN_JOB_POOL_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace bertlab {
namespace experiments {

struct Job {
  // Unique among the jobs: what `needs` refers to.
  std::string name;
  // For the display and the messages, e.g. "fine-tuning full/mrpc lr 0.0001
  // restart 2".
  std::string label;
  // argv[0] is the program's path (execv: no $PATH search).
  std::vector<std::string> argv;
  // Names of earlier jobs that must succeed first.
  std::vector<std::string> needs;
  // The child's stdout and stderr; its directory must exist.
  std::string log_file;
};

struct JobFailure {
  std::string label;
  // "exited with status 1", "killed by signal 9", "not started: it needs
  // pre-training full, which failed", "cannot open its log: ...".
  std::string reason;
  std::string log_file;
  // The log's last lines (at most kJobFailureTailLines), for the message.
  std::string log_tail;
};

inline constexpr int kJobFailureTailLines = 5;

struct JobPoolOptions {
  // Jobs running at once, >= 1.
  int max_running = 1;
  bool progress = true;
  // Begins every display line: "<prefix>: ...".
  std::string prefix = "experiment";
};

struct JobPoolResult {
  // Names of the jobs that succeeded, in the order they finished.
  std::vector<std::string> succeeded;
  // In the order the jobs were given.
  std::vector<JobFailure> failures;
};

// Runs every job (see the top of the file) and returns when none is left.
// InvalidArgument before starting anything if a name repeats, a need names
// no earlier job, max_running < 1 or an argv is empty; a job that fails is
// a JobFailure, not an error.
absl::StatusOr<JobPoolResult> RunJobs(const std::vector<Job>& jobs,
                                      const JobPoolOptions& options);

}  // namespace experiments
}  // namespace bertlab

#endif  // BERTLAB_EXPERIMENTS_RUN_JOB_POOL_H_
