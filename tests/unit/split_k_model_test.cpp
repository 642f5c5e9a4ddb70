// The split-K model: its file format, its rules, exact lookups in grids and points, predictions
// between grid points, the hopper profile's model on shapes the H200 was asked about, and the
// sweep logs it is checked against, written and read back.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

#include <openssl/evp.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <tuple>

#include "mmaemu/profile.hpp"
#include "mmaemu/split_k.hpp"
#include "mmaemu/tools/sweep.hpp"

using namespace mmaemu;
using nlohmann::json;

namespace {

std::string base64(const std::vector<uint8_t>& bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()), bytes.data(),
                                static_cast<int>(bytes.size()));
  out.resize(static_cast<size_t>(n));
  return out;
}

void varint(std::vector<uint8_t>& out, uint64_t v) {
  do {
    uint8_t b = v & 0x7F;
    v >>= 7;
    out.push_back(b | (v ? 0x80 : 0));
  } while (v);
}

json config(int sm, int64_t ws) {
  return {{"sm_count", sm},          {"workspace_bytes", ws}, {"rowwise", false},
          {"use_fast_accum", false}, {"a_dtype", "f8_e4m3"},  {"b_dtype", "f8_e4m3"},
          {"out_dtype", "bf16"},     {"bias_dtype", nullptr}};
}

// Runs along k = 128 .. 12800 step 128 (100 points) for `columns` columns, column c splitting as
// min(ceil(k / 2560) - 1, cap(c)).
template <class Cap>
std::string k_runs(int columns, Cap cap) {
  std::vector<uint8_t> runs;
  for (int column = 0; column < columns; ++column) {
    int last = -1, length = 0;
    for (int l = 0; l < 100; ++l) {
      const int k = 128 * (l + 1);
      const int s = std::max(1, std::min((k + 2559) / 2560 - 1, cap(column)));
      if (s != last && length) {
        varint(runs, static_cast<uint64_t>(length));
        varint(runs, static_cast<uint64_t>(last));
        length = 0;
      }
      last = s;
      ++length;
    }
    varint(runs, static_cast<uint64_t>(length));
    varint(runs, static_cast<uint64_t>(last));
  }
  return base64(runs);
}

// A model with one grid over m = 8, 16; n = 16, 32; k = 128 .. 12800 step 128, whose every column
// splits as min(ceil(k / 2560) - 1, cap) with cap 4 in column (16, 32); a second grid over every
// m from 17 to 24 at n = 16, capped at 2; and one point.
json small_model() {
  std::vector<uint8_t> shapes, splits;
  for (uint64_t v : {5, 48 / 16, 8000 / 16}) varint(shapes, v);  // 5 x 48 x 8000
  varint(splits, 1);
  varint(splits, 7);
  return {{"format", "mmaemu-split-k/1"},
          {"library", "test"},
          {"reference_sm_count", 132},
          {"devices", {{{"sm_count", 132}, {"gpus", {"H200"}}}}},
          {"rules",
           {{"k_per_slice", 2560}, {"workspace_n_alignment", 32}, {"workspace_extra_bytes", 16}}},
          {"grids",
           {{{"config", config(132, 1 << 20)},
             {"m", {8, 16, 8}},
             {"n", {16, 32, 16}},
             {"k", {128, 12800, 128}},
             {"runs", k_runs(4, [](int column) { return column == 3 ? 4 : 99; })},
             {"evidence", "test grid"}},
            {{"config", config(132, 1 << 20)},
             {"m", {17, 24, 1}},
             {"n", {16, 16, 16}},
             {"k", {128, 12800, 128}},
             {"runs", k_runs(8, [](int) { return 2; })},
             {"evidence", "every m"}}}},
          {"points",
           {{{"configs", {config(132, 1 << 20)}},
             {"shapes", base64(shapes)},
             {"splits", base64(splits)},
             {"evidence", "test point"}}}}};
}

SplitKConfig base_config() {
  SplitKConfig c;
  c.sm_count = 132;
  c.workspace_bytes = 1 << 20;
  return c;
}

}  // namespace

