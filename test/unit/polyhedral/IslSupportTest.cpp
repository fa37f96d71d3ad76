//===- IslSupportTest.cpp - The isl calls the C++ bindings lack -----------===//
//
// polyhedral/lib/IslSupport.h wraps the isl C calls that isl/cpp.h (isl 0.25)
// lacks: reading the terms of an isl::aff, iterating pieces and constraints,
// and building maps. Each is checked against isl's own parse of the expected
// object, and an exception thrown by a callback must reach the caller.
//
//===----------------------------------------------------------------------===//
#include "IslSupport.h"

#include <gtest/gtest.h>

#include <sstream>
#include <stdexcept>

using namespace comprehend::poly;

namespace {

class IslSupport : public ::testing::Test {
protected:
  /// The only piece of \p text, a pw_aff on the parameter space.
  isl::aff onlyPiece(const std::string &text) {
    isl::pw_aff value = projectDomainOnParams(isl::pw_aff(ctx.get(), text));
    std::optional<isl::aff> result;
    forEachPiece(value, [&](isl::set, isl::aff aff) {
      EXPECT_FALSE(result) << text << " has more than one piece";
      result = aff;
    });
    EXPECT_TRUE(result) << text << " has no piece";
    return result ? *result : isl::aff();
  }

  static int64_t numerator(const AffTerms &terms, const isl::val &value) {
    return value.mul(terms.denominator).num_si();
  }

  IslContext ctx;
};

TEST_F(IslSupport, AffTermsReadsRationalCoefficients) {
  AffTerms terms = affTerms(onlyPiece("[N, M] -> { [((3N - M + 5) / 2)] }"));
  EXPECT_EQ(terms.denominator.num_si(), 2);
  ASSERT_EQ(terms.params.size(), 2u);
  EXPECT_EQ(numerator(terms, terms.params[0]), 3);
  EXPECT_EQ(numerator(terms, terms.params[1]), -1);
  EXPECT_TRUE(terms.divs.empty());
  EXPECT_EQ(numerator(terms, terms.constant), 5);
}

TEST_F(IslSupport, DivExpressionIsWhatTheDivisionRoundsDown) {
  isl::aff aff = onlyPiece("[N] -> { [(2 * floor((N + 1) / 3) - 1)] }");
  AffTerms terms = affTerms(aff);
  ASSERT_EQ(terms.divs.size(), 1u);
  EXPECT_EQ(numerator(terms, terms.divs[0]), 2);
  AffTerms inner = affTerms(divExpression(aff, 0));
  EXPECT_EQ(inner.denominator.num_si(), 3);
  ASSERT_EQ(inner.params.size(), 1u);
  EXPECT_EQ(numerator(inner, inner.params[0]), 1);
  EXPECT_EQ(numerator(inner, inner.constant), 1);
}

TEST_F(IslSupport, ForEachPieceVisitsEveryPiece) {
  isl::pw_aff value = projectDomainOnParams(
      isl::pw_aff(ctx.get(), "[N] -> { [(N)] : N >= 5; [(0)] : N < 5 }"));
  isl::set covered = isl::set::empty(value.domain().space());
  unsigned count = 0;
  forEachPiece(value, [&](isl::set domain, isl::aff aff) {
    ++count;
    covered = covered.unite(domain);
    EXPECT_TRUE(domain.is_subset(value.eq_set(isl::pw_aff(aff))));
  });
  EXPECT_EQ(count, 2u);
  EXPECT_TRUE(covered.is_equal(value.domain()));
}

TEST_F(IslSupport, ForEachConstraintTellsEqualities) {
  isl::basic_set bounds(ctx.get(), "[N, M] -> { : 2 <= N <= 7 and M = 4 }");
  unsigned inequalities = 0, equalities = 0;
  isl::set rebuilt = universeSet(bounds.space());
  forEachConstraint(bounds, [&](isl::aff constraint, bool isEquality) {
    ++(isEquality ? equalities : inequalities);
    isl::aff zero = constraint.sub(constraint);
    rebuilt = rebuilt.intersect(isEquality ? constraint.eq_set(zero)
                                           : constraint.ge_set(zero));
  });
  EXPECT_EQ(inequalities, 2u);
  EXPECT_EQ(equalities, 1u);
  EXPECT_TRUE(rebuilt.is_equal(isl::set(bounds)));
}

TEST_F(IslSupport, CallbackExceptionsReachTheCaller) {
  isl::basic_set bounds(ctx.get(), "[N] -> { : 2 <= N <= 7 }");
  EXPECT_THROW(forEachConstraint(bounds,
                                 [](isl::aff, bool) {
                                   throw std::runtime_error("from callback");
                                 }),
               std::runtime_error);
  isl::pw_aff value(ctx.get(), "[N] -> { [(N)] }");
  EXPECT_THROW(forEachPiece(value,
                            [](isl::set, isl::aff) {
                              throw std::runtime_error("from callback");
                            }),
               std::runtime_error);
}

TEST_F(IslSupport, MapsFromFunctionsAndDimensions) {
  isl::space paramSpace = makeParamSpace(ctx, {"N"});
  isl::space setSpace = makeSetSpace(paramSpace, 2);
  isl::map functions =
      functionsMap(setSpace, {dimPwAff(setSpace, 1), std::nullopt});
  EXPECT_TRUE(
      functions.is_equal(isl::map(ctx.get(), "[N] -> { [i, j] -> [j, y] }")));

  isl::map schedule = fixOutputDim(universeMapTo(setSpace, 4), 0, 7);
  schedule = equateDims(equateDims(schedule, 0, 1), 1, 2);
  schedule = fixOutputDim(schedule, 3, 0);
  EXPECT_TRUE(schedule.is_equal(
      isl::map(ctx.get(), "[N] -> { [i, j] -> [7, i, j, 0] }")));
  EXPECT_TRUE(
      projectOutOutputDim(schedule, 0)
          .is_equal(isl::map(ctx.get(), "[N] -> { [i, j] -> [i, j, 0] }")));
}

TEST_F(IslSupport, NamedSpacesAndParameters) {
  isl::space paramSpace = makeParamSpace(ctx, {"N", "M"});
  isl::space named =
      makeNamedSetSpace(paramSpace, isl::id(ctx.get(), "S0"), {"i", "j"});
  std::ostringstream printed;
  printed << universeSet(named);
  EXPECT_EQ(printed.str(), "[N, M] -> { S0[i, j] }");
  EXPECT_EQ(paramNames(named), (llvm::SmallVector<std::string, 8>{"N", "M"}));
}

} // namespace
