#include "workload/dataset.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <set>

#include "core/data_dir.h"
#include "util/scratch.h"
#include "workload/length_table.h"
#include "workload/request_spec_test_util.h"

namespace frontier::workload {
namespace {

TEST(DatasetTest, EstimateTokensIsFourCodePointsPerToken) {
  EXPECT_EQ(EstimateTokens(""), 1);
  EXPECT_EQ(EstimateTokens("abcd"), 1);
  EXPECT_EQ(EstimateTokens("abcdefghij"), 3);       // 10/4 = 2.5 -> 3 (round half away)
  EXPECT_EQ(EstimateTokens("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"), 2);  // 8 x 'é'
}

TEST(DatasetTest, RandomUsesTopLevelCountAndSeed) {
  DatasetOptions o;
  o.num_prompts = 7;
  o.seed = 5;
  o.random.input_len = 10;
  o.random.output_len = 3;
  auto r = LoadDataset(o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->size(), 7u);
  EXPECT_EQ((*r)[6].id, 6);
  EXPECT_EQ((*r)[0].prompt_token_ids.size(), 10u);
}

TEST(DatasetTest, JsonlReadsPromptsAndOutputLengths) {
  testing_util::ScratchDir tmp("dataset");  // the files below, removed at the end
  auto path = tmp.Write("ok.jsonl",
                       "{\"prompt\": \"hello there my friend\", \"output_len\": 12}\n\n"
                       "{\"prompt\": \"abcdefgh\", \"output_len\": 3}\n");
  DatasetOptions o;
  o.kind = DatasetKind::kJsonl;
  o.path = path;
  o.num_prompts = 2;
  auto r = LoadDataset(o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)[0].prompt_text, "hello there my friend");
  EXPECT_EQ((*r)[0].output_len, 12);
  EXPECT_EQ((*r)[0].input_len, 5);  // 21 chars / 4 = 5.25 -> 5
  EXPECT_EQ((*r)[1].output_len, 3);
  EXPECT_EQ((*r)[1].input_len, 2);
  o.num_prompts = 3;
  auto short_file = LoadDataset(o);
  ASSERT_FALSE(short_file.ok());
  EXPECT_NE(short_file.status().message().find("only 2"), std::string::npos);
  o.allow_repeat = true;
  auto cycled = LoadDataset(o);
  ASSERT_TRUE(cycled.ok());
  EXPECT_EQ((*cycled)[2].prompt_text, "hello there my friend");
  EXPECT_EQ((*cycled)[2].id, 2);
}

TEST(DatasetTest, JsonlErrorsNameFileLineAndField) {
  testing_util::ScratchDir tmp("dataset");  // the files below, removed at the end
  DatasetOptions o;
  o.kind = DatasetKind::kJsonl;
  o.num_prompts = 1;
  o.path = tmp.Write("bad1.jsonl", "{\"prompt\": \"a\", \"output_len\": 2}\n{\"prompt\": \"b\"}\n");
  auto r = LoadDataset(o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find(o.path + ":2"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("output_len"), std::string::npos);
  o.path = tmp.Write("bad2.jsonl", "{oops\n");
  r = LoadDataset(o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find(o.path + ":1: not valid JSON"), std::string::npos);
  o.path = "/nonexistent/file.jsonl";
  EXPECT_EQ(LoadDataset(o).status().code(), StatusCode::kNotFound);
}

TEST(DatasetTest, LengthsOutsideOneRequestsBoundAreNamedWithTheRange) {
  testing_util::ScratchDir tmp("dataset");  // the files below, removed at the end
  DatasetOptions o;
  o.kind = DatasetKind::kJsonl;
  o.num_prompts = 1;
  // 16777216 used to pass (a bound of 2^24, not the 10,000,000 every other length has); the others
  // were refused without the value.
  const std::pair<std::string, std::string> cases[] = {
      {"16777216", "field \"output_len\" must be an integer in [1, 10000000], got 16777216"},
      {"-5", "field \"output_len\" must be an integer in [1, 10000000], got -5"},
      {"1e30", "field \"output_len\" must be an integer in [1, 10000000], got 1e+30"},
      {"18446744073709551615", "field \"output_len\" must be an integer in [1, 10000000], got 18446744073709551615"},
      {"\"8\"", "field \"output_len\" must be an integer in [1, 10000000], got \"8\""},
  };
  for (const auto& [value, message] : cases) {
    o.path = tmp.Write("len.jsonl", "{\"prompt\": \"a\", \"output_len\": " + value + "}\n");
    auto r = LoadDataset(o);
    ASSERT_FALSE(r.ok()) << value;
    EXPECT_EQ(r.status().message(), o.path + ":1: " + message) << value;
  }
  // A prompt of about 10,000,001 tokens (4 characters each) is one past the bound, in both formats.
  const std::string huge(40'000'004, 'p');
  o.path = tmp.Write("huge.jsonl", "{\"prompt\": \"" + huge + "\", \"output_len\": 8}\n");
  // Its 40 MB line is past the default bound on one line (16 MiB), which names it first...
  auto r = LoadDataset(o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), o.path + ":1: a line longer than 16 MiB, the bound on one line of datasets "
                                           "(docs/limits.md); set FRONTIER_MAX_LINE_MB to raise it");
  // ... and with that bound raised, the prompt's own bound does.
  ::setenv("FRONTIER_MAX_LINE_MB", "64", 1);
  r = LoadDataset(o);
  ::unsetenv("FRONTIER_MAX_LINE_MB");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), o.path +
                                      ":1: the prompt is about 10000001 tokens; one request's prompt is at most "
                                      "10000000 (docs/limits.md)");
  o.kind = DatasetKind::kShareGpt;
  o.sharegpt_output_len = 8;
  o.path = tmp.Write("huge.json", "[{\"conversations\": [{\"from\": \"human\", \"value\": \"" + huge +
                                     "\"}, {\"from\": \"gpt\", \"value\": \"x\"}]}]");
  r = LoadDataset(o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find(": entry 0: the prompt is about 10000001 tokens"), std::string::npos)
      << r.status().message();
}

