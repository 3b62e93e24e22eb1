// Needs a GPU: tagged manual + requires-gpu, built only with --config=cuda.
// cuda::FlashAttentionForward / FlashAttentionBackward (float and bf16
// storage) against the CPU op (model/ops/attention.h) through the one
// comparator (parity_comparator.h), at odd shapes covering both head_dim
// variants of the kernels (<= 64, <= 128), head_dim not a multiple of 4
// (element-wise loads) and sequences of one to three 64-row tiles: padding,
// causal, causal + padding with rows that have no unmasked key and an
// all-padding sequence, dropout off and on. Also: two runs give bit-identical
// outputs and gradients, every output element is written, and an unsupported
// head_dim fails loudly.
//
// The reference is the CPU op in DOUBLE on the GPU's (float or bf16-rounded)
// inputs, not the float CPU op: in a row whose every key is masked the float
// op adds -10000 to every score and so rounds them to ulp(10000) = 2^-10,
// an error (~5e-4 relative in the probabilities) far above float's bound that
// the kernels avoid (flash_attention_tile.h). K per quantity as in
// model/ops/flash_attention_tile_test.cc: logsumexp head_dim + seq_len, out
// head_dim + 2 seq_len, d_qkv 3 (head_dim + seq_len). bf16 runs use bf16's eps
// for out and d_qkv (bf16 outputs; the backward reads the bf16-rounded out)
// and float's for logsumexp (float output from exact bf16 inputs in float
// math).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "common/half.h"
#include "common/philox.h"
#include "gtest/gtest.h"
#include "model/cuda/bf16.h"
#include "model/cuda/context.h"
#include "model/cuda/cuda_check.h"
#include "model/cuda/device_buffer.h"
#include "model/cuda/parity_comparator.h"
#include "model/ops/attention.h"
#include "model/ops/flash_attention_cuda.h"

namespace bertlab {
namespace {

struct Shape {
  int64_t batch, seq_len, heads, head_dim;

  int64_t Hidden() const { return heads * head_dim; }
  int64_t QkvSize() const { return batch * seq_len * 3 * Hidden(); }
  int64_t OutSize() const { return batch * seq_len * Hidden(); }
  int64_t RowCount() const { return batch * heads * seq_len; }
};

struct Case {
  std::string name;
  Shape shape;
  std::vector<int32_t> mask;  // empty: attention_mask nullptr
  AttentionOptions options;

