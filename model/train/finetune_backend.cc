#include "model/train/finetune_backend.h"

#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/parallel.h"
#include "common/status_macros.h"
#include "model/bert/checkpoint.h"
#include "model/bert_for_finetuning.h"
#include "model/optim/gradient_accumulation.h"
#include "model/train/device_registry.h"
#include "model/train/step_buffer_cache.h"
#include "model/two_encoder_for_finetuning.h"

namespace bertlab {
namespace {

// The step buffers of `ModelType`'s shapes (StepBufferCache).
template <typename ModelType, typename Buffers>
StepBufferCache<Buffers> BuffersOf(const ModelType& model) {
  return StepBufferCache<Buffers>([&model](int64_t rows, int64_t seq_len) {
    return std::make_unique<Buffers>(model, rows, seq_len);
  });
}

// The encoder (+ BiLSTM) and the head: BertForFinetuning.
class SingleEncoderModel : public FinetuneModel {
 public:
  SingleEncoderModel(const BertConfig& config,
                     const FinetuneModelOptions& options)
      : model_(config, options),
        cache_(
            BuffersOf<BertForFinetuning, FinetuneStepBuffers<float>>(model_)) {}
  const ParameterLayout& layout() const override { return model_.layout(); }
  const BertConfig& config() const override { return model_.config(); }
  absl::Status LoadCheckpoints(const std::string& init_checkpoint,
                               const std::string& /*rtl_checkpoint*/,
                               float* params) const override {
    if (init_checkpoint.empty()) return absl::OkStatus();
    CheckpointLoadOptions load;
    load.allow_missing_prefixes = model_.NewParameterPrefixes();
    load.ignore_unexpected_prefixes = {"cls."};
    return LoadCheckpointDirectory(init_checkpoint, model_.layout(), load,
                                   params)
        .status();
  }
  float ForwardBackward(const float* params, float* grads,
                        const EncoderBatch& batch,
                        const FinetuneTargets& targets,
                        const DropoutSettings& dropout) override {
    return FinetuneForwardBackward(model_, params, grads, batch, targets,
                                   dropout,
                                   cache_.Get(batch.batch, batch.seq_len));
  }
  const FinetuneHeadActivations<float>& Forward(
      const float* params, const EncoderBatch& batch) override {
    FinetuneStepBuffers<float>* buffers =
        cache_.Get(batch.batch, batch.seq_len);
    FinetuneForward(model_, params, batch, FinetuneTargets{}, DropoutSettings{},
                    buffers);
    return *buffers;
  }
  void ReleaseBuffers() override { cache_.Clear(); }

 private:
  const BertForFinetuning model_;
  StepBufferCache<FinetuneStepBuffers<float>> cache_;
};

// The LTR and RTL encoders concatenated before the head:
// TwoEncoderForFinetuning. The batches' pooled positions are the LTR
// encoder's (config() is causal); the RTL encoder pools [CLS].
class TwoEncoderModel : public FinetuneModel {
 public:
  TwoEncoderModel(const BertConfig& config, const FinetuneModelOptions& options)
      : model_(config, options),
        cache_(BuffersOf<TwoEncoderForFinetuning, TwoEncoderStepBuffers<float>>(
            model_)) {}
  const ParameterLayout& layout() const override { return model_.layout(); }
  const BertConfig& config() const override { return model_.ltr_config(); }
  absl::Status LoadCheckpoints(const std::string& init_checkpoint,
                               const std::string& rtl_checkpoint,
                               float* params) const override {
    return LoadTwoEncoderCheckpoints(model_, init_checkpoint, rtl_checkpoint,
                                     params);
  }
  float ForwardBackward(const float* params, float* grads,
                        const EncoderBatch& batch,
                        const FinetuneTargets& targets,
                        const DropoutSettings& dropout) override {
    return TwoEncoderForwardBackward(model_, params, grads, batch, targets,
                                     dropout,
                                     cache_.Get(batch.batch, batch.seq_len));
  }
  const FinetuneHeadActivations<float>& Forward(
      const float* params, const EncoderBatch& batch) override {
    TwoEncoderStepBuffers<float>* buffers =
        cache_.Get(batch.batch, batch.seq_len);
    TwoEncoderForward(model_, params, batch, FinetuneTargets{},
                      DropoutSettings{}, buffers);
    return *buffers;
  }
  void ReleaseBuffers() override { cache_.Clear(); }

 private:
  const TwoEncoderForFinetuning model_;
  StepBufferCache<TwoEncoderStepBuffers<float>> cache_;
};

// The CPU path on the host copy. Each micro-batch's gradient is computed
// into a zeroed term of its own and the step's gradient is their sum in the
// tree order of common/collective.h (TreeSum), so that the same step on N
// data-parallel ranks gives the same bits.
class CpuFinetuneBackend : public FinetuneBackend {
 public:
  using FinetuneBackend::FinetuneBackend;

