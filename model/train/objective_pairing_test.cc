#include "model/train/objective_pairing.h"

#include "gtest/gtest.h"

namespace bertlab {
namespace {

constexpr LanguageModel kObjectives[] = {LanguageModel::kMaskedLm,
                                         LanguageModel::kLeftToRight,
                                         LanguageModel::kRightToLeft};
constexpr AttentionMode kModes[] = {AttentionMode::kBidirectional,
                                    AttentionMode::kCausal,
                                    AttentionMode::kReverseCausal};

// The table of the header, every cell: each objective has exactly one
// attention mode, and only the masked LM a next-sentence task.
TEST(ObjectivePairingTest, EveryObjectiveFitsOneModeAndOnlyMaskedLmHasNsp) {
  for (LanguageModel objective : kObjectives) {
    SCOPED_TRACE(ObjectiveProse(objective));
    int fitting_modes = 0;
    for (AttentionMode mode : kModes) {
      for (bool next_sentence : {false, true}) {
        const ObjectiveConflicts conflicts =
            FindObjectiveConflicts(objective, next_sentence, mode);
        EXPECT_EQ(conflicts.attention.empty(),
                  mode == ObjectiveAttentionMode(objective));
        EXPECT_EQ(conflicts.next_sentence.empty(),
                  !next_sentence || objective == LanguageModel::kMaskedLm);
      }
      if (FindObjectiveConflicts(objective, false, mode).empty()) {
        ++fitting_modes;
      }
    }
    EXPECT_EQ(fitting_modes, 1);
  }
  EXPECT_EQ(ObjectiveAttentionMode(LanguageModel::kMaskedLm),
            AttentionMode::kBidirectional);
  EXPECT_EQ(ObjectiveAttentionMode(LanguageModel::kLeftToRight),
            AttentionMode::kCausal);
  EXPECT_EQ(ObjectiveAttentionMode(LanguageModel::kRightToLeft),
            AttentionMode::kReverseCausal);
  EXPECT_TRUE(ObjectiveAllowsNextSentence(LanguageModel::kMaskedLm));
  EXPECT_FALSE(ObjectiveAllowsNextSentence(LanguageModel::kLeftToRight));
  EXPECT_FALSE(ObjectiveAllowsNextSentence(LanguageModel::kRightToLeft));
}

// The reasons say what the model would see.
TEST(ObjectivePairingTest, ReasonsNameWhatTheModelWouldSee) {
  EXPECT_EQ(FindObjectiveConflicts(LanguageModel::kLeftToRight, false,
                                   AttentionMode::kBidirectional)
                .attention,
            "a bidirectional model sees the next token, which it predicts");
  EXPECT_EQ(FindObjectiveConflicts(LanguageModel::kRightToLeft, false,
                                   AttentionMode::kCausal)
                .attention,
            "a causal model sees the previous token, which it predicts");
  EXPECT_EQ(FindObjectiveConflicts(LanguageModel::kMaskedLm, true,
                                   AttentionMode::kReverseCausal)
                .attention,
            "a reverse-causal model sees one side of a token, and the masked "
            "LM predicts it from both");
}

}  // namespace
}  // namespace bertlab
