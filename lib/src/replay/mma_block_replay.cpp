#include <vector>

#include "mmaemu/exact.hpp"
#include "mmaemu/mma_step.hpp"
#include "mmaemu/replay.hpp"

namespace mmaemu {
namespace {

// How the published harness issued an instruction, where it differs from "d = a.b + c".
// The Khattak & Mikaitis H100 FP8 data were taken with wgmma's scale-d = 0 ("D = AB + D where D
// is zero for fp8 with WGMMA", model_validation/Validate_TC_models.m): the c column of those
// recordings never reached the tensor core. Every row agrees (tests/unit/tc_blocks_test.cpp), and
// the same rows mismatch when c is added, which the test also checks.
bool harness_ignores_c(std::string_view instruction, Format in_dtype) {
  const bool fp8 = in_dtype == Format::f8_e4m3 || in_dtype == Format::f8_e5m2;
  return fp8 && instruction.rfind("wgmma", 0) == 0;
}

}  // namespace

bool mma_block_reads_c(std::string_view instruction, Format in_dtype) {
  return !harness_ignores_c(instruction, in_dtype);
}

bool mma_block_reads_c(const Recording& r) {
  return mma_block_reads_c(r.instruction, r.in_dtype);
}

uint32_t emulate_mma_block_row(const Preset& preset, const StepResult& result, Format in_dtype,
                               std::span<const uint32_t> a, std::span<const uint32_t> b,
                               Format c_dtype, uint32_t c, bool c_read) {
  // The instruction's c operand is in the accumulator format: an f16-output recording's f32 c
  // was rounded to nearest-even f16 before the call.
  const uint32_t c_in = c_read ? convert(c_dtype, c, result.format) : 0;
  return oracle_mma_chain(preset, result, {in_dtype, in_dtype, a, b, c_in});
}

Result<Comparison> replay_mma_block(const TruthSet& set, const Recording& r, const Preset& preset,
                                    const MmaBlockOptions& options) {
  if (r.op != "mma_block")
    return Error(Errc::invalid_argument, r.id + ": not an mma_block recording");
  if (!preset.accepts(r.in_dtype))
    return Error(Errc::unsupported, r.id + ": preset " + preset.name + " does not take " +
                                        std::string(describe(r.in_dtype).name) + " inputs");
  const StepResult* result = preset.result_for(r.out_dtype);
  if (!result)
    return Error(Errc::unsupported, r.id + ": preset " + preset.name + " has no " +
                                        std::string(describe(r.out_dtype).name) + " result");
  auto file = open_recording_file(set, r);
  if (!file) return file.error();
  const auto a = file->data(*file->find(r.a));
  const auto b = file->data(*file->find(r.b));
  const auto c = file->data(*file->find(r.c));
  const auto expected = file->data(*file->find(r.out));
  std::vector<uint8_t> actual(expected.size());
  std::vector<uint32_t> row_a(r.k), row_b(r.k);
  for (int64_t row = 0; row < r.count; ++row) {
    for (int64_t j = 0; j < r.k; ++j) {
      row_a[j] = load_bits(r.in_dtype, a, row * r.k + j);
      row_b[j] = load_bits(r.in_dtype, b, row * r.k + j);
    }
    const uint32_t d = emulate_mma_block_row(preset, *result, r.in_dtype, row_a, row_b, r.c_dtype,
                                             load_bits(r.c_dtype, c, row), options.c_read);
    store_bits(r.out_dtype, actual, row, d);
  }
  return compare_bits(r.out_dtype, expected, actual);
}

}  // namespace mmaemu
