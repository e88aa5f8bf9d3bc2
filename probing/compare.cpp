#include "probing/compare.h"

#include "encoder/config_keys.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <set>

#include "common/error.h"
#include "common/files.h"
#include "common/flag_names.h"
#include "common/json_read.h"
#include "common/philox.h"
#include "probing/results.h"
#include "common/statistics.h"
#include "probing/word_frequency.h"

namespace bb {

namespace fs = std::filesystem;
using json = nlohmann::json;

std::string seed_test_name(SeedTest t) {
  return t == SeedTest::paired ? "paired t" : t == SeedTest::welch ? "Welch t" : "none";
}


namespace {

template <typename T>
void append_unique(std::vector<T>& v, const T& x) {
  if (std::find(v.begin(), v.end(), x) == v.end()) v.push_back(x);
}

// A causal LM's groups are labelled "gpt2 FUNCTION" (runs/probe_run.cpp): "gpt2 " for them, else "".
std::string kind_prefix(const std::string& label) {
  const std::string gpt2 = std::string(config_keys(ModelKind::gpt2).model_type) + " ";
  return label.rfind(gpt2, 0) == 0 ? gpt2 : std::string();
}

// The baseline of a group labelled `label`: the baseline's function of the same kind (a gpt2
// group's is "gpt2 softmax" when the baseline is softmax).
std::string baseline_for(const std::string& label, const std::string& baseline) {
  const std::string base = baseline.substr(kind_prefix(baseline).size());
  return kind_prefix(label) + base;
}

// Groups (the baseline label's first, otherwise in file order), their labels, strata and the
// baseline each is compared with (within its kind); paradigms in file order, phenomena sorted.
void collect_names(Comparison& c, const std::vector<RunResult>& runs, bool across_kinds) {
  std::vector<const RunResult*> firsts;  // the first run of each group
  for (const auto& r : runs)
    if (std::find(c.groups.begin(), c.groups.end(), r.group) == c.groups.end()) {
      c.groups.push_back(r.group);
      firsts.push_back(&r);
    }
  std::vector<size_t> order(c.groups.size());
  for (size_t g = 0; g < order.size(); ++g) order[g] = g;
  std::vector<std::string> but_method;  // [group] its stratum without the method, as ordered
  // the baseline function's groups first, of every kind ("softmax", "gpt2 softmax")
  auto is_baseline = [&](size_t g) {
    return firsts[g]->label == baseline_for(firsts[g]->label, c.baseline);
  };
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return is_baseline(a) && !is_baseline(b); });
  std::vector<std::string> groups;
  for (size_t g : order) {
    groups.push_back(c.groups[g]);
    c.labels.push_back(firsts[g]->label);
    c.strata.push_back(firsts[g]->stratum);
    but_method.push_back(firsts[g]->stratum == "reference" ? "reference"
                                                           : firsts[g]->stratum_but_method);
  }
  c.groups = std::move(groups);
  c.baseline_of.assign(c.groups.size(), -1);
  for (size_t g = 0; g < c.groups.size(); ++g) {
    if (across_kinds) {  // a gpt2 group against the roberta group of its function
      const std::string prefix = kind_prefix(c.labels[g]);
      if (prefix.empty() || but_method[g] == "reference") continue;
      std::vector<std::string> found;
      for (size_t b = 0; b < c.groups.size(); ++b)
        if (c.labels[b] == c.labels[g].substr(prefix.size()) && but_method[b] == but_method[g]) {
          c.baseline_of[g] = int(b);
          found.push_back(c.groups[b]);
        }
      BB_CHECK(found.size() <= 1,
               "compare --across-kinds: {} has {} roberta groups to be compared with ({}); give "
               "one roberta scoring method's results at a time",
               c.groups[g], found.size(), fmt::join(found, "; "));
      if (found.empty()) c.unmatched_across_kinds.push_back(c.groups[g]);
      continue;
    }
    const std::string base = baseline_for(c.labels[g], c.baseline);
    for (size_t b = 0; b < c.groups.size() && c.labels[g] != base; ++b)
      if (c.labels[b] == base && c.strata[b] == c.strata[g]) c.baseline_of[g] = int(b);
  }
  for (const auto& r : runs)
    for (const auto& p : r.paradigms) {
      append_unique(c.paradigms, p);
      c.phenomenon_of[p] = r.phenomenon_of.at(p);
    }
  for (const auto& p : c.paradigms) append_unique(c.phenomena, c.phenomenon_of[p]);
  std::sort(c.phenomena.begin(), c.phenomena.end());
}

using Members = std::vector<std::vector<const RunResult*>>;  // [group] runs, by seed