  const int32_t* MaskData() const {
    return mask.empty() ? nullptr : mask.data();
  }
};

std::vector<float> Random(int64_t n, uint32_t seed, float scale) {
  std::mt19937 engine(seed);
  std::uniform_real_distribution<float> uniform(-scale, scale);
  std::vector<float> values(static_cast<size_t>(n));
  for (float& value : values) value = uniform(engine);
  return values;
}

std::vector<Bf16> ToBf16(const std::vector<float>& values) {
  std::vector<Bf16> out(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    out[i].bits = FloatToBf16(values[i]);
  }
  return out;
}

std::vector<float> FromBf16(const std::vector<Bf16>& values) {
  std::vector<float> out(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    out[i] = Bf16ToFloat(values[i].bits);
  }
  return out;
}

// Sequence 0 unpadded; sequence 1 padded at keys < 5 (so causal rows 0..4
// have no unmasked key) and keys >= seq_len - 7; the rest all padding.
std::vector<int32_t> PaddingMask(const Shape& shape) {
  std::vector<int32_t> mask(static_cast<size_t>(shape.batch * shape.seq_len),
                            1);
  for (int64_t b = 1; b < shape.batch; ++b) {
    for (int64_t j = 0; j < shape.seq_len; ++j) {
      const bool padded = b > 1 || j < 5 || j >= shape.seq_len - 7;
      if (padded) mask[b * shape.seq_len + j] = 0;
    }
  }
  return mask;
}

std::vector<Case> Cases() {
  const Shape shapes[] = {
      {3, 37, 2, 20},   // one tile; head_dim <= 64
      {2, 7, 3, 12},    // short
      {3, 19, 3, 7},    // head_dim not a multiple of 4: element-wise loads
      {3, 131, 2, 64},  // three query / key tiles, the last one partial
      {3, 77, 2, 100},  // head_dim <= 128, a partial column group
      {2, 70, 1, 128},  // the largest head_dim
  };
  std::vector<Case> cases;
  for (const Shape& shape : shapes) {
    for (bool padding : {false, true}) {
      for (bool causal : {false, true}) {
        for (float rate : {0.0f, 0.2f}) {
          Case c;
          c.shape = shape;
          c.name = "(" + std::to_string(shape.batch) + ", " +
                   std::to_string(shape.seq_len) + ", " +
                   std::to_string(shape.heads) + ", " +
                   std::to_string(shape.head_dim) + ")" +
                   (padding ? " padding" : "") + (causal ? " causal" : "") +
                   (rate > 0.0f ? " dropout" : "");
          if (padding) c.mask = PaddingMask(shape);
          c.options.causal = causal;
          c.options.dropout_rate = rate;
          c.options.dropout_stream =
              PhiloxStream{/*seed=*/77, /*step=*/3, /*tensor_id=*/5};
          cases.push_back(std::move(c));
        }
      }
    }
  }
  return cases;
}

struct Reference {
  std::vector<double> out, logsumexp, d_qkv;
};

// log sum_j exp(score_j) per row in double from attention.h's masked scores;
// for a row with no unmasked key, of the unshifted scores (the kernels'
// convention).
std::vector<double> ReferenceLogSumExp(const Case& c,
                                       const std::vector<double>& qkv) {
  const Shape& s = c.shape;
  const int64_t t = s.seq_len, width = 3 * s.Hidden();
  std::vector<double> lse;
  for (int64_t b = 0; b < s.batch; ++b) {
    for (int64_t a = 0; a < s.heads; ++a) {
      for (int64_t i = 0; i < t; ++i) {
        std::vector<double> scores(static_cast<size_t>(t));
        std::vector<bool> masked(static_cast<size_t>(t));
        bool any_unmasked = false;
        for (int64_t j = 0; j < t; ++j) {
          double dot = 0.0;
          for (int64_t x = 0; x < s.head_dim; ++x) {
            dot += qkv[(b * t + i) * width + a * s.head_dim + x] *
                   qkv[(b * t + j) * width + s.Hidden() + a * s.head_dim + x];
          }
          scores[j] = dot / std::sqrt(static_cast<double>(s.head_dim));
          masked[j] = (!c.mask.empty() && c.mask[b * t + j] == 0) ||
                      (c.options.causal && j > i);
          any_unmasked |= !masked[j];
        }
        double max = -INFINITY;
        for (int64_t j = 0; j < t; ++j) {
          if (masked[j] && any_unmasked) scores[j] += c.options.mask_value;
          max = std::max(max, scores[j]);
        }
        double sum = 0.0;
        for (double score : scores) sum += std::exp(score - max);
        lse.push_back(max + std::log(sum));
      }
    }
  }
  return lse;
}

Reference ComputeReference(const Case& c, const std::vector<float>& qkv_float,
                           const std::vector<float>& d_out_float) {
  const Shape& s = c.shape;
  const std::vector<double> qkv(qkv_float.begin(), qkv_float.end());
  const std::vector<double> d_out(d_out_float.begin(), d_out_float.end());
  Reference reference;
  reference.out.resize(static_cast<size_t>(s.OutSize()));
  std::vector<double> probs(static_cast<size_t>(s.RowCount() * s.seq_len));
  AttentionForward<double>(reference.out.data(), probs.data(), qkv.data(),
                           c.MaskData(), s.batch, s.seq_len, s.heads,
                           s.head_dim, c.options);
  reference.d_qkv.resize(static_cast<size_t>(s.QkvSize()));
  AttentionBackward<double>(reference.d_qkv.data(), d_out.data(), qkv.data(),
                            probs.data(), c.MaskData(), s.batch, s.seq_len,
                            s.heads, s.head_dim, c.options);
  reference.logsumexp = ReferenceLogSumExp(c, qkv);
  return reference;
}

template <typename T>
void ExpectParity(const std::string& name, const std::vector<T>& gpu,
                  const std::vector<double>& cpu, ParityDtype dtype,
                  int64_t reduction_length) {
  const ParityReport report =
      CompareParity(name, gpu, cpu, dtype, reduction_length);
  EXPECT_TRUE(report.ok) << report.message;
}

template <typename T>
bool BitIdentical(const std::vector<T>& x, const std::vector<T>& y) {
  return x.size() == y.size() &&
         std::memcmp(x.data(), y.data(), x.size() * sizeof(T)) == 0;
}

// Device copies of one case's tensors in storage type Storage (float or Bf16)
// and a forward + backward on them. Outputs start as all-ones bytes (NaN in
// float and bf16), so an element the kernels skip fails the comparison.
template <typename Storage>
struct GpuRun {
  DeviceBuffer<Storage> qkv, d_out, out, d_qkv;
  DeviceBuffer<float> logsumexp, workspace;
  DeviceBuffer<int32_t> mask;

  GpuRun(const Case& c, const std::vector<Storage>& qkv_host,
         const std::vector<Storage>& d_out_host)
      : qkv("qkv", qkv_host),
        d_out("d_out", d_out_host),
        out("out", c.shape.OutSize()),
        d_qkv("d_qkv", c.shape.QkvSize()),
        logsumexp("logsumexp", c.shape.RowCount()),
        workspace("workspace", cuda::FlashAttentionBackwardWorkspaceElements(
                                   c.shape.batch, c.shape.seq_len,
                                   c.shape.heads, c.shape.head_dim)),
        mask("mask", c.mask) {}

