#include "experiments/run/job_pool.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace bertlab {
namespace experiments {
namespace {

using SteadyClock = std::chrono::steady_clock;

constexpr auto kPollInterval = std::chrono::milliseconds(100);
constexpr auto kTerminalRedraw = std::chrono::seconds(1);
constexpr auto kPlainStatus = std::chrono::seconds(30);
// Of a log, only the end is read for its last lines.
constexpr std::streamoff kTailBytes = 8192;

enum class State { kWaiting, kRunning, kSucceeded, kFailed };

// The last `count` non-blank lines of `path` (lines end at '\n' or '\r', the
// progress displays' rewrite), oldest first; "" if it cannot be read.
std::vector<std::string> LastLines(const std::string& path, int count) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  in.seekg(std::max<std::streamoff>(0, size - kTailBytes));
  std::string text((std::istreambuf_iterator<char>(in)),
                   std::istreambuf_iterator<char>());
  std::vector<std::string> lines;
  for (absl::string_view line : absl::StrSplit(text, absl::ByAnyChar("\r\n"))) {
    line = absl::StripAsciiWhitespace(line);
    if (!line.empty()) lines.emplace_back(line);
  }
  if (static_cast<int>(lines.size()) > count) {
    lines.erase(lines.begin(), lines.end() - count);
  }
  return lines;
}

std::string ErrnoText() { return std::strerror(errno); }

// Async-signal-safe, for the child before exec; nothing to do if it fails.
void WriteToStderr(const char* text) {
  const ssize_t written = ::write(STDERR_FILENO, text, std::strlen(text));
  (void)written;
}

// Forks and executes `job` with its log as stdout and stderr.
absl::StatusOr<pid_t> Start(const Job& job) {
  const int log = ::open(job.log_file.c_str(),
                         O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (log < 0) {
    return absl::UnavailableError(
        absl::StrCat("cannot open its log ", job.log_file, ": ", ErrnoText()));
  }
  const int null_input = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  std::vector<char*> argv;
  for (const std::string& arg : job.argv) {
    argv.push_back(const_cast<char*>(arg.c_str()));
  }
  argv.push_back(nullptr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid == 0) {
    // Only async-signal-safe calls from here to exec: the parent has threads.
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (::getppid() != parent) ::_exit(128 + SIGTERM);  // it died already
    if (null_input >= 0) ::dup2(null_input, STDIN_FILENO);
    ::dup2(log, STDOUT_FILENO);
    ::dup2(log, STDERR_FILENO);
    ::execv(argv[0], argv.data());
    WriteToStderr("job pool: cannot execute ");
    WriteToStderr(argv[0]);
    WriteToStderr("\n");
    ::_exit(127);
  }
  const std::string fork_error = pid < 0 ? ErrnoText() : "";
  ::close(log);
  if (null_input >= 0) ::close(null_input);
  if (pid < 0) return absl::UnavailableError("fork: " + fork_error);
  return pid;
}

std::string WaitStatusText(int status) {
  if (WIFEXITED(status)) {
    return absl::StrCat("exited with status ", WEXITSTATUS(status));
  }
  if (WIFSIGNALED(status)) {
    return absl::StrCat("killed by signal ", WTERMSIG(status), " (",
                        strsignal(WTERMSIG(status)), ")");
  }
  return absl::StrCat("ended with wait status ", status);
}

// The display on stderr: permanent lines, and the block of running jobs
// under them (redrawn in place on a terminal).
class Display {
 public:
  explicit Display(const JobPoolOptions& options)
      : options_(options),
        terminal_(::isatty(STDERR_FILENO) == 1),
        last_draw_(SteadyClock::now()) {}

  void Line(const std::string& text) {
    if (!options_.progress) return;
    Erase();
    std::cerr << options_.prefix << ": " << text << "\n";
    Draw();
  }

  // `block` is the current status; shown now on a terminal (at most once a
  // second), or every 30 s elsewhere.
  void Status(std::vector<std::string> block) {
    if (!options_.progress) return;
    const auto now = SteadyClock::now();
    block_ = std::move(block);
    if (terminal_) {
      if (now - last_draw_ < kTerminalRedraw) return;
      Erase();
      Draw();
      return;
    }
    if (now - last_draw_ < kPlainStatus) return;
    for (const std::string& line : block_) {
      std::cerr << options_.prefix << ": " << line << "\n";
    }
    last_draw_ = now;
  }

  void Finish() {
    if (!options_.progress) return;
    Erase();
    block_.clear();
  }

 private:
  void Erase() {
    if (!terminal_ || drawn_ == 0) return;
    std::cerr << absl::StrFormat("\033[%dA\033[J", drawn_);
    drawn_ = 0;
  }

  void Draw() {
    if (!terminal_) return;
    struct winsize size {};
    const int width =
        ::ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 10
            ? size.ws_col
            : 120;
    for (const std::string& line : block_) {
      std::string shown = absl::StrCat(options_.prefix, ": ", line);
      // One terminal row per line, else the redraw moves up too little.
      if (static_cast<int>(shown.size()) > width - 1) shown.resize(width - 1);
      std::cerr << shown << "\n";
    }
    drawn_ = static_cast<int>(block_.size());
    last_draw_ = SteadyClock::now();
    std::cerr.flush();
  }

  const JobPoolOptions& options_;
  const bool terminal_;
  std::vector<std::string> block_;
  int drawn_ = 0;
  SteadyClock::time_point last_draw_;
};

absl::Status Validate(const std::vector<Job>& jobs,
                      const JobPoolOptions& options) {
  if (options.max_running < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "jobs at once must be at least 1, got ", options.max_running));
  }
  std::set<std::string> earlier;
  for (const Job& job : jobs) {
    if (job.argv.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("job ", job.label, " has no command"));
    }
    for (const std::string& need : job.needs) {
      if (earlier.count(need) == 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("job ", job.label, " needs \"", need,
                         "\", which is not an earlier job"));
      }
    }
    if (!earlier.insert(job.name).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("two jobs are named \"", job.name, "\""));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<JobPoolResult> RunJobs(const std::vector<Job>& jobs,
                                      const JobPoolOptions& options) {
  if (absl::Status valid = Validate(jobs, options); !valid.ok()) return valid;
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < jobs.size(); ++i) index[jobs[i].name] = i;
  std::vector<State> state(jobs.size(), State::kWaiting);
  std::vector<SteadyClock::time_point> started(jobs.size());
  std::map<size_t, JobFailure> failures;
  std::map<pid_t, size_t> running;
  JobPoolResult result;
  Display display(options);
  const size_t total = jobs.size();
  size_t ended = 0;
  const auto progress = [&] {
    return absl::StrCat("[", ended, "/", total, "]");
  };
  const auto fail = [&](size_t i, const std::string& reason) {
    state[i] = State::kFailed;
    ++ended;
    JobFailure& failure = failures[i];
    failure.label = jobs[i].label;
    failure.reason = reason;
    failure.log_file = jobs[i].log_file;
    failure.log_tail =
        absl::StrJoin(LastLines(jobs[i].log_file, kJobFailureTailLines), "\n");
    display.Line(absl::StrCat(progress(), " FAILED ", jobs[i].label, ": ",
                              reason, " (log: ", jobs[i].log_file, ")"));
  };

  while (true) {
    for (size_t i = 0; i < jobs.size(); ++i) {
      if (state[i] != State::kWaiting) continue;
      const std::string* failed_need = nullptr;
      bool ready = true;
      for (const std::string& need : jobs[i].needs) {
        const State s = state[index.at(need)];
        if (s == State::kFailed) failed_need = &need;
        ready = ready && s == State::kSucceeded;
      }
      if (failed_need != nullptr) {
        state[i] = State::kFailed;
        ++ended;
        JobFailure& failure = failures[i];
        failure.label = jobs[i].label;
        failure.reason =
            absl::StrCat("not started: it needs ",
                         jobs[index.at(*failed_need)].label, ", which failed");
        display.Line(absl::StrCat(progress(), " not started: ", jobs[i].label,
                                  " (", jobs[index.at(*failed_need)].label,
                                  " failed)"));
        continue;
      }
      if (!ready || static_cast<int>(running.size()) >= options.max_running) {
        continue;
      }
      absl::StatusOr<pid_t> pid = Start(jobs[i]);
      if (!pid.ok()) {
        fail(i, std::string(pid.status().message()));
        continue;
      }
      state[i] = State::kRunning;
      started[i] = SteadyClock::now();
      running[*pid] = i;
      display.Line(absl::StrCat(progress(), " started ", jobs[i].label));
    }
    // Every waiting job now needs a running one (a free slot would have
    // started it, a failed need failed it), so none is left when none runs.
    if (running.empty()) break;

    std::this_thread::sleep_for(kPollInterval);
    for (auto it = running.begin(); it != running.end();) {
      int status = 0;
      const pid_t done = ::waitpid(it->first, &status, WNOHANG);
      if (done == 0 || (done < 0 && errno == EINTR)) {
        ++it;
        continue;
      }
      const size_t i = it->second;
      it = running.erase(it);
      const double seconds =
          std::chrono::duration<double>(SteadyClock::now() - started[i])
              .count();
      if (done < 0) {
        fail(i, absl::StrCat("cannot wait for it: ", ErrnoText()));
      } else if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        state[i] = State::kSucceeded;
        ++ended;
        result.succeeded.push_back(jobs[i].name);
        display.Line(absl::StrFormat("%s finished %s in %.0f s", progress(),
                                     jobs[i].label, seconds));
      } else {
        fail(i, WaitStatusText(status));
      }
    }
    std::vector<std::string> block = {absl::StrCat(
        "jobs: ", ended, " of ", total, " ended (", failures.size(),
        " failed), ", running.size(), " running")};
    for (const auto& [pid, i] : running) {
      const std::vector<std::string> last = LastLines(jobs[i].log_file, 1);
      block.push_back(absl::StrFormat(
          "  %s (%.0f s)%s%s", jobs[i].label,
          std::chrono::duration<double>(SteadyClock::now() - started[i])
              .count(),
          last.empty() ? "" : ": ", last.empty() ? "" : last[0]));
    }
    display.Status(std::move(block));
  }
  display.Finish();
  for (auto& [i, failure] : failures) {
    result.failures.push_back(std::move(failure));
  }
  return result;
}

}  // namespace experiments
}  // namespace bertlab
