// A backend against the oracle on random and adversarial calls (see conformance.hpp).
#include "mmaemu/tools/conformance.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <random>

#include "mmaemu/preset.hpp"
#include "mmaemu/profile.hpp"
#include "mmaemu/tools/adversarial.hpp"
#include "mmaemu/tools/cuda_backend.hpp"
#include "mmaemu/tools/emulation_modules.hpp"
#include "mmaemu/version.hpp"

namespace mmaemu {
namespace {

// The presets whose step takes FP8 operands (the ones torch._scaled_mm can use), each with the
// profile whose GEMM algorithm drives it here, loaded once.
Result<std::vector<std::pair<const Preset*, Profile>>> fp8_presets() {
  std::vector<std::pair<const Preset*, Profile>> v;
  for (const auto& p : builtin_presets())
    if (p.accepts(Format::f8_e4m3)) {
      auto profile = load_profile(p.architecture == "ada" ? "ada" : "hopper");
      if (!profile) return profile.error();
      v.emplace_back(&p, std::move(profile).value());
    }
  return v;
}

constexpr std::pair<CallDistribution, const char*> kDistributions[] = {
    {CallDistribution::normal, "normal"},
    {CallDistribution::wide, "wide"},
    {CallDistribution::small, "small"},
    {CallDistribution::cancel, "cancel"},
    {CallDistribution::special, "special"}};

}  // namespace

Result<ConformanceReport> check_conformance(
    const ConformanceOptions& o, const std::function<void(const std::string&)>& on_step,
    const std::function<void(const std::string&)>& on_failure) {
  if (o.backend == Backend::oracle)
    return Error(Errc::invalid_argument,
                 "--backend oracle: conform compares a backend with the oracle");
  ConformanceReport report;
  // The modules under test: every CUDA module for Backend::cuda, else the one named.
  std::vector<Backend> modules;
  if (o.backend == Backend::cuda)
    for (const EmulationModule& m : emulation_modules()) modules.push_back(m.backend);
  else
    modules = {o.backend};
  report.device = "this CPU";
  if (is_cuda(o.backend)) {
    auto device = cuda_backend_device();
    if (!device) return device.error();
    report.device = *device;
    for (const EmulationModule& m : emulation_modules()) {
      auto origin = cuda_module_origin(std::string(m.name));
      report.module_origins[std::string(m.name)] =
          origin ? *origin : "unavailable: " + origin.error().message();
    }
  }
  auto presets = fp8_presets();
  if (!presets) return presets.error();
  // The unit test's odd shapes, and larger ones that fill more of a GPU.
  AdversarialShapes shapes;
  shapes.m = {1, 3, 16, 17, 64, 129};
  shapes.n = {1, 5, 16, 48, 130};
  shapes.k = {1, 7, 16, 31, 32, 33, 48, 100, 128, 129, 160, 300, 480, 513, 1000, 1024, 2048, 4096};
  std::mt19937 rng(static_cast<std::mt19937::result_type>(o.seed));
  for (const auto& [dist, name] : kDistributions) {
    auto& [dist_checks, dist_unequal] = report.distributions[name];
    for (int trial = 0; trial < o.calls; ++trial) {
      const OwnedScaledMmCall drawn = random_adversarial_call(rng, dist, shapes);
      const ScaledMmCall call = drawn.view();
      const auto& [preset, profile] = (*presets)[static_cast<size_t>(trial) % presets->size()];
      auto plan = profile.resolve(call);
      if (!plan) return plan.error();
      plan->preset = preset;
      plan->split_k =
          rng() % 2 ? 1 : 2 + static_cast<int>(rng() % 4);  // h4 computes one slice only
      if (on_step) on_step(name);
      std::optional<std::vector<uint8_t>> expected;
      for (Backend module : modules) {
        const EmulationModule* cuda_module = emulation_module_for(module);
        const std::string module_name = cuda_module ? std::string(cuda_module->name) : "cpu";
        ConformanceCell& cell = report.matrix[module_name][preset->name];
        std::string why;
        bool covered = true;
        if (cuda_module) {
          auto kernel = cuda_kernel_for(*plan, call, module);
          if (!kernel) covered = false, why = kernel.error().message();
        } else {
          covered = fast_path_supports(*plan, &why);
        }
        if (!covered) {
          cell.not_covered = why;
          continue;
        }
        if (!expected) {
          auto e = emulate(*plan, call, Backend::oracle, o.threads);
          if (!e) return e.error();
          expected = std::move(*e);
        }
        auto got = emulate(*plan, call, module, o.threads);
        if (!got) return got.error();
        ++cell.calls;
        ++report.checks;
        ++dist_checks;
        cell.elements += call.m * call.n;
        if (*got == *expected) continue;
        ++cell.unequal;
        ++report.unequal;
        ++dist_unequal;
        report.failures.push_back(fmt::format(
            "{} on {} trial {}: {}x{}x{} {}x{} -> {}, preset {}, splits {}, fast {}", module_name,
            name, trial, call.m, call.n, call.k, describe(call.a_dtype).name,
            describe(call.b_dtype).name, describe(call.out_dtype).name, preset->name, plan->split_k,
            call.use_fast_accum));
        if (on_failure) on_failure(report.failures.back());
      }
    }
  }
  return report;
}

std::string conformance_report_json(const ConformanceOptions& o, const ConformanceReport& r) {
  nlohmann::json table = nlohmann::json::object();
  for (const auto& [module, row] : r.matrix)
    for (const auto& [preset, cell] : row) {
      nlohmann::json& j = table[module][preset];
      if (cell.calls == 0)
        j = {{"verdict", "not covered"}, {"why", cell.not_covered}};
      else
        j = {{"verdict", cell.unequal == 0 ? "PASS" : "FAIL"},
             {"calls", cell.calls},
             {"equal", cell.calls - cell.unequal},
             {"elements", cell.elements}};
    }
  nlohmann::json per_dist = nlohmann::json::object();
  for (const auto& [name, counts] : r.distributions)
    per_dist[name] = fmt::format("{}/{} checks equal", counts.first - counts.second, counts.first);
  nlohmann::json log = {{"format", "mmaemu-conform/2"},
                        {"mmaemu_version", kVersion},
                        {"mmaemu_commit", kGitCommit},
                        {"backend", std::string(to_string(o.backend))},
                        {"device", r.device},
                        {"module_origins", r.module_origins},
                        {"seed", o.seed},
                        {"calls_per_distribution", o.calls},
                        {"distributions", per_dist},
                        {"matrix", table},
                        {"verdict", fmt::format("{}/{} checks bit-identical to the oracle",
                                                r.checks - r.unequal, r.checks)},
                        {"failures", r.failures}};
  return log.dump(1) + "\n";
}

}  // namespace mmaemu
