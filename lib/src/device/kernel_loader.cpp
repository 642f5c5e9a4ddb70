#include "device/kernel_loader.hpp"

#include "mmaemu/tools/emulation_modules.hpp"

#ifdef MMAEMU_HAVE_CUDA_HEADERS

#include <nvrtc.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <mutex>

#include "device/embedded_kernels.hpp"
#include "device/shared_library.hpp"
#include "mmaemu/tools/emulation_modules.hpp"
#include "mmaemu/tools/kernel_modules.hpp"

namespace mmaemu::device {
namespace {

std::mutex& loader_lock() {
  static std::mutex lock;
  return lock;
}

// NVRTC, loaded at run time: compiles `source` (with every carried header) to a cubin for `arch`.
Result<std::vector<char>> compile_with_nvrtc(const std::string& source, const std::string& arch) {
  using Create = nvrtcResult (*)(nvrtcProgram*, const char*, const char*, int, const char* const*,
                                 const char* const*);
  using Compile = nvrtcResult (*)(nvrtcProgram, int, const char* const*);
  using Size = nvrtcResult (*)(nvrtcProgram, size_t*);
  using Get = nvrtcResult (*)(nvrtcProgram, char*);
  using Destroy = nvrtcResult (*)(nvrtcProgram*);
  const SharedLibrary& so = nvrtc_library();
  if (!so)
    return Error(Errc::device_unavailable,
                 "NVRTC (" + so.name + ") could not be loaded (" + so.error + ")");
  auto create = reinterpret_cast<Create>(so.symbol("nvrtcCreateProgram"));
  auto compile = reinterpret_cast<Compile>(so.symbol("nvrtcCompileProgram"));
  auto log_size = reinterpret_cast<Size>(so.symbol("nvrtcGetProgramLogSize"));
  auto get_log = reinterpret_cast<Get>(so.symbol("nvrtcGetProgramLog"));
  auto cubin_size = reinterpret_cast<Size>(so.symbol("nvrtcGetCUBINSize"));
  auto get_cubin = reinterpret_cast<Get>(so.symbol("nvrtcGetCUBIN"));
  auto destroy = reinterpret_cast<Destroy>(so.symbol("nvrtcDestroyProgram"));
  if (!create || !compile || !log_size || !get_log || !cubin_size || !get_cubin || !destroy)
    return Error(Errc::device_unavailable, "libnvrtc lacks an entry point this build needs");
  std::string main_text;
  std::vector<std::string> header_names, header_texts;
  for (const auto& t : embedded_kernel_sources()) {
    if (t.name == source)
      main_text = t.text;
    else if (t.name.ends_with(".h")) {
      header_names.emplace_back(t.name);
      header_texts.emplace_back(t.text);
    }
  }
  if (main_text.empty()) return Error(Errc::internal, "this mmaemu does not carry " + source);
  std::vector<const char*> names, texts;
  for (size_t i = 0; i < header_names.size(); ++i) {
    names.push_back(header_names[i].c_str());
    texts.push_back(header_texts[i].c_str());
  }
  nvrtcProgram program = nullptr;
  if (create(&program, main_text.c_str(), source.c_str(), static_cast<int>(names.size()),
             texts.data(), names.data()) != NVRTC_SUCCESS)
    return Error(Errc::device_unavailable, "nvrtcCreateProgram failed");
  const std::string arch_option = "--gpu-architecture=" + arch;
  const char* options[] = {arch_option.c_str(), "-fmad=false", "--std=c++17"};
  const nvrtcResult compiled = compile(program, 3, options);
  std::vector<char> cubin;
  std::string log;
  size_t n = 0;
  if (log_size(program, &n) == NVRTC_SUCCESS && n > 1) {
    log.resize(n);
    get_log(program, log.data());
  }
  if (compiled == NVRTC_SUCCESS && cubin_size(program, &n) == NVRTC_SUCCESS) {
    cubin.resize(n);
    get_cubin(program, cubin.data());
  }
  destroy(&program);
  if (cubin.empty())
    return Error(Errc::device_unavailable,
                 "NVRTC could not compile " + source + " for " + arch + ": " + log);
  return cubin;
}

// The manifest of the carried fatbins (kernels/bin/manifest.json, embedded with the sources).
std::string carried_manifest() {
  for (const auto& t : embedded_kernel_sources())
    if (t.name == "manifest.json") return std::string(t.text);
  return {};
}

Result<Gpu*> open_once() {
  static std::unique_ptr<Gpu> gpu;
  static std::string failure;
  if (gpu) {
    gpu->api.set_current(gpu->context);
    return gpu.get();
  }
  if (!failure.empty()) return Error(Errc::device_unavailable, failure);
  auto opened = open_gpu(0);
  if (!opened) {
    failure = opened.error().message();
    return opened.error();
  }
  gpu = std::make_unique<Gpu>(std::move(opened).value());
  return gpu.get();
}

Result<LoadedModule> load(Gpu& gpu, const std::string& name) {
  // What NVRTC needs to rebuild a module: its main source, and whether its code is tied to one
  // architecture's feature set (sm_90a: wgmma) rather than any GPU of that generation and later.
  const EmulationModule* source = emulation_module_named(name);
  if (!source) return Error(Errc::internal, "no emulation kernel module is named " + name);
  // sm_90a code runs on sm_90 alone: neither the fatbin nor NVRTC can serve another GPU.
  if (source->wgmma && (gpu.compute_major != 9 || gpu.compute_minor != 0))
    return Error(Errc::unsupported, name + " needs an sm_90 GPU (wgmma), not sm_" +
                                        std::to_string(gpu.compute_major) +
                                        std::to_string(gpu.compute_minor));
  const auto& images = embedded_kernels();
  const auto image = std::find_if(images.begin(), images.end(),
                                  [&](const EmbeddedKernel& k) { return k.module == name; });
  const auto& d = gpu.api;
  const KernelSearch settings = kernel_search();
  const bool nvrtc_only = settings.force_nvrtc;
  LoadedModule m;
  std::string fatbin_failure = "this mmaemu carries no " + name + " fatbin";
  std::string passed_over;  // installed fatbins not taken, said in the origin
  if (!nvrtc_only) {
    // An installed fatbin built from the same sources (perhaps for more GPUs) comes first.
    const FatbinSearch search = find_installed_fatbin(name, settings.dirs, carried_manifest());
    for (const auto& line : search.passed_over)
      passed_over += (passed_over.empty() ? " (passed over " : "; ") + line;
    if (!passed_over.empty()) passed_over += ")";
    if (search.found) {
      const CUresult r = d.module_load(&m.module, search.found->image.data());
      if (r == CUDA_SUCCESS) {
        m.origin = "fatbin " + search.found->path.string();
        return m;
      }
      passed_over += " (" + search.found->path.string() + " does not load: " + d.describe(r) + ")";
    }
  }
  if (!nvrtc_only && image != images.end()) {
    const CUresult r = d.module_load(&m.module, image->image.data());
    if (r == CUDA_SUCCESS) {
      m.origin = "fatbin" + passed_over;
      return m;
    }
    fatbin_failure =
        "the " + name + " fatbin does not load on " + gpu.name + " (" + d.describe(r) + ")";
  }
  const std::string arch = "sm_" + std::to_string(gpu.compute_major) +
                           std::to_string(gpu.compute_minor) + (source->wgmma ? "a" : "");
  auto cubin = compile_with_nvrtc(std::string(source->source), arch);
  if (!cubin)
    return Error(Errc::device_unavailable,
                 (nvrtc_only ? "" : fatbin_failure + "; ") + cubin.error().message());
  if (CUresult r = d.module_load(&m.module, cubin->data()); r != CUDA_SUCCESS)
    return Error(Errc::device_unavailable, "the NVRTC-built " + name + " module does not load on " +
                                               gpu.name + ": " + d.describe(r));
  m.origin = "NVRTC " + arch + passed_over;
  return m;
}

}  // namespace

Result<Gpu*> emulation_gpu() {
  std::lock_guard<std::mutex> guard(loader_lock());
  return open_once();
}

Result<const LoadedModule*> emulation_module(const std::string& name) {
  std::lock_guard<std::mutex> guard(loader_lock());
  static std::map<std::string, Result<LoadedModule>> modules;
  auto gpu = open_once();
  if (!gpu) return gpu.error();
  auto it = modules.find(name);
  if (it == modules.end()) it = modules.emplace(name, load(**gpu, name)).first;
  if (!it->second) return it->second.error();
  return &*it->second;
}

}  // namespace mmaemu::device

namespace mmaemu {

Result<size_t> compile_module_with_nvrtc(std::string_view name, const std::string& arch) {
  const EmulationModule* module = emulation_module_named(name);
  if (!module)
    return Error(Errc::invalid_argument,
                 "no emulation kernel module is named " + std::string(name));
  auto cubin = device::compile_with_nvrtc(std::string(module->source), arch);
  if (!cubin) return cubin.error();
  return cubin->size();
}

}  // namespace mmaemu

#else

namespace mmaemu {

Result<size_t> compile_module_with_nvrtc(std::string_view, const std::string&) {
  return Error(Errc::unsupported, "this mmaemu was built without the CUDA headers: no NVRTC path");
}

}  // namespace mmaemu

#endif
