#include "experiments/config_text.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "experiments/experiment.pb.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/io/tokenizer.h"

namespace bertlab {
namespace experiments {

using google::protobuf::Descriptor;
using google::protobuf::EnumDescriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::FileDescriptor;
using google::protobuf::Message;
using google::protobuf::TextFormat;

std::vector<absl::string_view> Lines(absl::string_view text) {
  return absl::StrSplit(text, '\n');
}

TextPosition FromProtobuf(const std::vector<absl::string_view>& lines, int line,
                          int column) {
  if (line < 0 || line >= static_cast<int>(lines.size())) {
    return TextPosition{line, column};
  }
  const absl::string_view text = lines[line];
  int expanded = 0;
  size_t byte = 0;
  while (byte < text.size() && expanded < column) {
    expanded = text[byte] == '\t' ? expanded + 8 - expanded % 8 : expanded + 1;
    ++byte;
  }
  return TextPosition{line, static_cast<int>(byte) + (column - expanded)};
}

std::string Where(absl::string_view source, const TextPosition& position) {
  if (position.line < 0) return absl::StrCat(source, ": ");
  return absl::StrCat(source, ":", position.line + 1, ":", position.column + 1,
                      ": ");
}

namespace {

bool IsIdentifierChar(char c) { return absl::ascii_isalnum(c) || c == '_'; }

// The last whole-word occurrence of `token` that starts at or before
// `position`. protobuf reports some errors at the token after the culprit
// (an unknown enum value at the next line's "}"), so this walks back to it.
TextPosition FindTokenBefore(const std::vector<absl::string_view>& lines,
                             const TextPosition& position,
                             absl::string_view token) {
  if (token.empty() || position.line < 0 ||
      position.line >= static_cast<int>(lines.size())) {
    return position;
  }
  for (int line = position.line; line >= 0; --line) {
    const absl::string_view text = lines[line];
    size_t end =
        line == position.line
            ? std::min<size_t>(std::max(position.column, 0), text.size())
            : text.size();
    while (true) {
      const size_t found = text.substr(0, end + token.size()).rfind(token);
      if (found == absl::string_view::npos || found > end) break;
      const bool starts = found == 0 || !IsIdentifierChar(text[found - 1]);
      const size_t after = found + token.size();
      const bool ends = after >= text.size() || !IsIdentifierChar(text[after]);
      if (starts && ends) return TextPosition{line, static_cast<int>(found)};
      if (found == 0) break;
      end = found - 1;
    }
  }
  return position;
}

// The quoted strings of a protobuf message, in order.
std::vector<std::string> QuotedParts(absl::string_view message) {
  std::vector<std::string> parts;
  std::vector<absl::string_view> pieces = absl::StrSplit(message, '"');
  for (size_t i = 1; i < pieces.size(); i += 2) {
    parts.emplace_back(pieces[i]);
  }
  return parts;
}

size_t EditDistance(absl::string_view a, absl::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1,
                         diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

std::string Suggestion(absl::string_view typed,
                       const std::vector<std::string>& candidates,
                       absl::string_view what) {
  const std::string* best = nullptr;
  size_t best_distance = 0;
  for (const std::string& candidate : candidates) {
    const size_t distance = EditDistance(typed, candidate);
    if (best == nullptr || distance < best_distance) {
      best = &candidate;
      best_distance = distance;
    }
  }
  if (best != nullptr &&
      best_distance <= std::max<size_t>(2, typed.size() / 3)) {
    return absl::StrCat("; did you mean \"", *best, "\"?");
  }
  return absl::StrCat("; ", what, ": ", absl::StrJoin(candidates, ", "));
}

namespace {

// The enum type of the fields of experiment.proto named `field_name`, if all
// of them share one.
const EnumDescriptor* EnumOfField(absl::string_view field_name) {
  const EnumDescriptor* found = nullptr;
  bool ambiguous = false;
  std::vector<const Descriptor*> pending;
  const FileDescriptor* file = Experiment::descriptor()->file();
  for (int i = 0; i < file->message_type_count(); ++i) {
    pending.push_back(file->message_type(i));
  }
  while (!pending.empty()) {
    const Descriptor* descriptor = pending.back();
    pending.pop_back();
    for (int i = 0; i < descriptor->nested_type_count(); ++i) {
      pending.push_back(descriptor->nested_type(i));
    }
    const FieldDescriptor* field =
        descriptor->FindFieldByName(std::string(field_name));
    if (field == nullptr || field->enum_type() == nullptr) continue;
    if (found != nullptr && found != field->enum_type()) ambiguous = true;
    found = field->enum_type();
  }
  return ambiguous ? nullptr : found;
}

// Records TextFormat's errors and warnings (both fail the parse: the parse
// is strict).
class ParseErrorCollector : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, google::protobuf::io::ColumnNumber column,
                const std::string& message) override {
    errors_.push_back(Error{line, column, message});
  }
  void AddWarning(int line, google::protobuf::io::ColumnNumber column,
                  const std::string& message) override {
    errors_.push_back(Error{line, column, message});
  }

  struct Error {
    int line;
    int column;
    std::string message;
  };
  const std::vector<Error>& errors() const { return errors_; }

 private:
  std::vector<Error> errors_;
};

// "source:LINE:COL: message", the position moved onto the culprit and a
// hint added for the errors people make most.
std::string DescribeParseError(absl::string_view source, absl::string_view text,
                               const ParseErrorCollector::Error& error) {
  const std::vector<absl::string_view> lines = Lines(text);
  TextPosition position = FromProtobuf(lines, error.line, error.column);
  std::string message = error.message;
  const std::vector<std::string> quoted = QuotedParts(message);
  if (absl::StartsWith(message, "Message type \"") &&
      absl::StrContains(message, "has no field named") && quoted.size() >= 2) {
    position = FindTokenBefore(lines, position, quoted[1]);
    const Descriptor* descriptor =
        google::protobuf::DescriptorPool::generated_pool()
            ->FindMessageTypeByName(quoted[0]);
    if (descriptor != nullptr) {
      std::vector<std::string> names;
      for (int i = 0; i < descriptor->field_count(); ++i) {
        names.push_back(descriptor->field(i)->name());
      }
      message = absl::StrCat("unknown field \"", quoted[1], "\" in ",
                             descriptor->name(),
                             Suggestion(quoted[1], names, "its fields are"));
    }
  } else if (absl::StartsWith(message, "Unknown enumeration value of") &&
             quoted.size() >= 2) {
    position = FindTokenBefore(lines, position, quoted[0]);
    if (const EnumDescriptor* type = EnumOfField(quoted[1])) {
      std::vector<std::string> names;
      for (int i = 0; i < type->value_count(); ++i) {
        if (type->value(i)->number() != 0) {
          names.push_back(type->value(i)->name());
        }
      }
      message = absl::StrCat("unknown value \"", quoted[0], "\" for field \"",
                             quoted[1], "\"",
                             Suggestion(quoted[0], names, "use one of"));
    }
  } else if (absl::StartsWith(message,
                              "Expected integer or identifier, got: ") &&
             quoted.size() == 1) {
    // A quoted string where an enum value goes ("task: \"mnli\"", as
    // experiment files wrote tasks before they were an enum): the field is
    // the name before the ':' in front of the value.
    if (position.line >= 0 && position.line < static_cast<int>(lines.size())) {
      const absl::string_view before =
          absl::StripTrailingAsciiWhitespace(lines[position.line].substr(
              0, std::min<size_t>(std::max(position.column, 0),
                                  lines[position.line].size())));
      size_t start = before.size();
      if (absl::EndsWith(before, ":")) {
        const absl::string_view field =
            absl::StripTrailingAsciiWhitespace(before.substr(0, start - 1));
        start = field.size();
        while (start > 0 && IsIdentifierChar(field[start - 1])) --start;
        const std::string name(field.substr(start));
        if (const EnumDescriptor* type = EnumOfField(name)) {
          const std::string value = absl::AsciiStrToUpper(quoted[0]);
          std::vector<std::string> names;
          for (int i = 0; i < type->value_count(); ++i) {
            if (type->value(i)->number() != 0) {
              names.push_back(type->value(i)->name());
            }
          }
          const bool exact = type->FindValueByName(value) != nullptr &&
                             type->FindValueByName(value)->number() != 0;
          message = absl::StrCat(
              "field \"", name, "\" takes an enum value, without quotes",
              exact ? absl::StrCat(": ", name, ": ", value)
                    : Suggestion(value, names, "use one of"));
        }
      }
    }
  } else if (absl::StartsWith(message, "Non-repeated field") &&
             !quoted.empty()) {
    position = FindTokenBefore(lines, position, quoted[0]);
    message = absl::StrCat("field \"", quoted[0],
                           "\" is given twice; keep one (overriding is what "
                           "variants are for)");
  } else if (absl::StartsWith(message, "Invalid value for") &&
             quoted.size() >= 2) {
    position = FindTokenBefore(lines, position, quoted[1]);
  } else if (absl::StrContains(message, "another member of oneof") &&
             quoted.size() >= 3) {
    position = FindTokenBefore(lines, position, quoted[0]);
    message =
        absl::StrCat("\"", quoted[0], "\" and \"", quoted[1],
                     "\" exclude each other (oneof ", quoted[2], "); keep one");
  }
  return absl::StrCat(Where(source, position), message);
}
}  // namespace

absl::Status ParseTextStrictly(absl::string_view text, absl::string_view source,
                               Message* message, ParseInfoTree* tree) {
  message->Clear();
  // A carriage return alone ends no line for the parser, which would then
  // read the whole file as one comment line or report a later symptom
  // ("base is required").
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\r' && (i + 1 == text.size() || text[i + 1] != '\n')) {
      const int line = 1 + static_cast<int>(std::count(text.begin(),
                                                       text.begin() + i, '\n'));
      return absl::InvalidArgumentError(absl::StrCat(
          source, ":", line,
          ": a carriage return without a line feed: the file has CR-only "
          "(classic Mac) line ends; save it with LF (or CRLF) line ends"));
    }
  }
  ParseErrorCollector collector;
  TextFormat::Parser parser;
  parser.RecordErrorsTo(&collector);
  if (tree != nullptr) parser.WriteLocationsTo(tree);
  // The defaults already refuse unknown fields and extensions, field
  // numbers for names and a singular field given twice; said here so that
  // it stays so.
  parser.AllowUnknownField(false);
  parser.AllowUnknownExtension(false);
  parser.AllowFieldNumber(false);
  parser.AllowPartialMessage(false);
  const bool parsed = parser.ParseFromString(std::string(text), message);
  if (parsed && collector.errors().empty()) return absl::OkStatus();
  std::vector<std::string> messages;
  for (const ParseErrorCollector::Error& error : collector.errors()) {
    messages.push_back(DescribeParseError(source, text, error));
  }
  if (messages.empty()) {
    messages.push_back(absl::StrCat(source, ": not a text-format ",
                                    message->GetDescriptor()->name()));
  }
  return absl::InvalidArgumentError(absl::StrJoin(messages, "\n"));
}

}  // namespace experiments
}  // namespace bertlab
