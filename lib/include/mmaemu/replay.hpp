// Replaying recordings through the oracle and comparing bitwise.
//
// Bit-exact rule: an emulated element matches its recording only when the two bit patterns are
// equal. NaNs are no exception: the hardware writes one canonical NaN per format (f32 0x7FFFFFFF,
// bf16/f16 0x7FFF, e4m3 0x7F) and the emulator writes the same, so NaN payloads are compared too.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "mmaemu/error.hpp"
#include "mmaemu/preset.hpp"
#include "mmaemu/truth.hpp"

namespace mmaemu {

struct Mismatch {
  int64_t index;  // flat element (or row) index
  uint32_t expected, actual;
};

struct Comparison {
  int64_t total = 0;
  int64_t mismatches = 0;
  std::optional<Mismatch> first;
  uint64_t max_ulp_distance = 0;  // over mismatching finite pairs; UINT64_MAX when a NaN differs
  bool bit_exact() const { return mismatches == 0; }
};

// Compares two buffers of `format` elements.
Comparison compare_bits(Format format, std::span<const uint8_t> expected,
                        std::span<const uint8_t> actual);
// Distance in units in the last place between two finite codes of a format (sign-magnitude
// ordering), or UINT64_MAX when either is NaN.
uint64_t ulp_distance(Format format, uint32_t a, uint32_t b);

// Whether the harness that made an mma_block recording fed its c column to the instruction.
bool mma_block_reads_c(const Recording& recording);
bool mma_block_reads_c(std::string_view instruction, Format in_dtype);

// One row of an mma_block recording: the chain of `preset` steps over a and b from c (given in
// c_dtype, converted to the accumulator format; +0 when the harness did not read c).
uint32_t emulate_mma_block_row(const Preset& preset, const StepResult& result, Format in_dtype,
                               std::span<const uint32_t> a, std::span<const uint32_t> b,
                               Format c_dtype, uint32_t c, bool c_read);

struct MmaBlockOptions {
  bool c_read = true;  // pass mma_block_reads_c(recording)
};

// An mma_block recording (tc-blocks): every row through the chain oracle of `preset`.
Result<Comparison> replay_mma_block(const TruthSet& set, const Recording& recording,
                                    const Preset& preset, const MmaBlockOptions& options);

}  // namespace mmaemu

#include <functional>
#include <memory>

#include "mmaemu/emulate.hpp"
#include "mmaemu/profile.hpp"
#include "mmaemu/scaled_mm.hpp"

namespace mmaemu {

// A scaled_mm recording as a call, with the recorded output; spans point into `file`.
struct LoadedCall {
  std::unique_ptr<SafetensorsFile> file;
  ScaledMmCall call;
  std::span<const uint8_t> expected;
};
Result<LoadedCall> load_scaled_mm_call(const TruthSet& set, const Recording& recording);

struct ScaledMmReplay {
  Plan plan;
  Comparison comparison;
};
// Where a replay takes the split-K count from: the recording's log of what cuBLASLt chose (where it
// has one, else the profile), or the profile alone, so that the profile's own split-K choice is
// what the replay tests.
enum class SplitKFrom : uint8_t { recording, profile };

struct ScaledMmReplayOptions {
  SplitKFrom split_k_from = SplitKFrom::recording;
  // The SM count whose heuristic is emulated; default: what the set's manifest says the heuristic
  // saw (heuristic_sm_count), else the profile's reference device.
  std::optional<int> sm_count;
  // The GPU whose heuristic is emulated, as its driver names it; empty: the recording's (else the
  // set's) GPU. It picks the profile's split-K model (Profile::split_k_model_for).
  std::string gpu;
  // Applied to the resolved plan before emulation (mmaemu mutate); empty: none.
  std::function<void(Plan&)> adjust_plan;
};

// Resolves the recording's plan with `profile`, emulates it with `backend`, compares bitwise.
Result<ScaledMmReplay> replay_scaled_mm(const TruthSet& set, const Recording& recording,
                                        const Profile& profile, Backend backend = Backend::oracle,
                                        int threads = 1, const ScaledMmReplayOptions& options = {});

}  // namespace mmaemu
