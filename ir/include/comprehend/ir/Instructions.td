//===- Instructions.td - Every instruction of the language ---*- tablegen -*-===//
//
// One entry per instruction of the tensor language. comprehend-tblgen
// generates the InstKind enum, descriptors, views with accessors and
// builders, the constraint checks and docs/instructions.md from it. Rules
// the constraints cannot say live in the `verify` hooks (ir/lib/Verify*.cpp).
//
//===----------------------------------------------------------------------===//

include "InstBase.td"

//===----------------------------------------------------------------------===//
// Collective instructions
//===----------------------------------------------------------------------===//

def AllocaInst : Inst<"alloca", Collective> {
  let summary = "Allocates local memory freed at the end of the region";
  let props = (prop DictProp:$attributes);
  let results = (outs MemRef:$result);
  let format = "attr-dict type($result)";
  let verify = "verifyAlloca";
  let traits = [MemoryAccess];
}

// B := alpha op(A) + beta B
def AxpbyInst : Inst<"axpby", Collective> {
  let summary = "B := alpha * op(A) + beta * B";
  let props = (prop FlagProp<".atomic">:$atomic, TransposeProp:$transpose_a);
  let operands = (ins (Number $ta):$alpha, (MemRef $ea):$A,
                      (Number $tb):$beta, (MemRef $eb):$B);
  let where = [(Promotable $ta, $ea), (Promotable $ea, $eb),
               (Promotable $tb, $eb)];
  let format = "$atomic $transpose_a $alpha `,` $A `,` $beta `,` $B";
  let verify = "verifyAxpby";
  let traits = [Blas];
  let reads = ["A", "B"];
  let writes = ["B"];
}

def CumsumInst : Inst<"cumsum", Collective> {
  let summary = "B := alpha * A x_n L + beta * B (n-mode cumulative sum)";
  let props = (prop FlagProp<".atomic">:$atomic, IntProp:$mode);
  let operands = (ins (Number $ta):$alpha, (MemRef $ea):$A,
                      (Number $tb):$beta, (MemRef $eb):$B);
  let where = [(Promotable $ta, $ea), (Promotable $ea, $eb),
               (Promotable $tb, $eb)];
  let format = "$atomic $alpha `,` $A `,` $mode `,` $beta `,` $B";
  let verify = "verifyCumsum";
  let traits = [Blas];
  let reads = ["A", "B"];
  let writes = ["B"];
}

def ForeachInst : Inst<"foreach", Collective> {
  let summary = "Loop over a range without sequence guarantee (SPMD body)";
  let operands = (ins (Variadic IntegerT):$from, (Variadic IntegerT):$to);
  let regions = (region Spmd:$body);
  let format = "custom<Foreach>($from, $to, $body)";
  let verify = "verifyForeach";
  let buildHook = "buildForeachParams";
  let traits = [ForeachLoop];
}

def ForeachTileInst : Inst<"foreach_tile", Collective> {
  let summary = "Loop over the tiles of a range (SPMD body)";
  let props = (prop IntListProp:$tile_shape);
  let operands = (ins (Variadic IntegerT):$from, (Variadic IntegerT):$to);
  let regions = (region Spmd:$body);
  let format = "custom<ForeachTile>($from, $to, $tile_shape, $body)";
  let verify = "verifyForeachTile";
  let buildHook = "buildForeachTileParams";
  let traits = [ForeachLoop];
}

// Shared shape of gemm, gemv, ger and hadamard:
//   C := alpha * f(A, B) + beta * C
// with the spec's operand names (A, B, C for gemm; A, b, c for gemv; ...).
class Blas3<string m, string s> : Inst<m, Collective> {
  let summary = s;
  let traits = [Blas];
  let where = [(Promotable $ta, (Promote $ea, $eb)),
               (Promotable (Promote $ea, $eb), $ec), (Promotable $tb, $ec)];
}

def GemmInst : Blas3<"gemm", "C := alpha * op(A) * op(B) + beta * C"> {
  let props = (prop FlagProp<".atomic">:$atomic, TransposeProp:$transpose_a,
                     TransposeProp:$transpose_b);
  let operands = (ins (Number $ta):$alpha, (MemRef $ea, 2):$A,
                      (MemRef $eb, 2):$B, (Number $tb):$beta,
                      (MemRef $ec, 2):$C);
  let format = "$atomic $transpose_a $transpose_b $alpha `,` $A `,` $B `,` "
               "$beta `,` $C";
  let verify = "verifyGemm";
  let reads = ["A", "B", "C"];
  let writes = ["C"];
}

def GemvInst : Blas3<"gemv", "c := alpha * op(A) * b + beta * c"> {
  let props = (prop FlagProp<".atomic">:$atomic, TransposeProp:$transpose_a);
  let operands = (ins (Number $ta):$alpha, (MemRef $ea, 2):$A,
                      (MemRef $eb, 1):$b, (Number $tb):$beta,
                      (MemRef $ec, 1):$c);
  let format = "$atomic $transpose_a $alpha `,` $A `,` $b `,` $beta `,` $c";
  let verify = "verifyGemv";
  let reads = ["A", "b", "c"];
  let writes = ["c"];
}

