#include "experiments/config_merge.h"

#include <vector>

#include "common/check.h"
#include "google/protobuf/descriptor.h"

namespace bertlab {
namespace experiments {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

// Copies singular field `field` of `from` into `to`.
void CopySingular(const Message& from, const FieldDescriptor* field,
                  Message* to) {
  const Reflection* in = from.GetReflection();
  const Reflection* out = to->GetReflection();
  switch (field->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32:
      out->SetInt32(to, field, in->GetInt32(from, field));
      break;
    case FieldDescriptor::CPPTYPE_INT64:
      out->SetInt64(to, field, in->GetInt64(from, field));
      break;
    case FieldDescriptor::CPPTYPE_UINT32:
      out->SetUInt32(to, field, in->GetUInt32(from, field));
      break;
    case FieldDescriptor::CPPTYPE_UINT64:
      out->SetUInt64(to, field, in->GetUInt64(from, field));
      break;
    case FieldDescriptor::CPPTYPE_DOUBLE:
      out->SetDouble(to, field, in->GetDouble(from, field));
      break;
    case FieldDescriptor::CPPTYPE_FLOAT:
      out->SetFloat(to, field, in->GetFloat(from, field));
      break;
    case FieldDescriptor::CPPTYPE_BOOL:
      out->SetBool(to, field, in->GetBool(from, field));
      break;
    case FieldDescriptor::CPPTYPE_ENUM:
      out->SetEnumValue(to, field, in->GetEnumValue(from, field));
      break;
    case FieldDescriptor::CPPTYPE_STRING:
      out->SetString(to, field, in->GetString(from, field));
      break;
    case FieldDescriptor::CPPTYPE_MESSAGE:
      out->MutableMessage(to, field)->CopyFrom(in->GetMessage(from, field));
      break;
  }
}

// Appends element `index` of repeated `field` of `from` to `to`.
void AppendElement(const Message& from, const FieldDescriptor* field, int index,
                   Message* to) {
  const Reflection* in = from.GetReflection();
  const Reflection* out = to->GetReflection();
  switch (field->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32:
      out->AddInt32(to, field, in->GetRepeatedInt32(from, field, index));
      break;
    case FieldDescriptor::CPPTYPE_INT64:
      out->AddInt64(to, field, in->GetRepeatedInt64(from, field, index));
      break;
    case FieldDescriptor::CPPTYPE_UINT32:
      out->AddUInt32(to, field, in->GetRepeatedUInt32(from, field, index));
      break;
    case FieldDescriptor::CPPTYPE_UINT64:
      out->AddUInt64(to, field, in->GetRepeatedUInt64(from, field, index));
      break;
    case FieldDescriptor::CPPTYPE_DOUBLE:
      out->AddDouble(to, field, in->GetRepeatedDouble(from, field, index));
      break;
    case FieldDescriptor::CPPTYPE_FLOAT:
      out->AddFloat(to, field, in->GetRepeatedFloat(from, field, index));
      break;
    case FieldDescriptor::CPPTYPE_BOOL:
      out->AddBool(to, field, in->GetRepeatedBool(from, field, index));
      break;
    case FieldDescriptor::CPPTYPE_ENUM:
      out->AddEnumValue(to, field,
                        in->GetRepeatedEnumValue(from, field, index));
      break;
    case FieldDescriptor::CPPTYPE_STRING:
      out->AddString(to, field, in->GetRepeatedString(from, field, index));
      break;
    case FieldDescriptor::CPPTYPE_MESSAGE:
      out->AddMessage(to, field)->CopyFrom(
          in->GetRepeatedMessage(from, field, index));
      break;
  }
}

void SetToDefault(const FieldDescriptor* field, Message* message) {
  const Reflection* reflection = message->GetReflection();
  switch (field->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32:
      reflection->SetInt32(message, field, field->default_value_int32());
      break;
    case FieldDescriptor::CPPTYPE_INT64:
      reflection->SetInt64(message, field, field->default_value_int64());
      break;
    case FieldDescriptor::CPPTYPE_UINT32:
      reflection->SetUInt32(message, field, field->default_value_uint32());
      break;
    case FieldDescriptor::CPPTYPE_UINT64:
      reflection->SetUInt64(message, field, field->default_value_uint64());
      break;
    case FieldDescriptor::CPPTYPE_DOUBLE:
      reflection->SetDouble(message, field, field->default_value_double());
      break;
    case FieldDescriptor::CPPTYPE_FLOAT:
      reflection->SetFloat(message, field, field->default_value_float());
      break;
    case FieldDescriptor::CPPTYPE_BOOL:
      reflection->SetBool(message, field, field->default_value_bool());
      break;
    case FieldDescriptor::CPPTYPE_ENUM:
      reflection->SetEnum(message, field, field->default_value_enum());
      break;
    case FieldDescriptor::CPPTYPE_STRING:
      reflection->SetString(message, field, field->default_value_string());
      break;
    case FieldDescriptor::CPPTYPE_MESSAGE:
      CHECK(false) << "messages have no default";
      break;
  }
}

}  // namespace

void MergeOverrides(const Message& overrides, Message* target) {
  CHECK(overrides.GetDescriptor() == target->GetDescriptor())
      << overrides.GetDescriptor()->full_name() << " vs "
      << target->GetDescriptor()->full_name();
  const Reflection* reflection = overrides.GetReflection();
  const Reflection* target_reflection = target->GetReflection();
  std::vector<const FieldDescriptor*> fields;
  reflection->ListFields(overrides, &fields);
  for (const FieldDescriptor* field : fields) {
    if (field->is_repeated()) {
      target_reflection->ClearField(target, field);
      for (int i = 0; i < reflection->FieldSize(overrides, field); ++i) {
        AppendElement(overrides, field, i, target);
      }
    } else if (field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
      // MutableMessage clears another member of the field's oneof.
      MergeOverrides(reflection->GetMessage(overrides, field),
                     target_reflection->MutableMessage(target, field));
    } else {
      CopySingular(overrides, field, target);
    }
  }
}

void FillDefaults(Message* message) {
  const Descriptor* descriptor = message->GetDescriptor();
  const Reflection* reflection = message->GetReflection();
  for (int i = 0; i < descriptor->field_count(); ++i) {
    const FieldDescriptor* field = descriptor->field(i);
    const bool is_message =
        field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE;
    if (field->is_repeated()) {
      if (!is_message) continue;
      for (int j = 0; j < reflection->FieldSize(*message, field); ++j) {
        FillDefaults(reflection->MutableRepeatedMessage(message, field, j));
      }
    } else if (field->containing_oneof() != nullptr) {
      // Filling would choose a member; fill inside the chosen one only.
      if (is_message && reflection->HasField(*message, field)) {
        FillDefaults(reflection->MutableMessage(message, field));
      }
    } else if (is_message) {
      FillDefaults(reflection->MutableMessage(message, field));
    } else if (field->has_default_value() &&
               !reflection->HasField(*message, field)) {
      SetToDefault(field, message);
    }
  }
}

}  // namespace experiments
}  // namespace bertlab
