// The CUDA emulation kernel modules (kernels/<name>/), one descriptor each: the single table that
// the backend names, the choice of module for a call, the launcher, the NVRTC path and `conform`
// read. What a module covers is decided here, in plain CPU code (no CUDA header, no GPU), so that
// it is tested anywhere (tests/unit/cuda_kernel_choice_test.cpp).
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "mmaemu/emulate.hpp"

namespace mmaemu {

// How a module's kernel is launched over the output.
enum class LaunchShape : uint8_t {
  per_element,  // one thread per output element
  tiles_64,     // a two-dimensional grid of 64 x 64 output tiles
  // A one-dimensional grid over h4's tiles, ordered by the kernel itself: 128 x 128, or 64 x 128
  // where h4_tile_rows picks the narrow kernels (common/h4_tiling.h sizes block and shared memory).
  tiles_128_linear,
};

struct EmulationModule {
  std::string_view name;          // "v1"
  std::string_view backend_name;  // "cuda-v1"
  Backend backend;                // Backend::cuda_v1
  std::string_view source;        // its main source, kernels/<name>/<source>
  std::string_view summary;       // one line for help texts
  // Issues wgmma: sm_90a code (sm_90 alone), the hopper_fp8_wgmma_k32 step alone; its kernels are
  // named <name>_scaled_mm_<a>_<b> per operand pair (e4m3, e5m2), else <name>_scaled_mm.
  bool wgmma = false;
  unsigned threads_per_block = 128;
  LaunchShape launch = LaunchShape::per_element;
  unsigned dynamic_shared_bytes = 0;  // raised above the 48 KiB default when nonzero
  // Whether it computes the call on a GPU of compute capability major.minor; if not, why.
  bool (*covers)(const Plan& plan, const ScaledMmCall& call, int major, int minor,
                 std::string* why) = nullptr;
  // Its place in Backend::cuda's choice, fastest first (1 is tried first); 0: only when named.
  unsigned auto_rank = 0;
  // Reads a and b through two tensor maps (H4TensorMaps, its second kernel parameter) that the
  // launcher encodes per call; their addresses must then be 16-byte aligned.
  bool tensor_maps = false;
};

// v1, v4, h1, h4, v9.
std::span<const EmulationModule> emulation_modules();
const EmulationModule* emulation_module_named(std::string_view name);
const EmulationModule* emulation_module_for(Backend backend);  // null for oracle, cpu, cuda

// The module a CUDA backend runs for the call on a GPU of compute capability major.minor: the one
// the backend names, or for Backend::cuda the first by auto_rank that covers it; else why none.
// `operand_addresses` is the bitwise or of a's and b's device addresses where the caller chose
// them (a resident call), 0 where the library allocated them (aligned for every module).
Result<const EmulationModule*> choose_emulation_module(const Plan& plan, const ScaledMmCall& call,
                                                       Backend backend, int major, int minor,
                                                       uint64_t operand_addresses = 0);

// Module `name` compiled by NVRTC (loaded at run time) from the sources this mmaemu carries, for
// `arch` ("sm_90a", "sm_89"): the cubin's size in bytes, or why not (Errc::unsupported: this build
// has no NVRTC path; Errc::device_unavailable: NVRTC is missing or refused the source). The path a
// GPU takes whose code no fatbin holds (or MMAEMU_FORCE_NVRTC); it needs no GPU, so tests run it
// wherever NVRTC is installed.
Result<size_t> compile_module_with_nvrtc(std::string_view name, const std::string& arch);

}  // namespace mmaemu
