// Fuzzing the model-directory readers: 500 mutants each of a valid model.safetensors and
// config.json (byte flips, truncation, header and field edits: huge, negative, overlapping,
// wrongly typed, missing). Each must load or throw bb::Error with a one-line message; any other
// exception is a failure, and a crash or hang fails the run (also under ASan/UBSan).
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <random>

#include "common/error.h"
#include "common/files.h"
#include "common/safetensors.h"
#include "encoder/checkpoint.h"
#include "model_fixtures.h"
#include "safetensors_bytes.h"
#include "temp_dir.h"

using namespace bb;
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

constexpr int kMutants = 500;
using Rng = std::mt19937_64;

size_t pick(Rng& rng, size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng); }

// Loads `dir` the way `info` and the scorer do: bounded config, a model of it, the weights.
void load_model_dir(const fs::path& dir) {
  const Config c = read_model_config(dir);
  Model<float> m(c, {1, 8, 8, 1});
  load_model_weights(dir, m);
}

struct Outcomes {
  int loaded = 0, rejected = 0;
};

// `f` must return or throw bb::Error with one line; anything else fails the test case.
template <typename F>
void expect_load_or_error(F&& f, const std::string& mutant, Outcomes& out) {
  try {
    f();
    ++out.loaded;
  } catch (const Error& e) {
    ++out.rejected;
    const std::string msg = e.what();
    CHECK_MESSAGE(msg.find('\n') == std::string::npos, mutant, ": ", msg);
    CHECK_MESSAGE(msg.find("json.exception") == std::string::npos, mutant, ": ", msg);
  } catch (const std::exception& e) {
    FAIL_CHECK(mutant, ": non-bb::Error exception: ", e.what());
  }
}

// Values that break a field: wrong types, huge, negative, fractional.
json odd_value(Rng& rng) {
  static const json values[] = {"x", json::array(), json::object(), nullptr, true, 1.5, -1, 0,
                                int64_t(2147483647), int64_t(-2147483648LL), 2e9, 1e300, -1e300,
                                int64_t(1) << 40, std::numeric_limits<uint64_t>::max(),
                                int64_t(std::numeric_limits<int64_t>::min()), 4294967296.0,
                                1e-300, json::array({1, 2}), "F32"};
  return values[pick(rng, std::size(values))];
}

// One edit of a safetensors header: a tensor's dtype, shape, offsets or whole entry, or the
// metadata; half the time the digest is dropped as well, so that deeper checks are reached.
void mutate_header(json& h, Rng& rng) {
  std::vector<std::string> names;
  for (auto& [k, v] : h.items())
    if (k != "__metadata__") names.push_back(k);
  json& t = h[names[pick(rng, names.size())]];
  const json& other = h[names[pick(rng, names.size())]];
  switch (pick(rng, 9)) {
    case 0: t["shape"][pick(rng, t["shape"].size())] = odd_value(rng); break;
    case 1: t["shape"] = odd_value(rng); break;
    case 2: t["data_offsets"] = other["data_offsets"]; break;  // two tensors, one byte range
    case 3: t["data_offsets"][pick(rng, 2)] = odd_value(rng); break;
    case 4: t["dtype"] = json::array({"F16", "F64", "I32", "I64", 3, nullptr})[pick(rng, 6)]; break;
    case 5: t.erase(json::array({"dtype", "shape", "data_offsets"})[pick(rng, 3)].get<std::string>()); break;
    case 6: t = odd_value(rng); break;
    case 7: h["__metadata__"] = json::array({3, json{{kDigestKey, 5}}, json{{kDigestKey, "ab"}}})[pick(rng, 3)]; break;
    default: {
      const uint64_t begin = t["data_offsets"][0].get<uint64_t>();  // overlap by a few bytes
      t["data_offsets"] = {begin + 4 * pick(rng, 3), t["data_offsets"][1].get<uint64_t>() + 4};
      t["shape"] = {(t["data_offsets"][1].get<uint64_t>() - t["data_offsets"][0].get<uint64_t>()) / 4};
    }
  }
  if (h["__metadata__"].is_object() && pick(rng, 2)) h["__metadata__"].erase(kDigestKey);
}

