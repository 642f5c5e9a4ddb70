// A backend against the oracle on random and adversarial calls (see conformance.hpp).
#include "mmaemu/tools/conformance.hpp"

#include <fmt/format.h>

#include <map>
#include <nlohmann/json.hpp>
#include <optional>

#include "mmaemu/preset.hpp"
#include "mmaemu/profile.hpp"
#include "mmaemu/tools/calls.hpp"
#include "mmaemu/tools/cuda_backend.hpp"
#include "mmaemu/tools/emulation_modules.hpp"
#include "mmaemu/version.hpp"

namespace mmaemu {
namespace {

// The profile whose GEMM algorithm drives each preset here, loaded once.
Result<std::map<std::string, Profile>> preset_profiles(const std::vector<const Preset*>& presets) {
  std::map<std::string, Profile> profiles;
  for (const Preset* p : presets) {
    auto profile = load_profile(p->architecture == "ada" ? "ada" : "hopper");
    if (!profile) return profile.error();
    profiles.emplace(p->name, std::move(profile).value());
  }
  return profiles;
}

// Every module of `modules` that covers the call against the oracle, counted into the report.
Result<void> check_call(const ConformanceCall& drawn, const Plan& plan,
                        const std::vector<Backend>& modules, int threads, ConformanceReport& report,
                        const std::function<void(const std::string&)>& on_failure) {
  const ScaledMmCall call = drawn.call.view();
  const std::string name(distribution_name(drawn.distribution));
  auto& [dist_checks, dist_unequal] = report.distributions[name];
  std::optional<std::vector<uint8_t>> expected;
  for (Backend module : modules) {
    const EmulationModule* cuda_module = emulation_module_for(module);
    const std::string module_name = cuda_module ? std::string(cuda_module->name) : "cpu";
    ConformanceCell& cell = report.matrix[module_name][drawn.preset->name];
    std::string why;
    bool covered = true;
    if (cuda_module) {
      auto kernel = cuda_kernel_for(plan, call, module);
      if (!kernel) covered = false, why = kernel.error().message();
    } else {
      covered = fast_path_supports(plan, &why);
    }
    if (!covered) {
      cell.not_covered = why;
      continue;
    }
    if (!expected) {
      auto e = emulate(plan, call, Backend::oracle, threads);
      if (!e) return e.error();
      expected = std::move(*e);
    }
    auto got = emulate(plan, call, module, threads);
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
        "{} on {} trial {}: {}x{}x{} {}x{} -> {}, preset {}, splits {}, fast {}", module_name, name,
        drawn.trial, call.m, call.n, call.k, describe(call.a_dtype).name,
        describe(call.b_dtype).name, describe(call.out_dtype).name, drawn.preset->name,
        plan.split_k, call.use_fast_accum));
    if (on_failure) on_failure(report.failures.back());
  }
  return {};
}

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
  ConformanceCalls calls(o.seed, o.calls);
  auto profiles = preset_profiles(calls.presets());
  if (!profiles) return profiles.error();
  while (auto drawn = calls.next()) {
    const ScaledMmCall call = drawn->call.view();
    const std::string name(distribution_name(drawn->distribution));
    auto plan = profiles->at(drawn->preset->name).resolve(call);
    if (!plan) return plan.error();
    plan->preset = drawn->preset;
    plan->split_k = drawn->split_k;
    if (on_step) on_step(name);
    if (auto checked = check_call(*drawn, *plan, modules, o.threads, report, on_failure); !checked)
      return checked.error();
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
