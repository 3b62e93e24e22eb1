// A main() for the fuzz targets of this directory when they are built
// without libFuzzer (gcc, `bazel test //tasks/fuzz:all`): feeds every file
// named on the command line, or found under a directory named there, to
// LLVMFuzzerTestOneInput once, in sorted order, so the committed seed
// corpora and crash regressions run as ordinary tests. Fails when no input
// was found (a wrong path must not pass as an empty test). A crash or a
// failed CHECK in the target ends the process, as under libFuzzer; the
// input being run is printed first, so the log names it.
//
// tools/fuzz/run_fuzzers.sh links the same targets with clang's
// -fsanitize=fuzzer instead, whose main() does the fuzzing.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <system_error>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

// The regular files at `path`: itself, or those under it when it is a
// directory. Appends an error to *errors for a path that is neither.
void CollectInputs(const std::filesystem::path& path,
                   std::vector<std::string>* inputs,
                   std::vector<std::string>* errors) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) {
    for (std::filesystem::recursive_directory_iterator it(path, error), end;
         !error && it != end; it.increment(error)) {
      if (it->is_regular_file()) inputs->push_back(it->path().string());
    }
  } else if (std::filesystem::is_regular_file(path, error)) {
    inputs->push_back(path.string());
  } else {
    errors->push_back(path.string() + ": no such file or directory");
    return;
  }
  if (error) errors->push_back(path.string() + ": " + error.message());
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> inputs;
  std::vector<std::string> errors;
  for (int i = 1; i < argc; ++i) CollectInputs(argv[i], &inputs, &errors);
  for (const std::string& error : errors) {
    std::fprintf(stderr, "fuzz_driver: %s\n", error.c_str());
  }
  if (!errors.empty()) return 1;
  if (inputs.empty()) {
    std::fprintf(stderr,
                 "fuzz_driver: no inputs; usage: %s FILE_OR_DIRECTORY...\n",
                 argv[0]);
    return 1;
  }
  std::sort(inputs.begin(), inputs.end());
  for (const std::string& input : inputs) {
    std::ifstream file(input, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(file)),
                            std::istreambuf_iterator<char>());
    if (file.bad()) {
      std::fprintf(stderr, "fuzz_driver: cannot read %s\n", input.c_str());
      return 1;
    }
    std::fprintf(stderr, "fuzz_driver: %s (%zu bytes)\n", input.c_str(),
                 bytes.size());
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()),
                           bytes.size());
  }
  std::fprintf(stderr, "fuzz_driver: %zu inputs ran without a crash\n",
               inputs.size());
  return 0;
}
