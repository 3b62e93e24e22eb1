// SubmitJobArrays against a stand-in sbatch (a shell script that records its
// arguments and prints job ids); experiments/slurm_test.sh runs the real
// one.
#include "experiments/run/slurm_launcher.h"

#include <sys/stat.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/file.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bertlab {
namespace experiments {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

class SlurmLauncherTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = absl::StrCat(
        std::getenv("TEST_TMPDIR"), "/",
        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    ASSERT_EQ(std::system(
                  ("rm -rf '" + dir_ + "' && mkdir -p '" + dir_ + "'").c_str()),
              0);
    options_.sbatch = dir_ + "/fake sbatch";
    options_.job_name = "bertlab-tiny";
    // Job ids 41, 42, ...; each call's arguments a line of calls.txt.
    WriteSbatch(
        "n=$(( $(cat \"$0.count\" 2>/dev/null || echo 40) + 1 ))\n"
        "echo $n > \"$0.count\"\n"
        "echo \"$*\" >> \"$(dirname \"$0\")/calls.txt\"\n"
        "echo \"$n;cluster\"\n");
  }

  void WriteSbatch(const std::string& body) {
    ASSERT_TRUE(
        WriteFileAtomically(options_.sbatch, "#!/bin/sh\n" + body).ok());
    ASSERT_EQ(::chmod(options_.sbatch.c_str(), 0755), 0);
  }

  Job Run(const std::string& name, std::vector<std::string> needs = {}) const {
    return Job{name,
               "run " + name,
               {"/bin/run_experiment", "--run_id=" + name, "--label=it's"},
               std::move(needs),
               dir_ + "/logs/" + name + ".log"};
  }

  std::string Read(const std::string& path) const {
    absl::StatusOr<std::string> text = ReadFileToString(path);
    return text.ok() ? *text : "<absent>";
  }

  std::string dir_;
  SlurmOptions options_;
};

TEST_F(SlurmLauncherTest, JobsNeedingTheSameJobsAreOneArrayAfterThem) {
  // Two pre-trainings, each with two fine-tunings, and one fine-tuning
  // that needs both (the ELMo-style row); one whose pre-training is done.
  const std::vector<Job> jobs = {
      Run("p1"),          Run("p2"),         Run("f1", {"p1"}),
      Run("f2", {"p2"}),  Run("f3", {"p1"}), Run("both", {"p2", "p1"}),
      Run("done_before"),
  };
  absl::StatusOr<std::vector<SlurmArray>> arrays =
      SubmitJobArrays(jobs, options_, dir_ + "/slurm");
  ASSERT_TRUE(arrays.ok()) << arrays.status();
  ASSERT_EQ(arrays->size(), 4u);
  EXPECT_EQ((*arrays)[0].name, "array1");
  EXPECT_EQ((*arrays)[0].job_id, "41");
  EXPECT_THAT((*arrays)[0].job_names, ElementsAre("p1", "p2", "done_before"));
  EXPECT_EQ((*arrays)[0].dependency, "");
  EXPECT_THAT((*arrays)[1].job_names, ElementsAre("f1", "f3"));
  EXPECT_EQ((*arrays)[1].dependency, "afterok:41_0");
  EXPECT_THAT((*arrays)[2].job_names, ElementsAre("f2"));
  EXPECT_EQ((*arrays)[2].dependency, "afterok:41_1");
  EXPECT_THAT((*arrays)[3].job_names, ElementsAre("both"));
  EXPECT_EQ((*arrays)[3].dependency, "afterok:41_0:41_1");
  EXPECT_EQ((*arrays)[3].job_id, "44");
  const std::string slurm = dir_ + "/slurm";
  EXPECT_EQ(Read(dir_ + "/calls.txt"),
            absl::StrCat("--parsable ", slurm, "/array1.sbatch\n",
                         "--parsable --dependency=afterok:41_0 "
                         "--kill-on-invalid-dep=yes ",
                         slurm, "/array2.sbatch\n",
                         "--parsable --dependency=afterok:41_1 "
                         "--kill-on-invalid-dep=yes ",
                         slurm, "/array3.sbatch\n",
                         "--parsable --dependency=afterok:41_0:41_1 "
                         "--kill-on-invalid-dep=yes ",
                         slurm, "/array4.sbatch\n"));
}

