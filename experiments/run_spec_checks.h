// The semantic checks of one resolved RunSpec (config_loader.h runs them on
// every run of an experiment and turns each problem into an error at the
// field's file:line:col): required fields, ranges, the objectives and the
// attention mode that go together, the data, optimizer, schedules,
// sequence phases, cloze test and fine-tuning grid.
#ifndef BERTLAB_EXPERIMENTS_RUN_SPEC_CHECKS_H_
#define BERTLAB_EXPERIMENTS_RUN_SPEC_CHECKS_H_

#include <string>
#include <vector>

#include "experiments/experiment.pb.h"

namespace bertlab {
namespace experiments {

struct RunSpecProblem {
  // Relative to the RunSpec, e.g. "pretraining.schedule.warmup_steps"; a
  // oneof's name stands for whichever member is set.
  std::string path;
  // Follows the path: "(0) must be at least 1; ...".
  std::string text;
};

// Every problem of `spec`, in the order of its fields; empty: valid.
std::vector<RunSpecProblem> CheckRunSpec(const RunSpec& spec);

}  // namespace experiments
}  // namespace bertlab

#endif  // BERTLAB_EXPERIMENTS_RUN_SPEC_CHECKS_H_