TEST(DatasetTest, ShareGptTakesFirstHumanTurnAndFiltersLikeVllm) {
  testing_util::ScratchDir tmp("dataset");  // the files below, removed at the end
  const std::string prompt(40, 'p');   // 10 tokens
  const std::string answer(80, 'a');   // 20 tokens
  const std::string tiny = "hi";       // 1 token: filtered out
  std::string doc = "[";
  doc += "{\"conversations\": [{\"from\": \"human\", \"value\": \"" + prompt +
         "\"}, {\"from\": \"gpt\", \"value\": \"" + answer + "\"}]},";
  doc += "{\"conversations\": [{\"from\": \"human\", \"value\": \"" + tiny +
         "\"}, {\"from\": \"gpt\", \"value\": \"" + answer + "\"}]},";
  doc += "{\"conversations\": [{\"from\": \"human\", \"value\": \"only one turn\"}]}";
  doc += "]";
  DatasetOptions o;
  o.kind = DatasetKind::kShareGpt;
  o.path = tmp.Write("share.json", doc);
  o.num_prompts = 1;
  auto r = LoadDataset(o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)[0].prompt_text, prompt);
  EXPECT_EQ((*r)[0].input_len, 10);
  EXPECT_EQ((*r)[0].output_len, 20);
  o.num_prompts = 2;  // only one pair survives the filter
  EXPECT_FALSE(LoadDataset(o).ok());
  o.sharegpt_output_len = 64;  // fixed output length: the short prompt is kept
  auto fixed = LoadDataset(o);
  ASSERT_TRUE(fixed.ok()) << fixed.status().ToString();
  EXPECT_EQ((*fixed)[0].output_len, 64);
}

