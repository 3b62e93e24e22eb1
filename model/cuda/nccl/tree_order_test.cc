// TreeOrderSum (the slot-sum kernel's per-element sum, tree_order.h) against
// TreeSum<float> (common/collective.h), bit for bit, on the CPU: every term
// count up to 70 and around the powers of two up to kMaxTreeTerms, with
// values of mixed magnitudes so that another grouping would change the bits.
#include "model/cuda/nccl/tree_order.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "common/collective.h"
#include "gtest/gtest.h"

namespace bertlab {
namespace cuda {
namespace {

uint32_t Bits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

// terms slots of `length` elements each (slot p at p * length), as the
// gradient sum lays out the chunks it receives.
std::vector<float> RandomSlots(int terms, int64_t length, uint32_t seed) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<float> mantissa(-1.0f, 1.0f);
  std::uniform_int_distribution<int> exponent(-12, 12);
  std::vector<float> slots(static_cast<size_t>(terms * length));
  for (float& value : slots) {
    value = std::ldexp(mantissa(random), exponent(random));
  }
  return slots;
}

void ExpectTreeSumBits(int terms, int64_t length, uint32_t seed) {
  const std::vector<float> slots = RandomSlots(terms, length, seed);
  TreeSum<float> tree(length);
  for (int p = 0; p < terms; ++p) tree.Add(slots.data() + p * length);
  std::vector<float> expected;
  tree.Finish(&expected);
  for (int64_t i = 0; i < length; ++i) {
    const float got = TreeOrderSum(slots.data() + i, terms, length);
    ASSERT_EQ(Bits(got), Bits(expected[i]))
        << terms << " terms, element " << i << ": " << got << " vs "
        << expected[i];
  }
}

TEST(TreeOrderSumTest, EqualsTreeSumBitForBit) {
  for (int terms = 1; terms <= 70; ++terms) {
    ExpectTreeSumBits(terms, /*length=*/37, /*seed=*/terms);
  }
  for (int power = 128; power <= kMaxTreeTerms; power *= 2) {
    for (int terms : {power - 1, power, power + 1}) {
      if (terms > kMaxTreeTerms) continue;
      ExpectTreeSumBits(terms, /*length=*/5, /*seed=*/1000 + terms);
    }
  }
}

TEST(TreeOrderSumTest, GroupsAsTheTreeDoes) {
  // 3 terms: (t0 + t1) + t2. 2^24 + 1 rounds to 2^24 (ties to even), twice;
  // 2^24 + (1 + 1) would be 2^24 + 2.
  const float big = 16777216.0f;
  const float three[] = {big, 1.0f, 1.0f};
  EXPECT_EQ(TreeOrderSum(three, 3, 1), big);
  // 3 terms: (t0 + t1) + t2 again, now the other way round: (1 + 1) + 2^24.
  const float other[] = {1.0f, 1.0f, big};
  EXPECT_EQ(TreeOrderSum(other, 3, 1), big + 2.0f);
  // 5 terms: ((t0 + t1) + (t2 + t3)) + t4 = (2^24 + 2) + 1, a tie rounded
  // to 2^24 + 4; added one by one they would stay 2^24.
  const float five[] = {big, 1.0f, 1.0f, 1.0f, 1.0f};
  EXPECT_EQ(TreeOrderSum(five, 5, 1), big + 4.0f);
}

TEST(TreeOrderSumTest, NoTermsIsZero) {
  EXPECT_EQ(TreeOrderSum(nullptr, 0, 1), 0.0f);
}

}  // namespace
}  // namespace cuda
}  // namespace bertlab
