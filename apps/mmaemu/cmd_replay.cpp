// mmaemu replay: every recording of a truth set through the emulator, compared bitwise.
#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <chrono>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "backend_option.hpp"
#include "command.hpp"
#include "mmaemu/emulate.hpp"
#include "mmaemu/gpu_family.hpp"
#include "mmaemu/replay.hpp"
#include "mmaemu/version.hpp"
#include "progress.hpp"

namespace mmaemu::cli {
namespace {

// A recording whose file is missing, altered or malformed is refused with the set, not counted as
// a replay that missed: it says nothing about the model.
bool is_bad_input(const Error& e) {
  return e.code() == Errc::hash_mismatch || e.code() == Errc::malformed || e.code() == Errc::io;
}

struct ReplayOptions {
  std::string truth_dir, profile, backend = "cpu", out_path, split_k_from = "recording";
  bool json = false;  // the log to stdout (the human lines then go to stderr)
  int jobs = 0;
  int sm_count = 0;
  std::vector<std::string> only;
};

struct Outcome {
  std::string id, op, preset, algorithm, plan_note, heuristic_device;
  int split_k = 0;
  std::optional<int> recorded_split_k;
  bool inside_envelope = true;
  std::string envelope_reason;
  Comparison comparison;
  std::string error;
  Format format = Format::f32;
  int64_t columns = 0;
};

std::string describe_failure(const Outcome& o) {
  if (!o.error.empty()) return fmt::format("FAIL {}: error: {}", o.id, o.error);
  const Comparison& c = o.comparison;
  const Mismatch& m = *c.first;
  const std::string where = o.op == "mma_block"
                                ? fmt::format("row {}", m.index)
                                : fmt::format("({}, {})", m.index / o.columns, m.index % o.columns);
  const std::string ulps = c.max_ulp_distance == UINT64_MAX
                               ? "a NaN differs"
                               : fmt::format("{} ulp", c.max_ulp_distance);
  const int hex = describe(o.format).storage_bits / 4;
  return fmt::format(
      "FAIL {}: {}/{} elements differ; first at {}: recorded 0x{:0{}X}, emulated 0x{:0{}X}; "
      "largest distance {}",
      o.id, c.mismatches, c.total, where, m.expected, hex, m.actual, hex, ulps);
}

Result<int> run_replay(const ReplayOptions& o) {
  if (o.split_k_from != "recording" && o.split_k_from != "profile")
    return Error(Errc::invalid_argument,
                 "--split-k-from: '" + o.split_k_from + "' is not recording or profile");
  auto opened = open_backend(o.backend);
  if (!opened) return opened.error();
  const Backend backend = *opened;
  if (!o.out_path.empty())
    if (auto ok = check_output_path(o.out_path, {}, {o.truth_dir}); !ok) return ok.error();
  // Machine output on stdout only: with --json the human lines go to stderr.
  std::ostream& human = o.json ? std::cerr : std::cout;
  auto set = load_truth_set(o.truth_dir);
  if (!set) return set.error();
  std::string profile_name = o.profile;
  const bool has_gemm = std::any_of(set->recordings.begin(), set->recordings.end(),
                                    [](const Recording& r) { return r.op == "scaled_mm"; });
  if (profile_name.empty() && has_gemm) {
    const auto arch = architecture_of_gpu(set->gpu);
    if (!arch)
      return Error(Errc::not_found,
                   "no architecture known for GPU '" + set->gpu + "'; pass --profile");
    for (const auto& name : builtin_profile_names())
      if (auto p = load_profile(name); p && p->architecture == *arch) profile_name = name;
    if (profile_name.empty())
      return Error(Errc::not_found,
                   "no profile describes " + *arch + " (GPU '" + set->gpu + "'); pass --profile");
  }
  std::optional<Profile> profile;
  if (!profile_name.empty()) {
    auto p = load_profile(profile_name);
    if (!p) return p.error();
    profile = std::move(p).value();
  }
  const std::set<std::string> only(o.only.begin(), o.only.end());
  for (const auto& id : only)
    if (std::none_of(set->recordings.begin(), set->recordings.end(),
                     [&](const Recording& r) { return r.id == id; }))
      return Error(Errc::not_found, "--only " + id + ": no such recording in " + o.truth_dir);
  const int threads = threads_for_jobs(o.jobs);

  const auto start = std::chrono::steady_clock::now();
  std::vector<Outcome> outcomes;
  Progress progress(only.empty() ? set->recordings.size() : only.size());
  for (const auto& r : set->recordings) {
    if (!only.empty() && !only.count(r.id)) continue;
    Outcome out;
    out.id = r.id;
    out.op = r.op;
    out.format = r.out_dtype;
    out.columns = r.n_stored.value_or(r.n);
    if (r.op == "mma_block") {
      const auto arch = architecture_of_gpu(r.gpu);
      const Preset* preset = arch ? find_preset_for(*arch, r.in_dtype) : nullptr;
      if (!preset) {
        out.error =
            "no preset for GPU '" + r.gpu + "' and " + std::string(describe(r.in_dtype).name);
      } else {
        out.preset = preset->name;
        out.algorithm = "mma_block chain";
        auto c = replay_mma_block(*set, r, *preset, {mma_block_reads_c(r)});
        if (!c && is_bad_input(c.error())) return c.error();
        if (c)
          out.comparison = *c;
        else
          out.error = c.error().message();
      }
    } else {
      ScaledMmReplayOptions options;
      options.split_k_from =
          o.split_k_from == "profile" ? SplitKFrom::profile : SplitKFrom::recording;
      if (o.sm_count > 0) options.sm_count = o.sm_count;
      auto rep = replay_scaled_mm(*set, r, *profile, backend, threads, options);
      if (!rep && is_bad_input(rep.error())) return rep.error();
      out.recorded_split_k = r.recorded_split_k;
      if (rep) {
        out.comparison = rep->comparison;
        out.preset = rep->plan.preset->name;
        out.algorithm = rep->plan.algorithm.name;
        out.split_k = rep->plan.split_k;
        out.plan_note = rep->plan.split_k_source;
        out.heuristic_device = rep->plan.heuristic_device;
        out.inside_envelope = rep->plan.envelope.inside;
        out.envelope_reason = rep->plan.envelope.reason;
      } else {
        out.error = rep.error().message();
      }
    }
    progress.step(r.id);
    const bool exact = out.error.empty() && out.comparison.bit_exact();
    if (!exact) {
      progress.clear();
      human << describe_failure(out) << std::endl;
    }
    outcomes.push_back(std::move(out));
  }
  progress.clear();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const auto exact = std::count_if(outcomes.begin(), outcomes.end(), [](const Outcome& x) {
    return x.error.empty() && x.comparison.bit_exact();
  });
  // With the profile's counts, how often they equal what cuBLASLt logged for the recording.
  size_t logged = 0, agreed = 0;
  for (const auto& x : outcomes)
    if (x.op == "scaled_mm" && x.error.empty() && x.recorded_split_k) {
      ++logged;
      agreed += *x.recorded_split_k == x.split_k;
    }
  std::set<std::string> devices;
  for (const auto& x : outcomes)
    if (!x.heuristic_device.empty()) devices.insert(x.heuristic_device);
  if (!o.out_path.empty() || o.json) {
    nlohmann::json j;
    j["mmaemu_version"] = kVersion;
    j["mmaemu_commit"] = kGitCommit;
    j["truth_dir"] = o.truth_dir;
    j["manifest_sha256"] = set->manifest_sha256;
    j["environment"] =
        nlohmann::json::parse(set->environment_json.empty() ? "null" : set->environment_json);
    j["profile"] = profile_name;
    j["backend"] = o.backend;
    j["split_k_from"] = o.split_k_from;
    if (o.sm_count > 0) j["sm_count"] = o.sm_count;
    j["split_k_agreement"] = fmt::format(
        "{}/{} recordings that log cuBLASLt's split count have the count used", agreed, logged);
    j["threads"] = threads;
    j["seconds"] = seconds;
    j["verdict"] = fmt::format("{}/{} recordings bit-exact", exact, outcomes.size());
    for (const auto& x : outcomes) {
      nlohmann::json r = {{"id", x.id},
                          {"op", x.op},
                          {"verdict", !x.error.empty()           ? "error"
                                      : x.comparison.bit_exact() ? "bit-exact"
                                                                 : "mismatch"},
                          {"elements", x.comparison.total},
                          {"mismatches", x.comparison.mismatches},
                          {"preset", x.preset},
                          {"algorithm", x.algorithm}};
      if (x.op == "scaled_mm") {
        r["profile"] = profile_name;
        r["split_k"] = x.split_k;
        r["split_k_source"] = x.plan_note;
        if (x.recorded_split_k) r["recorded_split_k"] = *x.recorded_split_k;
        if (!x.heuristic_device.empty()) r["heuristic_device"] = x.heuristic_device;
        r["inside_envelope"] = x.inside_envelope;
        if (!x.inside_envelope) r["envelope_reason"] = x.envelope_reason;
      }
      if (!x.error.empty()) r["error"] = x.error;
      if (x.comparison.first)
        r["first_mismatch"] = {{"index", x.comparison.first->index},
                               {"recorded", x.comparison.first->expected},
                               {"emulated", x.comparison.first->actual}};
      j["recordings"].push_back(r);
    }
    const std::string text = j.dump(1) + "\n";
    if (!o.out_path.empty())
      if (auto ok = write_file_atomically(o.out_path, text); !ok) return ok.error();
    if (o.json) std::cout << j.dump() << std::endl;
  }
  std::cerr << fmt::format("replayed {} recordings in {:.1f} s with {} thread(s)\n",
                           outcomes.size(), seconds, threads);
  for (const auto& d : devices) spdlog::info("split-K counts as cuBLASLt chooses them on {}", d);
  if (o.split_k_from == "profile" && logged > 0)
    spdlog::info("split-K from the profile: equal to the recorded count on {}/{} recordings",
                 agreed, logged);
  human << fmt::format("replay: {}/{} recordings bit-exact", exact, outcomes.size()) << std::endl;
  return exact == static_cast<long>(outcomes.size()) ? kExitOk : kExitVerdictFailed;
}

}  // namespace

Runner setup_replay(CLI::App& app) {
  auto o = std::make_shared<ReplayOptions>();
  app.add_option("--truth-dir", o->truth_dir, "folder of an mmaemu-truth/1 set")->required();
  app.add_option("--profile", o->profile,
                 "profile for scaled_mm recordings (default: by the set's GPU)");
  app.add_option("--backend", o->backend, kBackendHelp)->capture_default_str();
  app.add_option("--jobs", o->jobs, "threads (default: all cores)");
  app.add_option("--out", o->out_path, "write the per-recording log (JSON) to this file");
  app.add_flag("--json", o->json, "print the per-recording log (JSON) to stdout");
  app.add_option("--only", o->only, "replay only these recording ids");
  app.add_option(
         "--split-k-from", o->split_k_from,
         "recording: the split count cuBLASLt logged where the recording has one; profile: the "
         "profile's own choice for every recording (tests the profile's split-K resolver)")
      ->capture_default_str();
  app.add_option(
         "--sm-count", o->sm_count,
         "emulate cuBLASLt's choice on a GPU with this many SMs (default: what the set says the "
         "heuristic saw, else the profile's reference GPU)")
      ->check(CLI::Range(1, 4096));
  return [o] { return run_replay(*o); };
}

}  // namespace mmaemu::cli
