// Where pre-training's arithmetic runs. The loop (pretrainer.h) keeps the
// data, the schedule, the logs and the checkpoints; a backend keeps the
// parameters, gradients and optimizer state in its own memory and does one
// step's numeric work, in the order of model/optim/gradient_accumulation.h:
//
//   ZeroGradients
//   ForwardBackward per micro-batch (accumulates the gradients)
//   SumGradientsAcrossRanks: with data parallelism, the sum over the ranks
//                    of a job (common/collective.h)
//   FinishGradients: average over the micro-batches, then clip (or only
//                    measure) the global norm; the loop reads the norm
//   Update(lr) when the loop decides the step is applied (finite loss/norm)
//
// and the evaluation's forward pass (Forward). Checkpoints go through the
// host copy of the state (host_params, host_optimizer): SyncToHost before
// reading it, SyncFromHost after writing it (initialisation, resume).
//
// "cpu" (this file) is model/bert_for_pretraining's CPU path, whose host copy
// is the working state. Other devices register a factory under their name
// (RegisterPretrainingBackend), e.g. "cuda" from pretraining_backend_cuda.cc
// when the binary is built with --config=cuda; MakePretrainingBackend names
// what this binary has when asked for a device it lacks.
#ifndef BERTLAB_MODEL_TRAIN_PRETRAINING_BACKEND_H_
#define BERTLAB_MODEL_TRAIN_PRETRAINING_BACKEND_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/collective.h"
#include "model/bert/encoder.h"
#include "model/bert_for_pretraining.h"
#include "model/heads/pretraining_heads.h"
#include "model/ops/precision.h"
#include "model/optim/adamw.h"
#include "model/optim/gradient_clipping.h"

namespace bertlab {

// One micro-batch's mean losses.
struct MicroBatchLosses {
  double loss = 0;            // total
  double language_model = 0;  // masked-LM or left-to-right LM
  double next_sentence = 0;   // 0 without the NSP head
};

// The evaluation forward pass's logits, host memory, valid until the next
// call on the backend.
struct EvaluationLogits {
  const float* prediction_logits = nullptr;     // (M, vocab_size)
  const float* next_sentence_logits = nullptr;  // (B, 2) or nullptr
};

class PretrainingBackend {
 public:
  // m and v of `optimizer_options` start at zero; parameters are unset until
  // the caller writes host_params() and calls SyncFromHost().
  PretrainingBackend(const BertForPretraining& model,
                     const AdamWOptions& optimizer_options);
  virtual ~PretrainingBackend() = default;
  PretrainingBackend(const PretrainingBackend&) = delete;
  PretrainingBackend& operator=(const PretrainingBackend&) = delete;

  // E.g. "cpu, 2 threads" or "cuda (NVIDIA H200), bf16 mixed precision".
  virtual std::string Describe() const = 0;

  // Sizes the buffers for micro-batches of this shape (the phase's), freeing
  // those of the previous shape first.
  virtual void PrepareShape(int64_t batch, int64_t seq_len,
                            int64_t max_predictions) = 0;

  virtual void ZeroGradients() = 0;
  // Forward and backward of one micro-batch (of the prepared shape) with
  // training dropout; accumulates into the gradients.
  virtual MicroBatchLosses ForwardBackward(const EncoderBatch& batch,
                                           const PretrainingTargets& targets,
                                           const DropoutSettings& dropout) = 0;
  // The gradients become their sum over the ranks of `collective`, each
  // rank's own micro-batches summed first, in the tree order of
  // common/collective.h. This default handles a process alone and refuses
  // more ranks (a device without data-parallel training).
  virtual absl::Status SumGradientsAcrossRanks(Collective* collective);
  // grads /= num_micro_batches (the step's, all ranks together); then
  // ClipByGlobalNorm(clip_norm) when clip_norm > 0, else only the norm.
  virtual ClipResult FinishGradients(int64_t num_micro_batches,
                                     double clip_norm) = 0;
  // One AdamW update with this learning rate.
  virtual void Update(double learning_rate) = 0;
  // Forward without dropout.
  virtual EvaluationLogits Forward(const EncoderBatch& batch,
                                   const PretrainingTargets& targets) = 0;