TEST_CASE("a split-K model decides by rules, swept cells and predictions", "[split-k]") {
  auto model = parse_split_k_model(small_model().dump(), "test model");
  REQUIRE(model.ok());
  const SplitKDecider decide(*model, base_config());

  // Rules, inside the envelope whatever the shape.
  auto d = decide.decide(4000, 4000, 5120);
  CHECK(d.splits == 1);
  CHECK(d.checked);
  CHECK_THAT(d.source, Catch::Contains("K = 5120"));
  d = decide.decide(4096, 4096, 65536);  // two slices of 4096 x 4096 x 4 bytes exceed 1 MiB
  CHECK(d.splits == 1);
  CHECK(d.checked);
  CHECK_THAT(d.source, Catch::Contains("workspace"));
  SplitKConfig rowwise = base_config();
  rowwise.rowwise = true;
  CHECK(SplitKDecider(*model, rowwise).decide(16, 16, 65536).splits == 1);
  // The same rules, without their text (sweep --skip-ruled asks only the rest).
  CHECK(decide.rule_for(4000, 4000, 5120) == SplitKRule::short_k);
  CHECK(decide.rule_for(16, 16, 5136) == SplitKRule::none);
  CHECK(decide.rule_for(4096, 4096, 65536) == SplitKRule::small_workspace);
  // Two slices of 2048 x 64 x 4 bytes and the 16 extra bytes just exceed 1 MiB.
  CHECK(decide.rule_for(2048, 64, 65536) == SplitKRule::small_workspace);
  CHECK(decide.rule_for(2047, 64, 65536) == SplitKRule::none);
  CHECK(SplitKDecider(*model, rowwise).rule_for(16, 16, 65536) == SplitKRule::rowwise);

  // The grid's cells are exact: 10240 -> ceil(10240 / 2560) - 1 = 3; column (16, 32) is capped
  // at 4.
  d = decide.decide(8, 16, 10240);
  CHECK(d.splits == 3);
  CHECK(d.checked);
  CHECK(decide.decide(16, 32, 12800).splits == 4);
  CHECK(decide.decide(16, 16, 12800).splits == 4);
  CHECK(decide.decide(16, 16, 12800 - 128).splits == 4);
  CHECK(decide.decide(8, 16, 7680).splits ==
        2);  // 7680 = 3 x 2560: a slice must hold more than 2560
  CHECK(decide.decide(8, 16, 7808).splits == 3);

  // The point is exact too.
  d = decide.decide(5, 48, 8000);
  CHECK(d.splits == 7);
  CHECK(d.checked);
  CHECK_THAT(d.source, Catch::Contains("test point"));

  // Between grid points: m up to the next multiple of 8, k up to the next multiple of 128.
  d = decide.decide(3, 16, 7696);  // as 8 x 16 x 7808
  CHECK_FALSE(d.checked);
  CHECK(d.splits == 3);
  CHECK_THAT(d.outside, Catch::Contains("predicted"));
  // Beyond the grid's last k where the column follows the K rule: the K rule goes on.
  CHECK(decide.decide(8, 16, 20480).splits == 7);
  // Beyond the grid's m or n: one slice, outside the envelope with the reason.
  d = decide.decide(100, 16, 8192);
  CHECK(d.splits == 1);
  CHECK_FALSE(d.checked);
  CHECK_THAT(d.outside, Catch::Contains("beyond"));

  // A grid over every m answers its own m and predicts between its k; it is not stretched over
  // the m below it.
  d = decide.decide(20, 16, 12800);
  CHECK(d.checked);
  CHECK(d.splits == 2);
  d = decide.decide(19, 16, 12700);
  CHECK_FALSE(d.checked);
  CHECK(d.splits == 2);
  CHECK_THAT(d.outside, Catch::Contains("m = 19, n = 16, k = 12800"));
  d = decide.decide(25, 16, 10240);
  CHECK(d.splits == 1);
  CHECK_THAT(d.outside, Catch::Contains("beyond every grid"));

  // Another SM count with no grid of its own: predicted from the nearest configuration's grid
  // (the same workspace), said so.
  SplitKConfig sm114 = base_config();
  sm114.sm_count = 114;
  d = SplitKDecider(*model, sm114).decide(3, 16, 7696);
  CHECK_FALSE(d.checked);
  CHECK(d.splits == 3);
  CHECK_THAT(d.outside, Catch::Contains("a grid of 132 SMs"));

  // Another workspace that allows a shape as many slices answers it exactly: at 4 MiB, 8 x 16 x
  // 10240 may take 3 slices, as at 1 MiB.
  SplitKConfig other = base_config();
  other.workspace_bytes = 4 << 20;
  d = SplitKDecider(*model, other).decide(8, 16, 10240);
  CHECK(d.checked);
  CHECK(d.splits == 3);
  CHECK_THAT(d.source, Catch::Contains("swept at 1048576 bytes of workspace"));
  // Where it allows fewer (4000 x 16 x 12800: 4 slices at 4 MiB, 2 at 1 MiB), no data, said so.
  d = SplitKDecider(*model, other).decide(4000, 16, 12800);
  CHECK_FALSE(d.checked);
  CHECK(d.splits == 1);
  CHECK_THAT(d.outside, Catch::Contains("no split-K data"));
  CHECK_THAT(d.outside, Catch::Contains("4 slices"));
  // Another output dtype at the same SM count and workspace is predicted from the grid.
  other = base_config();
  other.out_dtype = Format::f16;
  d = SplitKDecider(*model, other).decide(8, 16, 10240);
  CHECK(d.splits == 3);
  CHECK_FALSE(d.checked);
  CHECK_THAT(d.outside, Catch::Contains("a grid of 132 SMs"));
}

