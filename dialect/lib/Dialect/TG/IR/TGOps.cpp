#include "tg/Dialect/TG/IR/TGOps.h"

#include "AttentionCaptures.h"

#include "mlir/IR/Builders.h"

#include <type_traits>
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallSet.h"

#include "llvm/Support/Format.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::tg;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

static ArrayRef<int64_t> shapeOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getShape();
}
static ArrayRef<int64_t> shapeOf(Type type) {
  return cast<RankedTensorType>(type).getShape();
}
static Type elementTypeOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getElementType();
}

/// True when `value` is a splat constant equal to `expected`.
static bool isSplatConstant(Value value, double expected) {
  ElementsAttr elements;
  if (!matchPattern(value, m_Constant(&elements)) || !elements.isSplat())
    return false;
  Type elementType = elements.getElementType();
  if (isa<FloatType>(elementType))
    return elements.getSplatValue<APFloat>().convertToDouble() == expected;
  if (elementType.isInteger(1))
    return false;
  if (isa<IntegerType>(elementType))
    return static_cast<double>(
               elements.getSplatValue<APInt>().getSExtValue()) == expected;
  return false;
}

static bool isFloatElement(Type type) { return isa<FloatType>(type); }

//===----------------------------------------------------------------------===//
// custom<EnumKeyword>: an enum attribute printed as its bare keyword
//===----------------------------------------------------------------------===//

// The dialect enum attributes print as `#tg<kind max>` on their own; inside an
// op we want just `max`, with one space either side.
template <typename AttrT>
static ParseResult parseEnumKeyword(OpAsmParser &parser, AttrT &attr) {
  using EnumT = decltype(std::declval<AttrT>().getValue());
  SMLoc loc = parser.getCurrentLocation();
  StringRef keyword;
  std::optional<EnumT> value;
  if (succeeded(parser.parseOptionalKeyword(&keyword)))
    value = symbolizeEnum<EnumT>(keyword);
  if (!value) {
    InFlightDiagnostic diag = parser.emitError(loc, "expected one of");
    for (uint32_t i = 0; !stringifyEnum(static_cast<EnumT>(i)).empty(); ++i)
      diag << (i ? ", " : " ") << "'" << stringifyEnum(static_cast<EnumT>(i))
           << "'";
    return diag;
  }
  attr = AttrT::get(parser.getContext(), *value);
  return success();
}

template <typename AttrT>
static void printEnumKeyword(OpAsmPrinter &printer, Operation *, AttrT attr) {
  printer << stringifyEnum(attr.getValue());
}

//===----------------------------------------------------------------------===//
// custom<GatherMode>: nothing for clamp, `fill(value)` for fill, then the `:`
//===----------------------------------------------------------------------===//

// The directive also prints the `:` that follows it: printing nothing for
// the default mode would otherwise leave two spaces before the types.
static ParseResult parseGatherMode(OpAsmParser &parser, GatherModeAttr &mode,
                                   FloatAttr &fill) {
  if (succeeded(parser.parseOptionalKeyword("fill"))) {
    if (parser.parseLParen())
      return failure();
    // -inf and inf are keywords; other values are numbers (an integer
    // literal such as `0` is accepted too).
    bool negative = succeeded(parser.parseOptionalMinus());
    double value = 0.0;
    int64_t integer = 0;
    if (succeeded(parser.parseOptionalKeyword("inf")))
      value = std::numeric_limits<double>::infinity();
    else if (OptionalParseResult result = parser.parseOptionalInteger(integer);
             result.has_value()) {
      if (failed(*result))
        return failure();
      value = static_cast<double>(integer);
    } else if (parser.parseFloat(value)) {
      return failure();
    }
    if (parser.parseRParen())
      return failure();
    mode = GatherModeAttr::get(parser.getContext(), GatherMode::fill);
    fill = parser.getBuilder().getF64FloatAttr(negative ? -value : value);
  } else {
    (void)parser.parseOptionalKeyword("clamp");
  }
  return parser.parseColon();
}

static void printGatherMode(OpAsmPrinter &printer, Operation *,
                            GatherModeAttr mode, FloatAttr fill) {
  if (mode && mode.getValue() == GatherMode::fill && fill) {
    double value = fill.getValueAsDouble();
    std::string text;
    if (std::isinf(value)) {
      text = value < 0 ? "-inf" : "inf";
    } else {
      llvm::raw_string_ostream(text) << llvm::format("%.17g", value);
      if (text.find_first_of(".en") == std::string::npos)
        text += ".0";
    }
    printer << "fill(" << text << ") ";
  }
  printer << ":";
}

//===----------------------------------------------------------------------===//
// ConstantOp
//===----------------------------------------------------------------------===//

LogicalResult ConstantOp::inferReturnTypes(MLIRContext *,
                                           std::optional<Location> loc,
                                           Adaptor adaptor,
                                           SmallVectorImpl<Type> &types) {
  auto value = dyn_cast_or_null<ElementsAttr>(adaptor.getValueAttr());
  if (!value)
    return failure();
  types.push_back(value.getType());
  return success();
}

LogicalResult ConstantOp::verify() {
  if (!isa<RankedTensorType>(getValue().getType()))
    return emitOpError("expects a ranked tensor value");
  return success();
}

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

ConstantOp ConstantOp::createSplat(OpBuilder &builder, Location loc,
                                   RankedTensorType type, double value) {
  Type elementType = type.getElementType();
  DenseElementsAttr attr;
  if (auto floatType = dyn_cast<FloatType>(elementType)) {
    APFloat converted(value);
    bool losesInfo = false;
    converted.convert(floatType.getFloatSemantics(),
                      APFloat::rmNearestTiesToEven, &losesInfo);
    attr = DenseElementsAttr::get(type, converted);
  } else {
    auto intType = cast<IntegerType>(elementType);
    attr = DenseElementsAttr::get(
        type, APInt(intType.getWidth(), static_cast<int64_t>(value),
                    /*isSigned=*/true, /*implicitTrunc=*/true));
  }
  return ConstantOp::create(builder, loc, cast<ElementsAttr>(attr));
}

ConstantOp ConstantOp::createScalar(OpBuilder &builder, Location loc,
                                    Type elementType, double value) {
  return createSplat(builder, loc, RankedTensorType::get({}, elementType),
                     value);
}

//===----------------------------------------------------------------------===//
// Pointwise folders
//===----------------------------------------------------------------------===//

OpFoldResult AddOp::fold(FoldAdaptor) {
  if (getLhs().getType() == getType() && isSplatConstant(getRhs(), 0.0))
    return getLhs();
  if (getRhs().getType() == getType() && isSplatConstant(getLhs(), 0.0))
    return getRhs();
  return {};
}

OpFoldResult MulOp::fold(FoldAdaptor) {
  if (getLhs().getType() == getType() && isSplatConstant(getRhs(), 1.0))
    return getLhs();
  if (getRhs().getType() == getType() && isSplatConstant(getLhs(), 1.0))
    return getRhs();
  return {};
}

OpFoldResult SubOp::fold(FoldAdaptor) {
  if (getLhs().getType() == getType() && isSplatConstant(getRhs(), 0.0))
    return getLhs();
  return {};
}

