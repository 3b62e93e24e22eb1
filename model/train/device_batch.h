// Device copies of a training batch's integer inputs and targets, allocated
// once for a step shape and refilled from host arrays each step: the encoder
// inputs (ids, token types, mask, pooled positions) and the pre-training or
// fine-tuning targets. Upload validates the host batch first
// (batch_validation.h; the device does not range-check ids) and copies nothing
// when it is bad, so the previous batch stays intact.
//
// The copies are cudaMemcpyAsync on context.stream(), ordered with the steps:
// an upload never overwrites inputs that a step still running on that stream
// reads (DeviceBuffer::CopyFromHost uses the legacy default stream, which a
// non-blocking CudaContext stream does not wait for). From pageable host
// memory the call returns once the data is staged, so the host arrays may be
// reused at once.
//
// UNVERIFIED ON A GPU: compiled only; pretraining_step_parity_test uploads its
// batches through these classes when run on a GPU machine. The validation
// itself is CPU-tested (batch_validation_test).
#ifndef BERTLAB_MODEL_TRAIN_DEVICE_BATCH_H_
#define BERTLAB_MODEL_TRAIN_DEVICE_BATCH_H_

#include <cstdint>

#include "absl/status/status.h"
#include "model/bert/config.h"
#include "model/bert/encoder.h"
#include "model/cuda/context.h"
#include "model/cuda/device_buffer.h"
#include "model/finetune_heads.h"
#include "model/heads/pretraining_heads.h"

namespace bertlab {
namespace cuda {

// The encoder's inputs for batches of exactly (batch, seq_len).
class DeviceEncoderBatch {
 public:
  DeviceEncoderBatch(int64_t batch, int64_t seq_len);

  absl::Status Upload(const BertConfig& config, const EncoderBatch& host,
                      const CudaContext& context);
  // Device pointers of the last upload; attention_mask / pooled_positions are
  // null where the host's were.
  const EncoderBatch& view() const { return view_; }

 private:
  DeviceBuffer<int32_t> input_ids_;         // (B, T)
  DeviceBuffer<int32_t> token_type_ids_;    // (B, T)
  DeviceBuffer<int32_t> attention_mask_;    // (B, T)
  DeviceBuffer<int32_t> pooled_positions_;  // (B)
  EncoderBatch view_;
};

// A pre-training batch: encoder inputs plus up to max_predictions masked-LM
// (or left-to-right) targets and the next-sentence labels.
class DevicePretrainingBatch {
 public:
  DevicePretrainingBatch(int64_t batch, int64_t seq_len,
                         int64_t max_predictions);

  // next_sentence_head: whether the model has the NSP head.
  absl::Status Upload(const BertConfig& config, bool next_sentence_head,
                      const EncoderBatch& host_batch,
                      const PretrainingTargets& host_targets,
                      const CudaContext& context);
  const EncoderBatch& encoder_batch() const { return encoder_.view(); }
  const PretrainingTargets& targets() const { return targets_; }

 private:
  int64_t max_predictions_;
  DeviceEncoderBatch encoder_;
  DeviceBuffer<int32_t> positions_;             // (M)
  DeviceBuffer<int32_t> labels_;                // (M)
  DeviceBuffer<int32_t> next_sentence_labels_;  // (B)
  PretrainingTargets targets_;
};

// A fine-tuning batch of exactly (rows, seq_len): encoder inputs plus the
// targets of the model's head (classifier labels or regression scores, one
// label per example of multiple choice, span start / end positions).
class DeviceFinetuneBatch {
 public:
  DeviceFinetuneBatch(const FinetuneModelOptions& head, int64_t rows,
                      int64_t seq_len);

  // host_targets: the head's arrays, or none (prediction).
  absl::Status Upload(const BertConfig& config, const EncoderBatch& host_batch,
                      const FinetuneTargets& host_targets,
                      const CudaContext& context);
  const EncoderBatch& encoder_batch() const { return encoder_.view(); }
  // Device pointers of the last upload; null where the host's were.
  const FinetuneTargets& targets() const { return targets_; }

 private:
  FinetuneModelOptions head_;
  DeviceEncoderBatch encoder_;
  DeviceBuffer<int32_t> labels_;           // (rows)
  DeviceBuffer<float> scores_;             // (rows)
  DeviceBuffer<int32_t> start_positions_;  // (rows)
  DeviceBuffer<int32_t> end_positions_;    // (rows)
  FinetuneTargets targets_;
};

}  // namespace cuda
}  // namespace bertlab

#endif  // BERTLAB_MODEL_TRAIN_DEVICE_BATCH_H_
