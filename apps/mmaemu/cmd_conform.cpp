// mmaemu conform: backends (the CUDA kernel modules, or the fast CPU path) against the oracle, bit
// for bit, on random and adversarial calls: every distribution, odd shapes, K not a multiple of
// the step and multiples of 16, split-K 1 (half the calls) to 5, both accumulation modes, every
// output dtype, and every FP8 step preset in turn. The log is a matrix: module x preset, PASS with
// its counts or why the module does not cover the preset.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <thread>

#include "backend_option.hpp"
#include "command.hpp"
#include "mmaemu/adversarial.hpp"
#include "mmaemu/emulate.hpp"
#include "mmaemu/emulation_modules.hpp"
#include "mmaemu/profile.hpp"
#include "mmaemu/safetensors.hpp"
#include "mmaemu/version.hpp"
#include "progress.hpp"

namespace mmaemu::cli {
namespace {

struct ConformOptions {
  std::string out, backend = "cuda";
  int calls = 200;
  uint64_t seed = 2026;
  int jobs = 0;
};

struct Cell {
  int64_t calls = 0, bad = 0, elements = 0;
  std::string not_covered;
};

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

Result<int> run_conform(const ConformOptions& o) {
  auto chosen = open_backend(o.backend);
  if (!chosen) return chosen.error();
  if (*chosen == Backend::oracle)
    return Error(Errc::invalid_argument,
                 "--backend oracle: conform compares a backend with the oracle");
  // The modules under test: every CUDA module for --backend cuda, else the one named.
  std::vector<Backend> modules;
  if (*chosen == Backend::cuda)
    for (const EmulationModule& m : emulation_modules()) modules.push_back(m.backend);
  else
    modules = {*chosen};
  std::string device = "this CPU";
  std::map<std::string, std::string> origins;
  if (is_cuda(*chosen)) {
    device = cuda_backend_device().value();
    for (const EmulationModule& m : emulation_modules()) {
      auto origin = cuda_module_origin(std::string(m.name));
      origins[std::string(m.name)] = origin ? *origin : "unavailable: " + origin.error().message();
    }
  }
  auto presets = fp8_presets();
  if (!presets) return presets.error();
  const std::pair<CallDistribution, const char*> dists[] = {{CallDistribution::normal, "normal"},
                                                            {CallDistribution::wide, "wide"},
                                                            {CallDistribution::small, "small"},
                                                            {CallDistribution::cancel, "cancel"},
                                                            {CallDistribution::special, "special"}};
  // The unit test's odd shapes, and larger ones that fill more of a GPU.
  AdversarialShapes shapes;
  shapes.m = {1, 3, 16, 17, 64, 129};
  shapes.n = {1, 5, 16, 48, 130};
  shapes.k = {1, 7, 16, 31, 32, 33, 48, 100, 128, 129, 160, 300, 480, 513, 1000, 1024, 2048, 4096};
  std::mt19937 rng(static_cast<std::mt19937::result_type>(o.seed));
  const int threads = threads_for_jobs(o.jobs);
  std::map<std::string, std::map<std::string, Cell>> matrix;  // module -> preset -> cell
  nlohmann::json failures = nlohmann::json::array(), per_dist = nlohmann::json::object();
  int64_t checked = 0, bad_checks = 0;
  Progress progress(static_cast<size_t>(o.calls) * 5);
  for (const auto& [dist, name] : dists) {
    int64_t dist_checks = 0, dist_bad = 0;
    for (int trial = 0; trial < o.calls; ++trial) {
      AdversarialCall c = random_adversarial_call(rng, dist, shapes);
      const auto& [preset, profile] = (*presets)[static_cast<size_t>(trial) % presets->size()];
      auto plan = profile.resolve(c.call);
      if (!plan) return plan.error();
      plan->preset = preset;
      plan->split_k =
          rng() % 2 ? 1 : 2 + static_cast<int>(rng() % 4);  // h4 computes one slice only
      progress.step(name);
      std::optional<std::vector<uint8_t>> expected;
      for (Backend module : modules) {
        const std::string module_name =
            is_cuda(module) ? std::string(to_string(module)).substr(5) : "cpu";
        Cell& cell = matrix[module_name][preset->name];
        std::string why;
        bool covered = true;
        if (is_cuda(module)) {
          auto kernel = cuda_kernel_for(*plan, c.call, module);
          if (!kernel) covered = false, why = kernel.error().message();
        } else {
          covered = fast_path_supports(*plan, &why);
        }
        if (!covered) {
          cell.not_covered = why;
          continue;
        }
        if (!expected) {
          auto e = emulate(*plan, c.call, Backend::oracle, threads);
          if (!e) return e.error();
          expected = std::move(*e);
        }
        auto got = emulate(*plan, c.call, module, threads);
        if (!got) return got.error();
        ++cell.calls;
        ++checked;
        ++dist_checks;
        cell.elements += c.call.m * c.call.n;
        if (*got == *expected) continue;
        ++cell.bad;
        ++bad_checks;
        ++dist_bad;
        progress.clear();
        const std::string what = fmt::format(
            "{} on {} trial {}: {}x{}x{} {}x{} -> {}, preset {}, splits {}, fast {}", module_name,
            name, trial, c.call.m, c.call.n, c.call.k, describe(c.call.a_dtype).name,
            describe(c.call.b_dtype).name, describe(c.call.out_dtype).name, preset->name,
            plan->split_k, c.call.use_fast_accum);
        std::cout << "FAIL " << what << std::endl;
        failures.push_back(what);
      }
    }
    per_dist[name] = fmt::format("{}/{} checks equal", dist_checks - dist_bad, dist_checks);
  }
  progress.clear();
  nlohmann::json table = nlohmann::json::object();
  for (const auto& [module, row] : matrix)
    for (const auto& [preset, cell] : row) {
      nlohmann::json& j = table[module][preset];
      if (cell.calls == 0) {
        j = {{"verdict", "not covered"}, {"why", cell.not_covered}};
        std::cout << fmt::format("conform: {:<4} x {:<24} not covered: {}\n", module, preset,
                                 cell.not_covered);
      } else {
        j = {{"verdict", cell.bad == 0 ? "PASS" : "FAIL"},
             {"calls", cell.calls},
             {"equal", cell.calls - cell.bad},
             {"elements", cell.elements}};
        std::cout << fmt::format(
            "conform: {:<4} x {:<24} {} {}/{} calls ({} elements) bit-identical\n", module, preset,
            cell.bad == 0 ? "PASS" : "FAIL", cell.calls - cell.bad, cell.calls, cell.elements);
      }
    }
  const std::string verdict =
      fmt::format("{}/{} checks bit-identical to the oracle", checked - bad_checks, checked);
  nlohmann::json log = {{"format", "mmaemu-conform/2"},
                        {"mmaemu_version", kVersion},
                        {"mmaemu_commit", kGitCommit},
                        {"backend", o.backend},
                        {"device", device},
                        {"module_origins", origins},
                        {"seed", o.seed},
                        {"calls_per_distribution", o.calls},
                        {"distributions", per_dist},
                        {"matrix", table},
                        {"verdict", verdict},
                        {"failures", failures}};
  if (!o.out.empty())
    if (auto ok = write_file_atomically(o.out, log.dump(1) + "\n"); !ok) return ok.error();
  std::cout << "conform: " << o.backend << " on " << device << ": " << verdict << std::endl;
  return bad_checks == 0 && checked > 0 ? kExitOk : kExitVerdictFailed;
}

}  // namespace

Runner setup_conform(CLI::App& app) {
  auto o = std::make_shared<ConformOptions>();
  app.add_option("--backend", o->backend,
                 "cuda (every CUDA module: v1, v4, h1, h4), cuda-v1, cuda-v4, cuda-h1, cuda-h4 or "
                 "cpu (the fast path)")
      ->capture_default_str();
  app.add_option("--calls", o->calls, "random calls per distribution")->capture_default_str();
  app.add_option("--seed", o->seed, "seed of the calls")->capture_default_str();
  app.add_option("--jobs", o->jobs, "CPU threads (default: all)");
  app.add_option("--out", o->out, "write the log (JSON) to this file");
  return [o] { return run_conform(*o); };
}

}  // namespace mmaemu::cli