OpFoldResult DivOp::fold(FoldAdaptor) {
  if (getLhs().getType() == getType() && isSplatConstant(getRhs(), 1.0))
    return getLhs();
  return {};
}

OpFoldResult NegOp::fold(FoldAdaptor) {
  if (auto inner = getInput().getDefiningOp<NegOp>())
    return inner.getInput();
  return {};
}

LogicalResult CmpOp::inferReturnTypes(MLIRContext *context,
                                      std::optional<Location> loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &types) {
  return inferBroadcastResult(
      loc, {adaptor.getLhs().getType(), adaptor.getRhs().getType()},
      IntegerType::get(context, 1), types);
}

LogicalResult SelectOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  return inferBroadcastResult(
      loc,
      {adaptor.getCond().getType(), adaptor.getOnTrue().getType(),
       adaptor.getOnFalse().getType()},
      cast<ShapedType>(adaptor.getOnTrue().getType()).getElementType(), types);
}

OpFoldResult SelectOp::fold(FoldAdaptor adaptor) {
  if (getOnTrue() == getOnFalse() && getOnTrue().getType() == getType())
    return getOnTrue();
  auto cond = dyn_cast_or_null<SplatElementsAttr>(adaptor.getCond());
  if (!cond)
    return {};
  Value chosen = cond.getSplatValue<bool>() ? getOnTrue() : getOnFalse();
  if (chosen.getType() == getType())
    return chosen;
  return {};
}

//===----------------------------------------------------------------------===//
// CastOp
//===----------------------------------------------------------------------===//

LogicalResult CastOp::verify() {
  if (shapeOf(getInput()) != shapeOf(getType()))
    return emitOpError("changes the shape from ")
           << formatShape(shapeOf(getInput())) << " to "
           << formatShape(shapeOf(getType()))
           << " (expected equal shapes; use tg.reshape or tg.broadcast)";
  return success();
}

/// True when every value of element type `narrow` is exactly a value of
/// `wide`, so that a cast to `wide` and on to any type C equals a direct cast
/// to C.
static bool representsExactly(Type wide, Type narrow) {
  if (wide == narrow || narrow.isInteger(1))
    return true;
  auto wideFloat = dyn_cast<FloatType>(wide);
  if (auto narrowFloat = dyn_cast<FloatType>(narrow))
    return wideFloat && APFloat::isRepresentableBy(
                            narrowFloat.getFloatSemantics(),
                            wideFloat.getFloatSemantics());
  unsigned width = cast<IntegerType>(narrow).getWidth();
  if (wideFloat) {
    // Signed integers of `width` bits have magnitudes up to 2^(width-1).
    const llvm::fltSemantics &sem = wideFloat.getFloatSemantics();
    return APFloat::semanticsPrecision(sem) >= width - 1 &&
           APFloat::semanticsMaxExponent(sem) >= static_cast<int>(width - 1);
  }
  auto wideInt = dyn_cast<IntegerType>(wide);
  return wideInt && !wideInt.isInteger(1) && wideInt.getWidth() >= width;
}

OpFoldResult CastOp::fold(FoldAdaptor) {
  if (getInput().getType() == getType())
    return getInput();
  // cast(cast(x : A -> B) : B -> C) == cast(x : A -> C) when B holds every
  // value of A exactly; with C == A the casts cancel.
  auto inner = getInput().getDefiningOp<CastOp>();
  if (!inner || !representsExactly(elementTypeOf(inner.getResult()),
                                   elementTypeOf(inner.getInput())))
    return {};
  if (inner.getInput().getType() == getType())
    return inner.getInput();
  getInputMutable().assign(inner.getInput());
  return getResult();
}

//===----------------------------------------------------------------------===//
// ReduceOp
//===----------------------------------------------------------------------===//

LogicalResult ReduceOp::verify() {
  ArrayRef<int64_t> shape = shapeOf(getInput());
  int64_t rank = shape.size();
  if (getDims().empty())
    return emitOpError("expects at least one dimension to reduce");
  llvm::SmallSet<int64_t, 4> seen;
  for (int64_t dim : getDims()) {
    if (dim < 0 || dim >= rank)
      return emitOpError("dimension ")
             << dim << " is out of range (expected 0 <= dim < " << rank << ")";
    if (!seen.insert(dim).second)
      return emitOpError("dimension ") << dim << " is listed twice";
  }
  SmallVector<int64_t> expected;
  for (int64_t i = 0; i < rank; ++i) {
    if (!seen.contains(i))
      expected.push_back(shape[i]);
    else if (getKeepdim())
      expected.push_back(1);
  }
  if (elementTypeOf(getInput()) != elementTypeOf(getResult()))
    return emitOpError("result element type ")
           << elementTypeOf(getResult()) << " differs from the input's "
           << elementTypeOf(getInput());
  if (shapeOf(getType()) != ArrayRef<int64_t>(expected))
    return emitOpError("result shape ")
           << formatShape(shapeOf(getType())) << " does not match; expected "
           << formatShape(expected);
  return success();
}

//===----------------------------------------------------------------------===//
// GenIndexOp
//===----------------------------------------------------------------------===//

/// Checks `0 <= axis < rank` for an axis attribute.
static LogicalResult verifyAxis(Operation *op, IntegerAttr axisAttr,
                                int64_t rank) {
  int64_t axis = axisAttr.getInt();
  if (axis < 0 || axis >= rank)
    return op->emitOpError("axis ") << axis
                                    << " is out of range (expected 0 <= axis < "
                                    << rank << ")";
  return success();
}

LogicalResult GenIndexOp::verify() {
  ArrayRef<int64_t> shape = shapeOf(getType());
  if (failed(verifyAxis(*this, getAxisAttr(), shape.size())))
    return failure();
  int64_t size = shape[getAxisAttr().getInt()];
  unsigned width = cast<IntegerType>(elementTypeOf(getResult())).getWidth();
  if (width < 64 && size - 1 > (int64_t(1) << (width - 1)) - 1)
    return emitOpError("indices up to ")
           << size - 1 << " do not fit in i" << width
           << " (expected a wider element type)";
  return success();
}

//===----------------------------------------------------------------------===//
// Layout ops
//===----------------------------------------------------------------------===//

LogicalResult TransposeOp::verify() {
  ArrayRef<int64_t> shape = shapeOf(getInput());
  ArrayRef<int64_t> perm = getPerm();
  if (perm.size() != shape.size())
    return emitOpError("permutation has ")
           << perm.size() << " entries but the input has rank "
           << shape.size();
  SmallVector<bool> used(shape.size(), false);
  SmallVector<int64_t> expected;
  for (int64_t p : perm) {
    if (p < 0 || p >= static_cast<int64_t>(shape.size()) || used[p])
      return emitOpError("expects a permutation of [0, ")
             << shape.size() << ")";
    used[p] = true;
    expected.push_back(shape[p]);
  }
  if (elementTypeOf(getInput()) != elementTypeOf(getResult()))
    return emitOpError("changes the element type");
  if (shapeOf(getType()) != ArrayRef<int64_t>(expected))
    return emitOpError("result shape ")
           << formatShape(shapeOf(getType())) << " does not match; expected "
           << formatShape(expected);
  return success();
}

