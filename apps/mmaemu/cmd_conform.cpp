// mmaemu conform: a backend (the CUDA kernels, or the fast CPU path) against the oracle, bit for
// bit, on random and adversarial calls: every distribution, odd shapes, K not a multiple of the
// step, split-K 1 to 5, both accumulation modes, the Hopper and Ada presets, every output dtype.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <iostream>
#include <nlohmann/json.hpp>
#include <thread>

#include "command.hpp"
#include "mmaemu/adversarial.hpp"
#include "mmaemu/emulate.hpp"
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

Result<int> run_conform(const ConformOptions& o) {
  Backend backend;
  std::string device = "this CPU";
  if (o.backend == "cuda") {
    backend = Backend::cuda;
    auto gpu = cuda_backend_device();
    if (!gpu) return Error(gpu.error().code(), "--backend cuda: " + gpu.error().message());
    device = *gpu;
  } else if (o.backend == "cpu") {
    backend = Backend::cpu;
  } else {
    return Error(Errc::invalid_argument, "--backend " + o.backend + ": expected cuda or cpu");
  }
  const char* profiles[] = {"hopper", "ada"};
  const std::pair<CallDistribution, const char*> dists[] = {{CallDistribution::normal, "normal"},
                                                            {CallDistribution::wide, "wide"},
                                                            {CallDistribution::small, "small"},
                                                            {CallDistribution::cancel, "cancel"},
                                                            {CallDistribution::special, "special"}};
  // The unit test's odd shapes, and larger ones that fill more of a GPU.
  AdversarialShapes shapes;
  shapes.m = {1, 3, 16, 17, 64, 129};
  shapes.n = {1, 5, 16, 48, 130};
  shapes.k = {1, 7, 31, 32, 33, 100, 128, 129, 300, 513, 1000, 2048};
  std::mt19937 rng(static_cast<std::mt19937::result_type>(o.seed));
  nlohmann::json failures = nlohmann::json::array(), per_dist = nlohmann::json::object();
  int64_t elements = 0, calls = 0, bad_calls = 0;
  Progress progress(static_cast<size_t>(o.calls) * 5);
  for (const auto& [dist, name] : dists) {
    int64_t dist_calls = 0, dist_bad = 0;
    for (int trial = 0; trial < o.calls; ++trial) {
      AdversarialCall c = random_adversarial_call(rng, dist, shapes);
      auto profile = load_profile(profiles[trial % 2]);
      if (!profile) return profile.error();
      auto plan = profile->resolve(c.call);
      if (!plan) return plan.error();
      plan->split_k = 1 + static_cast<int>(rng() % 5);
      const int threads = o.jobs > 0 ? o.jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
      auto expected = emulate(*plan, c.call, Backend::oracle, threads);
      auto got = emulate(*plan, c.call, backend, threads);
      if (!expected) return expected.error();
      if (!got) return got.error();
      progress.step(name);
      ++calls;
      ++dist_calls;
      elements += c.call.m * c.call.n;
      if (*got == *expected) continue;
      ++bad_calls;
      ++dist_bad;
      progress.clear();
      const std::string what = fmt::format("{} trial {}: {}x{}x{} {}x{} -> {}, preset {}, splits {}, fast {}", name, trial,
                                           c.call.m, c.call.n, c.call.k, describe(c.call.a_dtype).name,
                                           describe(c.call.b_dtype).name, describe(c.call.out_dtype).name,
                                           plan->preset->name, plan->split_k, c.call.use_fast_accum);
      std::cout << "FAIL " << what << std::endl;
      failures.push_back(what);
    }
    per_dist[name] = fmt::format("{}/{} calls equal", dist_calls - dist_bad, dist_calls);
  }
  progress.clear();
  const std::string verdict = fmt::format("{}/{} calls ({} elements) bit-identical to the oracle", calls - bad_calls,
                                          calls, elements);
  nlohmann::json log = {{"format", "mmaemu-conform/1"}, {"mmaemu_version", kVersion}, {"mmaemu_commit", kGitCommit},
                        {"backend", o.backend}, {"kernel", o.backend == "cuda" ? "v1 (carried fatbin)" : "fast CPU path"},
                        {"device", device}, {"seed", o.seed}, {"calls_per_distribution", o.calls},
                        {"distributions", per_dist}, {"verdict", verdict}, {"failures", failures}};
  if (!o.out.empty())
    if (auto ok = write_file_atomically(o.out, log.dump(1) + "\n"); !ok) return ok.error();
  std::cout << "conform: " << o.backend << " on " << device << ": " << verdict << std::endl;
  return bad_calls == 0 ? kExitOk : kExitVerdictFailed;
}

}  // namespace

Runner setup_conform(CLI::App& app) {
  auto o = std::make_shared<ConformOptions>();
  app.add_option("--backend", o->backend, "cuda (kernel v1 on GPU 0) or cpu (the fast path)")->capture_default_str();
  app.add_option("--calls", o->calls, "random calls per distribution")->capture_default_str();
  app.add_option("--seed", o->seed, "seed of the calls")->capture_default_str();
  app.add_option("--jobs", o->jobs, "CPU threads (default: all)");
  app.add_option("--out", o->out, "write the log (JSON) to this file");
  return [o] { return run_conform(*o); };
}

}  // namespace mmaemu::cli
