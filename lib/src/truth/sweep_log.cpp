// mmaemu-sweep/2 logs (what mmaemu sweep writes with --out FILE.safetensors): written from a
// sweep's answers, and read back to check a split-K model against every swept cell.
#include <fmt/format.h>

#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>

#include "mmaemu/safetensors.hpp"
#include "mmaemu/tools/sweep.hpp"
#include "truth/json_fields.hpp"
#include "truth/json_object.hpp"

namespace mmaemu {

SplitKConfig split_k_config(const SweepKey& key, int multiprocessors) {
  SplitKConfig c;
  c.sm_count = key.sm_count_target > 0 ? key.sm_count_target : multiprocessors;
  c.workspace_bytes = key.workspace_bytes;
  c.rowwise = key.rowwise;
  c.use_fast_accum = key.use_fast_accum;
  c.a_dtype = key.a_dtype;
  c.b_dtype = key.b_dtype;
  c.out_dtype = key.out_dtype;
  c.bias_dtype = key.bias_dtype;
  return c;
}

RecordCall record_call(const SweepKey& key, int64_t m, int64_t n, int64_t k) {
  RecordCall c;
  c.m = m;
  c.n = n;
  c.k = k;
  c.a_dtype = key.a_dtype;
  c.b_dtype = key.b_dtype;
  c.out_dtype = key.out_dtype;
  c.use_fast_accum = key.use_fast_accum;
  c.rowwise = key.rowwise;
  c.bias_dtype = key.bias_dtype;
  c.sm_count_target = key.sm_count_target;
  c.workspace_bytes = key.workspace_bytes;
  return c;
}
namespace {

Error bad(const std::filesystem::path& path, const std::string& what) {
  return Error(Errc::malformed, path.string() + ": " + what);
}

template <class T>
Result<std::vector<T>> column(const SafetensorsFile& file, const std::filesystem::path& path,
                              const char* name, const char* dtype) {
  const TensorInfo* t = file.find(name);
  if (!t || t->dtype != dtype)
    return bad(path, std::string("tensor '") + name + "' must be " + dtype);
  const auto bytes = file.data(*t);
  std::vector<T> out(bytes.size() / sizeof(T));
  std::memcpy(out.data(), bytes.data(), out.size() * sizeof(T));
  return out;
}

}  // namespace

std::string sweep_key_json(const SweepKey& k) {
  nlohmann::json j = {
      {"workspace_bytes", k.workspace_bytes}, {"rowwise", k.rowwise},
      {"use_fast_accum", k.use_fast_accum},   {"a_dtype", describe(k.a_dtype).name},
      {"b_dtype", describe(k.b_dtype).name},  {"out_dtype", describe(k.out_dtype).name}};
  if (k.bias_dtype) j["bias_dtype"] = describe(*k.bias_dtype).name;
  if (k.sm_count_target > 0) j["sm_count_target"] = k.sm_count_target;
  return j.dump();
}

namespace {

template <class T>
std::span<const uint8_t> bytes_of_vector(const std::vector<T>& v) {
  return {reinterpret_cast<const uint8_t*>(v.data()), v.size() * sizeof(T)};
}

}  // namespace

Result<void> write_sweep_log(const std::filesystem::path& path, const std::vector<SweepKey>& keys,
                             const HeuristicSweep& sweep, const SweepLogLayout& layout,
                             const std::string& about_text) {
  const size_t count = layout.questions(keys.size());
  if (sweep.answers.size() != count)
    return Error(Errc::internal, fmt::format("sweep log: {} answers for {} questions",
                                             sweep.answers.size(), count));
  if (keys.size() > std::numeric_limits<uint16_t>::max())
    return Error(Errc::invalid_argument, "sweep log: more than 65535 configurations");
  std::vector<int32_t> algorithm(count);
  std::vector<uint32_t> workspace(count);
  std::vector<float> waves(count);
  for (size_t i = 0; i < count; ++i) {
    const HeuristicAnswer& a = sweep.answers[i];
    if (a.workspace_bytes > std::numeric_limits<uint32_t>::max())
      return Error(Errc::internal, fmt::format("sweep log: the heuristic asked for {} bytes of "
                                               "workspace",
                                               a.workspace_bytes));
    algorithm[i] = a.algorithm;
    workspace[i] = static_cast<uint32_t>(a.workspace_bytes);
    waves[i] = a.waves;
  }
  nlohmann::json algorithms = nlohmann::json::array();
  for (const AlgorithmConfig& c : sweep.algorithms) {
    nlohmann::json a = nlohmann::json::object();
    for (const auto& [name, value] : c.attributes()) a[name] = value;
    algorithms.push_back(a);
  }
  nlohmann::json keys_json = nlohmann::json::array();
  for (const SweepKey& key : keys) keys_json.push_back(nlohmann::json::parse(sweep_key_json(key)));
  nlohmann::json about = nlohmann::json::parse(about_text, nullptr, false);
  if (!about.is_object()) return Error(Errc::internal, "sweep log: 'about' is not a JSON object");
  about["layout"] = layout.is_list() ? "list" : "grid";
  std::vector<uint16_t> key_column;
  std::vector<int32_t> m_column, n_column, k_column;
  std::vector<int64_t> shape;
  if (layout.is_list()) {
    for (const auto& q : layout.list) {
      key_column.push_back(static_cast<uint16_t>(q.key));
      m_column.push_back(static_cast<int32_t>(q.m));
      n_column.push_back(static_cast<int32_t>(q.n));
      k_column.push_back(static_cast<int32_t>(q.k));
    }
    shape = {static_cast<int64_t>(count)};
  } else {
    m_column.assign(layout.m.begin(), layout.m.end());
    n_column.assign(layout.n.begin(), layout.n.end());
    k_column.assign(layout.k.begin(), layout.k.end());
    shape = {static_cast<int64_t>(keys.size()), static_cast<int64_t>(m_column.size()),
             static_cast<int64_t>(n_column.size()), static_cast<int64_t>(k_column.size())};
  }
  std::vector<TensorToWrite> tensors;
  if (layout.is_list()) tensors.push_back({"key", "U16", shape, bytes_of_vector(key_column)});
  for (auto [name, column] : {std::pair{"m", &m_column}, {"n", &n_column}, {"k", &k_column}})
    tensors.push_back(
        {name, "I32", {static_cast<int64_t>(column->size())}, bytes_of_vector(*column)});
  tensors.push_back({"algorithm", "I32", shape, bytes_of_vector(algorithm)});
  tensors.push_back({"workspace", "U32", shape, bytes_of_vector(workspace)});
  tensors.push_back({"waves", "F32", shape, bytes_of_vector(waves)});
  const std::map<std::string, std::string> metadata = {
      {"mmaemu", about.dump()}, {"keys", keys_json.dump()}, {"algorithms", algorithms.dump()}};
  return write_safetensors(path, tensors, metadata);
}

Result<SweepLog> SweepLog::read(const std::filesystem::path& path) {
  auto file = SafetensorsFile::read(path);
  if (!file) return file.error();
  const auto& meta = file->metadata();
  // JSON inside strings of the header, bounded and parsed as every other JSON (parse_json).
  nlohmann::json parsed[3];
  const char* names[3] = {"mmaemu", "keys", "algorithms"};
  for (int i = 0; i < 3; ++i) {
    if (!meta.count(names[i]))
      return bad(path, std::string("metadata lacks '") + names[i] + "': not an mmaemu-sweep/2 log");
    auto j =
        parse_json(meta.at(names[i]), path.string(), std::string("metadata '") + names[i] + "'");
    if (!j) return j.error();
    parsed[i] = std::move(j).value();
  }
  const auto& [about_json, keys, algorithms] = parsed;
  if (!about_json.is_object() || !keys.is_array() || !algorithms.is_array())
    return bad(path, "metadata 'mmaemu' must be an object, 'keys' and 'algorithms' arrays");
  const JsonFields about(about_json, path.string() + ": metadata 'mmaemu'");
  std::string format, layout;
  MMAEMU_TRY(format, about.string("format", ""));
  if (format != "mmaemu-sweep/2") return bad(path, "format is not mmaemu-sweep/2");
  SweepLog log;
  auto environment = about.object("environment");
  if (!environment) return environment.error();
  MMAEMU_TRY(log.gpu_, environment->string("gpu", ""));
  MMAEMU_TRY(log.multiprocessors_, environment->integer("multiprocessors", 0, 4096, 0));
  MMAEMU_TRY(layout, about.string("layout", ""));
  log.grid_ = layout == "grid";
  for (size_t i = 0; i < keys.size(); ++i) {
    const JsonFields k(keys[i], path.string() + ": metadata 'keys'[" + std::to_string(i) + "]");
    if (!k.is_object()) return bad(path, "metadata 'keys' must hold objects");
    SweepKey key;
    MMAEMU_TRY(key.workspace_bytes, k.integer("workspace_bytes", 0, int64_t{1} << 40));
    MMAEMU_TRY(key.rowwise, k.boolean("rowwise"));
    MMAEMU_TRY(key.use_fast_accum, k.boolean("use_fast_accum"));
    MMAEMU_TRY(key.a_dtype, k.format("a_dtype"));
    MMAEMU_TRY(key.b_dtype, k.format("b_dtype"));
    MMAEMU_TRY(key.out_dtype, k.format("out_dtype"));
    MMAEMU_TRY(key.bias_dtype, k.format("bias_dtype", std::nullopt));
    MMAEMU_TRY(key.sm_count_target, k.integer("sm_count_target", 0, 4096, 0));
    log.keys_.push_back(key);
  }
  for (size_t i = 0; i < algorithms.size(); ++i) {
    const JsonFields a(algorithms[i],
                       path.string() + ": metadata 'algorithms'[" + std::to_string(i) + "]");
    int64_t splits;
    MMAEMU_TRY(splits, a.integer("splitk_num", 1, 4096));
    log.algorithm_splits_.push_back(static_cast<int>(splits));
  }
  {
    auto m = column<int32_t>(*file, path, "m", "I32"), n = column<int32_t>(*file, path, "n", "I32"),
         k = column<int32_t>(*file, path, "k", "I32");
    auto algorithm = column<int32_t>(*file, path, "algorithm", "I32");
    if (!m) return m.error();
    if (!n) return n.error();
    if (!k) return k.error();
    if (!algorithm) return algorithm.error();
    log.m_.assign(m->begin(), m->end());
    log.n_.assign(n->begin(), n->end());
    log.k_.assign(k->begin(), k->end());
    log.algorithm_ = std::move(algorithm).value();
    if (log.grid_) {
      if (log.algorithm_.size() != log.keys_.size() * log.m_.size() * log.n_.size() * log.k_.size())
        return bad(path, "algorithm does not hold keys x m x n x k answers");
    } else {
      auto key = column<uint16_t>(*file, path, "key", "U16");
      if (!key) return key.error();
      log.key_ = std::move(key).value();
      if (log.key_.size() != log.algorithm_.size() || log.m_.size() != log.algorithm_.size() ||
          log.n_.size() != log.algorithm_.size() || log.k_.size() != log.algorithm_.size())
        return bad(path, "the list's columns differ in length");
    }
    for (int32_t a : log.algorithm_)
      if (a < HeuristicAnswer::kRuled || a >= static_cast<int32_t>(log.algorithm_splits_.size()))
        return bad(path, "an answer names no algorithm");
    for (uint16_t q : log.key_)
      if (q >= log.keys_.size()) return bad(path, "a question names no key");
    return log;
  }
}

size_t SweepLog::cells() const {
  return algorithm_.size();
}

void SweepLog::visit(
    const std::function<void(uint32_t, int64_t, int64_t, int64_t, int)>& visit) const {
  auto splits = [&](int32_t a) { return a >= 0 ? algorithm_splits_[static_cast<size_t>(a)] : 0; };
  if (!grid_) {
    for (size_t i = 0; i < algorithm_.size(); ++i)
      if (algorithm_[i] >= HeuristicAnswer::kNothing)
        visit(key_[i], m_[i], n_[i], k_[i], splits(algorithm_[i]));
    return;
  }
  size_t i = 0;
  for (uint32_t q = 0; q < keys_.size(); ++q)
    for (int64_t m : m_)
      for (int64_t n : n_)
        for (int64_t k : k_) {
          if (algorithm_[i] >= HeuristicAnswer::kNothing) visit(q, m, n, k, splits(algorithm_[i]));
          ++i;
        }
}

}  // namespace mmaemu
