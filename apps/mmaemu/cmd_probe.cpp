// mmaemu probe: single tensor-core instructions on the live GPU with crafted tiles, judged
// against the presets (see mmaemu/tools/probe.hpp). The probed tiles can be saved and judged again
// later on any machine (--data), so the evidence outlives the GPU session.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <iostream>
#include <nlohmann/json.hpp>

#include "command.hpp"
#include "mmaemu/gpu_family.hpp"
#include "mmaemu/safetensors.hpp"
#include "mmaemu/tools/probe.hpp"
#include "mmaemu/version.hpp"
#include "progress.hpp"

namespace mmaemu::cli {
namespace {

using nlohmann::json;

struct ProbeCliOptions {
  std::string out, save_data, data;
  int tiles_per_class = 32, jobs = 0;
  uint64_t seed = 1;
};

std::string architecture_of(int compute) {
  if (compute >= 100) return "blackwell";
  if (compute >= 90) return "hopper";
  if (compute >= 89) return "ada";
  if (compute >= 80) return "ampere";
  return "volta";
}

bool is_fp8(Format f) {
  return f == Format::f8_e4m3 || f == Format::f8_e5m2;
}

// The preset the profile's model says the instruction follows: for FP8 on Hopper the wgmma step
// (what cuBLASLt's kernels issue); mma.sync FP8 on Hopper is judged against it and every other
// FP8 preset, since no published data says which it follows.
const Preset* preset_for(const ProbeInstruction& in, int compute) {
  return find_preset_for(architecture_of(compute), in.a_format);
}

std::vector<const Preset*> candidates_for(const ProbeInstruction& in) {
  std::vector<const Preset*> v;
  for (const Preset& p : builtin_presets())
    if (p.accepts(in.a_format) && p.accepts(in.b_format) &&
        (is_fp8(in.a_format) || p.architecture != "volta"))
      v.push_back(&p);
  return v;
}

std::string tensor_prefix(const ProbeInstruction& in) {
  return in.kernel + (in.reads_c ? "_c" : "_no_c");
}

Result<void> save(const std::string& path, const ProbeSession& s) {
  std::vector<TensorToWrite> tensors;
  std::vector<std::vector<uint8_t>> classes;
  classes.reserve(s.runs.size());
  for (const auto& r : s.runs) {
    if (!r.skipped.empty()) continue;
    const ProbeInstruction& in = r.instruction;
    const std::string p = tensor_prefix(in);
    const int64_t tiles = r.tiles.tiles;
    const auto dtype = [](Format f) {
      return std::string(f == Format::tf32 ? "F32" : describe(f).safetensors_dtype);
    };
    tensors.push_back({p + ".a", dtype(in.a_format), {tiles, in.m, in.k}, r.tiles.a});
    tensors.push_back({p + ".b", dtype(in.b_format), {tiles, in.n, in.k}, r.tiles.b});
    tensors.push_back({p + ".c", "F32", {tiles, in.m, in.n}, bytes_of(r.tiles.c)});
    tensors.push_back({p + ".d", "F32", {tiles, in.m, in.n}, bytes_of(r.hardware)});
    classes.emplace_back(r.tiles.class_of_tile.begin(), r.tiles.class_of_tile.end());
    tensors.push_back({p + ".class", "U8", {tiles}, classes.back()});
  }
  return write_safetensors(path, tensors);
}

std::vector<uint32_t> words(std::span<const uint8_t> bytes) {
  std::vector<uint32_t> v(bytes.size() / 4);
  for (size_t i = 0; i < v.size(); ++i) v[i] = load_bits(Format::f32, bytes, i);
  return v;
}

// A session read back from --save-data output: the GPU's name and capability come from its
// metadata-free companion, the JSON log, so they are given on the command line path's JSON.
Result<ProbeSession> load(const std::string& path) {
  auto file = SafetensorsFile::read(path);
  if (!file) return file.error();
  ProbeSession s;
  for (const ProbeInstruction& in : probe_instructions()) {
    const std::string p = tensor_prefix(in);
    ProbeRun r;
    r.instruction = in;
    const TensorInfo* a = file->find(p + ".a");
    const TensorInfo *b = file->find(p + ".b"), *c = file->find(p + ".c"),
                     *d = file->find(p + ".d"), *cls = file->find(p + ".class");
    if (!a || !b || !c || !d || !cls) {
      r.skipped = "not in " + path;
      s.runs.push_back(std::move(r));
      continue;
    }
    const auto class_bytes = file->data(*cls);
    r.tiles.tiles = static_cast<int>(class_bytes.size());
    const size_t tiles = class_bytes.size();
    const auto ab = file->data(*a), bb = file->data(*b), cb = file->data(*c), db = file->data(*d);
    if (ab.size() != tiles * in.m * in.k * describe(in.a_format).storage_bytes() ||
        bb.size() != tiles * in.n * in.k * describe(in.b_format).storage_bytes() ||
        cb.size() != tiles * in.m * in.n * 4 || db.size() != tiles * in.m * in.n * 4)
      return Error(Errc::malformed,
                   path + ": tensors of " + p + " do not have the instruction's tile sizes");
    for (uint8_t x : class_bytes) {
      if (x >= probe_classes().size())
        return Error(Errc::malformed, path + ": " + p + ".class holds an unknown class");
      r.tiles.class_of_tile.push_back(x);
    }
    r.tiles.a.assign(ab.begin(), ab.end());
    r.tiles.b.assign(bb.begin(), bb.end());
    r.tiles.c = words(cb);
    r.hardware = words(db);
    s.runs.push_back(std::move(r));
  }
  return s;
}

json verdict_json(const ProbeVerdict& v) {
  json j = {{"instruction", v.instruction},
            {"preset", v.preset},
            {"elements", v.elements},
            {"mismatches", v.mismatches},
            {"verdict", v.mismatches == 0 ? "matches the preset" : "differs from the preset"}};
  for (const auto& c : v.classes) {
    json cj = {{"class", c.name}, {"elements", c.elements}, {"mismatches", c.mismatches}};
    if (c.first)
      cj["first_mismatch"] = {{"tile", c.first->tile},
                              {"row", c.first->row},
                              {"column", c.first->column},
                              {"hardware", fmt::format("0x{:08X}", c.first->hardware)},
                              {"model", fmt::format("0x{:08X}", c.first->model)}};
    j["classes"].push_back(cj);
  }
  for (const auto& p : v.parameters) {
    json pj = {{"parameter", p.parameter},
               {"value", p.value},
               {"determined", p.determined},
               {"declared_unpinned_by_recorded_data", p.declared_unpinned}};
    if (!p.note.empty()) pj["note"] = p.note;
    for (const auto& m : p.moves)
      pj["moves"].push_back(
          {{"move", m.label}, {"mismatches", m.mismatches}, {"first_class", m.first_class}});
    j["parameters"].push_back(pj);
  }
  for (const auto& [name, count] : v.candidates)
    j["other_presets"].push_back({{"preset", name}, {"mismatches", count}});
  return j;
}

// Live on GPU 0 (saved with --save-data), or the saved data of an earlier run (--data).
Result<ProbeSession> probe_session(const ProbeCliOptions& o) {
  if (!o.data.empty()) return load(o.data);
  spdlog::debug("probing with {} tiles per class", o.tiles_per_class);
  auto s = run_probes(
      {0, o.tiles_per_class, o.seed, o.jobs},
      [](const ProbeInstruction& in, int compute) { return preset_for(in, compute); },
      [](const std::string& name) { spdlog::info("probed {}", name); });
  if (!s) return s.error();
  if (!o.save_data.empty())
    if (auto ok = save(o.save_data, *s); !ok) return ok.error();
  return s;
}

json probe_log_header(const ProbeCliOptions& o, const ProbeSession& session) {
  json log = {
      {"format", "mmaemu-probe/1"},
      {"mmaemu_version", kVersion},
      {"mmaemu_commit", kGitCommit},
      {"source", o.data.empty() ? "live" : "judged again from " + o.data},
      {"tiles_per_class",
       o.data.empty() || session.runs.empty() || session.runs.front().tiles.tiles == 0
           ? o.tiles_per_class
           : session.runs.front().tiles.tiles / static_cast<int>(probe_classes().size())},
      {"seed", o.seed},
      {"classes", probe_classes()},
      {"nan_rule", "bitwise: the hardware's canonical NaN (0x7FFFFFFF) must be the model's"}};
  if (o.data.empty())
    log["environment"] = {
        {"gpu", session.gpu},
        {"sm", fmt::format("{}.{}", session.compute_major, session.compute_minor)},
        {"driver_api_version", session.driver_version}};
  return log;
}

// One instruction's tiles judged against its preset: its entry of the log, a line on stdout, and
// whether it is a modelled instruction that differs.
bool judge_run(const ProbeCliOptions& o, ProbeRun& r, int compute, json& log, Progress& progress) {
  if (!r.skipped.empty()) {
    log["instructions"].push_back({{"instruction", r.instruction.name}, {"skipped", r.skipped}});
    return false;
  }
  r.tiles.instruction = &r.instruction;
  const Preset* preset = preset_for(r.instruction, compute);
  const ProbeVerdict v =
      judge_probe(r.tiles, r.hardware, *preset, candidates_for(r.instruction), o.jobs);
  // The wgmma step is the one the hopper profile's model rests on: it must match.
  const bool modelled = r.instruction.warpgroup || !is_fp8(r.instruction.a_format);
  json vj = verdict_json(v);
  vj["kernel"] = r.instruction.kernel;
  vj["role"] = modelled ? "modelled: must match" : "observed: which preset it follows is reported";
  log["instructions"].push_back(vj);
  progress.clear();
  std::cout << fmt::format("{:<40} {:<24} {}/{} elements match", v.instruction, v.preset,
                           v.elements - v.mismatches, v.elements);
  for (const auto& [name, count] : v.candidates)
    if (count == 0) std::cout << " (also " << name << ")";
  std::cout << std::endl;
  return modelled && v.mismatches > 0;
}

Result<int> run_probe(const ProbeCliOptions& o) {
  auto session = probe_session(o);
  if (!session) return session.error();
  json log = probe_log_header(o, *session);
  // Saved data come from the H200 probes.
  const int compute = o.data.empty() ? session->compute_major * 10 + session->compute_minor : 90;
  int failures = 0;
  Progress progress(session->runs.size());
  for (auto& r : session->runs) {
    progress.step(r.instruction.name);
    failures += judge_run(o, r, compute, log, progress);
  }
  progress.clear();
  if (auto ok = write_file_atomically(o.out, log.dump(1) + "\n"); !ok) return ok.error();
  std::cout << fmt::format("probe: {} modelled instruction(s) differ from their preset", failures)
            << std::endl;
  return failures == 0 ? kExitOk : kExitVerdictFailed;
}

}  // namespace

Runner setup_probe(CLI::App& app) {
  auto o = std::make_shared<ProbeCliOptions>();
  app.add_option("--out", o->out, "the probe log (JSON) to write")->required();
  app.add_option("--tiles-per-class", o->tiles_per_class, "tiles of each input class")
      ->capture_default_str();
  app.add_option("--seed", o->seed, "seed of the crafted tiles")->capture_default_str();
  app.add_option("--jobs", o->jobs, "CPU threads for the judgement (default: all)");
  app.add_option("--save-data", o->save_data, "also write the probed tiles and D (safetensors)");
  app.add_option("--data", o->data, "judge saved probe data again instead of running the GPU");
  return [o] { return run_probe(*o); };
}

}  // namespace mmaemu::cli
