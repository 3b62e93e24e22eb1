#include "model/train/device_batch.h"

#include <cuda_runtime.h>

#include "absl/strings/str_cat.h"
#include "common/check.h"
#include "model/cuda/cuda_check.h"
#include "model/train/batch_validation.h"

namespace bertlab {
namespace cuda {
namespace {

// count elements of host into the front of device, on the step's stream.
template <typename Element>
void CopyToDevice(DeviceBuffer<Element>* device, const Element* host,
                  int64_t count, const CudaContext& context) {
  CHECK_LE(count, device->size()) << device->name();
  if (count == 0) return;
  BERTLAB_CUDA_CHECK(cudaMemcpyAsync(device->data(), host,
                                     sizeof(Element) * count,
                                     cudaMemcpyHostToDevice, context.stream()));
}

}  // namespace

DeviceEncoderBatch::DeviceEncoderBatch(int64_t batch, int64_t seq_len)
    : input_ids_("batch.input_ids", batch * seq_len),
      token_type_ids_("batch.token_type_ids", batch * seq_len),
      attention_mask_("batch.attention_mask", batch * seq_len),
      pooled_positions_("batch.pooled_positions", batch) {
  CHECK_GT(batch, 0);
  CHECK_GT(seq_len, 0);
  view_.batch = batch;
  view_.seq_len = seq_len;
}

absl::Status DeviceEncoderBatch::Upload(const BertConfig& config,
                                        const EncoderBatch& host,
                                        const CudaContext& context) {
  if (host.batch != view_.batch || host.seq_len != view_.seq_len) {
    return absl::InvalidArgumentError(
        absl::StrCat("batch shape (", host.batch, ", ", host.seq_len,
                     ") differs from the device buffers' (", view_.batch, ", ",
                     view_.seq_len, ")"));
  }
  const absl::Status valid = ValidateEncoderBatch(config, host);
  if (!valid.ok()) return valid;
  const int64_t tokens = host.batch * host.seq_len;
  CopyToDevice(&input_ids_, host.input_ids, tokens, context);
  CopyToDevice(&token_type_ids_, host.token_type_ids, tokens, context);
  view_.input_ids = input_ids_.data();
  view_.token_type_ids = token_type_ids_.data();
  view_.attention_mask = nullptr;
  if (host.attention_mask != nullptr) {
    CopyToDevice(&attention_mask_, host.attention_mask, tokens, context);
    view_.attention_mask = attention_mask_.data();
  }
  view_.pooled_positions = nullptr;
  if (host.pooled_positions != nullptr) {
    CopyToDevice(&pooled_positions_, host.pooled_positions, host.batch,
                 context);
    view_.pooled_positions = pooled_positions_.data();
  }
  return absl::OkStatus();
}

DevicePretrainingBatch::DevicePretrainingBatch(int64_t batch, int64_t seq_len,
                                               int64_t max_predictions)
    : max_predictions_(max_predictions),
      encoder_(batch, seq_len),
      positions_("batch.masked_lm_positions", max_predictions),
      labels_("batch.masked_lm_labels", max_predictions),
      next_sentence_labels_("batch.next_sentence_labels", batch) {}

absl::Status DevicePretrainingBatch::Upload(
    const BertConfig& config, bool next_sentence_head,
    const EncoderBatch& host_batch, const PretrainingTargets& host_targets,
    const CudaContext& context) {
  // Targets first: the encoder's Upload copies once its own checks pass.
  const absl::Status valid = ValidatePretrainingTargets(
      config, next_sentence_head, host_targets, host_batch.batch,
      host_batch.seq_len, max_predictions_);
  if (!valid.ok()) return valid;
  const absl::Status uploaded = encoder_.Upload(config, host_batch, context);
  if (!uploaded.ok()) return uploaded;
  const int64_t m = host_targets.num_predictions;
  CopyToDevice(&positions_, host_targets.positions, m, context);
  CopyToDevice(&labels_, host_targets.labels, m, context);
  targets_.positions = positions_.data();
  targets_.labels = labels_.data();
  targets_.num_predictions = m;
  targets_.next_sentence_labels = nullptr;
  if (host_targets.next_sentence_labels != nullptr) {
    CopyToDevice(&next_sentence_labels_, host_targets.next_sentence_labels,
                 host_batch.batch, context);
    targets_.next_sentence_labels = next_sentence_labels_.data();
  }
  return absl::OkStatus();
}

DeviceFinetuneBatch::DeviceFinetuneBatch(const FinetuneModelOptions& head,
                                         int64_t rows, int64_t seq_len)
    : head_(head),
      encoder_(rows, seq_len),
      labels_("batch.labels", rows),
      scores_("batch.scores", rows),
      start_positions_("batch.start_positions", rows),
      end_positions_("batch.end_positions", rows) {}

absl::Status DeviceFinetuneBatch::Upload(const BertConfig& config,
                                         const EncoderBatch& host_batch,
                                         const FinetuneTargets& host_targets,
                                         const CudaContext& context) {
  // Targets first: the encoder's Upload copies once its own checks pass.
  const absl::Status valid =
      ValidateFinetuneTargets(head_, host_targets, host_batch.batch);
  if (!valid.ok()) return valid;
  const absl::Status uploaded = encoder_.Upload(config, host_batch, context);
  if (!uploaded.ok()) return uploaded;
  const int64_t rows = host_batch.batch;
  targets_ = FinetuneTargets{};
  switch (head_.head) {
    case FinetuneHead::kSpan:
      if (host_targets.start_positions == nullptr) break;
      CopyToDevice(&start_positions_, host_targets.start_positions, rows,
                   context);
      CopyToDevice(&end_positions_, host_targets.end_positions, rows, context);
      targets_.start_positions = start_positions_.data();
      targets_.end_positions = end_positions_.data();
      break;
    case FinetuneHead::kMultipleChoice:
    case FinetuneHead::kClassifier:
      if (head_.head == FinetuneHead::kClassifier && head_.num_labels == 1) {
        if (host_targets.scores == nullptr) break;
        CopyToDevice(&scores_, host_targets.scores, rows, context);
        targets_.scores = scores_.data();
        break;
      }
      if (host_targets.labels == nullptr) break;
      CopyToDevice(&labels_, host_targets.labels,
                   head_.head == FinetuneHead::kMultipleChoice
                       ? rows / head_.num_choices
                       : rows,
                   context);
      targets_.labels = labels_.data();
      break;
  }
  return absl::OkStatus();
}

}  // namespace cuda
}  // namespace bertlab