std::string mutate_safetensors(const std::string& good, Rng& rng) {
  std::string b = good;
  switch (pick(rng, 4)) {
    case 0:  // bit flips anywhere
      for (size_t k = 0, n = 1 + pick(rng, 4); k < n; ++k) b[pick(rng, b.size())] ^= char(1 << pick(rng, 8));
      return b;
    case 1: return b.substr(0, pick(rng, b.size()));  // truncation
    case 2: {  // header length
      static const uint64_t lens[] = {0, 1, 7, 1ull << 40, ~0ull, 100ull << 20};
      uint64_t len = lens[pick(rng, std::size(lens))];
      if (pick(rng, 2)) std::memcpy(&len, b.data(), 8), len += pick(rng, 17) - 8;
      std::memcpy(b.data(), &len, 8);
      return b;
    }
    default: {
      auto parts = test::split_safetensors(good);
      mutate_header(parts.header, rng);
      return test::safetensors_bytes(parts.header, parts.data);
    }
  }
}

std::string mutate_config(const std::string& good, Rng& rng) {
  json j = json::parse(good);
  std::vector<std::string> keys;
  for (auto& [k, v] : j.items()) keys.push_back(k);
  switch (pick(rng, 4)) {
    case 0:
      j.erase(keys[pick(rng, keys.size())]);
      break;
    case 1:  // raw text: truncation or a flipped byte
      if (pick(rng, 2)) return good.substr(0, pick(rng, good.size()));
      {
        std::string s = good;
        s[pick(rng, s.size())] ^= char(1 << pick(rng, 7));
        return s;
      }
    default:
      for (size_t k = 0, n = 1 + pick(rng, 2); k < n; ++k) j[keys[pick(rng, keys.size())]] = odd_value(rng);
  }
  return j.dump(2);
}

}  // namespace

// Writes kMutants mutants of dir/name (from `mutate`) and loads the model directory after each.
template <typename Mutate>
Outcomes load_mutants(const fs::path& dir, const std::string& name, uint64_t seed, Mutate mutate) {
  const fs::path file = dir / name;
  const std::string good = read_file(file);
  Rng rng(seed);
  Outcomes out;
  for (int i = 0; i < kMutants; ++i) {
    write_file_atomic(file, mutate(good, rng));
    expect_load_or_error([&] { load_model_dir(dir); }, name + " mutant " + std::to_string(i), out);
  }
  write_file_atomic(file, good);
  MESSAGE(name, " mutants: ", out.loaded, " loaded, ", out.rejected, " rejected");
  return out;
}

void save_micro_model(const fs::path& dir) {
  Model<float> m(test::micro_config(AttentionFunction::ssa), {1, 8, 8, 1});
  m.init_weights(5);
  save_model(dir, m);
}

TEST_CASE("fuzz: mutants of model.safetensors load or fail with a one-line bb::Error") {
  const test::TempDir dir("fuzz-st");
  save_micro_model(dir.path);
  const Outcomes out = load_mutants(dir.path, "model.safetensors", 20240611, mutate_safetensors);
  CHECK(out.rejected > kMutants / 2);
}

TEST_CASE("fuzz: mutants of config.json load or fail with a one-line bb::Error") {
  const test::TempDir dir("fuzz-cfg");
  save_micro_model(dir.path);
  const std::string good = read_file(dir.path / "config.json");
  Outcomes out = load_mutants(dir.path, "config.json", 7, mutate_config);
  // NaN and infinities cannot be written as JSON; given in memory they are range errors too.
  const json base = json::parse(good);
  for (const char* key : {"layer_norm_eps", "hidden_dropout_prob", "ssa_b_init", "vocab_size",
                          "initializer_range", "ssa_n_init", "num_hidden_layers"})
    for (double v : {std::nan(""), std::numeric_limits<double>::infinity(),
                     -std::numeric_limits<double>::infinity()}) {
      json j = base;
      j[key] = v;
      expect_load_or_error([&] { config_from_json(j, "mem"); }, key, out);
      CHECK_THROWS_AS(config_from_json(j, "mem"), Error);
    }
  MESSAGE("config mutants: ", out.loaded, " loaded, ", out.rejected, " rejected");
  CHECK(out.loaded > 0);
  CHECK(out.rejected > kMutants / 2);
}
