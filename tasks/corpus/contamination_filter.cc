#include "tasks/corpus/contamination_filter.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "common/fnv1a.h"
#include "tasks/corpus/sentence_splitter.h"

namespace bertlab {
namespace {

int64_t CountWords(absl::string_view normalized) {
  if (normalized.empty()) return 0;
  return 1 + std::count(normalized.begin(), normalized.end(), ' ');
}

}  // namespace

std::string NormalizeForContamination(absl::string_view sentence) {
  // Punctuation to spaces first, then one space between words.
  std::string spaced;
  spaced.reserve(sentence.size());
  for (size_t i = 0; i < sentence.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(sentence[i]);
    if (c >= 'A' && c <= 'Z') {
      spaced += static_cast<char>(c - 'A' + 'a');
    } else if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
      spaced += static_cast<char>(c);
    } else if (c < 0x80) {
      spaced += ' ';
    } else if (c == 0xE2 && i + 2 < sentence.size() &&
               (static_cast<unsigned char>(sentence[i + 1]) == 0x80 ||
                static_cast<unsigned char>(sentence[i + 1]) == 0x81)) {
      spaced += ' ';  // U+2000-U+207F: curly quotes, dashes, ellipses
      i += 2;
    } else {
      spaced += static_cast<char>(c);
    }
  }
  return CollapseWhitespace(spaced);
}

bool ContaminationFilter::Add(absl::string_view sentence) {
  const std::string normalized = NormalizeForContamination(sentence);
  if (CountWords(normalized) < kMinContaminationWords) return false;
  fingerprints_.push_back(Fnv1a64(normalized));
  sorted_ = false;
  return true;
}

void ContaminationFilter::Sort() const {
  if (sorted_) return;
  std::sort(fingerprints_.begin(), fingerprints_.end());
  fingerprints_.erase(std::unique(fingerprints_.begin(), fingerprints_.end()),
                      fingerprints_.end());
  sorted_ = true;
}

bool ContaminationFilter::Contains(absl::string_view sentence) const {
  const std::string normalized = NormalizeForContamination(sentence);
  if (CountWords(normalized) < kMinContaminationWords) return false;
  Sort();
  return std::binary_search(fingerprints_.begin(), fingerprints_.end(),
                            Fnv1a64(normalized));
}

bool ContaminationFilter::Contaminates(const Document& document) const {
  for (const std::string& sentence : document.sentences) {
    if (Contains(sentence)) return true;
  }
  return false;
}

void ContaminationFilter::Merge(const ContaminationFilter& other) {
  other.Sort();
  fingerprints_.insert(fingerprints_.end(), other.fingerprints_.begin(),
                       other.fingerprints_.end());
  sorted_ = false;
}

int64_t ContaminationFilter::size() const {
  Sort();
  return static_cast<int64_t>(fingerprints_.size());
}

std::string ContaminationFilter::Key() const {
  Sort();
  if (fingerprints_.empty()) return "";
  uint64_t hash = Fnv1a64("contamination filter:");
  for (const uint64_t fingerprint : fingerprints_) {
    char bytes[8];  // little-endian, whatever the machine's order
    for (int i = 0; i < 8; ++i) {
      bytes[i] = static_cast<char>((fingerprint >> (8 * i)) & 0xFF);
    }
    hash = Fnv1a64(absl::string_view(bytes, sizeof(bytes)), hash);
  }
  return absl::StrCat("fnv1a64:", Fnv1a64Hex(hash));
}

}  // namespace bertlab
