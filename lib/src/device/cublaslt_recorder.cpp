// Records torch._scaled_mm calls through cuBLASLt on a live GPU. The CUDA and cuBLASLt headers
// give the types and enum values; every function comes from dlopen/dlsym, so nothing links the
// driver, the runtime or cuBLASLt. The call is set up as torch 2.11 sets it up (CUDABlas.cpp
// scaled_gemm): operands swapped (cuBLAS computes out^T = mat2^T-op x mat1), TRANSA = T,
// TRANSB = N, 32F compute and scale type, A/B scale pointers (swapped with the operands), the
// fast-accumulation attribute, the bias epilogue, only MAX_WORKSPACE_BYTES as a preference, and
// the first heuristic result.
#include "mmaemu/record.hpp"

#ifdef MMAEMU_HAVE_CUDA_HEADERS

#include <cublasLt.h>
#include <cuda.h>
#include <dlfcn.h>

#include <nlohmann/json.hpp>
#include <tuple>

#include "mmaemu/exact.hpp"
#include "mmaemu/safetensors.hpp"
#include "mmaemu/truth.hpp"

namespace mmaemu {
namespace {

template <class F>
bool bind(void* library, const char* name, F& f) {
  f = reinterpret_cast<F>(dlsym(library, name));
  return f != nullptr;
}

struct Driver {
  decltype(&cuInit) init;
  decltype(&cuDeviceGet) device_get;
  decltype(&cuDeviceGetName) device_name;
  decltype(&cuDeviceGetAttribute) attribute;
  decltype(&cuDriverGetVersion) version;
  decltype(&cuDevicePrimaryCtxRetain) retain;
  decltype(&cuCtxSetCurrent) set_current;
  decltype(&cuMemAlloc_v2) alloc;
  decltype(&cuMemFree_v2) free;
  decltype(&cuMemcpyHtoD_v2) to_device;
  decltype(&cuMemcpyDtoH_v2) to_host;
  decltype(&cuMemsetD8_v2) memset8;
  decltype(&cuCtxSynchronize) synchronize;
};

struct Lt {
  decltype(&cublasLtCreate) create;
  decltype(&cublasLtGetVersion) version;
  decltype(&cublasLtMatmulDescCreate) desc_create;
  decltype(&cublasLtMatmulDescDestroy) desc_destroy;
  decltype(&cublasLtMatmulDescSetAttribute) desc_set;
  decltype(&cublasLtMatrixLayoutCreate) layout_create;
  decltype(&cublasLtMatrixLayoutDestroy) layout_destroy;
  decltype(&cublasLtMatmulPreferenceCreate) pref_create;
  decltype(&cublasLtMatmulPreferenceSetAttribute) pref_set;
  decltype(&cublasLtMatmulPreferenceDestroy) pref_destroy;
  decltype(&cublasLtMatmulAlgoGetHeuristic) heuristic;
  decltype(&cublasLtMatmul) matmul;
  decltype(&cublasLtMatmulAlgoConfigGetAttribute) algo_get;
};

cudaDataType_t cuda_type(Format f) {
  switch (f) {
    case Format::f8_e4m3: return CUDA_R_8F_E4M3;
    case Format::f8_e5m2: return CUDA_R_8F_E5M2;
    case Format::f16: return CUDA_R_16F;
    case Format::bf16: return CUDA_R_16BF;
    default: return CUDA_R_32F;
  }
}

// A device buffer freed on scope exit.
struct DeviceBuffer {
  const Driver* driver = nullptr;
  CUdeviceptr ptr = 0;
  DeviceBuffer(const Driver& d, size_t bytes) : driver(&d) { d.alloc(&ptr, bytes ? bytes : 1); }
  DeviceBuffer(const Driver& d, std::span<const uint8_t> host) : DeviceBuffer(d, host.size()) {
    if (!host.empty()) d.to_device(ptr, host.data(), host.size());
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() {
    if (ptr) driver->free(ptr);
  }
  void* get() const { return reinterpret_cast<void*>(ptr); }
};

std::span<const uint8_t> bytes_of(const std::vector<uint32_t>& v) {
  return {reinterpret_cast<const uint8_t*>(v.data()), v.size() * 4};
}

struct Outcome {
  bool ok = false;
  std::string skip_reason;
  std::vector<uint8_t> out;
  bool deterministic = false;
  nlohmann::json algorithm;
};

Outcome run_call(const Driver& d, const Lt& lt, cublasLtHandle_t handle, const RecordCall& c,
                 int64_t workspace_bytes) {
  Outcome o;
  const size_t out_bytes = static_cast<size_t>(c.m * c.n) * describe(c.out_dtype).storage_bytes();
  DeviceBuffer a(d, c.a), b(d, c.b), sa(d, bytes_of(c.scale_a)), sb(d, bytes_of(c.scale_b)), bias(d, c.bias),
      out(d, out_bytes), workspace(d, static_cast<size_t>(workspace_bytes));
  cublasLtMatmulDesc_t desc = nullptr;
  lt.desc_create(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F);
  const cublasOperation_t transa = CUBLAS_OP_T, transb = CUBLAS_OP_N;
  lt.desc_set(desc, CUBLASLT_MATMUL_DESC_TRANSA, &transa, sizeof transa);
  lt.desc_set(desc, CUBLASLT_MATMUL_DESC_TRANSB, &transb, sizeof transb);
  // cuBLAS's A is mat2, its B is mat1: the scale pointers follow the operands.
  void* a_scale = sb.get();
  void* b_scale = sa.get();
  lt.desc_set(desc, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &a_scale, sizeof a_scale);
  lt.desc_set(desc, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &b_scale, sizeof b_scale);
  const int8_t fast = c.use_fast_accum ? 1 : 0;
  lt.desc_set(desc, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast, sizeof fast);
  const cublasLtMatmulMatrixScale_t mode =
      c.rowwise ? CUBLASLT_MATMUL_MATRIX_SCALE_OUTER_VEC_32F : CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F;
  lt.desc_set(desc, CUBLASLT_MATMUL_DESC_A_SCALE_MODE, &mode, sizeof mode);
  lt.desc_set(desc, CUBLASLT_MATMUL_DESC_B_SCALE_MODE, &mode, sizeof mode);
  Format c_format = c.out_dtype;
  if (c.bias_dtype) {
    const cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_BIAS;
    void* bias_ptr = bias.get();
    const cudaDataType_t bias_type = cuda_type(*c.bias_dtype);
    lt.desc_set(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof epilogue);
    lt.desc_set(desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias_ptr, sizeof bias_ptr);
    lt.desc_set(desc, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &bias_type, sizeof bias_type);
    c_format = *c.bias_dtype;
  } else if (c.out_dtype == Format::f8_e4m3 || c.out_dtype == Format::f8_e5m2) {
    c_format = Format::f16;  // torch's C type for FP8 outputs without a bias
  }
  // C may alias D only when they share a type (beta = 0: C is never read, but must be valid).
  DeviceBuffer c_buffer(d, c_format == c.out_dtype ? 0
                                                    : static_cast<size_t>(c.m * c.n) * describe(c_format).storage_bytes());
  void* c_pointer = c_format == c.out_dtype ? out.get() : c_buffer.get();
  cublasLtMatrixLayout_t la, lb, lc, ld;
  lt.layout_create(&la, cuda_type(c.b_dtype), c.k, c.n, c.k);
  lt.layout_create(&lb, cuda_type(c.a_dtype), c.k, c.m, c.k);
  lt.layout_create(&lc, cuda_type(c_format), c.n, c.m, c.n);
  lt.layout_create(&ld, cuda_type(c.out_dtype), c.n, c.m, c.n);
  cublasLtMatmulPreference_t pref;
  lt.pref_create(&pref);
  const uint64_t ws = static_cast<uint64_t>(workspace_bytes);
  lt.pref_set(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws);
  cublasLtMatmulHeuristicResult_t result{};
  int found = 0;
  const cublasStatus_t hs = lt.heuristic(handle, desc, la, lb, lc, ld, pref, 1, &result, &found);
  if (hs != CUBLAS_STATUS_SUCCESS || found == 0) {
    o.skip_reason = "cublasLtMatmulAlgoGetHeuristic: status " + std::to_string(hs) + ", " +
                    std::to_string(found) + " algorithms";
  } else {
    const float alpha = 1.0f, beta = 0.0f;
    std::vector<uint8_t> first(out_bytes), second(out_bytes);
    bool ran = true;
    for (auto* host : {&first, &second}) {
      d.memset8(out.ptr, 0xA5, out_bytes);  // poison: every element must be written
      // cuBLAS's A is mat2 (our b, N x K), its B is mat1 (our a, M x K).
      const cublasStatus_t s = lt.matmul(handle, desc, &alpha, b.get(), la, a.get(), lb, &beta, c_pointer, lc,
                                         out.get(), ld, &result.algo, workspace.get(), ws, nullptr);
      if (s != CUBLAS_STATUS_SUCCESS || d.synchronize() != CUDA_SUCCESS) {
        o.skip_reason = "cublasLtMatmul: status " + std::to_string(s);
        ran = false;
        break;
      }
      d.to_host(host->data(), out.ptr, out_bytes);
    }
    if (ran) {
      o.ok = true;
      o.deterministic = first == second;
      o.out = std::move(first);
      // cuBLASLt wants the attribute's exact size: 4 bytes, 2 for the shape ids.
      const std::tuple<const char*, cublasLtMatmulAlgoConfigAttributes_t, size_t> attributes[] = {
          {"id", CUBLASLT_ALGO_CONFIG_ID, 4},
          {"tile_id", CUBLASLT_ALGO_CONFIG_TILE_ID, 4},
          {"splitk_num", CUBLASLT_ALGO_CONFIG_SPLITK_NUM, 4},
          {"reduction_scheme", CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, 4},
          {"cta_swizzling", CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING, 4},
          {"custom_option", CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION, 4},
          {"stages_id", CUBLASLT_ALGO_CONFIG_STAGES_ID, 4},
          {"inner_shape_id", CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID, 2},
          {"cluster_shape_id", CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID, 2}};
      for (auto [name, attr, size] : attributes) {
        uint32_t value = 0;  // little-endian: a 2-byte attribute lands in the low half
        size_t written = 0;
        const cublasStatus_t status = lt.algo_get(&result.algo, attr, &value, size, &written);
        if (status == CUBLAS_STATUS_SUCCESS) o.algorithm[name] = value;
        else o.algorithm[std::string(name) + "_status"] = status;
      }
      o.algorithm["workspace_size"] = result.workspaceSize;
      o.algorithm["waves_count"] = result.wavesCount;
    }
  }
  lt.pref_destroy(pref);
  for (auto l : {la, lb, lc, ld}) lt.layout_destroy(l);
  lt.desc_destroy(desc);
  return o;
}

}  // namespace

Result<RecordSummary> record_truth_set(const RecordOptions& options, std::vector<RecordCall> calls,
                                       const std::function<void(const std::string&)>& progress) {
  void* cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!cuda) return Error(Errc::device_unavailable, std::string("no CUDA driver: ") + dlerror());
  void* cublaslt = dlopen(options.cublaslt_library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!cublaslt)
    return Error(Errc::device_unavailable, "cannot load " + options.cublaslt_library + ": " + dlerror());
  Driver d{};
  Lt lt{};
  const bool bound =
      bind(cuda, "cuInit", d.init) && bind(cuda, "cuDeviceGet", d.device_get) &&
      bind(cuda, "cuDeviceGetName", d.device_name) && bind(cuda, "cuDeviceGetAttribute", d.attribute) &&
      bind(cuda, "cuDriverGetVersion", d.version) && bind(cuda, "cuDevicePrimaryCtxRetain", d.retain) &&
      bind(cuda, "cuCtxSetCurrent", d.set_current) && bind(cuda, "cuMemAlloc_v2", d.alloc) &&
      bind(cuda, "cuMemFree_v2", d.free) && bind(cuda, "cuMemcpyHtoD_v2", d.to_device) &&
      bind(cuda, "cuMemcpyDtoH_v2", d.to_host) && bind(cuda, "cuMemsetD8_v2", d.memset8) &&
      bind(cuda, "cuCtxSynchronize", d.synchronize) && bind(cublaslt, "cublasLtCreate", lt.create) &&
      bind(cublaslt, "cublasLtGetVersion", lt.version) &&
      bind(cublaslt, "cublasLtMatmulDescCreate", lt.desc_create) &&
      bind(cublaslt, "cublasLtMatmulDescDestroy", lt.desc_destroy) &&
      bind(cublaslt, "cublasLtMatmulDescSetAttribute", lt.desc_set) &&
      bind(cublaslt, "cublasLtMatrixLayoutCreate", lt.layout_create) &&
      bind(cublaslt, "cublasLtMatrixLayoutDestroy", lt.layout_destroy) &&
      bind(cublaslt, "cublasLtMatmulPreferenceCreate", lt.pref_create) &&
      bind(cublaslt, "cublasLtMatmulPreferenceSetAttribute", lt.pref_set) &&
      bind(cublaslt, "cublasLtMatmulPreferenceDestroy", lt.pref_destroy) &&
      bind(cublaslt, "cublasLtMatmulAlgoGetHeuristic", lt.heuristic) &&
      bind(cublaslt, "cublasLtMatmul", lt.matmul) &&
      bind(cublaslt, "cublasLtMatmulAlgoConfigGetAttribute", lt.algo_get);
  if (!bound) return Error(Errc::device_unavailable, "the CUDA driver or cuBLASLt lacks an entry point this build needs");
  if (CUresult r = d.init(0); r != CUDA_SUCCESS)
    return Error(Errc::device_unavailable, "cuInit failed: " + std::to_string(r));
  CUdevice device;
  if (d.device_get(&device, options.device) != CUDA_SUCCESS)
    return Error(Errc::device_unavailable, "no GPU " + std::to_string(options.device));
  CUcontext context;
  d.retain(&context, device);
  d.set_current(context);
  cublasLtHandle_t handle;
  if (lt.create(&handle) != CUBLAS_STATUS_SUCCESS) return Error(Errc::device_unavailable, "cublasLtCreate failed");

