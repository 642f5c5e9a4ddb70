#include "device/torch_scaled_mm.hpp"

#include <chrono>

#ifdef MMAEMU_HAVE_CUDA_HEADERS

#include <tuple>

#include "mmaemu/safetensors.hpp"

namespace mmaemu::device {
namespace {

cudaDataType_t cuda_type(Format f) {
  switch (f) {
    case Format::f8_e4m3:
      return CUDA_R_8F_E4M3;
    case Format::f8_e5m2:
      return CUDA_R_8F_E5M2;
    case Format::f16:
      return CUDA_R_16F;
    case Format::bf16:
      return CUDA_R_16BF;
    default:
      return CUDA_R_32F;
  }
}

}  // namespace

TorchScaledMm::TorchScaledMm(const LtSession& session, const RecordCall& c, int64_t workspace_bytes,
                             Pointers p, cublasLtHandle_t handle)
    : s_(session),
      handle_(handle ? handle : session.handle),
      workspace_bytes_(workspace_bytes),
      c_format_(c.out_dtype) {
  const LtApi& lt = s_.lt;
  lt.desc_create(&desc_, CUBLAS_COMPUTE_32F, CUDA_R_32F);
  const cublasOperation_t transa = CUBLAS_OP_T, transb = CUBLAS_OP_N;
  lt.desc_set(desc_, CUBLASLT_MATMUL_DESC_TRANSA, &transa, sizeof transa);
  lt.desc_set(desc_, CUBLASLT_MATMUL_DESC_TRANSB, &transb, sizeof transb);
  // cuBLAS's A is mat2, its B is mat1: the scale pointers follow the operands.
  lt.desc_set(desc_, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &p.scale_b, sizeof p.scale_b);
  lt.desc_set(desc_, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &p.scale_a, sizeof p.scale_a);
  const int8_t fast = c.use_fast_accum ? 1 : 0;
  lt.desc_set(desc_, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast, sizeof fast);
  const cublasLtMatmulMatrixScale_t mode = c.rowwise ? CUBLASLT_MATMUL_MATRIX_SCALE_OUTER_VEC_32F
                                                     : CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F;
  lt.desc_set(desc_, CUBLASLT_MATMUL_DESC_A_SCALE_MODE, &mode, sizeof mode);
  lt.desc_set(desc_, CUBLASLT_MATMUL_DESC_B_SCALE_MODE, &mode, sizeof mode);
  if (c.sm_count_target > 0) {
    const int32_t target = c.sm_count_target;
    lt.desc_set(desc_, CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET, &target, sizeof target);
  }
  if (c.bias_dtype) {
    const cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_BIAS;
    const cudaDataType_t bias_type = cuda_type(*c.bias_dtype);
    lt.desc_set(desc_, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof epilogue);
    lt.desc_set(desc_, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &p.bias, sizeof p.bias);
    lt.desc_set(desc_, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &bias_type, sizeof bias_type);
    c_format_ = *c.bias_dtype;
  } else if (c.out_dtype == Format::f8_e4m3 || c.out_dtype == Format::f8_e5m2) {
    c_format_ = Format::f16;
  }
  lt.layout_create(&la_, cuda_type(c.b_dtype), c.k, c.n, c.k);
  lt.layout_create(&lb_, cuda_type(c.a_dtype), c.k, c.m, c.k);
  lt.layout_create(&lc_, cuda_type(c_format_), c.n, c.m, c.n);
  lt.layout_create(&ld_, cuda_type(c.out_dtype), c.n, c.m, c.n);
  lt.pref_create(&pref_);
  const uint64_t ws = static_cast<uint64_t>(workspace_bytes);
  lt.pref_set(pref_, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws);
}

TorchScaledMm::~TorchScaledMm() {
  const LtApi& lt = s_.lt;
  if (pref_) lt.pref_destroy(pref_);
  for (auto l : {la_, lb_, lc_, ld_})
    if (l) lt.layout_destroy(l);
  if (desc_) lt.desc_destroy(desc_);
}

Result<AlgorithmChoice> TorchScaledMm::choose() {
  const LtApi& lt = s_.lt;
  cublasLtMatmulHeuristicResult_t result{};
  int found = 0;
  const cublasStatus_t hs =
      lt.heuristic(handle_, desc_, la_, lb_, lc_, ld_, pref_, 1, &result, &found);
  if (hs != CUBLAS_STATUS_SUCCESS || found == 0)
    return Error(Errc::unsupported, "cublasLtMatmulAlgoGetHeuristic: status " + std::to_string(hs) +
                                        ", " + std::to_string(found) + " algorithms");
  chosen_ = result;
  AlgorithmChoice choice;
  // cuBLASLt wants each attribute's exact size: 4 bytes, 2 for the shape ids.
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
    if (lt.algo_get(&result.algo, attr, &value, size, &written) == CUBLAS_STATUS_SUCCESS)
      choice.attributes.emplace_back(name, value);
  }
  choice.workspace_size = result.workspaceSize;
  choice.waves_count = result.wavesCount;
  return choice;
}

