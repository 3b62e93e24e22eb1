#include "tasks/vocab.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/check.h"
#include "common/file.h"
#include "common/status_macros.h"
#include "tasks/utf8.h"

namespace bertlab {

absl::StatusOr<Vocab> Vocab::LoadFile(const std::string& path) {
  ASSIGN_OR_RETURN(const std::string contents, ReadFileToString(path),
                   _.Prepend("cannot read vocabulary: "));
  return Parse(contents, path);
}

absl::StatusOr<Vocab> Vocab::Parse(absl::string_view contents,
                                   absl::string_view source) {
  std::vector<std::string> tokens;
  size_t begin = 0;
  while (begin < contents.size()) {
    size_t end = contents.find('\n', begin);
    if (end == absl::string_view::npos) end = contents.size();
    absl::string_view line = contents.substr(begin, end - begin);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    tokens.emplace_back(line);
    begin = end + 1;
  }
  return FromTokens(std::move(tokens), source);
}

absl::StatusOr<Vocab> Vocab::FromTokens(std::vector<std::string> tokens,
                                        absl::string_view source) {
  if (tokens.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": the vocabulary is empty"));
  }
  Vocab vocab;
  vocab.source_ = std::string(source);
  vocab.ids_.reserve(tokens.size());
  uint64_t hash = kFnv1a64Offset;
  for (size_t id = 0; id < tokens.size(); ++id) {
    const std::string& token = tokens[id];
    const size_t line = id + 1;
    if (token.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(source, ":", line, ": empty token (id ", id, ")"));
    }
    if (!IsValidUtf8(token)) {
      return absl::InvalidArgumentError(absl::StrCat(
          source, ":", line, ": token (id ", id, ") is not valid UTF-8"));
    }
    const auto [it, inserted] = vocab.ids_.emplace(token, static_cast<int>(id));
    if (!inserted) {
      return absl::InvalidArgumentError(absl::StrCat(
          source, ": duplicate token \"", token, "\" on line ", it->second + 1,
          " (id ", it->second, ") and line ", line, " (id ", id, ")"));
    }
    hash = Fnv1a64(token, hash);
    hash = Fnv1a64("\n", hash);
  }
  vocab.tokens_ = std::move(tokens);
  vocab.content_hash_ = hash;
  return vocab;
}

std::optional<int> Vocab::TokenToId(absl::string_view token) const {
  const auto it = ids_.find(token);
  if (it == ids_.end()) return std::nullopt;
  return it->second;
}

bool Vocab::Contains(absl::string_view token) const {
  return ids_.contains(token);
}

const std::string& Vocab::IdToToken(int id) const {
  CHECK(id >= 0 && id < size())
      << "token id " << id << " outside [0, " << size() << ") of " << source_;
  return tokens_[static_cast<size_t>(id)];
}

std::string Vocab::ContentHashHex() const { return Fnv1a64Hex(content_hash_); }

}  // namespace bertlab