  // The host copy of the state, laid out as model().layout().
  float* host_params() { return host_params_.data(); }
  AdamW<float>* host_optimizer() { return &host_optimizer_; }
  // Device -> host copy (no-op where the host copy is the working state).
  virtual void SyncToHost() {}
  // Host -> device copy.
  virtual void SyncFromHost() {}

  const BertForPretraining& model() const { return model_; }

 private:
  const BertForPretraining& model_;
  std::vector<float> host_params_;
  AdamW<float> host_optimizer_;
};

// The CPU backend: PretrainingForwardBackward<float> and friends on the host
// state, with NumThreads() threads. Each micro-batch's gradient is computed
// into a zeroed buffer of its own and the step's gradient is their sum in
// the tree order of common/collective.h (TreeSum: log2(micro-batches) + 1
// gradient buffers at most), so that the same step on N data-parallel ranks
// gives the same bits. In BF16 its products (forward and backward) compute
// with oneDNN's bf16 matmul: each computing call opens a precision scope
// (model/ops/cpu_gemm_engine.h), so nothing outside the backend, fine-tuning
// included, is touched. Public so that a test can make a fake
// device of it (a subclass that spoils a gradient or slows a step,
// registered under a name of its own) instead of hooks in the trainer.
class CpuPretrainingBackend : public PretrainingBackend {
 public:
  CpuPretrainingBackend(const BertForPretraining& model,
                        const AdamWOptions& optimizer_options,
                        Precision precision);
  std::string Describe() const override;
  void PrepareShape(int64_t batch, int64_t seq_len,
                    int64_t max_predictions) override;
  void ZeroGradients() override;
  MicroBatchLosses ForwardBackward(const EncoderBatch& batch,
                                   const PretrainingTargets& targets,
                                   const DropoutSettings& dropout) override;
  absl::Status SumGradientsAcrossRanks(Collective* collective) override;
  ClipResult FinishGradients(int64_t num_micro_batches,
                             double clip_norm) override;
  void Update(double learning_rate) override;
  EvaluationLogits Forward(const EncoderBatch& batch,
                           const PretrainingTargets& targets) override;

 protected:
  // The step's gradients (the micro-batches' sum so far), laid out as
  // model().layout().
  std::vector<float>& grads() {
    FoldMicroBatches();
    return grads_;
  }

 private:
  // grads_ = the sum of the micro-batch gradients computed since the last
  // fold (none: grads_ stays).
  void FoldMicroBatches();

  const Precision precision_;
  TreeSum<float> micro_batch_sum_;
  std::vector<float> grads_;
  std::unique_ptr<PretrainingStepBuffers<float>> buffers_;
};

// Whether the CPU backend can compute in `precision`: BF16 needs oneDNN's
// bf16 matmul (OneDnnBf16MatmulAvailable()), and without it this is a
// FailedPrecondition error saying so.
absl::Status CheckCpuPrecisionAvailable(Precision precision);

// CheckCpuPrecisionAvailable's error, or the backend.
absl::StatusOr<std::unique_ptr<PretrainingBackend>> MakeCpuPretrainingBackend(
    const BertForPretraining& model, const AdamWOptions& optimizer_options,
    Precision precision);

using PretrainingBackendFactory =
    std::function<absl::StatusOr<std::unique_ptr<PretrainingBackend>>(
        const BertForPretraining& model, const AdamWOptions& optimizer_options,
        Precision precision)>;

// Registers `factory` for `device` (from a static initialiser of the
// device's library). "cpu" is built in.
bool RegisterPretrainingBackend(const std::string& device,
                                PretrainingBackendFactory factory);

// The devices this binary can train on, "cpu" first.
std::vector<std::string> PretrainingDevices();

// A backend for `device` computing in `precision`; an error naming the
// devices this binary has when it lacks `device`, or the device's own error
// when it cannot compute in `precision` (BF16 on a CPU without oneDNN's bf16
// matmul).
absl::StatusOr<std::unique_ptr<PretrainingBackend>> MakePretrainingBackend(
    const std::string& device, Precision precision,
    const BertForPretraining& model, const AdamWOptions& optimizer_options);

}  // namespace bertlab

#endif  // BERTLAB_MODEL_TRAIN_PRETRAINING_BACKEND_H_