TEST_CASE("a prediction takes the row whose workspace allows the call's slices", "[split-k]") {
  // Rows m = 676 and 684 (8b - 4) at n = 96: 1 MiB holds four slices of 676 x 96 x 4 bytes, three
  // of 684's, where the heuristic took 2. m = 682 (whose row is 684) allows four, as the row below
  // does, and shares its ceil(m / 16): that row stands for it. m = 683 allows three, as its row.
  json m = small_model();
  m["grids"].push_back({{"config", config(132, 1 << 20)},
                        {"m", {676, 684, 8}},
                        {"n", {96, 96, 16}},
                        {"k", {128, 12800, 128}},
                        {"runs", k_runs(2, [](int column) { return column == 0 ? 4 : 2; })},
                        {"evidence", "a workspace boundary between rows"}});
  auto model = parse_split_k_model(m.dump(), "test model");
  REQUIRE(model.ok());
  const SplitKDecider decide(*model, base_config());
  auto d = decide.decide(682, 96, 12800);
  CHECK(d.splits == 4);
  CHECK_THAT(d.outside, Catch::Contains("at m = 676"));
  d = decide.decide(683, 96, 12800);
  CHECK(d.splits == 2);
  CHECK_THAT(d.outside, Catch::Contains("at m = 684"));
}

TEST_CASE("a malformed split-K model is refused with the field at fault", "[split-k]") {
  json m = small_model();
  m["grids"][0]["runs"] = "not base64!";
  auto r = parse_split_k_model(m.dump(), "bad model");
  REQUIRE_FALSE(r.ok());
  CHECK_THAT(r.error().message(), Catch::Contains("grids[0]: field 'runs' is not base64"));

  // An optional field of the wrong type is refused by name, like a required one.
  m = small_model();
  m["grids"][0]["evidence"] = 5;
  r = parse_split_k_model(m.dump(), "bad model");
  REQUIRE_FALSE(r.ok());
  CHECK_THAT(r.error().message(), Catch::Contains("grids[0]: field 'evidence' must be a string"));
  m = small_model();
  m["rules"] = {{"k_per_slice", 0}};
  r = parse_split_k_model(m.dump(), "bad model");
  REQUIRE_FALSE(r.ok());
  CHECK_THAT(r.error().message(), Catch::Contains("field 'rules.k_per_slice' must be an integer"));

  m = small_model();
  m["grids"][0]["k"] = {128, 12928, 128};  // one more k than the runs describe
  r = parse_split_k_model(m.dump(), "bad model");
  REQUIRE_FALSE(r.ok());
  CHECK_THAT(r.error().message(), Catch::Contains("does not describe column"));

  m = small_model();
  m["grids"][0]["m"] = {8, 20, 8};  // not whole steps
  r = parse_split_k_model(m.dump(), "bad model");
  REQUIRE_FALSE(r.ok());
  CHECK_THAT(r.error().message(), Catch::Contains("grids[0].m"));

  m = small_model();
  m["format"] = "something else";
  CHECK_FALSE(parse_split_k_model(m.dump(), "bad model").ok());

  m = small_model();
  m["points"][0]["configs"][0]["sm_count"] = 0;
  r = parse_split_k_model(m.dump(), "bad model");
  REQUIRE_FALSE(r.ok());
  CHECK_THAT(r.error().message(), Catch::Contains("sm_count"));
}

