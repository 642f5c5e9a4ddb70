// The probed instructions and the crafted input classes. Each class draws (a row, b column, c)
// triples aimed at some parameters; values are built from (sign, exponent, fraction) so that the
// spread between terms is controlled, then encoded exactly in the operand format.
#include <algorithm>
#include <random>

#include "mmaemu/exact.hpp"
#include "mmaemu/tools/probe.hpp"

namespace mmaemu {

const std::vector<ProbeInstruction>& probe_instructions() {
  static const std::vector<ProbeInstruction> list = [] {
    std::vector<ProbeInstruction> v;
    const std::pair<Format, const char*> fp8[] = {{Format::f8_e4m3, "e4m3"},
                                                  {Format::f8_e5m2, "e5m2"}};
    for (auto [fa, na] : fp8)
      for (auto [fb, nb] : fp8)
        for (int scale_d : {1, 0}) {
          ProbeInstruction p;
          p.name = std::string("wgmma.m64n8k32.") + na + "." + nb + " (scale-d " +
                   std::to_string(scale_d) + ")";
          p.kernel = std::string("probe_wgmma_m64n8k32_") + na + "_" + nb;
          p.m = 64;
          p.a_format = fa;
          p.b_format = fb;
          p.warpgroup = true;
          p.reads_c = scale_d == 1;
          p.min_compute = 90;
          p.arch_specific = true;
          v.push_back(p);
        }
    for (auto [fa, na] : fp8)
      for (auto [fb, nb] : fp8) {
        ProbeInstruction p;
        p.name = std::string("mma.sync.m16n8k32.") + na + "." + nb;
        p.kernel = std::string("probe_mma_m16n8k32_") + na + "_" + nb;
        p.a_format = fa;
        p.b_format = fb;
        p.min_compute = 89;
        v.push_back(p);
      }
    for (auto [f, name] : {std::pair{Format::f16, "f16"}, {Format::bf16, "bf16"}}) {
      ProbeInstruction p;
      p.name = std::string("mma.sync.m16n8k16.") + name;
      p.kernel = std::string("probe_mma_m16n8k16_") + name;
      p.k = 16;
      p.a_format = p.b_format = f;
      v.push_back(p);
    }
    ProbeInstruction t;
    t.name = "mma.sync.m16n8k8.tf32";
    t.kernel = "probe_mma_m16n8k8_tf32";
    t.k = 8;
    t.a_format = t.b_format = Format::tf32;
    v.push_back(t);
    return v;
  }();
  return list;
}

const std::vector<std::string>& probe_classes() {
  static const std::vector<std::string> names = {"layout", "normal",   "wide",        "alignment",
                                                 "cancel", "rounding", "c_dominant",  "subnormal",
                                                 "tiny",   "special",  "signed_zero", "overflow"};
  return names;
}

namespace {

struct Triple {
  std::vector<uint32_t> a, b;
  uint32_t c = 0;
};

class Generator {
 public:
  Generator(const ProbeInstruction& in, const Preset& preset, uint64_t seed)
      : fa_(in.a_format),
        fb_(in.b_format),
        k_(in.k),
        window_(preset.alignment_fraction_bits),
        floor_(preset.f32_result.exponent_floor),
        rng_(seed) {}

  Triple draw(const std::string& cls) {
    Triple t{std::vector<uint32_t>(k_), std::vector<uint32_t>(k_), 0};
    if (cls == "layout")
      layout(t);
    else if (cls == "normal")
      normal(t);
    else if (cls == "wide")
      wide(t);
    else if (cls == "alignment")
      spread(t, false);
    else if (cls == "cancel")
      spread(t, true);
    else if (cls == "rounding")
      rounding(t);
    else if (cls == "c_dominant")
      c_dominant(t);
    else if (cls == "subnormal")
      subnormal(t);
    else if (cls == "tiny")
      tiny(t);
    else if (cls == "special")
      special(t);
    else if (cls == "signed_zero")
      signed_zero(t);
    else
      overflow(t);
    return t;
  }

 private:
  Format fa_, fb_;
  int k_, window_;
  std::optional<int> floor_;
  std::mt19937_64 rng_;

  int uniform(int lo, int hi) {
    return lo + static_cast<int>(rng_() % static_cast<uint64_t>(hi - lo + 1));
  }
  bool coin() { return rng_() & 1; }

  // A finite value (-1)^neg * 1.fraction * 2^exponent in `f`, the fraction random; exponents
  // below the normal range give subnormals (low bits cut), above it the largest binade.
  uint32_t value(Format f, bool neg, int exponent, bool random_fraction = true) {
    const FormatDesc& d = describe(f);
    exponent = std::clamp(exponent, d.min_exponent() - d.fraction_bits, d.max_exponent());
    const uint64_t fraction = random_fraction ? rng_() & ((uint64_t{1} << d.fraction_bits) - 1) : 0;
    const ExactValue v = ExactValue::finite(neg, (uint64_t{1} << d.fraction_bits) | fraction,
                                            exponent - d.fraction_bits);
    return encode(f, v, {Rounding::toward_zero, Overflow::saturate, -1});
  }
  uint32_t from_double(Format f, double x) {
    return encode(f, ExactValue::from_double(x), {Rounding::nearest_even, Overflow::saturate, -1});
  }
  uint32_t zero(Format f, bool neg) { return encode(f, ExactValue::zero(neg)); }
  int emin(Format f) const { return describe(f).min_exponent(); }
  int emax(Format f) const { return describe(f).max_exponent(); }

