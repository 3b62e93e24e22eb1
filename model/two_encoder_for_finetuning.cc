#include "model/two_encoder_for_finetuning.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/check.h"
#include "common/status_macros.h"
#include "model/bert/checkpoint.h"

namespace bertlab {
namespace {

// Adds the encoder of `config` under prefix + its usual "bert.*" names. The
// encoder is built in a layout of its own and appended in the same order, so
// its offsets are the standalone ones shifted by where the block begins.
EncoderBlock AddPrefixedEncoder(const BertConfig& config,
                                const std::string& prefix,
                                ParameterLayout* layout) {
  ParameterLayout standalone;
  EncoderOffsets offsets = AddEncoderParameters(config, &standalone);
  EncoderBlock block;
  block.begin = layout->total_size();
  block.size = standalone.total_size();
  for (const ParameterInfo& info : standalone.parameters()) {
    const int64_t offset =
        layout->Add(prefix + info.name, info.shape, info.initializer);
    CHECK_EQ(offset, block.begin + info.offset);
  }
  const int64_t shift = block.begin;
  offsets.word_embeddings += shift;
  offsets.position_embeddings += shift;
  offsets.token_type_embeddings += shift;
  offsets.embeddings_norm_gamma += shift;
  offsets.embeddings_norm_beta += shift;
  for (EncoderLayerOffsets& layer : offsets.layers) {
    for (int64_t* offset :
         {&layer.qkv_weight, &layer.qkv_bias, &layer.attention_output_weight,
          &layer.attention_output_bias, &layer.attention_norm_gamma,
          &layer.attention_norm_beta, &layer.intermediate_weight,
          &layer.intermediate_bias, &layer.output_weight, &layer.output_bias,
          &layer.output_norm_gamma, &layer.output_norm_beta}) {
      *offset += shift;
    }
  }
  offsets.pooler_weight += shift;
  offsets.pooler_bias += shift;
  block.offsets = std::move(offsets);
  return block;
}

// out row i = [left row i ; right row i]; left and right are (n, h).
template <typename T>
void ConcatRows(const T* left, const T* right, int64_t n, int64_t h, T* out) {
  for (int64_t i = 0; i < n; ++i) {
    std::copy(left + i * h, left + (i + 1) * h, out + i * 2 * h);
    std::copy(right + i * h, right + (i + 1) * h, out + i * 2 * h + h);
  }
}

// The inverse of ConcatRows: splits (n, 2h) into two (n, h).
template <typename T>
void SplitRows(const T* in, int64_t n, int64_t h, T* left, T* right) {
  for (int64_t i = 0; i < n; ++i) {
    std::copy(in + i * 2 * h, in + i * 2 * h + h, left + i * h);
    std::copy(in + i * 2 * h + h, in + (i + 1) * 2 * h, right + i * h);
  }
}

absl::Status CheckMode(const std::string& dir, const BertConfig& config,
                       AttentionMode expected, const char* role) {
  if (config.attention_mode == expected) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "the ", role, " checkpoint ", dir, " has attention_mode \"",
      AttentionModeName(config.attention_mode), "\"; the two-encoder model's ",
      role, " encoder needs \"", AttentionModeName(expected), "\""));
}

// ConfigToJson with the attention mode left out of the comparison.
std::string ShapeJson(BertConfig config) {
  config.attention_mode = AttentionMode::kBidirectional;
  return ConfigToJson(config);
}

}  // namespace

TwoEncoderForFinetuning::TwoEncoderForFinetuning(
    const BertConfig& config, const FinetuneModelOptions& options)
    : ltr_config_(config), rtl_config_(config), options_(options) {
  CHECK(!options_.bilstm) << "the two-encoder model has no BiLSTM option";
  ltr_config_.attention_mode = AttentionMode::kCausal;
  rtl_config_.attention_mode = AttentionMode::kReverseCausal;
  BertConfig head_config = ltr_config_;
  head_config.hidden_size = 2 * config.hidden_size;
  ltr_ = AddPrefixedEncoder(ltr_config_, kLeftToRightPrefix, &layout_);
  rtl_ = AddPrefixedEncoder(rtl_config_, kRightToLeftPrefix, &layout_);
  head_ = AddFinetuneTaskHead(head_config, options_, &layout_);
}