Members group_members(const Comparison& c, const std::vector<RunResult>& runs) {
  Members members(c.groups.size());
  for (const auto& r : runs)
    members[std::find(c.groups.begin(), c.groups.end(), r.group) - c.groups.begin()].push_back(&r);
  for (auto& m : members) {
    std::sort(m.begin(), m.end(), [](auto* a, auto* b) { return a->seed < b->seed; });
    for (size_t i = 1; i < m.size(); ++i)  // a file given twice would count as another seed
      BB_CHECK(m[i]->seed != m[i - 1]->seed,
               "compare: {} and {} are both seed {} of '{}' (one result per run; was a file "
               "given twice or copied?)",
               m[i - 1]->path.string(), m[i]->path.string(), m[i]->seed, m[i]->group);
  }
  return members;
}

// A run's phenomenon accuracy: the mean of its paradigms in `ph` (NaN if none).
double phenomenon_accuracy(const RunResult& r, const std::string& ph) {
  double s = 0;
  int n = 0;
  for (const auto& p : r.paradigms)
    if (r.phenomenon_of.at(p) == ph) s += r.accuracy.at(p), ++n;
  return n ? s / n : std::nan("");
}


// Mean ± sd over each group's runs, per paradigm, per phenomenon and overall.
void group_stats(Comparison& c, const Members& members) {
  const size_t G = c.groups.size();
  c.paradigm.resize(G), c.phenomenon.resize(G), c.overall.resize(G);
  for (size_t g = 0; g < G; ++g) {
    for (const auto& p : c.paradigms) {
      std::vector<double> v;
      for (auto* r : members[g])
        if (r->accuracy.count(p)) v.push_back(r->accuracy.at(p));
      c.paradigm[g][p] = stat_of(v);
    }
    for (const auto& ph : c.phenomena) {
      std::vector<double> v;  // runs without the phenomenon (NaN) are left out
      for (auto* r : members[g])
        if (const double a = phenomenon_accuracy(*r, ph); std::isfinite(a)) v.push_back(a);
      c.phenomenon[g][ph] = stat_of(v);
    }
    std::vector<double> v;
    for (auto* r : members[g]) v.push_back(overall_accuracy(*r));
    c.overall[g] = stat_of(v);
  }
}

// Uniform integers in [0, n) from one Philox stream, drawn in sequence across all groups.
struct Sampler {
  Philox rng;
  uint64_t draw = 0;
  int operator()(int n) {
    uint32_t w[4];
    rng.block(0, draw++, w);
    return int(w[0] % uint32_t(n));
  }
};

// Whether every run of A and B has pair outcomes for every paradigm, as many as A[0]'s (> 0).
bool pair_level(const std::vector<std::string>& paradigms, const std::vector<const RunResult*>& A,
                const std::vector<const RunResult*>& B) {
  bool paired = true;
  for (const auto& p : paradigms) {
    const size_t n = A[0]->outcomes.count(p) ? A[0]->outcomes.at(p).size() : 0;
    paired &= n > 0;
    for (const auto& side : {A, B})
      for (auto* r : side) paired &= r->outcomes.count(p) && r->outcomes.at(p).size() == n;
  }
  return paired;
}

using Replicates = std::map<std::string, std::vector<double>>;  // paradigm -> [replicate] diff

// Per replicate: resample runs of A and of B (with replacement), then n pair indices per
// paradigm shared by both sides; the difference is 100 * (mean_B - mean_A) over those outcomes.
Replicates bootstrap_diffs(const std::vector<std::string>& paradigms,
                           const std::vector<const RunResult*>& A,
                           const std::vector<const RunResult*>& B, int bootstrap,
                           Sampler& uniform_int) {
  Replicates reps;
  for (int rep = 0; rep < bootstrap; ++rep) {
    std::vector<const RunResult*> a, b;
    for (size_t i = 0; i < A.size(); ++i) a.push_back(A[uniform_int(int(A.size()))]);
    for (size_t i = 0; i < B.size(); ++i) b.push_back(B[uniform_int(int(B.size()))]);
    for (const auto& p : paradigms) {
      const int n = int(A[0]->outcomes.at(p).size());
      double sa = 0, sb = 0;
      for (int k = 0; k < n; ++k) {
        const int idx = uniform_int(n);
        for (auto* r : a) sa += r->outcomes.at(p)[idx];
        for (auto* r : b) sb += r->outcomes.at(p)[idx];
      }
      reps[p].push_back(100.0 * (sb / (double(n) * b.size()) - sa / (double(n) * a.size())));
    }
  }
  return reps;
}

