// Live parity: random calls through cuBLASLt on GPU 0, replayed through the emulator
// (live_check.hpp).
#include "mmaemu/tools/live_check.hpp"

#include <fmt/format.h>

#include <chrono>
#include <nlohmann/json.hpp>

#include "mmaemu/exact.hpp"
#include "mmaemu/truth.hpp"
#include "mmaemu/version.hpp"
#include "truth/json_fields.hpp"
#include "truth/json_object.hpp"

namespace mmaemu {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// The profile's own count for a recording, whatever the replay used: with split_k_from profile
// the replay's plan is that choice; else the call is resolved again without the logged count.
Result<Plan> profile_choice(const TruthSet& set, const Recording& r, const Profile& profile,
                            const ScaledMmReplay& replay, SplitKFrom from) {
  if (from == SplitKFrom::profile) return replay.plan;
  auto loaded = load_scaled_mm_call(set, r);
  if (!loaded) return loaded.error();
  return profile.resolve(loaded->call, {.known_split_k = std::nullopt,
                                        .workspace_bytes = recorded_workspace_bytes(set, r),
                                        .sm_count = heuristic_sm_count(set, r),
                                        .known_split = std::nullopt,
                                        .heuristic_gpu = set.gpu});
}

Result<LiveCallResult> replay_live_call(const TruthSet& set, const Recording& r,
                                        const Profile& profile, const LiveCheckOptions& o) {
  const auto start = Clock::now();
  ScaledMmReplayOptions replay_options;
  replay_options.split_k_from = o.split_k_from;
  auto rep = replay_scaled_mm(set, r, profile, o.backend, o.threads, replay_options);
  if (!rep) return rep.error();
  auto own = profile_choice(set, r, profile, *rep, o.split_k_from);
  if (!own) return own.error();
  LiveCallResult c;
  c.id = r.id;
  c.m = r.m;
  c.n = r.n;
  c.k = r.k;
  c.bit_exact = rep->comparison.bit_exact();
  c.mismatches = static_cast<int64_t>(rep->comparison.mismatches);
  c.elements = static_cast<int64_t>(rep->comparison.total);
  c.split_k_used = rep->plan.split_k;
  c.cublaslt_split_k = r.recorded_split_k;
  c.profile_split_k = own->split_k;
  c.profile_split_k_source = own->split_k_source;
  c.profile_inside_envelope = own->envelope.inside;
  if (!own->envelope.inside) c.envelope_reason = own->envelope.reason;
  c.profile_agrees = r.recorded_split_k && own->split_k == *r.recorded_split_k;
  c.replay_seconds = seconds_since(start);
  return c;
}

}  // namespace

Result<LiveCheckReport> replay_live_set(const std::filesystem::path& dir, const LiveCheckOptions& o,
                                        const Profile& profile, const LiveCheckEvents& events) {
  const auto start = Clock::now();
  auto set = load_truth_set(dir);
  if (!set) return set.error();
  LiveCheckReport report;
  report.environment_json = set->environment_json;
  if (events.replay_started) events.replay_started(set->recordings.size());
  for (const auto& r : set->recordings) {
    auto call = replay_live_call(*set, r, profile, o);
    if (!call) return call.error();
    report.bit_exact += call->bit_exact;
    report.split_k_logged += call->cublaslt_split_k.has_value();
    report.split_k_agreed += call->profile_agrees;
    report.split += call->cublaslt_split_k.value_or(1) > 1;
    report.inside += call->profile_inside_envelope;
    if (events.replayed) events.replayed(*call);
    report.calls.push_back(std::move(call).value());
  }
  report.replaying_seconds = seconds_since(start);
  return report;
}

