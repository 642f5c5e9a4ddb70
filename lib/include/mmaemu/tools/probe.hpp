// mmaemu probe: single tensor-core instructions on a live GPU, fed crafted tiles, compared with the
// presets. Each input class aims at some parameters (alignment window, truncation, result width,
// the role of c, subnormals, specials, overflow, signed zero); every one-step move of each preset
// parameter (preset_moves.hpp) is then judged by the probed bits: a parameter is determined when
// every move of it contradicts the hardware somewhere.
//
// The tile generation and the judgement are plain CPU code (testable with a preset standing in
// for the hardware); only run_probes touches the GPU.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "mmaemu/error.hpp"
#include "mmaemu/preset.hpp"

namespace mmaemu {

// One probed instruction: a kernel of the probes module and the shape of its tile.
struct ProbeInstruction {
  std::string name;    // "wgmma.m64n8k32.e4m3.e4m3 (scale-d 1)"
  std::string kernel;  // the function in kernels/probes
  int m = 16, n = 8, k = 32;
  Format a_format = Format::f8_e4m3, b_format = Format::f8_e4m3;
  bool warpgroup = false;  // one 128-thread warpgroup per tile (wgmma), else one warp
  bool reads_c = true;     // wgmma with scale-d 0 computes A*B and never reads C
  int min_compute = 80;    // 89 for FP8 mma.sync; 90 and sm_90a exactly for wgmma
  bool arch_specific = false;
};

const std::vector<ProbeInstruction>& probe_instructions();

// The input classes, in the order tiles are made.
const std::vector<std::string>& probe_classes();

// Tiles for one instruction: `tiles_per_class` tiles of each class. A is m x k, B is n x k
// (row-major, codes in their storage width), C is m x n f32 bits; per tile, rows i < n hold a
// crafted pair with column i, the other rows crafted A rows against those columns.
struct ProbeTiles {
  const ProbeInstruction* instruction = nullptr;
  int tiles = 0;
  std::vector<uint8_t> a, b;
  std::vector<uint32_t> c;
  std::vector<int> class_of_tile;  // index into probe_classes()
};

ProbeTiles make_probe_tiles(const ProbeInstruction& instruction, const Preset& preset,
                            int tiles_per_class, uint64_t seed);

// D as `preset` computes it for every element (one instruction: a chain over k from c).
std::vector<uint32_t> probe_outputs(const ProbeTiles& tiles, const Preset& preset, int threads);

struct ProbeMismatch {
  int tile = 0, row = 0, column = 0;
  uint32_t hardware = 0, model = 0;
};

struct ProbeClassTally {
  std::string name;
  int64_t elements = 0, mismatches = 0;
  std::optional<ProbeMismatch> first;
};

struct ProbeMoveTally {
  std::string label;
  int64_t mismatches = 0;
  std::string first_class;  // the first class whose bits contradict the move
};

struct ProbeParameterVerdict {
  std::string parameter, value;
  bool determined = false;         // every move of it contradicts the hardware
  bool declared_unpinned = false;  // by the recorded data (Preset::unpinned)
  std::string note;                // e.g. why no input of this instruction can reach the parameter
  std::vector<ProbeMoveTally> moves;
};

struct ProbeVerdict {
  std::string instruction, preset;
  int64_t elements = 0, mismatches = 0;
  std::vector<ProbeClassTally> classes;
  std::vector<ProbeParameterVerdict> parameters;
  std::vector<std::pair<std::string, int64_t>> candidates;  // other presets' mismatch counts
};

// Compares the hardware's D with `preset` class by class, then judges every move of every
// parameter, and counts how each candidate preset fares.
ProbeVerdict judge_probe(const ProbeTiles& tiles, std::span<const uint32_t> hardware,
                         const Preset& preset, const std::vector<const Preset*>& candidates,
                         int threads);

// The live run: every instruction the GPU supports, through the probes module.
struct ProbeRunOptions {
  int device = 0;
  int tiles_per_class = 32;
  uint64_t seed = 1;
  int threads = 0;  // CPU threads for the judgement (0: all)
};

struct ProbeRun {
  ProbeInstruction instruction;
  ProbeTiles tiles;
  std::vector<uint32_t> hardware;
  std::string skipped;  // why it did not run on this GPU
};

struct ProbeSession {
  std::string gpu;
  int compute_major = 0, compute_minor = 0, driver_version = 0;
  std::vector<ProbeRun> runs;
};

// `preset_for` gives the preset whose tiles an instruction gets (its crafted classes use the
// preset's alignment width).
Result<ProbeSession> run_probes(
    const ProbeRunOptions& options,
    const std::function<const Preset*(const ProbeInstruction&, int compute)>& preset_for,
    const std::function<void(const std::string&)>& progress);

}  // namespace mmaemu
