// Runs the probes module's kernels: the committed fatbin, loaded with the driver (cuModuleLoadData
// picks the SASS for the GPU, or JIT-compiles the module's PTX), one launch per instruction.
#include "mmaemu/tools/probe.hpp"

#ifdef MMAEMU_HAVE_CUDA_HEADERS

#include <algorithm>

#include "device/cuda_api.hpp"
#include "device/embedded_kernels.hpp"
#include "mmaemu/safetensors.hpp"

namespace mmaemu {
namespace {

using device::DeviceBuffer;

struct Module {
  const device::DriverApi* api = nullptr;
  CUmodule handle = nullptr;
  Module() = default;
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;
  ~Module() {
    if (handle) api->module_unload(handle);
  }
};

Result<std::vector<uint32_t>> launch(const device::Gpu& gpu, CUfunction f, const ProbeTiles& t,
                                     int lbo, int sbo) {
  const auto& d = gpu.api;
  const ProbeInstruction& in = *t.instruction;
  const size_t out_elements = static_cast<size_t>(t.tiles) * in.m * in.n;
  DeviceBuffer a(d, t.a), b(d, t.b), c(d, bytes_of(t.c)), out(d, out_elements * 4);
  if (!a.ok() || !b.ok() || !c.ok() || !out.ok())
    return Error(Errc::device_unavailable, "device memory could not be allocated for " + in.name);
  d.memset8(out.ptr(), 0xA5, out_elements * 4);  // poison: every element must be written
  CUdeviceptr pa = a.ptr(), pb = b.ptr(), pc = c.ptr(), pd = out.ptr();
  int tiles = t.tiles, scale_d = in.reads_c ? 1 : 0;
  void* params[] = {&pa, &pb, &pc, &pd, &tiles, &scale_d, &lbo, &sbo};
  const unsigned blocks =
      in.warpgroup ? static_cast<unsigned>(t.tiles) : static_cast<unsigned>((t.tiles + 3) / 4);
  if (CUresult r = d.launch(f, blocks, 1, 1, 128, 1, 1, 0, nullptr, params, nullptr);
      r != CUDA_SUCCESS)
    return Error(Errc::device_unavailable, in.name + ": launch failed: " + d.describe(r));
  if (CUresult r = d.synchronize(); r != CUDA_SUCCESS)
    return Error(Errc::device_unavailable, in.name + ": kernel failed: " + d.describe(r));
  std::vector<uint32_t> host(out_elements);
  d.to_host(host.data(), out.ptr(), out_elements * 4);
  return host;
}

}  // namespace

Result<ProbeSession> run_probes(
    const ProbeRunOptions& o,
    const std::function<const Preset*(const ProbeInstruction&, int)>& preset_for,
    const std::function<void(const std::string&)>& progress) {
  const auto& modules = embedded_kernels();
  const auto image = std::find_if(modules.begin(), modules.end(),
                                  [](const EmbeddedKernel& k) { return k.module == "probes"; });
  if (image == modules.end())
    return Error(Errc::unsupported,
                 "this mmaemu carries no probes module (kernels/bin/probes.fatbin was absent at "
                 "build time)");
  auto gpu = device::open_gpu(o.device);
  if (!gpu) return gpu.error();
  const auto& d = gpu->api;
  ProbeSession s;
  s.gpu = gpu->name;
  s.compute_major = gpu->compute_major;
  s.compute_minor = gpu->compute_minor;
  s.driver_version = gpu->driver_version;
  const int compute = gpu->compute_major * 10 + gpu->compute_minor;
  Module module;
  module.api = &d;
  if (CUresult r = d.module_load(&module.handle, image->image.data()); r != CUDA_SUCCESS) {
    module.handle = nullptr;
    return Error(Errc::device_unavailable, "the probes module does not load on " + s.gpu + " (sm_" +
                                               std::to_string(compute) + "): " + d.describe(r));
  }
  for (const ProbeInstruction& in : probe_instructions()) {
    ProbeRun run;
    run.instruction = in;
    if (compute < in.min_compute || (in.arch_specific && compute != in.min_compute)) {
      run.skipped = "needs sm_" + std::to_string(in.min_compute) +
                    (in.arch_specific ? "a exactly" : " or later");
      s.runs.push_back(std::move(run));
      continue;
    }
    const Preset* preset = preset_for(in, compute);
    if (!preset) {
      run.skipped = "no preset describes this instruction on sm_" + std::to_string(compute);
      s.runs.push_back(std::move(run));
      continue;
    }
    CUfunction f = nullptr;
    if (CUresult r = d.module_function(&f, module.handle, in.kernel.c_str()); r != CUDA_SUCCESS)
      return Error(Errc::internal, "the probes module lacks " + in.kernel + ": " + d.describe(r));
    run.tiles = make_probe_tiles(in, *preset, o.tiles_per_class, o.seed);
    run.tiles.instruction = &in;
    auto hw = launch(*gpu, f, run.tiles, 128, 256);
    if (!hw) return hw.error();
    run.hardware = std::move(hw).value();
    s.runs.push_back(std::move(run));
    if (progress) progress(in.name);
  }
  return s;
}

}  // namespace mmaemu

#else

namespace mmaemu {

Result<ProbeSession> run_probes(const ProbeRunOptions&,
                                const std::function<const Preset*(const ProbeInstruction&, int)>&,
                                const std::function<void(const std::string&)>&) {
  return Error(Errc::unsupported,
               "this mmaemu was built without the CUDA toolkit's headers: probe is unavailable");
}

}  // namespace mmaemu

#endif