def GerInst : Blas3<"ger", "C := alpha * a * b^T + beta * C"> {
  let props = (prop FlagProp<".atomic">:$atomic);
  let operands = (ins (Number $ta):$alpha, (MemRef $ea, 1):$a,
                      (MemRef $eb, 1):$b, (Number $tb):$beta,
                      (MemRef $ec, 2):$C);
  let format = "$atomic $alpha `,` $a `,` $b `,` $beta `,` $C";
  let verify = "verifyGer";
  let reads = ["a", "b", "C"];
  let writes = ["C"];
}

def HadamardInst : Blas3<"hadamard", "c := alpha * a .* b + beta * c"> {
  let props = (prop FlagProp<".atomic">:$atomic);
  let operands = (ins (Number $ta):$alpha, (MemRef $ea):$a,
                      (MemRef $eb):$b, (Number $tb):$beta, (MemRef $ec):$c);
  let format = "$atomic $alpha `,` $a `,` $b `,` $beta `,` $c";
  let verify = "verifyHadamard";
  let reads = ["a", "b", "c"];
  let writes = ["c"];
}

def ParallelInst : Inst<"parallel", Collective> {
  let summary = "Opens an SPMD region";
  let regions = (region Spmd:$body);
  let format = "$body";
}

def SumInst : Inst<"sum", Collective> {
  let summary = "b := alpha * op(A) * 1 + beta * b";
  let props = (prop FlagProp<".atomic">:$atomic, TransposeProp:$transpose_a);
  let operands = (ins (Number $ta):$alpha, (MemRef $ea):$A,
                      (Number $tb):$beta, (MemRef $eb):$b);
  let where = [(Promotable $ta, $ea), (Promotable $ea, $eb),
               (Promotable $tb, $eb)];
  let format = "$atomic $transpose_a $alpha `,` $A `,` $beta `,` $b";
  let verify = "verifySum";
  let traits = [Blas];
  let reads = ["A", "b"];
  let writes = ["b"];
}

def LifetimeStopInst : Inst<"lifetime_stop", Collective> {
  let summary = "Ends the lifetime of an alloca";
  let operands = (ins MemRef:$object);
  let format = "$object";
  let verify = "verifyLifetimeStop";
}

//===----------------------------------------------------------------------===//
// Mixed instructions: arithmetic
//===----------------------------------------------------------------------===//

// Binary arithmetic on scalars and coopmatrices of the allowed class.
class ArithBinary<string m, string cls, string s> : Inst<m, Mixed> {
  let summary = s;
  let operands = (ins (OfClassOrCoop cls):$a, (SameAs $a):$b);
  let results = (outs (SameAs $a):$result);
  let format = "$a `,` $b type($result)";
  let pure = 1;
  let traits = [Elementwise];
}
def AddInst : ArithBinary<"add", "Number", "Sum of operands"> {
  let intFold = "wrap(int64_t(ua + ub))";
  let realFold = "a + b";
  let spirvInt = "IAdd";
  let spirvFloat = "FAdd";
}
def SubInst : ArithBinary<"sub", "Number", "Difference of operands"> {
  let intFold = "wrap(int64_t(ua - ub))";
  let realFold = "a - b";
  let spirvInt = "ISub";
  let spirvFloat = "FSub";
}
def MulInst : ArithBinary<"mul", "Number", "Product of operands"> {
  let intFold = "wrap(int64_t(ua * ub))";
  let realFold = "a * b";
  let spirvInt = "IMul";
  let spirvFloat = "FMul";
}
def DivInst : ArithBinary<"div", "Number", "Quotient of operands"> {
  let intFold = "a / b";
  let intFoldIf = "b != 0 && !(b == -1 && a == minValue)";
  let realFold = "a / b";
  let spirvInt = "SDiv";
  let spirvFloat = "FDiv";
}
def RemInst : ArithBinary<"rem", "NumberNoComplex", "Remainder of operands"> {
  let intFold = "a % b";
  let intFoldIf = "b != 0 && !(b == -1 && a == minValue)";
  let spirvInt = "SRem";
  let spirvFloat = "FRem";
}
def MaxInst : ArithBinary<"max", "NumberNoComplex", "Maximum of operands"> {
  let intFold = "std::max(a, b)";
  let realFold = "std::fmax(a, b)";
  let spirvInt = "SMax";
  let spirvFloat = "Fmax";
  let spirvExt = 1;
}
def MinInst : ArithBinary<"min", "NumberNoComplex", "Minimum of operands"> {
  let intFold = "std::min(a, b)";
  let realFold = "std::fmin(a, b)";
  let spirvInt = "SMin";
  let spirvFloat = "Fmin";
  let spirvExt = 1;
}
def ShlInst : ArithBinary<"shl", "Integer", "Left shift"> {
  let intFold = "wrap(int64_t(ua << b))";
  let intFoldIf = "b >= 0 && b < bits";
  let spirvInt = "ShiftLeftLogical";
}
def ShrInst : ArithBinary<"shr", "Integer", "Arithmetic right shift"> {
  let intFold = "a >> b";
  let intFoldIf = "b >= 0 && b < bits";
  let spirvInt = "ShiftRightArithmetic";
}
def AndInst : ArithBinary<"and", "BoolOrInteger", "Bitwise and"> {
  let intFold = "a & b";
  let boolFold = "a && b";
  let spirvInt = "BitwiseAnd";
  let spirvBool = "LogicalAnd";
}
def OrInst : ArithBinary<"or", "BoolOrInteger", "Bitwise or"> {
  let intFold = "a | b";
  let boolFold = "a || b";
  let spirvInt = "BitwiseOr";
  let spirvBool = "LogicalOr";
}
def XorInst : ArithBinary<"xor", "BoolOrInteger", "Bitwise xor"> {
  let intFold = "a ^ b";
  let boolFold = "a != b";
  let spirvInt = "BitwiseXor";
  let spirvBool = "LogicalNotEqual";
}