TEST_F(SlurmLauncherTest, TheScriptRunsEachTasksCommandIntoItsLog) {
  options_.cpus_per_task = 4;
  options_.partition = "gpu";
  options_.time_limit = "2:00:00";
  options_.gres = "gpu:1";
  absl::StatusOr<std::vector<SlurmArray>> arrays =
      SubmitJobArrays({Run("a"), Run("b")}, options_, dir_ + "/slurm");
  ASSERT_TRUE(arrays.ok()) << arrays.status();
  const std::string script = Read(dir_ + "/slurm/array1.sbatch");
  EXPECT_THAT(script,
              HasSubstr(absl::StrCat("#SBATCH --job-name=bertlab-tiny-array1\n"
                                     "#SBATCH --array=0-1\n"
                                     "#SBATCH --cpus-per-task=4\n"
                                     "#SBATCH --output=",
                                     dir_,
                                     "/slurm/array1-%A_%a.out\n"
                                     "#SBATCH --partition=gpu\n"
                                     "#SBATCH --time=2:00:00\n"
                                     "#SBATCH --gres=gpu:1\n")));
  // Every word quoted, a ' inside one too.
  EXPECT_THAT(script, HasSubstr(absl::StrCat(
                          "  1)  # run b\n    exec '/bin/run_experiment' "
                          "'--run_id=b' '--label=it'\\''s' > '",
                          dir_, "/logs/b.log' 2>&1 ;;\n")));

  // Run as an array task: the command runs with its output in the log.
  ASSERT_EQ(std::system(("mkdir -p '" + dir_ + "/logs'").c_str()), 0);
  const std::string echo_script = dir_ + "/echo.sbatch";
  std::string with_echo = script;
  for (size_t at = with_echo.find("'/bin/run_experiment'");
       at != std::string::npos;
       at = with_echo.find("'/bin/run_experiment'", at)) {
    with_echo.replace(at, 21, "'/bin/echo'");
  }
  ASSERT_TRUE(WriteFileAtomically(echo_script, with_echo).ok());
  EXPECT_EQ(
      std::system(("SLURM_ARRAY_TASK_ID=1 bash '" + echo_script + "'").c_str()),
      0);
  EXPECT_EQ(Read(dir_ + "/logs/b.log"), "--run_id=b --label=it's\n");
  EXPECT_NE(std::system(("SLURM_ARRAY_TASK_ID=7 bash '" + echo_script +
                         "' 2> /dev/null")
                            .c_str()),
            0);
}

TEST_F(SlurmLauncherTest, AnOptionLeftEmptyIsNotPassed) {
  absl::StatusOr<std::vector<SlurmArray>> arrays =
      SubmitJobArrays({Run("a")}, options_, dir_ + "/slurm");
  ASSERT_TRUE(arrays.ok()) << arrays.status();
  const std::string script = Read(dir_ + "/slurm/array1.sbatch");
  EXPECT_THAT(script, HasSubstr("#SBATCH --cpus-per-task=1\n"));
  EXPECT_THAT(script, Not(HasSubstr("--partition")));
  EXPECT_THAT(script, Not(HasSubstr("--time")));
  EXPECT_THAT(script, Not(HasSubstr("--gres")));
}

TEST_F(SlurmLauncherTest,
       AFailedSubmissionSaysWhatSbatchSaidAndWhatWentBefore) {
  // The first call succeeds, the second fails as sbatch does.
  WriteSbatch(
      "if [ -e \"$0.once\" ]; then\n"
      "  echo 'sbatch: error: Batch job submission failed: Invalid "
      "partition name specified' >&2; exit 1\n"
      "fi\n"
      "touch \"$0.once\"; echo 7\n");
  absl::StatusOr<std::vector<SlurmArray>> arrays =
      SubmitJobArrays({Run("p"), Run("f", {"p"})}, options_, dir_ + "/slurm");
  EXPECT_EQ(arrays.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(arrays.status().message(),
              HasSubstr(absl::StrCat(
                  "sbatch of ", dir_,
                  "/slurm/array2.sbatch failed (exit status 1): sbatch: "
                  "error: Batch job submission failed: Invalid partition "
                  "name specified; submitted before it: array1 (job 7)")));

  options_.sbatch = dir_ + "/no-such-sbatch";
  arrays = SubmitJobArrays({Run("p")}, options_, dir_ + "/slurm");
  EXPECT_EQ(arrays.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(arrays.status().message(), HasSubstr("(exit status 127)"));
}

TEST_F(SlurmLauncherTest, ABadListIsRefusedBeforeAnythingIsSubmitted) {
  absl::StatusOr<std::vector<SlurmArray>> arrays =
      SubmitJobArrays({Run("f", {"p"}), Run("p")}, options_, dir_ + "/slurm");
  EXPECT_EQ(arrays.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(arrays.status().message(),
              HasSubstr("job run f needs \"p\", which is not an earlier job"));
  arrays = SubmitJobArrays({Run("p"), Run("p")}, options_, dir_ + "/slurm");
  EXPECT_THAT(arrays.status().message(), HasSubstr("two jobs are named \"p\""));
  options_.cpus_per_task = 0;
  arrays = SubmitJobArrays({Run("p")}, options_, dir_ + "/slurm");
  EXPECT_THAT(arrays.status().message(),
              HasSubstr("--cpus-per-task must be at least 1, got 0"));
  EXPECT_EQ(Read(dir_ + "/calls.txt"), "<absent>");
}

}  // namespace
}  // namespace experiments
}  // namespace bertlab
