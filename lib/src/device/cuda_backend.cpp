// The CUDA backend: kernel module v1 (the fast CPU path's arithmetic, one thread per element, any
// GPU from sm_75), v4 (the same arithmetic tiled), h1 (the real wgmma step, sm_90) or h4 (h1
// pipelined at a larger tile) or v9 run through the driver (device/kernel_loader). The kernels
// compute every element they can, those whose rows hold NaN or Inf codes in a pass after the main
// kernel (special_elements.h); the host then computes, with the oracle, the elements a kernel
// flags, exactly as the fast CPU path does, so the bits equal the oracle's.
#include "mmaemu/tools/cuda_backend.hpp"
#include "mmaemu/emulate.hpp"
#include "mmaemu/tools/emulation_modules.hpp"
#include "oracle/output_rows.hpp"

namespace mmaemu {

ScaledMmCall DeviceScaledMmCall::shape() const {
  ScaledMmCall c;
  c.m = m, c.n = n, c.k = k;
  c.a_dtype = a_dtype, c.b_dtype = b_dtype, c.out_dtype = out_dtype;
  c.use_fast_accum = use_fast_accum;
  c.scale_a.per_row = c.scale_b.per_row = rowwise;
  if (rowwise) c.scale_a.f32_bits.clear(), c.scale_b.f32_bits.clear();
  if (bias_dtype) c.bias = Bias{*bias_dtype, {}};
  return c;
}

Result<void> validate(const DeviceScaledMmCall& call) {
  auto fail = [](const std::string& what) { return Error(Errc::invalid_argument, what); };
  if (auto ok = validate_extents(call.m, call.n, call.k); !ok) return ok;
  if (auto ok = validate_operand_dtypes(call.a_dtype, call.b_dtype); !ok) return ok;
  if (int64_t elements = 0; __builtin_mul_overflow(call.m, call.n, &elements) ||
                            __builtin_mul_overflow(call.m, call.k, &elements) ||
                            __builtin_mul_overflow(call.n, call.k, &elements))
    return fail("m x n, m x k or n x k does not fit a 64-bit count");
  if (call.bias_dtype)
    if (auto ok = validate_bias_dtype(*call.bias_dtype); !ok) return ok;
  if (auto ok = validate_out_dtype(call.out_dtype); !ok) return ok;
  for (const auto& [address, name] :
       {std::pair{call.a, "a"}, std::pair{call.b, "b"}, std::pair{call.scale_a, "scale_a"},
        std::pair{call.scale_b, "scale_b"}, std::pair{call.out, "out"}})
    if (address == 0) return fail(std::string(name) + " has no device address");
  if (call.bias_dtype && call.bias == 0) return fail("bias has a dtype but no device address");
  return {};
}

}  // namespace mmaemu

#ifdef MMAEMU_HAVE_CUDA_HEADERS

#include <algorithm>
#include <bit>
#include <chrono>
#include <climits>
#include <cstring>
#include <memory>
#include <mutex>
#include <tuple>

#include "common/h4_tensor_maps.h"
#include "common/h4_tiling.h"
#include "common/scaled_mm_params.h"
#include "cpu/flagged_elements.hpp"
#include "cpu/fp8_codes.hpp"
#include "device/cuda_api.hpp"
#include "device/kernel_loader.hpp"
#include "mmaemu/exact.hpp"
#include "mmaemu/safetensors.hpp"

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