// Unary arithmetic; abs, im and re of complex values return the component.
class ArithUnary<string m, string cls, TypeFn fn, string s> : Inst<m, Mixed> {
  let summary = s;
  let operands = (ins (OfClassOrCoop cls):$a);
  let results = (outs (fn $a):$result);
  let format = "$a type($result)";
  let pure = 1;
  let traits = [Elementwise];
}
def AbsInst : ArithUnary<"abs", "Number", RealOf, "Absolute value"> {
  let intFold = "wrap(a < 0 ? int64_t(0 - ua) : a)";
  let realFold = "std::fabs(a)";
  let spirvInt = "SAbs";
  let spirvFloat = "Fabs";
  let spirvExt = 1;
}
def NegInst : ArithUnary<"neg", "Number", SameAs, "Negation"> {
  let intFold = "wrap(int64_t(0 - ua))";
  let realFold = "-a";
  let spirvInt = "SNegate";
  let spirvFloat = "FNegate";
}
def NotInst : ArithUnary<"not", "BoolOrInteger", SameAs, "Bitwise not"> {
  let intFold = "wrap(~a)";
  let boolFold = "!a";
  let spirvInt = "Not";
  let spirvBool = "LogicalNot";
}
def ConjInst : ArithUnary<"conj", "Complex", SameAs, "Complex conjugate">;
def ImInst : ArithUnary<"im", "Complex", RealOf, "Imaginary part">;
def ReInst : ArithUnary<"re", "Complex", RealOf, "Real part">;

// Scalar comparisons.
class Comparison<string m, string cls, string s> : Inst<m, Mixed> {
  let summary = s;
  let operands = (ins (OfClass cls):$a, (SameAs $a):$b);
  let results = (outs BoolT:$result);
  let format = "$a `,` $b type($result)";
  let pure = 1;
  let traits = [Comparison];
}
def EqualInst : Comparison<"equal", "Number", "Equal"> {
  let compare = "==";
  let spirvInt = "IEqual";
  let spirvFloat = "FOrdEqual";
}
def NotEqualInst : Comparison<"not_equal", "Number", "Not equal"> {
  let compare = "!=";
  let spirvInt = "INotEqual";
  let spirvFloat = "FUnordNotEqual";
}
def GreaterThanInst
    : Comparison<"greater_than", "NumberNoComplex", "Greater than"> {
  let compare = ">";
  let spirvInt = "SGreaterThan";
  let spirvFloat = "FOrdGreaterThan";
}
def GreaterThanEqualInst : Comparison<"greater_than_equal", "NumberNoComplex",
                                      "Greater than or equal"> {
  let compare = ">=";
  let spirvInt = "SGreaterThanEqual";
  let spirvFloat = "FOrdGreaterThanEqual";
}
def LessThanInst : Comparison<"less_than", "NumberNoComplex", "Less than"> {
  let compare = "<";
  let spirvInt = "SLessThan";
  let spirvFloat = "FOrdLessThan";
}
def LessThanEqualInst
    : Comparison<"less_than_equal", "NumberNoComplex", "Less than or equal"> {
  let compare = "<=";
  let spirvInt = "SLessThanEqual";
  let spirvFloat = "FOrdLessThanEqual";
}

// Unary math functions on scalars.
// `entry` is the OpenCL.std entry point.
class MathUnary<string m, string cls, string s, string entry>
    : Inst<m, Mixed> {
  let summary = s;
  let operands = (ins (OfClassOrVector cls):$a);
  let results = (outs (SameAs $a):$result);
  let format = "$a type($result)";
  let pure = 1;
  let traits = [MathFunction];
  let spirvFloat = entry;
  let spirvExt = 1;
}
def CosInst : MathUnary<"cos", "Floating", "Cosine", "Cos">;
def SinInst : MathUnary<"sin", "Floating", "Sine", "Sin">;
def ExpInst
    : MathUnary<"exp", "FloatingOrComplex", "Base-e exponential", "Exp">;
def Exp2Inst
    : MathUnary<"exp2", "FloatingOrComplex", "Base-2 exponential", "Exp2">;
def LogInst : MathUnary<"log", "Floating", "Base-e logarithm", "Log">;
def Log2Inst : MathUnary<"log2", "Floating", "Base-2 logarithm", "Log2">;
def SqrtInst : MathUnary<"sqrt", "Floating", "Square root", "Sqrt">;
def RsqrtInst
    : MathUnary<"rsqrt", "Floating", "Reciprocal square root", "Rsqrt">;
def NativeCosInst
    : MathUnary<"native_cos", "Floating", "Fast cosine", "Native_cos">;