TEST_CASE("the hopper profile's model gives cuBLASLt's counts on the H200 and at 114 SMs",
          "[split-k][profile]") {
  auto hopper = load_profile("hopper");
  REQUIRE(hopper.ok());
  REQUIRE(hopper->split_k_model);
  const SplitKModel& model = *hopper->split_k_model;
  CHECK(model.reference_sm_count == 132);
  CHECK_THAT(model.describe_device(114), Catch::Contains("H100 PCIe"));
  const SplitKDecider h200(model, base_config());
  // The three split shapes of h200-dev, and shapes off the documented grid (swept densely).
  CHECK(h200.decide(128, 128, 8192).splits == 3);
  CHECK(h200.decide(64, 64, 16384).splits == 6);
  CHECK(h200.decide(16, 64, 32768).splits == 12);
  const auto off_grid = h200.decide(16, 64, 20480);
  CHECK(off_grid.checked);
  CHECK(off_grid.splits == 7);  // ceil(20480 / 2560) - 1
  SplitKConfig pcie = base_config();
  pcie.sm_count = 114;
  const SplitKDecider h100_pcie(model, pcie);
  // The SM count changes the choice: some shape of the swept region splits differently.
  bool differs = false;
  for (int64_t m = 64; m <= 512 && !differs; m += 64)
    for (int64_t n = 64; n <= 512 && !differs; n += 64)
      for (int64_t k = 8192; k <= 65536 && !differs; k += 8192) {
        const auto a = h200.decide(m, n, k), b = h100_pcie.decide(m, n, k);
        REQUIRE(a.checked);
        REQUIRE(b.checked);
        differs = a.splits != b.splits;
      }
  CHECK(differs);
}

TEST_CASE(
    "each GPU's calls take the model swept on it; a GPU none was swept on leaves the envelope",
    "[split-k][profile]") {
  auto hopper = load_profile("hopper");
  REQUIRE(hopper.ok());
  const SplitKModel& model = *hopper->split_k_model;
  CHECK(model.swept_on("NVIDIA H200"));
  CHECK(model.swept_on("NVIDIA H200 NVL"));
  CHECK_FALSE(model.swept_on("NVIDIA GH200 480GB"));
  CHECK_FALSE(model.swept_on("NVIDIA H100 80GB HBM3"));
  CHECK_FALSE(model.swept_on("NVIDIA H100 PCIe"));
  REQUIRE(hopper->split_k_gpu_models.size() == 1);
  CHECK(hopper->split_k_model_for("NVIDIA H100 80GB HBM3").name == "hopper-h100-sxm-split-k");
  CHECK_FALSE(hopper->split_k_model_for("NVIDIA H100 PCIe").swept_on_gpu);
  CHECK(hopper->split_k_model_for("").name == "hopper-split-k");
  // 64 x 512 x 65536 at 1 MiB: swept on both GPUs, 6 slices on the H200 and 5 on the H100 SXM
  // (dense-base of validation_logs/2026-12-03/split-k and of 2026-12-06/split-k-h100).
  std::vector<uint8_t> a(64 * 65536, 0x38), b(512 * 65536, 0x38);
  ScaledMmCall call;
  call.m = 64;
  call.n = 512;
  call.k = 65536;
  call.a = a;
  call.b = b;
  call.out_dtype = Format::bf16;
  ResolveOptions on_h200;
  on_h200.heuristic_gpu = "NVIDIA H200";
  auto h200 = hopper->resolve(call, on_h200);
  REQUIRE(h200.ok());
  CHECK(h200->envelope.inside);
  CHECK(h200->split_k == 6);
  ResolveOptions on_h100 = on_h200;
  on_h100.heuristic_gpu = "NVIDIA H100 80GB HBM3";
  auto h100 = hopper->resolve(call, on_h100);
  REQUIRE(h100.ok());
  CHECK(h100->envelope.inside);
  CHECK(h100->split_k == 5);
  CHECK_THAT(h100->split_k_source, Catch::Contains("hopper-h100-sxm-split-k"));
  ResolveOptions on_gh200 = on_h200;
  on_gh200.heuristic_gpu = "NVIDIA GH200 480GB";
  auto gh200 = hopper->resolve(call, on_gh200);
  REQUIRE(gh200.ok());
  CHECK(gh200->split_k == 6);  // the reference model's count, its best answer
  CHECK_FALSE(gh200->envelope.inside);
  CHECK_THAT(gh200->envelope.reason, Catch::Contains("GH200 480GB"));
}

