// The name map from Google's TensorFlow BERT variables
// (google-research/bert, modeling.py and run_pretraining.py) to the Hugging
// Face names bertlab's ParameterLayout uses (docs/PAPER.md section 4a).
//
// Each TF variable, then the HF name it loads into; [T] marks a kernel that
// is transposed on the way.
//
//   bert/embeddings/word_embeddings
//     -> bert.embeddings.word_embeddings.weight
//   bert/embeddings/position_embeddings
//     -> bert.embeddings.position_embeddings.weight
//   bert/embeddings/token_type_embeddings
//     -> bert.embeddings.token_type_embeddings.weight
//   bert/embeddings/LayerNorm/{gamma,beta}
//     -> bert.embeddings.LayerNorm.{weight,bias}
//   bert/encoder/layer_N/attention/self/{query,key,value}/{kernel [T],bias}
//     -> bert.encoder.layer.N.attention.self.{query,key,value}.{weight,bias}
//   bert/encoder/layer_N/attention/output/dense/{kernel [T],bias}
//     -> bert.encoder.layer.N.attention.output.dense.{weight,bias}
//   bert/encoder/layer_N/attention/output/LayerNorm/{gamma,beta}
//     -> bert.encoder.layer.N.attention.output.LayerNorm.{weight,bias}
//   bert/encoder/layer_N/intermediate/dense/{kernel [T],bias}
//     -> bert.encoder.layer.N.intermediate.dense.{weight,bias}
//   bert/encoder/layer_N/output/dense/{kernel [T],bias}
//     -> bert.encoder.layer.N.output.dense.{weight,bias}
//   bert/encoder/layer_N/output/LayerNorm/{gamma,beta}
//     -> bert.encoder.layer.N.output.LayerNorm.{weight,bias}
//   bert/pooler/dense/{kernel [T],bias}
//     -> bert.pooler.dense.{weight,bias}
//   cls/predictions/transform/dense/{kernel [T],bias}
//     -> cls.predictions.transform.dense.{weight,bias}
//   cls/predictions/transform/LayerNorm/{gamma,beta}
//     -> cls.predictions.transform.LayerNorm.{weight,bias}
//   cls/predictions/output_bias
//     -> cls.predictions.bias
//   cls/seq_relationship/output_weights
//     -> cls.seq_relationship.weight (not transposed, see below)
//   cls/seq_relationship/output_bias
//     -> cls.seq_relationship.bias
//
//   any name whose last component is adam_m or adam_v (Adam's moments)
//     -> skipped
//   global_step
//     -> skipped
//
// Within those rows, `kernel` becomes `weight` and is transposed: TF stores a
// dense layer's kernel as [in, out], HF as [out, in]. `bias`, `gamma` (->
// `weight`) and `beta` (-> `bias`) are vectors and keep their layout. The
// embedding tables are [rows, hidden] in both. cls/seq_relationship/
// output_weights is [2, hidden] in TF already ([out, in]: run_pretraining.py
// multiplies by its transpose), so it is not transposed. N is a decimal layer
// index without leading zeros. The tied MLM decoder has no TF variable (TF
// multiplies by the word embeddings' transpose).
//
// Any other name is an error that names it, e.g. the classifier variables
// `output_weights` / `output_bias` that run_classifier.py adds, whose HF
// counterpart depends on the task head.
//
// Reading TF's own tensor-bundle files (bert_model.ckpt.index /
// bert_model.ckpt.data-*) is not implemented. To import a Google checkpoint,
// convert it with any TF-to-safetensors tool that keeps the variable names
// (e.g. tf.train.load_checkpoint + safetensors.numpy.save_file); the loader
// (model/bert/checkpoint.h) recognises TF names by their '/' and applies this
// map, transposing the kernels.
#ifndef BERTLAB_MODEL_BERT_TF_NAMES_H_
#define BERTLAB_MODEL_BERT_TF_NAMES_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace bertlab {

struct TfVariableMapping {
  enum class Kind {
    kParameter,  // load into `hf_name`
    kSkip,       // optimizer state or the step counter: not a parameter
  } kind = Kind::kParameter;
  std::string hf_name;     // empty for kSkip
  bool transpose = false;  // a TF [in, out] kernel that HF stores [out, in]
};

// Maps one TF variable name by the table above; InvalidArgument naming
// `tf_name` for anything not in it.
absl::StatusOr<TfVariableMapping> MapTfVariable(absl::string_view tf_name);

}  // namespace bertlab

#endif  // BERTLAB_MODEL_BERT_TF_NAMES_H_
