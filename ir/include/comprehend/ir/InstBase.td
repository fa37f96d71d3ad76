//===- InstBase.td - Vocabulary of the instruction table -----*- tablegen -*-===//
//
// The record classes Instructions.td is written in; comprehend-tblgen reads
// them (docs/design.md "Adding an instruction"). The constraint model:
// predicates in valued positions (an operand or result) check the value's
// type and may capture variables (`(MemRef $ea, 2):$A` captures A's element
// kind as $ea); `where` relations relate captured variables; results that
// are a function of captured variables are inferred by the generated
// builders.
//
//===----------------------------------------------------------------------===//

// Dag operators of the operand, result, property and region lists.
def ins;
def outs;
def prop;
def region;

// Categories of instructions and kinds of regions.
class Kind<string n> { string name = n; }
def Collective : Kind<"Collective">;
def Spmd : Kind<"Spmd">;
def Mixed : Kind<"Mixed">;

// Arity wrappers: `(Optional Index):$step`, `(Variadic Index):$indices`.
def Optional;
def Variadic;

//===----------------------------------------------------------------------===//
// Type predicates (valued positions)
//===----------------------------------------------------------------------===//

// `desc` completes "must be ..." in diagnostics; `matcher` is the C++
// function in ir/lib/Constraints.h that checks the predicate.
class Pred<string d, string m> {
  string desc = d;
  string matcher = m;
}

def AnyType : Pred<"any type", "matchAny">;
def BoolT : Pred<"bool", "matchBool">;
def Index : Pred<"index", "matchIndex">;
def I32 : Pred<"i32", "matchI32">;
// (Number $k): a number type; captures its kind.
def Number : Pred<"a number type", "matchNumber">;
// (IntegerT $k): an integer type (i8..i64, index); captures its kind.
def IntegerT : Pred<"an integer type", "matchInteger">;
// (MemRef $k, order): a memref (of the given order); captures the element.
def MemRef : Pred<"a memref", "matchMemRef">;
def Group : Pred<"a group", "matchGroup">;
def MemRefOrGroup : Pred<"a memref or group", "matchMemRefOrGroup">;
// (Coop $k, "A"): a coopmatrix (with the given use); captures the component.
def Coop : Pred<"a coopmatrix", "matchCoop">;
// (Vector $k): a vector (lower-coopmatrix's parts); captures the element.
def Vector : Pred<"a vector", "matchVector">;
// (Part $k): a number type or a vector: a part of a coopmatrix.
def Part : Pred<"a number type or vector", "matchPart">;
// (NumberOrCoop $k): a number type or a coopmatrix (or a vector, which
// stands for a part of one after lower-coopmatrix); captures the
// scalar/component kind.
def NumberOrCoop : Pred<"a number type or coopmatrix", "matchNumberOrCoop">;
// bool, number or coopmatrix: what yield, for and if carry.
def ReturnType : Pred<"bool, a number type or a coopmatrix", "matchReturnType">;
// (OfClass "Cls"): a scalar of a TypeClass (Constraints.h);
// (OfClassOrCoop "Cls"): also a coopmatrix whose component is of that class.
def OfClass : Pred<"", "matchClass">;
def OfClassOrCoop : Pred<"", "matchClassOrCoop">;
// (OfClassOrVector "Cls"): also a vector whose element is of that class.
def OfClassOrVector : Pred<"", "matchClassOrVector">;

// Type functions: equal to a function of another operand's type. Always
// evaluatable, so results constrained by them are inferred.
class TypeFn<string d, string f> {
  string desc = d;
  string function = f;
}
// (SameAs $x): the type of operand $x (elementwise for variadic $x).
def SameAs : TypeFn<"the type of", "sameType">;
// (RealOf $x): the component type of a complex $x, else $x itself
// (element-wise for coopmatrices).
def RealOf : TypeFn<"the real type of", "realType">;
// (ElementOf $x): the element type of a memref, the memref of a group.
def ElementOf : TypeFn<"the element type of", "elementType">;

//===----------------------------------------------------------------------===//
// Relations between captured kinds (`where`)
//===----------------------------------------------------------------------===//

def Promotable; // (Promotable a, b): a ⪯ b
def Promote;    // (Promote a, b) in a kind position: promote(a, b)
def CastAllowed; // (CastAllowed a, b): the cast table allows a -> b
def KindIn;     // (KindIn a, "Cls"): kind a is of the TypeClass

//===----------------------------------------------------------------------===//
// Properties
//===----------------------------------------------------------------------===//