def NativeSinInst
    : MathUnary<"native_sin", "Floating", "Fast sine", "Native_sin">;
def NativeExpInst : MathUnary<"native_exp", "FloatingOrComplex",
                              "Fast base-e exponential", "Native_exp">;
def NativeExp2Inst : MathUnary<"native_exp2", "FloatingOrComplex",
                               "Fast base-2 exponential", "Native_exp2">;
def NativeLogInst : MathUnary<"native_log", "Floating",
                              "Fast base-e logarithm", "Native_log">;
def NativeLog2Inst : MathUnary<"native_log2", "Floating",
                               "Fast base-2 logarithm", "Native_log2">;

//===----------------------------------------------------------------------===//
// Mixed instructions: memory
//===----------------------------------------------------------------------===//

def AssociatedInst : Inst<"associated", Mixed> {
  let summary = "Whether a memref or group has a non-null base address";
  let operands = (ins MemRefOrGroup:$tensor);
  let results = (outs BoolT:$result);
  let format = "$tensor type($result)";
  let pure = 1;
  let traits = [MemoryAccess];
}

def AtomicLoadInst : Inst<"atomic_load", Mixed> {
  let summary = "Atomically loads an element of a memref";
  let props = (prop ScopeProp:$scope, SemanticsProp:$semantics);
  let operands = (ins (MemRef $e):$tensor, (Variadic Index):$indices);
  let results = (outs (Number $e):$result);
  let format = "$scope $semantics $tensor `[` $indices `]` type($result)";
  let verify = "verifyIndexCount";
  let traits = [MemoryAccess, Atomic];
  let reads = ["tensor"];
}

def AtomicStoreInst : Inst<"atomic_store", Mixed> {
  let summary = "Atomically stores an element of a memref";
  let props = (prop ScopeProp:$scope, SemanticsProp:$semantics);
  let operands = (ins (Number $e):$value, (MemRef $e):$tensor,
                      (Variadic Index):$indices);
  let format = "$scope $semantics $value `,` $tensor `[` $indices `]`";
  let verify = "verifyIndexCount";
  let traits = [MemoryAccess, Atomic];
  let reads = ["tensor"];
  let writes = ["tensor"];
}

class AtomicUpdate<string m, string cls, string s> : Inst<m, Mixed> {
  let summary = s;
  let props = (prop ScopeProp:$scope, SemanticsProp:$semantics);
  let operands = (ins (Number $e):$value, (MemRef $e):$tensor,
                      (Variadic Index):$indices);
  let results = (outs (Number $e):$result);
  let where = [(KindIn $e, cls)];
  let format = "$scope $semantics $value `,` $tensor `[` $indices `]` "
               "type($result)";
  let verify = "verifyIndexCount";
  let traits = [MemoryAccess, Atomic];
  let reads = ["tensor"];
  let writes = ["tensor"];
}
def AtomicAddInst : AtomicUpdate<"atomic_add", "Number", "Atomic fetch-add"> {
  let combine = "add";
}
def AtomicMinInst
    : AtomicUpdate<"atomic_min", "NumberNoComplex", "Atomic fetch-min"> {
  let combine = "min";
}
def AtomicMaxInst
    : AtomicUpdate<"atomic_max", "NumberNoComplex", "Atomic fetch-max"> {
  let combine = "max";
}

def LoadInst : Inst<"load", Mixed> {
  let summary = "Loads an element of a memref or a memref of a group";
  let operands = (ins MemRefOrGroup:$tensor, (Variadic Index):$indices);
  let results = (outs (ElementOf $tensor):$result);
  let format = "$tensor `[` $indices `]` type($result)";
  let verify = "verifyIndexCount";
  let traits = [MemoryAccess];
  let reads = ["tensor"];
  let viewSource = "tensor";
}

def StoreInst : Inst<"store", Mixed> {
  let summary = "Stores an element of a memref";
  let operands = (ins (Number $e):$value, (MemRef $e):$tensor,
                      (Variadic Index):$indices);
  let format = "$value `,` $tensor `[` $indices `]`";
  let verify = "verifyIndexCount";
  let traits = [MemoryAccess];
  let reads = ["tensor"];
  let writes = ["tensor"];
}

def SizeInst : Inst<"size", Mixed> {
  let summary = "A mode size of a memref, or the size of a group";
  let props = (prop IntProp:$mode);
  let operands = (ins MemRefOrGroup:$tensor);
  let results = (outs Index:$result);
  let format = "$tensor `[` $mode `]` type($result)";
  let verify = "verifySize";
  let pure = 1;
  let traits = [MemoryAccess];
}

def SubviewInst : Inst<"subview", Mixed> {
  let summary = "A view on a block of a memref";
  // Static offsets and sizes, kDynamic where an operand gives the value.
  let props = (prop IntListProp:$static_offsets, IntListProp:$static_sizes);
  let operands = (ins (MemRef $e):$operand, (Variadic Index):$offsets,
                      (Variadic Index):$sizes);
  let results = (outs (MemRef $e):$result);
  let format = "custom<Subview>($operand, $static_offsets, $offsets, "
               "$static_sizes, $sizes) type($result)";
  let verify = "verifySubview";
  let pure = 1;
  let traits = [MemoryAccess];
  let viewSource = "operand";
}