std::vector<std::string> TwoEncoderForFinetuning::NewParameterPrefixes() const {
  return {FinetuneHeadPrefix(options_.head)};
}

template <typename T>
TwoEncoderStepBuffers<T>::TwoEncoderStepBuffers(
    const TwoEncoderForFinetuning& model, int64_t rows, int64_t seq_len)
    : FinetuneHeadActivations<T>(model.head(), rows, seq_len),
      ltr(model.ltr_config(), rows, seq_len),
      rtl(model.rtl_config(), rows, seq_len) {
  const FinetuneModelOptions& options = model.options();
  const int64_t hidden = model.ltr_config().hidden_size;
  sequence_output.resize(rows * seq_len * 2 * hidden);
  pooled_output.resize(rows * 2 * hidden);
  const int64_t head_rows =
      options.head == FinetuneHead::kSpan ? rows * seq_len : rows;
  d_head_input.resize(head_rows * 2 * hidden);
  d_ltr.resize(head_rows * hidden);
  d_rtl.resize(head_rows * hidden);
}

template <typename T>
T TwoEncoderForward(const TwoEncoderForFinetuning& model, const T* params,
                    const EncoderBatch& batch, const FinetuneTargets& targets,
                    const DropoutSettings& dropout,
                    TwoEncoderStepBuffers<T>* buffers) {
  const FinetuneModelOptions& options = model.options();
  const int64_t rows = batch.batch;
  const int64_t seq_len = batch.seq_len;
  const int64_t hidden = model.ltr_config().hidden_size;
  CHECK(options.head == FinetuneHead::kSpan ||
        batch.pooled_positions != nullptr)
      << "the LTR encoder must pool each row's last real token";
  EncoderForward(model.ltr_config(), model.ltr_encoder().offsets, params, batch,
                 dropout, &buffers->ltr);
  EncoderForward(model.rtl_config(), model.rtl_encoder().offsets, params,
                 RightToLeftBatch(batch), RightToLeftDropout(dropout),
                 &buffers->rtl);
  ConcatRows(buffers->ltr.sequence_output(), buffers->rtl.sequence_output(),
             rows * seq_len, hidden, buffers->sequence_output.data());
  ConcatRows(buffers->ltr.pooled_output(), buffers->rtl.pooled_output(), rows,
             hidden, buffers->pooled_output.data());
  return FinetuneHeadForward(
      model.head(), params, buffers->sequence_output.data(),
      buffers->pooled_output.data(), rows, seq_len, targets, dropout, buffers);
}

template <typename T>
T TwoEncoderForwardBackward(const TwoEncoderForFinetuning& model,
                            const T* params, T* grads,
                            const EncoderBatch& batch,
                            const FinetuneTargets& targets,
                            const DropoutSettings& dropout,
                            TwoEncoderStepBuffers<T>* buffers) {
  const T loss =
      TwoEncoderForward(model, params, batch, targets, dropout, buffers);
  const FinetuneModelOptions& options = model.options();
  const int64_t rows = batch.batch;
  const int64_t seq_len = batch.seq_len;
  const int64_t hidden = model.ltr_config().hidden_size;
  T* d_head_input = buffers->d_head_input.data();
  FinetuneHeadBackward(model.head(), params, grads,
                       buffers->sequence_output.data(), rows, seq_len, targets,
                       dropout, buffers, d_head_input);
  // The span head's gradient is per position, the sequence heads' per
  // pooled row; each half goes back to its encoder through the same output.
  const bool span = options.head == FinetuneHead::kSpan;
  SplitRows(static_cast<const T*>(d_head_input), span ? rows * seq_len : rows,
            hidden, buffers->d_ltr.data(), buffers->d_rtl.data());
  const T* none = nullptr;
  const T* d_ltr = buffers->d_ltr.data();
  const T* d_rtl = buffers->d_rtl.data();
  EncoderBackward(model.ltr_config(), model.ltr_encoder().offsets, params,
                  grads, batch, dropout, span ? d_ltr : none,
                  span ? none : d_ltr, &buffers->ltr);
  EncoderBackward(model.rtl_config(), model.rtl_encoder().offsets, params,
                  grads, RightToLeftBatch(batch), RightToLeftDropout(dropout),
                  span ? d_rtl : none, span ? none : d_rtl, &buffers->rtl);
  return loss;
}

