// mmaemu replay: every recording of a truth set through the emulator, compared bitwise.
#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>

#include "backend_option.hpp"
#include "command.hpp"
#include "mmaemu/truth_set_replay.hpp"
#include "progress.hpp"

namespace mmaemu::cli {
namespace {

struct ReplayOptions {
  std::string truth_dir, profile, backend = "cpu", out_path, split_k_from = "recording", gpu;
  bool json = false;  // the log to stdout (the human lines then go to stderr)
  int jobs = 0;
  int sm_count = 0;
  std::vector<std::string> only;
};

Result<int> run_replay(const ReplayOptions& o) {
  if (o.split_k_from != "recording" && o.split_k_from != "profile")
    return Error(Errc::invalid_argument,
                 "--split-k-from: '" + o.split_k_from + "' is not recording or profile");
  auto backend = open_backend(o.backend);
  if (!backend) return backend.error();
  if (!o.out_path.empty())
    if (auto ok = check_output_path(o.out_path, {}, {o.truth_dir}); !ok) return ok.error();
  // Machine output on stdout only: with --json the human lines go to stderr.
  std::ostream& human = o.json ? std::cerr : std::cout;
  auto set = load_truth_set(o.truth_dir);
  if (!set) return set.error();
  TruthSetReplayOptions options;
  options.profile = o.profile;
  options.backend = *backend;
  options.threads = threads_for_jobs(o.jobs);
  options.split_k_from = o.split_k_from == "profile" ? SplitKFrom::profile : SplitKFrom::recording;
  if (o.sm_count > 0) options.sm_count = o.sm_count;
  options.gpu = o.gpu;
  options.only = o.only;

  Progress progress(o.only.empty() ? set->recordings.size() : o.only.size());
  auto report = replay_truth_set(*set, options, [&](const RecordingOutcome& x) {
    progress.step(x.id);
    if (!x.bit_exact()) {
      progress.clear();
      human << describe_failure(x) << std::endl;
    }
  });
  progress.clear();
  if (!report) return report.error();
  if (!o.out_path.empty() || o.json) {
    const std::string text = truth_set_report_json(*set, options, *report);
    if (!o.out_path.empty())
      if (auto ok = write_file_atomically(o.out_path, text); !ok) return ok.error();
    if (o.json) std::cout << nlohmann::json::parse(text).dump() << std::endl;
  }
  std::cerr << fmt::format("replayed {} recordings in {:.1f} s with {} thread(s)\n",
                           report->outcomes.size(), report->seconds, options.threads);
  std::set<std::string> devices;
  for (const auto& x : report->outcomes)
    if (!x.heuristic_device.empty()) devices.insert(x.heuristic_device);
  for (const auto& d : devices) spdlog::info("split-K counts as cuBLASLt chooses them on {}", d);
  if (options.split_k_from == SplitKFrom::profile && report->split_k_logged() > 0)
    spdlog::info("split-K from the profile: equal to the recorded count on {}/{} recordings",
                 report->split_k_agreed(), report->split_k_logged());
  human << fmt::format("replay: {}/{} recordings bit-exact", report->bit_exact(),
                       report->outcomes.size())
        << std::endl;
  return report->all_bit_exact() ? kExitOk : kExitVerdictFailed;
}

}  // namespace

Runner setup_replay(CLI::App& app) {
  auto o = std::make_shared<ReplayOptions>();
  app.add_option("--truth-dir", o->truth_dir, "folder of an mmaemu-truth/1 set")->required();
  app.add_option("--profile", o->profile,
                 "profile for scaled_mm recordings (default: by the set's GPU)");
  app.add_option("--backend", o->backend, backend_help())->capture_default_str();
  app.add_option("--jobs", o->jobs, "threads (default: all cores)");
  app.add_option("--out", o->out_path, "write the per-recording log (JSON) to this file");
  app.add_flag("--json", o->json, "print the per-recording log (JSON) to stdout");
  app.add_option("--only", o->only, "replay only these recording ids");
  app.add_option(
         "--split-k-from", o->split_k_from,
         "recording: the split count cuBLASLt logged where the recording has one, else the "
         "profile's, overruled where the recording's kernel names show that K was (not) split; "
         "profile: the profile's own choice for every recording (tests the profile's split-K "
         "resolver)")
      ->capture_default_str();
  app.add_option(
         "--sm-count", o->sm_count,
         "emulate cuBLASLt's choice on a GPU with this many SMs (default: what the set says the "
         "heuristic saw, else the profile's reference GPU)")
      ->check(CLI::Range(1, 4096));
  app.add_option(
      "--gpu", o->gpu,
      "emulate cuBLASLt's choice on this GPU, as its driver names it (\"NVIDIA H100 80GB "
      "HBM3\"): it picks the profile's split-K model (default: the GPU each recording "
      "names)");
  return [o] { return run_replay(*o); };
}

}  // namespace mmaemu::cli