/// A splat constant of `type` with the value of `attr`, when `attr` is a
/// splat; used to fold layout ops of splat constants.
static Attribute reshapedSplat(Attribute attr, Type type) {
  auto splat = dyn_cast_or_null<SplatElementsAttr>(attr);
  if (!splat)
    return {};
  return SplatElementsAttr::get(cast<ShapedType>(type),
                                splat.getSplatValue<Attribute>());
}

OpFoldResult TransposeOp::fold(FoldAdaptor adaptor) {
  if (Attribute splat = reshapedSplat(adaptor.getInput(), getType()))
    return splat;
  for (auto [i, p] : llvm::enumerate(getPerm()))
    if (static_cast<int64_t>(i) != p)
      return {};
  return getInput();
}

namespace {
/// transpose(transpose(x, p1), p2) -> transpose(x, p1 o p2).
struct ComposeTransposes : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getInput().getDefiningOp<TransposeOp>();
    if (!inner)
      return rewriter.notifyMatchFailure(op, "input is not a transpose");
    SmallVector<int64_t> perm;
    for (int64_t p : op.getPerm())
      perm.push_back(inner.getPerm()[p]);
    rewriter.replaceOpWithNewOp<TransposeOp>(op, op.getType(), inner.getInput(),
                                             perm);
    return success();
  }
};

/// broadcast(broadcast(x)) -> broadcast(x): if x broadcasts to y and y to z,
/// then every dimension of x is z's or 1.
struct ComposeBroadcasts : OpRewritePattern<BroadcastOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BroadcastOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getInput().getDefiningOp<BroadcastOp>();
    if (!inner)
      return rewriter.notifyMatchFailure(op, "input is not a broadcast");
    rewriter.replaceOpWithNewOp<BroadcastOp>(op, op.getType(),
                                             inner.getInput());
    return success();
  }
};

/// reshape(reshape(x)) -> reshape(x).
struct ComposeReshapes : OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getInput().getDefiningOp<ReshapeOp>();
    if (!inner)
      return rewriter.notifyMatchFailure(op, "input is not a reshape");
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, op.getType(), inner.getInput());
    return success();
  }
};
} // namespace

void TransposeOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                              MLIRContext *context) {
  patterns.add<ComposeTransposes>(context);
}

LogicalResult ReshapeOp::verify() {
  auto in = cast<RankedTensorType>(getInput().getType());
  auto out = cast<RankedTensorType>(getType());
  if (in.getElementType() != out.getElementType())
    return emitOpError("changes the element type");
  if (in.getNumElements() != out.getNumElements())
    return emitOpError("changes the element count from ")
           << in.getNumElements() << " " << formatShape(in.getShape())
           << " to " << out.getNumElements() << " "
           << formatShape(out.getShape()) << " (expected equal counts)";
  return success();
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  // Row-major reinterpretation keeps the element order of a dense constant.
  if (auto dense = dyn_cast_or_null<DenseElementsAttr>(adaptor.getInput()))
    return dense.reshape(cast<ShapedType>(getType()));
  return {};
}

void ReshapeOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                            MLIRContext *context) {
  patterns.add<ComposeReshapes>(context);
}

LogicalResult BroadcastOp::verify() {
  if (elementTypeOf(getInput()) != elementTypeOf(getResult()))
    return emitOpError("changes the element type");
  if (!isBroadcastableTo(shapeOf(getInput()), shapeOf(getType())))
    return emitOpError("cannot broadcast ")
           << formatShape(shapeOf(getInput())) << " to "
           << formatShape(shapeOf(getType()))
           << " (expected equal rank, or rank 0, and each input dimension "
              "equal to the result's or 1)";
  return success();
}

OpFoldResult BroadcastOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  return reshapedSplat(adaptor.getInput(), getType());
}

void BroadcastOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                              MLIRContext *context) {
  patterns.add<ComposeBroadcasts>(context);
}

//===----------------------------------------------------------------------===//
// MatmulOp and FusedMatmulOp
//===----------------------------------------------------------------------===//

static Type defaultAccumulator(Type a, Type b, TypeAttr acc) {
  if (acc)
    return acc.getValue();
  Builder builder(a.getContext());
  if (isa<IntegerType>(a) && isa<IntegerType>(b))
    return builder.getI32Type();
  return builder.getF32Type();
}

/// Shape rules of a matmul: equal ranks >= 2, matching contraction
/// dimensions, broadcastable batch dimensions, and the implied result shape.
static LogicalResult verifyMatmulShapes(Operation *op, ArrayRef<int64_t> a,
                                        ArrayRef<int64_t> b,
                                        ArrayRef<int64_t> result) {
  if (a.size() < 2 || b.size() < 2)
    return op->emitOpError("operands must have rank >= 2, got ")
           << a.size() << " and " << b.size();
  if (a.size() != b.size())
    return op->emitOpError("operand ranks differ (")
           << a.size() << " vs " << b.size()
           << "); expected equal ranks with broadcastable batch dimensions";
  size_t rank = a.size();
  if (a[rank - 1] != b[rank - 2])
    return op->emitOpError("contraction dimensions differ: lhs has ")
           << a[rank - 1] << " columns but rhs has " << b[rank - 2]
           << " rows (expected equal)";
  std::optional<SmallVector<int64_t>> batch =
      broadcastShapes({a.drop_back(2), b.drop_back(2)});
  if (!batch)
    return op->emitOpError("batch dimensions ")
           << formatShape(a.drop_back(2)) << " and "
           << formatShape(b.drop_back(2))
           << " do not broadcast (expected each pair equal or 1)";
  SmallVector<int64_t> expected = *batch;
  expected.push_back(a[rank - 2]);
  expected.push_back(b[rank - 1]);
  if (result != ArrayRef<int64_t>(expected))
    return op->emitOpError("result shape ")
           << formatShape(result) << " does not match; expected "
           << formatShape(expected);
  return success();
}

/// Element-type rules of a matmul whose operands have (after any prologue)
/// element types `aElem` and `bElem`: numeric operands, i32 accumulation for
/// two integer operands and f32 otherwise, and a floating-point result for
/// an f32 accumulator (when `resultElem` is given: an epilogue that yields
/// the result type explicitly may convert to anything).
static LogicalResult verifyMatmulTypes(Operation *op, Type aElem, Type bElem,
                                       Type acc, Type resultElem) {
  if (aElem.isInteger(1) || bElem.isInteger(1))
    return op->emitOpError("operands cannot be i1 (expected numeric "
                           "element types)");
  bool intOperands = isa<IntegerType>(aElem) && isa<IntegerType>(bElem);
  if (intOperands && !acc.isInteger(32))
    return op->emitOpError("integer operands accumulate in i32, got ") << acc;
  if (!intOperands && !acc.isF32())
    return op->emitOpError("floating-point products accumulate in f32, got ")
           << acc;
  if (resultElem && acc.isF32() && !isFloatElement(resultElem))
    return op->emitOpError("an f32 accumulator rounds to a floating-point "
                           "result, got ")
           << resultElem;
  return success();
}

