#include "tasks/squad/squad_reader.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/file.h"
#include "common/status_macros.h"
#include "tasks/unicode_text.h"
#include "tasks/utf8.h"

namespace bertlab {
namespace {

using Json = nlohmann::json;

// Finds the 1-based line of each question id, moving forward through the
// file as the questions come in file order.
class LineFinder {
 public:
  explicit LineFinder(absl::string_view text) : text_(text) {}

  // The line of the first occurrence of "qid" (quoted) at or after the
  // previous find, else anywhere; 0 when the id is not in the file verbatim.
  int64_t Find(absl::string_view qid) {
    const std::string needle = absl::StrCat("\"", qid, "\"");
    size_t at = text_.find(needle, cursor_);
    if (at == absl::string_view::npos) {
      at = text_.find(needle);
      if (at == absl::string_view::npos) return 0;
      cursor_ = 0;
      line_ = 1;
    }
    line_ += std::count(text_.begin() + cursor_, text_.begin() + at, '\n');
    cursor_ = at;
    return line_;
  }

 private:
  absl::string_view text_;
  size_t cursor_ = 0;
  int64_t line_ = 1;
};

// "source:LINE:COLUMN: invalid JSON: <reason>", the position 1-based as
// nlohmann counts it (its error.byte is the offset just past the character
// it stopped at; columns count bytes).
absl::Status JsonSyntaxError(absl::string_view text, absl::string_view source,
                             const Json::parse_error& error) {
  // The character it stopped at, 0-based.
  const size_t stop =
      std::min<size_t>(error.byte == 0 ? 0 : error.byte - 1, text.size());
  const absl::string_view before = text.substr(0, stop);
  const size_t newline = before.rfind('\n');
  const size_t line_start =
      newline == absl::string_view::npos ? 0 : newline + 1;
  const int64_t line = 1 + std::count(before.begin(), before.end(), '\n');
  const int64_t column = static_cast<int64_t>(stop - line_start) + 1;
  // nlohmann's text is "[json.exception.parse_error.101] parse error at line
  // L, column C: <reason>"; keep the reason.
  absl::string_view reason = error.what();
  const size_t at = reason.find("parse error");
  const size_t colon =
      reason.find(": ", at == absl::string_view::npos ? 0 : at);
  if (colon != absl::string_view::npos) reason.remove_prefix(colon + 2);
  return absl::InvalidArgumentError(
      absl::StrCat(source, ":", line, ":", column, ": invalid JSON: ", reason));
}

absl::Status FieldError(absl::string_view where, absl::string_view path,
                        absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(where, ": ", path, what));
}

absl::StatusOr<const Json*> Field(const Json& object, const char* key,
                                  Json::value_t type, absl::string_view where,
                                  const std::string& path) {
  if (!object.is_object()) {
    return FieldError(where, path, " is not a JSON object");
  }
  auto it = object.find(key);
  if (it == object.end()) {
    return FieldError(where, path, absl::StrCat(" has no field \"", key, "\""));
  }
  const bool type_ok =
      type == Json::value_t::number_integer
          ? it->is_number_integer()
          : (type == Json::value_t::boolean ? it->is_boolean()
                                            : it->type() == type);
  if (!type_ok) {
    const char* wanted = type == Json::value_t::array     ? "an array"
                         : type == Json::value_t::string  ? "a string"
                         : type == Json::value_t::boolean ? "a boolean"
                                                          : "an integer";
    return FieldError(where, path,
                      absl::StrCat(".", key, " is not ", wanted, " (it is ",
                                   it->type_name(), ")"));
  }
  return &*it;
}

// tokenization.whitespace_tokenize, joined: " ".join(text.strip().split()).
std::string PythonSplitJoin(absl::string_view text) {
  std::vector<std::string> words;
  std::u32string current;
  for (char32_t c : DecodeUtf8Lenient(text)) {
    if (IsPythonWhitespace(c)) {
      if (!current.empty()) words.push_back(EncodeUtf8(current));
      current.clear();
    } else {
      current.push_back(c);
    }
  }
  if (!current.empty()) words.push_back(EncodeUtf8(current));
  return absl::StrJoin(words, " ");
}

std::string JoinDocTokens(const SquadParagraph& paragraph, int32_t start,
                          int32_t end) {
  return absl::StrJoin(paragraph.doc_tokens.begin() + start,
                       paragraph.doc_tokens.begin() + end + 1, " ");
}

}  // namespace

