#include "experiments/run/slurm_launcher.h"

#include <stdio.h>
#include <sys/wait.h>

#include <algorithm>
#include <map>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/strip.h"
#include "common/directory.h"
#include "common/file.h"
#include "common/status_macros.h"

namespace bertlab {
namespace experiments {
namespace {

// Jobs that need the same jobs, in the order their first one was given.
struct Group {
  std::set<std::string> needs;
  std::vector<size_t> jobs;
};

std::string Script(const SlurmOptions& options, const std::string& name,
                   const std::string& script_dir,
                   const std::vector<const Job*>& tasks) {
  std::string script = absl::StrCat(
      "#!/bin/bash\n"
      "# Written by run_experiment --launcher=slurm (experiments/"
      "slurm_launcher.h):\n# one run of the experiment per array task.\n",
      "#SBATCH --job-name=", options.job_name, "-", name, "\n",
      "#SBATCH --array=0-", tasks.size() - 1, "\n",
      "#SBATCH --cpus-per-task=", options.cpus_per_task, "\n",
      "#SBATCH --output=", script_dir, "/", name, "-%A_%a.out\n");
  if (!options.partition.empty()) {
    absl::StrAppend(&script, "#SBATCH --partition=", options.partition, "\n");
  }
  if (!options.time_limit.empty()) {
    absl::StrAppend(&script, "#SBATCH --time=", options.time_limit, "\n");
  }
  if (!options.gres.empty()) {
    absl::StrAppend(&script, "#SBATCH --gres=", options.gres, "\n");
  }
  absl::StrAppend(&script, "case \"${SLURM_ARRAY_TASK_ID:-}\" in\n");
  for (size_t i = 0; i < tasks.size(); ++i) {
    std::vector<std::string> words;
    for (const std::string& arg : tasks[i]->argv) {
      words.push_back(ShellQuote(arg));
    }
    // A label with a newline would end the comment.
    absl::StrAppend(&script, "  ", i, ")  # ",
                    absl::StrReplaceAll(tasks[i]->label, {{"\n", " "}}),
                    "\n    exec ", absl::StrJoin(words, " "), " > ",
                    ShellQuote(tasks[i]->log_file), " 2>&1 ;;\n");
  }
  absl::StrAppend(&script,
                  "esac\n"
                  "echo \"no run for array task "
                  "${SLURM_ARRAY_TASK_ID:-(none)}\" >&2\nexit 1\n");
  return script;
}

// Runs `command` in sh; its output (stdout and stderr) and exit status.
absl::StatusOr<std::pair<std::string, int>> Capture(
    const std::string& command) {
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) {
    return absl::UnavailableError(absl::StrCat("cannot run ", command));
  }
  std::string output;
  char buffer[4096];
  size_t read = 0;
  while ((read = ::fread(buffer, 1, sizeof(buffer), pipe)) > 0) {
    output.append(buffer, read);
  }
  const int status = ::pclose(pipe);
  return std::make_pair(output, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

}  // namespace

std::string ShellQuote(const std::string& text) {
  return absl::StrCat("'", absl::StrReplaceAll(text, {{"'", "'\\''"}}), "'");
}

absl::StatusOr<std::vector<SlurmArray>> SubmitJobArrays(
    const std::vector<Job>& jobs, const SlurmOptions& options,
    const std::string& script_dir) {
  if (options.cpus_per_task < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--cpus-per-task must be at least 1, got ", options.cpus_per_task));
  }
  std::vector<Group> groups;
  std::map<std::string, size_t> group_of;  // job name -> group
  for (size_t i = 0; i < jobs.size(); ++i) {
    const Job& job = jobs[i];
    if (job.argv.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("job ", job.label, " has no command"));
    }
    for (const std::string& need : job.needs) {
      if (group_of.count(need) == 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("job ", job.label, " needs \"", need,
                         "\", which is not an earlier job"));
      }
    }
    const std::set<std::string> needs(job.needs.begin(), job.needs.end());
    size_t g = 0;
    while (g < groups.size() && groups[g].needs != needs) ++g;
    if (g == groups.size()) groups.push_back({needs, {}});
    groups[g].jobs.push_back(i);
    if (!group_of.emplace(job.name, g).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("two jobs are named \"", job.name, "\""));
    }
  }
  RETURN_IF_ERROR(CreateDirectories(script_dir));
  std::vector<SlurmArray> arrays;
  // Job name -> "<array job id>_<task>", once submitted.
  std::map<std::string, std::string> task_id;
  for (const Group& group : groups) {
    SlurmArray array;
    array.name = absl::StrCat("array", arrays.size() + 1);
    array.script = absl::StrCat(script_dir, "/", array.name, ".sbatch");
    std::vector<const Job*> tasks;
    for (size_t i : group.jobs) {
      tasks.push_back(&jobs[i]);
      array.job_names.push_back(jobs[i].name);
    }
    std::vector<std::string> after;
    for (const std::string& need : group.needs) after.push_back(task_id[need]);
    if (!after.empty()) {
      array.dependency = absl::StrCat("afterok:", absl::StrJoin(after, ":"));
    }
    RETURN_IF_ERROR(WriteFileAtomically(
        array.script, Script(options, array.name, script_dir, tasks)));
    std::string command =
        absl::StrCat(ShellQuote(options.sbatch), " --parsable");
    if (!array.dependency.empty()) {
      absl::StrAppend(&command, " --dependency=", array.dependency,
                      " --kill-on-invalid-dep=yes");
    }
    absl::StrAppend(&command, " ", ShellQuote(array.script));
    ASSIGN_OR_RETURN(const auto result, Capture(command));
    const std::string output(absl::StripAsciiWhitespace(result.first));
    // --parsable prints "<job id>" or "<job id>;<cluster>".
    const std::string job_id = output.substr(0, output.find(';'));
    if (result.second != 0 || job_id.empty() ||
        !std::all_of(job_id.begin(), job_id.end(), absl::ascii_isdigit)) {
      std::vector<std::string> submitted;
      for (const SlurmArray& done : arrays) {
        submitted.push_back(
            absl::StrCat(done.name, " (job ", done.job_id, ")"));
      }
      return absl::UnavailableError(absl::StrCat(
          "sbatch of ", array.script, " failed",
          result.second == 0
              ? ""
              : absl::StrCat(" (exit status ", result.second, ")"),
          ": ", output.empty() ? "no output" : output,
          submitted.empty() ? ""
                            : absl::StrCat("; submitted before it: ",
                                           absl::StrJoin(submitted, ", "))));
    }
    array.job_id = job_id;
    for (size_t t = 0; t < array.job_names.size(); ++t) {
      task_id[array.job_names[t]] = absl::StrCat(job_id, "_", t);
    }
    arrays.push_back(std::move(array));
  }
  return arrays;
}

}  // namespace experiments
}  // namespace bertlab