Type MatmulOp::getAccumulatorType() {
  return defaultAccumulator(elementTypeOf(getA()), elementTypeOf(getB()),
                            getAccAttr());
}

LogicalResult MatmulOp::verify() {
  if (failed(verifyMatmulShapes(*this, shapeOf(getA()), shapeOf(getB()),
                                shapeOf(getType()))))
    return failure();
  return verifyMatmulTypes(*this, elementTypeOf(getA()), elementTypeOf(getB()),
                           getAccumulatorType(), elementTypeOf(getResult()));
}

/// The tg.yield ending `block`, if it has one.
static YieldOp terminatingYield(Block &block) {
  if (block.empty())
    return {};
  return dyn_cast<YieldOp>(block.back());
}

/// Checks a per-element region: rank-0 block arguments of the expected
/// types, only pointwise ops on rank-0 tensors inside, and a tg.yield of one
/// rank-0 tensor (of `yieldType` when given).
static LogicalResult verifyElementRegion(Operation *op, Region &region,
                                         StringRef name,
                                         ArrayRef<Type> argTypes,
                                         Type yieldType,
                                         bool allowGather = false) {
  Block &block = region.front();
  if (block.getNumArguments() != argTypes.size())
    return op->emitOpError("region '")
           << name << "' has " << block.getNumArguments()
           << " arguments; expected " << argTypes.size();
  for (auto [i, arg, expected] :
       llvm::enumerate(block.getArguments(), argTypes))
    if (arg.getType() != expected)
      return op->emitOpError("region '")
             << name << "' argument " << i << " has type " << arg.getType()
             << "; expected " << expected;
  YieldOp yield = terminatingYield(block);
  if (!yield)
    return op->emitOpError("region '") << name << "' must end in tg.yield";
  for (Operation &inner : block.without_terminator()) {
    if (!inner.hasTrait<PointwiseTrait>() &&
        !(allowGather && isa<GatherOp>(inner)))
      return inner.emitOpError("is not allowed in region '")
             << name << "' of " << op->getName()
             << (allowGather ? " (expected pointwise tg ops and tg.gather)"
                             : " (expected pointwise tg ops only)");
    for (Type type : inner.getResultTypes())
      if (cast<RankedTensorType>(type).getRank() != 0)
        return inner.emitOpError("in region '")
               << name << "' must produce rank-0 tensors, got " << type;
  }
  if (yield.getValues().size() != 1)
    return yield.emitOpError("must yield exactly one value in region '")
           << name << "'";
  // Rank 0 already holds: the value is an argument or an inner result.
  auto type = cast<RankedTensorType>(yield.getValues()[0].getType());
  if (yieldType && type.getElementType() != yieldType)
    return yield.emitOpError("yields ")
           << type.getElementType() << " in region '" << name
           << "'; expected " << yieldType;
  return success();
}

static SmallVector<Type> scalarTypesOf(Type first, ValueRange captures) {
  SmallVector<Type> types{RankedTensorType::get({}, first)};
  for (Value capture : captures)
    types.push_back(RankedTensorType::get({}, elementTypeOf(capture)));
  return types;
}

Type FusedMatmulOp::getPrologueResultType(unsigned operandIndex) {
  Region &region = operandIndex == 0 ? getPrologueA() : getPrologueB();
  Value operand = operandIndex == 0 ? getA() : getB();
  if (region.empty())
    return elementTypeOf(operand);
  // Also called before the region is verified: tolerate a malformed one.
  YieldOp yield = terminatingYield(region.front());
  if (!yield || yield.getValues().size() != 1)
    return elementTypeOf(operand);
  auto type = dyn_cast<RankedTensorType>(yield.getValues()[0].getType());
  return type ? type.getElementType() : elementTypeOf(operand);
}

Type FusedMatmulOp::getAccumulatorType() {
  return defaultAccumulator(getPrologueResultType(0), getPrologueResultType(1),
                            getAccAttr());
}

LogicalResult FusedMatmulOp::verify() {
  auto checkCaptures = [&](ValueRange captures, ArrayRef<int64_t> target,
                           StringRef what) -> LogicalResult {
    for (Value capture : captures)
      if (!isBroadcastableTo(shapeOf(capture), target))
        return emitOpError("capture of shape ")
               << formatShape(shapeOf(capture)) << " does not broadcast to "
               << what << " shape " << formatShape(target)
               << " (expected equal rank, or rank 0, and each dimension "
                  "equal or 1)";
    return success();
  };
  if (failed(checkCaptures(getACaptures(), shapeOf(getA()), "operand a")) ||
      failed(checkCaptures(getBCaptures(), shapeOf(getB()), "operand b")) ||
      failed(checkCaptures(getEpilogueCaptures(), shapeOf(getType()),
                           "result")))
    return failure();
  std::pair<StringRef, size_t> regionsAndCaptures[] = {
      {"prologue_a", getPrologueA().empty() ? getACaptures().size() : 0},
      {"prologue_b", getPrologueB().empty() ? getBCaptures().size() : 0},
      {"epilogue",
       getEpilogue().empty() ? getEpilogueCaptures().size() : 0}};
  for (auto [name, orphanCaptures] : regionsAndCaptures)
    if (orphanCaptures != 0)
      return emitOpError("has captures for the empty region '")
             << name << "' (expected a region that takes them)";
  // Element types depend on what the prologues yield: checked in
  // verifyRegions, once the regions themselves are known to be valid.
  return verifyMatmulShapes(*this, shapeOf(getA()), shapeOf(getB()),
                            shapeOf(getType()));
}

LogicalResult FusedMatmulOp::verifyRegions() {
  if (!getPrologueA().empty() &&
      failed(verifyElementRegion(*this, getPrologueA(), "prologue_a",
                                 scalarTypesOf(elementTypeOf(getA()),
                                               getACaptures()),
                                 Type())))
    return failure();
  if (!getPrologueB().empty() &&
      failed(verifyElementRegion(*this, getPrologueB(), "prologue_b",
                                 scalarTypesOf(elementTypeOf(getB()),
                                               getBCaptures()),
                                 Type())))
    return failure();
  if (failed(verifyMatmulTypes(
          *this, getPrologueResultType(0), getPrologueResultType(1),
          getAccumulatorType(),
          getEpilogue().empty() ? elementTypeOf(getResult()) : Type())))
    return failure();
  if (!getEpilogue().empty())
    return verifyElementRegion(
        *this, getEpilogue(), "epilogue",
        scalarTypesOf(getAccumulatorType(), getEpilogueCaptures()),
        elementTypeOf(getResult()));
  return success();
}

//===----------------------------------------------------------------------===//
// SoftmaxOp, DropoutOp
//===----------------------------------------------------------------------===//

LogicalResult SoftmaxOp::verify() {
  ArrayRef<int64_t> shape = shapeOf(getInput());
  if (failed(verifyAxis(*this, getAxisAttr(), shape.size())))
    return failure();
  if (Value stats = getStats()) {
    SmallVector<int64_t> expected(shape);
    expected[getAxis()] = 1;
    if (shapeOf(stats) != ArrayRef<int64_t>(expected))
      return emitOpError("stats shape ")
             << formatShape(shapeOf(stats)) << " does not match; expected "
             << formatShape(expected);
  }
  return success();
}

