// The `babyberta` Python module's engine (_babyberta): models loaded from run directories and
// scored through the CLI's own code path. python/babyberta/__init__.py wraps it in minicons' words.
// Every engine call releases the GIL (engine_call.h); a bb::Error reaches Python as
// babyberta.Error carrying the CLI's one-line message.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backend/kernel_choice.h"
#include "encoder/config_keys.h"
#include "backend/precision.h"
#include "common/error.h"
#include "python/engine_call.h"
#include "probing/compare.h"
#include "probing/primary_endpoints.h"
#include "probing/report.h"
#include "python/loaded_model.h"
#include "python/training.h"
#include "runs/perplexity_run.h"
#include "runs/probe_run.h"
#include "runs/saturation_run.h"

namespace py = pybind11;
using namespace pybind11::literals;

namespace bb::python {
namespace {

py::object from_json(const nlohmann::json& j) {
  return py::module_::import("json").attr("loads")(j.dump());
}

// The method `name` names for m's kind (empty: the kind's default; minicons' names for the
// pseudo-log-likelihood variants beside ours); a method of another kind is babyberta.Error.
Method method_of(const LoadedModel& m, const std::string& name, const char* call) {
  const std::string ours = name == "original"          ? "pll"
                           : name == "within_word_l2r" ? "pll-word-l2r"
                                                       : name;
  return engine_call([&] { return method_for(ours, m.kind(), call); });
}

py::list sequence_score(LoadedModel& m, const std::vector<std::string>& sentences,
                        const std::string& method, const std::string& reduction) {
  const Method meth = method_of(m, method, "sequence_score");
  const Reduction red = parse_reduction(reduction);
  const std::vector<double> scores = engine_call([&] {
    std::vector<double> out;
    for (const SentenceScore& s : m.score(sentences, meth))
      out.push_back(reduce_to_logprob(s.logprobs, red));  // every method: higher is better
    return out;
  });
  return py::cast(scores);
}

// Per sentence a float64 array of the scored tokens' log-probabilities.
py::list token_logprobs(LoadedModel& m, const std::vector<std::string>& sentences,
                        const std::string& method) {
  const Method meth = method_of(m, method, "token_logprobs");
  const auto scores = engine_call([&] { return m.score(sentences, meth); });
  py::list out;
  for (const SentenceScore& s : scores)
    out.append(py::array_t<double>(py::ssize_t(s.logprobs.size()), s.logprobs.data()));
  return out;
}

// Per sentence a list of (piece, log-probability) of the scored tokens.
py::list token_score(LoadedModel& m, const std::vector<std::string>& sentences,
                     const std::string& method) {
  const Method meth = method_of(m, method, "token_score");
  const auto scores = engine_call([&] { return m.score(sentences, meth); });
  py::list out;
  for (const SentenceScore& s : scores) {
    const std::vector<std::string> pieces = m.scored_pieces(s);
    py::list tokens;
    for (size_t t = 0; t < pieces.size(); ++t) tokens.append(py::make_tuple(pieces[t], s.logprobs[t]));
    out.append(tokens);
  }
  return out;
}

// Per sentence a list of (word, log-probability): its whitespace words, pieces summed.
py::list word_score(LoadedModel& m, const std::vector<std::string>& sentences,
                    const std::string& method) {
  const Method meth = method_of(m, method, "word_score");
  const auto words = engine_call([&] {
    std::vector<std::vector<WordScore>> out;
    for (const SentenceScore& s : m.score(sentences, meth)) out.push_back(m.words(s, meth));
    return out;
  });
  py::list out;
  for (const auto& sentence : words) {
    py::list one;
    for (const WordScore& w : sentence) one.append(py::make_tuple(w.word, w.logprob));
    out.append(one);
  }
  return out;
}

// Per (prefix, continuation) pair the continuation's log-probability given the prefix, reduced
// ("sum" or "mean"), or with an empty reduction a float64 array of its pieces' log-probs.
py::list conditional_score(LoadedModel& m, const std::vector<std::string>& prefixes,
                           const std::vector<std::string>& continuations,
                           const std::string& method, const std::string& reduction) {
  const Method meth = method_of(m, method, "conditional_score");
  const auto logprobs = engine_call(
      [&] { return m.conditional_logprobs(prefixes, continuations, meth, "conditional_score"); });
  py::list out;
  for (const std::vector<double>& lp : logprobs) {
    if (reduction.empty())
      out.append(py::array_t<double>(py::ssize_t(lp.size()), lp.data()));
    else
      out.append(reduce_to_logprob(lp, engine_call([&] { return parse_reduction(reduction); })));
  }
  return out;
}

// (weights [layers, heads, L, L] float32, pieces) of one sentence.
py::tuple attention(const LoadedModel& m, const std::string& sentence) {
  const SentenceAttention a = engine_call([&] { return m.attention(sentence); });
  const py::ssize_t L = a.length();
  py::array_t<float> w({py::ssize_t(m.layers()), py::ssize_t(m.heads()), L, L});
  std::copy(a.weights.begin(), a.weights.end(), w.mutable_data());
  return py::make_tuple(w, a.pieces);
}

// `compare`'s report (report.md, report.csv, findings.md, charts) in `out`.
void compare(const std::vector<std::filesystem::path>& results, const std::filesystem::path& out,
             const std::string& baseline, int bootstrap, const std::vector<std::string>& primary) {
  BB_CHECK(bootstrap >= 1 && bootstrap <= 1000000, "bootstrap: {} replicates, expected 1 to "
           "1,000,000", bootstrap);
  engine_call([&] {
    Comparison c = compare_runs(load_runs(result_files(results)), bootstrap, 1, baseline);
    c.primary = primary;
    check_primary_endpoints(c, c.primary);
    write_report(out, c);
    return 0;
  });
}

// Per sentence its logits, float32 [L, V] (with <s>, </s>; "<mask>" markers as the mask token).
py::list logits(LoadedModel& m, const std::vector<std::string>& sentences) {
  py::list out;
  const int V = m.config_json().value("vocab_size", 0);
  for (const std::string& s : sentences) {
    std::vector<int32_t> ids;
    const std::vector<float> z = engine_call([&] { return m.logits(s, ids); });
    py::array_t<float> a({py::ssize_t(ids.size()), py::ssize_t(V)});
    std::copy(z.begin(), z.end(), a.mutable_data());
    out.append(a);
  }
  return out;
}

// Per "<mask>" a list of {"token", "id", "probability"} dicts, most probable first.
py::list fill_mask(LoadedModel& m, const std::string& text, int k) {
  const auto filled = engine_call([&] { return m.fill_mask(text, k); });
  py::list out;
  for (const auto& best : filled) {
    py::list one;
    for (const auto& f : best)
      one.append(py::dict("token"_a = f.piece, "id"_a = f.id, "probability"_a = f.probability));
    out.append(one);
  }
  return out;
}

// `saturation`'s analysis (runs/saturation_run.h) written into a.out; unset lists keep the
// command's defaults.
void saturation(bb::SaturationArgs a, const std::optional<std::vector<double>>& scales,
                const std::optional<std::vector<double>>& boosts) {
  if (scales) a.settings.scales = *scales;
  if (boosts) a.settings.boosts = *boosts;
  for (const auto* v : {&a.settings.scales, &a.settings.boosts})
    BB_CHECK(!v->empty() && std::all_of(v->begin(), v->end(), [](double x) { return x >= 0; }),
             "saturation: scales and boosts must be non-empty lists of numbers >= 0");
  engine_call([&] { return run_saturation(a); });
}

py::dict trained_values(const LoadedModel& m) {
  py::dict out;
  for (const auto& [name, v] : m.trained_values()) {
    py::array_t<double> a({py::ssize_t(m.layers()), py::ssize_t(m.heads())});
    std::copy(v.begin(), v.end(), a.mutable_data());
    out[py::str(name)] = a;
  }
  return out;
}

}  // namespace
}  // namespace bb::python

