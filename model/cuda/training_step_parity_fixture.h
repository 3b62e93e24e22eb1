// Shared setup of the GPU training-step parity tests (pretraining_step_
// parity_test.cc, FP32, and pretraining_step_bf16_parity_test.cc, BF16 mixed
// precision): the encoder fixture's tiny config with a vocabulary of 53 for
// the masked-LM softmax, the masked-LM / left-to-right targets and the span
// answers of the padded 3 x 7 batch, and small device helpers. Test-only.
#ifndef BERTLAB_MODEL_CUDA_TRAINING_STEP_PARITY_FIXTURE_H_
#define BERTLAB_MODEL_CUDA_TRAINING_STEP_PARITY_FIXTURE_H_

#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "model/bert/config.h"
#include "model/bert/encoder.h"
#include "model/cuda/context.h"
#include "model/cuda/cuda_check.h"
#include "model/cuda/encoder_parity_fixture.h"
#include "model/heads/pretraining_heads.h"

namespace bertlab {
namespace step_parity {

// encoder_parity::TinyConfig with a vocabulary of 53.
BertConfig TinyConfig(AttentionMode mode,
                      const encoder_parity::WeightScale& scale);

// The batch's host pointers, [CLS] pooling.
EncoderBatch HostView(const encoder_parity::HostBatch& batch);

struct HostTargets {
  std::vector<int32_t> positions;
  std::vector<int32_t> labels;
  std::vector<int32_t> next_sentence_labels;

  PretrainingTargets View(bool next_sentence) const;
};

// Masked LM (bidirectional config): a few real positions per row with random
// labels, one label ignored and one position (row 1, t = 2) predicted twice
// with real labels (the CPU adds both rows' gradients, in order); NSP labels
// 1, 0, ignored. Left-to-right (causal config): every position, label = the
// next real token or ignored.
HostTargets MakeTargets(const BertConfig& config,
                        const encoder_parity::HostBatch& batch);

// SQuAD answers: row 1's start is past the window (ignored), row 2's end is
// ignored, row 2 starts at [CLS] (no answer).
struct SpanPositions {
  std::vector<int32_t> start = {2, 9, 0};
  std::vector<int32_t> end = {4, 3, kIgnoreLabel};
};

// DeviceBuffer's copies from the host run on the legacy default stream, which
// the context's non-blocking stream does not wait for: call after them,
// before enqueueing work that reads the buffers.
inline void WaitForHostCopies() { BERTLAB_CUDA_CHECK(cudaDeviceSynchronize()); }

template <typename T>
T ReadScalar(const T* device, const CudaContext& context) {
  T value{};
  BERTLAB_CUDA_CHECK(cudaMemcpyAsync(&value, device, sizeof(T),
                                     cudaMemcpyDeviceToHost, context.stream()));
  context.Synchronize();
  return value;
}

}  // namespace step_parity
}  // namespace bertlab

#endif  // BERTLAB_MODEL_CUDA_TRAINING_STEP_PARITY_FIXTURE_H_