static LogicalResult verifyProbability(Operation *op, double p,
                                       StringRef name) {
  if (!(p >= 0.0 && p < 1.0))
    return op->emitOpError(name) << " probability " << p
                                 << " is out of range (expected 0 <= p < 1)";
  return success();
}

LogicalResult DropoutOp::verify() {
  return verifyProbability(*this, getProb().convertToDouble(), "dropout");
}

//===----------------------------------------------------------------------===//
// Attention ops
//===----------------------------------------------------------------------===//

namespace {
/// The operands and options that tg.sdpa, tg.sdpa_grad and tg.attention
/// share, gathered so that one function checks their rules.
struct AttentionParts {
  Value q, k, v, bias, seqLenQ, seqLenKv, seed, offset;
  std::optional<APFloat> scale, softcap;
  double dropout = 0.0;
  /// The ragged layout's offsets and maximum lengths.
  Value cuSeqlensQ, cuSeqlensKv;
  std::optional<uint64_t> maxSeqlenQ, maxSeqlenKv;
  /// The paged K/V layout's page table.
  Value pageTable;
};

/// q, k, v in the [B, H, S, D] form the rules below check: the dense
/// tensors' shapes, or, for the ragged layout, [B, H, max_seqlen, D].
struct AttentionShapes {
  SmallVector<int64_t> q, k, v;
};
} // namespace

static AttentionShapes attentionShapes(const AttentionParts &p);

/// The integer values of `value` when it is a constant (host-visible:
/// checked at compile time), else nothing.
static std::optional<SmallVector<int64_t>> constantInts(Value value) {
  ElementsAttr elements;
  if (!value || !matchPattern(value, m_Constant(&elements)) ||
      !isa<IntegerType>(elements.getElementType()))
    return std::nullopt;
  SmallVector<int64_t> out;
  for (APInt v : elements.getValues<APInt>())
    out.push_back(v.getSExtValue());
  return out;
}

/// Constant cu_seqlens (values the compiler sees): start at 0, never
/// decrease, end within the tokens, no sequence longer than max_seqlen.
/// Device values are clamped instead (TGOps.td).
static LogicalResult verifyConstantOffsets(Operation *op, StringRef name,
                                           Value cu, int64_t tokens,
                                           uint64_t max) {
  std::optional<SmallVector<int64_t>> cuValues = constantInts(cu);
  if (!cuValues)
    return success();
  ArrayRef<int64_t> c = *cuValues;
  if (c.front() != 0)
    return op->emitOpError(name) << " starts at " << c.front()
                                 << "; expected 0";
  for (size_t b = 0; b + 1 < c.size(); ++b) {
    if (c[b + 1] < c[b])
      return op->emitOpError(name)
             << " decreases from " << c[b] << " to " << c[b + 1]
             << " at entry " << b + 1;
    if (static_cast<uint64_t>(c[b + 1] - c[b]) > max)
      return op->emitOpError(name)
             << " gives sequence " << b << " " << c[b + 1] - c[b]
             << " tokens, more than max_seqlen (" << max << ")";
  }
  if (c.back() > tokens)
    return op->emitOpError(name) << " ends at " << c.back()
                                 << ", past the " << tokens << " tokens";
  return success();
}

/// The ragged layout's rules (TGOps.td, tg.sdpa): rank-3 packed tensors,
/// offsets and maximum lengths given together, lengths that fit.
static LogicalResult verifyRagged(Operation *op, const AttentionParts &p) {
  if (!p.cuSeqlensQ || !p.cuSeqlensKv)
    return op->emitOpError("cu_seqlens_q and cu_seqlens_kv must be given "
                           "together");
  if (!p.maxSeqlenQ || !p.maxSeqlenKv)
    return op->emitOpError("the ragged layout (cu_seqlens_q, cu_seqlens_kv) "
                           "needs the max_seqlen_q and max_seqlen_kv "
                           "attributes");
  if (p.seqLenQ || p.seqLenKv)
    return op->emitOpError("takes seq_len_q/seq_len_kv or the ragged "
                           "layout's cu_seqlens, not both (cu_seqlens give "
                           "the lengths)");
  for (auto [name, value] :
       {std::pair<StringRef, Value>{"q", p.q}, {"k", p.k}, {"v", p.v}})
    if (shapeOf(value).size() != 3)
      return op->emitOpError(name)
             << " must have rank 3 ([T, H, D]) in the ragged layout, got "
                "rank "
             << shapeOf(value).size();
  int64_t entries = shapeOf(p.cuSeqlensQ)[0];
  if (entries < 2)
    return op->emitOpError("cu_seqlens_q has ")
           << entries << " entries; expected B + 1 >= 2";
  if (shapeOf(p.cuSeqlensKv)[0] != entries)
    return op->emitOpError("cu_seqlens_q has ")
           << entries << " entries but cu_seqlens_kv has "
           << shapeOf(p.cuSeqlensKv)[0] << " (expected equal: B + 1)";
  for (auto [name, max, tokens] :
       {std::tuple<StringRef, uint64_t, int64_t>{"max_seqlen_q", *p.maxSeqlenQ,
                                                 shapeOf(p.q)[0]},
        {"max_seqlen_kv", *p.maxSeqlenKv, shapeOf(p.k)[0]}})
    if (max < 1 || static_cast<int64_t>(max) > tokens)
      return op->emitOpError(name)
             << " is " << max << "; expected 1 to the token count " << tokens;
  if (failed(verifyConstantOffsets(op, "cu_seqlens_q", p.cuSeqlensQ,
                                   shapeOf(p.q)[0], *p.maxSeqlenQ)) ||
      failed(verifyConstantOffsets(op, "cu_seqlens_kv", p.cuSeqlensKv,
                                   shapeOf(p.k)[0], *p.maxSeqlenKv)))
    return failure();
  return success();
}

LogicalResult mlir::tg::detail::verifyRaggedAttention(
    Operation *op, Value q, Value k, Value v, Value seqLenQ, Value seqLenKv,
    Value cuSeqlensQ, Value cuSeqlensKv, std::optional<uint64_t> maxSeqlenQ,
    std::optional<uint64_t> maxSeqlenKv, SmallVectorImpl<int64_t> &qView,
    SmallVectorImpl<int64_t> &kView, SmallVectorImpl<int64_t> &vView) {
  AttentionParts p;
  p.q = q, p.k = k, p.v = v, p.seqLenQ = seqLenQ, p.seqLenKv = seqLenKv;
  p.cuSeqlensQ = cuSeqlensQ, p.cuSeqlensKv = cuSeqlensKv;
  p.maxSeqlenQ = maxSeqlenQ, p.maxSeqlenKv = maxSeqlenKv;
  if (failed(verifyRagged(op, p)))
    return failure();
  AttentionShapes shapes = attentionShapes(p);
  qView.assign(shapes.q.begin(), shapes.q.end());
  kView.assign(shapes.k.begin(), shapes.k.end());
  vView.assign(shapes.v.begin(), shapes.v.end());
  return success();
}

