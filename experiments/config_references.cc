#include "experiments/config_references.h"

#include <algorithm>
#include <filesystem>
#include <system_error>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/file.h"
#include "common/status_macros.h"
#include "experiments/config_merge.h"
#include "experiments/config_paths.h"
#include "google/protobuf/descriptor.h"

namespace bertlab {
namespace experiments {
namespace {

namespace fs = std::filesystem;
using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;

// Deeper than this is a mistake (a cycle is reported as one before this).
constexpr size_t kMaxReferenceDepth = 16;

// How many of `steps` `message` holds, in order. A repeated field it sets
// holds everything below it (a list set in a later file replaces the whole
// list of an earlier one).
size_t HeldDepth(const Message& message, const std::vector<PathStep>& steps) {
  const Message* current = &message;
  const Descriptor* descriptor = message.GetDescriptor();
  for (size_t k = 0; k < steps.size(); ++k) {
    if (current == nullptr || descriptor == nullptr) return k;
    const FieldDescriptor* field = StepField(descriptor, current, steps[k]);
    if (field == nullptr) return k;
    const Message* child = nullptr;
    if (!HasStep(*current, field, steps[k].index, &child)) return k;
    if (field->is_repeated()) return steps.size();
    current = child;
    descriptor = field->message_type();
  }
  return steps.size();
}

bool StartsWith(const std::vector<PathStep>& path,
                const std::vector<PathStep>& prefix) {
  if (prefix.size() > path.size()) return false;
  for (size_t k = 0; k < prefix.size(); ++k) {
    if (path[k].name != prefix[k].name || path[k].index != prefix[k].index) {
      return false;
    }
  }
  return true;
}

std::string JoinPath(const std::vector<PathStep>& steps, size_t from) {
  std::vector<std::string> parts;
  for (size_t k = from; k < steps.size(); ++k) {
    parts.push_back(steps[k].index < 0 ? steps[k].name
                                       : absl::StrCat(steps[k].name, "[",
                                                      steps[k].index, "]"));
  }
  return absl::StrJoin(parts, ".");
}

// "FILE:LINE:COL" of a reference, for the chain shown in messages.
std::string At(absl::string_view source, const TextPosition& position) {
  std::string where = Where(source, position);
  where.resize(where.size() - 2);  // ": "
  return where;
}

std::string ExtendVia(const std::string& via, const std::string& at) {
  if (via.empty()) return absl::StrCat(" (included via ", at, ")");
  return absl::StrCat(via.substr(0, via.size() - 1), ", then ", at, ")");
}

// The way a found file is named in messages: relative to the working
// directory when that is shorter (under `bazel run`, the runfiles tree, so
// "ablations/scales/mini.textproto").
std::string Presentable(const fs::path& path) {
  std::error_code error;
  const fs::path cwd = fs::current_path(error);
  if (error) return path.lexically_normal().string();
  const fs::path relative = path.lexically_normal().lexically_proximate(cwd);
  return relative.empty() || *relative.begin() == ".." ? path.string()
                                                       : relative.string();
}

// The directories a relative reference from `including_file` is looked up
// in: its own, then each one above it up to the root.
std::vector<fs::path> SearchDirectories(const std::string& including_file) {
  std::error_code error;
  fs::path directory =
      fs::absolute(fs::path(including_file), error).parent_path();
  std::vector<fs::path> directories;
  while (!directory.empty()) {
    directories.push_back(directory);
    if (directory == directory.parent_path()) break;
    directory = directory.parent_path();
  }
  return directories;
}

// "; did you mean ...?" among the files beside where `reference` points, in
// the first searched directory that has its folder.
std::string NeighbourSuggestion(const std::vector<fs::path>& directories,
                                const std::string& reference) {
  const fs::path folder = fs::path(reference).parent_path();
  for (const fs::path& directory : directories) {
    std::error_code error;
    if (!fs::is_directory(directory / folder, error)) continue;
    std::vector<std::string> candidates;
    for (const fs::directory_entry& entry :
         fs::directory_iterator(directory / folder, error)) {
      if (entry.path().extension() == ".textproto") {
        candidates.push_back((folder / entry.path().filename()).string());
      }
    }
    if (candidates.empty()) return "";
    std::sort(candidates.begin(), candidates.end());
    return Suggestion(reference, candidates, "files there");
  }
  return "";
}

// The file a reference is written in.
struct Referrer {
  std::string file;
  absl::string_view text;
  std::string via;  // how the resolution got to `file` (ValueOrigin::via)
};

class Resolver {
 public:
  explicit Resolver(ExperimentSources* sources) : sources_(sources) {}

