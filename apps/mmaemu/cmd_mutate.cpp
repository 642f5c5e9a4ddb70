// mmaemu mutate: the mutation matrix (mmaemu/tools/mutation_matrix.hpp) over truth sets.
#include <fmt/format.h>

#include <algorithm>
#include <iostream>

#include "command.hpp"
#include "data_location.hpp"
#include "mmaemu/safetensors.hpp"
#include "mmaemu/tools/mutation_matrix.hpp"
#include "option_lists.hpp"
#include "progress.hpp"

namespace mmaemu::cli {
namespace {

namespace fs = std::filesystem;

struct MutateOptions {
  std::string truth_dirs, out;
  bool json = false;
  int jobs = 0;
};

// The sets named, else every set bundled with this mmaemu.
Result<std::vector<fs::path>> set_dirs(const std::string& listed) {
  std::vector<fs::path> dirs;
  for (const auto& d : split_list(listed)) dirs.emplace_back(d);
  if (!dirs.empty()) return dirs;
  const auto root = bundled_truth_root();
  if (!root)
    return Error(Errc::not_found,
                 "mutate: --truth-dirs: give the truth sets (no bundled truth found)");
  for (const auto& e : fs::directory_iterator(*root))
    if (e.is_directory() && fs::exists(e.path() / "manifest.json")) dirs.push_back(e.path());
  std::sort(dirs.begin(), dirs.end());
  return dirs;
}

void print_matrix(const MutationReport& r) {
  for (const auto& m : r.mutants)
    std::cout << fmt::format("{:8} {:30} {:24} {:50} {}\n", m.killed ? "killed" : "SURVIVED",
                             m.target, m.parameter, m.change,
                             m.killed ? "by " + m.killed_by : m.reason);
  for (const auto& f : r.fixed_rules)
    std::cout << fmt::format("code     {} ({}): judged by {}\n", f.rule, f.where, f.judged_by);
  std::cout << fmt::format(
      "mutate: {} mutants, {} killed, {} survived, over {} recordings of {} set(s) in {:.1f} s\n",
      r.mutants.size(), r.killed(), r.mutants.size() - r.killed(), r.recordings,
      r.truth_sets.size(), r.seconds);
}

Result<int> run_mutate(const MutateOptions& o) {
  auto dirs = set_dirs(o.truth_dirs);
  if (!dirs) return dirs.error();
  std::vector<TruthSet> sets;
  for (const auto& d : *dirs) {
    auto set = load_truth_set(d);
    if (!set) return set.error();
    sets.push_back(std::move(set).value());
  }
  Progress progress(0);
  auto report = run_mutation_matrix(sets, threads_for_jobs(o.jobs),
                                    [&](const MutantOutcome& m, size_t done, size_t total) {
                                      if (done == 1) progress = Progress(total);
                                      progress.set(done, m.target + " " + m.parameter);
                                    });
  progress.clear();
  if (!report) return report.error();
  const std::string text = mutation_report_json(*report);
  if (!o.out.empty())
    if (auto ok = write_file_atomically(o.out, text); !ok) return ok.error();
  if (o.json)
    std::cout << text;
  else
    print_matrix(*report);
  return kExitOk;
}

}  // namespace

Runner setup_mutate(CLI::App& app) {
  auto o = std::make_shared<MutateOptions>();
  app.add_option("--truth-dirs", o->truth_dirs,
                 "truth sets, comma-separated (default: every bundled set)");
  app.add_option("--out", o->out, "write the matrix (JSON, mmaemu-mutation-matrix/1) to this file");
  app.add_flag("--json", o->json, "print the matrix as JSON to stdout");
  app.add_option("--jobs", o->jobs, "threads (default: every core)");
  return [o] { return run_mutate(*o); };
}

}  // namespace mmaemu::cli
