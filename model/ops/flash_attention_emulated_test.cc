// Runs the fused attention kernels' own code (flash_attention_kernels.cuh, the
// source nvcc compiles for flash_attention_cuda.cu) on the CPU under the host
// SIMT emulator (model/cuda/testing/simt_emulator.h: 256 fibers per block,
// barriers and warp shuffles emulated, NaN-filled shared memory of exactly the
// launch's size), launched with the .cu's own Problem, grid and shared-memory
// sizes, against the CPU op in double (flash_attention_reference.h) on
// exactly the values the kernels read.
//
// Cases: head_dim 1, 12, 20, 64 (the <= 64 kernels) and 100 (the <= 128
// ones); seq_len 1, 7, 37, 65 and 130 (one to three 64-row tiles, the last
// one partial); causal or not; dropout 0 or 0.2; no padding, right padding,
// left padding (causal rows with no unmasked key, a fully padded key tile),
// PaddingMask's mix (left + right padded, an all-padding sequence);
// mask_value -10000 (tiles skipped) and -1 (nothing skipped); f32 and bf16
// storage; tensors one element off their 4-element alignment (element-wise
// loads and stores instead of vector ones).
//
// Tolerance: the parity comparator (model/parity/parity_comparator.h),
// |kernel - reference| <= 16 eps sqrt(K) (|reference| + rms(reference)) with
// K as in flash_attention_tile_test.cc and the GPU parity test: logsumexp
// K = head_dim + seq_len at float's eps (a float output); out
// K = head_dim + 2 seq_len and d_qkv K = 3 (head_dim + seq_len) at the
// storage's eps (float 2^-23, bf16 2^-7). The worst ratio error / allowed is
// printed per test, with the worst |error| / (|reference| + rms): when this
// was written, f32 0.12 (|error| <= 6e-6 of |reference| + rms) and bf16 0.02
// (out 5e-3, with P rounded to bf16 for the tensor cores; d_qkv 2e-2, where
// the backward's row term reads the bf16-rounded out: in a row with one key
// dS = P (dP - D) is that rounding alone).
//
// The bf16 cases run the tensor-core products (flash_attention_products.cuh)
// through the emulator's wmma (model/cuda/testing/simt_wmma.h).
//
// Also checked: every element of out, logsumexp, d_qkv and the workspace is
// written (all start as NaN), nothing is written around them (guard
// elements), each case takes the load path it claims (vector or
// element-wise), and every other emulator schedule (reverse order; warp by
// warp, both ways) gives the same bits. When this was written, deleting any
// one of the kernels' or products' __syncthreads failed this test (or
// deadlocked loudly, for the __syncthreads_and ones) except the tensor-core
// Accumulate's first one, which every caller's barrier after writing the
// weights tile already covers.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <limits>
#include <string>
#include <vector>

#include "common/philox.h"
#include "gtest/gtest.h"
#include "model/cuda/parity_test_util.h"
#include "model/cuda/testing/emulated_test_util.h"
#include "model/cuda/testing/simt_emulator.h"
#include "model/ops/attention.h"
#include "model/ops/flash_attention_kernels.cuh"
#include "model/ops/flash_attention_reference.h"
#include "model/parity/parity_comparator.h"

