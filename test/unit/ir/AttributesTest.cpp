//===- AttributesTest.cpp - Attribute uniquing and printing ---------------===//
#include "comprehend/ir/Attributes.h"
#include "comprehend/ir/Context.h"

#include "gtest/gtest.h"

using namespace comprehend::ir;

namespace {

TEST(AttributesTest, ScalarsAreUniqued) {
  Context ctx;
  EXPECT_EQ(IntegerAttr::get(ctx, 42), IntegerAttr::get(ctx, 42));
  EXPECT_NE(IntegerAttr::get(ctx, 42), IntegerAttr::get(ctx, -42));
  EXPECT_EQ(IntegerAttr::get(ctx, -42)->getValue(), -42);
  EXPECT_EQ(BoolAttr::get(ctx, true), BoolAttr::get(ctx, true));
  EXPECT_NE(BoolAttr::get(ctx, true), BoolAttr::get(ctx, false));
  std::string text = "text";
  const StringAttr *str = StringAttr::get(ctx, text);
  text = "changed"; // the attribute owns a copy
  EXPECT_EQ(str->getValue(), "text");
  EXPECT_EQ(str, StringAttr::get(ctx, "text"));
}

TEST(AttributesTest, ArraysAndPrinting) {
  Context ctx;
  const Attribute *elements[] = {IntegerAttr::get(ctx, 1),
                                 IntegerAttr::get(ctx, 2)};
  const ArrayAttr *array = ArrayAttr::get(ctx, elements);
  EXPECT_EQ(array, ArrayAttr::get(ctx, elements));
  EXPECT_EQ(array->str(), "[1, 2]");
  EXPECT_EQ(array->getAsIntegers(), (llvm::SmallVector<int64_t, 4>{1, 2}));
  const Attribute *mixed[] = {IntegerAttr::get(ctx, 1),
                              StringAttr::get(ctx, "x")};
  EXPECT_FALSE(ArrayAttr::get(ctx, mixed)->getAsIntegers());
  EXPECT_EQ(ArrayAttr::get(ctx, mixed)->str(), "[1, \"x\"]");
  EXPECT_EQ(ArrayAttr::get(ctx, {})->str(), "[]");
}

TEST(AttributesTest, DictionaryIsSortedAndUnique) {
  Context ctx;
  NamedAttribute entries[] = {
      {"work_group_size", IntegerAttr::get(ctx, 1)},
      {"alignment", IntegerAttr::get(ctx, 64)},
      {"my key", StringAttr::get(ctx, "v")},
      {"alignment", IntegerAttr::get(ctx, 128)},
  };
  const DictionaryAttr *dict = DictionaryAttr::get(ctx, entries);
  ASSERT_EQ(dict->size(), 3u);
  EXPECT_EQ(dict->getEntries()[0].name, "alignment");
  EXPECT_EQ(dict->get("alignment"), IntegerAttr::get(ctx, 128));
  EXPECT_EQ(dict->get("missing"), nullptr);
  EXPECT_EQ(dict->str(),
            "{alignment = 128, \"my key\" = \"v\", work_group_size = 1}");
  NamedAttribute reordered[] = {
      {"my key", StringAttr::get(ctx, "v")},
      {"work_group_size", IntegerAttr::get(ctx, 1)},
      {"alignment", IntegerAttr::get(ctx, 128)},
  };
  EXPECT_EQ(dict, DictionaryAttr::get(ctx, reordered));
  EXPECT_TRUE(DictionaryAttr::getEmpty(ctx)->empty());
  EXPECT_EQ(DictionaryAttr::getEmpty(ctx)->str(), "{}");
}

TEST(AttributesTest, BareNames) {
  EXPECT_TRUE(isBareAttributeName("shape_gcd"));
  EXPECT_FALSE(isBareAttributeName("1abc"));
  EXPECT_FALSE(isBareAttributeName("a b"));
  EXPECT_FALSE(isBareAttributeName(""));
}

} // namespace