class Prop<string k, int d = 0> {
  string kind = k;
  int defaultValue = d;
  list<string> spellings = [];
  string cppType = "";
  bit alwaysPrint = 0;
}
class FlagProp<string modifier> : Prop<"Flag"> {
  let spellings = [modifier];
}
class EnumProp<string type, list<string> names, int d, bit always = 0>
    : Prop<"Enum", d> {
  let cppType = type;
  let spellings = names;
  let alwaysPrint = always;
}
def IntProp : Prop<"Integer">;
def IntListProp : Prop<"IntegerList">;
def ConstantProp : Prop<"Constant">;
def DictProp : Prop<"Dictionary">;

def TransposeProp : EnumProp<"Transpose", [".n", ".t"], 0>;
def CheckedProp : EnumProp<"CheckedFlag",
    ["", ".rows_checked", ".cols_checked", ".both_checked"], 0>;
def ScopeProp : EnumProp<"MemoryScope",
    [".cross_device", ".device", ".work_group", ".subgroup"], 2>;
def SemanticsProp : EnumProp<"MemorySemantics",
    [".relaxed", ".acquire", ".release", ".acquire_release",
     ".sequentially_consistent"], 0>;
def Comp3Prop : EnumProp<"Comp3", [".x", ".y", ".z"], 0, 1>;
def ReduceModeProp : EnumProp<"ReduceMode", [".row", ".column"], 0, 1>;

//===----------------------------------------------------------------------===//
// Traits
//===----------------------------------------------------------------------===//

// A fact about an instruction that passes ask instead of listing kinds:
// `inst.hasTrait(InstTrait::Blas)` (ir::InstTrait, one enumerator per def).
class Trait<string d> { string doc = d; }
def Blas : Trait<"collective linear algebra, lowered by lower-collective">;
def ForeachLoop : Trait<"a foreach loop, lowered by lower-foreach">;
def CoopMatrix : Trait<"works on cooperative matrices">;
def MemoryAccess : Trait<"a memref or group access, view or barrier">;
def Atomic : Trait<"an atomic memory access">;
def Builtin : Trait<"a work-group or subgroup built-in value">;
def SubgroupOp : Trait<"a subgroup broadcast, scan or reduction">;
def ExclusiveScan : Trait<"an exclusive scan">;
def InclusiveScan : Trait<"an inclusive scan">;
def Elementwise : Trait<"unary or binary arithmetic on scalars and "
                        "coopmatrices, component-wise">;
def Comparison : Trait<"a comparison of scalars">;
def MathFunction : Trait<"a math function of a scalar">;

//===----------------------------------------------------------------------===//
// Instructions
//===----------------------------------------------------------------------===//

class Inst<string m, Kind k> {
  string mnemonic = m;
  Kind category = k;
  string summary = "";
  dag props = (prop);
  dag operands = (ins);
  dag results = (outs);
  dag regions = (region);
  list<dag> where = [];
  string format = "";
  // Hand-written verification in ir/lib/Verify*.cpp:
  //   void <verify>(const Instruction &, VerifyContext &)
  string verify = "";
  // Hand-written completion of build() (region parameters):
  //   void <buildHook>(Context &, Instruction &)
  string buildHook = "";
  bit pure = 0;
  bit terminator = 0;
  list<Trait> traits = [];

  // Memory effects, by operand name: the memref operands whose elements the
  // instruction reads or writes (InstDescriptor::operands[i].effect).
  list<string> reads = [];
  list<string> writes = [];
  // The operand whose memory the (memref) result refers to: views, and
  // memrefs loaded from a group.
  string viewSource = "";

  // Combining operation of reductions, scans and atomic updates: the
  // mnemonic of the binary instruction (`add`, `max`, `min`).
  string combine = "";

  // Scalar semantics for constant folding (ir::fold* in InstFolds.h.inc):
  // C++ expressions in `a`, `b` (int64_t, double or bool), `ua`, `ub`
  // (uint64_t), `bits` (integer width), `minValue` (least integer of that
  // width) and `wrap(int64_t)` (truncation to the width). An integer fold is
  // only done when `intFoldIf` holds. `compare` is a C++ comparison operator.
  string intFold = "";
  string intFoldIf = "";
  string realFold = "";
  string boolFold = "";
  string compare = "";

  // SPIR-V of the scalar form (InstSpirv.inc): core opcodes without `Op`
  // for integer, floating and bool operands, or with spirvExt OpenCL.std
  // entry points. Complex operands are the emitter's business.
  string spirvInt = "";
  string spirvFloat = "";
  string spirvBool = "";
  bit spirvExt = 0;
}