/// The paged layout's rules (TGOps.td, tg.sdpa): rank-4 pages, a page
/// table per batch entry, the cached lengths.
static LogicalResult verifyPaged(Operation *op, const AttentionParts &p) {
  if (p.cuSeqlensQ || p.cuSeqlensKv)
    return op->emitOpError("takes a paged K/V cache (page_table) or the "
                           "ragged layout (cu_seqlens), not both");
  if (!p.seqLenKv)
    return op->emitOpError("a paged K/V cache (page_table) needs seq_len_kv, "
                           "the cached length of each sequence");
  for (auto [name, value] :
       {std::pair<StringRef, Value>{"q", p.q}, {"k", p.k}, {"v", p.v}})
    if (shapeOf(value).size() != 4)
      return op->emitOpError(name)
             << " must have rank 4 ("
             << (name == "q" ? "[B, H, S, D]" : "[num_pages, page_size, H, D]")
             << ") with a page table, got rank " << shapeOf(value).size();
  ArrayRef<int64_t> k = shapeOf(p.k), v = shapeOf(p.v), t = shapeOf(p.pageTable);
  if (k[0] != v[0] || k[1] != v[1])
    return op->emitOpError("k pages ")
           << formatShape(k) << " and v pages " << formatShape(v)
           << " differ in page count or page size";
  if (t[0] != shapeOf(p.q)[0])
    return op->emitOpError("page_table has ")
           << t[0] << " rows; expected one per batch entry ("
           << shapeOf(p.q)[0] << ")";
  if (t[1] < 1)
    return op->emitOpError("page_table needs at least one page per sequence");
  // A constant page table (host-visible) must name existing pages; device
  // values are clamped instead (TGOps.td).
  if (std::optional<SmallVector<int64_t>> pages = constantInts(p.pageTable))
    for (auto [i, page] : llvm::enumerate(*pages))
      if (page < 0 || page >= k[0])
        return op->emitOpError("page_table entry [")
               << static_cast<int64_t>(i) / t[1] << ", "
               << static_cast<int64_t>(i) % t[1] << "] is page " << page
               << "; the cache has pages 0 to " << k[0] - 1;
  if (std::optional<SmallVector<int64_t>> lens = constantInts(p.seqLenKv))
    for (auto [b, len] : llvm::enumerate(*lens))
      if (len < 0 || len > t[1] * k[1])
        return op->emitOpError("seq_len_kv[")
               << static_cast<int64_t>(b) << "] is " << len
               << "; a page table row holds " << t[1] * k[1] << " keys";
  return success();
}

/// The [B, H, S, D] shapes of q, k and v (AttentionShapes).
static AttentionShapes attentionShapes(const AttentionParts &p) {
  if (p.pageTable) {
    ArrayRef<int64_t> k = shapeOf(p.k), v = shapeOf(p.v), t = shapeOf(p.pageTable);
    int64_t keys = t[1] * k[1];
    return {SmallVector<int64_t>(shapeOf(p.q)),
            SmallVector<int64_t>{t[0], k[2], keys, k[3]},
            SmallVector<int64_t>{t[0], v[2], keys, v[3]}};
  }
  if (!p.cuSeqlensQ)
    return {SmallVector<int64_t>(shapeOf(p.q)),
            SmallVector<int64_t>(shapeOf(p.k)),
            SmallVector<int64_t>(shapeOf(p.v))};
  int64_t batch = shapeOf(p.cuSeqlensQ)[0] - 1;
  auto view = [&](Value t, uint64_t seq) {
    ArrayRef<int64_t> s = shapeOf(t);
    return SmallVector<int64_t>{batch, s[1], static_cast<int64_t>(seq), s[2]};
  };
  return {view(p.q, *p.maxSeqlenQ), view(p.k, *p.maxSeqlenKv),
          view(p.v, *p.maxSeqlenKv)};
}

/// The logical shape of the attention scores, [B, Hq, Sq, Skv].
static SmallVector<int64_t> scoreShape(const AttentionShapes &s) {
  return {s.q[0], s.q[1], s.q[2], s.k[2]};
}

static LogicalResult verifyAttention(Operation *op, const AttentionParts &p) {
  if (p.pageTable) {
    if (failed(verifyPaged(op, p)))
      return failure();
  } else if (p.cuSeqlensQ || p.cuSeqlensKv) {
    if (failed(verifyRagged(op, p)))
      return failure();
  } else {
    if (p.maxSeqlenQ || p.maxSeqlenKv)
      return op->emitOpError("max_seqlen_q/max_seqlen_kv belong to the "
                             "ragged layout (cu_seqlens_q, cu_seqlens_kv)");
    for (auto [name, value] :
         {std::pair<StringRef, Value>{"q", p.q}, {"k", p.k}, {"v", p.v}})
      if (shapeOf(value).size() != 4)
        return op->emitOpError(name)
               << " must have rank 4 ([B, H, S, D]), got rank "
               << shapeOf(value).size();
  }
  AttentionShapes shapes = attentionShapes(p);
  ArrayRef<int64_t> q = shapes.q, k = shapes.k, v = shapes.v;
  if (elementTypeOf(p.q) != elementTypeOf(p.k) ||
      elementTypeOf(p.q) != elementTypeOf(p.v))
    return op->emitOpError("q, k and v must have the same element type, got ")
           << elementTypeOf(p.q) << ", " << elementTypeOf(p.k) << ", "
           << elementTypeOf(p.v);
  if (k[0] != q[0] || v[0] != q[0])
    return op->emitOpError("batch sizes differ: q has ")
           << q[0] << ", k has " << k[0] << ", v has " << v[0];
  if (k[1] != v[1])
    return op->emitOpError("k has ")
           << k[1] << " heads but v has " << v[1] << " (expected equal)";
  if (k[1] <= 0 || q[1] % k[1] != 0)
    return op->emitOpError("query heads (")
           << q[1] << ") must be a multiple of key/value heads (" << k[1]
           << ")";
  if (k[2] != v[2])
    return op->emitOpError("k has sequence length ")
           << k[2] << " but v has " << v[2] << " (expected equal)";
  if (q[3] != k[3])
    return op->emitOpError("head dims of q (")
           << q[3] << ") and k (" << k[3] << ") differ";
  for (int64_t dim : {q[2], q[3], k[2], v[3]})
    if (dim <= 0)
      return op->emitOpError("sequence lengths and head dims must be "
                             "positive");
  SmallVector<int64_t> scores = scoreShape(shapes);
  if (p.bias) {
    if (shapeOf(p.bias).size() != 4 ||
        !isBroadcastableTo(shapeOf(p.bias), scores))
      return op->emitOpError("bias of shape ")
             << formatShape(shapeOf(p.bias))
             << " does not broadcast to the scores " << formatShape(scores)
             << " (expected rank 4 with each dimension equal or 1)";
    if (!isFloatElement(elementTypeOf(p.bias)))
      return op->emitOpError("bias must be floating point, got ")
             << elementTypeOf(p.bias);
  }
  for (auto [name, value] : {std::pair<StringRef, Value>{"seq_len_q", p.seqLenQ},
                             {"seq_len_kv", p.seqLenKv}})
    if (value && shapeOf(value)[0] != q[0])
      return op->emitOpError(name)
             << " has " << shapeOf(value)[0] << " entries; expected one per "
             << "batch (" << q[0] << ")";
  if (failed(verifyProbability(op, p.dropout, "dropout")))
    return failure();
  if (static_cast<bool>(p.seed) != static_cast<bool>(p.offset))
    return op->emitOpError("seed and offset must be given together");
  if (p.dropout > 0.0 && !p.seed)
    return op->emitOpError("dropout needs seed and offset operands");
  if (p.scale && !std::isfinite(p.scale->convertToDouble()))
    return op->emitOpError("scale must be finite");
  if (p.softcap && !(p.softcap->convertToDouble() > 0.0))
    return op->emitOpError("softcap must be positive, got ")
           << p.softcap->convertToDouble();
  return success();
}

