// A whole truth set replayed and reported (mmaemu replay's library call).
#include "mmaemu/truth_set_replay.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <set>

#include "mmaemu/gpu_family.hpp"
#include "mmaemu/profile.hpp"
#include "mmaemu/version.hpp"
#include "truth/json_object.hpp"

namespace mmaemu {
namespace {

// A recording whose file is missing, altered or malformed is refused with the set, not counted as
// a replay that missed: it says nothing about the model.
bool is_bad_input(const Error& e) {
  return e.code() == Errc::hash_mismatch || e.code() == Errc::malformed || e.code() == Errc::io;
}

// The profile scaled_mm recordings are replayed with: the one named, else the built-in profile of
// the set's GPU's architecture; none when the set holds no scaled_mm recording.
Result<std::optional<Profile>> profile_for(const TruthSet& set, const std::string& named) {
  std::string name = named;
  const bool has_gemm = std::any_of(set.recordings.begin(), set.recordings.end(),
                                    [](const Recording& r) { return r.op == "scaled_mm"; });
  if (name.empty() && has_gemm) {
    const auto arch = architecture_of_gpu(set.gpu);
    if (!arch)
      return Error(Errc::not_found,
                   "no architecture known for GPU '" + set.gpu + "'; pass --profile");
    name = builtin_profile_for(*arch).value_or("");
    if (name.empty())
      return Error(Errc::not_found,
                   "no profile describes " + *arch + " (GPU '" + set.gpu + "'); pass --profile");
  }
  if (name.empty()) return std::optional<Profile>();
  auto p = load_profile(name);
  if (!p) return p.error();
  return std::optional<Profile>(std::move(p).value());
}

Result<RecordingOutcome> replay_one(const TruthSet& set, const Recording& r,
                                    const std::optional<Profile>& profile,
                                    const TruthSetReplayOptions& o) {
  RecordingOutcome out;
  out.id = r.id;
  out.op = r.op;
  out.format = r.out_dtype;
  out.columns = r.n_stored.value_or(r.n);
  if (r.op == "mma_block") {
    const auto arch = architecture_of_gpu(r.gpu);
    const Preset* preset = arch ? find_preset_for(*arch, r.in_dtype) : nullptr;
    if (preset && o.adjust_preset) preset = o.adjust_preset(preset);
    if (!preset) {
      out.error = "no preset for GPU '" + r.gpu + "' and " + std::string(describe(r.in_dtype).name);
      return out;
    }
    out.preset = preset->name;
    out.algorithm = "mma_block chain";
    auto c = replay_mma_block(set, r, *preset, {mma_block_reads_c(r)});
    if (!c && is_bad_input(c.error())) return c.error();
    if (c)
      out.comparison = *c;
    else
      out.error = c.error().message();
    return out;
  }
  ScaledMmReplayOptions options;
  options.split_k_from = o.split_k_from;
  options.sm_count = o.sm_count;
  options.gpu = o.gpu;
  options.adjust_plan = o.adjust_plan;
  auto rep = replay_scaled_mm(set, r, *profile, o.backend, o.threads, options);
  if (!rep && is_bad_input(rep.error())) return rep.error();
  out.recorded_split_k = r.recorded_split_k;
  if (!rep) {
    out.error = rep.error().message();
    return out;
  }
  out.comparison = rep->comparison;
  out.preset = rep->plan.preset->name;
  out.algorithm = rep->plan.algorithm.name;
  out.split_k = rep->plan.split_k;
  out.split_k_source = rep->plan.split_k_source;
  out.heuristic_device = rep->plan.heuristic_device;
  out.inside_envelope = rep->plan.envelope.inside;
  out.envelope_reason = rep->plan.envelope.reason;
  return out;
}

}  // namespace

std::string describe_failure(const RecordingOutcome& o) {
  if (!o.error.empty()) return fmt::format("FAIL {}: error: {}", o.id, o.error);
  const Comparison& c = o.comparison;
  if (!c.first) return fmt::format("FAIL {}: {}/{} elements differ", o.id, c.mismatches, c.total);
  const Mismatch& m = *c.first;
  const std::string where = o.op == "mma_block" || o.columns <= 0
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

size_t TruthSetReport::bit_exact() const {
  return static_cast<size_t>(std::count_if(
      outcomes.begin(), outcomes.end(), [](const RecordingOutcome& x) { return x.bit_exact(); }));
}

size_t TruthSetReport::split_k_logged() const {
  return static_cast<size_t>(std::count_if(outcomes.begin(), outcomes.end(), [](const auto& x) {
    return x.op == "scaled_mm" && x.error.empty() && x.recorded_split_k;
  }));
}

size_t TruthSetReport::split_k_agreed() const {
  return static_cast<size_t>(std::count_if(outcomes.begin(), outcomes.end(), [](const auto& x) {
    return x.op == "scaled_mm" && x.error.empty() && x.recorded_split_k &&
           *x.recorded_split_k == x.split_k;
  }));
}

Result<TruthSetReport> replay_truth_set(
    const TruthSet& set, const TruthSetReplayOptions& options,
    const std::function<void(const RecordingOutcome&)>& on_outcome) {
  auto profile = profile_for(set, options.profile);
  if (!profile) return profile.error();
  const std::set<std::string> only(options.only.begin(), options.only.end());
  for (const auto& id : only)
    if (std::none_of(set.recordings.begin(), set.recordings.end(),
                     [&](const Recording& r) { return r.id == id; }))
      return Error(Errc::not_found,
                   "--only " + id + ": no such recording in " + set.directory.string());
  TruthSetReport report;
  report.profile = *profile ? (*profile)->name : "";
  const auto start = std::chrono::steady_clock::now();
  for (const auto& r : set.recordings) {
    if (!only.empty() && !only.count(r.id)) continue;
    auto outcome = replay_one(set, r, *profile, options);
    if (!outcome) return outcome.error();
    if (on_outcome) on_outcome(*outcome);
    report.outcomes.push_back(std::move(outcome).value());
  }
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

std::string truth_set_report_json(const TruthSet& set, const TruthSetReplayOptions& o,
                                  const TruthSetReport& report) {
  nlohmann::json j;
  j["mmaemu_version"] = kVersion;
  j["mmaemu_commit"] = kGitCommit;
  j["truth_dir"] = set.directory.string();
  j["manifest_sha256"] = set.manifest_sha256;
  // The manifest's environment, read and checked with it, copied as it is.
  auto environment = parse_json_object(set.environment_json, set.directory.string());
  j["environment"] = environment ? *environment : nlohmann::json();
  j["profile"] = report.profile;
  j["backend"] = std::string(to_string(o.backend));
  j["split_k_from"] = o.split_k_from == SplitKFrom::profile ? "profile" : "recording";
  if (o.sm_count) j["sm_count"] = *o.sm_count;
  if (!o.gpu.empty()) j["gpu"] = o.gpu;
  j["split_k_agreement"] =
      fmt::format("{}/{} recordings that log cuBLASLt's split count have the count used",
                  report.split_k_agreed(), report.split_k_logged());
  j["threads"] = o.threads;
  j["seconds"] = report.seconds;
  j["verdict"] =
      fmt::format("{}/{} recordings bit-exact", report.bit_exact(), report.outcomes.size());
  j["recordings"] = nlohmann::json::array();
  for (const auto& x : report.outcomes) {
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
      r["profile"] = report.profile;
      r["split_k"] = x.split_k;
      r["split_k_source"] = x.split_k_source;
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
  return j.dump(1) + "\n";
}

}  // namespace mmaemu