  void ResolveRunSpec(RunSpec* spec, const ParseInfoTree* tree,
                      const Referrer& referrer, const std::string& prefix) {
    const FieldDescriptor* include_field =
        RunSpec::descriptor()->FindFieldByName("include");
    RunSpec merged;
    for (int i = 0; i < spec->include_size(); ++i) {
      const std::string field = absl::StrCat(prefix, ".include[", i, "]");
      RunSpec included;
      ExperimentSources::Layer layer;
      std::string found;
      if (!Load(spec->include(i), referrer, PositionOf(tree, include_field, i),
                field, &included, &layer, &found)) {
        continue;
      }
      layer.prefix = prefix;
      stack_.push_back(found);
      ResolveRunSpec(&included, layer.tree.get(),
                     Referrer{layer.source, layer.text, layer.via}, prefix);
      stack_.pop_back();
      sources_->AddLayer(std::move(layer));
      MergeOverrides(included, &merged);
    }
    spec->clear_include();
    MergeOverrides(*spec, &merged);
    *spec = std::move(merged);
  }

  void ResolveVariant(Variant* variant, const ParseInfoTree* tree,
                      const Referrer& referrer, const std::string& prefix) {
    Variant merged;
    if (variant->has_variant_file()) {
      const FieldDescriptor* variant_file_field =
          Variant::descriptor()->FindFieldByName("variant_file");
      ExperimentSources::Layer layer;
      std::string found;
      if (Load(variant->variant_file(), referrer,
               PositionOf(tree, variant_file_field, -1),
               absl::StrCat(prefix, ".variant_file"), &merged, &layer,
               &found)) {
        layer.prefix = prefix;
        stack_.push_back(found);
        ResolveVariant(&merged, layer.tree.get(),
                       Referrer{layer.source, layer.text, layer.via}, prefix);
        stack_.pop_back();
        sources_->AddLayer(std::move(layer));
      }
    }
    if (variant->has_overrides()) {
      const FieldDescriptor* overrides_field =
          Variant::descriptor()->FindFieldByName("overrides");
      ResolveRunSpec(variant->mutable_overrides(),
                     tree == nullptr
                         ? nullptr
                         : tree->GetTreeForNested(overrides_field, -1),
                     referrer, absl::StrCat(prefix, ".overrides"));
    }
    variant->clear_variant_file();
    MergeOverrides(*variant, &merged);
    *variant = std::move(merged);
  }

  void EnterRoot(const std::string& source) {
    std::error_code error;
    stack_.push_back(fs::absolute(source, error).lexically_normal().string());
  }

  absl::Status status() const {
    if (errors_.empty()) return absl::OkStatus();
    return absl::InvalidArgumentError(absl::StrJoin(errors_, "\n"));
  }

 private:
  static TextPosition PositionOf(const ParseInfoTree* tree,
                                 const FieldDescriptor* field, int index) {
    if (tree == nullptr) return {};
    const auto location = tree->GetLocation(field, index);
    return TextPosition{location.line, location.column};
  }

  // Finds, reads and parses the file `reference` (written in the
  // referrer's file at protobuf position `position`, as the field `field`)
  // into `message`; fills `layer` (but not its prefix) and *found (its
  // absolute path). On failure records the error and returns false.
  template <typename MessageType>
  bool Load(const std::string& reference, const Referrer& referrer,
            TextPosition position, const std::string& field,
            MessageType* message, ExperimentSources::Layer* layer,
            std::string* found_path) {
    const std::string& file = referrer.file;
    const std::string& via = referrer.via;
    position =
        FromProtobuf(Lines(referrer.text), position.line, position.column);
    const std::string at = At(file, position);
    const std::string where =
        absl::StrCat(Where(file, position), field, " (\"", reference, "\") ");
    if (reference.empty()) {
      errors_.push_back(
          absl::StrCat(where, "is empty: name a file of ablations/", via));
      return false;
    }
    std::string found;
    const std::vector<fs::path> directories = SearchDirectories(file);
    std::error_code error;
    if (fs::path(reference).is_absolute()) {
      if (fs::is_regular_file(reference, error)) found = reference;
    } else {
      for (const fs::path& directory : directories) {
        if (fs::is_regular_file(directory / reference, error)) {
          found = (directory / reference).lexically_normal().string();
          break;
        }
      }
    }
    if (found.empty()) {
      errors_.push_back(absl::StrCat(
          where, "is not a file beside ", file, " or in any directory above it",
          NeighbourSuggestion(directories, reference), via));
      return false;
    }
    if (std::find(stack_.begin(), stack_.end(), found) != stack_.end()) {
      std::vector<std::string> chain;
      for (const std::string& path : stack_) {
        chain.push_back(Presentable(path));
      }
      chain.push_back(Presentable(found));
      errors_.push_back(absl::StrCat(where, "refers back to a file it is in: ",
                                     absl::StrJoin(chain, " -> "), via));
      return false;
    }
    if (stack_.size() >= kMaxReferenceDepth) {
      errors_.push_back(absl::StrCat(where, "nests references deeper than ",
                                     kMaxReferenceDepth, via));
      return false;
    }
    layer->source = Presentable(found);
    layer->via = ExtendVia(via, at);
    absl::StatusOr<std::string> text = ReadFileToString(found);
    if (!text.ok()) {
      errors_.push_back(absl::StrCat(where, text.status().message(), via));
      return false;
    }
    layer->text = *std::move(text);
    layer->tree = std::make_unique<ParseInfoTree>();
    const absl::Status parsed = ParseTextStrictly(layer->text, layer->source,
                                                  message, layer->tree.get());
    if (!parsed.ok()) {
      for (absl::string_view line : absl::StrSplit(parsed.message(), '\n')) {
        errors_.push_back(absl::StrCat(line, layer->via));
      }
      return false;
    }
    const fs::path directory = fs::path(found).parent_path();
    VisitPaths(message, "",
               [&](const std::string&, PathRole role, std::string* value) {
                 if (role == DATA_DIR_PATH) return;  // the runner's
                 *value = ResolveAgainst(directory, *value);
               });
    layer->message = std::make_unique<MessageType>(*message);
    *found_path = found;
    return true;
  }