Result<LiveCheckReport> check_live(const LiveCheckOptions& o, const Profile& profile,
                                   const LiveCheckEvents& events) {
  if (o.work_dir.empty()) return Error(Errc::invalid_argument, "no directory to record into");
  auto phase = Clock::now();
  auto calls = random_live_calls(o.calls, o.seed, o.workspaces, o.threads);
  if (!calls) return calls.error();
  const double drawing_seconds = seconds_since(phase);
  phase = Clock::now();
  if (events.recording_started) events.recording_started(calls->size());
  auto summary = record_truth_set({o.work_dir, o.cublaslt, o.workspaces.front(), 0, o.sm_count},
                                  std::move(calls).value(), [&](const std::string& id) {
                                    if (events.recorded) events.recorded(id);
                                  });
  if (!summary) return summary.error();
  const double recording_seconds = seconds_since(phase);
  auto report = replay_live_set(o.work_dir, o, profile, events);
  if (!report) return report.error();
  report->recording = *summary;
  report->drawing_seconds = drawing_seconds;
  report->recording_seconds = recording_seconds;
  return report;
}

std::string live_check_verdict(const LiveCheckOptions& o, const LiveCheckReport& r) {
  std::string gpu = "this GPU";
  const auto env = nlohmann::json::parse(r.environment_json, nullptr, false);
  if (env.is_object() && env.contains("gpu") && env["gpu"].is_string())
    gpu = env["gpu"].get<std::string>();
  return fmt::format(
      "{}/{} calls bit-exact on {} with split-K counts from the {} ({} recorded twice: {} "
      "nondeterministic, {} skipped by the heuristic); the profile's split-K choice equal to "
      "cuBLASLt's on {}/{} calls ({} of them split), {} inside its envelope",
      r.bit_exact, r.calls.size(), gpu,
      o.split_k_from == SplitKFrom::profile ? "profile" : "recordings", r.recording.recorded,
      r.recording.nondeterministic, r.recording.skipped, r.split_k_agreed, r.split_k_logged,
      r.split, r.inside);
}

std::string live_check_report_json(const LiveCheckOptions& o, const Profile& profile,
                                   const LiveCheckReport& r) {
  using nlohmann::json;
  json results = json::array();
  for (const auto& c : r.calls) {
    json call = {{"id", c.id},
                 {"m", c.m},
                 {"n", c.n},
                 {"k", c.k},
                 {"verdict", c.bit_exact ? "bit-exact" : "mismatch"},
                 {"mismatches", c.mismatches},
                 {"split_k_used", c.split_k_used},
                 {"profile_split_k", c.profile_split_k},
                 {"profile_inside_envelope", c.profile_inside_envelope},
                 {"profile_agrees", c.profile_agrees},
                 {"replay_seconds", c.replay_seconds}};
    if (c.cublaslt_split_k) call["cublaslt_split_k"] = *c.cublaslt_split_k;
    if (!c.profile_inside_envelope) call["envelope_reason"] = c.envelope_reason;
    results.push_back(std::move(call));
  }
  // The recorded set's environment (a manifest's, read and checked with it), copied as it is.
  const auto parsed = parse_json_object(r.environment_json, "the recorded set's environment");
  const json environment = parsed ? *parsed : json::object();
  const JsonFields env(environment, "the recorded set's environment");
  const json gpu = env.has("gpu") ? env.at("gpu") : json("unknown");
  const json sm = env.has("sm") ? env.at("sm") : json("unknown");
  return json({{"format", "mmaemu-selftest-live/2"},
               {"gpu", gpu},
               {"sm", sm},
               {"profile", profile.name},
               {"cublaslt", o.cublaslt},
               {"workspaces", o.workspaces},
               {"sm_count_target", o.sm_count},
               {"split_k_from", o.split_k_from == SplitKFrom::profile ? "profile" : "recording"},
               {"backend", std::string(to_string(o.backend))},
               {"seed", o.seed},
               {"environment", environment},
               {"mmaemu_version", kVersion},
               {"mmaemu_commit", kGitCommit},
               {"verdict", live_check_verdict(o, r)},
               {"calls_bit_exact", r.bit_exact},
               {"calls", r.calls.size()},
               {"split_k_agreed", r.split_k_agreed},
               {"split_k_logged", r.split_k_logged},
               {"calls_split", r.split},
               {"seconds",
                {{"drawing", r.drawing_seconds},
                 {"recording", r.recording_seconds},
                 {"replaying", r.replaying_seconds}}},
               {"results", results}})
             .dump(1) +
         "\n";
}

}  // namespace mmaemu