def ExpandInst : Inst<"expand", Mixed> {
  let summary = "A view with one mode split into several";
  // The expand shape, kDynamic where an operand gives the value.
  let props = (prop IntProp:$mode, IntListProp:$static_expand_shape);
  let operands = (ins (MemRef $e):$operand, (Variadic Index):$expand_shape);
  let results = (outs (MemRef $e):$result);
  let format = "custom<Expand>($operand, $mode, $static_expand_shape, "
               "$expand_shape) type($result)";
  let verify = "verifyExpand";
  let pure = 1;
  let traits = [MemoryAccess];
  let viewSource = "operand";
}

def FuseInst : Inst<"fuse", Mixed> {
  let summary = "A view with adjacent modes fused into one";
  let props = (prop IntProp:$from, IntProp:$to);
  let operands = (ins (MemRef $e):$operand);
  let results = (outs (MemRef $e):$result);
  let format = "$operand `[` $from `,` $to `]` type($result)";
  let verify = "verifyFuse";
  let pure = 1;
  let traits = [MemoryAccess];
  let viewSource = "operand";
}

//===----------------------------------------------------------------------===//
// Mixed instructions: control flow, constants, casts, builtins
//===----------------------------------------------------------------------===//

def BarrierInst : Inst<"barrier", Mixed> {
  let summary = "Work-group control barrier with optional memory fences";
  let props = (prop FlagProp<".global">:$global, FlagProp<".local">:$local);
  let format = "$global $local";
  let traits = [MemoryAccess];
}

def CastInst : Inst<"cast", Mixed> {
  let summary = "Converts a scalar or a coopmatrix component-wise";
  let operands = (ins NumberOrCoop:$a);
  let results = (outs NumberOrCoop:$result);
  let format = "$a type($result)";
  let verify = "verifyCast";
  let pure = 1;
}

def ConstantInst : Inst<"constant", Mixed> {
  let summary = "A constant scalar, or a coopmatrix filled with it";
  let props = (prop ConstantProp:$value);
  let results = (outs ReturnType:$result);
  let format = "custom<Constant>($value) type($result)";
  let verify = "verifyConstant";
  let pure = 1;
}

def ForInst : Inst<"for", Mixed> {
  let summary = "Sequential loop with loop-carried values";
  let props = (prop DictProp:$attributes);
  let operands = (ins IntegerT:$from, (SameAs $from):$to,
                      (Optional (SameAs $from)):$step,
                      (Variadic ReturnType):$init);
  let results = (outs (Variadic (SameAs $init)):$results);
  let regions = (region Mixed:$body);
  let format = "custom<For>($from, $to, $step, $init, $results, $body) "
               "attr-dict-with-keyword";
  let verify = "verifyFor";
  let buildHook = "buildForParams";
}

def IfInst : Inst<"if", Mixed> {
  let summary = "Conditional execution, optionally returning values";
  let operands = (ins BoolT:$condition);
  let results = (outs (Variadic ReturnType):$results);
  let regions = (region Mixed:$then, (Optional Mixed):$else);
  let format = "custom<If>($condition, $results, $then, $else)";
  let verify = "verifyIf";
}

def YieldInst : Inst<"yield", Mixed> {
  let summary = "Returns values from a for, if or cooperative_matrix_apply";
  let operands = (ins (Variadic ReturnType):$values);
  let format = "`(` $values `)`";
  let verify = "verifyYield";
  let terminator = 1;
}

// Builtins returning a fixed type.
class Builtin<string m, Kind k, Pred type, string s> : Inst<m, k> {
  let summary = s;
  let results = (outs type:$result);
  let format = "type($result)";
  let pure = 1;
  let traits = [Builtin];
}
class Builtin3<string m, Kind k, Pred type, string s> : Builtin<m, k, type, s> {
  let props = (prop Comp3Prop:$mode);
  let format = "$mode type($result)";
}
def GroupIdInst : Builtin3<"group_id", Mixed, Index, "Work-group id">;
def NumGroupsInst
    : Builtin3<"num_groups", Mixed, Index, "Number of work-groups">;
def NumSubgroupsInst
    : Builtin3<"num_subgroups", Mixed, I32, "Number of subgroups">;
def SubgroupSizeInst : Builtin<"subgroup_size", Mixed, I32, "Subgroup size">;

//===----------------------------------------------------------------------===//
// SPMD instructions
//===----------------------------------------------------------------------===//

def SubgroupIdInst : Builtin3<"subgroup_id", Spmd, I32, "Subgroup id">;
def SubgroupLinearIdInst
    : Builtin<"subgroup_linear_id", Spmd, I32, "Linear subgroup id">;
def SubgroupLocalIdInst
    : Builtin<"subgroup_local_id", Spmd, I32, "Id within the subgroup">;

def CooperativeMatrixApplyInst : Inst<"cooperative_matrix_apply", Spmd> {
  let summary = "Applies the region to every component of a coopmatrix";
  let operands = (ins Coop:$a);
  let results = (outs (SameAs $a):$result);
  let regions = (region Spmd:$body);
  let format = "custom<CoopApply>($a, $result, $body)";
  let verify = "verifyCoopApply";
  let buildHook = "buildCoopApplyParams";
  let traits = [CoopMatrix];
}