// The bytes of an m x n output of `out`.
size_t output_bytes(int64_t m, int64_t n, Format out) {
  return static_cast<size_t>(m * n) * describe(out).storage_bytes();
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

namespace {

// The module that runs a call and its kernel, chosen and loaded on GPU 0.
struct PreparedModule {
  device::Gpu* gpu = nullptr;
  const EmulationModule* desc = nullptr;
  const device::LoadedModule* loaded = nullptr;
  CUfunction kernel = nullptr, flag_rows = nullptr, widen_bias = nullptr, finish_special = nullptr;
  std::string function;
  int tile_rows = 0;  // h4: the tile height of the kernel chosen (h4_tile_rows)
};

// operand_addresses: as choose_emulation_module takes them.
Result<PreparedModule> prepare_module(const Plan& plan, const ScaledMmCall& shape, Backend backend,
                                      uint64_t operand_addresses = 0) {
  auto gpu = device::emulation_gpu();
  if (!gpu) return gpu.error();
  auto chosen = choose_emulation_module(plan, shape, backend, (*gpu)->compute_major,
                                        (*gpu)->compute_minor, operand_addresses);
  if (!chosen) return chosen.error();
  PreparedModule m;
  m.gpu = *gpu;
  m.desc = *chosen;
  const std::string kernel_name(m.desc->name);
  auto module = device::emulation_module(kernel_name);
  if (!module) return module.error();
  m.loaded = *module;
  const auto& d = m.gpu->api;
  m.function = kernel_name + "_scaled_mm";
  if (m.desc->wgmma) {
    auto pair_name = [](Format f) { return f == Format::f8_e4m3 ? "e4m3" : "e5m2"; };
    m.function =
        kernel_name + "_scaled_mm_" + pair_name(shape.a_dtype) + "_" + pair_name(shape.b_dtype);
  }
  if (m.desc->launch == LaunchShape::tiles_128_linear) {
    m.tile_rows = h4_tile_rows(shape.m, shape.n, plan.split_k, m.gpu->multiprocessors);
    if (m.tile_rows == kH4NarrowTileM) m.function += "_m64";
  }
  if (CUresult r = d.module_function(&m.kernel, m.loaded->module, m.function.c_str());
      r != CUDA_SUCCESS)
    return Error(Errc::internal,
                 "the " + kernel_name + " module lacks " + m.function + ": " + d.describe(r));
  for (const auto& [function, name] :
       {std::pair{&m.flag_rows, "flag_special_rows"}, std::pair{&m.widen_bias, "widen_bias"},
        std::pair{&m.finish_special, "finish_special_elements"}})
    if (CUresult r = d.module_function(function, m.loaded->module, name); r != CUDA_SUCCESS)
      return Error(Errc::internal,
                   "the " + kernel_name + " module lacks " + name + ": " + d.describe(r));
  return m;
}

// What the kernels read, wherever it came from: device addresses of the operands, the scales (f32
// words: one each tensorwise, m and n rowwise), the bias in its own format (or 0) and the output.
struct KernelInputs {
  CUdeviceptr a = 0, b = 0, scale_a = 0, scale_b = 0, bias = 0, out = 0;
  CUstream stream = nullptr;
};

struct KernelRun {
  double kernel_seconds = 0;
  std::vector<uint8_t> flags;  // m x n, nonzero where the host must finish; empty: none flagged
};

// Device memory the launcher keeps from call to call on GPU 0: the decoded-operand table of each
// FP8 format (constant: uploaded once) and the per-call scratch (the flags, the special-row marks,
// the flagged count), grown to the largest call so far. cuMemAlloc and cuMemFree cost tens of
// microseconds each and cuMemFree waits for the GPU: as much as a small call's kernel. One call at
// a time holds it (`lock`). Never freed: it lives as long as the process and the driver's
// context, and a destructor run at exit could call into a driver already unloaded.
class LaunchScratch {
 public:
  enum Slot { fallback, flagged, rows_a, rows_b, bias_f32, slot_count };
  std::mutex lock;

  static LaunchScratch& of_gpu() {
    static LaunchScratch* scratch = new LaunchScratch();  // deliberately leaked (above)
    return *scratch;
  }

  // The table of `format` on the device, uploaded and synchronised on first use.
  Result<CUdeviceptr> table(const device::DriverApi& d, Format format) {
    auto& held = tables_[format == Format::f8_e5m2 ? 1 : 0];
    if (!held) {
      auto buffer = std::make_unique<DeviceBuffer>(d, bytes_of(operand_table(format)));
      if (!buffer->ok())
        return Error(Errc::device_unavailable, "device memory could not be allocated for the " +
                                                   std::string(describe(format).name) +
                                                   " operand table");
      if (CUresult r = d.synchronize(); r != CUDA_SUCCESS)
        return Error(Errc::device_unavailable,
                     "the kernel's tables failed to upload: " + d.describe(r));
      held = std::move(buffer);
    }
    return held->ptr();
  }

  // A page-locked host word that the flagged count is copied into behind the kernel, so that one
  // stream synchronisation waits for both; null where it cannot be allocated.
  unsigned* count_word(const device::DriverApi& d) {
    if (!count_word_) {
      void* word = nullptr;
      if (d.alloc_host(&word, sizeof(unsigned)) != CUDA_SUCCESS) return nullptr;
      count_word_ = static_cast<unsigned*>(word);
    }
    return count_word_;
  }

  // At least `bytes` of slot `slot` (its contents undefined); 0 where it cannot be allocated.
  CUdeviceptr at_least(const device::DriverApi& d, Slot slot, size_t bytes) {
    if (!buffers_[slot] || sizes_[slot] < bytes) {
      buffers_[slot].reset();  // freed before the larger one is taken
      sizes_[slot] = 0;
      auto buffer = std::make_unique<DeviceBuffer>(d, bytes);
      if (!buffer->ok()) return 0;
      buffers_[slot] = std::move(buffer);
      sizes_[slot] = bytes;
    }
    return buffers_[slot]->ptr();
  }

 private:
  std::unique_ptr<DeviceBuffer> tables_[2];
  std::unique_ptr<DeviceBuffer> buffers_[slot_count];
  size_t sizes_[slot_count] = {};
  unsigned* count_word_ = nullptr;
};

static_assert(sizeof(CUtensorMap) == sizeof(H4TensorMap),
              "h4_tiling.h's opaque tensor map must be a CUtensorMap's size");

// The tensor maps of h4's operands into `maps`: a (m rows) and b (n rows) of k bytes, boxes of one
// slab (128 bytes of K) by one tile's rows (a: tile_rows; b: a block's share of the tile's
// columns, kH4BoxRowsB), the 128-byte swizzle the kernel's descriptors expect, zeros past the
// edges.
Result<void> encode_h4_maps(const device::DriverApi& d, const ScaledMmCall& shape, CUdeviceptr a,
                            CUdeviceptr b, int tile_rows, H4TensorMaps& maps) {
  if (!d.encode_tensor_map)
    return Error(Errc::device_unavailable,
                 "the CUDA driver lacks cuTensorMapEncodeTiled (h4 needs a CUDA 12 driver)");
  for (const auto& [map, address, rows, box_rows, name] :
       {std::tuple{&maps.a, a, shape.m, tile_rows, "a"},
        std::tuple{&maps.b, b, shape.n, kH4BoxRowsB, "b"}}) {
    CUtensorMap encoded;  // CUDA's own type (more strictly aligned), then copied into the param
    if (CUresult r = encode_h4_tensor_map(
            d.encode_tensor_map, &encoded, reinterpret_cast<const void*>(address),
            static_cast<unsigned long long>(shape.k), static_cast<unsigned long long>(rows),
            static_cast<unsigned>(box_rows));
        r != CUDA_SUCCESS)
      return Error(Errc::unsupported, std::string("h4: the tensor map of ") + name + " (" +
                                          std::to_string(rows) + " x " + std::to_string(shape.k) +
                                          " bytes) cannot be encoded: " + d.describe(r));
    std::memcpy(map, &encoded, sizeof encoded);
  }
  return {};
}

// Blocks per cluster in the module's launch: h4's split-K slices of a tile are one cluster.
unsigned cluster_blocks(const EmulationModule& desc, const Plan& plan) {
  return desc.launch == LaunchShape::tiles_128_linear ? static_cast<unsigned>(plan.split_k) : 1;
}

// One launch of `kernel` over `grid`; clusters of `cluster` blocks along x (cuLaunchKernelEx)
// where that is more than one.
CUresult launch_grid(const device::DriverApi& d, CUfunction kernel, const unsigned (&grid)[3],
                     unsigned threads, unsigned shared_bytes, unsigned cluster, CUstream stream,
                     void** args) {
  if (cluster <= 1)
    return d.launch(kernel, grid[0], grid[1], grid[2], threads, 1, 1, shared_bytes, stream, args,
                    nullptr);
  if (!d.launch_ex) return CUDA_ERROR_NOT_SUPPORTED;  // drivers before CUDA 12.0
  CUlaunchAttribute attribute{};
  attribute.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
  attribute.value.clusterDim.x = cluster;
  attribute.value.clusterDim.y = attribute.value.clusterDim.z = 1;
  CUlaunchConfig config{};
  config.gridDimX = grid[0], config.gridDimY = grid[1], config.gridDimZ = grid[2];
  config.blockDimX = threads, config.blockDimY = config.blockDimZ = 1;
  config.sharedMemBytes = shared_bytes;
  config.hStream = stream;
  config.attrs = &attribute;
  config.numAttrs = 1;
  return d.launch_ex(&config, kernel, args, nullptr);
}

// The special-row pre-pass and the module's kernel over the call, then the flags. The host path
// and the resident path both run this: one launcher, the same bits.
Result<KernelRun> launch_module(const PreparedModule& m, const Plan& plan,
                                const ScaledMmCall& shape, const KernelInputs& in) {
  const auto& d = m.gpu->api;
  const EmulationModule& desc = *m.desc;
  const std::string kernel_name(desc.name);
  const bool rowwise = shape.scale_a.rowwise();
  const size_t elements = static_cast<size_t>(shape.m * shape.n);
  LaunchScratch& scratch = LaunchScratch::of_gpu();
  std::lock_guard<std::mutex> hold(scratch.lock);  // until the flags are read back
  auto ta = scratch.table(d, shape.a_dtype);
  if (!ta) return ta.error();
  auto tb = scratch.table(d, shape.b_dtype);
  if (!tb) return tb.error();
  const CUdeviceptr fallback = scratch.at_least(d, LaunchScratch::fallback, elements),
                    flagged = scratch.at_least(d, LaunchScratch::flagged, sizeof(unsigned)),
                    rows_a =
                        scratch.at_least(d, LaunchScratch::rows_a, static_cast<size_t>(shape.m)),
                    rows_b =
                        scratch.at_least(d, LaunchScratch::rows_b, static_cast<size_t>(shape.n));
  unsigned* const count_word = scratch.count_word(d);
  if (!fallback || !flagged || !rows_a || !rows_b || !count_word)
    return Error(Errc::device_unavailable,
                 "device memory could not be allocated for a " + std::to_string(shape.m) + "x" +
                     std::to_string(shape.n) + "x" + std::to_string(shape.k) + " call");
  const Preset& p = *plan.preset;
  const Algorithm& alg = plan.algorithm;
  ScaledMmParams params{};
  params.a = reinterpret_cast<const uint8_t*>(in.a);
  params.b = reinterpret_cast<const uint8_t*>(in.b);
  params.table_a = reinterpret_cast<const DecodedOperand*>(*ta);
  params.table_b = reinterpret_cast<const DecodedOperand*>(*tb);
  params.scale_a = reinterpret_cast<const uint32_t*>(in.scale_a);
  params.scale_b = reinterpret_cast<const uint32_t*>(in.scale_b);
  CUdeviceptr bias_f32 = 0;
  if (in.bias) {
    bias_f32 = scratch.at_least(d, LaunchScratch::bias_f32, static_cast<size_t>(shape.n) * 4);
    if (!bias_f32)
      return Error(Errc::device_unavailable, "device memory could not be allocated for the bias");
  }
  params.bias = reinterpret_cast<const float*>(bias_f32);
  params.out = reinterpret_cast<uint8_t*>(in.out);
  params.fallback = reinterpret_cast<uint8_t*>(fallback);
  params.flagged = reinterpret_cast<unsigned*>(flagged);
  params.m = shape.m;
  params.n = shape.n;
  params.k = shape.k;
  params.rowwise = rowwise;
  params.column_first = alg.rowwise_order == RowwiseScaleOrder::column_first;
  params.out_format = format_index(shape.out_dtype);
  params.special_rows_a = reinterpret_cast<const uint8_t*>(rows_a);
  params.special_rows_b = reinterpret_cast<const uint8_t*>(rows_b);
  params.terms = p.terms_per_step;
  params.alignment_bits = p.alignment_fraction_bits;
  params.product_fraction_bits =
      describe(shape.a_dtype).fraction_bits + describe(shape.b_dtype).fraction_bits;
  params.result_bits = p.f32_result.fraction_bits;
  params.exponent_floor = p.f32_result.exponent_floor.value_or(INT_MIN / 4);
  params.single_chain = alg.accumulation == Accumulation::single_chain;
  params.promotion_interval = alg.promotion_interval;
  params.split_k = plan.split_k;
  params.split_grain = alg.split_k_grain;
  params.late_c = p.accumulator_entry == AccumulatorEntry::late_fp32;
  // The count is cleared on the call's stream, in order with the kernels (the tables went up
  // synchronised when first taken, the scratch needs no clearing: the kernels write all of it).
  if (CUresult r = d.memset8_async(flagged, 0, sizeof(unsigned), in.stream); r != CUDA_SUCCESS)
    return Error(Errc::device_unavailable,
                 "the flagged count could not be cleared: " + d.describe(r));
  // The pre-pass: rows of a and of b that hold NaN/Inf codes, one warp per row.
  for (const auto& [codes, rows, format, flags] :
       {std::tuple{in.a, shape.m, shape.a_dtype, rows_a},
        std::tuple{in.b, shape.n, shape.b_dtype, rows_b}}) {
    CUdeviceptr codes_ptr = codes, flags_ptr = flags;
    long long row_count = rows, k = shape.k;
    int e5m2 = format == Format::f8_e5m2;
    void* flag_args[] = {&codes_ptr, &row_count, &k, &e5m2, &flags_ptr};
    if (CUresult r = d.launch(m.flag_rows, static_cast<unsigned>((rows + 3) / 4), 1, 1, 128, 1, 1,
                              0, in.stream, flag_args, nullptr);
        r != CUDA_SUCCESS)
      return Error(Errc::device_unavailable, "flag_special_rows launch failed: " + d.describe(r));
  }
  // The bias widened to f32 on the device, in order before the kernel that reads it.
  if (in.bias) {
    CUdeviceptr bias = in.bias;
    long long n = shape.n;
    int f16 = shape.bias->format == Format::f16;
    void* widen_args[] = {&bias, &n, &f16, &bias_f32};
    if (CUresult r = d.launch(m.widen_bias, static_cast<unsigned>((n + 255) / 256), 1, 1, 256, 1, 1,
                              0, in.stream, widen_args, nullptr);
        r != CUDA_SUCCESS)
      return Error(Errc::device_unavailable, "widen_bias launch failed: " + d.describe(r));
  }
  H4TensorMaps maps{};
  if (desc.tensor_maps)
    if (auto ok = encode_h4_maps(d, shape, in.a, in.b, m.tile_rows, maps); !ok) return ok.error();
  void* args[] = {&params, &maps};  // a module without tensor maps reads the first alone
  // The module's launch shape (EmulationModule): one thread per element, a 2-D grid of 64 x 64
  // tiles, or a 1-D grid over h4's tiles (128 or 64 rows by 128) that the kernel orders itself,
  // with its ring in dynamic shared memory (over the 48 KiB default: the attribute must be raised).
  const bool h4_tiles = desc.launch == LaunchShape::tiles_128_linear;
  const unsigned threads_per_block =
      h4_tiles ? static_cast<unsigned>(h4_threads(m.tile_rows)) : desc.threads_per_block;
  unsigned grid_x = static_cast<unsigned>((elements + threads_per_block - 1) / threads_per_block),
           grid_y = 1;
  const unsigned shared_bytes = h4_tiles
                                    ? static_cast<unsigned>(h4_dynamic_shared_bytes(m.tile_rows))
                                    : desc.dynamic_shared_bytes;
  if (desc.launch == LaunchShape::tiles_64) {
    grid_x = static_cast<unsigned>((shape.n + 63) / 64);
    grid_y = static_cast<unsigned>((shape.m + 63) / 64);
    if (grid_y > 65535)
      return Error(Errc::unsupported, kernel_name + ": m = " + std::to_string(shape.m) +
                                          " exceeds 65535 tiles of rows");
  } else if (h4_tiles) {
    const int64_t blocks = h4_grid_blocks(shape.m, shape.n, plan.split_k, m.tile_rows);
    if (blocks > INT_MAX)
      return Error(Errc::unsupported,
                   kernel_name + ": " + std::to_string(blocks) + " blocks exceed one grid");
    grid_x = static_cast<unsigned>(blocks);
  }
  if (shared_bytes > 0)
    if (CUresult r = d.function_attribute(m.kernel, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                          static_cast<int>(shared_bytes));
        r != CUDA_SUCCESS)
      return Error(Errc::device_unavailable,
                   kernel_name + " needs " + std::to_string(shared_bytes) +
                       " bytes of shared memory per block: " + d.describe(r));
  KernelRun run;
  const auto launched = std::chrono::steady_clock::now();
  if (elements > 0) {
    if (CUresult r = launch_grid(d, m.kernel, {grid_x, grid_y, 1}, threads_per_block, shared_bytes,
                                 cluster_blocks(desc, plan), in.stream, args);
        r != CUDA_SUCCESS)
      return Error(Errc::device_unavailable, m.function + " launch failed: " + d.describe(r));
    // The elements of rows holding NaN/Inf codes, finished on the device behind the kernel (a
    // grid of at most 1024 blocks that skip unmarked rows: a few microseconds where none is).
    int a_e5m2 = shape.a_dtype == Format::f8_e5m2, b_e5m2 = shape.b_dtype == Format::f8_e5m2;
    void* special_args[] = {&params, &a_e5m2, &b_e5m2};
    const unsigned lines = static_cast<unsigned>(std::min<int64_t>(shape.m + shape.n, 1024));
    if (CUresult r =
            d.launch(m.finish_special, lines, 1, 1, 256, 1, 1, 0, in.stream, special_args, nullptr);
        r != CUDA_SUCCESS)
      return Error(Errc::device_unavailable,
                   "finish_special_elements launch failed: " + d.describe(r));
  }
  // The flagged count comes back behind the kernel on its stream: one synchronisation waits for
  // both (the kernel time includes the 4-byte copy).
  if (CUresult r = d.to_host_async(count_word, flagged, sizeof(unsigned), in.stream);
      r != CUDA_SUCCESS)
    return Error(Errc::device_unavailable, "the flagged count could not be read: " + d.describe(r));
  if (CUresult r = d.stream_synchronize(in.stream); r != CUDA_SUCCESS)
    return Error(Errc::device_unavailable, m.function + " failed: " + d.describe(r));
  run.kernel_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - launched).count();
  if (*count_word > 0) {
    run.flags.resize(elements);
    d.to_host(run.flags.data(), fallback, elements);
  }
  return run;
}

int64_t count_flags(const std::vector<uint8_t>& flags) {
  return std::count_if(flags.begin(), flags.end(), [](uint8_t f) { return f != 0; });
}

}  // namespace

