// Runs the embedding kernels' own code (embedding_kernels.cuh, the source
// nvcc compiles for embedding_cuda.cu) on the CPU under the host SIMT
// emulator, CUB's block radix sort and scan emulated by their contract
// (model/cuda/testing/simt_cub.h), launched as the .cu launches them, against
// the CPU op (embedding.h) in float, f32 and bf16 storage. embedding_cuda.h
// promises bits: the forward adds word + token type + position in the CPU's
// order (bf16: the float sum rounded once), and the backward accumulates every
// gradient row in increasing row order into the float tables, as the CPU
// does, so every comparison is bitwise.
//
// Cases: 2100 rows (1024-row chunks: two full, one partial) over hidden 20
// (the last 8-column slice partial) with 37 word ids, so ids repeat within
// and across chunks; one id and one token type (a 1-bit sort key); a
// BERT-sized vocabulary (15-bit keys) with few repeats. The gradient tables
// start non-zero (the backward accumulates). Every emulator schedule gives
// the same bits.
#include <cstdint>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "model/cuda/parity_test_util.h"
#include "model/cuda/testing/emulated_test_util.h"
#include "model/cuda/testing/simt_emulator.h"
#include "model/ops/embedding.h"
#include "model/ops/embedding_kernels.cuh"

namespace bertlab {
namespace {

struct Case {
  std::string name;
  int64_t batch, seq_len, hidden, vocab_size, max_positions, type_vocab_size;
};

// A case's inputs as floats (storage-rounded where a kernel reads T).
struct Inputs {
  std::vector<int32_t> ids, type_ids;
  std::vector<float> word, position, token_type, d_out;
  std::vector<float> d_word, d_position, d_token_type;  // starting values
};

struct Outputs {
  std::vector<float> out, d_word, d_position, d_token_type;
};

template <typename T>
Inputs MakeInputs(const Case& c, uint32_t seed) {
  const int64_t rows = c.batch * c.seq_len;
  Inputs in;
  in.ids = RandomIds(rows, static_cast<int32_t>(c.vocab_size), seed);
  in.type_ids =
      RandomIds(rows, static_cast<int32_t>(c.type_vocab_size), seed + 1);
  in.word =
      emulated::Rounded<T>(RandomNormal(c.vocab_size * c.hidden, seed + 2));
  in.position =
      emulated::Rounded<T>(RandomNormal(c.max_positions * c.hidden, seed + 3));
  in.token_type = emulated::Rounded<T>(
      RandomNormal(c.type_vocab_size * c.hidden, seed + 4));
  in.d_out = emulated::Rounded<T>(RandomNormal(rows * c.hidden, seed + 5));
  in.d_word = RandomNormal(c.vocab_size * c.hidden, seed + 6);
  in.d_position = RandomNormal(c.max_positions * c.hidden, seed + 7);
  in.d_token_type = RandomNormal(c.type_vocab_size * c.hidden, seed + 8);
  return in;
}

// embedding_cuda.cu's EmbeddingForward and EmbeddingBackward, emulated.
template <typename T>
Outputs RunKernels(simt::Schedule schedule, const Case& c, const Inputs& in) {
  const int64_t rows = c.batch * c.seq_len;
  const std::vector<T> word = emulated::ToStorage<T>(in.word),
                       position = emulated::ToStorage<T>(in.position),
                       token_type = emulated::ToStorage<T>(in.token_type),
                       d_out = emulated::ToStorage<T>(in.d_out);
  std::vector<T> out = emulated::NaNs<T>(rows * c.hidden);
  Outputs result{{}, in.d_word, in.d_position, in.d_token_type};
  const simt::LaunchOptions options = emulated::Order(schedule);
  const int64_t total = rows * c.hidden;
  simt::Launch(options, dim3(cuda_kernels::GridFor(total)),
               dim3(cuda_kernels::kThreads), 0,
               &cuda::EmbeddingForwardKernel<T>, out.data(), in.ids.data(),
               in.type_ids.data(), word.data(), position.data(),
               token_type.data(), rows, c.seq_len, c.hidden);
  const cuda::TableGradient word_gradient{result.d_word.data(), in.ids.data(),
                                          static_cast<uint32_t>(c.vocab_size),
                                          cuda::KeyBits(c.vocab_size)};
  const cuda::TableGradient type_gradient{
      result.d_token_type.data(), in.type_ids.data(),
      static_cast<uint32_t>(c.type_vocab_size),
      cuda::KeyBits(c.type_vocab_size)};
  simt::Launch(options, cuda::TableGradientGrid(c.hidden),
               dim3(cuda::kTableThreads), 0, &cuda::TableGradientKernel<T>,
               word_gradient, type_gradient, d_out.data(), rows, c.hidden);
  simt::Launch(options, dim3(cuda_kernels::GridFor(c.seq_len * c.hidden)),
               dim3(cuda_kernels::kThreads), 0,
               &cuda::PositionGradientKernel<T>, result.d_position.data(),
               d_out.data(), c.batch, c.seq_len, c.hidden);
  result.out = emulated::ToFloats(out);
  return result;
}

template <typename T>
void CheckCase(const Case& c, uint32_t seed) {
  SCOPED_TRACE(c.name + (std::is_same_v<T, float> ? " f32" : " bf16"));
  const Inputs in = MakeInputs<T>(c, seed);
  const int64_t rows = c.batch * c.seq_len;

  // The CPU op in float on the values the kernels read.
  std::vector<float> out(static_cast<size_t>(rows * c.hidden));
  EmbeddingForward(out.data(), in.ids.data(), in.type_ids.data(),
                   in.word.data(), in.position.data(), in.token_type.data(),
                   c.batch, c.seq_len, c.hidden, c.vocab_size, c.max_positions,
                   c.type_vocab_size);
  Outputs expected{emulated::Rounded<T>(out), in.d_word, in.d_position,
                   in.d_token_type};
  EmbeddingBackward(expected.d_word.data(), expected.d_position.data(),
                    expected.d_token_type.data(), in.d_out.data(),
                    in.ids.data(), in.type_ids.data(), c.batch, c.seq_len,
                    c.hidden, c.vocab_size, c.max_positions, c.type_vocab_size);

  const Outputs kernel = RunKernels<T>(simt::Schedule::kForward, c, in);
  ExpectBitIdentical("out", kernel.out, expected.out);
  ExpectBitIdentical("d_word", kernel.d_word, expected.d_word);
  ExpectBitIdentical("d_position", kernel.d_position, expected.d_position);
  ExpectBitIdentical("d_token_type", kernel.d_token_type,
                     expected.d_token_type);
  for (simt::Schedule schedule : emulated::kOtherSchedules) {
    const Outputs other = RunKernels<T>(schedule, c, in);
    ExpectBitIdentical("out", other.out, kernel.out);
    ExpectBitIdentical("d_word", other.d_word, kernel.d_word);
    ExpectBitIdentical("d_position", other.d_position, kernel.d_position);
    ExpectBitIdentical("d_token_type", other.d_token_type, kernel.d_token_type);
  }
}

const Case kCases[] = {
    {"three chunks, repeated ids", 3, 700, 20, 37, 712, 2},
    {"one id, one type", 1, 5, 8, 1, 5, 1},
    {"BERT vocabulary", 1, 1100, 9, 30522, 1100, 2},
};

TEST(EmbeddingEmulatedTest, Float32IsBitIdenticalToTheCpuOp) {
  uint32_t seed = 10;
  for (const Case& c : kCases) CheckCase<float>(c, seed += 10);
}

TEST(EmbeddingEmulatedTest, BFloat16IsBitIdenticalToTheCpuOp) {
  uint32_t seed = 100;
  for (const Case& c : kCases) CheckCase<__nv_bfloat16>(c, seed += 10);
}

}  // namespace
}  // namespace bertlab
