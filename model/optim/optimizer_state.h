// The AdamW state in a safetensors checkpoint, so a resumed run continues
// bit-exactly. Next to the parameters (stored under their HF names) a
// checkpoint holds
//
//   optimizer.m.<parameter name>   F32, the parameter's shape   first moment
//   optimizer.v.<parameter name>   F32, the parameter's shape   second moment
//   optimizer.step                 I64, shape []                updates done
//   __metadata__ "optimizer"       JSON of the AdamWOptions, e.g.
//     {"type":"adamw","beta1":0.9,"beta2":0.999,"epsilon":1e-06,
//      "weight_decay":0.01,"bias_correction":false}
//
// Reading refuses, naming the tensor or field and both values: a missing or
// surplus optimizer.m/v tensor (the layouts differ), a dtype other than F32,
// a wrong shape, a missing or negative step, and options that differ from the
// optimizer's own (resuming with other hyperparameters would not continue
// the same run). The learning-rate schedule is not stored: it is a function
// of step() and the run's config.
#ifndef BERTLAB_MODEL_OPTIM_OPTIMIZER_STATE_H_
#define BERTLAB_MODEL_OPTIM_OPTIMIZER_STATE_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "model/bert/parameter_layout.h"
#include "model/optim/adamw.h"
#include "model/safetensors.h"

namespace bertlab {

inline constexpr char kOptimizerMetadataKey[] = "optimizer";
inline constexpr char kOptimizerStepTensor[] = "optimizer.step";

// "optimizer.m.<name>" and "optimizer.v.<name>".
std::string OptimizerMomentName(absl::string_view moment,
                                absl::string_view parameter);

// The metadata JSON above, and its inverse (errors name `source`).
std::string AdamWOptionsToJson(const AdamWOptions& options);
absl::StatusOr<AdamWOptions> ParseAdamWOptionsJson(absl::string_view json,
                                                   absl::string_view source);

// Adds the tensors and the metadata entry above. optimizer.size() must equal
// layout.total_size() (CHECKed). Errors come from the writer (a name already
// added).
absl::Status AddAdamWState(const ParameterLayout& layout,
                           const AdamW<float>& optimizer,
                           SafetensorsWriter* writer);

// Restores m, v and step from `file` into `optimizer`, which must have been
// built for `layout` with the options the file records. On error the
// optimizer is left unchanged.
absl::Status ReadAdamWState(const SafetensorsFile& file,
                            const ParameterLayout& layout,
                            AdamW<float>* optimizer);

}  // namespace bertlab

#endif  // BERTLAB_MODEL_OPTIM_OPTIMIZER_STATE_H_