Result<std::vector<uint8_t>> emulate_cuda(const Plan& plan, const ScaledMmCall& call,
                                          Backend backend, CudaRunStats* stats) {
  auto module = prepare_module(plan, call, backend);
  if (!module) return module.error();
  if (auto ok = validate_planned_call(plan, call); !ok) return ok.error();
  const auto& d = module->gpu->api;
  const size_t out_bytes = output_bytes(call.m, call.n, call.out_dtype);
  DeviceBuffer a(d, call.a), b(d, call.b), sa(d, bytes_of(call.scale_a.f32_bits)),
      sb(d, bytes_of(call.scale_b.f32_bits)),
      bias_buffer(d, call.bias ? call.bias->values : std::span<const uint8_t>()), out(d, out_bytes);
  if (!a.ok() || !b.ok() || !sa.ok() || !sb.ok() || !bias_buffer.ok() || !out.ok())
    return Error(Errc::device_unavailable,
                 "device memory could not be allocated for a " + std::to_string(call.m) + "x" +
                     std::to_string(call.n) + "x" + std::to_string(call.k) + " call");
  KernelInputs in;
  in.a = a.ptr(), in.b = b.ptr(), in.out = out.ptr();
  in.scale_a = sa.ptr(), in.scale_b = sb.ptr();
  in.bias = call.bias ? bias_buffer.ptr() : 0;
  auto run = launch_module(*module, plan, call, in);
  if (!run) return run.error();
  std::vector<uint8_t> result(out_bytes);
  d.to_host(result.data(), out.ptr(), out_bytes);
  // The elements the kernel flagged (rows with NaN/Inf codes, results the integer step or the
  // output conversion leaves to the exact codec): exact on the host, on every core.
  if (!run->flags.empty()) finish_flagged_elements(plan, call, run->flags, result, thread_count(0));
  if (stats)
    *stats = {std::string(module->desc->name), run->kernel_seconds, count_flags(run->flags)};
  return result;
}

