// What a training run tells its user: the JSONL metrics log and the progress
// line on stderr.
#ifndef BERTLAB_MODEL_TRAIN_TRAINING_LOG_H_
#define BERTLAB_MODEL_TRAIN_TRAINING_LOG_H_

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace bertlab {

// metrics.jsonl: one JSON object per line, each with an integer "step".
class MetricsLog {
 public:
  // Opens `path` for appending. keep_through_step < 0 starts an empty log;
  // otherwise the lines whose "step" is greater than keep_through_step (and
  // malformed lines, e.g. a line cut short by a kill) are dropped first
  // (rewritten atomically), so a resumed run's log reads as one run.
  static absl::StatusOr<std::unique_ptr<MetricsLog>> Open(
      const std::string& path, int64_t keep_through_step);
  ~MetricsLog();
  MetricsLog(const MetricsLog&) = delete;
  MetricsLog& operator=(const MetricsLog&) = delete;

  // Appends `json` (one object, no newline) and flushes.
  absl::Status Append(absl::string_view json);

 private:
  MetricsLog(std::string path, std::FILE* file)
      : path_(std::move(path)), file_(file) {}
  std::string path_;
  std::FILE* file_;
};

// "1h02m", "3m20s", "45s".
std::string FormatDuration(double seconds);

// The progress line on stderr. Live: the line is rewritten in place (at most
// every 0.1 s); periodic: a full line every `interval_seconds`. Message()
// prints a line of its own either way (clearing a live line first).
class ProgressLine {
 public:
  ProgressLine(bool live, bool enabled, double interval_seconds);

  // `text` is the line without a newline; `force` prints it regardless of
  // the rate limits (the last step).
  void Update(const std::string& text, bool force);
  void Message(const std::string& text);
  // Like Message, but printed even when progress is off: what a run must
  // not keep quiet (skipped steps, corrupt checkpoints passed over).
  void Warning(const std::string& text);
  // Ends a live line with a newline.
  void Finish();

 private:
  bool live_;
  bool enabled_;
  double interval_seconds_;
  bool line_open_ = false;
  std::chrono::steady_clock::time_point last_print_;
  bool printed_ = false;
};

}  // namespace bertlab

#endif  // BERTLAB_MODEL_TRAIN_TRAINING_LOG_H_