// The secondary interval: the 2.5th and 97.5th percentiles of the bootstrap replicates (none
// without pair outcomes).
void set_bootstrap(Difference& d, const std::vector<double>& r) {
  if (!std::isfinite(d.diff) || r.empty()) return;
  std::vector<double> s = r;
  std::sort(s.begin(), s.end());
  d.boot_lo = s[size_t(0.025 * (s.size() - 1))];
  d.boot_hi = s[size_t(0.975 * (s.size() - 1))];
  d.has_boot = true;
}

// Replicates of a mean over paradigms `ps`: per replicate k, mean_p reps[p][k].
std::vector<double> mean_replicates(const Replicates& reps, const std::vector<std::string>& ps,
                                    size_t count) {
  std::vector<double> r(count, 0.0);
  for (size_t k = 0; k < r.size(); ++k) {
    for (const auto& p : ps) r[k] += reps.at(p)[k];
    r[k] /= double(ps.size());
  }
  return r;
}

// The settings that fix a run's data order (run.json, as probe copied them into "training").
constexpr const char* kDataOrderSettings[] = {
    "--corpus (sha256)", "--tokenizer (sha256)", flag_name::seed, flag_name::steps, flag_name::batch_size,
    flag_name::mask_patterns, flag_name::hf_masking, flag_name::mask_prob, flag_name::bucket_batches, flag_name::strict,
    flag_name::dev_fraction, flag_name::dev_seed};

// Whether A and B pair by seed: the same seeds, and for each seed the same data-order settings
// recorded in both results (results without them cannot show it: not paired).
// Across kinds (compare --across-kinds) the masking settings are left out: a causal LM has none,
// and its batches differ from the encoder's whatever they say; the seed still pairs the runs.
bool paired_by_seed(const std::vector<const RunResult*>& A, const std::vector<const RunResult*>& B,
                    bool across_kinds) {
  if (A.size() != B.size() || A.empty()) return false;
  auto masking = [](std::string_view k) {
    return k == flag_name::mask_patterns || k == flag_name::hf_masking || k == flag_name::mask_prob;
  };
  for (size_t i = 0; i < A.size(); ++i) {  // both sorted by seed
    if (A[i]->seed != B[i]->seed) return false;
    const nlohmann::json ta = A[i]->header.value("training", nlohmann::json());
    const nlohmann::json tb = B[i]->header.value("training", nlohmann::json());
    if (!ta.is_object() || !tb.is_object()) return false;
    for (const char* k : kDataOrderSettings)
      if (!(across_kinds && masking(k)) && ta.value(k, nlohmann::json()) != tb.value(k, nlohmann::json()))
        return false;
  }
  return true;
}

// Group B against A on per-run values (seed_difference), runs without the paradigm or phenomenon
// (NaN) left out; paired only when no run was left out.
Difference seed_test(const std::vector<const RunResult*>& A, const std::vector<const RunResult*>& B,
                     const std::function<double(const RunResult&)>& value, bool paired) {
  std::vector<double> a, b;
  for (auto* r : A)
    if (const double v = value(*r); std::isfinite(v)) a.push_back(v);
  for (auto* r : B)
    if (const double v = value(*r); std::isfinite(v)) b.push_back(v);
  return seed_difference(a, b, paired && a.size() == A.size() && b.size() == B.size());
}

// Holm over one level's names for one comparison; then "resolved" where both agree.
void correct(std::map<std::string, Difference>& level) {
  std::vector<double> p;
  for (const auto& [name, d] : level) p.push_back(d.p);
  const std::vector<double> adj = holm_adjust(p);
  size_t i = 0;
  for (auto& [name, d] : level) {
    d.p_adj = adj[i++];
    d.resolved = d.p_adj >= 0 && d.p_adj < kAlpha && d.has_ci && (d.lo > 0 || d.hi < 0);
  }
}

// The paradigms that every run of A and of B has (only these can be bootstrapped together).
std::vector<std::string> shared_paradigms(const std::vector<std::string>& paradigms,
                                          const std::vector<const RunResult*>& A,
                                          const std::vector<const RunResult*>& B) {
  std::vector<std::string> out;
  for (const auto& p : paradigms) {
    bool all = true;
    for (const auto& side : {A, B})
      for (auto* r : side) all &= r->accuracy.count(p) > 0;
    if (all) out.push_back(p);
  }
  return out;
}

