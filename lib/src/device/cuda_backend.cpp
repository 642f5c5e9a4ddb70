// The CUDA backend: the v1 kernel (kernels/v1) run through the driver on the carried fatbin. The
// kernel computes every element the fast CPU path computes with integers and FP32; the host then
// computes, with the oracle, the elements the kernel flags and those whose rows hold NaN or Inf,
// exactly as the fast CPU path does, so the bits equal the oracle's.
#include "mmaemu/emulate.hpp"

#ifdef MMAEMU_HAVE_CUDA_HEADERS

#include <dlfcn.h>
#include <nvrtc.h>

#include <algorithm>
#include <bit>
#include <climits>
#include <cstdlib>
#include <mutex>

#include "v1/v1_params.h"
#include "cpu/fp8_codes.hpp"
#include "device/cuda_api.hpp"
#include "device/embedded_kernels.hpp"
#include "mmaemu/exact.hpp"
#include "mmaemu/safetensors.hpp"
#include "oracle/output_rows.hpp"

namespace mmaemu {
namespace {

using device::DeviceBuffer;

// The GPU and the v1 module, opened once per process.
struct V1Module {
  device::Gpu gpu;
  CUmodule module = nullptr;
  CUfunction kernel = nullptr;
  std::string origin;  // "fatbin" or "NVRTC sm_XY"
};

// NVRTC, loaded at run time: compiles the carried v1 sources to a cubin for this GPU.
Result<std::vector<char>> compile_with_nvrtc(int major, int minor) {
  using Create = nvrtcResult (*)(nvrtcProgram*, const char*, const char*, int, const char* const*, const char* const*);
  using Compile = nvrtcResult (*)(nvrtcProgram, int, const char* const*);
  using Size = nvrtcResult (*)(nvrtcProgram, size_t*);
  using Get = nvrtcResult (*)(nvrtcProgram, char*);
  using Destroy = nvrtcResult (*)(nvrtcProgram*);
  void* so = nullptr;
  for (const char* name : {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"})
    if ((so = dlopen(name, RTLD_NOW | RTLD_LOCAL))) break;
  if (!so) return Error(Errc::device_unavailable, "the fatbin has no code for this GPU and NVRTC (libnvrtc.so.13) could not be loaded");
  auto create = reinterpret_cast<Create>(dlsym(so, "nvrtcCreateProgram"));
  auto compile = reinterpret_cast<Compile>(dlsym(so, "nvrtcCompileProgram"));
  auto log_size = reinterpret_cast<Size>(dlsym(so, "nvrtcGetProgramLogSize"));
  auto get_log = reinterpret_cast<Get>(dlsym(so, "nvrtcGetProgramLog"));
  auto cubin_size = reinterpret_cast<Size>(dlsym(so, "nvrtcGetCUBINSize"));
  auto get_cubin = reinterpret_cast<Get>(dlsym(so, "nvrtcGetCUBIN"));
  auto destroy = reinterpret_cast<Destroy>(dlsym(so, "nvrtcDestroyProgram"));
  if (!create || !compile || !log_size || !get_log || !cubin_size || !get_cubin || !destroy)
    return Error(Errc::device_unavailable, "libnvrtc lacks an entry point this build needs");
  std::string main_source;
  std::vector<std::string> header_names, header_texts;
  for (const auto& t : embedded_kernel_sources()) {
    if (t.name == "v1_scaled_mm.cu") main_source = t.text;
    else {
      header_names.emplace_back(t.name);
      header_texts.emplace_back(t.text);
    }
  }
  std::vector<const char*> names, texts;
  for (size_t i = 0; i < header_names.size(); ++i) {
    names.push_back(header_names[i].c_str());
    texts.push_back(header_texts[i].c_str());
  }
  nvrtcProgram program = nullptr;
  if (create(&program, main_source.c_str(), "v1_scaled_mm.cu", static_cast<int>(names.size()), texts.data(),
             names.data()) != NVRTC_SUCCESS)
    return Error(Errc::device_unavailable, "nvrtcCreateProgram failed");
  const std::string arch = "--gpu-architecture=sm_" + std::to_string(major) + std::to_string(minor);
  const char* options[] = {arch.c_str(), "-fmad=false", "--std=c++17"};
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
  if (cubin.empty()) return Error(Errc::device_unavailable, "NVRTC could not compile the v1 kernel for " + arch + ": " + log);
  return cubin;
}

Result<V1Module*> v1_module() {
  static std::mutex lock;
  static std::unique_ptr<V1Module> loaded;
  static std::string failure;
  std::lock_guard<std::mutex> guard(lock);
  if (loaded) {
    loaded->gpu.api.set_current(loaded->gpu.context);
    return loaded.get();
  }
  if (!failure.empty()) return Error(Errc::device_unavailable, failure);
  const auto& modules = embedded_kernels();
  const auto image = std::find_if(modules.begin(), modules.end(), [](const EmbeddedKernel& k) { return k.module == "v1"; });
  if (image == modules.end()) return Error(Errc::unsupported, "this mmaemu carries no v1 kernel module");
  auto gpu = device::open_gpu(0);
  if (!gpu) {
    failure = gpu.error().message();
    return gpu.error();
  }
  auto m = std::make_unique<V1Module>();
  m->gpu = std::move(gpu).value();
  const auto& d = m->gpu.api;
  // The carried fatbin first (SASS for sm_75..sm_90, PTX for newer GPUs); NVRTC when it has no
  // code the driver can load, or when MMAEMU_FORCE_NVRTC=1 asks for the NVRTC path.
  const char* force = std::getenv("MMAEMU_FORCE_NVRTC");
  const bool nvrtc_only = force && std::string(force) == "1";
  CUresult loaded_fatbin = CUDA_ERROR_NO_BINARY_FOR_GPU;
  if (!nvrtc_only) loaded_fatbin = d.module_load(&m->module, image->image.data());
  if (loaded_fatbin == CUDA_SUCCESS) {
    m->origin = "fatbin";
  } else {
    auto cubin = compile_with_nvrtc(m->gpu.compute_major, m->gpu.compute_minor);
    if (!cubin) {
      failure = (nvrtc_only ? "" : "the v1 fatbin does not load on " + m->gpu.name + " (" + d.describe(loaded_fatbin) + "); ") +
                cubin.error().message();
      return Error(Errc::device_unavailable, failure);
    }
    if (CUresult r = d.module_load(&m->module, cubin->data()); r != CUDA_SUCCESS) {
      failure = "the NVRTC-built v1 module does not load on " + m->gpu.name + ": " + d.describe(r);
      return Error(Errc::device_unavailable, failure);
    }
    m->origin = "NVRTC sm_" + std::to_string(m->gpu.compute_major) + std::to_string(m->gpu.compute_minor);
  }
  if (CUresult r = d.module_function(&m->kernel, m->module, "v1_scaled_mm"); r != CUDA_SUCCESS)
    return Error(Errc::internal, "the v1 module lacks v1_scaled_mm: " + d.describe(r));
  loaded = std::move(m);
  return loaded.get();
}

std::vector<V1Operand> operand_table(Format format, std::vector<uint8_t>& special) {
  std::vector<V1Operand> table(256);
  special.assign(256, 0);
  const auto codes = decode_fp8_codes(format);
  for (size_t code = 0; code < 256; ++code) {
    table[code] = {codes[code].significand, codes[code].exponent};
    special[code] = codes[code].special;
  }
  return table;
}

std::span<const uint8_t> bytes_of(const std::vector<V1Operand>& t) {
  return {reinterpret_cast<const uint8_t*>(t.data()), t.size() * sizeof(V1Operand)};
}

int format_index(Format f) {
  switch (f) {
    case Format::f32: return 0;
    case Format::bf16: return 1;
    case Format::f16: return 2;
    case Format::f8_e4m3: return 3;
    default: return 4;
  }
}

}  // namespace

Result<std::string> cuda_backend_device() {
  auto module = v1_module();
  if (!module) return module.error();
  return (*module)->gpu.name + " (v1 from " + (*module)->origin + ")";
}

bool cuda_backend_supports(const Plan& plan, std::string* why) {
  std::string reason;
  if (!fast_path_supports(plan, &reason)) {
  } else if (plan.algorithm.fused_bias || !plan.algorithm.fold_tensorwise_scales) {
    reason = "an epilogue other than scale-then-bias with folded tensorwise scales";
  } else if (plan.algorithm.accumulation == Accumulation::promoted && plan.algorithm.promotion_interval <= 0) {
    reason = "no promotion interval";
  }
  if (why) *why = reason;
  return reason.empty();
}

Result<std::vector<uint8_t>> emulate_cuda(const Plan& plan, const ScaledMmCall& call, int threads) {
  std::string why;
  if (!cuda_backend_supports(plan, &why))
    return Error(Errc::unsupported, "the CUDA backend (v1) does not cover " + plan.preset->name + ": " + why);
  if (auto ok = validate_planned_call(plan, call); !ok) return ok.error();
  auto module = v1_module();
  if (!module) return module.error();
  const auto& d = (*module)->gpu.api;
  std::vector<uint8_t> special_a, special_b;
  const auto table_a = operand_table(call.a_dtype, special_a);
  const auto table_b = operand_table(call.b_dtype, special_b);
  const bool rowwise = call.scale_a.rowwise();
  std::vector<uint32_t> bias(call.bias ? static_cast<size_t>(call.n) : 0);
  for (size_t j = 0; j < bias.size(); ++j)
    bias[j] = convert(call.bias->format, load_bits(call.bias->format, call.bias->values, j), Format::f32);
  const size_t elements = static_cast<size_t>(call.m * call.n);
  const size_t out_bytes = elements * describe(call.out_dtype).storage_bytes();
  DeviceBuffer a(d, call.a), b(d, call.b), ta(d, bytes_of(table_a)), tb(d, bytes_of(table_b)),
      sa(d, rowwise ? bytes_of(call.scale_a.f32_bits) : std::span<const uint8_t>()),
      sb(d, rowwise ? bytes_of(call.scale_b.f32_bits) : std::span<const uint8_t>()), bias_buffer(d, bytes_of(bias)),
      out(d, out_bytes), fallback(d, elements);
  if (!a.ok() || !b.ok() || !out.ok() || !fallback.ok())
    return Error(Errc::device_unavailable, "device memory could not be allocated for a " + std::to_string(call.m) + "x" +
                                               std::to_string(call.n) + "x" + std::to_string(call.k) + " call");
  const Preset& p = *plan.preset;
  const Algorithm& alg = plan.algorithm;
  V1Params params{};
  params.a = reinterpret_cast<const uint8_t*>(a.ptr());
  params.b = reinterpret_cast<const uint8_t*>(b.ptr());
  params.table_a = reinterpret_cast<const V1Operand*>(ta.ptr());
  params.table_b = reinterpret_cast<const V1Operand*>(tb.ptr());
  params.scale_a = reinterpret_cast<const uint32_t*>(sa.ptr());
  params.scale_b = reinterpret_cast<const uint32_t*>(sb.ptr());
  params.bias = call.bias ? reinterpret_cast<const float*>(bias_buffer.ptr()) : nullptr;
  params.out = reinterpret_cast<uint8_t*>(out.ptr());
  params.fallback = reinterpret_cast<uint8_t*>(fallback.ptr());
  params.m = call.m;
  params.n = call.n;
  params.k = call.k;
  params.alpha = rowwise ? 0.0f
                         : std::bit_cast<float>(call.scale_a.f32_bits[0]) * std::bit_cast<float>(call.scale_b.f32_bits[0]);
  params.rowwise = rowwise;
  params.column_first = alg.rowwise_order == RowwiseScaleOrder::column_first;
  params.out_format = format_index(call.out_dtype);
  params.terms = p.terms_per_step;
  params.alignment_bits = p.alignment_fraction_bits;
  params.product_fraction_bits = describe(call.a_dtype).fraction_bits + describe(call.b_dtype).fraction_bits;
  params.result_bits = p.f32_result.fraction_bits;
  params.exponent_floor = p.f32_result.exponent_floor.value_or(INT_MIN / 4);
  params.single_chain = alg.accumulation == Accumulation::single_chain;
  params.promotion_interval = alg.promotion_interval;
  params.split_k = plan.split_k;
  params.split_grain = alg.split_k_grain;
  void* args[] = {&params};
  const unsigned threads_per_block = 128;
  const unsigned blocks = static_cast<unsigned>((elements + threads_per_block - 1) / threads_per_block);
  if (elements > 0) {
    if (CUresult r = d.launch((*module)->kernel, blocks, 1, 1, threads_per_block, 1, 1, 0, nullptr, args, nullptr);
        r != CUDA_SUCCESS)
      return Error(Errc::device_unavailable, "v1_scaled_mm launch failed: " + d.describe(r));
    if (CUresult r = d.synchronize(); r != CUDA_SUCCESS)
      return Error(Errc::device_unavailable, "v1_scaled_mm failed: " + d.describe(r));
  }
  std::vector<uint8_t> result(out_bytes), flags(elements);
  d.to_host(result.data(), out.ptr(), out_bytes);
  d.to_host(flags.data(), fallback.ptr(), elements);
  // Rows with NaN or Inf, and flagged elements: the oracle, as on the fast CPU path.
  std::vector<uint8_t> row_a(static_cast<size_t>(call.m)), row_b(static_cast<size_t>(call.n));
  for (int64_t i = 0; i < call.m; ++i)
    for (int64_t x = 0; x < call.k; ++x) row_a[i] |= special_a[call.a[i * call.k + x]];
  for (int64_t j = 0; j < call.n; ++j)
    for (int64_t x = 0; x < call.k; ++x) row_b[j] |= special_b[call.b[j * call.k + x]];
  for (int64_t i = 0; i < call.m; ++i)
    for (int64_t j = 0; j < call.n; ++j)
      if (row_a[i] || row_b[j] || flags[i * call.n + j])
        store_bits(call.out_dtype, result, i * call.n + j,
                   oracle_epilogue(plan, call, i, j, oracle_dot_f32(plan, call, i, j)));
  (void)threads;
  return result;
}

}  // namespace mmaemu

#else

namespace mmaemu {

Result<std::string> cuda_backend_device() {
  return Error(Errc::unsupported, "this mmaemu was built without the CUDA toolkit's headers: --backend cuda is unavailable");
}

bool cuda_backend_supports(const Plan&, std::string* why) {
  if (why) *why = "built without the CUDA toolkit's headers";
  return false;
}

Result<std::vector<uint8_t>> emulate_cuda(const Plan&, const ScaledMmCall&, int) {
  return Error(Errc::unsupported, "this mmaemu was built without the CUDA toolkit's headers: --backend cuda is unavailable");
}

}  // namespace mmaemu

#endif