namespace bertlab {
namespace {

using Shape = AttentionShape;

enum class Padding {
  kNone,
  kRight,  // sequence b has its last b ceil(T / 3) keys padded (at least 1
           // key left)
  kLeft,   // sequence b has its first b ceil(T / 2) keys padded
  kMixed,  // PaddingMask: unpadded, left + right padded, all padding
};

struct CaseSpec {
  Shape shape;
  bool causal;
  float dropout_rate;
  Padding padding;
  double mask_value;
  bool misaligned;  // tensors one element off their 4-element alignment
};

struct Case : AttentionProblem {
  bool misaligned = false;
};

std::vector<int32_t> MakeMask(const Shape& s, Padding padding) {
  const int64_t t = s.seq_len;
  std::vector<int32_t> mask(static_cast<size_t>(s.batch * t), 1);
  for (int64_t b = 0; b < s.batch; ++b) {
    for (int64_t j = 0; j < t; ++j) {
      bool padded = false;
      if (padding == Padding::kRight) {
        padded = j >= std::max<int64_t>(1, t - b * ((t + 2) / 3));
      } else if (padding == Padding::kLeft) {
        padded = j < b * ((t + 1) / 2);
      }
      if (padded) mask[static_cast<size_t>(b * t + j)] = 0;
    }
  }
  return mask;
}

Case MakeCase(const CaseSpec& spec) {
  Case c;
  c.shape = spec.shape;
  c.options.causal = spec.causal;
  c.options.dropout_rate = spec.dropout_rate;
  c.options.dropout_stream =
      PhiloxStream{/*seed=*/91, /*step=*/4, /*tensor_id=*/2};
  c.options.mask_value = spec.mask_value;
  c.misaligned = spec.misaligned;
  static const char* const kPaddingNames[] = {
      "", " right-padding", " left-padding", " mixed-padding"};
  if (spec.padding == Padding::kMixed) {
    c.mask = PaddingMask(spec.shape);
  } else if (spec.padding != Padding::kNone) {
    c.mask = MakeMask(spec.shape, spec.padding);
  }
  const Shape& s = spec.shape;
  c.name = "(" + std::to_string(s.batch) + ", " + std::to_string(s.seq_len) +
           ", " + std::to_string(s.heads) + ", " + std::to_string(s.head_dim) +
           ")" + (spec.causal ? " causal" : "") +
           (spec.dropout_rate > 0.0f ? " dropout" : "") +
           kPaddingNames[static_cast<int>(spec.padding)] +
           (spec.padding != Padding::kNone || spec.causal
                ? " mask " + std::to_string(static_cast<int>(spec.mask_value))
                : "") +
           (spec.misaligned ? " misaligned" : "");
  return c;
}

template <typename T>
float Widen(T value) {
  return cuda_kernels::ToFloat(value);
}

template <typename T>
T Narrow(float value) {
  return cuda_kernels::FromFloat<T>(value);
}

// A tensor in host memory with kGuard guard elements on each side (and one
// more in front when misaligned), so that a write outside it shows.
template <typename T>
class Tensor {
 public:
  static constexpr size_t kGuard = 1024;

  Tensor(int64_t size, bool misaligned, float fill)
      : size_(static_cast<size_t>(size)),
        begin_(kGuard + (misaligned ? 1 : 0)),
        storage_(begin_ + size_ + kGuard, Narrow<T>(kGuardValue)) {
    for (size_t i = 0; i < size_; ++i) storage_[begin_ + i] = Narrow<T>(fill);
  }

  T* data() { return storage_.data() + begin_; }

  std::vector<float> Values() const {
    std::vector<float> values(size_);
    for (size_t i = 0; i < size_; ++i) values[i] = Widen(storage_[begin_ + i]);
    return values;
  }

  void Set(const std::vector<float>& values) {
    for (size_t i = 0; i < size_; ++i) {
      storage_[begin_ + i] = Narrow<T>(values[i]);
    }
  }

  // Guard elements that no longer hold kGuardValue.
  int64_t GuardsOverwritten() const {
    int64_t overwritten = 0;
    for (size_t i = 0; i < storage_.size(); ++i) {
      if (i >= begin_ && i < begin_ + size_) continue;
      if (Widen(storage_[i]) != kGuardValue) ++overwritten;
    }
    return overwritten;
  }

 private:
  static constexpr float kGuardValue = 4096.0f;  // exact in bf16
  size_t size_, begin_;
  std::vector<T> storage_;
};

int64_t CountNaN(const std::vector<float>& values) {
  int64_t count = 0;
  for (float value : values) count += std::isnan(value) ? 1 : 0;
  return count;
}

// One forward + backward of the emulated kernels; inputs are the storage
// type's rounding of the float values given.
template <typename T>
struct EmulatedRun {
  Tensor<T> qkv, d_out, out, d_qkv;
  Tensor<float> logsumexp, workspace;
  cuda::Problem forward_problem, backward_problem;

  EmulatedRun(const Case& c, const std::vector<float>& qkv_values,
              const std::vector<float>& d_out_values, simt::Schedule schedule)
      : qkv(c.shape.QkvSize(), c.misaligned, 0.0f),
        d_out(c.shape.OutSize(), c.misaligned, 0.0f),
        out(c.shape.OutSize(), c.misaligned, kNaN),
        d_qkv(c.shape.QkvSize(), c.misaligned, kNaN),
        logsumexp(c.shape.RowCount(), false, kNaN),
        // FlashAttentionBackwardWorkspaceElements (flash_attention_cuda.h
        // needs the CUDA runtime): the row terms, one per query row.
        workspace(c.shape.RowCount(), false, kNaN) {
    qkv.Set(qkv_values);
    d_out.Set(d_out_values);
    const Shape& s = c.shape;
    // As FlashAttentionForward / FlashAttentionBackward.
    forward_problem =
        cuda::MakeProblem<T>(s.batch, s.seq_len, s.heads, s.head_dim, c.options,
                             {out.data(), qkv.data()});
    backward_problem = cuda::MakeProblem<T>(
        s.batch, s.seq_len, s.heads, s.head_dim, c.options,
        {d_qkv.data(), d_out.data(), qkv.data(), out.data()});
    simt::LaunchOptions options;
    options.schedule = schedule;
    if (s.head_dim <= 64) {
      Launch<64>(c.MaskData(), options);
    } else {
      Launch<128>(c.MaskData(), options);
    }
  }