static LogicalResult verifyWindow(Operation *op, std::optional<int64_t> left,
                                  std::optional<int64_t> right) {
  for (auto [name, size] : {std::pair<StringRef, std::optional<int64_t>>{
                                "window_left", left},
                            {"window_right", right}})
    if (size && *size < 0)
      return op->emitOpError(name)
             << " must be >= 0, got " << *size;
  return success();
}

static LogicalResult verifyOutputAndStats(Operation *op, Value q, Value k,
                                          Value v, Type output, Value stats,
                                          bool training, bool ragged = false) {
  ArrayRef<int64_t> qs = shapeOf(q);
  int64_t dimV = shapeOf(v).back();
  // [B, Hq, Sq, *] dense, [Tq, Hq, *] ragged.
  SmallVector<int64_t> rows(qs.drop_back());
  SmallVector<int64_t> expected(rows), statsShape(rows);
  expected.push_back(dimV);
  statsShape.push_back(1);
  if (shapeOf(output) != ArrayRef<int64_t>(expected))
    return op->emitOpError("output shape ")
           << formatShape(shapeOf(output)) << " does not match; expected "
           << formatShape(expected)
           << (ragged ? " ([Tq, Hq, Dv])" : " ([B, Hq, Sq, Dv])");
  if (training != static_cast<bool>(stats))
    return op->emitOpError(training
                               ? "in training mode must also return stats"
                               : "returns stats only in training mode");
  if (stats) {
    if (shapeOf(stats) != ArrayRef<int64_t>(statsShape))
      return op->emitOpError("stats shape ")
             << formatShape(shapeOf(stats)) << " does not match; expected "
             << formatShape(statsShape)
             << (ragged ? " ([Tq, Hq, 1])" : " ([B, Hq, Sq, 1])");
  }
  return success();
}

static bool isFp8Element(Type type) {
  return isa<Float8E4M3FNType, Float8E5M2Type>(type);
}

/// The fp8 rules of tg.sdpa and tg.attention: fp8 q, k, v take exactly the
/// six rank-0 f32 fp8_scales; amax_s and amax_o come together, only with
/// the scales; an fp8 output needs fp8 inputs.
static LogicalResult verifyFp8(Operation *op, Value q, ValueRange scales,
                               Type output, Value amaxS, Value amaxO) {
  static const char *const names[] = {"descale_q", "descale_k", "descale_v",
                                      "descale_s", "scale_s",   "scale_o"};
  bool fp8 = isFp8Element(elementTypeOf(q));
  if (!scales.empty() && scales.size() != std::size(names))
    return op->emitOpError("expects six fp8_scales (descale_q, descale_k, "
                           "descale_v, descale_s, scale_s, scale_o), got ")
           << scales.size();
  if (fp8 && scales.empty())
    return op->emitOpError("with fp8 q, k and v needs fp8_scales (descale_q, "
                           "descale_k, descale_v, descale_s, scale_s, "
                           "scale_o)");
  if (!fp8 && !scales.empty())
    return op->emitOpError("takes fp8_scales only with fp8 q, k and v, got ")
           << elementTypeOf(q);
  auto isScalarF32 = [](Type type) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    return tensor && tensor.getRank() == 0 &&
           tensor.getElementType().isF32();
  };
  for (auto [name, scale] : llvm::zip(names, scales))
    if (!isScalarF32(scale.getType()))
      return op->emitOpError("fp8 scale ")
             << name << " must be a rank-0 f32 tensor, got "
             << scale.getType();
  Type outElem = cast<RankedTensorType>(output).getElementType();
  if (fp8 && outElem.isF32())
    return op->emitOpError("fp8 attention gives an f8E4M3FN, f8E5M2, bf16 "
                           "or f16 output, got f32");
  if (!fp8 && isFp8Element(outElem))
    return op->emitOpError("gives an fp8 output only with fp8 q, k and v");
  if (static_cast<bool>(amaxS) != static_cast<bool>(amaxO))
    return op->emitOpError("returns amax_s and amax_o together");
  if (amaxS && scales.empty())
    return op->emitOpError("returns amax_s and amax_o only with fp8_scales");
  for (auto [name, amax] :
       {std::pair<StringRef, Value>{"amax_s", amaxS}, {"amax_o", amaxO}})
    if (amax && !isScalarF32(amax.getType()))
      return op->emitOpError(name)
             << " must be a rank-0 f32 tensor, got " << amax.getType();
  return success();
}

static double defaultScale(Value q, std::optional<APFloat> scale) {
  if (scale)
    return scale->convertToDouble();
  // The head dim is the last dimension in both layouts.
  return 1.0 / std::sqrt(static_cast<double>(shapeOf(q).back()));
}

double SdpaOp::getScaleOrDefault() { return defaultScale(getQ(), getScale()); }
double SdpaGradOp::getScaleOrDefault() {
  return defaultScale(getQ(), getScale());
}

/// The ragged layout's operands and attributes of `op` into `parts`.
template <typename OpTy>
static void addRaggedParts(OpTy op, AttentionParts &parts) {
  if constexpr (std::is_same_v<OpTy, SdpaOp> || std::is_same_v<OpTy, AttentionOp>)
    parts.pageTable = op.getPageTable();
  parts.cuSeqlensQ = op.getCuSeqlensQ();
  parts.cuSeqlensKv = op.getCuSeqlensKv();
  if (auto max = op.getMaxSeqlenQ())
    parts.maxSeqlenQ = *max;
  if (auto max = op.getMaxSeqlenKv())
    parts.maxSeqlenKv = *max;
}