class CoopMemory<string m, string s> : Inst<m, Spmd> {
  let summary = s;
  let traits = [CoopMatrix];
}
def CooperativeMatrixLoadInst
    : CoopMemory<"cooperative_matrix_load", "Loads a coopmatrix"> {
  let props = (prop TransposeProp:$transpose, CheckedProp:$checked);
  let operands = (ins (MemRef $e, 2):$operand, Index:$x, Index:$y);
  let results = (outs (Coop $e):$result);
  let format = "$transpose $checked $operand `[` $x `,` $y `]` type($result)";
  let reads = ["operand"];
}
def CooperativeMatrixStoreInst
    : CoopMemory<"cooperative_matrix_store", "Stores a coopmatrix"> {
  let props = (prop TransposeProp:$transpose, CheckedProp:$checked);
  let operands = (ins (Coop $e):$val, (MemRef $e, 2):$operand, Index:$x,
                      Index:$y);
  let format = "$transpose $checked $val `,` $operand `[` $x `,` $y `]`";
  let reads = ["operand"];
  let writes = ["operand"];
}
def CooperativeMatrixAtomicLoadInst
    : CoopMemory<"cooperative_matrix_atomic_load",
                 "Loads a coopmatrix component-wise atomically"> {
  let props = (prop TransposeProp:$transpose, CheckedProp:$checked,
                     ScopeProp:$scope, SemanticsProp:$semantics);
  let operands = (ins (MemRef $e, 2):$operand, Index:$x, Index:$y);
  let results = (outs (Coop $e):$result);
  let format = "$transpose $checked $scope $semantics $operand `[` $x `,` $y "
               "`]` type($result)";
  let reads = ["operand"];
}
def CooperativeMatrixAtomicStoreInst
    : CoopMemory<"cooperative_matrix_atomic_store",
                 "Stores a coopmatrix component-wise atomically"> {
  let props = (prop TransposeProp:$transpose, CheckedProp:$checked,
                     ScopeProp:$scope, SemanticsProp:$semantics);
  let operands = (ins (Coop $e):$val, (MemRef $e, 2):$operand, Index:$x,
                      Index:$y);
  let format = "$transpose $checked $scope $semantics $val `,` $operand `[` "
               "$x `,` $y `]`";
  let reads = ["operand"];
  let writes = ["operand"];
}
class CoopAtomicUpdate<string m, string cls, string s> : CoopMemory<m, s> {
  let props = (prop TransposeProp:$transpose, CheckedProp:$checked,
                     ScopeProp:$scope, SemanticsProp:$semantics);
  let operands = (ins (Coop $e):$val, (MemRef $e, 2):$operand, Index:$x,
                      Index:$y);
  let results = (outs (SameAs $val):$result);
  let where = [(KindIn $e, cls)];
  let format = "$transpose $checked $scope $semantics $val `,` $operand `[` "
               "$x `,` $y `]` type($result)";
  let reads = ["operand"];
  let writes = ["operand"];
}
def CooperativeMatrixAtomicAddInst
    : CoopAtomicUpdate<"cooperative_matrix_atomic_add", "Number",
                       "Component-wise atomic fetch-add of a coopmatrix"> {
  let combine = "add";
}
def CooperativeMatrixAtomicMaxInst
    : CoopAtomicUpdate<"cooperative_matrix_atomic_max", "NumberNoComplex",
                       "Component-wise atomic fetch-max of a coopmatrix"> {
  let combine = "max";
}
def CooperativeMatrixAtomicMinInst
    : CoopAtomicUpdate<"cooperative_matrix_atomic_min", "NumberNoComplex",
                       "Component-wise atomic fetch-min of a coopmatrix"> {
  let combine = "min";
}

def CooperativeMatrixConstructInst
    : Inst<"cooperative_matrix_construct", Spmd> {
  let summary = "A coopmatrix with every component set to a scalar";
  let operands = (ins (Number $k):$val);
  let results = (outs (Coop $k):$result);
  let format = "$val type($result)";
  let pure = 1;
  let traits = [CoopMatrix];
}

def CooperativeMatrixExtractInst : Inst<"cooperative_matrix_extract", Spmd> {
  let summary = "An element of the work-item vector of a coopmatrix";
  let props = (prop IntProp:$index);
  let operands = (ins (Coop $k):$mat);
  let results = (outs (Number $k):$result);
  let format = "$mat `[` $index `]` type($result)";
  let verify = "verifyCoopElementIndex";
  let pure = 1;
  let traits = [CoopMatrix];
}

def CooperativeMatrixInsertInst : Inst<"cooperative_matrix_insert", Spmd> {
  let summary = "A copy of a coopmatrix with one work-item element replaced";
  let props = (prop IntProp:$index);
  let operands = (ins (Number $k):$val, (Coop $k):$mat);
  let results = (outs (SameAs $mat):$result);
  let format = "$val `,` $mat `[` $index `]` type($result)";
  let verify = "verifyCoopElementIndex";
  let pure = 1;
  let traits = [CoopMatrix];
}