  // flash_attention_cuda.cu's LaunchForward and LaunchBackward, emulated.
  template <int kHeadDimMax>
  void Launch(const int32_t* mask, const simt::LaunchOptions& options) {
    const cuda::Problem& f = forward_problem;
    simt::Launch(options, cuda::KernelGrid(f), cuda::kThreads,
                 cuda::ForwardSharedBytes<T, kHeadDimMax>(),
                 &cuda::FlashForwardKernel<T, kHeadDimMax>, out.data(),
                 logsumexp.data(), qkv.data(), mask, f);
    const cuda::Problem& b = backward_problem;
    const size_t bytes = cuda::BackwardSharedBytes<T, kHeadDimMax>();
    simt::Launch(options, cuda::KernelGrid(b), cuda::kThreads, bytes,
                 &cuda::FlashBackwardQueryKernel<T, kHeadDimMax>, d_qkv.data(),
                 workspace.data(), d_out.data(), qkv.data(), out.data(),
                 logsumexp.data(), mask, b);
    simt::Launch(options, cuda::KernelGrid(b), cuda::kThreads, bytes,
                 &cuda::FlashBackwardKeyKernel<T, kHeadDimMax>, d_qkv.data(),
                 d_out.data(), qkv.data(), logsumexp.data(), workspace.data(),
                 mask, b);
  }

  static constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
};

// Over a test's cases, per quantity: the largest error / allowed of the
// comparator, and the largest |error| / (|expected| + rms(expected)) (the
// error in the comparator's units, without its eps sqrt(K) bound).
struct Worst {
  double ratio = 0.0, relative = 0.0;
};

struct WorstErrors {
  Worst out, logsumexp, d_qkv;