LogicalResult SdpaOp::verify() {
  AttentionParts parts{getQ(),      getK(),         getV(),    getBias(),
                       getSeqLenQ(), getSeqLenKv(), getSeed(), getOffset(),
                       getScale(),  getSoftcap()};
  parts.dropout = getDropout().convertToDouble();
  addRaggedParts(*this, parts);
  if (failed(verifyAttention(*this, parts)) ||
      failed(verifyWindow(*this, getWindowLeft(), getWindowRight())) ||
      failed(verifyFp8(*this, getQ(), getFp8Scales(), getType(0), getAmaxS(),
                       getAmaxO())))
    return failure();
  if (isRagged() && isFp8())
    return emitOpError("the ragged layout takes bf16, f16 or f32 q, k and v, "
                       "not fp8");
  if (isRagged() && getAlibi() && getCausal() == CausalMode::bottom_right)
    return emitOpError("ALiBi with bottom-right alignment is not supported "
                       "in the ragged layout (its distances need each "
                       "sequence's lengths in the score region)");
  if (isPaged() && (isFp8() || getTraining()))
    return emitOpError("a paged K/V cache is for inference: not with fp8 or "
                       "training");
  if (isPaged() && getAlibi() && getCausal() == CausalMode::bottom_right)
    return emitOpError("ALiBi with bottom-right alignment is not supported "
                       "with a paged K/V cache");
  return verifyOutputAndStats(*this, getQ(), getK(), getV(), getType(0),
                              getStats(), getTraining(), isRagged());
}

LogicalResult SdpaGradOp::verify() {
  AttentionParts parts{getQ(),      getK(),         getV(),    getBias(),
                       getSeqLenQ(), getSeqLenKv(), getSeed(), getOffset(),
                       getScale(),  getSoftcap()};
  parts.dropout = getDropout().convertToDouble();
  addRaggedParts(*this, parts);
  if (failed(verifyAttention(*this, parts)) ||
      failed(verifyWindow(*this, getWindowLeft(), getWindowRight())) ||
      failed(verifyOutputAndStats(*this, getQ(), getK(), getV(),
                                  getO().getType(), getStats(),
                                  /*training=*/true, isRagged())))
    return failure();
  if (isRagged() && getAlibi() && getCausal() == CausalMode::bottom_right)
    return emitOpError("ALiBi with bottom-right alignment is not supported "
                       "in the ragged layout (its distances need each "
                       "sequence's lengths in the score region)");
  if (getDO().getType() != getO().getType())
    return emitOpError("d_o type ")
           << getDO().getType() << " differs from o's " << getO().getType();
  if (Value dbias = getDbias()) {
    if (!getBias())
      return emitOpError("returns dbias but has no bias");
    if (dbias.getType() != getBias().getType())
      return emitOpError("dbias type ")
             << dbias.getType() << " differs from the bias's "
             << getBias().getType();
    if (!isa<FloatType>(cast<RankedTensorType>(dbias.getType()).getElementType()))
      return emitOpError("dbias needs a float bias, got ") << getBias().getType();
  }
  return success();
}

void AttentionOp::build(OpBuilder &builder, OperationState &state,
                        Type outputType, Type statsType, Value q, Value k,
                        Value v, Value seqLenQ, Value seqLenKv, Value seed,
                        Value offset, ValueRange captures,
                        ValueRange fp8Scales, bool amax, Value cuSeqlensQ,
                        Value cuSeqlensKv, Value pageTable) {
  state.addOperands({q, k, v});
  auto addOptional = [&](Value value) {
    if (value)
      state.addOperands(value);
  };
  addOptional(seqLenQ);
  addOptional(seqLenKv);
  addOptional(cuSeqlensQ);
  addOptional(cuSeqlensKv);
  addOptional(pageTable);
  addOptional(seed);
  addOptional(offset);
  state.addOperands(captures);
  state.addOperands(fp8Scales);
  auto &props = state.getOrAddProperties<Properties>();
  props.operandSegmentSizes = {1,
                               1,
                               1,
                               seqLenQ ? 1 : 0,
                               seqLenKv ? 1 : 0,
                               cuSeqlensQ ? 1 : 0,
                               cuSeqlensKv ? 1 : 0,
                               pageTable ? 1 : 0,
                               seed ? 1 : 0,
                               offset ? 1 : 0,
                               static_cast<int32_t>(captures.size()),
                               static_cast<int32_t>(fp8Scales.size())};
  state.addTypes(outputType);
  if (statsType) {
    state.addTypes(statsType);
    props.training = builder.getUnitAttr();
  }
  if (amax) {
    Type scalar = RankedTensorType::get({}, builder.getF32Type());
    state.addTypes({scalar, scalar});
  }
  props.resultSegmentSizes = {1, statsType ? 1 : 0, amax ? 1 : 0,
                              amax ? 1 : 0};
  Region *region = state.addRegion();
  Block *block = new Block();
  region->push_back(block);
  Location loc = state.location;
  Type i64 = RankedTensorType::get({}, builder.getI64Type());
  block->addArgument(RankedTensorType::get({}, builder.getF32Type()), loc);
  for (int i = 0; i < 4; ++i)
    block->addArgument(i64, loc);
  for (Value capture : captures)
    block->addArgument(RankedTensorType::get({}, elementTypeOf(capture)), loc);
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(block);
  YieldOp::create(builder, loc, ValueRange{block->getArgument(0)});
}

/// Whether a score region yields its score argument (argument 0) unchanged.
static bool yieldsScoreUnchanged(Block &block) {
  auto yield = cast<YieldOp>(block.getTerminator());
  return yield.getValues().size() == 1 &&
         yield.getValues()[0] == block.getArgument(0);
}

bool AttentionOp::hasIdentityScore() {
  return yieldsScoreUnchanged(getScoreBlock());
}

bool AttentionGradOp::hasIdentityScore() {
  return yieldsScoreUnchanged(getScoreBlock());
}

LogicalResult AttentionOp::verify() {
  AttentionParts parts{getQ(),      getK(),         getV(),    Value(),
                       getSeqLenQ(), getSeqLenKv(), getSeed(), getOffset(),
                       getScale(),  std::nullopt};
  parts.dropout = getDropout().convertToDouble();
  addRaggedParts(*this, parts);
  if (failed(verifyAttention(*this, parts)) ||
      failed(verifyWindow(*this, getWindowLeft(), getWindowRight())) ||
      failed(verifyFp8(*this, getQ(), getFp8Scales(), getType(0), getAmaxS(),
                       getAmaxO())))
    return failure();
  if (isRagged() && isFp8())
    return emitOpError("the ragged layout takes bf16, f16 or f32 q, k and v, "
                       "not fp8");
  if (isPaged() && (isFp8() || getTraining()))
    return emitOpError("a paged K/V cache is for inference: not with fp8 or "
                       "training");
  if (failed(detail::verifyAttentionCaptures(
          *this, getCaptures(), scoreShape(attentionShapes(parts)))))
    return failure();
  return verifyOutputAndStats(*this, getQ(), getK(), getV(), getType(0),
                              getStats(), getTraining(), isRagged());
}

LogicalResult AttentionOp::verifyRegions() {
  Builder builder(getContext());
  SmallVector<Type> argTypes =
      detail::scoreRegionArgTypes(*this, getCaptures());
  if (getScoreBlock().getNumArguments() == argTypes.size() &&
      failed(detail::verifyTableUses(*this, getScoreBlock(), "score",
                                     getCaptures())))
    return failure();
  return verifyElementRegion(*this, getScore(), "score", argTypes,
                             builder.getF32Type(), /*allowGather=*/true);
}

#define GET_OP_CLASSES
#include "tg/Dialect/TG/IR/TGOps.cpp.inc"
