// The emulated warp matrix ops (simt_wmma.h): the products and memory
// layouts against a double reference, and the collective checks (alignment,
// one pointer per warp, every lane present) as loud aborts.
#include "model/cuda/testing/simt_wmma.h"

#include <cmath>
#include <cstdint>
#include <cstring>

#include "gtest/gtest.h"
#include "model/cuda/kernel_decl.h"
#include "model/cuda/testing/simt_emulator.h"

namespace bertlab {
namespace {

namespace wmma = nvcuda::wmma;

struct alignas(32) Operands {
  __nv_bfloat16 a[16 * 24];  // ldm 24 (a multiple of 8 bf16)
  __nv_bfloat16 b[16 * 24];
  float c[16 * 20];  // ldm 20 (a multiple of 4 floats)
  float d[16 * 20];
};

// Each of two warps computes d = a b + c, a and b read row- or col-major as
// their fragment types say, c read and d written in `layout`. Both warps
// write the same values, so d does not depend on which one wrote last.
template <typename LayoutA, typename LayoutB>
BERTLAB_KERNEL(64, 1)
ProductKernel(Operands* operands, wmma::layout_t layout) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, LayoutA> a;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, LayoutB> b;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
  wmma::load_matrix_sync(a, operands->a, 24);
  wmma::load_matrix_sync(b, operands->b, 24);
  wmma::load_matrix_sync(c, operands->c, 20, layout);
  wmma::mma_sync(c, a, b, c);
  wmma::store_matrix_sync(operands->d, c, 20, layout);
}

BERTLAB_KERNEL(32, 1) FillKernel(float* out, float value) {
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
  wmma::fill_fragment(c, value);
  wmma::store_matrix_sync(out, c, 16, wmma::mem_row_major);
}

BERTLAB_KERNEL(32, 1) MisalignedKernel(const __nv_bfloat16* source) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> a;
  wmma::load_matrix_sync(a, source + 8, 24);  // 16 bytes past 32-aligned
}

BERTLAB_KERNEL(32, 1) PerLanePointerKernel(const __nv_bfloat16* source) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> a;
  wmma::load_matrix_sync(a, source + 16 * (threadIdx.x % 2), 24);
}

BERTLAB_KERNEL(32, 1) HalfWarpProductKernel(float* out) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> a;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> b;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
  wmma::fill_fragment(a, __float2bfloat16_rn(1.0f));
  wmma::fill_fragment(b, __float2bfloat16_rn(1.0f));
  wmma::fill_fragment(c, 0.0f);
  if (threadIdx.x < 16) wmma::mma_sync(c, a, b, c);
  out[threadIdx.x] = 0.0f;
}

// Element (row, column) of a 16 x 16 tile with leading dimension ldm.
size_t At(int row, int column, int ldm, bool row_major) {
  return row_major ? static_cast<size_t>(row * ldm + column)
                   : static_cast<size_t>(column * ldm + row);
}

void Fill(Operands* o) {
  for (int i = 0; i < 16 * 24; ++i) {
    // Distinct small values (exact in bf16), so a transposed read shows.
    o->a[i] = __float2bfloat16_rn(static_cast<float>((i * 7) % 23 - 11) / 8);
    o->b[i] = __float2bfloat16_rn(static_cast<float>((i * 5) % 19 - 9) / 4);
  }
  for (int i = 0; i < 16 * 20; ++i) {
    o->c[i] = static_cast<float>((i * 3) % 17) - 8.5f;
    o->d[i] = std::nanf("");
  }
}

template <typename LayoutA, typename LayoutB>
void ExpectProduct(wmma::layout_t layout) {
  Operands o;
  Fill(&o);
  simt::Launch(dim3(1), dim3(64), 0, &ProductKernel<LayoutA, LayoutB>, &o,
               layout);
  const bool a_rows = std::is_same<LayoutA, wmma::row_major>::value;
  const bool b_rows = std::is_same<LayoutB, wmma::row_major>::value;
  const bool c_rows = layout == wmma::mem_row_major;
  for (int m = 0; m < 16; ++m) {
    for (int n = 0; n < 16; ++n) {
      double expected = o.c[At(m, n, 20, c_rows)];
      for (int k = 0; k < 16; ++k) {
        expected +=
            static_cast<double>(__bfloat162float(o.a[At(m, k, 24, a_rows)])) *
            __bfloat162float(o.b[At(k, n, 24, b_rows)]);
      }
      // Inputs of a few bits each: float sums them exactly.
      EXPECT_EQ(o.d[At(m, n, 20, c_rows)], expected)
          << "a " << (a_rows ? "row" : "col") << " b "
          << (b_rows ? "row" : "col") << " c/d " << (c_rows ? "row" : "col")
          << " at (" << m << ", " << n << ")";
    }
  }
  // The padding columns between rows of d are left alone.
  for (int i = 0; i < 16; ++i) {
    for (int pad = 16; pad < 20; ++pad) {
      EXPECT_TRUE(std::isnan(o.d[i * 20 + pad]));
    }
  }
}

TEST(SimtWmmaTest, ProductsReadEveryLayoutAsCudaDefinesIt) {
  ExpectProduct<wmma::row_major, wmma::row_major>(wmma::mem_row_major);
  ExpectProduct<wmma::row_major, wmma::col_major>(wmma::mem_row_major);
  ExpectProduct<wmma::col_major, wmma::row_major>(wmma::mem_col_major);
  ExpectProduct<wmma::col_major, wmma::col_major>(wmma::mem_col_major);
}

TEST(SimtWmmaTest, FillSetsTheWholeTile) {
  alignas(32) float out[256];
  std::memset(out, 0, sizeof(out));
  simt::Launch(dim3(1), dim3(32), 0, &FillKernel, out, 2.5f);
  for (float value : out) EXPECT_EQ(value, 2.5f);
}

TEST(SimtWmmaDeathTest, AMisalignedTileAborts) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  Operands o;
  Fill(&o);
  EXPECT_DEATH(simt::Launch(dim3(1), dim3(32), 0, &MisalignedKernel, o.a),
               "wmma::load_matrix_sync at .*: pointer .* is not 256-bit "
               "aligned");
}

TEST(SimtWmmaDeathTest, LanesWithDifferentPointersAbort) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  Operands o;
  Fill(&o);
  EXPECT_DEATH(simt::Launch(dim3(1), dim3(32), 0, &PerLanePointerKernel, o.a),
               "lanes of one warp pass different pointers or ldm");
}

TEST(SimtWmmaDeathTest, AProductHalfTheWarpSkipsDeadlocks) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  float out[32];
  EXPECT_DEATH(simt::Launch(dim3(1), dim3(32), 0, &HalfWarpProductKernel, out),
               "deadlock in block \\(0, 0, 0\\).*wmma::mma_sync");
}

}  // namespace
}  // namespace bertlab
