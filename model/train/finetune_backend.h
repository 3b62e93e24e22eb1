// Where fine-tuning's arithmetic runs, as pretraining_backend.h is for
// pre-training. The loop (finetuner.h) keeps the examples, their order and
// batches, the schedule, the statistics and the progress line; a backend
// keeps the parameters, the step's gradients and the optimizer state, and
// does one step's numeric work in the order of
// model/optim/gradient_accumulation.h:
//
//   BeginTraining    fresh optimizer state (AdamW's m and v at zero)
//   per micro-batch of this rank: ForwardBackward, or SkipMicroBatch for an
//                    empty one (the epoch's short last batch), which still
//                    takes its place in the tree of common/collective.h
//   SumGradientsAcrossRanks: this rank's micro-batches summed in tree order,
//                    then the sum over the job's ranks
//   FinishGradients: average over the step's non-empty micro-batches (all
//                    ranks), then clip (or only measure) the global norm
//   Update(lr)       when the loop has found the loss and the norm finite
//   EndTraining      frees the optimizer state and the step buffers
//
// and prediction's forward pass (Forward). The Finetuner initialises and
// loads the parameters through the host copy (host_params(), then
// SyncFromHost) and reads them back the same way (SyncToHost).
//
// "cpu" (MakeCpuFinetuneBackend) runs the model's CPU path
// (model/bert_for_finetuning.h, model/two_encoder_for_finetuning.h) on the
// host copy, in FP32 whatever the precision asked (the CPU's BF16 is for
// pre-training). A device backend implements the same calls on its own
// memory and registers itself (RegisterFinetuneBackend): "cuda" from
// finetune_backend_cuda.cc in --config=cuda builds; MakeFinetuneBackend
// picks one by name.
#ifndef BERTLAB_MODEL_TRAIN_FINETUNE_BACKEND_H_
#define BERTLAB_MODEL_TRAIN_FINETUNE_BACKEND_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/collective.h"
#include "model/bert/config.h"
#include "model/bert/encoder.h"
#include "model/bert/parameter_layout.h"
#include "model/finetune_heads.h"
#include "model/ops/precision.h"
#include "model/optim/adamw.h"
#include "model/optim/gradient_clipping.h"

namespace bertlab {

// The model a fine-tuning run trains: one encoder (+ BiLSTM) and the head,
// or the ELMo-style two encoders (model/two_encoder_for_finetuning.h).
// Each implementation keeps its own CPU step buffers per batch shape until
// ReleaseBuffers.
class FinetuneModel {
 public:
  virtual ~FinetuneModel() = default;
  virtual const ParameterLayout& layout() const = 0;
  // The (first) encoder's config: vocabulary sizes and the attention mode
  // that decides the pooled positions.
  virtual const BertConfig& config() const = 0;
  // Loads the checkpoint(s) over the encoder parameters of `params`:
  // init_checkpoint (nothing when empty), and with two encoders
  // rtl_checkpoint too.
  virtual absl::Status LoadCheckpoints(const std::string& init_checkpoint,
                                       const std::string& rtl_checkpoint,
                                       float* params) const = 0;
  // Accumulates the gradient into `grads`; returns the mean loss.
  virtual float ForwardBackward(const float* params, float* grads,
                                const EncoderBatch& batch,
                                const FinetuneTargets& targets,
                                const DropoutSettings& dropout) = 0;
  // Forward without targets or dropout; the head's outputs stay valid until
  // the next call.
  virtual const FinetuneHeadActivations<float>& Forward(
      const float* params, const EncoderBatch& batch) = 0;
  virtual void ReleaseBuffers() = 0;
};

// One encoder when `two_encoders` is false (config: its config), else the
// LTR and RTL encoders of `config`'s shape.
std::unique_ptr<FinetuneModel> MakeFinetuneModel(
    const BertConfig& config, const FinetuneModelOptions& options,
    bool two_encoders);

// The head's outputs of one prediction batch, host memory, valid until the
// backend's next call; only the model's head's are set.
struct FinetuneOutputs {
  const float* logits = nullptr;        // kClassifier (B, num_labels);
                                        // kMultipleChoice (B / C, C)
  const float* start_logits = nullptr;  // kSpan (B, T)
  const float* end_logits = nullptr;    // kSpan (B, T)
};

class FinetuneBackend {
 public:
  // The parameters are unset until the caller writes host_params() and
  // calls SyncFromHost().
  FinetuneBackend(std::unique_ptr<FinetuneModel> model,
                  const AdamWOptions& optimizer_options);
  virtual ~FinetuneBackend() = default;
  FinetuneBackend(const FinetuneBackend&) = delete;
  FinetuneBackend& operator=(const FinetuneBackend&) = delete;

