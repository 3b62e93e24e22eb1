// Where a command finds the embedded default corpus
// (//tasks/corpus:default_corpus) when none is given: in its runfiles, as a
// data dependency of the binary. Under `bazel run` and `bazel test` the
// working directory is the runfiles tree; otherwise RUNFILES_DIR, or the
// binary's own <argv0>.runfiles directory.
#ifndef BERTLAB_TASKS_CORPUS_DEFAULT_CORPUS_PATH_H_
#define BERTLAB_TASKS_CORPUS_DEFAULT_CORPUS_PATH_H_

#include <string>

namespace bertlab {

// The corpus's path relative to the runfiles root of the workspace.
inline constexpr char kDefaultCorpusRunfile[] =
    "tasks/corpus/default_corpus.txt";

// The first readable candidate as an absolute path (a job the command
// starts in another working directory reads the same file), or "" when the
// binary has no such runfile (it lacks the data dependency, or was copied
// away from its runfiles).
std::string FindDefaultCorpus(const char* argv0);

}  // namespace bertlab

#endif  // BERTLAB_TASKS_CORPUS_DEFAULT_CORPUS_PATH_H_
