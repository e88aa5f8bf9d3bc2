#include "probing/report.h"
#include "probing/results.h"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "common/files.h"
#include "common/flag_names.h"
#include "common/hash.h"
#include "probing/equivalence.h"
#include "probing/primary_endpoints.h"
#include "probing/report_charts.h"
#include "common/statistics.h"
#include "probing/word_frequency.h"

namespace bb {

namespace fs = std::filesystem;

namespace {

using Stats = std::vector<std::map<std::string, Stat>>;         // [group][name]
using Diffs = std::vector<std::map<std::string, Difference>>;    // [group][name]

std::string pm(const Stat& s) {
  if (s.n == 0) return "—";  // no run has it
  return s.n > 1 ? fmt::format("{:.1f} ± {:.1f}", s.mean, s.sd) : fmt::format("{:.1f}", s.mean);
}
std::string p_str(double p) {
  if (p < 0) return "n/a";
  return p < 1e-4 ? "<1e-4" : p < 1e-3 ? fmt::format("{:.1e}", p) : fmt::format("{:.3f}", p);
}
// "+1.2 [-0.5, +2.9], p 0.310", bold with "resolved" when the corrected test and the interval
// agree; "(uncorrected)" when the interval excludes 0 but the corrected p does not reach 0.05;
// "exploratory" without a test.
std::string diff_str(const Difference& d) {
  if (!std::isfinite(d.diff)) return "—";  // a side without values
  if (d.test == SeedTest::none) return fmt::format("{:+.1f} (exploratory)", d.diff);
  std::string s = d.has_ci ? fmt::format("{:+.1f} [{:+.1f}, {:+.1f}]", d.diff, d.lo, d.hi)
                           : fmt::format("{:+.1f}", d.diff);
  // the test's own p beside Holm's, so that a corrected 1.000 still shows what the test said
  s += d.p_adj != d.p ? fmt::format(", p {} (Holm {})", p_str(d.p), p_str(d.p_adj))
                      : fmt::format(", p {}", p_str(d.p));
  if (d.resolved) return "**" + s + " resolved**";
  if (d.has_ci && (d.lo > 0 || d.hi < 0)) s += " (uncorrected)";
  return s;
}

// Degrees of freedom: whole for the paired test, one decimal for Welch's.
std::string df_str(double df) {
  return df == std::floor(df) ? fmt::format("{:.0f}", df) : fmt::format("{:.1f}", df);
}

std::string boot_str(const Difference& d) {
  return d.has_boot ? fmt::format("[{:+.1f}, {:+.1f}]", d.boot_lo, d.boot_hi) : "—";
}

// What the comparison of group g rests on: its test, seeds and degrees of freedom.
std::string interval_basis(const Comparison& c, size_t g) {
  const int a = c.seeds[size_t(c.baseline_of[g])], b = c.seeds[g];
  const Difference& o = c.overall_diff[g];
  if (o.test == SeedTest::none)
    return fmt::format("exploratory: {} against {} seeds, fewer than {} in a group, nothing tested",
                       b, a, kMinSeedsForClaims);
  if (o.test == SeedTest::paired)
    return fmt::format("paired t over {} seeds ({} df)", o.n, df_str(o.df));
  return fmt::format("Welch t, {} against {} seeds ({:.1f} df; not paired by seed{})", b, a, o.df,
                     c.runs.empty() || c.runs[0].header.contains("training")
                         ? "" : ": the results do not record the runs' settings");
}

std::string column_title(const Comparison& c, size_t g) {
  return c.groups[g] + " − " + c.groups[size_t(c.baseline_of[g])];
}

std::string md_method(const Comparison& c) {
  const bool across = c.baseline == kAcrossKindsBaseline;
  return fmt::format(
      "Accuracy in percent, mean ± sd over seeds. {5} The seed is the unit of replication: runs of two "
      "groups with the same seeds and, per seed, the same data-order settings (corpus, "
      "tokenizer, batching, masking, dev split, steps; recorded from each run's run.json) are "
      "paired by seed and compared by the paired t test on the per-seed differences; otherwise "
      "by Welch's t test. A difference cell shows the group minus {0} with that test's 95% t "
      "interval and its p-value Holm-corrected over the {1} paradigms and, separately, the {2} "
      "phenomena of each comparison (the overall row is one test). With fewer than {3} seeds in "
      "a group nothing is tested (\"exploratory\"). A difference is **resolved** only when the "
      "corrected p < {4} and the interval excludes 0 (cells show the test's p and, where it "
      "differs, Holm's); \"(uncorrected)\" marks an interval that excludes "
      "0 while the corrected p does not reach {4} (the interval is not corrected for the many "
      "comparisons). An unresolved difference is not evidence of no difference: the summary "
      "gives the smallest difference each test could have detected with 80% power (two-sided "
      "5%, from the noncentral t with the test's df; an estimate, since its standard error comes "
      "from the same few seeds). The 95% bootstrap interval resampling seeds and pairs is "
      "secondary (its own column; with few seeds it is narrower than the t interval because it "
      "cannot see seed variance it did not sample; \"—\" where a run of either group has no "
      "per-pair outcomes, the NAME.pairs.jsonl beside its result file, or has another number of "
      "pairs in a paradigm).\n",
      c.baseline, c.paradigms.size(), c.phenomena.size(), kMinSeedsForClaims, kAlpha,
      across ? "Across kinds (`compare --across-kinds`): each gpt2 group is compared with the "
               "roberta group of the same function and stratum but for the scoring method (a "
               "causal LM scored causal against an encoder scored holistic or pll; the size, "
               "steps, suite and pairs per paradigm the same). Runs are paired by seed when they "
               "share corpus, tokenizer, seed, batch size and dev split, though the two kinds' "
               "batches differ (masked utterances against next-token sequences)." +
                   (c.unmatched_across_kinds.empty()
                        ? std::string()
                        : fmt::format(" Not compared, for want of a roberta group of the same "
                                      "function and stratum: {}.",
                                      fmt::join(c.unmatched_across_kinds, "; ")))
             : fmt::format("Each group is compared with the **{}** group of its stratum (the same "
                           "method, size, steps, suite and pairs per paradigm; results of "
                           "different ones are never subtracted).",
                           c.baseline));
}

// The |t| a name's test needs to survive Holm's first step over m tests at df: beyond it nothing
// can be resolved, whatever the data.
double holm_first_step_t(size_t m, double df) {
  return m > 0 && df > 0 ? student_t_quantile(kAlpha / double(m), df) : NAN;
}

// Per comparison: the overall difference, what its interval excludes, its detectable difference,
// and which phenomena differ (resolved).
std::string md_summary(const Comparison& c) {
  std::string md = "## Summary\n\n";
  bool any_comparison = false;
  for (size_t g = 0; g < c.groups.size(); ++g) {
    if (!c.compared(g)) continue;
    any_comparison = true;
    const Difference& o = c.overall_diff[g];
    if (o.test == SeedTest::none) {
      md += fmt::format("- **{}**: overall {:+.1f}{}; {}. Differences are shown for orientation "
                        "only.\n", column_title(c, g), o.diff,
                        o.has_boot ? fmt::format(" (bootstrap {})", boot_str(o)) : "",
                        interval_basis(c, g));
      continue;
    }
    std::vector<std::string> found;
    for (const auto& ph : c.phenomena) {
      const Difference& d = c.phenomenon_diff[g].at(ph);
      if (d.resolved)
        found.push_back(fmt::format("{} {} by {:.1f} points [{:+.1f}, {:+.1f}] (p {})", ph,
                                    d.diff > 0 ? "higher" : "lower", std::abs(d.diff), d.lo,
                                    d.hi, p_str(d.p_adj)));
    }
    md += fmt::format("- **{}**: overall {:+.1f} [{:+.1f}, {:+.1f}] ({}, p {}{}). ",
                      column_title(c, g), o.diff, o.lo, o.hi, interval_basis(c, g), p_str(o.p_adj),
                      o.resolved ? ", resolved" : "");
    if (!o.resolved && std::isfinite(o.mde))
      md += fmt::format("The interval excludes differences below {:+.1f} and above {:+.1f} points; "
                        "the smallest difference this test could have detected with 80% power is "
                        "about {:.1f} points (an estimate). ", o.lo, o.hi, o.mde);
    else if (!o.resolved)
      md += "Every seed's difference is the same, so no detectable difference can be estimated. ";
    const double t_ph = holm_first_step_t(c.phenomena.size(), o.df);
    const double t_pa = holm_first_step_t(c.paradigms.size(), o.df);
    if (found.empty())
      md += fmt::format("No phenomenon differs resolvably; with {} df a phenomenon needs |t| > "
                        "{:.1f} after Holm over {} phenomena, a paradigm |t| > {:.1f} over {} "
                        "paradigms{}.\n", df_str(o.df), t_ph, c.phenomena.size(), t_pa, c.paradigms.size(),
                        t_pa > 10 ? ": per-paradigm tests cannot resolve much with these seeds" : "");
    else
      md += fmt::format("Resolved: {}; every other phenomenon unresolved.\n", fmt::join(found, "; "));
  }
  if (!any_comparison)
    md += fmt::format("No group has a **{}** group in its stratum to be compared with.\n",
                      c.baseline);
  return md;
}

// findings.md: every number a reader would quote from the comparison, each with its interval,
// test, seeds and detectable difference, for results READMEs to link rather than retype.
std::string findings_md(const Comparison& c) {
  std::string md = fmt::format(
      "# Findings\n\nGenerated by `babyberta compare` from {} result files (report.md has the "
      "method and every table). Differences are group minus {} in accuracy points with 95% t "
      "intervals over seeds; p Holm-corrected within each level.\n\n",
      c.runs.size(), c.baseline);
  md += md_summary(c).substr(std::string("## Summary\n\n").size());
  for (size_t g = 0; g < c.groups.size(); ++g) {
    if (!c.compared(g)) continue;
    const Difference& o = c.overall_diff[g];
    md += fmt::format("\n## {}\n\n- groups: {} (seeds: {}) against {} (seeds: {}); {}\n",
                      column_title(c, g), c.groups[g], c.seeds[g],
                      c.groups[size_t(c.baseline_of[g])], c.seeds[size_t(c.baseline_of[g])],
                      interval_basis(c, g));
    md += fmt::format("- overall: {} − {} = {:+.1f}", pm(c.overall[g]),
                      pm(c.overall[size_t(c.baseline_of[g])]), o.diff);
    if (o.test != SeedTest::none)
      md += fmt::format(" [{:+.1f}, {:+.1f}], p {}, detectable {}", o.lo, o.hi, p_str(o.p),
                        std::isfinite(o.mde) ? fmt::format("≈ {:.1f}", o.mde)
                                             : std::string("— (every seed's difference the same)"));
    md += fmt::format("; bootstrap (seeds and pairs, secondary) {}\n", boot_str(o));
    std::vector<std::string> holm;
    size_t tested = 0;  // phenomena and paradigms with a t interval
    for (const auto& [level, names, diffs] :
         {std::tuple{"phenomenon", &c.phenomena, &c.phenomenon_diff[g]},
          std::tuple{"paradigm", &c.paradigms, &c.paradigm_diff[g]}})
      for (const auto& n : *names) {
        const Difference& d = diffs->at(n);
        if (d.test == SeedTest::none || !d.has_ci) continue;
        ++tested;
        const bool excludes = d.lo > 0 || d.hi < 0;
        if (d.resolved || excludes)
          holm.push_back(fmt::format("  - {} {}: {:+.1f} [{:+.1f}, {:+.1f}], p {} (Holm {}){}",
                                     level, n, d.diff, d.lo, d.hi, p_str(d.p), p_str(d.p_adj),
                                     d.resolved ? ": resolved"
                                                : ": the interval excludes 0, the corrected p "
                                                  "does not reach 0.05 (Holm over the level)"));
      }
    if (tested == 0)
      md += fmt::format(
          "- phenomena and paradigms: exploratory, nothing tested (these seeds give no t interval; "
          "a test needs at least {} seeds in each group). report.md's bootstrap column resamples "
          "seeds and pairs: it shows how far these seeds' scores on these pairs vary, not how "
          "another seed would score, so a bootstrap interval that excludes 0 is no test of the "
          "difference between the groups\n", kMinSeedsForClaims);
    else
      md += holm.empty() ? fmt::format("- no phenomenon or paradigm interval excludes 0 ({} "
                                       "tested)\n", tested)
                         : "- intervals that exclude 0:\n" + fmt::format("{}\n", fmt::join(holm, "\n"));
  }
  return md + primary_endpoints_md(c, c.primary) + equivalence_md(c, c.equivalence);
}

// How a group's runs were made and probed: from a result file's header (its config, method, tie
// rule, suite files) and the training settings probe copied from the run's run.json.
struct GroupSettings {
  std::string preset, steps, masking, corpus, method, tie_rule, suite, pairs;
};

GroupSettings group_settings(const RunResult& r) {
  const nlohmann::json& h = r.header;
  const nlohmann::json& cfg = h["config"];
  const nlohmann::json t = h.value("training", nlohmann::json());
  auto text = [](const nlohmann::json& j) { return j.is_string() ? j.get<std::string>() : j.dump(); };
  GroupSettings s;
  s.preset = t.is_object() && t.contains(flag_name::preset)
                 ? text(t[flag_name::preset])
                 : model_size_label(cfg);
  s.steps = std::to_string(cfg.value("steps", int64_t(0)));
  s.masking = "not recorded";
  s.corpus = "not recorded";
  if (t.is_object()) {
    if (t.contains(flag_name::hf_masking))
      s.masking = t[flag_name::hf_masking].get<bool>()
                      ? fmt::format("HF 80/10/10, p {}", text(t.value(flag_name::mask_prob, nlohmann::json())))
                      : fmt::format("BabyBERTa 90/10/0, p {}, {} patterns",
                                    text(t.value(flag_name::mask_prob, nlohmann::json())),
                                    text(t.value(flag_name::mask_patterns, nlohmann::json())));
    const std::string sha = t.value("--corpus (sha256)", std::string());
    s.corpus = fmt::format("{} ({})", t.value("corpus", std::string("path not recorded")),
                           sha.substr(0, 12));
  }
  s.method = h.value("method", std::string());
  s.tie_rule = h.value("tie_rule", std::string());
  std::vector<std::string> files;
  const nlohmann::json prov = h.value("provenance", nlohmann::json::object());
  if (prov.is_object() && prov.contains("suite_files") && prov["suite_files"].is_array())
    for (const auto& f : prov["suite_files"]) files.push_back(f.value("sha256", std::string()));
  s.suite = fmt::format("{} ({} files: {})", text(h.value("suite", nlohmann::json())), files.size(),
                        sha256_hex(fmt::format("{}", fmt::join(files, ","))).substr(0, 12));
  s.pairs = text(h.value("pairs_per_paradigm", nlohmann::json("all")));
  return s;
}

// A CSV field in double quotes, its own double quotes doubled (RFC 4180).
std::string csv_quote(const std::string& v) {
  std::string out = "\"";
  for (char ch : v) out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return out + "\"";
}

// One CSV line of a level's name and group (d: its difference, when compared).
std::string csv_line(const Comparison& c, size_t g, const std::string& level,
                     const std::string& name, const Stat& s, const Difference* d) {
  std::string line = fmt::format("{},{},{},{},{},{:.4f},{:.4f},{}", level, csv_quote(name),
                                 csv_quote(c.groups[g]), csv_quote(c.labels[g]),
                                 csv_quote(c.strata[g]), s.mean, s.sd, s.n);
  if (!d) return line + ",,,,,,,,,,,,,\n";
  auto num = [](double v, bool has) { return has ? fmt::format("{:.6g}", v) : std::string(); };
  return line + fmt::format(",{},{},{},{},{},{},{},{},{},{},{},{},{}\n",
                            csv_quote(c.groups[size_t(c.baseline_of[g])]),
                            num(d->diff, std::isfinite(d->diff)), num(d->lo, d->has_ci),
                            num(d->hi, d->has_ci), seed_test_name(d->test),
                            num(d->df, d->test != SeedTest::none), num(d->p, d->p >= 0),
                            num(d->p_adj, d->p_adj >= 0), d->resolved ? "yes" : "no",
                            num(d->mde, std::isfinite(d->mde)), num(d->boot_lo, d->has_boot),
                            num(d->boot_hi, d->has_boot), csv_quote(interval_basis(c, g)));
}

// CSV rows of one level: per name and group mean, sd, runs; for compared groups the baseline,
// the difference, its interval, Welch's p, Holm's p and whether it is resolved.
std::string csv_rows(const Comparison& c, const std::string& level,
                     const std::vector<std::string>& names, const Stats& stats,
                     const Diffs& diffs) {
  std::string csv;
  for (const auto& n : names)
    for (size_t g = 0; g < c.groups.size(); ++g)
      csv += csv_line(c, g, level, n, stats[g].at(n), c.compared(g) ? &diffs[g].at(n) : nullptr);
  return csv;
}

std::string report_csv(const Comparison& c) {
  std::string csv =
      "level,name,group,label,stratum,mean,sd,runs,baseline,diff_vs_baseline,ci_low,ci_high,"
      "test,df,p,holm_p,resolved,mde_80,bootstrap_low,bootstrap_high,basis\n";
  csv += csv_rows(c, "phenomenon", c.phenomena, c.phenomenon, c.phenomenon_diff);
  csv += csv_rows(c, "paradigm", c.paradigms, c.paradigm, c.paradigm_diff);
  for (size_t g = 0; g < c.groups.size(); ++g)
    csv += csv_line(c, g, "overall", "overall", c.overall[g],
                    c.compared(g) ? &c.overall_diff[g] : nullptr);
  for (size_t g = 0; g < c.groups.size(); ++g)  // level "frequency share" (word_frequency.h)
    for (const auto& [name, stat] : c.frequency_share[g])
      csv += csv_line(c, g, "frequency share", name, stat, nullptr);
  // The settings of every group, as key-value rows (level "setting", name the setting).
  for (size_t g = 0; g < c.groups.size(); ++g) {
    const RunResult* first = nullptr;
    for (const auto& r : c.runs)
      if (r.group == c.groups[g] && !first) first = &r;
    const GroupSettings s = group_settings(*first);
    for (const auto& [k, v] : {std::pair{"preset", s.preset}, {"steps", s.steps},
                               {"masking", s.masking}, {"corpus", s.corpus}, {"method", s.method},
                               {"tie_rule", s.tie_rule}, {"suite", s.suite},
                               {"pairs_per_paradigm", s.pairs}})
      csv += fmt::format("setting,{},{},{},{},,,{},,,,,,,,,,,,{}\n", csv_quote(k),
                         csv_quote(c.groups[g]), csv_quote(c.labels[g]), csv_quote(c.strata[g]),
                         c.seeds[g], csv_quote(v));
  }
  return csv;
}

// Per group: how its runs were made and probed (from the result files and the runs' run.json).
std::string md_settings(const Comparison& c) {
  std::string md = "\n## Settings\n\n| group | runs (seeds) | preset | steps | masking | corpus "
                   "(sha256) | method | tie rule | suite (sha256 of its files) | pairs per "
                   "paradigm |\n|---|---|---|---|---|---|---|---|---|---|\n";
  for (size_t g = 0; g < c.groups.size(); ++g) {
    std::vector<std::string> seeds;
    const RunResult* first = nullptr;
    for (const auto& r : c.runs)
      if (r.group == c.groups[g]) {
        seeds.push_back(std::to_string(r.seed));
        if (!first) first = &r;
      }
    const GroupSettings s = group_settings(*first);
    md += fmt::format("| {} | {} ({}) | {} | {} | {} | {} | {} | {} | {} | {} |\n", c.groups[g],
                      seeds.size(), fmt::join(seeds, ", "), s.preset, s.steps, s.masking,
                      s.corpus, s.method, s.tie_rule, s.suite, s.pairs);
  }
  return md;
}

std::string md_runs(const Comparison& c) {
  std::string md = "\n## Runs\n\n| file | group | seed | steps | method | overall |\n"
                   "|---|---|---|---|---|---|\n";
  for (const auto& r : c.runs)
    md += fmt::format("| {} | {} | {} | {} | {} | {:.1f} |\n", r.path.filename().string(), r.group,
                      r.seed, r.header["config"].value("steps", int64_t(0)),
                      r.header["method"].get<std::string>(), r.header.value("overall", 0.0));
  return md;
}

// "## title" and a table: one row per name, columns per group, then a difference column per
// compared group.
std::string md_table(const Comparison& c, const std::string& title, const char* what,
                     const std::vector<std::string>& names, const Stats& stats,
                     const Diffs& diffs) {
  std::string md = "\n## " + title + "\n\n| " + what;
  int columns = 1;
  for (const auto& g : c.groups) md += " | " + g, ++columns;
  for (size_t g = 0; g < c.groups.size(); ++g)
    if (c.compared(g)) md += " | " + column_title(c, g), ++columns;
  for (size_t g = 0; g < c.groups.size(); ++g)
    if (c.compared(g)) md += " | bootstrap 95% (seeds and pairs), " + column_title(c, g), ++columns;
  md += " |\n";
  for (int i = 0; i < columns; ++i) md += "|---";
  md += "|\n";
  for (const auto& n : names) {
    md += "| " + n;
    for (size_t g = 0; g < c.groups.size(); ++g) md += " | " + pm(stats[g].at(n));
    for (size_t g = 0; g < c.groups.size(); ++g)
      if (c.compared(g)) md += " | " + diff_str(diffs[g].at(n));
    for (size_t g = 0; g < c.groups.size(); ++g)
      if (c.compared(g)) md += " | " + boot_str(diffs[g].at(n));
    md += " |\n";
  }
  return md;
}

std::string report_md(const Comparison& c, const std::vector<std::string>& charts) {
  std::string md = fmt::format("# Attention-function comparison\n\n{} runs in {} groups. ",
                               c.runs.size(), c.groups.size());
  md += md_method(c) + "\n" + md_summary(c) + md_settings(c);
  md += md_table(c, "Phenomena", "phenomenon", c.phenomena, c.phenomenon, c.phenomenon_diff);
  md += "| **overall (mean over paradigms)**";
  for (size_t g = 0; g < c.groups.size(); ++g) md += " | **" + pm(c.overall[g]) + "**";
  for (size_t g = 0; g < c.groups.size(); ++g)
    if (c.compared(g)) md += " | " + diff_str(c.overall_diff[g]);
  for (size_t g = 0; g < c.groups.size(); ++g)
    if (c.compared(g)) md += " | " + boot_str(c.overall_diff[g]);
  md += " |\n";
  md += md_table(c, "Paradigms", "paradigm", c.paradigms, c.paradigm, c.paradigm_diff);
  md += frequency_md(c) + "\n## Charts\n\n";
  for (const auto& f : charts) md += fmt::format("![{}]({})\n\n", f.substr(0, f.size() - 4), f);
  return md + md_runs(c);
}

}  // namespace

void write_report(const fs::path& dir, const Comparison& c) {
  fs::create_directories(dir);
  const std::vector<ReportChart> charts = report_charts(c);
  std::vector<std::string> names;
  for (const auto& chart : charts) {
    write_file_atomic(dir / chart.file, chart.svg);
    names.push_back(chart.file);
  }
  write_file_atomic(dir / "report.md", report_md(c, names));
  write_file_atomic(dir / "findings.md", findings_md(c));
  write_file_atomic(dir / "report.csv", report_csv(c));
}

}  // namespace bb