PYBIND11_MODULE(_babyberta, m) {
  using namespace bb::python;
  m.doc() = "babyberta.cpp's engine; use the `babyberta` package that wraps it";
  m.attr("__version__") = BB_VERSION;  // the project's version (CMakeLists.txt, CHANGELOG.md)
  py::register_exception<bb::Error>(m, "Error", PyExc_RuntimeError);
  // The CLI re-execs itself to get OpenBLAS's full-width kernels; a module cannot, so it says.
  m.def("blas_info", [] {
    return py::dict("provenance"_a = bb::blas_provenance(),
                    "full_width"_a = bb::openblas_full_width(),
                    "widest_core"_a = bb::blas_core_for_this_cpu() ? bb::blas_core_for_this_cpu() : "",
                    "unsupported"_a = bb::unsupported_blas_core(),
                    // --precision bf16's ISA here ("avx512_core_amx", "avx512_core_bf16"; "": none)
                    "bf16_isa"_a = bb::bf16_isa());
  });
  py::class_<LoadedModel>(m, "Model")
      .def_property_readonly("path", &LoadedModel::dir)
      .def_property_readonly("config", [](const LoadedModel& x) { return from_json(x.config_json()); })
      .def_property_readonly("attention_function", &LoadedModel::attention_label)
      .def_property_readonly("kind", [](const LoadedModel& x) {
        return std::string(config_keys(x.kind()).model_type);
      })
      .def_property_readonly("trained_values", &trained_values)
      .def("sequence_score", &sequence_score, "sentences"_a, "method"_a, "reduction"_a)
      .def("token_logprobs", &token_logprobs, "sentences"_a, "method"_a)
      .def("token_score", &token_score, "sentences"_a, "method"_a)
      .def("word_score", &word_score, "sentences"_a, "method"_a)
      .def("conditional_score", &conditional_score, "prefixes"_a, "continuations"_a, "method"_a,
           "reduction"_a)
      .def_property_readonly("threads", &LoadedModel::threads)
      .def("attention", &attention, "sentence"_a)
      .def("logits", &logits, "sentences"_a)
      .def("fill_mask", &fill_mask, "text"_a, "k"_a)
      .def("encode", [](const LoadedModel& x, const std::vector<std::string>& sentences) {
        return x.encode(sentences);
      })
      // The tokenizer's own calls (Python's Model.tokenizer): ids without <s> </s> added here.
      .def("decode", [](const LoadedModel& x, const std::vector<int32_t>& ids) {
        const int V = x.tokenizer().vocab_size();
        for (size_t i = 0; i < ids.size(); ++i)
          BB_CHECK(ids[i] >= 0 && ids[i] < V, "decode: ids[{}] is {}, expected 0 to {}", i, ids[i],
                   V - 1);
        return x.tokenizer().decode(ids);
      })
      .def("piece", [](const LoadedModel& x, int32_t id) {
        BB_CHECK(id >= 0 && id < x.tokenizer().vocab_size(), "id_to_piece: {} is not an id "
                 "(expected 0 to {})", id, x.tokenizer().vocab_size() - 1);
        return x.tokenizer().piece(id);
      })
      .def("piece_id", [](const LoadedModel& x, const std::string& piece) {
        return x.tokenizer().piece_id(piece);
      })
      .def_property_readonly("vocab_size", [](const LoadedModel& x) {
        return x.tokenizer().vocab_size();
      });
  m.def("probe", [](const std::string& model, const std::vector<std::string>& suites,
                    const std::string& out, const std::string& method, const std::string& reduction,
                    const std::string& tie_rule, int pairs_per_paradigm, int threads,
                    const std::string& device, std::optional<bool> header,
                    const std::string& precision) {
    bb::ProbeArgs a{.model = model, .suite = suites.at(0), .out = out, .tie_rule = tie_rule,
                .method = method, .reduction = reduction, .threads = threads, .device = device,
                .precision = precision, .pairs_per_paradigm = pairs_per_paradigm, .quiet = true, .suites = suites,
                .header = header.value_or(false), .no_header = header && !*header};
    return engine_call([&] { return run_probe(a).notes; });  // the notes the CLI prints
  }, "model"_a, "suites"_a, "out"_a, "method"_a, "reduction"_a, "tie_rule"_a,
     "pairs_per_paradigm"_a, "threads"_a, "device"_a, "header"_a, "precision"_a = "fp32");
  m.def("perplexity", [](const std::string& model, const std::vector<std::string>& texts,
                         const std::vector<std::string>& good_of,
                         const std::vector<std::string>& dev_of, int threads,
                         const std::string& device, const std::string& precision) {
    const bb::PerplexityArgs a{.model = model, .texts = texts, .good_of = good_of,
                               .dev_of = dev_of, .out = "", .threads = threads, .device = device,
                               .precision = precision, .quiet = true};
    return from_json(engine_call([&] { return run_perplexity(a); }));
  }, "model"_a, "texts"_a, "good_of"_a, "dev_of"_a, "threads"_a, "device"_a, "precision"_a);
  m.def("compare", &compare, "results"_a, "out"_a, "baseline"_a, "bootstrap"_a, "primary"_a);
  m.def("saturation", [](const std::vector<std::string>& models, const std::string& suite,
                         const std::string& out, const std::optional<std::vector<double>>& scales,
                         const std::optional<std::vector<double>>& boosts, int sentences,
                         uint64_t seed, bool analytic, const std::string& attention, int length,
                         const std::string& sigmas, int points, int threads,
                         const std::string& device) {
    bb::SaturationArgs a;
    a.models = models, a.suite = suite, a.out = out, a.sentences = sentences, a.analytic = analytic;
    if (!attention.empty()) a.attention = attention;
    a.length = length, a.points = points, a.threads = threads, a.device = device;
    if (!sigmas.empty()) a.sigmas = sigmas;
    a.settings.seed = seed;
    saturation(a, scales, boosts);
  }, "models"_a, "suite"_a, "out"_a, "scales"_a, "boosts"_a, "sentences"_a, "seed"_a,
     "analytic"_a, "attention"_a, "length"_a, "sigmas"_a, "points"_a, "threads"_a, "device"_a);
  m.def("train_flag_forms", &train_flag_forms);
  m.def("train", &train, "args"_a, "progress"_a);
  m.def("icl_train_flag_forms", &icl_train_flag_forms);
  m.def("icl_train", &icl_train, "args"_a, "progress"_a);
  m.def("load", [](const std::filesystem::path& dir, const std::string& device, int threads,
                   const std::string& precision) {
    return engine_call(
        [&] { return std::make_unique<LoadedModel>(dir, device, threads, precision); });
  }, "run_dir"_a, "device"_a = "cpu", "threads"_a = 1, "precision"_a = "fp32");
}
