// Needs a GPU: tagged manual + requires-gpu, built only with --config=cuda
// (host_cross_entropy_parity_test runs it on the host CUDA build).
// cuda::SoftmaxCrossEntropyForward / Backward against the CPU op through the
// one comparator (parity_comparator.h), K = the classes: ignored rows,
// unweighted and weighted rows, a loss scale in the backward.
#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "model/cuda/context.h"
#include "model/cuda/device_buffer.h"
#include "model/cuda/parity_test_util.h"
#include "model/ops/cross_entropy.h"
#include "model/ops/cross_entropy_cuda.h"

namespace bertlab {
namespace {

class CrossEntropyParityTest : public ::testing::Test {
 protected:
  CudaContext context_;
};

TEST_F(CrossEntropyParityTest, WithIgnoredRows) {
  const int64_t rows = 19, classes = 1031;
  const std::vector<float> logits = RandomNormal(rows * classes, 34, 4.0f);
  std::vector<int32_t> labels = RandomIds(rows, classes, 35);
  for (int64_t row = 0; row < rows; row += 3) labels[row] = -100;
  const std::vector<float> weights = RandomNormal(rows, 36);
  for (bool weighted : {false, true}) {
    const float* cpu_weights = weighted ? weights.data() : nullptr;
    DeviceBuffer<float> logits_d("logits", logits),
        probs_d("probs", rows * classes), loss_d("loss", 1),
        weights_d("weights", weights), dlogits_d("dlogits", rows * classes);
    DeviceBuffer<double> terms_d("row_terms", rows);
    DeviceBuffer<int32_t> labels_d("labels", labels);
    const float* gpu_weights = weighted ? weights_d.data() : nullptr;
    cuda::SoftmaxCrossEntropyForward(
        loss_d.data(), probs_d.data(), terms_d.data(), logits_d.data(),
        labels_d.data(), gpu_weights, rows, classes, -100, context_);
    cuda::SoftmaxCrossEntropyBackward(dlogits_d.data(), probs_d.data(),
                                      labels_d.data(), gpu_weights, rows,
                                      classes, -100, 0.75f, context_);
    std::vector<float> probs(rows * classes), dlogits(rows * classes);
    const float loss =
        SoftmaxCrossEntropyForward(probs.data(), logits.data(), labels.data(),
                                   cpu_weights, rows, classes, -100);
    SoftmaxCrossEntropyBackward(dlogits.data(), probs.data(), labels.data(),
                                cpu_weights, rows, classes, -100, 0.75f);
    context_.Synchronize();
    ExpectParity("xent probs", probs_d.ToHost(), probs, kF32, classes);
    ExpectParity("xent loss", loss_d.ToHost(), std::vector<float>{loss}, kF32,
                 classes);
    ExpectParity("xent d_logits", dlogits_d.ToHost(), dlogits, kF32, classes);
  }
}

}  // namespace
}  // namespace bertlab
