#include "probing/perplexity_compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "common/error.h"
#include "common/json_read.h"
#include "encoder/config_keys.h"

namespace bb {

PerplexityUnit parse_perplexity_unit(const std::string& name) {
  if (name == "word") return PerplexityUnit::word;
  if (name == "token") return PerplexityUnit::token;
  throw UsageError(fmt::format("--per: unknown unit '{}' (expected word or token)", name));
}

PerplexityFile read_perplexity_file(const std::filesystem::path& path) {
  const nlohmann::json j = read_json_file(path);
  const std::string where = path.string();
  BB_CHECK(j.is_object() && j.contains("inputs"),
           "{}: not a perplexity file (expected `babyberta perplexity --out`'s JSON)", where);
  PerplexityFile f;
  f.file = where;
  f.kind = json_string(j, "kind", where);
  parse_text_kind(f.kind, where + ": \"kind\"");  // the kinds `perplexity` measures
  f.measure = json_string(j, "measure", where);
  f.attention = json_string(j, "attention", where);
  if (j.contains("seed")) f.seed = json_integer(j, "seed", where);
  BB_CHECK(j["inputs"].is_array() && !j["inputs"].empty(), "{}: \"inputs\" is empty", where);
  for (size_t i = 0; i < j["inputs"].size(); ++i) {
    const nlohmann::json& in = j["inputs"][i];
    const std::string at = fmt::format("{}: inputs[{}]", where, i);
    BB_CHECK(in.is_object(), "{}: expected an object", at);
    PerplexityFile::Input x{json_number(in, "perplexity_per_word", at),
                            json_number(in, "perplexity_per_token", at),
                            json_string(in, "sentences_sha256", at)};
    BB_CHECK(std::isfinite(x.per_word) && x.per_word >= 1 && std::isfinite(x.per_token) &&
                 x.per_token >= 1,
             "{}: a perplexity below 1 or not finite", at);
    const std::string name = json_string(in, "input", at);
    BB_CHECK(f.inputs.emplace(name, x).second, "{}: input \"{}\" twice", at, name);
  }
  return f;
}

namespace {

double value_of(const PerplexityFile::Input& in, PerplexityUnit u) {
  return u == PerplexityUnit::word ? in.per_word : in.per_token;
}

std::string fmt_or_dash(double v, const char* spec) {
  return std::isfinite(v) ? fmt::format(fmt::runtime(spec), v) : "—";
}

// A group's sd: none for a single value (one seed has no spread).
double sd_or_nan(const Stat& s) { return s.n > 1 ? s.sd : std::nan(""); }

// "mean ± sd", or the mean alone for a single value.
std::string mean_sd(const Stat& s) {
  const double sd = sd_or_nan(s);
  return std::isfinite(sd) ? fmt::format("{:.2f} ± {:.2f}", s.mean, sd)
                            : fmt_or_dash(s.mean, "{:.2f}");
}

std::string csv_quoted(const std::string& s) {
  std::string q = "\"";
  for (char ch : s) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return q + "\"";
}

std::string p_text(double p) {
  if (p < 0) return "—";
  return p < 0.001 ? "< 0.001" : fmt::format("{:.3f}", p);
}

// What the row lets one say: a Holm-corrected difference, inconclusive (with what the seeds could
// detect), or exploratory (too few seeds for a test).
std::string verdict(const PerplexityContrast& c) {
  const Difference& d = c.d;
  if (d.p < 0)
    return fmt::format("exploratory (fewer than {} seeds a side: no test)", kMinSeedsForClaims);
  if (d.p_adj < kAlpha && (d.lo > 0 || d.hi < 0))
    return d.diff < 0 ? "lower" : "higher";
  return fmt::format("inconclusive (detectable ≈ {})", fmt_or_dash(d.mde, "{:.2f}"));
}

}  // namespace

PerplexityComparison compare_perplexities(const std::vector<PerplexityFile>& files,
                                          const std::string& baseline, PerplexityUnit unit) {
  BB_CHECK(!files.empty(), "compare-perplexity: no files");
  PerplexityComparison out;
  out.baseline = baseline, out.unit = unit;
  // kind -> function -> the files (seed order)
  std::map<std::string, std::map<std::string, std::vector<const PerplexityFile*>>> groups;
  std::map<std::string, std::string> measure_of;
  for (const PerplexityFile& f : files) {
    BB_CHECK(f.seed.has_value(),
             "{}: no seed (measured on a model without its run.json, such as a checkpoint?); "
             "compare-perplexity pairs runs by seed: measure each run's own directory",
             f.file);
    out.files.push_back(f.file);
    groups[f.kind][f.attention].push_back(&f);
    const auto [it, fresh] = measure_of.emplace(f.kind, f.measure);
    BB_CHECK(fresh || it->second == f.measure, "{}: measure {} where other {} files have {}",
             f.file, f.measure, f.kind, it->second);
  }
  // Every input's sentences: one fingerprint across all files.
  std::map<std::string, const PerplexityFile*> first_with;
  for (const PerplexityFile& f : files)
    for (const auto& [name, in] : f.inputs) {
      const auto [it, fresh] = first_with.emplace(name, &f);
      BB_CHECK(fresh || it->second->inputs.at(name).sha256 == in.sha256,
               "{}: input \"{}\" measured other sentences than in {} (sentences_sha256 differs): "
               "files compare on the same sentences only",
               f.file, name, it->second->file);
    }
  for (auto& [kind, by_function] : groups) {
    if (!by_function.contains(baseline))
      usage_fail("compare-perplexity: no {} file with attention {} (the --baseline) among the {} "
                 "files; their functions: {}",
                 kind, baseline, kind, fmt::join([&] {
                   std::vector<std::string> names;
                   for (const auto& [fn, _] : by_function) names.push_back(fn);
                   return names;
                 }(), ", "));
    for (auto& [fn, group] : by_function) {
      std::set<int64_t> seen;
      for (const PerplexityFile* f : group)
        BB_CHECK(seen.insert(*f->seed).second,
                 "{}: a second {} {} file of seed {} (one file per run)", f->file, kind, fn,
                 *f->seed);
      std::sort(group.begin(), group.end(), [](const PerplexityFile* a, const PerplexityFile* b) {
        return *a->seed < *b->seed;
      });
    }
    const auto& base = by_function.at(baseline);
    for (const auto& [fn, group] : by_function) {
      if (fn == baseline) continue;
      const size_t first = out.contrasts.size();
      std::set<std::string> inputs;
      for (const PerplexityFile* f : group)
        for (const auto& [name, _] : f->inputs) inputs.insert(name);
      for (const std::string& input : inputs) {
        std::vector<double> a, b;
        std::vector<int64_t> sa, sb;
        for (const PerplexityFile* f : base)
          if (f->inputs.contains(input)) {
            a.push_back(value_of(f->inputs.at(input), unit));
            sa.push_back(*f->seed);
          }
        for (const PerplexityFile* f : group)
          if (f->inputs.contains(input)) {
            b.push_back(value_of(f->inputs.at(input), unit));
            sb.push_back(*f->seed);
          }
        PerplexityContrast c{kind, measure_of.at(kind), input, fn, baseline, sb,
                             stat_of(a), stat_of(b), seed_difference(a, b, sa == sb)};
        out.contrasts.push_back(std::move(c));
      }
      // Holm over this function's inputs within the kind: the family its endpoints form.
      std::vector<double> p;
      for (size_t i = first; i < out.contrasts.size(); ++i) p.push_back(out.contrasts[i].d.p);
      const std::vector<double> adj = holm_adjust(p);
      for (size_t i = first; i < out.contrasts.size(); ++i) {
        Difference& d = out.contrasts[i].d;
        d.p_adj = adj[i - first];
        d.resolved = d.p_adj >= 0 && d.p_adj < kAlpha && (d.lo > 0 || d.hi < 0);
      }
    }
  }
  BB_CHECK(!out.contrasts.empty(),
           "compare-perplexity: nothing to compare (every kind has files of {} only; expected "
           "files of another function too)",
           baseline);
  return out;
}

std::string perplexity_report_md(const PerplexityComparison& c) {
  const char* unit = c.unit == PerplexityUnit::word ? "word" : "token";
  std::string md = fmt::format(
      "# Perplexity per {}: each function against {}, within each model kind\n\n"
      "Difference = function − {} in mean perplexity per {} (negative: lower perplexity); paired "
      "t over seeds where both groups have the same seeds, else Welch's t; 95% interval; Holm's "
      "p over the inputs of one kind and function; \"detectable\": the smallest difference the "
      "test would detect with 80% power (an estimate from the same seeds). A causal LM's "
      "perplexity and a masked LM's pseudo-perplexity are different measures: kinds are not "
      "compared with each other.\n\n",
      unit, c.baseline, c.baseline, unit);
  md += "| kind (measure) | input | function | n | test | " + c.baseline +
        " | function | difference | 95% interval | p | Holm p | verdict |\n";
  md += "|---|---|---|---:|---|---:|---:|---:|---|---:|---:|---|\n";
  for (const PerplexityContrast& r : c.contrasts) {
    const Difference& d = r.d;
    md += fmt::format(
        "| {} ({}) | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", r.kind,
        r.measure, r.input, r.function, d.n > 0 ? fmt::format("{}", d.n) : fmt::format("{}", r.other.n),
        seed_test_name(d.test), mean_sd(r.base), mean_sd(r.other),
        fmt_or_dash(d.diff, "{:+.2f}"),
        d.has_ci ? fmt::format("[{:+.2f}, {:+.2f}]", d.lo, d.hi) : std::string("—"), p_text(d.p),
        p_text(d.p_adj), verdict(r));
  }
  md += "\nFiles:\n";
  for (const std::string& f : c.files) md += fmt::format("- `{}`\n", f);
  return md;
}

std::string perplexity_report_csv(const PerplexityComparison& c) {
  auto num = [](double v) { return std::isfinite(v) ? fmt::format("{:.6g}", v) : std::string(); };
  std::string csv =
      "kind,measure,unit,input,function,baseline,n,test,baseline_mean,baseline_sd,function_mean,"
      "function_sd,difference,ci_lo,ci_hi,p,p_holm,detectable,verdict\n";
  for (const PerplexityContrast& r : c.contrasts) {
    const Difference& d = r.d;
    csv += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", r.kind,
                       r.measure, c.unit == PerplexityUnit::word ? "word" : "token",
                       csv_quoted(r.input),
                       r.function, r.baseline, d.n, seed_test_name(d.test), num(r.base.mean),
                       num(sd_or_nan(r.base)), num(r.other.mean), num(sd_or_nan(r.other)),
                       num(d.diff),
                       d.has_ci ? num(d.lo) : "", d.has_ci ? num(d.hi) : "",
                       d.p >= 0 ? num(d.p) : "", d.p_adj >= 0 ? num(d.p_adj) : "", num(d.mde),
                       csv_quoted(verdict(r)));
  }
  return csv;
}

}  // namespace bb
