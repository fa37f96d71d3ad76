//===- Frontend.cpp - One-call entry points of the TC frontend ------------===//
#include "comprehend/tc/Frontend.h"
#include "comprehend/tc/Parser.h"
#include "comprehend/tc/Sema.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/TimeProfiler.h"

using namespace comprehend;
using namespace comprehend::tc;

std::unique_ptr<Program> tc::loadProgram(DiagnosticEngine &diags,
                                         unsigned bufferId,
                                         bool inferAllRanges) {
  llvm::StringRef buffer =
      diags.getSourceMgr().getMemoryBuffer(bufferId)->getBuffer();
  auto program = std::make_unique<Program>();
  bool parsed = [&] {
    llvm::TimeTraceScope scope("TC parse");
    return succeeded(parseProgram(buffer, diags, *program));
  }();
  // Check the defs that parsed even if another def has a syntax error, so
  // one run reports as much as possible.
  bool checked = [&] {
    llvm::TimeTraceScope scope("TC check");
    return succeeded(checkProgram(*program, diags));
  }();
  if (!parsed || !checked)
    return nullptr;
  if (inferAllRanges) {
    llvm::StringMap<int64_t> noSizes;
    bool inferred = true;
    for (const std::unique_ptr<Def> &def : program->getDefs())
      inferred &= inferRanges(*program, *def, noSizes, diags).has_value();
    if (!inferred)
      return nullptr;
  }
  if (diags.hasErrors())
    return nullptr;
  return program;
}

const Def *tc::findEntry(const Program &program, llvm::StringRef name) {
  if (name.empty())
    return program.getDefs().empty() ? nullptr : program.getDefs().back().get();
  return program.lookup(name);
}

void tc::printRangesJson(llvm::raw_ostream &os, const Def &def,
                         const DefRanges &ranges,
                         const llvm::StringMap<int64_t> &sizes,
                         const llvm::SourceMgr &sourceMgr) {
  llvm::json::OStream json(os);
  json.object([&] {
    json.attribute("entry", def.getName().name);
    json.attributeObject("sizes", [&] {
      for (const std::string &sizeVar : def.getSizeVars())
        if (auto it = sizes.find(sizeVar); it != sizes.end())
          json.attribute(sizeVar, it->second);
    });
    json.attributeObject("outputs", [&] {
      for (const Param &output : def.getOutputs()) {
        auto it = ranges.shapes.find(output.name.name);
        if (it == ranges.shapes.end())
          continue;
        const poly::TensorShape &shape = it->second;
        json.attributeObject(output.name.name, [&] {
          json.attributeArray("symbolic", [&] {
            for (const poly::IndexExpr &extent : shape.extentExprs)
              json.value(extent.str());
          });
          if (llvm::any_of(shape.loExprs, [](const poly::IndexExpr &lo) {
                return lo.getKind() != poly::IndexExpr::Kind::Constant ||
                       lo.getValue() != 0;
              }))
            json.attributeArray("offset", [&] {
              for (const poly::IndexExpr &lo : shape.loExprs)
                json.value(lo.str());
            });
          if (llvm::all_of(shape.extent, [](const auto &extent) {
                return extent.has_value();
              }))
            json.attributeArray("shape", [&] {
              for (const std::optional<int64_t> &extent : shape.extent)
                json.value(*extent);
            });
        });
      }
    });
    json.attributeArray("statements", [&] {
      for (const StmtRanges &stmt : ranges.statements) {
        unsigned line =
            sourceMgr.getLineAndColumn(stmt.stmt->getLoc().Start).first;
        json.object([&] {
          if (const auto *call = llvm::dyn_cast<CallStmt>(stmt.stmt)) {
            json.attribute("call", call->getCallee().name);
            json.attributeArray("results", [&] {
              for (const Ident &result : call->getResults())
                json.value(result.name);
            });
            json.attribute("line", line);
            return;
          }
          json.attribute(
              "lhs", llvm::cast<ComprehensionStmt>(stmt.stmt)->getLhs().name);
          json.attribute("line", line);
          json.attributeObject("ranges", [&] {
            for (const poly::VarRange &range : stmt.ranges.ranges)
              json.attributeObject(range.var, [&] {
                json.attributeArray("symbolic", [&] {
                  json.value(range.loExpr.str());
                  json.value(range.hiExpr.str());
                });
                if (range.lo && range.hi) {
                  json.attribute("lo", *range.lo);
                  json.attribute("hi", *range.hi);
                }
              });
          });
        });
      }
    });
  });
  os << '\n';
}
