#include "reports/report_html_fixture.h"

#include <cmath>
#include <string>

namespace bertlab {
namespace reports {
namespace testing {

std::vector<std::pair<FixtureRun, nlohmann::json>> HtmlFixtureRecords() {
  struct Variant {
    std::string key;
    bool masked_lm;
    double final_perplexity;
    double accuracy_offset;  // of the fine-tuning scores
  };
  const std::vector<Variant> variants = {
      {"full", true, 6.5, 0.0},
      {"no_nsp", true, 6.9, -1.5},
      {"ltr_no_nsp", false, 40.0, -6.0},
      {"rtl_no_nsp", false, 44.0, -7.0},
  };
  std::vector<std::pair<FixtureRun, nlohmann::json>> records;
  for (const Variant& variant : variants) {
    FixtureRun pretrain;
    pretrain.kind = "pretrain";
    pretrain.variant = variant.key;
    const std::string metric =
        variant.masked_lm ? "mlm_perplexity" : "lm_perplexity";
    pretrain.metrics = {{metric, variant.final_perplexity}};
    nlohmann::json json = RecordJson(pretrain);
    nlohmann::json curve = nlohmann::json::array();
    for (int i = 0; i < kHtmlFixturePointsPerCurve; ++i) {
      // Falls from about 8000 (a uniform guess over the vocabulary) towards
      // the final perplexity.
      const double perplexity =
          variant.final_perplexity *
          std::pow(8000.0 / variant.final_perplexity,
                   std::pow(0.35, static_cast<double>(i)));
      curve.push_back({{"step", 250 * i},
                       {"perplexity", perplexity},
                       {"accuracy", 5.0 + 10.0 * i}});
    }
    json["eval_curve"] = curve;
    json["compute"] = {
        {"steps", 250 * (kHtmlFixturePointsPerCurve - 1)},
        {"tokens", 8192000},
        {"predicted_positions", variant.masked_lm ? 1228800 : 8000000},
        {"flops", 1.25e15}};
    if (variant.key == "rtl_no_nsp") {
      json["variant_description"] = kHtmlFixtureExtraDisplay;
    }
    records.emplace_back(pretrain, json);

    for (const std::string task : {"mrpc", "sst2"}) {
      for (const double learning_rate : {2e-5, 3e-5, 5e-5}) {
        for (int restart = 0; restart < kHtmlFixtureRestarts; ++restart) {
          FixtureRun run;
          run.variant = variant.key;
          run.task = task;
          run.learning_rate = learning_rate;
          run.restart = restart;
          const double base = task == "mrpc" ? 80.0 : 88.0;
          run.metrics = {{"accuracy", base + variant.accuracy_offset +
                                          1e5 * learning_rate + 0.7 * restart}};
          nlohmann::json fine = RecordJson(run);
          fine["trivial"] = {
              {"predictor", "majority class (1)"},
              {"metrics", {{"accuracy", task == "mrpc" ? 68.4 : 50.9}}}};
          if (variant.key == "rtl_no_nsp") {
            fine["variant_description"] = kHtmlFixtureExtraDisplay;
          }
          records.emplace_back(run, fine);
        }
      }
    }
  }
  return records;
}

}  // namespace testing
}  // namespace reports
}  // namespace bertlab
