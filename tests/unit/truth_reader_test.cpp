// The truth reader refuses what it must: tampered files, wrong hashes, malformed safetensors and
// manifests that disagree with their tensors, each with an error naming the file and the field.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <thread>

#include "../../lib/src/truth/json_object.hpp"
#include "mmaemu/profile.hpp"
#include "mmaemu/replay.hpp"
#include "mmaemu/safetensors.hpp"
#include "mmaemu/truth.hpp"
#include "truth_location.hpp"

using namespace mmaemu;
namespace fs = std::filesystem;

namespace {

// A one-file truth set copied from the bundled subset into a fresh temporary folder.
struct ScratchSet {
  fs::path dir;
  nlohmann::json manifest;
  std::vector<uint8_t> file;

  ScratchSet() {
    static int counter = 0;
    dir = fs::temp_directory_path() /
          ("mmaemu-truth-test-" + std::to_string(getpid()) + "-" + std::to_string(counter++));
    fs::create_directories(dir);
    const fs::path source = testing::bundled_truth();
    std::ifstream in(source / "manifest.json");
    nlohmann::json full = nlohmann::json::parse(in);
    manifest = full;
    manifest["files"] = {{"dev_001.safetensors", full["files"]["dev_001.safetensors"]}};
    manifest["recordings"] = nlohmann::json::array();
    for (const auto& r : full["recordings"])
      if (r["file"] == "dev_001.safetensors") manifest["recordings"].push_back(r);
    auto bytes = read_file_bytes(source / "dev_001.safetensors");
    REQUIRE(bytes.ok());
    file = *bytes;
  }
  ~ScratchSet() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  // Writes the set; `rehash` makes the manifest agree with the (possibly edited) file.
  void write(bool rehash) {
    if (rehash) manifest["files"]["dev_001.safetensors"] = sha256_bytes(file);
    std::ofstream(dir / "dev_001.safetensors", std::ios::binary)
        .write(reinterpret_cast<const char*>(file.data()),
               static_cast<std::streamsize>(file.size()));
    std::ofstream(dir / "manifest.json") << manifest.dump(1);
  }
  // Replaces the safetensors header with `header` (keeping the data section).
  void set_header(const nlohmann::json& header) {
    uint64_t old_length = 0;
    for (int i = 0; i < 8; ++i) old_length |= uint64_t{file[i]} << (8 * i);
    std::vector<uint8_t> data(file.begin() + 8 + static_cast<long>(old_length), file.end());
    const std::string text = header.dump();
    file.assign(8, 0);
    for (int i = 0; i < 8; ++i) file[i] = static_cast<uint8_t>(uint64_t{text.size()} >> (8 * i));
    file.insert(file.end(), text.begin(), text.end());
    file.insert(file.end(), data.begin(), data.end());
  }
  nlohmann::json header() const {
    uint64_t length = 0;
    for (int i = 0; i < 8; ++i) length |= uint64_t{file[i]} << (8 * i);
    return nlohmann::json::parse(file.begin() + 8, file.begin() + 8 + static_cast<long>(length));
  }
  // Loads the set and replays its first recording; returns the first error.
  std::optional<Error> load_and_replay() const {
    auto set = load_truth_set(dir);
    if (!set) return set.error();
    auto profile = load_profile("hopper");
    REQUIRE(profile.ok());
    auto replay = replay_scaled_mm(*set, set->recordings.front(), *profile);
    if (!replay) return replay.error();
    return std::nullopt;
  }
};

}  // namespace

TEST_CASE("an untouched copy loads and replays bit-exact", "[truth]") {
  ScratchSet s;
  s.write(false);
  auto set = load_truth_set(s.dir);
  REQUIRE(set.ok());
  REQUIRE(set->recordings.size() == 12);
  auto profile = load_profile("hopper");
  REQUIRE(profile.ok());
  for (const auto& r : set->recordings) {
    auto replay = replay_scaled_mm(*set, r, *profile);
    REQUIRE(replay.ok());
    CHECK(replay->comparison.bit_exact());
  }
}

TEST_CASE("a tampered file is refused, naming it", "[truth]") {
  ScratchSet s;
  s.file[s.file.size() / 2] ^= 1;
  s.write(false);
  auto error = s.load_and_replay();
  REQUIRE(error);
  CHECK(error->code() == Errc::hash_mismatch);
  CHECK_THAT(error->message(), Catch::Contains("dev_001.safetensors"));
}

TEST_CASE("a wrong hash in the manifest is refused", "[truth]") {
  ScratchSet s;
  s.manifest["files"]["dev_001.safetensors"] = std::string(64, '0');
  s.write(false);
  auto error = s.load_and_replay();
  REQUIRE(error);
  CHECK(error->code() == Errc::hash_mismatch);
}

TEST_CASE("a truncated header is an error, not a crash", "[truth]") {
  ScratchSet s;
  s.file.resize(40);
  s.write(true);
  auto error = s.load_and_replay();
  REQUIRE(error);
  CHECK(error->code() == Errc::malformed);
  CHECK_THAT(error->message(), Catch::Contains("truncated"));
}

