#include "experiments/config_paths.h"

#include <algorithm>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/check.h"
#include "google/protobuf/descriptor.h"

namespace bertlab {
namespace experiments {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::OneofDescriptor;
using google::protobuf::Reflection;
using google::protobuf::TextFormat;

std::vector<PathStep> SplitPath(absl::string_view path) {
  std::vector<PathStep> steps;
  for (absl::string_view part : absl::StrSplit(path, '.')) {
    PathStep step;
    const size_t bracket = part.find('[');
    if (bracket == absl::string_view::npos) {
      step.name = std::string(part);
    } else {
      step.name = std::string(part.substr(0, bracket));
      absl::string_view digits = part.substr(bracket + 1);
      digits.remove_suffix(1);  // ']'
      CHECK(absl::SimpleAtoi(digits, &step.index)) << path;
    }
    steps.push_back(std::move(step));
  }
  return steps;
}

const FieldDescriptor* StepField(const Descriptor* descriptor,
                                 const Message* message, const PathStep& step) {
  if (const FieldDescriptor* field = descriptor->FindFieldByName(step.name)) {
    return field;
  }
  const OneofDescriptor* oneof = descriptor->FindOneofByName(step.name);
  CHECK(oneof != nullptr) << "no field " << step.name << " in "
                          << descriptor->full_name();
  if (message == nullptr) return nullptr;
  return message->GetReflection()->GetOneofFieldDescriptor(*message, oneof);
}

bool HasStep(const Message& message, const FieldDescriptor* field, int index,
             const Message** child) {
  const Reflection* reflection = message.GetReflection();
  *child = nullptr;
  if (field->is_repeated()) {
    const int size = reflection->FieldSize(message, field);
    if (index >= size || size == 0) return false;
    if (index >= 0 && field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
      *child = &reflection->GetRepeatedMessage(message, field, index);
    }
    return true;
  }
  if (!reflection->HasField(message, field)) return false;
  if (field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
    *child = &reflection->GetMessage(message, field);
  }
  return true;
}

TextFormat::ParseLocation Locate(const Message& root, const ParseInfoTree* tree,
                                 absl::string_view path) {
  TextFormat::ParseLocation best;  // line -1
  const Message* message = &root;
  const Descriptor* descriptor = root.GetDescriptor();
  for (const PathStep& step : SplitPath(path)) {
    if (tree == nullptr || message == nullptr) break;
    const FieldDescriptor* field = StepField(descriptor, message, step);
    if (field == nullptr) break;
    const int index = field->is_repeated() ? std::max(step.index, 0) : -1;
    const TextFormat::ParseLocation location = tree->GetLocation(field, index);
    if (location.line < 0) break;
    best = location;
    if (field->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) break;
    tree = tree->GetTreeForNested(field, index);
    const Message* child = nullptr;
    HasStep(*message, field, index, &child);
    message = child;
    descriptor = field->message_type();
  }
  return best;
}

PathRole RoleOf(const FieldDescriptor* field) {
  return field->options().GetExtension(path_role);
}

void VisitPaths(Message* message, const std::string& prefix,
                const PathVisitor& visit) {
  const Reflection* reflection = message->GetReflection();
  std::vector<const FieldDescriptor*> fields;
  reflection->ListFields(*message, &fields);
  for (const FieldDescriptor* field : fields) {
    const std::string name = absl::StrCat(prefix, field->name());
    if (field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
      if (field->is_repeated()) {
        for (int i = 0; i < reflection->FieldSize(*message, field); ++i) {
          VisitPaths(reflection->MutableRepeatedMessage(message, field, i),
                     absl::StrCat(name, "[", i, "]."), visit);
        }
      } else {
        VisitPaths(reflection->MutableMessage(message, field),
                   absl::StrCat(name, "."), visit);
      }
      continue;
    }
    if (field->cpp_type() != FieldDescriptor::CPPTYPE_STRING) continue;
    const PathRole role = RoleOf(field);
    if (role == PATH_ROLE_UNSPECIFIED) continue;
    if (field->is_repeated()) {
      for (int i = 0; i < reflection->FieldSize(*message, field); ++i) {
        std::string value = reflection->GetRepeatedString(*message, field, i);
        visit(absl::StrCat(name, "[", i, "]"), role, &value);
        reflection->SetRepeatedString(message, field, i, std::move(value));
      }
    } else {
      std::string value = reflection->GetString(*message, field);
      visit(name, role, &value);
      reflection->SetString(message, field, std::move(value));
    }
  }
}

std::string ResolveAgainst(const std::filesystem::path& directory,
                           const std::string& path) {
  if (path.empty() || path[0] == '/' || directory.empty()) return path;
  return (directory / path).lexically_normal().string();
}

}  // namespace experiments
}  // namespace bertlab