Result<CudaRunStats> emulate_cuda_resident(const Plan& plan, const DeviceScaledMmCall& call,
                                           Backend backend) {
  if (auto ok = validate(call); !ok) return ok.error();
  const ScaledMmCall shape = call.shape();
  auto module = prepare_module(plan, shape, backend, call.a | call.b);
  if (!module) return module.error();
  if (auto ok = validate_plan_takes(plan, call.a_dtype, call.b_dtype); !ok) return ok.error();
  const auto& d = module->gpu->api;
  // The data may still be being written by work queued on another stream: wait for all of it
  // (the call's own work then runs on its stream; an idle GPU answers at once).
  if (CUresult r = d.synchronize(); r != CUDA_SUCCESS)
    return Error(Errc::device_unavailable, "the GPU's queued work failed: " + d.describe(r));
  // The kernels read the scales and the bias where they lie: nothing crosses to the host before
  // the launch.
  KernelInputs in;
  in.a = call.a, in.b = call.b, in.out = call.out;
  in.scale_a = call.scale_a, in.scale_b = call.scale_b;
  in.bias = call.bias_dtype ? call.bias : 0;
  in.stream = static_cast<CUstream>(call.stream);
  auto run = launch_module(*module, plan, shape, in);
  if (!run) return run.error();
  const int64_t host_elements = count_flags(run->flags);
  if (host_elements > 0) {
    // The exact path for the flagged elements needs the operands, the scales and the bias: they
    // come to the host once.
    auto fetch = [&d](uint64_t address, size_t bytes) {
      std::vector<uint8_t> host(bytes);
      if (bytes > 0) d.to_host(host.data(), address, bytes);
      return host;
    };
    const size_t out_bytes = output_bytes(call.m, call.n, call.out_dtype);
    const auto a = fetch(call.a, static_cast<size_t>(call.m * call.k));
    const auto b = fetch(call.b, static_cast<size_t>(call.n * call.k));
    std::vector<uint8_t> result = fetch(call.out, out_bytes);
    ScaledMmCall host = shape;
    host.a = a, host.b = b;
    host.scale_a.f32_bits.resize(call.rowwise ? static_cast<size_t>(call.m) : 1);
    host.scale_b.f32_bits.resize(call.rowwise ? static_cast<size_t>(call.n) : 1);
    d.to_host(host.scale_a.f32_bits.data(), call.scale_a, host.scale_a.f32_bits.size() * 4);
    d.to_host(host.scale_b.f32_bits.data(), call.scale_b, host.scale_b.f32_bits.size() * 4);
    const std::vector<uint8_t> bias =
        fetch(call.bias, call.bias_dtype ? static_cast<size_t>(call.n) * 2 : 0);
    if (call.bias_dtype) host.bias = Bias{*call.bias_dtype, bias};
    if (auto ok = validate_planned_call(plan, host); !ok) return ok.error();
    finish_flagged_elements(plan, host, run->flags, result, thread_count(0));
    if (CUresult r = d.to_device(call.out, result.data(), out_bytes); r != CUDA_SUCCESS)
      return Error(Errc::device_unavailable,
                   "the finished output could not be written back: " + d.describe(r));
  }
  return CudaRunStats{std::string(module->desc->name), run->kernel_seconds, host_elements};
}

