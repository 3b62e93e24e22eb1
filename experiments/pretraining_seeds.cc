#include "experiments/pretraining_seeds.h"

#include <algorithm>
#include <map>

#include "absl/strings/str_cat.h"

namespace bertlab {
namespace experiments {
namespace {

// The control is the one variant pretraining_seeds does not repeat.
bool Repeated(const Variant& variant) { return !variant.random_init(); }

using VariantsByName = std::map<std::string, const Variant*>;

VariantsByName ByName(const std::vector<Variant>& variants) {
  VariantsByName by_name;
  for (const Variant& variant : variants) {
    by_name.emplace(variant.name(), &variant);
  }
  return by_name;
}

// How many of the `total` seeds `variant` runs: its max_pretraining_seeds,
// and no more than each variant whose checkpoint it reads. `depth` stops a
// cycle of pretrained_from, which the loader reports elsewhere.
int SeedCount(const Variant& variant, const VariantsByName& by_name, int total,
              int depth = 0) {
  int count = total;
  if (variant.has_max_pretraining_seeds()) {
    count = std::min<int64_t>(count, variant.max_pretraining_seeds());
  }
  if (depth > static_cast<int>(by_name.size())) return count;
  for (const std::string* source :
       {&variant.pretrained_from(), &variant.concatenate_with()}) {
    auto found = by_name.find(*source);
    if (source->empty() || found == by_name.end()) continue;
    count =
        std::min(count, SeedCount(*found->second, by_name, total, depth + 1));
  }
  return count;
}

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
  for (int i = 0; i < experiment.variants_size(); ++i) {
    const Variant& variant = experiment.variants(i);
    if (!variant.has_max_pretraining_seeds()) continue;
    const std::string field =
        absl::StrCat("variants[", i, "].max_pretraining_seeds");
    if (experiment.pretraining_seeds().empty()) {
      problems.emplace_back(field,
                            "is set, and the experiment has no "
                            "pretraining_seeds to choose from; remove it");
    } else if (!Repeated(variant)) {
      problems.emplace_back(field,
                            "is set on the control (random_init), which "
                            "pretraining_seeds does not repeat; remove it");
    } else if (variant.max_pretraining_seeds() == 0) {
      problems.emplace_back(field, "(0) must be at least 1");
    }
  }
  if (experiment.pretraining_seeds().empty()) return problems;

  const std::vector<Variant> variants(experiment.variants().begin(),
                                      experiment.variants().end());
  const VariantsByName by_name = ByName(variants);
  std::map<std::string, int> names;
  for (int i = 0; i < experiment.variants_size(); ++i) {
    names.emplace(experiment.variants(i).name(), i);
  }
  for (int i = 0; i < experiment.variants_size(); ++i) {
    const Variant& variant = experiment.variants(i);
    if (!Repeated(variant)) continue;
    const int count =
        SeedCount(variant, by_name, experiment.pretraining_seeds_size());
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
    for (int index = 0; index < count; ++index) {
      const std::string name =
          SeedVariantName(variant.name(), experiment.pretraining_seeds(index));
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
  const VariantsByName by_name = ByName(variants);
  std::vector<int> counts;
  for (const Variant& variant : variants) {
    counts.push_back(SeedCount(variant, by_name, seeds.size()));
  }
  experiment->clear_variants();
  experiment->clear_pretraining_seeds();
  for (size_t v = 0; v < variants.size(); ++v) {
    const Variant& variant = variants[v];
    if (!Repeated(variant)) {
      // Its source's config and vocabulary do not depend on the seed.
      Variant& control = *experiment->add_variants() = variant;
      control.set_pretrained_from(
          SeedVariantName(variant.pretrained_from(), seeds.front()));
      continue;
    }
    for (int index = 0; index < counts[v]; ++index) {
      const uint64_t seed = seeds[index];
      Variant& run = *experiment->add_variants() = variant;
      run.clear_max_pretraining_seeds();
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