  void Run(const Case& c, const CudaContext& context) {
    const Shape& s = c.shape;
    const int32_t* mask_data = c.mask.empty() ? nullptr : mask.data();
    FillWithNaN(&out, context);
    FillWithNaN(&d_qkv, context);
    FillWithNaN(&logsumexp, context);
    cuda::FlashAttentionForward(
        Device(out.data()), logsumexp.data(), Device(qkv.data()), mask_data,
        s.batch, s.seq_len, s.heads, s.head_dim, c.options, context);
    cuda::FlashAttentionBackward(
        Device(d_qkv.data()), Device(d_out.data()), Device(qkv.data()),
        Device(out.data()), logsumexp.data(), mask_data, s.batch, s.seq_len,
        s.heads, s.head_dim, c.options, workspace.data(), context);
    context.Synchronize();
  }

  template <typename X>
  static void FillWithNaN(DeviceBuffer<X>* buffer, const CudaContext& context) {
    BERTLAB_CUDA_CHECK(cudaMemsetAsync(buffer->data(), 0xFF, buffer->bytes(),
                                       context.stream()));
  }
  static float* Device(float* pointer) { return pointer; }
  static __nv_bfloat16* Device(Bf16* pointer) { return AsDevice(pointer); }
};

class FlashAttentionParityTest : public ::testing::Test {
 protected:
  CudaContext context_;
};

TEST_F(FlashAttentionParityTest, Float32MatchesTheCpuOpAndRepeatsBitForBit) {
  uint32_t seed = 100;
  for (const Case& c : Cases()) {
    const Shape& s = c.shape;
    const std::vector<float> qkv = Random(s.QkvSize(), seed++, 2.0f);
    const std::vector<float> d_out = Random(s.OutSize(), seed++, 1.0f);
    const Reference reference = ComputeReference(c, qkv, d_out);
    GpuRun<float> run(c, qkv, d_out);
    run.Run(c, context_);
    const std::vector<float> out = run.out.ToHost();
    const std::vector<float> lse = run.logsumexp.ToHost();
    const std::vector<float> d_qkv = run.d_qkv.ToHost();
    const std::string tag = " f32 " + c.name;
    ExpectParity("out" + tag, out, reference.out, ParityDtype::kFloat32,
                 s.head_dim + 2 * s.seq_len);
    ExpectParity("logsumexp" + tag, lse, reference.logsumexp,
                 ParityDtype::kFloat32, s.head_dim + s.seq_len);
    ExpectParity("d_qkv" + tag, d_qkv, reference.d_qkv, ParityDtype::kFloat32,
                 3 * (s.head_dim + s.seq_len));
    run.Run(c, context_);
    EXPECT_TRUE(BitIdentical(run.out.ToHost(), out)) << "out" << tag;
    EXPECT_TRUE(BitIdentical(run.logsumexp.ToHost(), lse)) << "lse" << tag;
    EXPECT_TRUE(BitIdentical(run.d_qkv.ToHost(), d_qkv)) << "d_qkv" << tag;
  }
}

TEST_F(FlashAttentionParityTest, BFloat16MatchesTheCpuOpAndRepeatsBitForBit) {
  uint32_t seed = 500;
  for (const Case& c : Cases()) {
    const Shape& s = c.shape;
    const std::vector<Bf16> qkv = ToBf16(Random(s.QkvSize(), seed++, 2.0f));
    const std::vector<Bf16> d_out = ToBf16(Random(s.OutSize(), seed++, 1.0f));
    // The reference sees exactly the bf16 values the GPU reads.
    const Reference reference =
        ComputeReference(c, FromBf16(qkv), FromBf16(d_out));
    GpuRun<Bf16> run(c, qkv, d_out);
    run.Run(c, context_);
    const std::vector<Bf16> out = run.out.ToHost();
    const std::vector<float> lse = run.logsumexp.ToHost();
    const std::vector<Bf16> d_qkv = run.d_qkv.ToHost();
    const std::string tag = " bf16 " + c.name;
    ExpectParity("out" + tag, FromBf16(out), reference.out,
                 ParityDtype::kBFloat16, s.head_dim + 2 * s.seq_len);
    ExpectParity("logsumexp" + tag, lse, reference.logsumexp,
                 ParityDtype::kFloat32, s.head_dim + s.seq_len);
    ExpectParity("d_qkv" + tag, FromBf16(d_qkv), reference.d_qkv,
                 ParityDtype::kBFloat16, 3 * (s.head_dim + s.seq_len));
    run.Run(c, context_);
    EXPECT_TRUE(BitIdentical(run.out.ToHost(), out)) << "out" << tag;
    EXPECT_TRUE(BitIdentical(run.logsumexp.ToHost(), lse)) << "lse" << tag;
    EXPECT_TRUE(BitIdentical(run.d_qkv.ToHost(), d_qkv)) << "d_qkv" << tag;
  }
}

TEST_F(FlashAttentionParityTest, UnsupportedHeadDimFailsLoudly) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const AttentionOptions options;
  EXPECT_DEATH(
      cuda::FlashAttentionForward<float>(nullptr, nullptr, nullptr, nullptr, 1,
                                         8, 1, 129, options, context_),
      "head_dim 129 is not supported");
  EXPECT_DEATH(cuda::FlashAttentionBackward<float>(
                   nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, 1, 8,
                   1, 0, options, nullptr, context_),
               "head_dim 0 is not supported");
}

}  // namespace
}  // namespace bertlab
