// References between experiment files: RunSpec.include (a scale's base, a
// model size) and Variant.variant_file (ablations/variants/*.textproto),
// resolved into one self-contained Experiment, and the place each value was
// written, for messages that name the file, line and column and the chain of
// references that led there.
//
//   ExperimentSources sources;
//   RETURN_IF_ERROR(ResolveReferences(text, "experiments/t.textproto",
//                                     &experiment, &sources));
//   const ValueOrigin origin = sources.Find("base.pretraining.seed");
//   // origin.source = "ablations/scales/mini.textproto", origin.position,
//   // origin.via = " (included via experiments/t.textproto:20:3)"
//
// Resolution (the same rule as a variant's overrides, MergeOverrides):
//   RunSpec with include [f1, f2] = f1, then f2, then its own fields;
//   variant with variant_file f   = f's variant, then its own fields.
// Included files resolve their own references first; a reference to a file
// already being resolved is a cycle and an error. Relative (path_role)
// fields of an included file are relative to that file, but for
// DATA_DIR_PATH ones, which stay relative to the runner's --data_dir.
#ifndef BERTLAB_EXPERIMENTS_CONFIG_REFERENCES_H_
#define BERTLAB_EXPERIMENTS_CONFIG_REFERENCES_H_

#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "experiments/config_text.h"
#include "experiments/experiment.pb.h"
#include "google/protobuf/message.h"

namespace bertlab {
namespace experiments {

// Where a value of the resolved experiment was written.
struct ValueOrigin {
  std::string source;     // the file
  TextPosition position;  // line -1 when the path is not in any text
  // "" for the experiment file itself, else " (included via A:L:C, then
  // B:L:C)": the references that led to `source`, outermost first.
  std::string via;
};

// The files an experiment was resolved from, with their texts and parse
// trees. Move-only (it owns the parse trees).
class ExperimentSources {
 public:
  // The experiment file itself, parsed (before resolution).
  void SetRoot(std::string source, std::string text,
               std::unique_ptr<Experiment> parsed,
               std::unique_ptr<ParseInfoTree> tree);

  // The file that sets the deepest part of `path` (from the top of the
  // Experiment, "variants[1].overrides.pretraining.seed"); among files that
  // reach equally deep, the one that wins the merge. Falls back to the
  // experiment file (position -1 when nothing of the path is there).
  ValueOrigin Find(absl::string_view path) const;

  // Records a referenced file's parsed message, which sits at `prefix` of
  // the Experiment ("base", "variants[2]", "variants[2].overrides"). Files
  // are recorded in merge order, lowest priority first.
  struct Layer {
    std::string source;
    std::string text;
    std::unique_ptr<google::protobuf::Message> message;
    std::unique_ptr<ParseInfoTree> tree;
    std::string prefix;
    std::string via;
  };
  void AddLayer(Layer layer);

  const std::string& root_source() const { return root_.source; }

 private:
  ValueOrigin OriginIn(const Layer& layer, absl::string_view path) const;

  Layer root_;
  std::deque<Layer> layers_;
};

// Parses the experiment file's `text` strictly (config_text.h), resolves its
// (path_role) fields against its directory, then every reference (see the
// top of this file), so that `experiment` holds no include and no
// variant_file. Errors name the file, line and column and, for a referenced
// file, the chain that led to it: a parse error in it, a missing file (with
// a did-you-mean among its neighbours), a cycle.
absl::Status ResolveReferences(absl::string_view text, absl::string_view source,
                               Experiment* experiment,
                               ExperimentSources* sources);

}  // namespace experiments
}  // namespace bertlab

#endif  // BERTLAB_EXPERIMENTS_CONFIG_REFERENCES_H_