  char name[256] = {};
  d.device_name(name, sizeof name, device);
  int major = 0, minor = 0, sms = 0, driver_version = 0;
  d.attribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device);
  d.attribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device);
  d.attribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device);
  d.version(&driver_version);

  std::error_code ec;
  std::filesystem::create_directories(options.out_dir, ec);
  nlohmann::json manifest = {{"format", "mmaemu-truth/1"},
                             {"source", "mmaemu record: cuBLASLt FP8 matmul set up as torch._scaled_mm"},
                             {"environment",
                              {{"gpu", name}, {"sm", std::to_string(major) + "." + std::to_string(minor)},
                               {"multiprocessors", sms}, {"driver_api_version", driver_version},
                               {"cublaslt", {{"path", options.cublaslt_library}, {"version", lt.version()}}},
                               {"workspace_bytes", options.workspace_bytes}}},
                             {"files", nlohmann::json::object()},
                             {"recordings", nlohmann::json::array()},
                             {"skipped", nlohmann::json::array()}};
  RecordSummary summary;
  for (const RecordCall& c : calls) {
    Outcome o = run_call(d, lt, handle, c, options.workspace_bytes);
    if (progress) progress(c.id);
    if (!o.ok) {
      manifest["skipped"].push_back(c.id + " skipped: " + o.skip_reason);
      ++summary.skipped;
      continue;
    }
    summary.recorded += 1;
    summary.nondeterministic += !o.deterministic;
    const std::string file = c.id + ".safetensors";
    auto dtype = [](Format f) { return std::string(describe(f).safetensors_dtype); };
    std::vector<TensorToWrite> tensors = {{"a", dtype(c.a_dtype), {c.m, c.k}, c.a},
                                          {"b", dtype(c.b_dtype), {c.n, c.k}, c.b},
                                          {"out", dtype(c.out_dtype), {c.m, c.n}, o.out}};
    nlohmann::json r = {{"id", c.id}, {"op", "scaled_mm"}, {"file", file}, {"m", c.m}, {"n", c.n}, {"k", c.k},
                        {"a", "a"}, {"a_dtype", describe(c.a_dtype).name}, {"b", "b"},
                        {"b_dtype", describe(c.b_dtype).name}, {"b_layout", "n_by_k_rowmajor"},
                        {"out", "out"}, {"out_dtype", describe(c.out_dtype).name},
                        {"use_fast_accum", c.use_fast_accum}, {"deterministic", o.deterministic},
                        {"algorithm", o.algorithm}, {"dist", c.dist}, {"seed", c.seed}, {"bias", nullptr}};
    if (c.rowwise) {
      tensors.push_back({"scale_rows", "F32", {c.m, 1}, bytes_of(c.scale_a)});
      tensors.push_back({"scale_cols", "F32", {1, c.n}, bytes_of(c.scale_b)});
      r["scale_a"] = "scale_rows";
      r["scale_b"] = "scale_cols";
    } else {
      r["scale_a"] = c.scale_a_value.value_or(decode(Format::f32, c.scale_a[0]).to_double());
      r["scale_b"] = c.scale_b_value.value_or(decode(Format::f32, c.scale_b[0]).to_double());
    }
    if (c.bias_dtype) {
      tensors.push_back({"bias", dtype(*c.bias_dtype), {c.n}, c.bias});
      r["bias"] = "bias";
    }
    if (auto ok = write_safetensors(options.out_dir / file, tensors); !ok) return ok.error();
    auto hash = sha256_file(options.out_dir / file);
    if (!hash) return hash.error();
    manifest["files"][file] = *hash;
    manifest["recordings"].push_back(r);
  }
  const std::string text = manifest.dump(1) + "\n";
  if (auto ok = write_file_atomically(options.out_dir / "manifest.json", text);
      !ok)
    return ok.error();
  return summary;
}

}  // namespace mmaemu

#else  // built without the CUDA toolkit's headers

namespace mmaemu {

Result<RecordSummary> record_truth_set(const RecordOptions&, std::vector<RecordCall>,
                                       const std::function<void(const std::string&)>&) {
  return Error(Errc::unsupported, "this mmaemu was built without the CUDA toolkit's headers: record is unavailable");
}

}  // namespace mmaemu

#endif