  std::string Describe() const override {
    return absl::StrCat("cpu, ", NumThreads(), " threads");
  }
  void BeginTraining() override {
    optimizer_ =
        std::make_unique<AdamW<float>>(model().layout(), optimizer_options());
    micro_batch_sum_ = std::make_unique<TreeSum<float>>(
        static_cast<int64_t>(host_params().size()));
    grads_.clear();
  }
  float ForwardBackward(const EncoderBatch& batch,
                        const FinetuneTargets& targets,
                        const DropoutSettings& dropout) override {
    float* term = micro_batch_sum_->NextTerm();
    const float loss = mutable_model()->ForwardBackward(
        host_params().data(), term, batch, targets, dropout);
    micro_batch_sum_->Push();
    return loss;
  }
  void SkipMicroBatch() override {
    micro_batch_sum_->NextTerm();
    micro_batch_sum_->Push();
  }
  absl::Status SumGradientsAcrossRanks(Collective* collective) override {
    micro_batch_sum_->Finish(&grads_);
    return collective->SumInTreeOrder(grads_.data(),
                                      static_cast<int64_t>(grads_.size()));
  }
  ClipResult FinishGradients(int64_t non_empty_micro_batches,
                             double clip_norm) override {
    return AverageAndClipGradients(non_empty_micro_batches, clip_norm,
                                   static_cast<int64_t>(grads_.size()),
                                   grads_.data());
  }
  void Update(double learning_rate) override {
    optimizer_->Step(learning_rate, grads_.data(), host_params().data());
  }
  void EndTraining() override {
    optimizer_.reset();
    micro_batch_sum_.reset();
    grads_ = std::vector<float>();
    ReleaseBuffers();
  }
  FinetuneOutputs Forward(const EncoderBatch& batch) override {
    const FinetuneHeadActivations<float>& head =
        mutable_model()->Forward(host_params().data(), batch);
    FinetuneOutputs outputs;
    if (head.classifier != nullptr) outputs.logits = head.classifier->logits();
    if (head.multiple_choice != nullptr) {
      outputs.logits = head.multiple_choice->scores();
    }
    if (head.span != nullptr) {
      outputs.start_logits = head.span->start_logits();
      outputs.end_logits = head.span->end_logits();
    }
    return outputs;
  }
  void ReleaseBuffers() override { mutable_model()->ReleaseBuffers(); }

 private:
  std::unique_ptr<AdamW<float>> optimizer_;
  std::unique_ptr<TreeSum<float>> micro_batch_sum_;
  std::vector<float> grads_;
};

}  // namespace

std::unique_ptr<FinetuneModel> MakeFinetuneModel(
    const BertConfig& config, const FinetuneModelOptions& options,
    bool two_encoders) {
  if (two_encoders) return std::make_unique<TwoEncoderModel>(config, options);
  return std::make_unique<SingleEncoderModel>(config, options);
}

FinetuneBackend::FinetuneBackend(std::unique_ptr<FinetuneModel> model,
                                 const AdamWOptions& optimizer_options)
    : model_(std::move(model)),
      optimizer_options_(optimizer_options),
      host_params_(model_->layout().total_size()) {}

std::unique_ptr<FinetuneBackend> MakeCpuFinetuneBackend(
    std::unique_ptr<FinetuneModel> model,
    const AdamWOptions& optimizer_options) {
  return std::make_unique<CpuFinetuneBackend>(std::move(model),
                                              optimizer_options);
}

namespace {

using Registry = DeviceRegistry<FinetuneBackendFactory>;

}  // namespace

bool RegisterFinetuneBackend(const std::string& device,
                             FinetuneBackendFactory factory) {
  return Registry::Get().Register(device, std::move(factory));
}

std::vector<std::string> FinetuneDevices() { return Registry::Get().Devices(); }

absl::StatusOr<std::unique_ptr<FinetuneBackend>> MakeFinetuneBackend(
    const std::string& device, Precision precision, const BertConfig& config,
    const FinetuneModelOptions& options, bool two_encoders,
    const AdamWOptions& optimizer_options) {
  if (device == "cpu") {
    return MakeCpuFinetuneBackend(
        MakeFinetuneModel(config, options, two_encoders), optimizer_options);
  }
  ASSIGN_OR_RETURN(const FinetuneBackendFactory factory,
                   Registry::Get().Find(device));
  return factory(config, options, two_encoders, optimizer_options, precision);
}

}  // namespace bertlab