  void Print(const std::string& test) const {
    std::cout << test << ": worst error / allowed: out " << out.ratio
              << ", logsumexp " << logsumexp.ratio << ", d_qkv " << d_qkv.ratio
              << "; worst |error| / (|expected| + rms): out " << out.relative
              << ", logsumexp " << logsumexp.relative << ", d_qkv "
              << d_qkv.relative << std::endl;
  }
};

void Compare(const std::string& name, const std::vector<float>& actual,
             const std::vector<double>& expected, ParityDtype dtype,
             int64_t reduction_length, Worst* worst) {
  const ParityReport report =
      CompareParity(name, actual, expected, dtype, reduction_length);
  EXPECT_TRUE(report.ok) << report.message;
  worst->ratio = std::max(worst->ratio, report.worst_ratio);
  double sum_squares = 0.0;
  for (double value : expected) sum_squares += value * value;
  const double rms =
      std::sqrt(sum_squares / static_cast<double>(expected.size()));
  for (size_t i = 0; i < actual.size(); ++i) {
    const double error = std::abs(actual[i] - expected[i]);
    worst->relative =
        std::max(worst->relative, error / (std::abs(expected[i]) + rms));
  }
}

// Runs every case on storage T and checks it against the reference.
template <typename T>
void ExpectCasesMatchTheCpuOp(const std::vector<CaseSpec>& specs,
                              ParityDtype dtype, const std::string& test,
                              uint32_t seed) {
  WorstErrors worst;
  for (const CaseSpec& spec : specs) {
    const Case c = MakeCase(spec);
    const Shape& s = c.shape;
    SCOPED_TRACE(test + " " + c.name);
    std::vector<float> qkv = RandomUniform(s.QkvSize(), seed++, -2.0f, 2.0f);
    std::vector<float> d_out = RandomUniform(s.OutSize(), seed++, -1.0f, 1.0f);
    const EmulatedRun<T> run(c, qkv, d_out, simt::Schedule::kForward);
    // The kernels read the storage type's rounding: so does the reference.
    qkv = run.qkv.Values();
    d_out = run.d_out.Values();
    const AttentionReference reference =
        ComputeAttentionReference(c, qkv, d_out);

    const bool vector_io = s.head_dim % 4 == 0 && !c.misaligned;
    EXPECT_EQ(run.forward_problem.vector_io, vector_io);
    EXPECT_EQ(run.backward_problem.vector_io, vector_io);

    const std::vector<float> out = run.out.Values();
    const std::vector<float> logsumexp = run.logsumexp.Values();
    const std::vector<float> d_qkv = run.d_qkv.Values();
    EXPECT_EQ(CountNaN(out), 0) << "elements of out not written";
    EXPECT_EQ(CountNaN(logsumexp), 0) << "rows of logsumexp not written";
    EXPECT_EQ(CountNaN(d_qkv), 0) << "elements of d_qkv not written";
    EXPECT_EQ(CountNaN(run.workspace.Values()), 0) << "row terms not written";
    EXPECT_EQ(run.out.GuardsOverwritten() + run.d_qkv.GuardsOverwritten() +
                  run.logsumexp.GuardsOverwritten() +
                  run.workspace.GuardsOverwritten(),
              0)
        << "writes outside an output";

    Compare("out", out, reference.out, dtype, s.head_dim + 2 * s.seq_len,
            &worst.out);
    Compare("logsumexp", logsumexp, reference.logsumexp, kF32,
            s.head_dim + s.seq_len, &worst.logsumexp);
    Compare("d_qkv", d_qkv, reference.d_qkv, dtype,
            3 * (s.head_dim + s.seq_len), &worst.d_qkv);

    // The schedule decides which thread reaches a shared-memory word first,
    // so with a barrier missing the schedules read different values (or the
    // NaN fill).
    for (simt::Schedule schedule : emulated::kSchedules) {
      if (schedule == simt::Schedule::kForward) continue;  // `run`
      const EmulatedRun<T> other(c, qkv, d_out, schedule);
      const std::string order =
          " in schedule " + std::to_string(static_cast<int>(schedule));
      ExpectBitIdentical("out" + order, other.out.Values(), out);
      ExpectBitIdentical("logsumexp" + order, other.logsumexp.Values(),
                         logsumexp);
      ExpectBitIdentical("row terms" + order, other.workspace.Values(),
                         run.workspace.Values());
      ExpectBitIdentical("d_qkv" + order, other.d_qkv.Values(), d_qkv);
    }
  }
  worst.Print(test);
}

TEST(FlashAttentionEmulatedTest, Float32MatchesTheCpuOp) {
  const std::vector<CaseSpec> specs = {
      {{2, 1, 2, 12}, true, 0.0f, Padding::kNone, -10000.0, false},
      {{2, 7, 3, 12}, false, 0.2f, Padding::kRight, -10000.0, false},
      {{2, 7, 1, 20}, true, 0.0f, Padding::kMixed, -10000.0, true},
      {{3, 37, 2, 20}, true, 0.0f, Padding::kMixed, -10000.0, false},
      {{3, 37, 2, 20}, true, 0.2f, Padding::kMixed, -1.0, false},
      {{2, 37, 1, 1}, true, 0.2f, Padding::kRight, -10000.0, false},
      {{2, 65, 2, 64}, true, 0.2f, Padding::kNone, -10000.0, false},
      {{2, 65, 1, 64}, false, 0.0f, Padding::kLeft, -10000.0, true},
      {{3, 130, 1, 64}, true, 0.0f, Padding::kLeft, -10000.0, false},
      {{3, 130, 1, 100}, false, 0.2f, Padding::kRight, -10000.0, false},
      {{2, 65, 1, 100}, true, 0.0f, Padding::kMixed, -1.0, true},
  };
  ExpectCasesMatchTheCpuOp<float>(specs, kF32, "f32", 100);
}

TEST(FlashAttentionEmulatedTest, BFloat16MatchesTheCpuOp) {
  const std::vector<CaseSpec> specs = {
      {{2, 7, 2, 12}, true, 0.2f, Padding::kNone, -10000.0, false},
      {{2, 37, 1, 1}, true, 0.0f, Padding::kRight, -1.0, false},
      {{3, 37, 1, 20}, true, 0.0f, Padding::kMixed, -10000.0, false},
      {{2, 65, 1, 64}, false, 0.2f, Padding::kRight, -10000.0, true},
      {{3, 130, 1, 100}, true, 0.0f, Padding::kLeft, -10000.0, false},
  };
  ExpectCasesMatchTheCpuOp<__nv_bfloat16>(specs, kBF16, "bf16", 500);
}

}  // namespace
}  // namespace bertlab