bool IsSquadDocWhitespace(char32_t c) {
  return c == U' ' || c == U'\t' || c == U'\r' || c == U'\n' || c == 0x202F;
}

SquadParagraph SplitSquadContext(std::string context) {
  SquadParagraph paragraph;
  paragraph.context = std::move(context);
  const absl::string_view text = paragraph.context;
  bool prev_is_whitespace = true;
  for (size_t i = 0; i < text.size();) {
    char32_t c;
    const size_t length = DecodeUtf8At(text, i, &c);
    if (IsSquadDocWhitespace(c)) {
      prev_is_whitespace = true;
    } else {
      if (prev_is_whitespace) {
        paragraph.doc_tokens.emplace_back();
      }
      paragraph.doc_tokens.back().append(text.data() + i, length);
      prev_is_whitespace = false;
    }
    paragraph.char_to_word_offset.push_back(
        static_cast<int32_t>(paragraph.doc_tokens.size()) - 1);
    i += length;
  }
  return paragraph;
}

absl::StatusOr<SquadDataset> ParseSquadJson(absl::string_view json_text,
                                            absl::string_view source,
                                            const SquadReadOptions& options) {
  Json root;
  try {
    root = Json::parse(json_text.begin(), json_text.end());
  } catch (const Json::parse_error& error) {
    return JsonSyntaxError(json_text, source, error);
  } catch (const Json::exception& error) {
    // Well-formed but refused: a number too large for a double
    // (out_of_range.406), which nlohmann does not report as parse_error.
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": invalid JSON: ", error.what()));
  }
  SquadDataset dataset;
  dataset.source = std::string(source);
  if (root.is_object() && root.contains("version") &&
      root["version"].is_string()) {
    dataset.version = root["version"].get<std::string>();
  }
  LineFinder lines(json_text);
  ASSIGN_OR_RETURN(const Json* data, Field(root, "data", Json::value_t::array,
                                           source, "(top level)"));
  for (size_t a = 0; a < data->size(); ++a) {
    const std::string article_path = absl::StrCat("data[", a, "]");
    ASSIGN_OR_RETURN(const Json* paragraphs,
                     Field((*data)[a], "paragraphs", Json::value_t::array,
                           source, article_path));
    for (size_t p = 0; p < paragraphs->size(); ++p) {
      const std::string paragraph_path =
          absl::StrCat(article_path, ".paragraphs[", p, "]");
      const Json& paragraph_json = (*paragraphs)[p];
      ASSIGN_OR_RETURN(const Json* context,
                       Field(paragraph_json, "context", Json::value_t::string,
                             source, paragraph_path));
      ASSIGN_OR_RETURN(const Json* qas,
                       Field(paragraph_json, "qas", Json::value_t::array,
                             source, paragraph_path));
      const int64_t paragraph_index =
          static_cast<int64_t>(dataset.paragraphs.size());
      dataset.paragraphs.push_back(
          SplitSquadContext(context->get<std::string>()));
      dataset.paragraphs.back().article = static_cast<int64_t>(a);
      const SquadParagraph& paragraph = dataset.paragraphs.back();
      const int64_t num_chars =
          static_cast<int64_t>(paragraph.char_to_word_offset.size());
      const std::u32string context_chars =
          options.is_training ? std::u32string()
                              : DecodeUtf8Lenient(paragraph.context);

      for (size_t q = 0; q < qas->size(); ++q) {
        const std::string qa_path =
            absl::StrCat(paragraph_path, ".qas[", q, "]");
        const Json& qa = (*qas)[q];
        SquadExample example;
        example.paragraph_index = paragraph_index;
        {
          ASSIGN_OR_RETURN(
              const Json* id,
              Field(qa, "id", Json::value_t::string, source, qa_path));
          example.qid = id->get<std::string>();
        }
        example.line = lines.Find(example.qid);
        const std::string where = absl::StrCat(source, ":", example.line);
        const std::string question_where =
            absl::StrCat(where, ": question ", example.qid);
        ASSIGN_OR_RETURN(
            const Json* question,
            Field(qa, "question", Json::value_t::string, where, qa_path));
        example.question_text = question->get<std::string>();
        if (qa.contains("is_impossible")) {
          dataset.has_impossible = true;
          ASSIGN_OR_RETURN(const Json* impossible,
                           Field(qa, "is_impossible", Json::value_t::boolean,
                                 where, qa_path));
          example.is_impossible = impossible->get<bool>();
        }
        ASSIGN_OR_RETURN(
            const Json* answers,
            Field(qa, "answers", Json::value_t::array, where, qa_path));
        for (size_t i = 0; i < answers->size(); ++i) {
          const std::string answer_path =
              absl::StrCat(qa_path, ".answers[", i, "]");
          ASSIGN_OR_RETURN(const Json* text,
                           Field((*answers)[i], "text", Json::value_t::string,
                                 where, answer_path));
          ASSIGN_OR_RETURN(
              const Json* start,
              Field((*answers)[i], "answer_start",
                    Json::value_t::number_integer, where, answer_path));
          example.answers.push_back(
              SquadAnswer{text->get<std::string>(), start->get<int64_t>()});
        }
        ++dataset.stats.num_questions;
        if (example.is_impossible) ++dataset.stats.num_impossible;

        if (options.is_training) {
          if (example.answers.size() != 1 && !example.is_impossible) {
            return absl::InvalidArgumentError(
                absl::StrCat(question_where,
                             ": for training, each question should have "
                             "exactly 1 answer (it has ",
                             example.answers.size(), ")"));
          }
          if (example.is_impossible) {
            dataset.examples.push_back(std::move(example));
            continue;
          }
        }
        if (example.answers.empty()) {
          dataset.examples.push_back(std::move(example));
          continue;
        }
        const SquadAnswer& answer = example.answers[0];
        const int64_t answer_length =
            static_cast<int64_t>(DecodeUtf8Lenient(answer.text).size());
        // Not answer_start + answer_length <= num_chars: that overflows for
        // an answer_start near INT64_MAX.
        const bool in_range = answer.answer_start >= 0 && answer_length > 0 &&
                              answer.answer_start <= num_chars - answer_length;
        if (!in_range) {
          if (options.is_training) {
            return absl::InvalidArgumentError(absl::StrCat(
                question_where, ": the answer (answer_start ",
                answer.answer_start, ", ", answer_length,
                " characters) is empty or does not lie inside the context (",
                num_chars, " characters)"));
          }
        } else {
          example.orig_answer_text = answer.text;
          example.start_position =
              paragraph.char_to_word_offset[answer.answer_start];
          example.end_position =
              paragraph
                  .char_to_word_offset[answer.answer_start + answer_length - 1];
        }
        if (options.is_training) {
          // An answer that starts in the context's leading whitespace has no
          // doc token (the reference's index -1): not found.
          const std::string actual_text =
              example.start_position < 0
                  ? std::string()
                  : JoinDocTokens(paragraph, example.start_position,
                                  example.end_position);
          const std::string cleaned_answer_text = PythonSplitJoin(answer.text);
          if (example.start_position < 0 || cleaned_answer_text.empty() ||
              actual_text.find(cleaned_answer_text) == std::string::npos) {
            ++dataset.stats.num_skipped_answer_not_found;
            dataset.stats.skipped.push_back(
                absl::StrCat(question_where, ": could not find answer: '",
                             actual_text, "' vs. '", cleaned_answer_text, "'"));
            continue;
          }
        } else {
          // Evaluation keeps every answer; count the ones not at offset.
          for (const SquadAnswer& each : example.answers) {
            const std::u32string chars = DecodeUtf8Lenient(each.text);
            const int64_t length = static_cast<int64_t>(chars.size());
            if (each.answer_start < 0 ||
                each.answer_start >
                    static_cast<int64_t>(context_chars.size()) - length ||
                context_chars.compare(each.answer_start, length, chars) != 0) {
              ++dataset.stats.num_answers_not_at_offset;
            }
          }
        }
        dataset.examples.push_back(std::move(example));
      }
    }
  }
  return dataset;
}

absl::StatusOr<SquadDataset> ReadSquadFile(const std::string& path,
                                           const SquadReadOptions& options) {
  ASSIGN_OR_RETURN(const std::string text, ReadFileToString(path));
  return ParseSquadJson(text, path, options);
}

}  // namespace bertlab