def CooperativeMatrixMulAddInst : Inst<"cooperative_matrix_mul_add", Spmd> {
  let summary = "D := A * B + C on coopmatrices";
  let operands = (ins (Coop $ka, "A"):$a, (Coop $kb, "B"):$b,
                      (Coop $kc, "Acc"):$c);
  let results = (outs (Coop $kd, "Acc"):$result);
  let where = [(Promotable (Promote $ka, $kb), $kc), (CastAllowed $kc, $kd)];
  let format = "$a `,` $b `,` $c type($result)";
  let verify = "verifyCoopMulAdd";
  let pure = 1;
  let traits = [CoopMatrix];
}

def CooperativeMatrixPrefetchInst : Inst<"cooperative_matrix_prefetch", Spmd> {
  let summary = "Prefetches a block of a memref into a cache level";
  let props = (prop IntProp:$cache_level, IntProp:$rows, IntProp:$cols);
  let operands = (ins (MemRef $e, 2):$operand, Index:$x, Index:$y);
  let format = "$cache_level `,` $operand `[` $x `,` $y `]` `,` $rows `,` "
               "$cols";
  let verify = "verifyCoopPrefetch";
  let traits = [CoopMatrix];
  let reads = ["operand"];
}

class CoopReduce<string m, string cls, string s> : Inst<m, Spmd> {
  let summary = s;
  let props = (prop ReduceModeProp:$mode);
  let operands = (ins (Coop $k):$a);
  let results = (outs (Coop $k):$result);
  let where = [(KindIn $k, cls)];
  let format = "$mode $a type($result)";
  let verify = "verifyCoopReduce";
  let pure = 1;
  let traits = [CoopMatrix];
}
def CooperativeMatrixReduceAddInst
    : CoopReduce<"cooperative_matrix_reduce_add", "Number",
                 "Sum over the rows or columns of a coopmatrix"> {
  let combine = "add";
}
def CooperativeMatrixReduceMaxInst
    : CoopReduce<"cooperative_matrix_reduce_max", "NumberNoComplex",
                 "Maximum over the rows or columns of a coopmatrix"> {
  let combine = "max";
}
def CooperativeMatrixReduceMinInst
    : CoopReduce<"cooperative_matrix_reduce_min", "NumberNoComplex",
                 "Minimum over the rows or columns of a coopmatrix"> {
  let combine = "min";
}

def CooperativeMatrixScaleInst : Inst<"cooperative_matrix_scale", Spmd> {
  let summary = "Scales a coopmatrix by a scalar";
  let operands = (ins (Number $k):$a, (Coop $k):$b);
  let results = (outs (SameAs $b):$result);
  let format = "$a `,` $b type($result)";
  let pure = 1;
  let traits = [CoopMatrix];
}

// What lower-coopmatrix rewrites cooperative matrices into: per-work-item
// parts (see backend/lib/CoopLayout.h), each a number or a `vector<...>`,
// which arithmetic, casts, constants, for, if and yield take like numbers.
// cooperative_matrix_part / _from_parts connect the parts to the
// coopmatrix instructions the emitter still lowers itself.
def CooperativeMatrixPartInst : Inst<"cooperative_matrix_part", Spmd> {
  let summary = "Part of the work-item's share of a coopmatrix "
                "(lower-coopmatrix)";
  let props = (prop IntProp:$index);
  let operands = (ins (Coop $k):$mat);
  let results = (outs (Part $k):$result);
  let format = "$mat `[` $index `]` type($result)";
  let verify = "verifyPartIndex";
  let pure = 1;
  let traits = [CoopMatrix];
}
def CooperativeMatrixFromPartsInst
    : Inst<"cooperative_matrix_from_parts", Spmd> {
  let summary = "A coopmatrix from the work-item's parts (lower-coopmatrix)";
  let operands = (ins (Variadic Part):$parts);
  let results = (outs Coop:$result);
  let format = "`(` $parts `)` type($result)";
  let verify = "verifyFromParts";
  let pure = 1;
  let traits = [CoopMatrix];
}
def VectorSplatInst : Inst<"vector_splat", Spmd> {
  let summary = "A vector with every element set to a scalar";
  let operands = (ins (Number $k):$val);
  let results = (outs (Vector $k):$result);
  let format = "$val type($result)";
  let pure = 1;
}
def VectorExtractInst : Inst<"vector_extract", Spmd> {
  let summary = "An element of a vector";
  let props = (prop IntProp:$index);
  let operands = (ins (Vector $k):$vec);
  let results = (outs (Number $k):$result);
  let format = "$vec `[` $index `]` type($result)";
  let verify = "verifyPartIndex";
  let pure = 1;
}
def VectorInsertInst : Inst<"vector_insert", Spmd> {
  let summary = "A copy of a vector with one element replaced";
  let props = (prop IntProp:$index);
  let operands = (ins (Number $k):$val, (Vector $k):$vec);
  let results = (outs (SameAs $vec):$result);
  let format = "$val `,` $vec `[` $index `]` type($result)";
  let verify = "verifyPartIndex";
  let pure = 1;
}