TEST_CASE("a sweep log written from a sweep's answers reads back cell by cell", "[sweep]") {
  const std::vector<SweepKey> keys = {SweepKey{}, SweepKey{.workspace_bytes = 32 << 20,
                                                           .use_fast_accum = true,
                                                           .bias_dtype = Format::bf16,
                                                           .sm_count_target = 114}};
  HeuristicSweep sweep;
  sweep.algorithms = {AlgorithmConfig{.id = 66, .tile = 10, .splits = 1},
                      AlgorithmConfig{.id = 66, .tile = 10, .splits = 7, .reduction_scheme = 2}};
  const std::string about =
      R"({"format": "mmaemu-sweep/2", "environment": {"gpu": "NVIDIA H200", "multiprocessors": 132}})";
  const auto dir = std::filesystem::temp_directory_path() / "mmaemu-sweep-log-test";
  std::filesystem::create_directories(dir);
  // A grid: 2 keys x m {1, 16} x n {16} x k {4096, 65536}; answers in that order.
  SweepLogLayout grid{.m = {1, 16}, .n = {16}, .k = {4096, 65536}};
  const std::vector<int32_t> answers = {
      0, 1, 0, 1, HeuristicAnswer::kRuled, 1, 0, HeuristicAnswer::kNotAsked};
  for (int32_t a : answers) sweep.answers.push_back({a, a == 1 ? 4096u : 0u, 0.5f});
  REQUIRE(write_sweep_log(dir / "grid.safetensors", keys, sweep, grid, about).ok());
  auto log = SweepLog::read(dir / "grid.safetensors");
  REQUIRE(log.ok());
  CHECK(log->gpu() == "NVIDIA H200");
  CHECK(log->multiprocessors() == 132);
  REQUIRE(log->keys().size() == 2);
  CHECK(log->keys()[1].workspace_bytes == 32 << 20);
  CHECK(log->keys()[1].use_fast_accum);
  CHECK(log->keys()[1].bias_dtype == Format::bf16);
  CHECK(log->keys()[1].sm_count_target == 114);
  std::vector<std::tuple<uint32_t, int64_t, int64_t, int64_t, int>> seen;
  log->visit([&](uint32_t key, int64_t m, int64_t n, int64_t k, int splits) {
    seen.emplace_back(key, m, n, k, splits);
  });
  // Asked questions only (not the ruled or unasked ones), with their algorithm's split count.
  const std::vector<std::tuple<uint32_t, int64_t, int64_t, int64_t, int>> expected = {
      {0, 1, 16, 4096, 1},   {0, 1, 16, 65536, 7}, {0, 16, 16, 4096, 1},
      {0, 16, 16, 65536, 7}, {1, 1, 16, 65536, 7}, {1, 16, 16, 4096, 1}};
  CHECK(seen == expected);
  // A list: each question's key and shape.
  SweepLogLayout list{.list = {{0, 3, 48, 20480}, {1, 3, 48, 20480}}};
  sweep.answers = {{1, 4096, 0.1f}, {0, 0, 0.1f}};
  REQUIRE(write_sweep_log(dir / "list.safetensors", keys, sweep, list, about).ok());
  auto listed = SweepLog::read(dir / "list.safetensors");
  REQUIRE(listed.ok());
  seen.clear();
  listed->visit([&](uint32_t key, int64_t m, int64_t n, int64_t k, int splits) {
    seen.emplace_back(key, m, n, k, splits);
  });
  CHECK(seen == decltype(seen){{0, 3, 48, 20480, 7}, {1, 3, 48, 20480, 1}});
  // Answers that do not match the questions are refused, and nothing is written.
  sweep.answers.pop_back();
  auto refused = write_sweep_log(dir / "short.safetensors", keys, sweep, list, about);
  REQUIRE_FALSE(refused.ok());
  CHECK_THAT(refused.error().message(), Catch::Contains("1 answers for 2 questions"));
  CHECK_FALSE(std::filesystem::exists(dir / "short.safetensors"));
  std::filesystem::remove_all(dir);
}
