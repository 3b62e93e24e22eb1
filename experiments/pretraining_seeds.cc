#include "experiments/pretraining_seeds.h"

#include <map>

#include "absl/strings/str_cat.h"

namespace bertlab {
namespace experiments {
namespace {

// The control is the one variant pretraining_seeds does not repeat.
bool Repeated(const Variant& variant) { return !variant.random_init(); }

}  // namespace

std::string SeedVariantName(absl::string_view name, uint64_t seed) {
  return absl::StrCat(name, ".seed", seed);
}

const std::string& VariantRow(const Variant& variant) {
  return variant.has_row() ? variant.row() : variant.name();
}

std::vector<std::pair<std::string, std::string>> PretrainingSeedProblems(
    const Experiment& experiment) {
  std::vector<std::pair<std::string, std::string>> problems;
  std::map<uint64_t, int> first;
  for (int i = 0; i < experiment.pretraining_seeds_size(); ++i) {
    const uint64_t seed = experiment.pretraining_seeds(i);
    auto [it, inserted] = first.emplace(seed, i);
    if (!inserted) {
      problems.emplace_back(
          absl::StrCat("pretraining_seeds[", i, "]"),
          absl::StrCat("(", seed, ") is already pretraining_seeds[", it->second,
                       "]; the seeds must differ"));
    }
  }
  if (experiment.pretraining_seeds().empty()) return problems;

  std::map<std::string, int> names;
  for (int i = 0; i < experiment.variants_size(); ++i) {
    names.emplace(experiment.variants(i).name(), i);
  }
  for (int i = 0; i < experiment.variants_size(); ++i) {
    const Variant& variant = experiment.variants(i);
    if (!Repeated(variant)) continue;
    if (variant.overrides().pretraining().has_seed()) {
      problems.emplace_back(
          absl::StrCat("variants[", i, "].overrides.pretraining.seed"),
          "is set, and pretraining_seeds sets the pre-training seed of "
          "every variant; remove one");
    }
    if (variant.has_row()) {
      problems.emplace_back(
          absl::StrCat("variants[", i, "].row"),
          "is set, and pretraining_seeds makes each variant's name the row "
          "of its seeds; remove one");
    }
    for (const auto& [seed, index] : first) {
      const std::string name = SeedVariantName(variant.name(), seed);
      auto taken = names.find(name);
      if (taken != names.end()) {
        problems.emplace_back(
            absl::StrCat("variants[", taken->second, "].name"),
            absl::StrCat("(\"", name, "\") is the name pretraining_seeds[",
                         index, "] gives variants[", i, "]; rename one"));
      }
    }
  }
  return problems;
}

void ExpandPretrainingSeeds(Experiment* experiment) {
  if (experiment->pretraining_seeds().empty()) return;
  const std::vector<uint64_t> seeds(experiment->pretraining_seeds().begin(),
                                    experiment->pretraining_seeds().end());
  std::vector<Variant> variants(experiment->variants().begin(),
                                experiment->variants().end());
  if (variants.empty()) variants.emplace_back().set_name("base");
  experiment->clear_variants();
  experiment->clear_pretraining_seeds();
  for (const Variant& variant : variants) {
    if (!Repeated(variant)) {
      // Its source's config and vocabulary do not depend on the seed.
      Variant& control = *experiment->add_variants() = variant;
      control.set_pretrained_from(
          SeedVariantName(variant.pretrained_from(), seeds.front()));
      continue;
    }
    for (const uint64_t seed : seeds) {
      Variant& run = *experiment->add_variants() = variant;
      run.set_name(SeedVariantName(variant.name(), seed));
      run.set_row(variant.name());
      if (variant.has_pretrained_from()) {
        run.set_pretrained_from(
            SeedVariantName(variant.pretrained_from(), seed));
      } else {
        run.mutable_overrides()->mutable_pretraining()->set_seed(seed);
      }
      if (variant.has_concatenate_with()) {
        run.set_concatenate_with(
            SeedVariantName(variant.concatenate_with(), seed));
      }
    }
  }
}

}  // namespace experiments
}  // namespace bertlab
