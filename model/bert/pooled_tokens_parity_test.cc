// Needs a GPU: tagged manual + requires-gpu, built only with --config=cuda
// (host_pooled_tokens_parity_test runs it on the host CUDA build).
// The pooler's bf16 cuda::GatherPooledTokens / AddToPooledTokens against the
// same copies and additions on the host, bit for bit (one float addition,
// then one rounding), at t = 0 and at explicit positions.
#include <cstdint>
#include <string>
#include <vector>

#include "common/half.h"
#include "gtest/gtest.h"
#include "model/bert/pooled_tokens_cuda.h"
#include "model/cuda/bf16.h"
#include "model/cuda/bf16_test_util.h"
#include "model/cuda/context.h"
#include "model/cuda/device_buffer.h"
#include "model/cuda/parity_test_util.h"

namespace bertlab {
namespace {

class PooledTokensParityTest : public ::testing::Test {
 protected:
  CudaContext context_;
};

TEST_F(PooledTokensParityTest, Bf16GatherAndAddAreBitIdentical) {
  const int64_t batch = 3, seq_len = 7, hidden = 37;
  const std::vector<float> sequence = RoundToBf16(
                               RandomNormal(batch * seq_len * hidden, 42)),
                           rows = RoundToBf16(RandomNormal(batch * hidden, 43));
  const std::vector<int32_t> positions = {6, 0, 3};
  for (bool explicit_positions : {false, true}) {
    DeviceBuffer<Bf16> sequence_d = DeviceBf16("sequence", sequence),
                       rows_d = DeviceBf16("rows", rows),
                       gathered_d("gathered", batch * hidden);
    DeviceBuffer<int32_t> positions_d("positions", positions);
    const int32_t* positions_ptr =
        explicit_positions ? positions_d.data() : nullptr;
    cuda::GatherPooledTokens(AsDevice(gathered_d.data()),
                             AsDevice(sequence_d.data()), positions_ptr, batch,
                             seq_len, hidden, context_);
    cuda::AddToPooledTokens(AsDevice(sequence_d.data()),
                            AsDevice(rows_d.data()), positions_ptr, batch,
                            seq_len, hidden, context_);
    std::vector<float> gathered(batch * hidden), added = sequence;
    for (int64_t b = 0; b < batch; ++b) {
      const int64_t t = explicit_positions ? positions[b] : 0;
      for (int64_t h = 0; h < hidden; ++h) {
        const int64_t i = (b * seq_len + t) * hidden + h;
        gathered[b * hidden + h] = sequence[i];
        added[i] = Bf16ToFloat(FloatToBf16(sequence[i] + rows[b * hidden + h]));
      }
    }
    context_.Synchronize();
    const std::string tag = explicit_positions ? " positions" : " cls";
    ExpectBitIdentical("pooled gather bf16" + tag, HostFloats(gathered_d),
                       gathered);
    ExpectBitIdentical("pooled add bf16" + tag, HostFloats(sequence_d), added);
  }
}

}  // namespace
}  // namespace bertlab
