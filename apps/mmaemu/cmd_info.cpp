// mmaemu info: what this build is and what it can do here.
#include <fmt/format.h>

#include <iostream>
#include <nlohmann/json.hpp>

#include "command.hpp"
#include "mmaemu/algorithm.hpp"
#include "mmaemu/preset.hpp"
#include "mmaemu/profile.hpp"
#include "mmaemu/split_k.hpp"
#include "mmaemu/tools/device.hpp"
#include "mmaemu/version.hpp"

namespace mmaemu::cli {
namespace {

nlohmann::json preset_json(const Preset& p) {
  nlohmann::json inputs = nlohmann::json::array();
  for (Format f : p.input_formats) inputs.push_back(describe(f).name);
  nlohmann::json unpinned = nlohmann::json::object();
  for (const auto& u : p.unpinned) unpinned[u.parameter] = u.reason;
  auto result = [](const StepResult& r) {
    return nlohmann::json{{"format", describe(r.format).name},
                          {"fraction_bits", r.fraction_bits},
                          {"rounding", to_string(r.rounding)},
                          {"exponent_floor", r.exponent_floor ? nlohmann::json(*r.exponent_floor)
                                                              : nlohmann::json()}};
  };
  return {{"name", p.name},
          {"architecture", p.architecture},
          {"instruction", p.instruction},
          {"input_formats", inputs},
          {"terms_per_step", p.terms_per_step},
          {"product_alignment", to_string(p.product_alignment)},
          {"alignment_fraction_bits", p.alignment_fraction_bits},
          {"shifted_out", to_string(p.shifted_out)},
          {"accumulator_entry", to_string(p.accumulator_entry)},
          {"flush_subnormal_inputs", p.flush_subnormal_inputs},
          {"f32_result", result(p.f32_result)},
          {"f16_result", p.f16_result ? result(*p.f16_result) : nlohmann::json()},
          {"source", p.source},
          {"unpinned", unpinned}};
}

nlohmann::json cuda_json(const DeviceReport& device) {
  nlohmann::json gpus = nlohmann::json::array();
  for (const auto& g : device.gpus)
    gpus.push_back({{"ordinal", g.ordinal},
                    {"name", g.name},
                    {"compute_capability", fmt::format("{}.{}", g.compute_major, g.compute_minor)},
                    {"multiprocessors", g.multiprocessors}});
  return {{"driver_loaded", device.driver_loaded},
          {"driver_library", device.driver_library},
          {"driver_version", device.driver_version},
          {"gpus", gpus},
          {"nvrtc_loaded", device.nvrtc_loaded},
          {"nvrtc_library", device.nvrtc_library},
          {"gpu_path_available", device.gpu_path_available()},
          {"why_unavailable", device.why_unavailable}};
}

nlohmann::json profile_json(const Profile& p, const DeviceReport& device) {
  nlohmann::json entry = {
      {"name", p.name},
      {"maturity", p.maturity},
      {"description", p.description},
      {"devices", p.devices},
      {"library", p.library},
      {"library_version", p.library_version},
      {"evidence", p.evidence},
      {"split_k_shapes_known", p.split_k_table.size() + p.unsplit_shapes.size()}};
  if (!p.split_k_model) return entry;
  auto model_json = [](const std::string& name, const SplitKModel& m) {
    nlohmann::json devices = nlohmann::json::array();
    for (const auto& d : m.devices) devices.push_back(m.describe_device(d.sm_count));
    return nlohmann::json{{"name", name},
                          {"library", m.library},
                          {"swept_on", m.gpu},
                          {"reference", m.describe_device(m.reference_sm_count)},
                          {"devices", devices},
                          {"grids", m.grids.size()},
                          {"point_sets", m.points.size()}};
  };
  // The GPUs here: whose choice replay and gemm emulate for each (the model swept on it).
  nlohmann::json here = nlohmann::json::array();
  for (const auto& g : device.gpus) {
    const auto chosen = p.split_k_model_for(g.name);
    here.push_back(fmt::format(
        "GPU {}: {}", g.ordinal,
        chosen.swept_on_gpu
            ? fmt::format("split-K model {}, {}", chosen.name,
                          chosen.model->describe_device(g.multiprocessors))
            : fmt::format("no split-K model swept on the {}: the {}'s counts, outside the envelope",
                          g.name, chosen.model->gpu)));
  }
  entry["split_k_model"] = model_json(p.split_k_model_name, *p.split_k_model);
  entry["split_k_model"]["gpus_here"] = here;
  entry["split_k_gpu_models"] = nlohmann::json::array();
  for (const auto& other : p.split_k_gpu_models)
    entry["split_k_gpu_models"].push_back(model_json(other.name, *other.model));
  return entry;
}

// Everything `info --json` prints.
Result<nlohmann::json> info_json(const DeviceReport& device) {
  nlohmann::json j;
  j["version"] = kVersion;
  j["commit"] = kGitCommit;
  j["build"] = {
      {"compiler", kCompiler}, {"build_type", kBuildType}, {"cuda_toolkit", kCudaToolkitAtBuild}};
  j["cuda"] = cuda_json(device);
  j["kernel_modules"] = nlohmann::json::array();
  j["profiles"] = nlohmann::json::array();
  for (const auto& name : builtin_profile_names()) {
    auto p = load_profile(name);
    if (!p) return p.error();
    j["profiles"].push_back(profile_json(*p, device));
  }
  j["presets"] = nlohmann::json::array();
  for (const auto& p : builtin_presets()) j["presets"].push_back(preset_json(p));
  j["algorithms"] = nlohmann::json::array();
  for (const auto& a : builtin_algorithms())
    j["algorithms"].push_back({{"name", a.name},
                               {"accumulation", to_string(a.accumulation)},
                               {"promotion_interval", a.promotion_interval},
                               {"split_k_grain", a.split_k_grain},
                               {"description", a.description}});
  return j;
}

void print_device(const DeviceReport& device) {
  std::cout << fmt::format("mmaemu {} (commit {})\n", kVersion, kGitCommit);
  std::cout << fmt::format("build: {} {}; CUDA toolkit at build time: {}\n", kCompiler, kBuildType,
                           kCudaToolkitAtBuild);
  if (device.driver_loaded)
    std::cout << fmt::format("CUDA driver: {} (version {}), {} GPU(s)\n", device.driver_library,
                             device.driver_version, device.gpus.size());
  for (const auto& g : device.gpus)
    std::cout << fmt::format("  GPU {}: {} (sm_{}{}, {} SMs)\n", g.ordinal, g.name, g.compute_major,
                             g.compute_minor, g.multiprocessors);
  std::cout << fmt::format("NVRTC: {}\n", device.nvrtc_loaded
                                              ? fmt::format("{} ({}.{})", device.nvrtc_library,
                                                            device.nvrtc_major, device.nvrtc_minor)
                                              : device.nvrtc_library + " not found");
  std::cout << "GPU path: "
            << (device.gpu_path_available() ? "available"
                                            : "unavailable: " + device.why_unavailable)
            << "\n";
  std::cout << "CPU path: available (fast path, equal to the exact oracle)\n";
  std::cout << "kernel modules:";
  for (const auto& [module, bytes] : carried_kernel_modules())
    std::cout << " " << module << " (" << bytes << " bytes)";
  std::cout << (carried_kernel_modules().empty() ? " none\n" : "\n");
}

void print_profiles(const nlohmann::json& profiles) {
  std::cout << "profiles:\n";
  for (const auto& p : profiles)
    std::cout << fmt::format(
        "  {:<8} {:<12} {} {}; evidence: {}\n", p["name"].get<std::string>(),
        p["maturity"].get<std::string>(), p["library"].get<std::string>(),
        p["library_version"].get<std::string>(),
        fmt::format("{}", fmt::join(p["evidence"].get<std::vector<std::string>>(), ", ")));
  auto print_model = [](const std::string& profile, const nlohmann::json& m, const char* role) {
    std::cout << fmt::format(
        "  {:<8} split-K model {} ({}): {} swept on the {}; counts for {}; default {}\n", profile,
        m["name"].get<std::string>(), role, m["library"].get<std::string>(),
        m["swept_on"].get<std::string>(),
        fmt::format("{}", fmt::join(m["devices"].get<std::vector<std::string>>(), "; ")),
        m["reference"].get<std::string>());
  };
  for (const auto& p : profiles)
    if (p.contains("split_k_model")) {
      const std::string name = p["name"].get<std::string>();
      print_model(name, p["split_k_model"], "reference");
      for (const auto& m : p["split_k_gpu_models"]) print_model(name, m, "its GPU's calls");
      for (const auto& g : p["split_k_model"]["gpus_here"])
        std::cout << fmt::format("           {}\n", g.get<std::string>());
    }
}

void print_presets() {
  std::cout << "presets:\n";
  for (const auto& p : builtin_presets()) {
    std::string inputs;
    for (Format f : p.input_formats) {
      if (!inputs.empty()) inputs += '/';
      inputs += describe(f).name;
    }
    std::cout << fmt::format(
        "  {:<24} {:<10} {:>2} terms, {} alignment bits, {}, c {}, f32 result {} bits {}\n", p.name,
        inputs, p.terms_per_step, p.alignment_fraction_bits, to_string(p.shifted_out),
        to_string(p.accumulator_entry), p.f32_result.fraction_bits,
        to_string(p.f32_result.rounding));
  }
}

Result<int> run_info(bool as_json) {
  const DeviceReport device = probe_devices();
  auto j = info_json(device);
  if (!j) return j.error();
  if (as_json) {
    std::cout << j->dump(2) << "\n";
    return kExitOk;
  }
  print_device(device);
  print_profiles((*j)["profiles"]);
  print_presets();
  return kExitOk;
}

}  // namespace

Runner setup_info(CLI::App& app) {
  auto as_json = std::make_shared<bool>(false);
  app.add_flag("--json", *as_json, "Print JSON to stdout");
  return [as_json] { return run_info(*as_json); };
}

}  // namespace mmaemu::cli