TEST_CASE("an unknown dtype is named", "[truth]") {
  ScratchSet s;
  auto h = s.header();
  h["a"]["dtype"] = "F7_E3M3";
  s.set_header(h);
  s.write(true);
  auto error = s.load_and_replay();
  REQUIRE(error);
  CHECK(error->code() == Errc::malformed);
  CHECK_THAT(error->message(), Catch::Contains("unknown dtype 'F7_E3M3'"));
}

TEST_CASE("an unknown dtype in the manifest is named", "[truth]") {
  ScratchSet s;
  s.manifest["recordings"][0]["a_dtype"] = "f4_e2m1";
  s.write(false);
  auto error = s.load_and_replay();
  REQUIRE(error);
  CHECK_THAT(error->message(), Catch::Contains("a_dtype"));
}

TEST_CASE("a shape that disagrees with the manifest is named", "[truth]") {
  ScratchSet s;
  s.manifest["recordings"][0]["k"] = 64;
  s.write(false);
  auto error = s.load_and_replay();
  REQUIRE(error);
  CHECK(error->code() == Errc::malformed);
  CHECK_THAT(error->message(), Catch::Contains("tensor 'a' has shape [16, 32]"));
}

TEST_CASE("data offsets past the end are refused", "[truth]") {
  ScratchSet s;
  auto h = s.header();
  h["out_c00"]["data_offsets"][1] = 1u << 30;
  s.set_header(h);
  s.write(true);
  auto error = s.load_and_replay();
  REQUIRE(error);
  CHECK(error->code() == Errc::malformed);
}

TEST_CASE("tensors that share bytes are refused, naming both", "[truth]") {
  ScratchSet s;
  auto h = s.header();
  // b starts where a does: the same bytes claimed twice (sizes unchanged, so only the overlap is
  // wrong).
  const uint64_t a_begin = h["a"]["data_offsets"][0];
  const uint64_t b_size =
      h["b"]["data_offsets"][1].get<uint64_t>() - h["b"]["data_offsets"][0].get<uint64_t>();
  h["b"]["data_offsets"] = {a_begin, a_begin + b_size};
  s.set_header(h);
  s.write(true);
  auto error = s.load_and_replay();
  REQUIRE(error);
  CHECK(error->code() == Errc::malformed);
  CHECK_THAT(error->message(), Catch::Contains("overlap"));
}

TEST_CASE("two recordings of one id are refused", "[truth]") {
  ScratchSet s;
  s.manifest["recordings"][1]["id"] = s.manifest["recordings"][0]["id"];
  s.write(false);
  auto error = s.load_and_replay();
  REQUIRE(error);
  CHECK(error->code() == Errc::malformed);
  CHECK_THAT(error->message(), Catch::Contains("used by an earlier recording"));
}

TEST_CASE("a file changed after the set was loaded is refused when it is read", "[truth]") {
  ScratchSet s;
  s.write(true);
  auto set = load_truth_set(s.dir);
  REQUIRE(set.ok());
  // Altered between the load and the replay: the bytes replayed are the bytes checked.
  s.file[s.file.size() / 2] ^= 1;
  s.write(false);
  auto file = open_recording_file(*set, set->recordings.front());
  REQUIRE_FALSE(file.ok());
  CHECK(file.error().code() == Errc::hash_mismatch);
}

TEST_CASE("JSON nested past the limit is refused before it is parsed", "[truth]") {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  ScratchSet s;
  std::string manifest = s.manifest.dump();
  manifest.insert(manifest.rfind('}'), ", \"deep\": " + deep);
  s.write(true);
  std::ofstream(s.dir / "manifest.json") << manifest;
  auto set = load_truth_set(s.dir);
  REQUIRE_FALSE(set.ok());
  CHECK(set.error().code() == Errc::malformed);
  CHECK_THAT(set.error().message(), Catch::Contains("nests deeper than 64"));
  auto profile = parse_profile(deep, "deep.json");
  REQUIRE_FALSE(profile.ok());
  CHECK_THAT(profile.error().message(), Catch::Contains("nests deeper"));
  // A safetensors header of unclosed brackets.
  std::vector<uint8_t> file(8, 0);
  const std::string header(1000, '[');
  for (int i = 0; i < 8; ++i) file[i] = static_cast<uint8_t>(uint64_t{header.size()} >> (8 * i));
  file.insert(file.end(), header.begin(), header.end());
  auto st = SafetensorsFile::parse(file, "deep.safetensors");
  REQUIRE_FALSE(st.ok());
  CHECK_THAT(st.error().message(), Catch::Contains("nests deeper"));
  // Brackets inside strings do not count.
  CHECK(json_nesting("{\"a\": \"[[[[[[\\\"]\"}") == 1);
  CHECK(json_nesting(std::string(64, '[')) == 64);
}

