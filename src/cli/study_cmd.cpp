// attnlab train --study tradeoffs: the chapter's variants trained over several seeds on the same
// text (src/train/tradeoffs_study.h). Prints a table of the held-out losses; --json writes the
// results that `lesson tradeoffs` reads (data/tradeoffs/results.json was written so).
#include <unistd.h>

#include <cmath>

#include <fmt/format.h>

#include "commands.h"
#include "corpus.h"
#include "errors.h"
#include "table.h"
#include "text.h"
#include "specialize_runs.h"
#include "tradeoffs_study.h"

namespace attn::cli {

void run_study_command(const std::string& study, const std::string& json, std::size_t workers, bool quiet) {
  if (study != "tradeoffs" && study != "specialize") throw UsageError("train.err.study", {{"flag", "--study"}, {"value", study}});
  if (!json.empty()) declare_output("--json", json);
  const Text& t = text();
  if (study == "specialize") {  // lessons specialize and symmetry: the same runs at several seeds
    const std::vector<train::SeedOutcome> runs = train::specialize_seed_runs(workers);
    TextTable tab;
    tab.header = {t("train.study.col.seed_only"), t("train.study.col.loss_one"), t("train.study.col.loss_many"),
                  t("train.study.col.loss_clones"), t("train.study.col.gap")};
    tab.right.assign(tab.header.size(), true);
    for (const train::SeedOutcome& o : runs)
      tab.rows.push_back({fmt::format("{}", o.seed), fmt::format("{:.4f}", o.loss_one), fmt::format("{:.4f}", o.loss_many),
                          fmt::format("{:.4f}", o.loss_clones), fmt::format("{:g}", o.clone_gap_max)});
    const std::string out = t("train.study.specialize_title", {{"seeds", runs.size()}}) + "\n" + render_table(tab);
    if (!json.empty()) write_json_doc(json, "attnlab.specialize-seeds/1", train::seed_outcomes_json(runs));
    commit_outputs();
    if (json.empty()) emit(out);
    print_written();
    return;
  }
  const CorpusSplit split = split_corpus(bundled_corpus(train::kStudyCorpus),
                                         train::kStudyMinCount, train::kStudyKeep);
  train::TextData data{split.train_ids, split.heldout_ids, split.vocab.tokens.size()};
  const bool show = !quiet && ::isatty(STDERR_FILENO) == 1;
  const train::StudyResults r =
      train::run_study(data, train::kStudyCorpus, split.characters, split.heldout_characters, workers,
                       [&](std::size_t done, std::size_t runs) {
                         if (show) fmt::print(stderr, "\r{}\x1b[K{}", t("train.study.progress", {{"done", done}, {"runs", runs}}),
                                              done == runs ? "\n" : "");
                       });
  std::string out = t("train.study.title", {{"variants", r.variants.size()}, {"seeds", std::size(train::kStudySeeds)},
                                            {"corpus", r.corpus}, {"chars", r.characters}, {"heldout", r.heldout_characters}}) + "\n";
  TextTable tab;
  tab.header = {t("train.study.col.variant"), t("train.study.col.params"), t("train.study.col.cache")};
  for (std::uint64_t s : train::kStudySeeds) tab.header.push_back(t("train.study.col.seed", {{"seed", s}}));
  tab.header.push_back(t("train.study.col.median"));
  tab.right.assign(tab.header.size(), true);
  tab.right[0] = false;
  for (const train::StudyVariant& v : r.variants) {
    std::vector<std::string> row{v.id, fmt::format("{}", static_cast<std::size_t>(decoder::decoder_param_count(v.model))),
                                 fmt::format("{}", v.model.cache_per_token())};
    std::vector<double> losses;
    for (const train::StudyRunResult& run : r.runs)
      if (run.variant == v.id) {
        row.push_back(fmt::format("{:.4f}", run.heldout_loss));
        losses.push_back(run.heldout_loss);
      }
    row.push_back(fmt::format("{:.4f}", train::seed_spread(losses).median));
    tab.rows.push_back(row);
  }
  out += render_table(tab);
  out += "  " + t("train.study.more") + "\n";
  if (!json.empty()) write_json_doc(json, "attnlab.tradeoffs/1", train::study_results_json(r));
  commit_outputs();
  if (json.empty()) emit(out);
  print_written();
}

}  // namespace attn::cli