  // Operand exponents (ea, eb) whose sum is the product exponent `pe`, both in the normal range.
  std::pair<int, int> split(int pe) {
    const int lo = std::max(emin(fa_), pe - emax(fb_)), hi = std::min(emax(fa_), pe - emin(fb_));
    const int ea = lo <= hi ? uniform(lo, hi) : std::clamp(pe / 2, emin(fa_), emax(fa_));
    return {ea, pe - ea};
  }
  void product(Triple& t, int i, bool neg, int pe) {
    auto [ea, eb] = split(pe);
    t.a[i] = value(fa_, neg, ea);
    t.b[i] = value(fb_, false, eb);
  }
  uint32_t c_at(int exponent) { return value(Format::f32, coin(), exponent); }

  void layout(Triple& t) {
    for (int i = 0; i < k_; ++i) {
      t.a[i] = rng_() % 4 == 0 ? zero(fa_, false) : value(fa_, coin(), uniform(-1, 1), false);
      t.b[i] = rng_() % 4 == 0 ? zero(fb_, false) : value(fb_, coin(), uniform(-1, 1), false);
    }
    t.c = from_double(Format::f32, uniform(-4, 4));
  }
  void normal(Triple& t) {
    std::normal_distribution<double> n(0.0, 1.0);
    for (int i = 0; i < k_; ++i) {
      t.a[i] = from_double(fa_, n(rng_));
      t.b[i] = from_double(fb_, n(rng_));
    }
    t.c = from_double(Format::f32, 4 * n(rng_));
  }
  uint32_t any_finite(Format f) {
    const FormatDesc& d = describe(f);
    for (;;) {
      uint32_t x = static_cast<uint32_t>(rng_()) &
                   ((d.storage_bits == 32 ? 0 : (uint32_t{1} << d.storage_bits)) - 1);
      if (f == Format::tf32) x &= ~uint32_t{0x1FFF};
      if (decode(f, x).is_finite()) return x;
    }
  }
  void wide(Triple& t) {
    for (int i = 0; i < k_; ++i) {
      t.a[i] = any_finite(fa_);
      t.b[i] = any_finite(fb_);
    }
    t.c = c_at(uniform(-20, 20));
  }
  // The largest product exponent that leaves room for terms `window + 4` binades below it.
  int top() const {
    const int pmin = emin(fa_) + emin(fb_), pmax = emax(fa_) + emax(fb_);
    return std::min(pmax - 1, pmin + window_ + 6);
  }
  void spread(Triple& t, bool cancel) {
    const int e = top();
    product(t, 0, coin(), e);
    int first = 1;
    if (cancel && k_ > 1) {
      t.a[1] = t.a[0] ^ describe(fa_).sign_mask();
      t.b[1] = t.b[0];
      first = 2;
    }
    for (int i = first; i < k_; ++i) {
      const int d = rng_() % 3 == 0 ? uniform(1, window_) : uniform(window_ - 4, window_ + 3);
      product(t, i, coin(), e - d);
    }
    t.c = coin() ? 0 : c_at(e - uniform(1, window_ + 3));
  }
  void rounding(Triple& t) {
    const int e = top() - 2;
    for (int i = 0; i < k_; ++i) product(t, i, coin(), e - uniform(0, 3));
    t.c = c_at(e + uniform(-2, 2));
  }
  void c_dominant(Triple& t) {
    const int e = top() - 4;
    for (int i = 0; i < k_; ++i) product(t, i, coin(), e - uniform(0, 2));
    t.c = c_at(std::clamp(e + uniform(-40, 40), -126, 127));
  }
  // Subnormal operands times operands large enough to lift the product into view.
  void subnormal(Triple& t) {
    const FormatDesc& da = describe(fa_);
    for (int i = 0; i < k_; ++i) {
      const int ea = emin(fa_) - uniform(1, da.fraction_bits);
      t.a[i] = value(fa_, coin(), ea, true);
      t.b[i] = value(fb_, coin(), std::clamp(-ea + uniform(-3, 3), emin(fb_), emax(fb_)));
    }
    t.c = coin() ? 0 : c_at(uniform(-3, 3));
  }
  // The exponent floor is seen only through carries: with every product below the floor, the
  // alignment unit is floor - window. k - 1 products 2^E + 2^U and one 2^E - 2^U (E = -149 -
  // log2 k, U the unit of the floor or of the floor one lower) sum to 2^-149 or just below it,
  // depending on whether the bit at 2^U is kept; c = 0. Formats whose products cannot get there
  // get their smallest products instead.
  void tiny(Triple& t) {
    const int floor = floor_.value_or(-133);
    int log2k = 0;
    while ((2 << log2k) <= k_) ++log2k;
    const int e = -149 - log2k;
    const int unit = floor - window_ - (coin() ? 0 : 1);
    const int gap = e - unit;
    const int pmin = emin(fa_) + emin(fb_);
    t.c = 0;
    if (pmin < e - 1 && gap >= 1 && gap <= describe(fa_).fraction_bits && e / 2 >= emin(fb_)) {
      const int eb = e / 2;
      const bool neg = coin();
      const int odd = uniform(0, k_ - 1);
      for (int i = 0; i < k_; ++i) {
        const uint64_t significand = (uint64_t{1} << gap) + (i == odd ? -1 : 1);
        t.a[i] = encode(fa_, ExactValue::finite(neg, significand, e - eb - gap));
        t.b[i] = encode(fb_, ExactValue::finite(false, 1, eb));
      }
      return;
    }
    for (int i = 0; i < k_; ++i) product(t, i, coin(), pmin + uniform(0, 3));
  }
  uint32_t special_code(Format f) {
    switch (rng_() % 6) {
      case 0:
        return encode(f, ExactValue::nan());
      case 1:
        return encode(f, ExactValue::infinity(coin()),
                      {Rounding::nearest_even, Overflow::ieee, -1});
      case 2:
        return zero(f, coin());
      case 3:
        return value(f, coin(), emax(f), true);
      default:
        return value(f, coin(), uniform(-2, 2));
    }
  }
  void special(Triple& t) {
    for (int i = 0; i < k_; ++i) {
      t.a[i] = rng_() % 8 == 0 ? special_code(fa_) : value(fa_, coin(), uniform(-2, 2));
      t.b[i] = rng_() % 8 == 0 ? special_code(fb_) : value(fb_, coin(), uniform(-2, 2));
    }
    switch (rng_() % 4) {
      case 0:
        t.c = special_code(Format::f32);
        break;
      case 1:
        t.c = value(Format::f32, coin(), 127);
        break;
      default:
        t.c = c_at(uniform(-3, 3));
    }
  }
  void signed_zero(Triple& t) {
    for (int i = 0; i < k_; ++i) {
      t.a[i] = coin() ? zero(fa_, coin()) : value(fa_, coin(), uniform(-2, 2));
      t.b[i] = zero(fb_, coin());
    }
    if (coin() && k_ >= 2) {  // an exact cancellation among otherwise zero products
      t.a[0] = value(fa_, coin(), 0);
      t.b[0] = value(fb_, false, 0);
      t.a[1] = t.a[0] ^ describe(fa_).sign_mask();
      t.b[1] = t.b[0];
    }
    t.c = zero(Format::f32, coin());
  }
  void overflow(Triple& t) {
    const bool neg = coin();
    for (int i = 0; i < k_; ++i) {
      t.a[i] = value(fa_, neg, emax(fa_) - uniform(0, 1));
      t.b[i] = value(fb_, false, emax(fb_) - uniform(0, 1));
    }
    t.c = coin() ? value(Format::f32, neg, 127) : c_at(uniform(100, 127));
  }
};

void put(std::vector<uint8_t>& bytes, Format f, size_t index, uint32_t code) {
  const int n = describe(f).storage_bytes();
  for (int i = 0; i < n; ++i) bytes[index * n + i] = static_cast<uint8_t>(code >> (8 * i));
}

}  // namespace

ProbeTiles make_probe_tiles(const ProbeInstruction& in, const Preset& preset, int tiles_per_class,
                            uint64_t seed) {
  ProbeTiles t;
  t.instruction = &in;
  const auto& classes = probe_classes();
  t.tiles = tiles_per_class * static_cast<int>(classes.size());
  const size_t m = in.m, n = in.n, k = in.k, tiles = static_cast<size_t>(t.tiles);
  t.a.assign(tiles * m * k * describe(in.a_format).storage_bytes(), 0);
  t.b.assign(tiles * n * k * describe(in.b_format).storage_bytes(), 0);
  t.c.assign(tiles * m * n, 0);
  Generator gen(in, preset, seed);
  size_t tile = 0;
  for (size_t cls = 0; cls < classes.size(); ++cls)
    for (int r = 0; r < tiles_per_class; ++r, ++tile) {
      t.class_of_tile.push_back(static_cast<int>(cls));
      for (size_t row = 0; row < m; ++row) {
        const Triple x = gen.draw(classes[cls]);
        for (size_t i = 0; i < k; ++i) put(t.a, in.a_format, (tile * m + row) * k + i, x.a[i]);
        if (row < n)
          for (size_t i = 0; i < k; ++i) put(t.b, in.b_format, (tile * n + row) * k + i, x.b[i]);
        for (size_t col = 0; col < n; ++col)
          t.c[(tile * m + row) * n + col] = col == row ? x.c : gen.draw(classes[cls]).c;
      }
    }
  return t;
}

}  // namespace mmaemu