absl::StatusOr<BertConfig> ReadTwoEncoderCheckpointConfig(
    const std::string& ltr_dir, const std::string& rtl_dir) {
  ASSIGN_OR_RETURN(const BertConfig ltr, ReadCheckpointConfig(ltr_dir));
  ASSIGN_OR_RETURN(const BertConfig rtl, ReadCheckpointConfig(rtl_dir));
  RETURN_IF_ERROR(CheckMode(ltr_dir, ltr, AttentionMode::kCausal, "LTR"));
  RETURN_IF_ERROR(
      CheckMode(rtl_dir, rtl, AttentionMode::kReverseCausal, "RTL"));
  if (ShapeJson(ltr) != ShapeJson(rtl)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the LTR checkpoint ", ltr_dir, " and the RTL checkpoint ", rtl_dir,
        " differ in more than attention_mode: ", ConfigToJson(ltr), " vs ",
        ConfigToJson(rtl)));
  }
  return ltr;
}

absl::Status LoadTwoEncoderCheckpoints(const TwoEncoderForFinetuning& model,
                                       const std::string& ltr_dir,
                                       const std::string& rtl_dir,
                                       float* params) {
  ASSIGN_OR_RETURN(const BertConfig config,
                   ReadTwoEncoderCheckpointConfig(ltr_dir, rtl_dir));
  if (ShapeJson(config) != ShapeJson(model.ltr_config())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the checkpoints' config ", ConfigToJson(config),
        " differs from the two-encoder model's ",
        ConfigToJson(model.ltr_config()), " in more than attention_mode"));
  }
  // Each checkpoint loads into a standalone encoder layout ("bert.*", the
  // names a pre-training checkpoint holds), then is copied into its block.
  ParameterLayout encoder_layout;
  AddEncoderParameters(model.ltr_config(), &encoder_layout);
  CHECK_EQ(encoder_layout.total_size(), model.ltr_encoder().size);
  CheckpointLoadOptions load;
  load.ignore_unexpected_prefixes = {"cls."};
  std::vector<float> ltr(encoder_layout.total_size());
  std::vector<float> rtl(encoder_layout.total_size());
  RETURN_IF_ERROR(
      LoadCheckpointDirectory(ltr_dir, encoder_layout, load, ltr.data())
          .status());
  RETURN_IF_ERROR(
      LoadCheckpointDirectory(rtl_dir, encoder_layout, load, rtl.data())
          .status());
  std::copy(ltr.begin(), ltr.end(), params + model.ltr_encoder().begin);
  std::copy(rtl.begin(), rtl.end(), params + model.rtl_encoder().begin);
  return absl::OkStatus();
}

template struct TwoEncoderStepBuffers<float>;
template struct TwoEncoderStepBuffers<double>;
#define BERTLAB_INSTANTIATE(T)                                                 \
  template T TwoEncoderForward<T>(const TwoEncoderForFinetuning&, const T*,    \
                                  const EncoderBatch&, const FinetuneTargets&, \
                                  const DropoutSettings&,                      \
                                  TwoEncoderStepBuffers<T>*);                  \
  template T TwoEncoderForwardBackward<T>(                                     \
      const TwoEncoderForFinetuning&, const T*, T*, const EncoderBatch&,       \
      const FinetuneTargets&, const DropoutSettings&,                          \
      TwoEncoderStepBuffers<T>*);
BERTLAB_INSTANTIATE(float)
BERTLAB_INSTANTIATE(double)
#undef BERTLAB_INSTANTIATE

}  // namespace bertlab