struct ResidentCopy::Buffers {
  std::vector<std::unique_ptr<DeviceBuffer>> held;
  const device::DriverApi* api = nullptr;
};

ResidentCopy::~ResidentCopy() = default;

Result<std::unique_ptr<ResidentCopy>> ResidentCopy::upload(const ScaledMmCall& call) {
  if (auto ok = validate(call); !ok) return ok.error();
  auto gpu = device::emulation_gpu();
  if (!gpu) return gpu.error();
  const auto& d = (*gpu)->api;
  std::unique_ptr<ResidentCopy> copy(new ResidentCopy());
  copy->buffers_ = std::make_unique<Buffers>();
  copy->buffers_->api = &d;
  auto hold = [&](std::span<const uint8_t> bytes, size_t size) -> Result<uint64_t> {
    auto buffer = bytes.empty() ? std::make_unique<DeviceBuffer>(d, size)
                                : std::make_unique<DeviceBuffer>(d, bytes);
    if (!buffer->ok())
      return Error(Errc::device_unavailable,
                   "device memory could not be allocated (" + std::to_string(size) + " bytes)");
    const uint64_t address = buffer->ptr();
    copy->buffers_->held.push_back(std::move(buffer));
    return address;
  };
  DeviceScaledMmCall& c = copy->call_;
  c.m = call.m, c.n = call.n, c.k = call.k;
  c.a_dtype = call.a_dtype, c.b_dtype = call.b_dtype, c.out_dtype = call.out_dtype;
  c.use_fast_accum = call.use_fast_accum;
  c.rowwise = call.scale_a.rowwise();
  const size_t out_bytes = output_bytes(call.m, call.n, call.out_dtype);
  for (auto [address, bytes, size] :
       {std::tuple{&c.a, call.a, call.a.size()}, std::tuple{&c.b, call.b, call.b.size()},
        std::tuple{&c.scale_a, bytes_of(call.scale_a.f32_bits), call.scale_a.f32_bits.size() * 4},
        std::tuple{&c.scale_b, bytes_of(call.scale_b.f32_bits), call.scale_b.f32_bits.size() * 4},
        std::tuple{&c.out, std::span<const uint8_t>(), out_bytes}}) {
    auto held = hold(bytes, size);
    if (!held) return held.error();
    *address = *held;
  }
  if (call.bias) {
    c.bias_dtype = call.bias->format;
    auto held = hold(call.bias->values, call.bias->values.size());
    if (!held) return held.error();
    c.bias = *held;
  }
  return copy;
}

Result<std::vector<uint8_t>> ResidentCopy::download_out() const {
  const size_t out_bytes = output_bytes(call_.m, call_.n, call_.out_dtype);
  std::vector<uint8_t> out(out_bytes);
  if (CUresult r = buffers_->api->to_host(out.data(), call_.out, out_bytes); r != CUDA_SUCCESS)
    return Error(Errc::device_unavailable,
                 "the output could not be read: " + buffers_->api->describe(r));
  return out;
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

Result<CudaRunStats> emulate_cuda_resident(const Plan&, const DeviceScaledMmCall&, Backend) {
  return Error(
      Errc::unsupported,
      "this mmaemu was built without the CUDA toolkit's headers: --backend cuda is unavailable");
}

struct ResidentCopy::Buffers {};

ResidentCopy::~ResidentCopy() = default;

Result<std::unique_ptr<ResidentCopy>> ResidentCopy::upload(const ScaledMmCall&) {
  return Error(
      Errc::unsupported,
      "this mmaemu was built without the CUDA toolkit's headers: --backend cuda is unavailable");
}

Result<std::vector<uint8_t>> ResidentCopy::download_out() const {
  return Error(Errc::internal, "no GPU copy to read");
}

}  // namespace mmaemu

#endif