// A ShareGPT file is read as a stream: the --num-prompts usable entries with
// the smallest seeded keys are taken, the same for a seed, and every entry is
// checked, not only those taken.
TEST(DatasetTest, ShareGptStreamsAndTakesASeededChoice) {
  testing_util::ScratchDir tmp("dataset");
  std::string doc = "[";
  for (int i = 0; i < 50; ++i) {
    if (i > 0) doc += ",\n";
    doc += "{\"conversations\": [{\"from\": \"human\", \"value\": \"prompt " + std::to_string(i) + " " +
           std::string(40, 'p') + "\"}, {\"from\": \"gpt\", \"value\": \"" + std::string(80, 'a') + "\"}]}";
  }
  DatasetOptions o;
  o.kind = DatasetKind::kShareGpt;
  o.path = tmp.Write("share.json", doc + "]");
  o.num_prompts = 5;
  o.seed = 7;
  auto a = LoadDataset(o);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  auto again = LoadDataset(o);
  ASSERT_TRUE(again.ok());
  std::set<std::string> taken;
  for (size_t i = 0; i < a->size(); ++i) {
    EXPECT_EQ((*a)[i].prompt_text, (*again)[i].prompt_text);
    taken.insert((*a)[i].prompt_text);
  }
  EXPECT_EQ(taken.size(), 5u);  // five distinct conversations
  o.seed = 8;
  auto other = LoadDataset(o);
  ASSERT_TRUE(other.ok());
  bool differs = false;
  for (size_t i = 0; i < other->size(); ++i) differs = differs || (*other)[i].prompt_text != (*a)[i].prompt_text;
  EXPECT_TRUE(differs);
  // All fifty when asked for fifty; more cycle through them with allow_repeat.
  o.num_prompts = 50;
  auto all = LoadDataset(o);
  ASSERT_TRUE(all.ok());
  std::set<std::string> every;
  for (const auto& r : *all) every.insert(r.prompt_text);
  EXPECT_EQ(every.size(), 50u);
  // A bad entry after the ones taken is still an error, naming it.
  o.num_prompts = 1;
  o.path = tmp.Write("late.json", doc + ",\n{\"x\": 1}]");
  auto late = LoadDataset(o);
  ASSERT_FALSE(late.ok());
  EXPECT_EQ(late.status().message(), o.path + ": entry 50: field \"conversations\" is missing or not an array");
  // Not an array; nested too deep; an entry of too many values.
  o.path = tmp.Write("obj.json", "{\"conversations\": []}");
  EXPECT_EQ(LoadDataset(o).status().message(),
            o.path + ":1: a ShareGPT file is a JSON array of {\"conversations\": [...]} objects");
  o.path = tmp.Write("deep.json", std::string(100, '['));
  EXPECT_NE(LoadDataset(o).status().message().find(": entry 0: nested deeper than 16 levels"), std::string::npos);
  std::string many = "[{\"conversations\": [";
  for (int i = 0; i < 100'001; ++i) many += "0,";
  o.path = tmp.Write("many.json", many + "0]}]");
  EXPECT_NE(LoadDataset(o).status().message().find(":1: entry 0: more than 100000 JSON values in one entry"),
            std::string::npos);
}

TEST(DatasetTest, ShareGptErrorsNameTheField) {
  testing_util::ScratchDir tmp("dataset");  // the files below, removed at the end
  DatasetOptions o;
  o.kind = DatasetKind::kShareGpt;
  o.num_prompts = 1;
  o.path = tmp.Write("bad.json", "[{\"conversations\": [{\"from\": \"human\"}, {\"value\": \"x\"}]}]");
  auto r = LoadDataset(o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("conversations[0].value"), std::string::npos)
      << r.status().message();
  o.path = tmp.Write("bad3.json", "[\n{\"conversations\": [}\n]");
  r = LoadDataset(o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find(o.path + ":2:"), std::string::npos) << r.status().message();
  o.path = "";
  EXPECT_NE(LoadDataset(o).status().message().find("--dataset-path"), std::string::npos);
}

using testing::ExpectSameSpecs;

// A file read once for m requests, then drawn for any n <= m (or any n, when
// the read holds every usable entry), gives LoadDataset's requests for n:
// the same prompts, lengths, ids and cancellations, and the same errors.
TEST(DatasetTest, DrawsFromOneReadEqualLoadDataset) {
  testing_util::ScratchDir tmp("dataset");  // the files below, removed at the end
  // JSONL: 12 lines of different lengths, a blank line among them.
  std::string jsonl;
  for (int i = 0; i < 12; ++i) {
    jsonl += "{\"prompt\": \"line " + std::to_string(i) + " " + std::string(static_cast<size_t>(4 * i), 'x') +
             "\", \"output_len\": " + std::to_string(10 + i) + "}\n";
    if (i == 5) jsonl += "\n";
  }
  // ShareGPT: 30 conversations, every third one's prompt too short to use (10 usable are filtered).
  std::string share = "[";
  for (int i = 0; i < 30; ++i) {
    const size_t k = static_cast<size_t>(i);
    const std::string prompt = i % 3 == 0 ? "hi" : "prompt " + std::to_string(i) + " " + std::string(16 + 4 * k, 'p');
    share += std::string(i > 0 ? ",\n" : "") + "{\"conversations\": [{\"from\": \"human\", \"value\": \"" +
             prompt + "\"}, {\"from\": \"gpt\", \"value\": \"" + std::string(20 + 8 * k, 'a') + "\"}]}";
  }
  struct File {
    DatasetKind kind;
    std::string path;
    int64_t usable;
  };
  const File files[] = {{DatasetKind::kJsonl, tmp.Write("d.jsonl", jsonl), 12},
                        {DatasetKind::kShareGpt, tmp.Write("d.json", share + "]"), 20}};
  int64_t cancelled = 0;
  for (const File& f : files) {
    for (uint64_t seed : {7u, 8u}) {
      DatasetOptions o;
      o.kind = f.kind;
      o.path = f.path;
      o.seed = seed;
      o.allow_repeat = true;
      o.cancel.fraction = 0.5;
      o.cancel.after_tokens = 3;
      for (int64_t m : {1, 5, 12, 20, 40}) {
        o.num_prompts = m;
        Result<DatasetEntries> read = ReadDatasetEntries(o);
        ASSERT_TRUE(read.ok()) << read.status().ToString();
        EXPECT_EQ(read->usable, f.usable);
        EXPECT_EQ(static_cast<int64_t>(read->entries.size()), std::min(m, f.usable));
        for (int64_t n = 1; n <= 45; ++n) {
          const std::string what = std::string(DatasetKindName(f.kind)) + " seed " + std::to_string(seed) +
                                   " read " + std::to_string(m) + " draw " + std::to_string(n);
          o.num_prompts = n;
          Result<std::vector<RequestSpec>> drawn = DrawDataset(*read, o);
          if (!read->Covers(n)) {  // a read of fewer entries than n, the file holding more
            EXPECT_TRUE(n > m && m < f.usable) << what;
            EXPECT_EQ(drawn.status().code(), StatusCode::kFailedPrecondition) << what;
            continue;
          }
          Result<std::vector<RequestSpec>> loaded = LoadDataset(o);
          ASSERT_TRUE(loaded.ok()) << what << ": " << loaded.status().ToString();
          ASSERT_TRUE(drawn.ok()) << what << ": " << drawn.status().ToString();
          ExpectSameSpecs(*drawn, *loaded, what);
          for (const RequestSpec& r : *drawn) cancelled += r.cancel_after_tokens > 0 ? 1 : 0;
          // Without allow_repeat, past the usable count: the same error.
          o.allow_repeat = false;
          const Status want = LoadDataset(o).status();
          const Status got = DrawDataset(*read, o).status();
          EXPECT_EQ(got.ok(), n <= f.usable) << what;
          EXPECT_EQ(got.ToString(), want.ToString()) << what;
          o.allow_repeat = true;
        }
        o.num_prompts = m;
      }
    }
  }
  EXPECT_GT(cancelled, 0);  // cancellation was drawn, and compared
}

}  // namespace
// An MLPerf dataset draws its lengths from the benchmark's quantile table
// (inverse CDF, linear between quantiles) and sends prompts of exactly those
// lengths. A table whose inputs are all 40 tokens and whose outputs run
// linearly from 10 to 30 (quantiles 10, 20, 30): every prompt is 40 token ids,
// outputs stay in [10, 30] with mean 20, and the cap of 25 clips the top.
TEST(DatasetTest, MlperfDrawsTheBenchmarksLengthTable) {
  testing_util::ScratchDir tmp("dataset");  // the files below, removed at the end
  const std::string table = R"({"datasets": {"toy": {"benchmark": {"value": "toy-70b", "source": "made here"},
      "samples": {"value": 3, "source": "made here"}, "input_quantiles": [40, 40, 40],
      "output_quantiles": {"value": [10, 20, 30], "source": "made here"}, "max_output": 25}}})";
  const std::string path = tmp.Write("datasets.json", table);
  ASSERT_TRUE(ParseDatasetKind("mlperf:toy-70b").ok());
  EXPECT_EQ(*ParseDatasetKind("mlperf:toy-70b"), DatasetKind::kMlperf);
  EXPECT_FALSE(ParseDatasetKind("mlperf:").ok());
  DatasetOptions o;
  o.kind = DatasetKind::kMlperf;
  o.length_table = "toy-70b";
  o.path = path;
  o.num_prompts = 4000;
  o.seed = 3;
  auto r = LoadDataset(o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->size(), 4000u);
  double sum = 0;
  int capped = 0;
  for (const auto& q : *r) {
    EXPECT_EQ(q.input_len, 40);
    EXPECT_EQ(q.prompt_token_ids.size(), 40u);
    EXPECT_GE(q.output_len, 10);
    EXPECT_LE(q.output_len, 25);
    capped += q.output_len == 25;
    sum += q.output_len;
  }
  // Outputs uniform on [10, 30] clipped at 25: P(>= 24.5) = 5.5/20 = 0.275,
  // mean = (10 + 24.5)/2 x 0.725 + 25 x 0.275 = 19.38 (to rounding).
  EXPECT_NEAR(capped / 4000.0, 0.275, 0.03);
  EXPECT_NEAR(sum / 4000.0, 19.38, 0.3);
  // The same seed, the same workload; by the table's name as well.
  o.length_table = "toy";
  auto again = LoadDataset(o);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ((*again)[17].output_len, (*r)[17].output_len);
  EXPECT_EQ((*again)[17].prompt_token_ids, (*r)[17].prompt_token_ids);
  o.length_table = "llama9";
  auto unknown = LoadDataset(o);
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("mlperf:llama9"), std::string::npos);
  EXPECT_NE(unknown.status().message().find("toy-70b"), std::string::npos);  // what there is
}

// The tables shipped in data/ hold MLPerf's Llama 2 70B and Mixtral lengths:
// the drawn means follow the tables' own means (OpenOrca's prompt mean is
// 223 tokens by its quantiles).
TEST(DatasetTest, MlperfTablesShippedInData) {
  DatasetOptions o;
  o.kind = DatasetKind::kMlperf;
  o.num_prompts = 20000;
  for (const char* name : {"llama2-70b", "mixtral-8x7b"}) {
    o.length_table = name;
    auto r = LoadDataset(o);
    ASSERT_TRUE(r.ok()) << name << ": " << r.status().ToString();
    auto tables = ReadLengthTables(DefaultDataDir() + "/" + kLengthTablesFile);
    ASSERT_TRUE(tables.ok());
    const LengthTable* t = FindLengthTable(*tables, name);
    ASSERT_NE(t, nullptr);
    double in = 0;
    for (const auto& q : *r) in += q.input_len;
    EXPECT_NEAR(in / 20000.0, t->InputMean(), 0.03 * t->InputMean()) << name;
  }
}

}  // namespace frontier::workload
