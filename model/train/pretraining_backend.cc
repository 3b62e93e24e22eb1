#include "model/train/pretraining_backend.h"

#include <algorithm>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/parallel.h"
#include "common/status_macros.h"
#include "model/ops/cpu_gemm_engine.h"
#include "model/ops/gemm_onednn.h"
#include "model/optim/gradient_accumulation.h"
#include "model/train/device_registry.h"

namespace bertlab {

PretrainingBackend::PretrainingBackend(const BertForPretraining& model,
                                       const AdamWOptions& optimizer_options)
    : model_(model),
      host_params_(static_cast<size_t>(model.layout().total_size())),
      host_optimizer_(model.layout(), optimizer_options) {}

absl::Status PretrainingBackend::SumGradientsAcrossRanks(
    Collective* collective) {
  if (collective->size() == 1) return absl::OkStatus();
  return absl::UnimplementedError(
      absl::StrCat("data-parallel pre-training over ", collective->Describe(),
                   " on ", Describe(),
                   " is not implemented; run one process, or use the cpu "
                   "device"));
}

CpuPretrainingBackend::CpuPretrainingBackend(
    const BertForPretraining& model, const AdamWOptions& optimizer_options,
    Precision precision)
    : PretrainingBackend(model, optimizer_options),
      precision_(precision),
      micro_batch_sum_(model.layout().total_size()) {}

std::string CpuPretrainingBackend::Describe() const {
  return absl::StrCat("cpu, ", NumThreads(), " threads",
                      precision_ == Precision::kBfloat16Mixed
                          ? ", bf16 mixed precision (oneDNN bf16 matmul)"
                          : "");
}

void CpuPretrainingBackend::PrepareShape(int64_t batch, int64_t seq_len,
                                         int64_t max_predictions) {
  buffers_.reset();  // free the old shape's buffers first
  buffers_ = std::make_unique<PretrainingStepBuffers<float>>(
      model().config(), batch, seq_len, max_predictions);
}

void CpuPretrainingBackend::FoldMicroBatches() {
  // No terms and no gradient: zeros.
  if (micro_batch_sum_.terms() > 0 || grads_.empty()) {
    micro_batch_sum_.Finish(&grads_);
  }
}

void CpuPretrainingBackend::ZeroGradients() {
  // Drop the terms of an unfinished step; the last step's gradient becomes
  // the buffer of the next term, so one step holds no more buffers than
  // its micro-batches' tree needs.
  if (micro_batch_sum_.terms() > 0) micro_batch_sum_.Finish(&grads_);
  micro_batch_sum_.Recycle(std::move(grads_));
  grads_.clear();
}

MicroBatchLosses CpuPretrainingBackend::ForwardBackward(
    const EncoderBatch& batch, const PretrainingTargets& targets,
    const DropoutSettings& dropout) {
  const ScopedCpuGemmPrecision scope(precision_);
  MicroBatchLosses losses;
  float* term = micro_batch_sum_.NextTerm();
  losses.loss = PretrainingForwardBackward(model(), host_params(), term, batch,
                                           targets, dropout, buffers_.get());
  micro_batch_sum_.Push();
  losses.language_model = buffers_->heads.masked_lm_loss();
  losses.next_sentence = buffers_->heads.next_sentence_loss();
  return losses;
}

absl::Status CpuPretrainingBackend::SumGradientsAcrossRanks(
    Collective* collective) {
  FoldMicroBatches();
  return collective->SumInTreeOrder(grads_.data(),
                                    static_cast<int64_t>(grads_.size()));
}

ClipResult CpuPretrainingBackend::FinishGradients(int64_t num_micro_batches,
                                                  double clip_norm) {
  FoldMicroBatches();
  return AverageAndClipGradients(num_micro_batches, clip_norm,
                                 static_cast<int64_t>(grads_.size()),
                                 grads_.data());
}

void CpuPretrainingBackend::Update(double learning_rate) {
  FoldMicroBatches();
  host_optimizer()->Step(learning_rate, grads_.data(), host_params());
}

EvaluationLogits CpuPretrainingBackend::Forward(
    const EncoderBatch& batch, const PretrainingTargets& targets) {
  const ScopedCpuGemmPrecision scope(precision_);
  PretrainingForward(model(), host_params(), batch, targets, DropoutSettings{},
                     buffers_.get());
  EvaluationLogits logits;
  logits.prediction_logits = buffers_->heads.prediction_logits();
  if (targets.next_sentence_labels != nullptr) {
    logits.next_sentence_logits = buffers_->heads.next_sentence_logits();
  }
  return logits;
}

namespace {

using Registry = DeviceRegistry<PretrainingBackendFactory>;

}  // namespace

absl::Status CheckCpuPrecisionAvailable(Precision precision) {
  if (precision == Precision::kBfloat16Mixed && !OneDnnBf16MatmulAvailable()) {
    return absl::FailedPreconditionError(
        "bf16 on the cpu device needs oneDNN's bf16 matmul, which this CPU "
        "does not have (oneDNN 2.6 needs AVX-512); use fp32");
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<PretrainingBackend>> MakeCpuPretrainingBackend(
    const BertForPretraining& model, const AdamWOptions& optimizer_options,
    Precision precision) {
  RETURN_IF_ERROR(CheckCpuPrecisionAvailable(precision));
  return std::make_unique<CpuPretrainingBackend>(model, optimizer_options,
                                                 precision);
}

bool RegisterPretrainingBackend(const std::string& device,
                                PretrainingBackendFactory factory) {
  return Registry::Get().Register(device, std::move(factory));
}

std::vector<std::string> PretrainingDevices() {
  return Registry::Get().Devices();
}

absl::StatusOr<std::unique_ptr<PretrainingBackend>> MakePretrainingBackend(
    const std::string& device, Precision precision,
    const BertForPretraining& model, const AdamWOptions& optimizer_options) {
  if (device == "cpu") {
    return MakeCpuPretrainingBackend(model, optimizer_options, precision);
  }
  ASSIGN_OR_RETURN(const PretrainingBackendFactory factory,
                   Registry::Get().Find(device));
  return factory(model, optimizer_options, precision);
}

}  // namespace bertlab
