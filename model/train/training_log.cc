#include "model/train/training_log.h"

#include <cerrno>
#include <cmath>
#include <exception>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "common/file.h"
#include "common/status_macros.h"
#include "nlohmann/json.hpp"

namespace bertlab {
namespace {

// The "step" of a log line, or -1 when the line is not a JSON object with an
// integer step.
int64_t StepOfLine(absl::string_view line) {
  nlohmann::json json = nlohmann::json::parse(line.begin(), line.end(), nullptr,
                                              /*allow_exceptions=*/false);
  if (!json.is_object()) return -1;
  auto it = json.find("step");
  if (it == json.end() || !it->is_number_integer()) return -1;
  return it->get<int64_t>();
}

}  // namespace

absl::StatusOr<std::unique_ptr<MetricsLog>> MetricsLog::Open(
    const std::string& path, int64_t keep_through_step) {
  std::string kept;
  if (keep_through_step >= 0) {
    absl::StatusOr<std::string> old = ReadFileToString(path);
    if (old.ok()) {
      for (absl::string_view line : absl::StrSplit(*old, '\n')) {
        const int64_t step = StepOfLine(line);
        if (step >= 0 && step <= keep_through_step) {
          absl::StrAppend(&kept, line, "\n");
        }
      }
    } else if (!absl::IsNotFound(old.status())) {
      return old.status();
    }
  }
  RETURN_IF_ERROR(WriteFileAtomically(path, kept));
  std::FILE* file = std::fopen(path.c_str(), "ab");
  if (file == nullptr) {
    return absl::ErrnoToStatus(errno, absl::StrCat("cannot open ", path));
  }
  return std::unique_ptr<MetricsLog>(new MetricsLog(path, file));
}

MetricsLog::~MetricsLog() { std::fclose(file_); }

absl::Status MetricsLog::Append(absl::string_view json) {
  if (std::fwrite(json.data(), 1, json.size(), file_) != json.size() ||
      std::fputc('\n', file_) == EOF || std::fflush(file_) != 0) {
    return absl::ErrnoToStatus(errno, absl::StrCat("cannot write ", path_));
  }
  return absl::OkStatus();
}

std::string FormatDuration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "?";
  const int64_t total = static_cast<int64_t>(std::llround(seconds));
  const int64_t hours = total / 3600;
  const int64_t minutes = total / 60 % 60;
  const int64_t secs = total % 60;
  if (hours > 0) return absl::StrFormat("%dh%02dm", hours, minutes);
  if (minutes > 0) return absl::StrFormat("%dm%02ds", minutes, secs);
  return absl::StrFormat("%ds", secs);
}

ProgressLine::ProgressLine(bool live, bool enabled, double interval_seconds)
    : live_(live), enabled_(enabled), interval_seconds_(interval_seconds) {}

void ProgressLine::Update(const std::string& text, bool force) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  const double since = std::chrono::duration<double>(now - last_print_).count();
  if (printed_ && !force && since < (live_ ? 0.1 : interval_seconds_)) return;
  last_print_ = now;
  printed_ = true;
  if (live_) {
    // \r and "erase to end of line", so a shorter line leaves no tail.
    std::fprintf(stderr, "\r%s\x1b[K", text.c_str());
    line_open_ = true;
  } else {
    std::fprintf(stderr, "%s\n", text.c_str());
  }
  std::fflush(stderr);
}

void ProgressLine::Message(const std::string& text) {
  if (enabled_) Warning(text);
}

void ProgressLine::Warning(const std::string& text) {
  if (line_open_) {
    std::fprintf(stderr, "\r\x1b[K");
    line_open_ = false;
  }
  std::fprintf(stderr, "%s\n", text.c_str());
  std::fflush(stderr);
}

void ProgressLine::Finish() {
  if (line_open_) {
    std::fprintf(stderr, "\n");
    std::fflush(stderr);
    line_open_ = false;
  }
}

}  // namespace bertlab