Result<void> TorchScaledMm::run(const void* a, const void* b, void* c, void* out, void* workspace) {
  if (!chosen_) return Error(Errc::internal, "TorchScaledMm::run before choose");
  const float alpha = 1.0f, beta = 0.0f;
  // cuBLAS's A is mat2 (torch's b, N x K), its B is mat1 (torch's a, M x K).
  const cublasStatus_t s =
      s_.lt.matmul(handle_, desc_, &alpha, b, la_, a, lb_, &beta, c, lc_, out, ld_, &chosen_->algo,
                   workspace, static_cast<size_t>(workspace_bytes_), nullptr);
  if (s != CUBLAS_STATUS_SUCCESS)
    return Error(Errc::device_unavailable, "cublasLtMatmul: status " + std::to_string(s));
  if (CUresult r = s_.gpu.api.synchronize(); r != CUDA_SUCCESS)
    return Error(Errc::device_unavailable, "cublasLtMatmul: " + s_.gpu.api.describe(r));
  return {};
}

Result<NativeRun> run_native(const LtSession& s, const RecordCall& c, int64_t workspace_bytes,
                             int runs) {
  const auto& d = s.gpu.api;
  const size_t out_bytes = static_cast<size_t>(c.m * c.n) * describe(c.out_dtype).storage_bytes();
  DeviceBuffer a(d, c.a), b(d, c.b), sa(d, bytes_of(c.scale_a)), sb(d, bytes_of(c.scale_b)),
      bias(d, c.bias), out(d, out_bytes), workspace(d, static_cast<size_t>(workspace_bytes));
  if (!a.ok() || !b.ok() || !out.ok() || !workspace.ok())
    return Error(Errc::device_unavailable, "device memory could not be allocated");
  TorchScaledMm call(s, c, workspace_bytes, {sa.get(), sb.get(), bias.get()});
  // C may alias D only when they share a type (beta = 0: C is never read, but must be valid).
  const bool c_is_out = call.c_format() == c.out_dtype;
  DeviceBuffer c_buffer(
      d, c_is_out ? 0 : static_cast<size_t>(c.m * c.n) * describe(call.c_format()).storage_bytes());
  auto choice = call.choose();
  if (!choice) return choice.error();
  NativeRun run;
  run.choice = std::move(choice).value();
  std::vector<uint8_t> again(out_bytes);
  for (int r = 0; r < runs; ++r) {
    d.memset8(out.ptr(), 0xA5, out_bytes);  // poison: every element must be written
    d.synchronize();
    const auto started = std::chrono::steady_clock::now();
    if (auto ran = call.run(a.get(), b.get(), c_is_out ? out.get() : c_buffer.get(), out.get(),
                            workspace.get());
        !ran)
      return ran.error();
    run.seconds.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
    auto& host = r == 0 ? run.out : again;
    host.resize(out_bytes);
    d.to_host(host.data(), out.ptr(), out_bytes);
    if (r > 0) run.deterministic = run.deterministic && again == run.out;
  }
  return run;
}

}  // namespace mmaemu::device

#endif