def FmaInst : Inst<"fma", Spmd> {
  let summary = "a * b + c (fused for floating types)";
  let operands = (ins (Part $k):$a, (SameAs $a):$b, (SameAs $a):$c);
  let results = (outs (SameAs $a):$result);
  let format = "$a `,` $b `,` $c type($result)";
  let pure = 1;
}
def SelectInst : Inst<"select", Spmd> {
  let summary = "a where the condition holds, else b";
  let operands = (ins BoolT:$condition, (Part $k):$a, (SameAs $a):$b);
  let results = (outs (SameAs $a):$result);
  let format = "$condition `,` $a `,` $b type($result)";
  let pure = 1;
}
// A column chunk of a coopmatrix part: elements (x + i, y) for i below the
// width, contiguous because mode 0 has stride 1.
// Bounds tests of indices: one unsigned comparison covers 0 <= a too.
def UnsignedLessThanInst
    : Inst<"unsigned_less_than", Spmd> {
  let summary = "a < b as unsigned integers";
  let operands = (ins Index:$a, Index:$b);
  let results = (outs BoolT:$result);
  let format = "$a `,` $b type($result)";
  let pure = 1;
  let traits = [Comparison];
  let spirvInt = "ULessThan";
}
def UnsignedLessThanEqualInst
    : Inst<"unsigned_less_than_equal", Spmd> {
  let summary = "a <= b as unsigned integers";
  let operands = (ins Index:$a, Index:$b);
  let results = (outs BoolT:$result);
  let format = "$a `,` $b type($result)";
  let pure = 1;
  let traits = [Comparison];
  let spirvInt = "ULessThanEqual";
}
def VectorLoadInst : Inst<"vector_load", Spmd> {
  let summary = "Loads consecutive elements of mode 0 as a vector";
  let operands = (ins (MemRef $e):$tensor, (Variadic Index):$indices);
  let results = (outs (Vector $e):$result);
  let format = "$tensor `[` $indices `]` type($result)";
  let verify = "verifyVectorAccess";
  let reads = ["tensor"];
}
def VectorStoreInst : Inst<"vector_store", Spmd> {
  let summary = "Stores a vector into consecutive elements of mode 0; "
                "attributes: `align = N` promises an address that is a "
                "multiple of N bytes, `nontemporal = true` asks for a "
                "streaming store past the caches";
  let props = (prop DictProp:$attributes);
  let operands = (ins (Vector $e):$val, (MemRef $e):$tensor,
                      (Variadic Index):$indices);
  let format = "$val `,` $tensor `[` $indices `]` attr-dict";
  let verify = "verifyVectorStore";
  let reads = ["tensor"];
  let writes = ["tensor"];
}

def SubgroupBroadcastInst : Inst<"subgroup_broadcast", Spmd> {
  let summary = "Broadcasts a work-item's scalar to the subgroup";
  let operands = (ins Number:$a, I32:$idx);
  let results = (outs (SameAs $a):$result);
  let format = "$a `,` $idx type($result)";
  let pure = 1;
  let traits = [SubgroupOp];
}

class SubgroupOperation<string m, string cls, string s> : Inst<m, Spmd> {
  let summary = s;
  let operands = (ins (OfClass cls):$a);
  let results = (outs (SameAs $a):$result);
  let format = "$a type($result)";
  let pure = 1;
  let traits = [SubgroupOp];
}
def SubgroupExclusiveScanAddInst
    : SubgroupOperation<"subgroup_exclusive_scan_add", "Number",
                        "Exclusive scan (+) over the subgroup"> {
  let traits = [SubgroupOp, ExclusiveScan];
  let combine = "add";
}
def SubgroupExclusiveScanMaxInst
    : SubgroupOperation<"subgroup_exclusive_scan_max", "NumberNoComplex",
                        "Exclusive scan (max) over the subgroup"> {
  let traits = [SubgroupOp, ExclusiveScan];
  let combine = "max";
}
def SubgroupExclusiveScanMinInst
    : SubgroupOperation<"subgroup_exclusive_scan_min", "NumberNoComplex",
                        "Exclusive scan (min) over the subgroup"> {
  let traits = [SubgroupOp, ExclusiveScan];
  let combine = "min";
}
def SubgroupInclusiveScanAddInst
    : SubgroupOperation<"subgroup_inclusive_scan_add", "Number",
                        "Inclusive scan (+) over the subgroup"> {
  let traits = [SubgroupOp, InclusiveScan];
  let combine = "add";
}
def SubgroupInclusiveScanMaxInst
    : SubgroupOperation<"subgroup_inclusive_scan_max", "NumberNoComplex",
                        "Inclusive scan (max) over the subgroup"> {
  let traits = [SubgroupOp, InclusiveScan];
  let combine = "max";
}
def SubgroupInclusiveScanMinInst
    : SubgroupOperation<"subgroup_inclusive_scan_min", "NumberNoComplex",
                        "Inclusive scan (min) over the subgroup"> {
  let traits = [SubgroupOp, InclusiveScan];
  let combine = "min";
}
def SubgroupReduceAddInst
    : SubgroupOperation<"subgroup_reduce_add", "Number",
                        "Reduction (+) over the subgroup"> {
  let combine = "add";
}
def SubgroupReduceMaxInst
    : SubgroupOperation<"subgroup_reduce_max", "NumberNoComplex",
                        "Reduction (max) over the subgroup"> {
  let combine = "max";
}
def SubgroupReduceMinInst
    : SubgroupOperation<"subgroup_reduce_min", "NumberNoComplex",
                        "Reduction (min) over the subgroup"> {
  let combine = "min";
}
