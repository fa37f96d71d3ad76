//===- BoundTranslationTest.cpp - isl bounds as IndexExprs ----------------===//
//
// polyhedral/lib's one translation of isl_pw_aff bounds into IndexExprs: the
// printed text is what `comprehend ranges` shows, and converting the
// expression back to isl must give the same function on the context.
//
//===----------------------------------------------------------------------===//
#include "IslSupport.h"

#include <gtest/gtest.h>

using namespace comprehend::poly;

namespace {

class BoundTranslation : public ::testing::Test {
protected:
  /// Translates \p text, an isl pw_aff on the parameter space of \p params
  /// (`[N, K] -> { [(N - K + 1)] }`), under sizes >= 1, checks that
  /// converting the result back gives the same function there, and returns
  /// it printed.
  std::string translate(llvm::ArrayRef<std::string> params,
                        const std::string &text) {
    isl::space paramSpace = makeParamSpace(ctx, params);
    isl::set context = makeParamContext(paramSpace, {});
    isl::pw_aff value =
        projectDomainOnParams(isl::pw_aff(ctx.get(), text.c_str()));
    IndexExpr expr = toIndexExpr(value, context);
    std::optional<AffineExpr> back =
        toAffine(expr, makeSetSpace(paramSpace, 0), params, {});
    EXPECT_TRUE(back) << expr.str();
    if (back) {
      isl::pw_aff roundTrip = projectDomainOnParams(back->value);
      EXPECT_TRUE(
          value.domain().intersect(context).is_subset(roundTrip.eq_set(value)))
          << text << " came back as " << expr.str();
    }
    return expr.str();
  }

  IslContext ctx;
};

TEST_F(BoundTranslation, AffineOverParameters) {
  EXPECT_EQ(translate({"N", "K"}, "[N, K] -> { [(N - K + 1)] }"), "N - K + 1");
  EXPECT_EQ(translate({"A", "B"}, "[A, B] -> { [(B - A + 1)] }"), "-A + B + 1");
  EXPECT_EQ(translate({"N"}, "[N] -> { [(2N)] }"), "2 * N");
  EXPECT_EQ(translate({"N", "M"}, "[N, M] -> { [(-2N + 3M - 4)] }"),
            "-2 * N + 3 * M - 4");
  EXPECT_EQ(translate({"N"}, "[N] -> { [(7)] }"), "7");
  EXPECT_EQ(translate({"N"}, "[N] -> { [(-3)] }"), "-3");
}

TEST_F(BoundTranslation, FloorDivision) {
  // isl keeps `-KH + floor((H + KH) / 2) + 1`; the parameters move into
  // the division.
  EXPECT_EQ(
      translate({"H", "KH"}, "[H, KH] -> { [(floor((H - KH) / 2) + 1)] }"),
      "floord(H - KH, 2) + 1");
  EXPECT_EQ(translate({"N"}, "[N] -> { [(floor((N + 122) / 123))] }"),
            "floord(N - 1, 123) + 1");
  EXPECT_EQ(translate({"I"}, "[I] -> { [(floor(I / 2))] }"), "floord(I, 2)");
}

TEST_F(BoundTranslation, ExactDivisionOfARationalPiece) {
  // `N / 2` is integral only where N is even: a rational isl_aff.
  EXPECT_EQ(translate({"N"}, "[N] -> { [(N / 2)] : N mod 2 = 0 }"),
            "floord(N, 2)");
}

TEST_F(BoundTranslation, MinimumAndMaximumOfSeveralPieces) {
  EXPECT_EQ(translate({"B0", "A1"}, "[B0, A1] -> { [(min(B0, A1))] }"),
            "min(B0, A1)");
  EXPECT_EQ(
      translate({"A", "B", "C"}, "[A, B, C] -> { [(min(min(C, B), A))] }"),
      "min(min(A, B), C)");
  EXPECT_EQ(translate({"N", "M"}, "[N, M] -> { [(max(N - 1, M + 2))] }"),
            "max(N - 1, M + 2)");
  // Constants come last.
  EXPECT_EQ(translate({"N"}, "[N] -> { [(max(3, N - 4))] }"), "max(N - 4, 3)");
}

TEST_F(BoundTranslation, OtherPiecewiseFunctionsBecomeSelects) {
  EXPECT_EQ(translate({"N"}, "[N] -> { [(2)] : N <= 4; [(N - 2)] : N >= 5 }"),
            "max(N - 2, 2)");
  EXPECT_EQ(translate({"N"}, "[N] -> { [(2)] : N <= 4; [(0)] : N >= 5 }"),
            "N >= 5 ? 0 : 2");
  EXPECT_EQ(translate({"N", "M"},
                      "[N, M] -> { [(1)] : N = 3; [(M)] : N >= 4 and M >= 2; "
                      "[(5)] : N <= 2 or (N >= 4 and M <= 1) }"),
            "N == 3 ? 1 : N <= 2 || M == 1 && N >= 4 ? 5 : M");
  // Divisibility conditions read as remainders.
  EXPECT_EQ(
      translate({"N"}, "[N] -> { [(N)] : N mod 2 = 0; [(0)] : N mod 2 = 1 }"),
      "(N + 1) % 2 == 0 ? 0 : N");
  EXPECT_EQ(
      translate({"N"}, "[N] -> { [(N)] : N mod 3 = 2; [(1)] : N mod 3 < 2 }"),
      "N % 3 <= 1 ? 1 : N");
}

TEST_F(BoundTranslation, ParametersTheBoundDoesNotUse) {
  EXPECT_EQ(translate({"N", "K", "M"}, "[N, K, M] -> { [(K)] }"), "K");
}

} // namespace