  ExperimentSources* sources_;
  std::vector<std::string> stack_;  // absolute paths being resolved
  std::vector<std::string> errors_;
};

}  // namespace

void ExperimentSources::SetRoot(std::string source, std::string text,
                                std::unique_ptr<Experiment> parsed,
                                std::unique_ptr<ParseInfoTree> tree) {
  root_.source = std::move(source);
  root_.text = std::move(text);
  root_.message = std::move(parsed);
  root_.tree = std::move(tree);
}

void ExperimentSources::AddLayer(Layer layer) {
  layers_.push_back(std::move(layer));
}

ValueOrigin ExperimentSources::OriginIn(const Layer& layer,
                                        absl::string_view path) const {
  ValueOrigin origin{layer.source, {}, layer.via};
  if (layer.message == nullptr || path.empty()) return origin;
  const auto location = Locate(*layer.message, layer.tree.get(), path);
  if (location.line >= 0) {
    origin.position =
        FromProtobuf(Lines(layer.text), location.line, location.column);
  }
  return origin;
}

ValueOrigin ExperimentSources::Find(absl::string_view path) const {
  const std::vector<PathStep> steps = SplitPath(path);
  const Layer* best = nullptr;
  size_t best_depth = 0;
  size_t best_prefix = 0;
  for (const Layer& layer : layers_) {
    const std::vector<PathStep> prefix = SplitPath(layer.prefix);
    if (!StartsWith(steps, prefix)) continue;
    const std::vector<PathStep> rest(steps.begin() + prefix.size(),
                                     steps.end());
    const size_t depth = prefix.size() + HeldDepth(*layer.message, rest);
    if (best == nullptr || depth >= best_depth) {
      best = &layer;
      best_depth = depth;
      best_prefix = prefix.size();
    }
  }
  // The experiment file's own fields win over everything they include.
  if (best == nullptr || root_.message == nullptr ||
      HeldDepth(*root_.message, steps) >= best_depth) {
    return OriginIn(root_, path);
  }
  return OriginIn(*best, JoinPath(steps, best_prefix));
}

absl::Status ResolveReferences(absl::string_view text, absl::string_view source,
                               Experiment* experiment,
                               ExperimentSources* sources) {
  auto parsed = std::make_unique<Experiment>();
  auto tree = std::make_unique<ParseInfoTree>();
  RETURN_IF_ERROR(ParseTextStrictly(text, source, parsed.get(), tree.get()));
  const fs::path directory = fs::path(std::string(source)).parent_path();
  VisitPaths(parsed.get(), "",
             [&](const std::string&, PathRole role, std::string* value) {
               if (role == DATA_DIR_PATH) return;  // the runner's
               *value = ResolveAgainst(directory, *value);
             });
  *experiment = *parsed;

  Resolver resolver(sources);
  resolver.EnterRoot(std::string(source));
  const std::string file(source);
  const Referrer root{file, text, ""};
  if (experiment->has_base()) {
    const FieldDescriptor* base_field =
        Experiment::descriptor()->FindFieldByName("base");
    resolver.ResolveRunSpec(experiment->mutable_base(),
                            tree->GetTreeForNested(base_field, -1), root,
                            "base");
  }
  const FieldDescriptor* variants_field =
      Experiment::descriptor()->FindFieldByName("variants");
  for (int i = 0; i < experiment->variants_size(); ++i) {
    resolver.ResolveVariant(experiment->mutable_variants(i),
                            tree->GetTreeForNested(variants_field, i), root,
                            absl::StrCat("variants[", i, "]"));
  }
  sources->SetRoot(file, std::string(text), std::move(parsed), std::move(tree));
  return resolver.status();
}

}  // namespace experiments
}  // namespace bertlab