TEST_CASE("JSON that does not parse is refused with the parser's reason, escaped", "[truth]") {
  // Invalid UTF-8 in a profile: the reason names it, and the message itself stays UTF-8.
  auto profile = parse_profile("{\"name\": \"\xff\"}", "bad.json");
  REQUIRE_FALSE(profile.ok());
  CHECK(profile.error().code() == Errc::malformed);
  CHECK_THAT(profile.error().message(), Catch::Contains("not valid JSON") &&
                                            Catch::Contains("UTF-8") && Catch::Contains("\\xFF"));
  CHECK(profile.error().message().find('\xff') == std::string::npos);
  // A safetensors header cut short says where.
  std::vector<uint8_t> file(8, 0);
  const std::string header = "{\"a\": [1, 2";
  for (int i = 0; i < 8; ++i) file[i] = static_cast<uint8_t>(uint64_t{header.size()} >> (8 * i));
  file.insert(file.end(), header.begin(), header.end());
  auto st = SafetensorsFile::parse(file, "cut.safetensors");
  REQUIRE_FALSE(st.ok());
  CHECK_THAT(st.error().message(),
             Catch::Contains("header is not valid JSON") && Catch::Contains("column"));
  // Valid JSON that is not an object keeps its own message.
  CHECK_THAT(parse_profile("[1]", "array.json").error().message(),
             Catch::Contains("not a JSON object"));
}

TEST_CASE("a zero-sized tensor counts zero elements whatever its other dimensions", "[truth]") {
  TensorInfo t;
  t.shape = {int64_t{1} << 40, int64_t{1} << 40, 0};
  CHECK(t.element_count() == 0);
  t.shape = {3, 5};
  CHECK(t.element_count() == 15);
}

TEST_CASE("every truncation and random corruption of a safetensors file fails cleanly", "[truth]") {
  ScratchSet s;
  for (size_t length = 0; length < s.file.size(); length += (length < 600 ? 1 : 97)) {
    std::vector<uint8_t> cut(s.file.begin(), s.file.begin() + static_cast<long>(length));
    auto parsed = SafetensorsFile::parse(cut, "cut");
    if (length < s.file.size()) CHECK_FALSE(parsed.ok());
  }
  std::mt19937 rng(42);
  for (int trial = 0; trial < 2000; ++trial) {
    std::vector<uint8_t> bad = s.file;
    for (int flips = 0; flips < 4; ++flips)
      bad[rng() % std::min<size_t>(bad.size(), 700)] = static_cast<uint8_t>(rng());
    auto parsed = SafetensorsFile::parse(bad, "corrupt");
    if (parsed.ok())
      for (const auto& t : parsed->tensors()) CHECK(parsed->data(t).size() == t.end - t.begin);
  }
}

TEST_CASE("write_safetensors round-trips and leaves no temporary file", "[truth]") {
  ScratchSet s;
  const std::vector<uint8_t> bytes = {1, 2, 3, 4, 5, 6, 7, 8};
  const TensorToWrite t{"x", "BF16", {2, 2}, bytes};
  REQUIRE(write_safetensors(s.dir / "x.safetensors", std::span(&t, 1), {{"k", "v"}}).ok());
  auto back = SafetensorsFile::read(s.dir / "x.safetensors");
  REQUIRE(back.ok());
  REQUIRE(back->find("x") != nullptr);
  CHECK(back->metadata().at("k") == "v");
  auto data = back->data(*back->find("x"));
  CHECK(std::vector<uint8_t>(data.begin(), data.end()) == bytes);
  int files = 0;
  for (auto& e : fs::directory_iterator(s.dir))
    files += e.path().filename() == "x.safetensors" ? 1 : 10;
  CHECK(files == 1);
  const TensorToWrite wrong{"y", "BF16", {3}, bytes};
  CHECK_FALSE(write_safetensors(s.dir / "y.safetensors", std::span(&wrong, 1)).ok());
  CHECK_FALSE(fs::exists(s.dir / "y.safetensors"));
}

TEST_CASE("a write interrupted by the signal cleanup leaves no temporary file", "[io]") {
  // What mmaemu's SIGINT/SIGTERM handler does, called while a large write is under way: the
  // temporary file is gone, the write reports failure, and the output was never created.
  const auto dir = std::filesystem::temp_directory_path() / "mmaemu-temp-cleanup-test";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const auto out = dir / "big.bin";
  std::vector<uint8_t> bytes(size_t{768} << 20, 0x5A);
  Result<void> written;
  std::thread writer(
      [&] { written = write_file_atomically(out, std::span<const uint8_t>(bytes)); });
  bool seen = false;
  for (int i = 0; i < 20000 && !seen; ++i) {
    for (const auto& e : std::filesystem::directory_iterator(dir))
      seen |= e.path().filename().string().starts_with("big.bin.tmp");
    if (!seen) std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
  REQUIRE(seen);
  remove_pending_temp_files();
  writer.join();
  CHECK_FALSE(written.ok());
  CHECK_FALSE(std::filesystem::exists(out));
  int left = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++left;
  CHECK(left == 0);
  // And a write after it works as before.
  REQUIRE(write_file_atomically(out, std::string_view("ok")).ok());
  std::filesystem::remove_all(dir);
}
