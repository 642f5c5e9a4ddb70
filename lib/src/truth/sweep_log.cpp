// Reading mmaemu-sweep/2 logs (what mmaemu sweep writes with --out FILE.safetensors) back, to check
// a split-K model against every swept cell.
#include <cstring>
#include <nlohmann/json.hpp>

#include "mmaemu/safetensors.hpp"
#include "mmaemu/sweep.hpp"
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
  const auto& [about, keys, algorithms] = parsed;
  try {
    if (about.value("format", "") != "mmaemu-sweep/2")
      return bad(path, "format is not mmaemu-sweep/2");
    SweepLog log;
    log.gpu_ = about.at("environment").value("gpu", "");
    log.multiprocessors_ = about.at("environment").value("multiprocessors", 0);
    log.grid_ = about.value("layout", "") == "grid";
    for (const auto& k : keys) {
      SweepKey key;
      key.workspace_bytes = k.at("workspace_bytes").get<int64_t>();
      key.rowwise = k.at("rowwise").get<bool>();
      key.use_fast_accum = k.at("use_fast_accum").get<bool>();
      for (auto [name, field] : {std::pair{"a_dtype", &key.a_dtype},
                                 {"b_dtype", &key.b_dtype},
                                 {"out_dtype", &key.out_dtype}}) {
        const auto f = format_from_name(k.at(name).get<std::string>());
        if (!f) return bad(path, std::string("a key's ") + name + " names no dtype");
        *field = *f;
      }
      if (k.contains("bias_dtype"))
        key.bias_dtype = format_from_name(k["bias_dtype"].get<std::string>());
      key.sm_count_target = k.value("sm_count_target", 0);
      log.keys_.push_back(key);
    }
    for (const auto& a : algorithms) log.algorithm_splits_.push_back(a.at("splitk_num").get<int>());
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
  } catch (const nlohmann::json::exception& e) {
    return bad(path, std::string("metadata: ") + e.what());
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
