// word_cache_test.cc: the word cache finds what was stored, keeps words
// apart that share a prefix or a hash bucket, refuses words past its bound,
// and empties itself rather than grow past kMaxWords.
#include "tokenizer/word_cache.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace frontier::tokenizer {
namespace {

std::vector<int32_t> Ids(std::optional<std::span<const int32_t>> s) {
  return s ? std::vector<int32_t>(s->begin(), s->end()) : std::vector<int32_t>{-99};
}

TEST(WordCache, FindsWhatWasInsertedAndNothingElse) {
  WordCache c;
  EXPECT_FALSE(c.Find("hello"));
  c.Insert("hello", std::vector<int32_t>{1, 2});
  c.Insert("hello world", std::vector<int32_t>{3});
  c.Insert("hell", std::vector<int32_t>{4, 5, 6});
  c.Insert(std::string("a\0b", 3), std::vector<int32_t>{7});
  EXPECT_EQ(Ids(c.Find("hello")), (std::vector<int32_t>{1, 2}));
  EXPECT_EQ(Ids(c.Find("hello world")), (std::vector<int32_t>{3}));
  EXPECT_EQ(Ids(c.Find("hell")), (std::vector<int32_t>{4, 5, 6}));
  EXPECT_EQ(Ids(c.Find(std::string("a\0b", 3))), (std::vector<int32_t>{7}));
  EXPECT_FALSE(c.Find("a"));
  EXPECT_FALSE(c.Find("hello worl"));
  // A word stored twice keeps its first ids.
  c.Insert("hello", std::vector<int32_t>{9});
  EXPECT_EQ(Ids(c.Find("hello")), (std::vector<int32_t>{1, 2}));
  EXPECT_EQ(c.size(), 4u);
  c.Clear();
  EXPECT_FALSE(c.Find("hello"));
}

TEST(WordCache, AWordPastTheBoundIsNotKept) {
  WordCache c;
  const std::string longest(WordCache::kMaxWordBytes, 'x');
  const std::string too_long(WordCache::kMaxWordBytes + 1, 'x');
  c.Insert(longest, std::vector<int32_t>{1});
  c.Insert(too_long, std::vector<int32_t>{2});
  EXPECT_EQ(Ids(c.Find(longest)), (std::vector<int32_t>{1}));
  EXPECT_FALSE(c.Find(too_long));
  EXPECT_EQ(c.size(), 1u);
}

TEST(WordCache, EmptiesItselfInsteadOfGrowingPastItsBound) {
  WordCache c;
  for (size_t i = 0; i < WordCache::kMaxWords; ++i)
    c.Insert("w" + std::to_string(i), std::vector<int32_t>{int32_t(i)});
  EXPECT_EQ(c.size(), WordCache::kMaxWords);
  EXPECT_EQ(Ids(c.Find("w12345")), (std::vector<int32_t>{12345}));
  c.Insert("one more", std::vector<int32_t>{1});
  EXPECT_EQ(c.size(), 1u);
  EXPECT_FALSE(c.Find("w12345"));
  EXPECT_EQ(Ids(c.Find("one more")), (std::vector<int32_t>{1}));
}

}  // namespace
}  // namespace frontier::tokenizer
