// The CUDA backend: kernel module v1 (the fast CPU path's arithmetic, one thread per element, any
// GPU from sm_75), v4 (the same arithmetic tiled), h1 (the real wgmma step, sm_90) or h4 (h1
// pipelined at a larger tile) run through the driver (device/kernel_loader). The kernels compute
// every element they can; the host then computes, with the oracle, the elements a kernel flags and
// those whose rows hold NaN or Inf, exactly as the fast CPU path does, so the bits equal the
// oracle's.
#include "mmaemu/tools/cuda_backend.hpp"
#include "mmaemu/emulate.hpp"
#include "mmaemu/tools/emulation_modules.hpp"

#ifdef MMAEMU_HAVE_CUDA_HEADERS

#include <algorithm>
#include <bit>
#include <chrono>
#include <climits>
#include <tuple>

#include "common/h4_tiling.h"
#include "common/scaled_mm_params.h"
#include "cpu/flagged_elements.hpp"
#include "cpu/fp8_codes.hpp"
#include "device/cuda_api.hpp"
#include "device/kernel_loader.hpp"
#include "mmaemu/exact.hpp"
#include "mmaemu/safetensors.hpp"
#include "oracle/output_rows.hpp"

namespace mmaemu {
namespace {

using device::DeviceBuffer;

std::vector<DecodedOperand> operand_table(Format format) {
  std::vector<DecodedOperand> table(256);
  const auto codes = decode_fp8_codes(format);
  for (size_t code = 0; code < 256; ++code)
    table[code] = {codes[code].significand, codes[code].exponent};
  return table;
}

std::span<const uint8_t> bytes_of(const std::vector<DecodedOperand>& t) {
  return {reinterpret_cast<const uint8_t*>(t.data()), t.size() * sizeof(DecodedOperand)};
}

int format_index(Format f) {
  switch (f) {
    case Format::f32:
      return 0;
    case Format::bf16:
      return 1;
    case Format::f16:
      return 2;
    case Format::f8_e4m3:
      return 3;
    default:
      return 4;
  }
}

}  // namespace

Result<std::string> cuda_backend_device() {
  auto gpu = device::emulation_gpu();
  if (!gpu) return gpu.error();
  // The first module (v1, the plainest) must load; the others are reported as they stand.
  std::string origins;
  for (const EmulationModule& desc : emulation_modules()) {
    const std::string name(desc.name);
    auto m = device::emulation_module(name);
    if (!m && origins.empty()) return m.error();
    origins += (origins.empty() ? "" : ", ") + name +
               (m ? " from " + (*m)->origin : std::string(": unavailable"));
  }
  return (*gpu)->name + " (" + origins + ")";
}

Result<std::string> cuda_module_origin(const std::string& module) {
  auto m = device::emulation_module(module);
  if (!m) return m.error();
  return (*m)->origin;
}

Result<std::string> cuda_kernel_for(const Plan& plan, const ScaledMmCall& call, Backend backend) {
  auto gpu = device::emulation_gpu();
  if (!gpu) return gpu.error();
  auto module =
      choose_emulation_module(plan, call, backend, (*gpu)->compute_major, (*gpu)->compute_minor);
  if (!module) return module.error();
  return std::string((*module)->name);
}

Result<std::vector<uint8_t>> emulate_cuda(const Plan& plan, const ScaledMmCall& call,
                                          Backend backend, CudaRunStats* stats) {
  auto gpu = device::emulation_gpu();
  if (!gpu) return gpu.error();
  auto chosen =
      choose_emulation_module(plan, call, backend, (*gpu)->compute_major, (*gpu)->compute_minor);
  if (!chosen) return chosen.error();
  const EmulationModule& desc = **chosen;
  const std::string kernel_name(desc.name);
  if (auto ok = validate_planned_call(plan, call); !ok) return ok.error();
  auto module = device::emulation_module(kernel_name);
  if (!module) return module.error();
  const auto& d = (*gpu)->api;
  std::string function = kernel_name + "_scaled_mm";
  if (desc.wgmma) {
    auto pair_name = [](Format f) { return f == Format::f8_e4m3 ? "e4m3" : "e5m2"; };
    function =
        kernel_name + "_scaled_mm_" + pair_name(call.a_dtype) + "_" + pair_name(call.b_dtype);
  }
  CUfunction kernel = nullptr;
  if (CUresult r = d.module_function(&kernel, (*module)->module, function.c_str());
      r != CUDA_SUCCESS)
    return Error(Errc::internal,
                 "the " + kernel_name + " module lacks " + function + ": " + d.describe(r));
  const auto table_a = operand_table(call.a_dtype);
  const auto table_b = operand_table(call.b_dtype);
  const bool rowwise = call.scale_a.rowwise();
  std::vector<uint32_t> bias(call.bias ? static_cast<size_t>(call.n) : 0);
  for (size_t j = 0; j < bias.size(); ++j)
    bias[j] =
        convert(call.bias->format, load_bits(call.bias->format, call.bias->values, j), Format::f32);
  const size_t elements = static_cast<size_t>(call.m * call.n);
  const size_t out_bytes = elements * describe(call.out_dtype).storage_bytes();
  DeviceBuffer a(d, call.a), b(d, call.b), ta(d, bytes_of(table_a)), tb(d, bytes_of(table_b)),
      sa(d, rowwise ? bytes_of(call.scale_a.f32_bits) : std::span<const uint8_t>()),
      sb(d, rowwise ? bytes_of(call.scale_b.f32_bits) : std::span<const uint8_t>()),
      bias_buffer(d, bytes_of(bias)), out(d, out_bytes), fallback(d, elements),
      flagged(d, sizeof(unsigned)), rows_a(d, static_cast<size_t>(call.m)),
      rows_b(d, static_cast<size_t>(call.n));
  if (!a.ok() || !b.ok() || !out.ok() || !fallback.ok() || !flagged.ok() || !rows_a.ok() ||
      !rows_b.ok())
    return Error(Errc::device_unavailable,
                 "device memory could not be allocated for a " + std::to_string(call.m) + "x" +
                     std::to_string(call.n) + "x" + std::to_string(call.k) + " call");
  const Preset& p = *plan.preset;
  const Algorithm& alg = plan.algorithm;
  ScaledMmParams params{};
  params.a = reinterpret_cast<const uint8_t*>(a.ptr());
  params.b = reinterpret_cast<const uint8_t*>(b.ptr());
  params.table_a = reinterpret_cast<const DecodedOperand*>(ta.ptr());
  params.table_b = reinterpret_cast<const DecodedOperand*>(tb.ptr());
  params.scale_a = reinterpret_cast<const uint32_t*>(sa.ptr());
  params.scale_b = reinterpret_cast<const uint32_t*>(sb.ptr());
  params.bias = call.bias ? reinterpret_cast<const float*>(bias_buffer.ptr()) : nullptr;
  params.out = reinterpret_cast<uint8_t*>(out.ptr());
  params.fallback = reinterpret_cast<uint8_t*>(fallback.ptr());
  params.flagged = reinterpret_cast<unsigned*>(flagged.ptr());
  d.memset8(flagged.ptr(), 0, sizeof(unsigned));
  params.m = call.m;
  params.n = call.n;
  params.k = call.k;
  params.alpha = rowwise ? 0.0f
                         : std::bit_cast<float>(call.scale_a.f32_bits[0]) *
                               std::bit_cast<float>(call.scale_b.f32_bits[0]);
  params.rowwise = rowwise;
  params.column_first = alg.rowwise_order == RowwiseScaleOrder::column_first;
  params.out_format = format_index(call.out_dtype);
  params.special_rows_a = reinterpret_cast<const uint8_t*>(rows_a.ptr());
  params.special_rows_b = reinterpret_cast<const uint8_t*>(rows_b.ptr());
  params.terms = p.terms_per_step;
  params.alignment_bits = p.alignment_fraction_bits;
  params.product_fraction_bits =
      describe(call.a_dtype).fraction_bits + describe(call.b_dtype).fraction_bits;
  params.result_bits = p.f32_result.fraction_bits;
  params.exponent_floor = p.f32_result.exponent_floor.value_or(INT_MIN / 4);
  params.single_chain = alg.accumulation == Accumulation::single_chain;
  params.promotion_interval = alg.promotion_interval;
  params.split_k = plan.split_k;
  params.split_grain = alg.split_k_grain;
  params.late_c = p.accumulator_entry == AccumulatorEntry::late_fp32;
  // The pre-pass: rows of a and of b that hold NaN/Inf codes, one warp per row.
  CUfunction flag_rows = nullptr;
  if (CUresult r = d.module_function(&flag_rows, (*module)->module, "flag_special_rows");
      r != CUDA_SUCCESS)
    return Error(Errc::internal,
                 "the " + kernel_name + " module lacks flag_special_rows: " + d.describe(r));
  for (const auto& [codes, rows, format, flags] :
       {std::tuple{a.ptr(), call.m, call.a_dtype, rows_a.ptr()},
        std::tuple{b.ptr(), call.n, call.b_dtype, rows_b.ptr()}}) {
    CUdeviceptr codes_ptr = codes, flags_ptr = flags;
    long long row_count = rows, k = call.k;
    int e5m2 = format == Format::f8_e5m2;
    void* flag_args[] = {&codes_ptr, &row_count, &k, &e5m2, &flags_ptr};
    if (CUresult r = d.launch(flag_rows, static_cast<unsigned>((rows + 3) / 4), 1, 1, 128, 1, 1, 0,
                              nullptr, flag_args, nullptr);
        r != CUDA_SUCCESS)
      return Error(Errc::device_unavailable, "flag_special_rows launch failed: " + d.describe(r));
  }
  void* args[] = {&params};
  // The module's launch shape (EmulationModule): one thread per element, a 2-D grid of 64 x 64
  // tiles, or a 1-D grid over 128 x 128 tiles that the kernel orders itself, with its ring in
  // dynamic shared memory (over the 48 KiB default: the attribute must be raised).
  const unsigned threads_per_block = desc.threads_per_block;
  unsigned grid_x = static_cast<unsigned>((elements + threads_per_block - 1) / threads_per_block),
           grid_y = 1;
  const unsigned shared_bytes = desc.dynamic_shared_bytes;
  if (desc.launch == LaunchShape::tiles_64) {
    grid_x = static_cast<unsigned>((call.n + 63) / 64);
    grid_y = static_cast<unsigned>((call.m + 63) / 64);
    if (grid_y > 65535)
      return Error(Errc::unsupported, kernel_name + ": m = " + std::to_string(call.m) +
                                          " exceeds 65535 tiles of rows");
  } else if (desc.launch == LaunchShape::tiles_128_linear) {
    const int64_t tiles =
        ((call.m + kH4TileM - 1) / kH4TileM) * ((call.n + kH4TileN - 1) / kH4TileN);
    if (tiles > INT_MAX)
      return Error(Errc::unsupported,
                   kernel_name + ": " + std::to_string(tiles) + " tiles exceed one grid");
    grid_x = static_cast<unsigned>(tiles);
  }
  if (shared_bytes > 0)
    if (CUresult r = d.function_attribute(kernel, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                          static_cast<int>(shared_bytes));
        r != CUDA_SUCCESS)
      return Error(Errc::device_unavailable,
                   kernel_name + " needs " + std::to_string(shared_bytes) +
                       " bytes of shared memory per block: " + d.describe(r));
  const auto launched = std::chrono::steady_clock::now();
  if (elements > 0) {
    if (CUresult r = d.launch(kernel, grid_x, grid_y, 1, threads_per_block, 1, 1, shared_bytes,
                              nullptr, args, nullptr);
        r != CUDA_SUCCESS)
      return Error(Errc::device_unavailable, function + " launch failed: " + d.describe(r));
    if (CUresult r = d.synchronize(); r != CUDA_SUCCESS)
      return Error(Errc::device_unavailable, function + " failed: " + d.describe(r));
  }
  const double kernel_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - launched).count();
  std::vector<uint8_t> result(out_bytes);
  d.to_host(result.data(), out.ptr(), out_bytes);
  // The elements the kernel flagged (rows with NaN/Inf codes, results the integer step or the
  // output conversion leaves to the exact codec): exact on the host, on every core.
  unsigned flagged_count = 0;
  d.to_host(&flagged_count, flagged.ptr(), sizeof flagged_count);
  int64_t host_elements = 0;
  if (flagged_count > 0) {
    std::vector<uint8_t> flags(elements);
    d.to_host(flags.data(), fallback.ptr(), elements);
    host_elements = std::count_if(flags.begin(), flags.end(), [](uint8_t f) { return f != 0; });
    finish_flagged_elements(plan, call, flags, result, thread_count(0));
  }
  if (stats) *stats = {kernel_name, kernel_seconds, host_elements};
  return result;
}

}  // namespace mmaemu

#else

namespace mmaemu {

Result<std::string> cuda_backend_device() {
  return Error(
      Errc::unsupported,
      "this mmaemu was built without the CUDA toolkit's headers: --backend cuda is unavailable");
}

Result<std::string> cuda_kernel_for(const Plan&, const ScaledMmCall&, Backend) {
  return Error(
      Errc::unsupported,
      "this mmaemu was built without the CUDA toolkit's headers: --backend cuda is unavailable");
}

Result<std::string> cuda_module_origin(const std::string&) {
  return Error(
      Errc::unsupported,
      "this mmaemu was built without the CUDA toolkit's headers: --backend cuda is unavailable");
}

Result<std::vector<uint8_t>> emulate_cuda(const Plan&, const ScaledMmCall&, Backend,
                                          CudaRunStats*) {
  return Error(
      Errc::unsupported,
      "this mmaemu was built without the CUDA toolkit's headers: --backend cuda is unavailable");
}

}  // namespace mmaemu

#endif