  // E.g. "cpu, 2 threads".
  virtual std::string Describe() const = 0;

  virtual void BeginTraining() = 0;
  // Forward and backward of one micro-batch with training dropout; its
  // gradient is the next term of the step's sum. Returns its mean loss.
  virtual float ForwardBackward(const EncoderBatch& batch,
                                const FinetuneTargets& targets,
                                const DropoutSettings& dropout) = 0;
  // An empty micro-batch: a zero term.
  virtual void SkipMicroBatch() = 0;
  virtual absl::Status SumGradientsAcrossRanks(Collective* collective) = 0;
  // grads /= non_empty_micro_batches; then ClipByGlobalNorm(clip_norm) when
  // clip_norm > 0, else only the norm.
  virtual ClipResult FinishGradients(int64_t non_empty_micro_batches,
                                     double clip_norm) = 0;
  // One AdamW update with this learning rate.
  virtual void Update(double learning_rate) = 0;
  virtual void EndTraining() = 0;

  // Forward without dropout.
  virtual FinetuneOutputs Forward(const EncoderBatch& batch) = 0;
  // Frees the step buffers Forward made.
  virtual void ReleaseBuffers() = 0;

  // The host copy of the parameters, laid out as model().layout().
  std::vector<float>& host_params() { return host_params_; }
  // Device -> host copy (no-op where the host copy is the working state).
  virtual void SyncToHost() {}
  // Host -> device copy.
  virtual void SyncFromHost() {}

  const FinetuneModel& model() const { return *model_; }

 protected:
  FinetuneModel* mutable_model() { return model_.get(); }
  const AdamWOptions& optimizer_options() const { return optimizer_options_; }

 private:
  std::unique_ptr<FinetuneModel> model_;
  AdamWOptions optimizer_options_;
  std::vector<float> host_params_;
};

std::unique_ptr<FinetuneBackend> MakeCpuFinetuneBackend(
    std::unique_ptr<FinetuneModel> model,
    const AdamWOptions& optimizer_options);

// A device's backend for the model MakeFinetuneModel(config, options,
// two_encoders) makes, computing in `precision`; an error where the device
// cannot run that model or precision.
using FinetuneBackendFactory =
    std::function<absl::StatusOr<std::unique_ptr<FinetuneBackend>>(
        const BertConfig& config, const FinetuneModelOptions& options,
        bool two_encoders, const AdamWOptions& optimizer_options,
        Precision precision)>;

// Registers `factory` for `device` (from a static initialiser of the
// device's library). "cpu" is built in.
bool RegisterFinetuneBackend(const std::string& device,
                             FinetuneBackendFactory factory);

// The devices this binary can fine-tune on, "cpu" first.
std::vector<std::string> FinetuneDevices();

// The backend of `device`; an error naming the devices this binary has when
// it lacks `device`, or the device's own.
absl::StatusOr<std::unique_ptr<FinetuneBackend>> MakeFinetuneBackend(
    const std::string& device, Precision precision, const BertConfig& config,
    const FinetuneModelOptions& options, bool two_encoders,
    const AdamWOptions& optimizer_options);

}  // namespace bertlab

#endif  // BERTLAB_MODEL_TRAIN_FINETUNE_BACKEND_H_