// Group g minus its baseline group: per paradigm, per phenomenon (per-run phenomenon means) and
// overall, each with the seed-level test and, when pair-level, a bootstrap interval.
void baseline_differences(Comparison& c, const Members& members, size_t g, int bootstrap,
                          Sampler& uniform_int) {
  const auto& A = members[size_t(c.baseline_of[g])];
  const auto& B = members[g];
  const bool by_seed = paired_by_seed(A, B, c.baseline == kAcrossKindsBaseline);
  c.paired[g] = by_seed;
  const std::vector<std::string> shared = shared_paradigms(c.paradigms, A, B);
  const bool pairs = !shared.empty() && pair_level(shared, A, B);
  Replicates reps;
  if (pairs) reps = bootstrap_diffs(shared, A, B, bootstrap, uniform_int);
  for (const auto& p : c.paradigms) {
    Difference d = seed_test(A, B, [&](const RunResult& r) {
      return r.accuracy.count(p) ? r.accuracy.at(p) : std::nan("");
    }, by_seed);
    set_bootstrap(d, reps[p]);
    c.paradigm_diff[g][p] = d;
  }
  for (const auto& ph : c.phenomena) {
    std::vector<std::string> ps;  // its paradigms that both sides have
    for (const auto& p : shared)
      if (c.phenomenon_of[p] == ph) ps.push_back(p);
    Difference d = seed_test(A, B, [&](const RunResult& r) { return phenomenon_accuracy(r, ph); },
                             by_seed);
    set_bootstrap(d, mean_replicates(reps, ps, pairs && !ps.empty() ? size_t(bootstrap) : 0));
    c.phenomenon_diff[g][ph] = d;
  }
  Difference d = seed_test(A, B, overall_accuracy, by_seed);
  set_bootstrap(d, mean_replicates(reps, shared, pairs ? size_t(bootstrap) : 0));
  d.p_adj = d.p;  // one test
  d.resolved = d.p >= 0 && d.p < kAlpha && d.has_ci && (d.lo > 0 || d.hi < 0);
  c.overall_diff[g] = d;
  correct(c.paradigm_diff[g]);
  correct(c.phenomenon_diff[g]);
}

}  // namespace

Difference seed_difference(const std::vector<double>& a, const std::vector<double>& b,
                           bool paired) {
  Difference d;
  d.diff = stat_of(b).mean - stat_of(a).mean;  // NaN when a side has no value: no difference
  if (a.size() < size_t(kMinSeedsForClaims) || b.size() < size_t(kMinSeedsForClaims)) return d;
  if (paired) {
    BB_CHECK(a.size() == b.size(), "internal: {} and {} paired values", a.size(), b.size());
    const PairedTest t = paired_t_test(a, b);
    d.test = SeedTest::paired, d.n = t.n, d.df = t.df, d.se = t.se, d.p = t.p;
    d.lo = t.lo, d.hi = t.hi;
  } else {
    const WelchTest w = welch_t_test(a, b);
    d.test = SeedTest::welch, d.n = int(std::min(a.size(), b.size())), d.df = w.df, d.se = w.se;
    d.p = w.p;
    if (w.se > 0) {
      const double half = student_t_quantile(0.05, w.df) * w.se;
      d.lo = d.diff - half, d.hi = d.diff + half;
    } else {
      d.lo = d.hi = d.diff;
    }
  }
  d.has_ci = d.p >= 0;
  d.mde = minimum_detectable_difference(d.se, d.df);
  return d;
}

Comparison compare_runs(std::vector<RunResult> runs, int bootstrap, uint64_t seed,
                        const std::string& baseline, bool across_kinds) {
  Comparison c;
  c.baseline = across_kinds ? kAcrossKindsBaseline : baseline;
  collect_names(c, runs, across_kinds);
  if (across_kinds)
    BB_CHECK(std::any_of(c.baseline_of.begin(), c.baseline_of.end(), [](int b) { return b >= 0; }),
             "compare --across-kinds: no gpt2 group has a roberta group of its function and "
             "stratum (but the method) to be compared with");
  else if (std::none_of(c.labels.begin(), c.labels.end(),  // the baseline of some kind
                        [&](const std::string& l) { return l == baseline_for(l, baseline); }) &&
           c.groups.size() > 1) {
    std::set<std::string> labels(c.labels.begin(), c.labels.end());
    fail("compare: no results labelled '{}' to compare with (--baseline; the labels are: {})",
         baseline, fmt::join(labels, ", "));
  }
  const Members members = group_members(c, runs);
  for (const auto& m : members) c.seeds.push_back(int(m.size()));
  c.paired.assign(members.size(), false);
  group_stats(c, members);
  const size_t G = c.groups.size();
  c.paradigm_diff.resize(G), c.phenomenon_diff.resize(G), c.overall_diff.resize(G);
  Sampler uniform_int{Philox{stream_key(seed, 0xB007)}};
  for (size_t g = 0; g < G; ++g)
    if (c.compared(g)) baseline_differences(c, members, g, bootstrap, uniform_int);
  c.runs = std::move(runs);
  add_frequency_shares(c);
  return c;
}

double overall_accuracy(const RunResult& r) {
  double s = 0;
  for (const auto& p : r.paradigms) s += r.accuracy.at(p);
  return s / double(r.paradigms.size());
}

}  // namespace bb
