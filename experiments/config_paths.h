// Field paths into experiment.proto messages
// ("pretraining.sequence_schedule.phases[1].batch_size"; a oneof's name stands
// for whichever member is set), their positions in a parsed text, and the
// (path_role) string fields that name files.
#ifndef BERTLAB_EXPERIMENTS_CONFIG_PATHS_H_
#define BERTLAB_EXPERIMENTS_CONFIG_PATHS_H_

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "experiments/config_text.h"
#include "experiments/experiment.pb.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"
#include "google/protobuf/text_format.h"

namespace bertlab {
namespace experiments {

struct PathStep {
  std::string name;
  int index = -1;  // for repeated fields; -1 = the field as a whole
};

// "a.b[2].c" -> {a}, {b, 2}, {c}. CHECKs a malformed index.
std::vector<PathStep> SplitPath(absl::string_view path);

// The field `step` names in `message` (type `descriptor`): a field, or for a
// oneof's name the member `message` has set (nullptr when none is, or when
// `message` is nullptr).
const google::protobuf::FieldDescriptor* StepField(
    const google::protobuf::Descriptor* descriptor,
    const google::protobuf::Message* message, const PathStep& step);

// Whether `message` has `field` (element `index` of a repeated one, or any
// element for index -1); sets *child to that message value if it has it.
bool HasStep(const google::protobuf::Message& message,
             const google::protobuf::FieldDescriptor* field, int index,
             const google::protobuf::Message** child);

// The text position of the deepest step of `path` (from `root`, whose parse
// tree is `tree`) that appears in the text; line -1 when none does.
google::protobuf::TextFormat::ParseLocation Locate(
    const google::protobuf::Message& root, const ParseInfoTree* tree,
    absl::string_view path);

PathRole RoleOf(const google::protobuf::FieldDescriptor* field);

// Calls visit(path_from_prefix, role, &value) for every set string field
// marked (path_role) under `message`, then stores the value back.
using PathVisitor = std::function<void(const std::string& path, PathRole role,
                                       std::string* value)>;
void VisitPaths(google::protobuf::Message* message, const std::string& prefix,
                const PathVisitor& visit);

// `path` made relative to `directory` (absolute paths and an empty directory
// leave it as it is).
std::string ResolveAgainst(const std::filesystem::path& directory,
                           const std::string& path);

}  // namespace experiments
}  // namespace bertlab

#endif  // BERTLAB_EXPERIMENTS_CONFIG_PATHS_H_
