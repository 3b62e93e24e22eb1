// The training devices a binary has, beyond the built-in "cpu": one registry
// per kind of backend (pre-training's, fine-tuning's), filled by static
// initialisers of the device libraries a binary links (e.g. "cuda" from
// pretraining_backend_cuda.cc and finetune_backend_cuda.cc in --config=cuda
// builds), so the CPU build never depends on them.
#ifndef BERTLAB_MODEL_TRAIN_DEVICE_REGISTRY_H_
#define BERTLAB_MODEL_TRAIN_DEVICE_REGISTRY_H_

#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace bertlab {

// Factory: the backend kind's factory type; each type has one registry.
template <typename Factory>
class DeviceRegistry {
 public:
  static DeviceRegistry& Get() {
    static DeviceRegistry* registry = new DeviceRegistry;
    return *registry;
  }

  // False when `device` already has a factory.
  bool Register(const std::string& device, Factory factory) {
    std::lock_guard<std::mutex> lock(mutex_);
    return factories_.emplace(device, std::move(factory)).second;
  }

  // "cpu" first, then the registered devices in name order.
  std::vector<std::string> Devices() const {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<std::string> devices = {"cpu"};
    for (const auto& entry : factories_) devices.push_back(entry.first);
    return devices;
  }

  // The factory of a registered `device` (not "cpu"), or an error naming the
  // devices this binary has.
  absl::StatusOr<Factory> Find(const std::string& device) const {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      const auto found = factories_.find(device);
      if (found != factories_.end()) return found->second;
    }
    return absl::InvalidArgumentError(absl::StrCat(
        "no training device \"", device,
        "\" in this binary; it has: ", absl::StrJoin(Devices(), ", "),
        device == "cuda" ? " (build with --config=cuda for cuda)" : ""));
  }

 private:
  DeviceRegistry() = default;
  mutable std::mutex mutex_;
  std::map<std::string, Factory> factories_;
};

}  // namespace bertlab

#endif  // BERTLAB_MODEL_TRAIN_DEVICE_REGISTRY_H_
